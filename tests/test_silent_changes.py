"""Nothing the source says is changed silently. Every sentence, table cell and command line of the source
(source/handbook.md) is shown by the built Chinese pages as the site's own words, whole, or a recorded change
holds it; appendix D lists every recorded change, and its count is theirs."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest

import handbook.render.renderers  # noqa: F401 - registers every kb: renderer
from handbook.core.paths import SOURCE_TEXT
from handbook.core.text import in_lang
from handbook.core.words import whole
from handbook.engine import load_snapshot
from handbook.kb.loader import load_kb
from handbook.pages.source_text import BLOCK, Recorded, held, normalize, pieces
from handbook.render.changes import recorded_changes
from handbook.render.context import RenderContext, esc
from handbook.render.markers import render_page
from handbook.render.params import default_verdict
from handbook.site.source_coverage import chapter_pages, unheld

KB = load_kb()


def render(marker: str, lang: str, page: str) -> str:
    return render_page(marker + "\n", RenderContext(KB, lang, page), page)


# ------------------------------------------------------------------------------- pieces and holding
SOURCE = """## 07 调优方法论

**第五步：其他手段**

- `--attn-dp-size 8`：DeepSeek 系专用
- `--schedule-policy lpm`：共享前缀多的场景（会引入调度开销）

| 现象 | 最可能原因 |
| :-- | :-- |
| 启动 OOM | `mem-fraction-static` 太高 |

