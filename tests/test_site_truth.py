"""The built site agrees with itself and with the engine: every command the site changed from the source
shows the change right under it, in both languages; a claim the engine's verdict says overstates or
contradicts is never shown without that verdict; chapter 04 recommends nothing the drift page says fails."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest

from handbook.core.text import LANGS
from handbook.engine import load_snapshot
from handbook.kb.loader import KINDS, load_kb
from handbook.kb.schema import Default
from handbook.kb.texts import leaves
from handbook.render.context import RenderContext
from handbook.site.source_coverage import without_appendix_d
from handbook.validation.values import owner_rules

pytestmark = pytest.mark.site

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
KB = load_kb()
PAGES = sorted(p.relative_to(DOCS / "zh").as_posix() for p in (DOCS / "zh").rglob("*.md"))


def built_page(site: Path, lang: str, page: str) -> str:
    stem = page.removesuffix(".md")
    folder = site if lang == "zh" else site / "en"
    path = folder / "index.html" if stem == "index" else folder / stem / "index.html"
    return path.read_text(encoding="utf-8")


def pages_placing(recipe_id: str, lang: str) -> list[str]:
    marker = re.compile(rf"kb:recipe(-tabs|-set)? (id|ids)=([\w.,-]*,)?{re.escape(recipe_id)}(,|\s)")
    return [p for p in PAGES if marker.search((DOCS / lang / p).read_text(encoding="utf-8"))]


def right_under_a_code_block(html: str, at: int) -> bool:
    """Whether only the end of a code block (and other correction lines) lies between it and ``at``."""
    start = html.rfind("</pre>", 0, at)
    if start < 0:
        return False
    between = re.sub(r'<p class="cmd-correction">.*?</p>', "", html[start:at], flags=re.S)
    between = re.sub(r'<p class="cmd-correction">$', "", between.strip())
    return re.fullmatch(r"(</?(pre|code|div|span|p)[^>]*>|\s)*", between) is not None


@pytest.mark.parametrize("lang", LANGS)
def test_every_changed_command_shows_its_change_right_under_it(built_site, lang):
    drift = built_page(built_site, lang, "engine-drift.md")
    changed = [r for r in KB.recipes.values() if r.corrections]
    assert {r.id for r in changed} >= {
        "deepseek-v4-pro-mi355x-pd-decode",
        "kimi-k3.1-pro-b300-dcp8-full",
        "qwen3.8-flash-next-fp8-b300-tep4",
    }
    for recipe in changed:
        pages = pages_placing(recipe.id, lang)
        assert pages, recipe.id
        for page in pages:
            html = built_page(built_site, lang, page)
            for i, fix in enumerate(recipe.corrections):
                anchor = f"#correction-{recipe.id}-{i}"
                at = html.find(anchor)
                assert at >= 0, f"{lang}/{page}: no correction line for {recipe.id} #{i}"
                line_start = html.rfind('<p class="cmd-correction">', 0, at)
                assert right_under_a_code_block(html, line_start), f"{lang}/{page}: {recipe.id} #{i}"
                # the escaper writes _ as &#95; so that Markdown leaves it alone
                assert f"<code>{fix.published}</code>" in unescape(html[line_start:at])
                assert f'id="correction-{recipe.id}-{i}"' in drift  # the entry it links to


@pytest.mark.parametrize("lang", LANGS)
def test_the_mixed_online_scenario_shows_its_change_and_joins_the_drift_table(built_site, lang):
    tuning = built_page(built_site, lang, "07-tuning.md")
    drift = built_page(built_site, lang, "engine-drift.md")
    (scenario,) = [s for s in KB.tuning.scenarios if s.corrections]
    at = tuning.find(f"#correction-scenario-{scenario.id}-0")
    assert at >= 0
    line = tuning[tuning.rfind('<p class="cmd-correction">', 0, at) : at]
    assert "<code>--schedule-policy priority</code>" in line and "<code>--schedule-policy fcfs</code>" in line
    assert line.rfind("</table>") < 0 and tuning.rfind("</table>", 0, at) > tuning.rfind("<table>", 0, at)
    assert f'id="correction-scenario-{scenario.id}-0"' in drift


def _containers(html: str, at: int) -> list[str]:
    """Where a verdict beside the text at ``at`` may stand: its table row, list item or block; for a row,
    also its table and what follows it up to the next heading (a parameter's verdict under its choices)."""
    out = []
    for open_tag, close_tag in (("<tr", "</tr>"), ("<li", "</li>"), ('<div class="admonition', "</div>")):
        start = html.rfind(open_tag, 0, at)
        end = html.find(close_tag, at)
        previous_close = html.rfind(close_tag, 0, at)
        if start >= 0 and end >= 0 and previous_close < start:
            out.append(html[start:end])
            if open_tag == "<tr":
                table = html.rfind("<table", 0, at)
                heading = re.search(r"<h[1-6]", html[at:])
                out.append(html[table : at + (heading.start() if heading else len(html) - at)])
            return out
    start = max(html.rfind("<p", 0, at), 0)
    end = html.find("</p>", at)
    return [html[start:end], html[start : html.find("</p>", end + 4)]]  # the paragraph, and the next one


def _note_for(box: str, rule: str) -> bool:
    """Whether an engine note in ``box`` speaks for ``rule`` (a note may hold several)."""
    return any(rule in rules.split() for rules in re.findall(r'data-rules="([^"]*)"', box))


@pytest.mark.parametrize("lang", LANGS)
def test_a_claim_the_engine_contradicts_is_never_shown_bare(built_site, lang):
    snapshot = load_snapshot()
    bad = {
        rid
        for rid, r in KB.rules.items()
        if r.stated is not None and r.stated.verdict in ("overstates", "contradicts")
    }
    texts: list[tuple[object, set[str]]] = []
    for kind in KINDS:
        if kind.name in ("rules", "resolved_defaults", "wording_exceptions"):  # the drift page's own rows
            continue
        for entity in kind.entities(getattr(KB, kind.name)):
            for leaf in leaves(entity):
                if any(isinstance(o, Default) for o in leaf.owners):
                    continue  # a stated default stands beside the engine's wherever it is shown
                held = owner_rules(leaf.owners) & bad
                if leaf.lang == lang and held and len(leaf.text) >= 12:
                    texts.append((leaf, held))
    assert len(texts) > 20
    shown = 0
    for page in PAGES:
        # appendix D sets the source's words beside what is published: the correction itself
        html = without_appendix_d(built_page(built_site, lang, page))
        ctx = RenderContext(KB, lang, page, snapshot=snapshot)
        for leaf, held in texts:
            fragment = ctx.text_html(leaf.text)
            at = html.find(fragment)
            while at >= 0:
                shown += 1
                boxes = _containers(html, at)
                # the verdict beside it, or the text is the source's words in the rule's own drift row
                missing = [
                    r
                    for r in held
                    if not any(
                        f'data-rule="{r}"' in b or f'id="drift-{r}"' in b or _note_for(b, r) for b in boxes
                    )
                ]
                assert not missing, (
                    f"{lang}/{page}: {leaf.text[:60]!r} shown without the verdict of {missing}"
                )
                at = html.find(fragment, at + 1)
    assert shown > 10  # the check saw the texts it is about


@pytest.mark.parametrize("lang", LANGS)
def test_chapter_04_recommends_nothing_the_drift_page_says_fails(built_site, lang):
    params = built_page(built_site, lang, "04-parameters.md")
    drift = built_page(built_site, lang, "engine-drift.md")
    # the drift page's choices table: no value the KB lists is missing from the engine
    choices = drift[drift.find('id="choices"') :]
    choices = choices[: choices.find("</table>")]
    for row in re.findall(r"<tr>(.*?)</tr>", choices, re.S)[1:]:
        cells = re.findall(r"<td>(.*?)</td>", row, re.S)
        assert "<code>" not in cells[2], f"a listed value the engine lacks: {cells[0]} {cells[2]}"
    # outside quotations of the source, no deprecated module and no refused combination stands bare
    unquoted = re.sub(r'<q class="src-quote".*?</q>', "", params, flags=re.S)
    assert "sglang.bench_serving" not in unquoted
    for row in re.findall(r"<tr>(.*?)</tr>", unquoted, re.S):
        if "enable-priority-scheduling" in row and re.search(r"<code>priority</code>", row):
            assert 'data-rule="priority-scheduling-policy"' in row
    # every rule whose verdict is 'contradicts' and that 04 mentions is shown with its verdict
    for rid, rule in KB.rules.items():
        if (
            rule.stated is not None
            and rule.stated.verdict == "contradicts"
            and rule.explained_at.startswith("04-")
        ):
            assert f'data-rule="{rid}"' in params
