"""Flags with values written anywhere a reader sees them are checked like commands, at their file and line:
KB text fields (table cells, captions and tab titles are built from them), page prose and tables, and the
catalogue of the site's own wording. Quotations of the source (⟦…⟧) are skipped and shown as quotations."""

from __future__ import annotations

import re
import shutil
import textwrap
from pathlib import Path

import pytest

from handbook.checker.prose import Context, check_text
from handbook.core.quotes import quote_problem, split_quotes, without_quotes
from handbook.engine import load_snapshot
from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext
from handbook.render.markers import render_page
from handbook.validation import values
from handbook.validation.registry import run_checks

pytestmark = pytest.mark.slow  # out of nox -s unit: most tests validate or build a copied KB

REPO = Path(__file__).resolve().parents[1]
BAD = "--attention-backend flashmla_x"  # not one of the engine's choices (flashmla is)
EXPECTED = "value.choice: --attention-backend does not accept flashmla_x"


@pytest.fixture(scope="module")
def kb():
    return load_kb()


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot()


SERVER = Context()  # a text about launch_server flags, owned by nothing


def codes(text, snapshot, kb, context=SERVER):
    return [f.code for f in check_text(text, snapshot, kb, context)]


def kb_copy(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(REPO / "kb", root)
    return root


def insert(path: Path, old: str, new: str) -> int:
    """Replace ``old`` by ``new`` once; the 1-based line where ``new`` starts."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    at = text.index(old)
    path.write_text(text.replace(old, new), encoding="utf-8")
    return text.count("\n", 0, at) + 1


def problems_at(root: Path, docs: Path | None = None) -> list[str]:
    return [str(p) for p in run_checks(load_kb(root), docs)]


# ------------------------------------------------------------------------------------------- the reading
def test_values_are_judged_like_a_commands(kb, snapshot):
    assert codes("压测 MTP 用 --dataset-name speed_bench", snapshot, kb, Context("bench_serving")) == [
        "value.choice"
    ]
    assert codes("use --mem-fraction-static lots", snapshot, kb) == []  # prose after a numeric option
    assert codes("use --mem-fraction-static 0.8x", snapshot, kb) == ["value.type"]
    assert codes("多卡用 --tp 4", snapshot, kb) == ["flag.abbreviation"]
    assert codes("--tpp-size 4", snapshot, kb) == ["flag.unknown"]  # a near miss of an engine flag
    assert codes("docker run --shm-size 32g", snapshot, kb) == []  # another tool's option
    assert codes("python -m sglang.bench_serving", snapshot, kb) == ["module.deprecated"]
    assert codes("the deprecated python -m sglang.bench_serving", snapshot, kb) == []
    assert codes("uses --enable-flashinfer-allreduce-fusion", snapshot, kb) == ["flag.deprecated"]
    # words after an option with choices are values only when they look like one
    assert codes("the --kv-cache-dtype spelling bf16", snapshot, kb) == []
    assert codes("--attention-backend fa3 / fa4 / fa5", snapshot, kb) == ["value.choice"]  # each alternative
    # in a parameter's own text, a bare word spelled like one of its values but not quite is that value
    owner = Context("bench_serving", ("--dataset-name",))
    assert codes("压测 MTP 用 speed_bench", snapshot, kb, owner) == ["value.choice"]
    assert codes("压测 MTP 用 speed-bench，不用 random", snapshot, kb, owner) == []


def test_rules_judge_what_a_sentence_writes_with_its_owner(kb, snapshot):
    # a sentence writes a fragment: unwritten flags are unknown, not at their defaults
    assert codes("--attn-dp-size 8：DeepSeek 系专用", snapshot, kb) == []
    assert "rule.tp-divisible-by-attn-dp" in codes("--tp-size 4 --attn-dp-size 8", snapshot, kb)
    # a choice's text is about `flag value`: its owner writes the value
    owner = Context(owner=("--schedule-policy", "priority"))
    assert codes("配合 --enable-priority-scheduling", snapshot, kb, owner) == [
        "rule.priority-scheduling-policy"
    ]
    # the owner alone does not make a text that writes nothing answer for the owner's rules
    assert codes("让交互请求优先", snapshot, kb, owner) == []


def test_quotations_of_the_source_are_not_read(kb, snapshot):
    text = "use --tp-size 4 (the source writes ⟦--tp 4⟧)"
    assert codes(text, snapshot, kb) == []
    assert without_quotes(text) == "use --tp-size 4 (the source writes …)"
    assert split_quotes(text) == [
        (False, "use --tp-size 4 (the source writes "),
        (True, "--tp 4"),
        (False, ")"),
    ]
    assert quote_problem("the source writes ⟦--tp 4") is not None
    assert quote_problem("the source writes ⟦⟧") is not None
    assert quote_problem(text) is None


def test_a_quotation_is_shown_as_one(kb):
    ctx = RenderContext(kb, "en", "04-parameters.md")
    html = ctx.text_html("use --tp-size 4 (the source writes ⟦--tp 4⟧)")
    assert '<q class="src-quote"' in html and "<code>--tp 4</code></q>" in html
    assert '<sup class="src-quote-mark">source</sup>' in html
    assert html.count("<a ") == 1  # --tp-size is linked; the quotation is not
    page = render_page(
        "The source writes ⟦--tp 8⟧ here.\n", RenderContext(kb, "zh", "05-parallelism.md"), "x"
    )
    assert '<q class="src-quote"' in page and '<sup class="src-quote-mark">源稿</sup>' in page


# ------------------------------------------------------------------------------- every place, file:line
def test_the_real_site_has_no_value_problem(kb):
    assert [str(p) for p in run_checks(kb)] == []


@pytest.mark.parametrize(
    ("file", "old", "field"),
    [
        # a KB text field (chapter 04's meaning column)
        ("parameters/backends.yaml", "      zh: 注意力层所用的内核，", "parameters[0].meaning.zh"),
        # a table cell built from KB text (a pitfall's fix in chapter 08's table)
        ("pitfalls.yaml", "fix: {zh: 压测 MTP 用", "pitfalls[19].fix.zh"),
        # a caption built from KB text (chapter 05's topology figures)
        ("topologies.yaml", "  zh: KV 已明确按 GQA 示例标注", "caption.zh"),
        # a tab title (recipe-tabs labels each tab with the recipe's title)
        ("recipes/glm-5.3-nvidia-tp8-ep8.yaml", "title: {zh: NVIDIA,", "title.zh"),
    ],
)
def test_a_bad_value_in_kb_text_fails_at_its_line(tmp_path, file, old, field):
    root = kb_copy(tmp_path)
    new = old.replace("zh: ", f"zh: {BAD} ", 1)
    line = insert(root / file, old, new)
    found = [p for p in problems_at(root) if EXPECTED in p]
    assert found and found[0].startswith(f"kb/{file}:{line}: {field}: {EXPECTED}"), found


def test_the_same_value_quoted_passes(tmp_path):
    root = kb_copy(tmp_path)
    insert(root / "pitfalls.yaml", "fix: {zh: 压测 MTP 用", f"fix: {{zh: 源稿写作 ⟦{BAD}⟧，压测 MTP 用")
    assert problems_at(root) == []


def test_a_rule_broken_in_kb_text_needs_the_rule_referenced(tmp_path):
    root = kb_copy(tmp_path)
    path = root / "parameters" / "scheduling.yaml"
    line = insert(
        path, "      zh: 最长前缀优先，", "      zh: 配合 --enable-priority-scheduling；最长前缀优先，"
    )
    (problem,) = problems_at(root)
    assert problem.startswith(f"kb/parameters/scheduling.yaml:{line}: parameters[4].choices[1].use_when.zh: ")
    assert "rule.priority-scheduling-policy" in problem and "rules: [priority-scheduling-policy]" in problem
    # referenced, the page shows the engine's verdict beside the text: no problem
    insert(
        path,
        "      - values: [lpm]\n",
        "      - values: [lpm]\n        rules: [priority-scheduling-policy]\n",
    )
    assert problems_at(root) == []


def docs_copy(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    shutil.copytree(REPO / "docs", docs)
    return docs


@pytest.mark.parametrize(
    ("page", "old", "new"),
    [
        # page prose
        ("zh/05-parallelism.md", "另外：\n", f"另外（{BAD}）：\n"),
        # a table cell written in the page
        (
            "en/06-models.md",
            "| TP8 | Baseline | `--tp-size 8` |",
            f"| TP8 | Baseline | `--tp-size 8 {BAD}` |",
        ),
        # a non-shell block
        (
            "zh/02-memory.md",
            "mem_fraction_static = (model weights + KV cache pool) / GPU memory capacity",
            f"mem_fraction_static = (model weights + KV cache pool) / GPU memory capacity  {BAD}",
        ),
        # a list item written in the page (chapter 05's decision tree)
        (
            "zh/05-parallelism.md",
            "            - 长上下文 → 加 `--dcp-size` 或 HiCache",
            f"            - 长上下文 → {BAD}",
        ),
    ],
)
def test_a_bad_value_on_a_page_fails_at_its_line(tmp_path, kb, page, old, new):
    docs = docs_copy(tmp_path)
    path = docs / page
    line = insert(path, old, new)
    found = [str(p) for p in run_checks(kb, docs) if EXPECTED in str(p)]
    assert found == [f"docs/{page}:{line}: {EXPECTED} (choices: " + found[0].split("(choices: ", 1)[1]]


def test_a_bad_value_in_the_catalogue_fails_at_its_line(tmp_path, kb, snapshot, monkeypatch):
    messages = tmp_path / "handbook" / "core" / "messages"
    messages.mkdir(parents=True)
    (messages / "site.py").write_text(
        textwrap.dedent(
            f"""\
            MESSAGES = {{
                "fine": ("好", "fine"),
                "bad": ("用 {{model}} 配 {BAD}", "use {{model}} with {BAD}"),
            }}
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(values, "REPO_ROOT", tmp_path)
    namespace: dict = {}
    exec((messages / "site.py").read_text(encoding="utf-8"), namespace)
    monkeypatch.setattr(values, "DOMAINS", {"site": namespace["MESSAGES"]})
    found = [str(p) for p in values.catalogue_value_problems(kb, snapshot)]
    assert len(found) == 2  # both languages
    assert all(p.startswith(f"handbook/core/messages/site.py:3: bad: {EXPECTED}") for p in found)


def test_captions_and_tab_titles_are_kb_or_catalogue_text(kb, monkeypatch):
    """Tab titles are recipe titles and figure captions are catalogue entries filled with KB text: the
    checks of those two cover them."""
    from handbook.core import messages
    from handbook.render import recipes  # noqa: F401 - registers the renderer

    ctx = RenderContext(kb, "en", "06-models.md")
    tabs = render_page(
        "<!-- kb:recipe-tabs ids=glm-5.3-nvidia-tp8-ep8,glm-5.3-mxfp4-mi355x-tp4 -->\n", ctx, "x"
    )
    labels = re.findall(r'^=== "(.*)"$', tabs, re.M)
    assert labels == [
        kb.recipes["glm-5.3-nvidia-tp8-ep8"].title.en,
        kb.recipes["glm-5.3-mxfp4-mi355x-tp4"].title.en,
    ]
    # a figure's caption is its catalogue entry: change the entry and the caption follows
    from handbook.diagrams.catalogue import drawable

    zh, _ = messages.CATALOGUE["fig-pd-caption-router"]
    monkeypatch.setitem(messages.CATALOGUE, "fig-pd-caption-router", (zh, "CAPTION-FROM-CATALOGUE {title}"))
    figures, _ = drawable(kb)
    captions = [f.drawings["en"].caption for f in figures.values()]
    assert any(c.startswith("CAPTION-FROM-CATALOGUE") for c in captions)


# --------------------------------------------------------------------------------- choices and defaults
def test_a_choice_list_is_complete_or_says_it_is_partial(tmp_path):
    root = kb_copy(tmp_path)
    path = root / "parameters" / "scheduling.yaml"
    line = insert(path, "    choices_partial: true\n    choices:\n", "    choices:\n")
    (problem,) = problems_at(root)
    assert problem.startswith(
        f"kb/parameters/scheduling.yaml:{line}: parameters[4].choices: got 7 of the engine's 9"
    )
    assert "missing: hrrn, shortest-prefill-first" in problem
    # the other way round: a complete list marked partial
    root = kb_copy(tmp_path / "again")
    insert(
        root / "parameters" / "cache.yaml",
        "    choices:\n      - values: [auto]\n",
        "    choices_partial: true\n    choices:\n      - values: [auto]\n",
    )
    (problem,) = problems_at(root)
    assert "parameters[8].choices_partial: got choices_partial, but the choices hold all 4" in problem


def test_defaults_show_the_source_and_the_engine(kb, snapshot):
    from handbook.render.params import default_cell

    ctx = RenderContext(kb, "en", "04-parameters.md", snapshot=snapshot)
    # the source's figure is one outcome of a startup resolution: both, with what the engine does
    chunked = default_cell(ctx, kb.parameter("--chunked-prefill-size"))
    assert chunked.startswith("Source: <code>8192</code><br>Engine: <code>None</code> → chosen at startup")
    # the source's default is not the engine's
    strategy = default_cell(ctx, kb.parameter("--mamba-radix-cache-strategy"))
    assert strategy.startswith("Source: <code>no&#95;buffer</code><br>Engine: <code>auto</code> → auto&#58; ")
    # agreeing: the value once
    assert default_cell(ctx, kb.parameter("--tp-size")) == "<code>1</code>"
    # unstated by the source: the engine's
    assert default_cell(ctx, kb.parameter("--watchdog-timeout")) == "Engine: <code>300</code>"


def test_the_build_stops_on_a_bad_value_in_prose_with_its_file_and_line(tmp_path):
    import os
    import subprocess
    import sys

    root = kb_copy(tmp_path)
    line = insert(root / "pitfalls.yaml", "fix: {zh: 压测 MTP 用", f"fix: {{zh: {BAD} 压测 MTP 用")
    env = {**os.environ, "HANDBOOK_KB": str(root), "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "handbook", "build", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert f"pitfalls.yaml:{line}: pitfalls[19].fix.zh: {EXPECTED}" in done.stdout + done.stderr