```bash
python -m sglang.launch_server \\
  --tp 8
```
"""


def test_the_source_is_read_as_sentences_cells_and_command_lines():
    got = [(p.line, p.key, p.code) for p in pieces(SOURCE)]
    assert got == [
        (1, "07调优方法论", False),
        (3, "第五步：其他手段", False),
        (5, "--attn-dp-size8：DeepSeek系专用", False),
        (6, "--schedule-policylpm：共享前缀多的场景（会引入调度开销）", False),
        (8, "现象", False),
        (8, "最可能原因", False),
        (10, "启动OOM", False),
        (10, "mem-fraction-static太高", False),
        (13, "python-msglang.launch_server", True),
        (14, "--tp8", True),
    ]


def _shown(*blocks: str) -> str:
    return BLOCK.join(normalize(b) for b in blocks) + BLOCK


def test_a_sentence_counts_as_shown_only_where_it_stands_whole():
    (piece,) = [p for p in pieces(SOURCE) if p.line == 5]
    assert held(piece, _shown("--attn-dp-size 8：DeepSeek 系专用"), [])
    assert held(piece, _shown("第五步：", "--attn-dp-size 8：DeepSeek 系专用。其余"), [])
    # a clause added inside the sentence is a change: 07 step 5 as it was published before it was recorded
    added = _shown("--attn-dp-size 8：DeepSeek 系专用（--tp-size 须是 8 的倍数）")
    assert not held(piece, added, [])
    assert held(piece, added, [Recorded(normalize("--attn-dp-size 8：DeepSeek 系专用"))])
    assert not held(piece, _shown("--attn-dp-size 8：DeepSeek 系模型专用"), [])


def test_a_record_holds_the_words_it_names_and_the_rest_must_still_be_shown():
    (piece,) = [p for p in pieces(SOURCE) if p.line == 14]
    code_line = _shown("--tp-size 8")
    assert not held(piece, code_line, [])
    assert held(piece, code_line, [Recorded(normalize("--tp 8"))])
    assert held(piece, code_line, [Recorded("", (14, 14))])  # by its lines
    assert not held(piece, code_line, [Recorded("", (1, 13))])


# ------------------------------------------------------------------------------- the built site


@pytest.mark.site
def test_every_piece_of_the_source_is_shown_or_recorded(built_site):
    missing = [f"source/handbook.md:{p.line}: {p.text}" for p in unheld(built_site, KB)]
    assert missing == [], "changed without a record in kb/claims.yaml edits:\n" + "\n".join(missing)


def _site_copy(built_site: Path, tmp_path: Path) -> Path:
    site = tmp_path / "site"
    for page in chapter_pages():
        stem = page.removesuffix(".md")
        rel = Path("index.html") if stem == "index" else Path(stem) / "index.html"
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(built_site / rel, site / rel)
    return site


@pytest.mark.site
def test_a_sentence_changed_on_a_page_without_a_record_fails(built_site, tmp_path):
    site = _site_copy(built_site, tmp_path)
    page = site / "07-tuning" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert "健康区间：100–2000" in html
    page.write_text(html.replace("健康区间：100–2000", "健康区间：100–3000"), encoding="utf-8")
    assert [(p.line, p.text) for p in unheld(site, KB)] == [(953, "健康区间：**100–2000**")]


@pytest.mark.site
def test_a_recorded_change_taken_out_of_the_kb_shows_up(built_site):
    step5 = [e for e in KB.edits if in_lang(e.stated, "zh") == "--attn-dp-size 8：DeepSeek 系专用"]
    assert len(step5) == 1
    without = dataclasses.replace(KB, edits=[e for e in KB.edits if e is not step5[0]])
    assert [(p.line, p.text) for p in unheld(built_site, without)] == [
        (979, "`--attn-dp-size 8`：DeepSeek 系专用")
    ]


def test_the_source_in_the_repository_is_the_source():
    text = SOURCE_TEXT.read_text(encoding="utf-8")
    assert text.startswith("# SGLang 2026 前沿大模型部署手册\n")
    assert "*本文档基于 2026-11-06 可获取的公开资料整理。" in text
    assert len(text.splitlines()) == 1133


def test_every_record_that_names_lines_names_lines_of_the_source():
    last = len(SOURCE_TEXT.read_text(encoding="utf-8").splitlines())
    named = [e.lines for e in KB.edits if e.lines]
    assert named and all(1 <= first <= final <= last for first, final in named)


# ------------------------------------------------------------------------------- appendix D
def _source_prose() -> str:
    """The source's prose and its text diagrams (a code line drawn in columns or with tree branches), read
    here line by line: its commands and log lines are shown as they are."""
    out, fence = [], False
    for line in SOURCE_TEXT.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence or re.search(r"\S {2,}\S|^[\s│├└─┌]*[├└│┌]", line.strip()):
            out.append(line)
    return "\n".join(out)


def _independent_count() -> int:
    """The recorded changes counted from the KB directly, without handbook.render.changes."""
    from handbook.calc import claims as claim_calc
    from handbook.calc import memory

    snapshot = load_snapshot()
    resolved = {(d.program, d.flag): d for d in KB.resolved_defaults}
    defaults = 0
    for (program, flag), parameter in KB.parameters.items():
        option = snapshot.parser(program).get(flag)
        if option is not None and option.action != "help":
            defaults += default_verdict(parameter, option, resolved.get((program, flag))) == "differs"
    return (
        sum(not claim_calc.evaluate(KB, c).agrees for c in KB.claims.values())
        + sum(
            not cell.agrees for m in KB.models.values() for cell in memory.tp_table(m, KB.dtypes, KB.hardware)
        )
        + sum(len(r.corrections) for r in KB.recipes.values())
        + sum(len(s.corrections) for s in KB.tuning.scenarios)
        + len(KB.edits)
        + sum(r.stated is not None and r.stated.verdict != "matches" for r in KB.rules.values())
        + sum(any(whole(v).search(_source_prose()) for v in t.avoid_zh) for t in KB.glossary.values())
        + defaults
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_appendix_d_lists_every_recorded_change_and_says_how_many(lang):
    out = render("<!-- kb:drift -->", lang, "09-appendix.md")
    count = len(recorded_changes(RenderContext(KB, lang, "09-appendix.md")))
    assert count == _independent_count() >= 50
    assert len(re.findall(r'<tr id="change-\d+">', out)) == count
    said = {"zh": f"共 {count} 处，每处附理由。", "en": f"{count} changes, each with its reason."}[lang]
    assert said in out
    for edit in KB.edits:
        row = f"<td>{esc(in_lang(edit.section, lang))}</td><td>"
        assert row in out


def test_the_overview_shows_the_counts_the_source_gives():
    out = render("<!-- kb:models-overview -->", "en", "01-landscape.md")
    (row,) = re.findall(r'<tr id="qwen3.8-flash-next">(.*?)</tr>', out, re.S)
    assert "<td>176B / 6B</td>" in row  # the source's overview cell; 6.5's wording stays on 6.5


def test_an_agreeing_percentage_is_shown_as_the_source_rounds_it():
    # 49/1600 = 3.06 % … 26/427 = 6.09 %: the source's "3%–6%", not the computed 3.1%–6.1%
    assert render("<!-- kb:claim id=moe-active-share -->", "zh", "01-landscape.md").strip() == "3%–6%"


def test_the_yarn_note_keeps_the_sources_number():
    (note,) = KB.recipes["qwen3.5-397b-fp8-long-context-yarn"].notes
    assert note.zh.endswith("把 factor 减半到 2.0。") and note.en.endswith("halve the factor to 2.0.")
