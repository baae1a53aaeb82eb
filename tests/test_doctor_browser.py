"""The configurator and command doctor pages in headless chromium: choose a combination and copy its command,
paste a command with a typo and see the suggestion, switch language and keep the state; every request stays
on the local site and the console stays clean. The pages' scripts, run by chromium itself, agree with the
Python package on a sample of commands and combinations (tests/test_doctor_parity.py compares all of them
under node)."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlparse

import doctor_cases
import pytest
from test_doctor_parity import python_check

from handbook.checker.export import checker_data
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb
from handbook.site.configurator import Configurator

pytestmark = [pytest.mark.browser, pytest.mark.site]

KB = load_kb()
SNAPSHOT = load_snapshot()
CONFIGURATOR = Configurator(KB, SNAPSHOT)


@pytest.fixture
def tab(browser, site_url):
    """A page whose every request, console error and uncaught exception is recorded."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.requests, page.problems = [], []
    page.on("request", lambda request: page.requests.append(request.url))
    page.on(
        "console",
        lambda m: page.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda exc: page.problems.append(f"page error: {exc}"))
    yield page
    assert page.problems == []
    assert [
        url for url in page.requests if not url.startswith(site_url + "/")
    ] == []  # nothing leaves localhost
    context.close()


def open_configurator(page, site_url, lang, query=""):
    prefix = "" if lang == "zh" else "/en"
    page.goto(f"{site_url}{prefix}/configurator/{query}")
    page.wait_for_selector("[data-configurator][data-ready=true]", timeout=15_000)


def open_doctor(page, site_url, lang):
    prefix = "" if lang == "zh" else "/en"
    page.goto(f"{site_url}{prefix}/doctor/")
    page.wait_for_selector("[data-doctor][data-ready=true]", timeout=15_000)


def switch_language(page, lang):
    with page.expect_navigation():
        page.eval_on_selector(f'a.md-select__link[hreflang="{lang}"]', "a => a.click()")


# ------------------------------------------------------------------------------------------ the configurator
def test_choosing_a_combination_shows_its_command_and_copies_it(tab, site_url):
    open_configurator(tab, site_url, "en")
    tab.select_option("#cfg-model", "qwen3.5-397b-a17b")
    tab.select_option("#cfg-gpu", "h100")
    tab.select_option("#cfg-precision", "fp8")
    tab.select_option("#cfg-goal", "low-latency")
    expected = CONFIGURATOR.configure(
        {
            "model": "qwen3.5-397b-a17b",
            "gpu": "h100",
            "precision": "fp8",
            "goal": "low-latency",
            "nodes": 1,
            "pd": False,
        }
    )
    assert tab.text_content(".cfg-command code") == expected["commands"][0]["text"]
    assert tab.text_content(".cfg-headline") == expected["headline"]["en"]
    figures = expected["commands"][0]["plan"]["figures"]
    shown = tab.eval_on_selector_all(
        ".cfg-figures [data-figure]", "cells => cells.map(c => [c.dataset.figure, c.textContent])"
    )
    assert shown == [[k, v if isinstance(v, str) else v["en"]] for k, v in figures.items() if k != "context"]
    assert tab.eval_on_selector_all(".cfg-lines a", "links => links.map(a => a.getAttribute('href'))")[1] == (
        "../04-parameters/#tp-size"
    )
    tab.click(".cfg-copy")
    tab.wait_for_selector(".cfg-copy[data-copied=true]")
    assert tab.evaluate("navigator.clipboard.readText()") == expected["commands"][0]["text"]
    query = parse_qs(urlparse(tab.url).query)
    assert query == {
        "model": ["qwen3.5-397b-a17b"], "gpu": ["h100"], "precision": ["fp8"], "goal": ["low-latency"], "nodes": ["1"],
    }  # fmt: skip


