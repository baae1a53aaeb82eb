"""The built site: both languages, every page, no marker left, every generated table filled."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from handbook.site.build import BUILD_MARKER

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
PAGES = sorted(p.relative_to(DOCS / "zh").as_posix() for p in (DOCS / "zh").rglob("*.md"))


def built_page(site: Path, lang: str, page: str) -> Path:
    stem = page.removesuffix(".md")
    folder = site if lang == "zh" else site / "en"
    return folder / "index.html" if stem == "index" else folder / stem / "index.html"


class _Tables(HTMLParser):
    """Counts body rows of each table of the article."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[int] = []
        self._in_body = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.rows.append(0)
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.rows[-1] += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._in_body = False


def test_the_chapters_exist_in_both_languages():
    chapters = [p for p in PAGES if re.match(r"\d\d-", p)]
    assert [p[:2] for p in chapters] == [f"{n:02d}" for n in range(10)]
    assert sorted(p.relative_to(DOCS / "en").as_posix() for p in (DOCS / "en").rglob("*.md")) == PAGES


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("page", PAGES)
def test_built_page_has_no_marker_left_and_filled_tables(built_site, lang, page):
    html = built_page(built_site, lang, page).read_text(encoding="utf-8")
    assert "<!-- kb:" not in html and "&lt;!-- kb:" not in html
    tables = _Tables()
    tables.feed(html)
    assert all(rows > 0 for rows in tables.rows), f"{lang}/{page}: a table without rows: {tables.rows}"
    assert f'<html lang="{lang}"' in html


@pytest.mark.slow
def test_every_recipe_is_on_a_page_in_both_languages():
    from handbook.kb.loader import load_kb

    placed = {
        lang: " ".join((DOCS / lang / p).read_text(encoding="utf-8") for p in PAGES) for lang in ("zh", "en")
    }
    for rid in load_kb().recipes:
        for lang, text in placed.items():
            assert re.search(rf"kb:recipe(-tabs|-set)? (id|ids)=([\w.,-]*,)?{re.escape(rid)}(,|\s)", text), (
                f"recipe {rid} is not placed on any docs/{lang} page"
            )


def test_deep_links_to_parameters_and_models(built_site):
    params = built_page(built_site, "en", "04-parameters.md").read_text(encoding="utf-8")
    for anchor in ("mem-fraction-static", "tp-size", "attention-backend", "router-pd-disaggregation"):
        assert f'id="{anchor}"' in params
    landscape = built_page(built_site, "zh", "01-landscape.md").read_text(encoding="utf-8")
    assert 'id="qwen3.5-397b-a17b"' in landscape


@pytest.mark.slow
def test_bad_data_stops_the_build_with_file_and_line_and_keeps_the_old_site(tmp_path):
    kb = tmp_path / "kb"
    shutil.copytree(REPO / "kb", kb)
    model = kb / "hardware" / "h200.yaml"
    model.write_text(model.read_text().replace("memory_gb: 141", "memory_gb: lots"))
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("the previous site")
    (site / BUILD_MARKER).write_text("a previous build")
    env = {**os.environ, "HANDBOOK_KB": str(kb), "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "handbook", "build", "--site-dir", str(site)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0
    assert "hardware/h200.yaml:6: memory_gb: got 'lots', expected a valid number" in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert sorted(p.name for p in site.iterdir()) == [BUILD_MARKER, "index.html"]
    assert (site / "index.html").read_text() == "the previous site"
    assert not list(tmp_path.glob(".site-build-*")), "the staging folder was left behind"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_appendix_quick_reference_is_the_sources_size_with_the_full_list_one_click_away(built_site, lang):
    html = built_page(built_site, lang, "09-appendix.md").read_text(encoding="utf-8")
    quick = html[html.index('id="parameter-summary"') : html.index('<details class="all-parameters">')]
    rows = re.findall(r"<tr><td><a href=\"[^\"]*04-parameters/#([\w-]+)\">", quick)
    assert len(rows) == 20  # the source's appendix A lists 20 flags, in this order
    assert rows[:3] == ["model-path", "tp-size", "ep-size"] and rows[-1] == "disaggregation-mode"
    folded = html[
        html.index('<details class="all-parameters">') : html.index(
            "</details>", html.index("all-parameters")
        )
    ]
    assert len(re.findall(r"<tr><td><a href=", folded)) >= 80  # every parameter, by group, folded


def test_one_verification_date_policy_header_footer_and_sources_agree(built_site):
    import yaml

    checked = sorted(
        str(yaml.safe_load(p.read_text(encoding="utf-8"))["checked"])
        for p in (REPO / "kb" / "sources").glob("*.yaml")
    )
    source_date = str(yaml.safe_load((REPO / "kb" / "handbook.yaml").read_text(encoding="utf-8"))["verified"])
    home = built_page(built_site, "en", "index.md").read_text(encoding="utf-8")
    assert (
        f"The source: public information as of {source_date} · Sources checked by this site up to {checked[-1]}"
        in home
    )
    footer = built_page(built_site, "en", "09-appendix.md").read_text(encoding="utf-8")
    assert f"from {checked[0]} to {checked[-1]}; those dated {source_date} are the source's own" in footer
    for path in (REPO / "kb" / "sources").glob("*.yaml"):  # as the footer says: not re-read
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if str(data["checked"]) == source_date:
            assert "not re-checked" in data["note"]["en"], path.name
    assert checked[-1] in footer[footer.index('id="sources"') :]
    assert f"源稿资料截至：{source_date}　·　本站核对来源至：{checked[-1]}" in built_page(
        built_site, "zh", "index.md"
    ).read_text(encoding="utf-8")
