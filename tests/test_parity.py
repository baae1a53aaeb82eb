"""Translation parity: fixture trees with each kind of mismatch (exact messages), stale translations judged
from a real git history, and the handbook's own pages, source and built."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from handbook.cli import main
from handbook.pages.headings import built_parity, source_headings, source_parity
from handbook.pages.translations import missing_translations, translation_status

FIXTURES = Path(__file__).parent / "fixtures" / "parity"
REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("in-step", []),
        (
            "no-anchor",
            [
                'docs/zh/page.md:3: h2 "第一节" has no explicit anchor (add { #id }, the same in both languages)'
            ],
        ),
        ("duplicate-anchor", ["docs/zh/page.md:5: anchor #first is used twice (first at line 3)"]),
        ("level-differs", ["docs/en/page.md:5: #detail is h2, but h3 in docs/zh/page.md:5"]),
        ("heading-missing", ["docs/en/page.md: h2 #second is missing (docs/zh/page.md:5 has it)"]),
        (
            "anchor-differs",
            [
                "docs/en/page.md: h2 #memory is missing (docs/zh/page.md:3 has it)",
                "docs/zh/page.md: h2 #gpu-memory is missing (docs/en/page.md:3 has it)",
            ],
        ),
        (
            "out-of-order",
            ["docs/en/page.md:3: h2 #b is out of order (heading 2 here, heading 3 in docs/zh/page.md:5)"],
        ),
    ],
)
def test_heading_outlines_are_compared_with_exact_messages(case, expected):
    assert [str(p) for p in source_parity(FIXTURES / case)] == expected


def test_a_missing_translation_is_the_preflights_finding_and_parity_skips_the_page():
    tree = FIXTURES / "missing-page"
    assert [str(p) for p in missing_translations(tree)] == [
        "docs/en/only-zh.md: missing translation of docs/zh/only-zh.md",
        "docs/zh/guide/only-en.md: missing translation of docs/en/guide/only-en.md",
    ]
    assert [str(p) for p in source_parity(tree)] == []  # reported once, by the preflight, not again here


def test_headings_in_code_blocks_and_closing_hashes_are_handled():
    headings = source_headings(
        "# T { #t }\n\n```md\n## not { #x }\n```\n\n## Two ## { #two .wide }\n##### deep\n"
    )
    assert [(h.level, h.anchor, h.text, h.line) for h in headings] == [(1, "t", "T", 1), (2, "two", "Two", 7)]


def test_built_pages_compare_the_ids_of_h1_to_h4(tmp_path):
    def page(path: str, body: str) -> None:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(f"<html><body>\n{body}\n</body></html>\n")

    page("index.html", '<h1 id="home">首页</h1>')
    page("en/index.html", '<h1 id="home">Home</h1>')
    page("guide/index.html", '<h1 id="guide">指南</h1>\n<h2 id="setup">安装</h2>\n<h5>deep</h5>')
    page("en/guide/index.html", '<h1 id="guide">Guide</h1>\n<h3 id="setup">Setup</h3>')
    page("only/index.html", '<h1 id="only">仅中文</h1>')
    page("404.html", "<h1>404</h1>")
    page("assets/x.html", "<h1>not a page</h1>")
    assert [str(p) for p in built_parity(tmp_path)] == [
        "en/guide/index.html:3: #setup is h3, but h2 in guide/index.html:3",
        "en/only/index.html: not built, but only/index.html is",
    ]


# ----------------------------------------------------------------------------------- stale translations
def _git(repo: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """docs/ in a git repository: a.md and b.md committed together, then zh/a.md changed twice, then en/b.md."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    for lang, text in (("zh", "# 甲 { #a }\n"), ("en", "# A { #a }\n")):
        (repo / "docs" / lang).mkdir(parents=True)
        (repo / "docs" / lang / "a.md").write_text(text)
        (repo / "docs" / lang / "b.md").write_text(text.replace("#a", "#b"))
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "both", date="2026-01-01T10:00:00+00:00")
    for n in (1, 2):
        (repo / "docs" / "zh" / "a.md").write_text("# 甲 { #a }\n\n" + f"第 {n} 次修改。\n")
        _git(repo, "commit", "-q", "-am", f"zh {n}", date=f"2026-01-0{n + 1}T10:00:00+00:00")
    (repo / "docs" / "en" / "b.md").write_text("# B { #b }\n\nA fix.\n")
    _git(repo, "commit", "-q", "-am", "en", date="2026-01-04T10:00:00+00:00")
    return repo


def test_the_language_changed_later_makes_the_other_stale(history):
    status = translation_status(history / "docs")
    assert status.unavailable is None
    a, b = status.pages
    first, zh_a, en_b = (_git(history, "rev-parse", "--short", ref) for ref in ("HEAD~3", "HEAD~1", "HEAD"))
    assert (a.page, a.stale, a.behind) == ("a.md", "en", 2)
    assert (a.last["zh"].commit, a.last["zh"].date) == (zh_a, "2026-01-03")
    assert (a.last["en"].commit, a.last["en"].date) == (first, "2026-01-01")
    assert (b.page, b.stale, b.behind) == ("b.md", "zh", 1)
    assert b.last["en"].commit == en_b


