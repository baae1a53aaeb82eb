"""The engine's note beside a text that states what the engine does.

An entry of the KB whose text says the engine refuses, caps, resets or requires something references the
rule that holds the pinned engine's actual behaviour (``rules: [id]``); wherever the entry's text is shown,
``verdicts`` sets one note beside it, in the page's language and in sentences: how the source's words compare
with the engine where they do not match (the rule's ``stated.why``, written for readers), otherwise what
SGLang does (refuses to start, starts and adjusts, only logs, does not check). Each rule's id goes into a
link to its row on the engine-drift page, never into the sentence. A text whose rule says the source
overstates or contradicts the engine is never shown without its note (tests/test_site_truth.py checks the
built pages).

In a page's own prose (``<!-- kb:rule-verdict id=… -->``) the sentence around the marker usually says what
the engine does already; ``form=link`` then gives only the link, so the note never repeats its sentence.
"""

from __future__ import annotations

from collections.abc import Iterable

from handbook.core.anchors import DRIFT_PAGE
from handbook.render.context import RenderContext, attr, esc
from handbook.render.markers import RenderError, renderer

# The catalogue's sentence for what the engine does, where the source's wording matches or is not stated.
DOES_KEYS = {
    "raises": "note-raises",
    "adjusts": "note-adjusts",
    "logs": "note-logs",
    "nothing": "note-nothing",
}


def rule_anchor(rule: object) -> str:
    """The rule's row on the engine-drift page: the drift table when the source's wording differs."""
    stated = getattr(rule, "stated", None)
    rid = rule.id  # type: ignore[attr-defined]
    return f"drift-{rid}" if stated is not None and stated.verdict != "matches" else f"rule-{rid}"


def _sentence(text: str, lang: str) -> str:
    """A clause as a sentence: capitalized (English) and closed with a full stop."""
    text = text.strip().rstrip("。.;；")
    if lang == "en" and text[:1].islower():
        text = text[0].upper() + text[1:]
    return text + ("。" if lang == "zh" else ".")


def rule_link(ctx: RenderContext, rule_id: str) -> str:
    """The link to a rule's row on the engine-drift page; the rule's id is its title, not its words."""
    rule = ctx.kb.rules[rule_id]
    href = attr(ctx.href(DRIFT_PAGE, rule_anchor(rule)))
    title = attr(ctx.msg("note-rule-title", rule=rule.id))
    label = esc(ctx.msg("note-link"))
    return (
        f'<a class="engine-note-link" href="{href}" title="{title}" data-rule="{attr(rule.id)}">{label}</a>'
    )


def note_sentence(ctx: RenderContext, rule_id: str) -> str:
    """What a reader needs to know about one rule, as a sentence of HTML."""
    rule = ctx.kb.rules[rule_id]
    stated = rule.stated
    if stated is not None and stated.verdict != "matches" and stated.why is not None:
        return _sentence(ctx.text_html(stated.why), ctx.lang)
    engine = rule.engine
    return ctx.msg(
        DOES_KEYS[engine.does],
        version=esc(ctx.kb.handbook.engine_version),
        error=esc(engine.raises or ""),
        adjustment=ctx.text_html(engine.adjustment).rstrip("。.") if engine.adjustment is not None else "",
    )


def _verdict_word(ctx: RenderContext, rule_ids: list[str]) -> str:
    """The strongest disagreement among the rules (for styling and the tests), or "matches"."""
    order = ["contradicts", "overstates", "understates", "matches"]
    words = [
        r.stated.verdict if (r := ctx.kb.rules[rid]).stated is not None else "matches" for rid in rule_ids
    ]
    return min(words, key=order.index)


def engine_note(ctx: RenderContext, rule_ids: Iterable[str], form: str = "note") -> str:
    """One note for the rules (each once): their sentences and, after each, its link (``form=link``: the
    links alone)."""
    ids = list(dict.fromkeys(rule_ids))
    if not ids:
        return ""
    parts = []
    for rid in ids:
        link = rule_link(ctx, rid)
        parts.append(link if form == "link" else f"{note_sentence(ctx, rid)} {link}")
    return note_span(ctx, ids, " ".join(parts))


def note_span(ctx: RenderContext, rule_ids: list[str], inner: str) -> str:
    """The note's element: which rules it speaks for and how the source compares, around ``inner``."""
    rules = attr(" ".join(rule_ids))
    verdict = attr(_verdict_word(ctx, rule_ids))
    return f'<span class="engine-note" data-rules="{rules}" data-verdict="{verdict}">{inner}</span>'


def verdicts(ctx: RenderContext, rule_ids: Iterable[str]) -> str:
    """The engine's note for the rules a text references, on a line of its own ("" when there is none)."""
    note = engine_note(ctx, rule_ids)
    return "<br>" + note if note else ""


@renderer("rule-verdict", inline=True)
def rule_verdict(ctx: RenderContext, id: str, form: str = "note") -> str:
    """A rule's note inside a page's own prose (``form=link`` where the sentence already says it)."""
    if id not in ctx.kb.rules:
        raise RenderError(f"{id!r} is not a rule id (kb/rules.yaml)")
    if form not in ("note", "link"):
        raise RenderError(f"form={form!r}: expected note or link")
    return engine_note(ctx, [id], form)
