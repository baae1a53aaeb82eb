"""The engine's verdict beside a text that states what the engine does.

An entry of the KB whose text says the engine refuses, caps, resets or requires something references the
rule that holds the pinned engine's actual behaviour (``rules: [id]``); wherever the entry's text is shown,
``verdicts`` sets beside it, in the page's language, what SGLang does (refuses, adjusts and how, only logs,
does not check), how the source's wording compares when it does not match, and a link to the rule on the
engine-drift page. A text whose rule says the source overstates or contradicts the engine is never shown
without it (tests/test_site.py checks the built pages).
"""

from __future__ import annotations

from collections.abc import Iterable

from handbook.core.anchors import DRIFT_PAGE
from handbook.render.context import RenderContext, attr, esc
from handbook.render.markers import RenderError, renderer

# The catalogue's key for what the engine does, and for how the source's wording compares.
DOES_KEYS = {
    "raises": "verdict-raises",
    "adjusts": "verdict-adjusts",
    "logs": "verdict-logs",
    "nothing": "verdict-nothing",
}
STATED_KEYS = {
    "overstates": "verdict-source-overstates",
    "understates": "verdict-source-understates",
    "contradicts": "verdict-source-contradicts",
}


def rule_anchor(rule: object) -> str:
    """The rule's row on the engine-drift page: the drift table when the source's wording differs."""
    stated = getattr(rule, "stated", None)
    rid = rule.id  # type: ignore[attr-defined]
    return f"drift-{rid}" if stated is not None and stated.verdict != "matches" else f"rule-{rid}"


def verdict(ctx: RenderContext, rule_id: str) -> str:
    """One rule's verdict as a small line: what the engine does, how the source compares, the link."""
    rule = ctx.kb.rules[rule_id]
    engine = rule.engine
    version = esc(ctx.kb.handbook.engine_version)
    does = ctx.msg(
        DOES_KEYS[engine.does],
        version=version,
        error=esc(engine.raises or ""),
        adjustment=ctx.text_html(engine.adjustment) if engine.adjustment is not None else "",
    )
    stated = rule.stated
    if stated is not None and stated.verdict in STATED_KEYS:
        does += ctx.msg(STATED_KEYS[stated.verdict])
    href = attr(ctx.href(DRIFT_PAGE, rule_anchor(rule)))
    link = f'<a href="{href}">{esc(ctx.msg("verdict-rule", rule=rule.id))}</a>'
    verdict_word = stated.verdict if stated is not None else "matches"
    return (
        f'<small class="rule-verdict" data-rule="{attr(rule.id)}" data-verdict="{attr(verdict_word)}">'
        f"{does} {link}</small>"
    )


def verdicts(ctx: RenderContext, rule_ids: Iterable[str]) -> str:
    """Every referenced rule's verdict, each on a line of its own, to append to a cell ("" when none)."""
    return "".join("<br>" + verdict(ctx, rid) for rid in dict.fromkeys(rule_ids))


@renderer("rule-verdict", inline=True)
def rule_verdict(ctx: RenderContext, id: str) -> str:
    """A rule's verdict inside a page's own prose, beside the sentence that states the behaviour."""
    if id not in ctx.kb.rules:
        raise RenderError(f"{id!r} is not a rule id (kb/rules.yaml)")
    return verdict(ctx, id)