def test_both_languages_changed_in_one_commit_are_in_step(history):
    for lang in ("zh", "en"):
        (history / "docs" / lang / "a.md").write_text("# x { #a }\n\nsynced\n")
        (history / "docs" / lang / "b.md").write_text("# x { #b }\n\nsynced\n")
    _git(history, "commit", "-q", "-am", "sync", date="2026-01-05T10:00:00+00:00")
    assert [p.stale for p in translation_status(history / "docs").pages] == [None, None]


def test_uncommitted_pages_are_not_judged(history):
    for lang in ("zh", "en"):
        (history / "docs" / lang / "c.md").write_text("# c { #c }\n")
    page = translation_status(history / "docs").pages[2]
    assert (page.page, page.committed, page.stale) == ("c.md", False, None)


def test_without_git_history_nothing_is_judged_and_the_reason_is_given(history, tmp_path):
    copy = tmp_path / "exported"
    shutil.copytree(history / "docs", copy / "docs")  # an export without .git
    status = translation_status(copy / "docs")
    assert status.unavailable == "not-a-checkout"
    assert [(p.page, p.stale) for p in status.pages] == [("a.md", None), ("b.md", None)]


def test_a_shallow_clone_is_not_judged(history, tmp_path):
    clone = tmp_path / "shallow"
    _git(tmp_path, "clone", "-q", "--depth", "1", f"file://{history}", str(clone))
    assert translation_status(clone / "docs").unavailable == "shallow"


def test_command_lists_stale_translations(history, capsys):
    assert main(["translations", "--docs", str(history / "docs")]) == 0
    zh_a, en_b = (_git(history, "rev-parse", "--short", ref) for ref in ("HEAD~1", "HEAD"))
    first = zh_b = _git(
        history, "rev-parse", "--short", "HEAD~3"
    )  # both pages' first and only zh/b.md commit
    assert capsys.readouterr().out == (
        "✔ 2 pages in both languages, with the same headings and anchors.\n"
        "2 stale translation(s), older than the other language's page:\n"
        f"  docs/en/a.md: 2 change(s) behind docs/zh/a.md (last changed 2026-01-01 in {first}; "
        f"the other 2026-01-03 in {zh_a})\n"
        f"  docs/zh/b.md: 1 change(s) behind docs/en/b.md (last changed 2026-01-01 in {zh_b}; "
        f"the other 2026-01-04 in {en_b})\n"
    )


def test_command_fails_on_parity_problems(capsys):
    assert main(["translations", "--docs", str(FIXTURES / "heading-missing")]) == 1
    captured = capsys.readouterr()
    assert captured.err == (
        "docs/en/page.md: h2 #second is missing (docs/zh/page.md:5 has it)\n✖ 1 problem(s) in the translations.\n"
    )


# ----------------------------------------------------------------------------------- the handbook itself
def test_the_handbooks_pages_have_the_same_headings_and_anchors_in_both_languages():
    assert [str(p) for p in missing_translations(REPO / "docs")] == []
    assert [str(p) for p in source_parity(REPO / "docs")] == []


@pytest.mark.site
def test_the_built_pages_have_the_same_h1_to_h4_ids_in_both_languages(built_site):
    assert [str(p) for p in built_parity(built_site)] == []


def test_the_status_page_shows_each_pages_last_changes_and_verdict(history, tmp_path):
    from handbook.kb.loader import load_kb
    from handbook.render.context import RenderContext
    from handbook.render.markers import render_page

    kb = load_kb(Path(__file__).parent / "fixtures" / "kb-mini")

    def render(lang: str, docs: Path) -> str:
        ctx = RenderContext(kb, lang, "translation-status.md", docs_dir=docs)
        return render_page(
            "<!-- kb:translation-status -->\n", ctx, f"docs/{lang}/translation-status.md"
        ).strip()

    first, zh_a, en_b = (_git(history, "rev-parse", "--short", ref) for ref in ("HEAD~3", "HEAD~1", "HEAD"))
    assert render("en", history / "docs") == (
        "2 pages exist in both languages; stale translations: 2.\n\n<table>\n"
        "<thead><tr><th>Page</th><th>Chinese: last change</th><th>English: last change</th><th>Status</th></tr></thead>\n"
        "<tbody>\n"
        f'<tr><td><a href="../a/">A</a></td><td>2026-01-03 · <code>{zh_a}</code></td>'
        f"<td>2026-01-01 · <code>{first}</code></td><td>⚠ English lags behind (later changes: 2)</td></tr>\n"
        f'<tr><td><a href="../b/">B</a></td><td>2026-01-01 · <code>{first}</code></td>'
        f"<td>2026-01-04 · <code>{en_b}</code></td><td>⚠ Chinese lags behind (later changes: 1)</td></tr>\n"
        "</tbody></table>"
    )
    zh = render("zh", history / "docs")
    assert zh.startswith("两种语言都有的页面共 2 个，其中 2 个译文过期。")
    assert '<td><a href="../a/">甲</a></td>' in zh and "<td>⚠ 英文版落后 2 次修改</td>" in zh

    shutil.copytree(history / "docs", tmp_path / "exported" / "docs")
    exported = render("zh", tmp_path / "exported" / "docs")
    assert (
        '!!! info "未判断译文是否过期"\n\n    构建时读不到 git 历史（不是 git 检出），因此无法比较两种语言的修改时间。'
        in exported
    )
    assert '<tr><td><a href="../a/">甲</a></td><td>—</td><td>—</td><td>—</td></tr>' in exported