def test_the_planner_link_opens_the_same_plan_on_the_planners_page(tab, site_url):
    open_configurator(
        tab, site_url, "en", "?model=gpt-oss-120b&gpu=h100&precision=mxfp4&goal=low-latency&nodes=1"
    )
    rows = dict(
        tab.eval_on_selector_all(
            ".cfg-figures [data-figure]", "cells => cells.map(c => [c.dataset.figure, c.textContent])"
        )
    )
    assert rows["max-tokens"] == "139,455"  # worked by hand in tests/test_configurator.py
    with tab.expect_navigation():
        tab.click(".cfg-planner-link")
    tab.wait_for_selector("[data-planner][data-ready=true]", timeout=15_000)
    assert parse_qs(urlparse(tab.url).query)["max-running-requests"] == ["8"]
    planner = dict(
        tab.eval_on_selector_all(
            "[data-figure]", "cells => cells.map(c => [c.dataset.figure, c.textContent])"
        )
    )
    assert {key: planner[key] for key in rows} == rows


def test_the_link_restores_the_choice_and_a_refusal_says_why(tab, site_url):
    open_configurator(tab, site_url, "en", "?model=glm-5.3&gpu=h100&precision=fp8&goal=balanced&nodes=1")
    assert tab.input_value("#cfg-precision") == "fp8"
    assert tab.get_attribute("[data-configurator]", "data-status") == "refused"
    assert "The KB names no FP8 (E4M3) checkpoint for GLM-5.3" in tab.text_content(".cfg-why")
    assert tab.locator(".cfg-command").count() == 0
    open_configurator(tab, site_url, "en", "?model=nope&nodes=3")
    assert "The link's model=nope is not valid" in tab.text_content(".cfg-status")
    assert "The link's nodes=3 is not valid" in tab.text_content(".cfg-status")


def test_pd_gives_one_command_per_role_and_is_offered_only_where_the_kb_has_pd(tab, site_url):
    open_configurator(
        tab, site_url, "en", "?model=deepseek-v4-pro&gpu=mi355x&precision=fp4&goal=balanced&nodes=1"
    )
    assert tab.is_enabled("#cfg-pd")
    tab.check("#cfg-pd")
    roles = tab.eval_on_selector_all(".cfg-command", "boxes => boxes.map(b => b.dataset.role)")
    assert roles == ["prefill", "decode", "router"]
    assert "pd=1" in tab.url
    tab.select_option("#cfg-model", "gpt-oss-120b")
    assert tab.is_disabled("#cfg-pd") and not tab.is_checked("#cfg-pd")
    assert "pd=1" not in tab.url


def test_switching_language_keeps_the_choice(tab, site_url):
    query = "?model=qwen3.5-397b-a17b&gpu=h200&precision=fp8&goal=high-throughput&nodes=1"
    open_configurator(tab, site_url, "zh", query)
    chinese = tab.text_content(".cfg-headline")
    switch_language(tab, "en")
    tab.wait_for_selector("[data-configurator][data-ready=true]", timeout=15_000)
    assert urlparse(tab.url).path.endswith("/en/configurator/")
    assert tab.input_value("#cfg-goal") == "high-throughput" and tab.input_value("#cfg-gpu") == "h200"
    assert tab.text_content(".cfg-headline").startswith(
        "Composed by this site: the handbook's command (H200 × 8"
    )
    assert chinese.startswith("由本站组合：以本手册的命令（H200 × 8")
    switch_language(tab, "zh")
    tab.wait_for_selector("[data-configurator][data-ready=true]", timeout=15_000)
    assert tab.text_content(".cfg-headline") == chinese


# ------------------------------------------------------------------------------------------ the doctor
def test_a_pasted_typo_gets_the_checkers_suggestion_in_the_pages_language(tab, site_url):
    open_doctor(tab, site_url, "en")
    tab.fill(
        "#doc-input", "python -m sglang.launch_server --model-path m \\\n  --tp-sise 2 --enable-metrics=true"
    )
    items = tab.eval_on_selector_all(".doc-finding", "li => li.map(x => [x.dataset.code, x.textContent])")
    assert [code for code, _ in items] == ["flag.unknown", "flag.takes-no-value"]
    assert "the closest is --tp-size" in items[0][1] and "line 2" in items[0][1]
    assert tab.text_content(".doc-status") == "✖ 2 error(s), 0 warning(s), 0 note(s) (sglang 0.5.23)"
    tab.fill("#doc-input", "curl http://localhost:30000/metrics")
    assert "no SGLang command or flags found" in tab.text_content(".doc-status")
    tab.click(".doc-example")
    assert "--tp-size" in tab.text_content(".doc-findings")


