"""Every recorded change: each place where the site shows something other than the source's words, or the
source's words with a correction beside them. Appendix D (``<!-- kb:drift -->``) is this list, one row per
change, so it cannot leave one out; the silent-change test reads the source against the built pages and
requires every sentence the site does not show as its own to be held by one of these.

What is recorded, and where:

- a figure the source states that the KB computes otherwise (``kb/claims.yaml`` claims that disagree);
- a TP size the source lists that the arithmetic does not give (a model's ``hardware`` rows);
- a command changed from the source's (``corrections`` of a recipe or a scenario of chapter 07);
- words the site writes otherwise (``kb/claims.yaml`` edits);
- a rule the source states in words that overstate, understate or contradict the engine (``kb/rules.yaml``);
- a term the source writes in a variant the glossary avoids (``kb/glossary.yaml`` avoid_zh), once per term;
- a default the source states that is not the engine's (chapter 04, beside the engine's).
"""

from __future__ import annotations

from dataclasses import dataclass

from handbook.calc import claims as claim_calc
from handbook.calc import memory
from handbook.core.anchors import DRIFT_PAGE
from handbook.core.paths import SOURCE_TEXT
from handbook.core.quotes import plain
from handbook.core.text import Text
from handbook.core.words import whole
from handbook.pages.source_text import cells, pieces
from handbook.render.context import RenderContext, attr, esc
from handbook.render.engine import DEFAULT_MEANING_KEYS, VERDICT_KEYS, corrections, engine_default_html
from handbook.render.html import change, table
from handbook.render.landscape import format_claim
from handbook.render.markers import RenderError, renderer
from handbook.render.params import default_text, default_verdict
from handbook.render.verdicts import rule_anchor


@dataclass(frozen=True)
class Change:
    kind: str  # claim | tp | command | edit | rule | term | default
    where: str  # HTML, the page's language
    stated: str  # HTML: what the source says
    published: str  # HTML: what the site shows instead
    why: str  # HTML
    source_words: str  # the source's own words (Chinese, plain): what the silent-change test looks for
    source_lines: tuple[int, int] | None = None  # the lines of source/handbook.md it covers, where given


def _zh(value: Text | str) -> str:
    return plain(value if isinstance(value, str) else value.zh)


def recorded_changes(ctx: RenderContext) -> list[Change]:
    """Every recorded change, in the order of the list above."""
    kb = ctx.kb
    out: list[Change] = []
    for c in kb.claims.values():
        outcome = claim_calc.evaluate(kb, c)
        if not outcome.agrees:
            out.append(
                Change(
                    "claim",
                    esc(ctx.t(c.section)),
                    esc(ctx.t(c.stated)),
                    format_claim(ctx, c, outcome.values),
                    ctx.text_html(c.why),
                    _zh(c.stated),
                )
            )
    for m in kb.models.values():
        for cell in memory.tp_table(m, kb.dtypes, kb.hardware):
            if not cell.agrees:
                where = f"{m.name} · {kb.dtypes[cell.dtype].name} · {kb.hardware[cell.hardware].name}"
                out.append(
                    Change(
                        "tp",
                        esc(where),
                        f"tp{cell.stated_tp}",
                        f"tp{cell.tp}" if cell.tp else "—",
                        ctx.text_html(ctx.msg("tp-drift-why")),
                        f"tp{cell.stated_tp}",
                    )
                )
    for _owner, program, fix, label in corrections(ctx):
        out.append(
            Change(
                "command",
                label,
                f"<code>{esc(fix.stated)}</code>",
                f"<code>{esc(fix.published)}</code>",
                ctx.text_html(fix.why, program),
                fix.stated,
            )
        )
    for e in kb.edits:
        out.append(
            Change(
                "edit",
                esc(ctx.t(e.section)),
                ctx.text_html(e.stated),
                ctx.text_html(e.published),
                ctx.text_html(e.why),
                _zh(e.stated),
                (e.lines[0], e.lines[1]) if e.lines else None,
            )
        )
    for rule in kb.rules.values():
        stated = rule.stated
        if stated is None or stated.verdict == "matches":
            continue
        href = attr(ctx.href(DRIFT_PAGE, rule_anchor(rule)))
        verdict = esc(ctx.msg(VERDICT_KEYS[stated.verdict]))
        out.append(
            Change(
                "rule",
                esc(ctx.t(stated.where)),
                ctx.text_html(stated.says),
                f'<a href="{href}">{verdict}</a>',
                ctx.text_html(stated.why),
                _zh(stated.says),
            )
        )
    # the source's prose and its text diagrams (its commands and log lines are shown as they are)
    source = SOURCE_TEXT.read_text(encoding="utf-8") if SOURCE_TEXT.is_file() else ""
    prose = "\n".join(piece.text for piece in pieces(source) if not piece.code or cells(piece))
    for term in kb.glossary.values():
        written = [v for v in term.avoid_zh if whole(v).search(prose)]
        if written:
            out.append(
                Change(
                    "term",
                    esc(ctx.msg("changes-term-where", term=ctx.t(term.term))),
                    " / ".join(esc(v) for v in written),
                    esc(term.term.zh),
                    esc(ctx.msg("changes-term-why")),
                    "",  # held by replacing the variant with the term (handbook/site/source_coverage.py)
                )
            )
    resolved = {(d.program, d.flag): d for d in kb.resolved_defaults}
    parsers = ctx.engine()
    for (program, flag), parameter in kb.parameters.items():
        option = parsers.parser(program).get(flag)
        if option is None or option.action == "help":
            continue
        how = resolved.get((program, flag))
        if default_verdict(parameter, option, how) != "differs":
            continue
        engine = engine_default_html(ctx, option)
        if how is not None:
            engine += " → " + ctx.text_html(how.resolves, program)
        stated_words = parameter.default.stated or str(parameter.default.value)
        out.append(
            Change(
                "default",
                ctx.msg("changes-default-where", flag=ctx.flag_html(flag, program)),
                default_text(ctx, parameter.default),
                engine,
                esc(ctx.msg(DEFAULT_MEANING_KEYS["differs"])),
                _zh(stated_words),
            )
        )
    return out


@renderer("drift")
def drift(ctx: RenderContext) -> str:
    """Appendix D: every recorded change (``recorded_changes``), with their count."""
    changes = recorded_changes(ctx)
    if not changes:
        raise RenderError("no recorded change: the drift list would be empty")
    headers = [ctx.msg("col-where"), ctx.msg("col-source-to-published"), ctx.msg("col-why")]
    rows = [[c.where, change(c.stated, c.published), c.why] for c in changes]
    count = f'<p class="changes-count">{esc(ctx.msg("changes-count", count=len(changes)))}</p>'
    return count + "\n\n" + table(headers, rows, row_ids=[f"change-{i + 1}" for i in range(len(changes))])
