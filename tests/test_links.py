"""The link checker on a fixture site (exact messages), then on the built handbook in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from handbook.cli import main
from handbook.pages.headings import built_pages
from handbook.site.links import BuiltSite, check_site, site_url_of, source_of

FIXTURE = Path(__file__).parent / "fixtures" / "links-site"
REPO = Path(__file__).resolve().parents[1]


def test_every_kind_of_broken_internal_link_is_reported_with_page_and_line():
    report = check_site(FIXTURE, "https://handbook.example/")
    assert [str(b) for b in report.broken] == [
        "en/guide/index.html:4: ../../guide-zh/ → no file guide-zh/index.html in the site",
        "index.html:7: assets/gone.js → no file assets/gone.js in the site",
        "index.html:8: ./search/search_index.json → no file search/search_index.json in the site",
        'index.html:14: guide/#nowhere → no element with id "nowhere" in guide/index.html',
        "index.html:15: missing/ → no file missing/index.html in the site",
        'index.html:17: #not-here → no element with id "not-here" in index.html',
        "index.html:20: ../outside/ → points outside the site",
        "index.html:24: assets/none.png → no file assets/none.png in the site",
        'assets/figure.svg:3: ../guide/#gone → no element with id "gone" in guide/index.html',
        "assets/site.css:3: img/logo.png → no file assets/img/logo.png in the site",
        "sitemap.xml:4: https://handbook.example/gone/ → no file gone/index.html in the site",
    ]


def test_links_that_resolve_are_counted_and_external_ones_only_listed():
    report = check_site(FIXTURE, "https://handbook.example/")
    assert report.pages == {"zh": 2, "en": 2}
    # index.html: 15 URLs + the search worker and index; guide: 3; en: 2 + 2; the SVG: 2; the CSS: 1;
    # the sitemap: 2 (mailto: and data: are not fetched; the external URL is listed, not checked)
    assert report.checked == 28
    assert report.switcher == 4  # one hreflang link on each of the four pages
    assert {url: [(link.page, link.line) for link in links] for url, links in report.external.items()} == {
        "https://example.org/docs": [("guide/index.html", 7), ("index.html", 21)]
    }


def test_the_same_site_by_its_absolute_url_and_root_relative_links_are_internal():
    report = check_site(FIXTURE, "https://handbook.example/")
    broken_urls = {b.link.url for b in report.broken}
    assert "https://handbook.example/guide/#setup" not in broken_urls
    assert "/en/guide/" not in broken_urls
    assert "https://handbook.example/guide/#setup" not in report.external
    # without a site_url the absolute link to the site is an external one
    assert "https://handbook.example/guide/#setup" in check_site(FIXTURE).external


def test_a_built_page_is_traced_back_to_its_docs_file(tmp_path):
    (tmp_path / "zh").mkdir()
    (tmp_path / "en" / "guide").mkdir(parents=True)
    (tmp_path / "zh" / "02-memory.md").write_text("# x\n")
    (tmp_path / "zh" / "index.md").write_text("# x\n")
    (tmp_path / "en" / "guide" / "index.md").write_text("# x\n")
    assert source_of("02-memory/index.html", tmp_path) == "docs/zh/02-memory.md"
    assert source_of("index.html", tmp_path) == "docs/zh/index.md"
    assert source_of("en/guide/index.html", tmp_path) == "docs/en/guide/index.md"
    assert source_of("en/02-memory/index.html", tmp_path) is None  # no such English page
    assert source_of("assets/site.css", tmp_path) is None


def test_command_reports_broken_links_and_lists_external_ones(tmp_path, capsys):
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        "site_url: https://handbook.example/\nmarkdown_extensions:\n  - toc:\n      slugify: !!python/object/apply:pymdownx.slugs.slugify\n        kwds: {case: lower}\n"
    )
    assert site_url_of(config) == "https://handbook.example/"  # the !!python tag is skipped, never run
    args = [
        "links",
        "--site-dir",
        str(FIXTURE),
        "--config",
        str(config),
        "--docs",
        str(tmp_path),
        "--external",
    ]
    assert main(args) == 1
    out, err = capsys.readouterr()
    assert out == "https://example.org/docs\tguide/index.html, index.html\n"
    assert "index.html:20: ../outside/ → points outside the site\n" in err
    assert err.endswith("✖ 11 problem(s) in the built site's internal links.\n")


def test_command_without_a_built_site_says_what_to_do(tmp_path, capsys):
    assert main(["links", "--site-dir", str(tmp_path)]) == 2
    assert (
        capsys.readouterr().err
        == f"✖ {tmp_path} holds no built site: run `python -m handbook build` first.\n"
    )
    with pytest.raises(SystemExit) as stopped:  # a folder that does not exist: refused with the arguments
        main(["links", "--site-dir", str(tmp_path / "nowhere")])
    assert stopped.value.code == 2
    assert "no such folder; it is not created" in capsys.readouterr().err


# ----------------------------------------------------------------------------------- the built handbook
@pytest.mark.site
def test_every_internal_link_and_anchor_of_the_built_site_resolves(built_site):
    report = check_site(built_site, site_url_of(REPO / "mkdocs.yml"), REPO / "docs")
    assert [str(b) for b in report.broken] == []
    pages = built_pages(built_site, ("zh", "en"))
    assert report.pages["en"] == len(pages["en"]) > 0
    assert report.pages["zh"] == len(pages["zh"]) + 1  # and the 404 page
    assert report.checked > 0


@pytest.mark.site
def test_the_language_switcher_links_each_page_to_itself_in_the_other_language(built_site):
    pages = built_pages(built_site, ("zh", "en"))
    assert sorted(pages["zh"]) == sorted(pages["en"])
    site = BuiltSite(built_site, "")
    mismatches = []
    for rel in sorted(pages["zh"]):
        for page, other, expected in ((rel, "en", f"en/{rel}"), (f"en/{rel}", "zh", rel)):
            switcher = [url for _line, url, is_switcher in site.parse(page).links if is_switcher]
            targets = [(site.target(page, url) or (url, ""))[0] for url in switcher]
            if expected not in targets:
                mismatches.append(f"{page}: the switcher to {other} links to {targets}, expected {expected}")
    assert mismatches == []