def test_the_doctor_keeps_the_command_across_languages_and_links_to_the_explaining_section(tab, site_url):
    open_doctor(tab, site_url, "zh")
    command = "python -m sglang.launch_server --model-path m --host 0.0.0.0"
    tab.fill("#doc-input", command)
    assert "服务监听 0.0.0.0 却没有 --api-key" in tab.text_content(".doc-findings")
    link = tab.get_attribute(".doc-finding .doc-link", "href")
    assert link == "../08-production/#security"
    switch_language(tab, "en")
    tab.wait_for_selector("[data-doctor][data-ready=true]", timeout=15_000)
    assert tab.input_value("#doc-input") == command
    assert "The server listens on 0.0.0.0 without --api-key" in tab.text_content(".doc-findings")
    tab.click(".doc-finding .doc-link")
    tab.wait_for_url("**/en/08-production/#security")


def test_an_accelerator_sizes_the_command_and_a_mechanical_fix_is_a_command_to_copy(tab, site_url):
    open_doctor(tab, site_url, "en")
    command = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 --tp 4"
    tab.fill("#doc-input", command)
    assert [f["code"] for f in python_check(command)["findings"]] == ["flag.abbreviation"]
    assert tab.eval_on_selector_all(".doc-finding", "li => li.map(x => x.dataset.code)") == [
        "flag.abbreviation"
    ]
    fix = tab.text_content(".doc-fix pre")
    assert (
        fix
        == "python -m sglang.launch_server \\\n  --model-path Qwen/Qwen3.5-397B-A17B-FP8 \\\n  --tp-size 4"
    )
    tab.click(".doc-fix .cfg-copy")
    assert tab.evaluate("navigator.clipboard.readText()") == fix
    tab.select_option("#doc-gpu", "h100")  # the planner's data is fetched, and the command sized
    tab.wait_for_function("document.querySelector('.doc-finding[data-code=\"sizing.weights\"]') !== null")
    items = tab.eval_on_selector_all(".doc-finding", "li => li.map(x => [x.dataset.code, x.textContent])")
    assert [code for code, _ in items] == [
        "sizing.weights",
        "flag.abbreviation",
    ]  # what refuses to start first
    assert "more than the static budget" in items[0][1] and "SGLang refuses to start" in items[0][1]
    assert any(url.endswith("/assets/planner-data.json") for url in tab.requests)
    tab.select_option("#doc-gpu", "h200")
    tab.wait_for_function("document.querySelector('.doc-finding[data-code=\"sizing.plan\"]') !== null")
    tab.select_option("#doc-gpu", "")
    assert tab.eval_on_selector_all(".doc-finding", "li => li.map(x => x.dataset.code)") == [
        "flag.abbreviation"
    ]


# ------------------------------------------------------------------------------------------ the browser's runtime
def test_chromium_runs_the_same_checker_and_configurator_as_python(tab, site_url):
    """A sample through chromium's JavaScript engine (node runs them all in test_doctor_parity.py)."""
    open_doctor(tab, site_url, "en")
    bases = doctor_cases.site_commands(KB)
    cases = bases + list(doctor_cases.Variants(SNAPSHOT, seed=61).many(bases, 400))
    script = (
        "([data, cases]) => { const c = HandbookChecker.create(data); return cases.map(t => { const f = c.check(t); "
        "return {findings: f, understood: c.understood(t), corrected: c.corrected(t, f).map(x => [x.line, x.text])}; }); }"
    )
    got = tab.evaluate(script, [checker_data(SNAPSHOT, KB), cases])
    assert [r for r, text in zip(got, cases, strict=True) if r != python_check(text)] == []
    open_configurator(tab, site_url, "en")
    picked = CONFIGURATOR.choices()[::17]
    results = tab.evaluate(
        "choices => choices.map(c => document.querySelector('[data-configurator]').configurator.configure.configure(c))",
        picked,
    )
    expected = [CONFIGURATOR.configure(choice) for choice in picked]
    assert json.dumps(results, sort_keys=True) == json.dumps(expected, sort_keys=True)
