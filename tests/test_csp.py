"""A Content-Security-Policy on every page, and chromium reports no violation of it on any page of either
language: loaded, its search used, its tools (the doctor, the configurator, the planner) run. Every built page
carries the same policy and no inline script; the scripts Material writes inline are files of the site."""

from __future__ import annotations

import pytest

from handbook.site.csp import POLICY, SCRIPTS_DIR, ExternalScripts, inline_scripts, policy_of

pytestmark = pytest.mark.site


def pages(site) -> list[str]:
    found = sorted(
        p.relative_to(site).as_posix().removesuffix("index.html")
        for p in site.rglob("index.html")
        if not p.relative_to(site).as_posix().startswith(("assets/", "search/", "production/"))
    )
    return found + ["404.html"]


def test_every_page_declares_the_policy_and_holds_no_inline_script(built_site):
    checked = 0
    for rel in pages(built_site):
        path = built_site / (rel if rel.endswith(".html") else rel + "index.html")
        text = path.read_text(encoding="utf-8")
        assert policy_of(text) == POLICY, rel
        assert inline_scripts(text) == [], rel
        assert text.index("Content-Security-Policy") < text.index("<script"), rel  # before the first script
        checked += 1
    assert checked >= 40  # every page of both languages and the 404 page
    moved = sorted((built_site / SCRIPTS_DIR).glob("*.js"))
    assert moved, "Material's inline scripts are files of the site"


def test_an_inline_script_is_moved_to_a_file_and_data_is_left_as_it_is():
    scripts = ExternalScripts()
    page = (
        '<html><head><meta charset="utf-8"><title>t</title>'
        '<script>var a=1</script><script type="application/json" class="x">{"a": 1}</script>'
        '<script src="x.js"></script></head><body><script id="__config" type="application/json">'
        '{"base": "../.."}</script><script>go()</script></body></html>'
    )
    out = scripts.page(page)
    assert out.startswith('<html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy"')
    assert inline_scripts(out) == []
    assert sorted(scripts.files.values()) == ["go()\n", "var a=1\n"]
    assert '<script type="application/json" class="x">{"a": 1}</script>' in out
    for name in scripts.files:
        assert f'<script src="../../{name}"></script>' in out


@pytest.mark.browser
def test_chromium_reports_no_violation_on_any_page_in_either_language(visits, built_site):
    """Every page of both languages and the 404 page loaded, and its tools used (the doctor checks a command,
    the configurator changes a choice, the search is typed into): tests/conftest.py's one visit per page."""
    assert set(pages(built_site)) <= set(visits)
    counts = {rel: len(visit.violations) for rel, visit in visits.items()}
    console = [m for visit in visits.values() for m in visit.policy_messages]
    assert {rel: n for rel, n in counts.items() if n} == {}
    assert console == []
    assert len(counts) >= 40 and {
        "",
        "en/",
        "doctor/",
        "en/doctor/",
        "configurator/",
        "en/configurator/",
    } <= set(counts)
    print(f"\nCSP: {len(counts)} pages, {sum(counts.values())} violations")
