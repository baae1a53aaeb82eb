"""The configurator and command doctor pages in headless chromium: choose a combination and copy its command,
paste a command with a typo and see the suggestion, switch language and keep the state; every request stays
on the local site and the console stays clean. The doctor's checker, run by chromium itself, agrees with the
Python package on a sample of commands (tests/test_doctor_parity.py compares all of them under node); the
configurator shows the answers the build computed (tests/test_configurator.py checks every one)."""

from __future__ import annotations

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


def checked(page, text=None):
    """Type ``text`` into the doctor (when given) and wait for its verdict (the check runs in a worker)."""
    if text is not None:
        page.fill("#doc-input", text)
    page.wait_for_function("() => document.querySelector('[data-doctor]').dataset.result !== 'checking'")


def switch_language(page, lang):
    with page.expect_navigation():
        page.eval_on_selector(f'a.md-select__link[hreflang="{lang}"]', "a => a.click()")


# ------------------------------------------------------------------------------------------ the configurator
def settled(page):
    """Wait until the answer for the form's choice is on the page (a new pair's answers are fetched)."""
    page.wait_for_selector("[data-configurator][data-ready=true]:not([data-pending])", timeout=15_000)


def pick(page, field, value):
    page.select_option(f"#cfg-{field}", value)
    settled(page)


def test_choosing_a_combination_shows_its_command_and_copies_it(tab, site_url):
    open_configurator(tab, site_url, "en")
    for field, value in (("model", "qwen3.5-397b-a17b"), ("gpu", "h100"), ("gpus", "8"), ("nodes", "1")):
        pick(tab, field, value)
    for field, value in (("precision", "fp8"), ("goal", "low-latency"), ("context", "131072")):
        pick(tab, field, value)
    expected = CONFIGURATOR.configure(
        {
            "model": "qwen3.5-397b-a17b",
            "gpu": "h100",
            "precision": "fp8",
            "gpus": 8,
            "nodes": 1,
            "goal": "low-latency",
            "context": 131072,
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
    tab.click(".cfg-command .cfg-copy")
    tab.wait_for_selector(".cfg-copy[data-copied=true]")
    assert tab.evaluate("navigator.clipboard.readText()") == expected["commands"][0]["text"]
    query = parse_qs(urlparse(tab.url).query)
    assert query == {
        "model": ["qwen3.5-397b-a17b"], "gpu": ["h100"], "precision": ["fp8"], "gpus": ["8"], "nodes": ["1"],
        "goal": ["low-latency"], "context": ["131072"],
    }  # fmt: skip
    # the page fetched the form and this pair's answers: no configurator logic, no checker
    assert not any(
        url.endswith(("/configure.js", "/checker.js", "/checker-data.json")) for url in tab.requests
    )


def test_the_planner_link_opens_the_same_plan_with_every_input(tab, site_url):
    query = "?model=qwen3.5-397b-a17b&gpu=h100&precision=fp8&gpus=8&nodes=1&goal=low-latency&context=131072"
    open_configurator(tab, site_url, "en", query)
    settled(tab)
    rows = dict(
        tab.eval_on_selector_all(
            ".cfg-figures [data-figure]", "cells => cells.map(c => [c.dataset.figure, c.textContent])"
        )
    )
    with tab.expect_navigation():
        tab.click(".cfg-planner-link")
    tab.wait_for_selector("[data-planner][data-ready=true]", timeout=15_000)
    query = parse_qs(urlparse(tab.url).query)
    assert query["context"] == ["131072"] and query["max-running-requests"] == ["8"]
    planner = dict(
        tab.eval_on_selector_all(
            "[data-figure]", "cells => cells.map(c => [c.dataset.figure, c.textContent])"
        )
    )
    assert {key: planner[key] for key in rows} == rows


def test_a_precision_is_never_kept_where_the_accelerator_has_no_source_for_it(tab, site_url):
    query = "?model=qwen3.5-397b-a17b&gpu=mi355x&precision=mxfp4&gpus=8&nodes=1&goal=balanced"
    open_configurator(tab, site_url, "en", query)
    settled(tab)
    assert tab.input_value("#cfg-precision") == "mxfp4"
    pick(tab, "gpu", "h200")
    options = tab.eval_on_selector_all("#cfg-precision option", "os => os.map(o => o.value)")
    assert "mxfp4" not in options and tab.input_value("#cfg-precision") == options[0]
    assert "precision=mxfp4" not in tab.url
    assert "amd/" not in tab.text_content(".cfg-result")


def test_an_unsupported_choice_says_why_and_offers_the_nearest_one(tab, site_url):
    open_configurator(tab, site_url, "en", "?model=glm-5.3&gpu=h100&goal=balanced&nodes=1")
    settled(tab)
    assert tab.get_attribute("[data-configurator]", "data-status") == "refused"
    assert "Not in this KB: no source of this KB names any precision of GLM-5.3 on NVIDIA H100" in (
        tab.text_content(".cfg-why")
    )
    assert tab.is_disabled("#cfg-precision")
    assert tab.locator(".cfg-command").count() == 0
    tab.click(".cfg-alternative")
    settled(tab)
    assert tab.input_value("#cfg-gpu") == "h200"
    assert tab.locator(".cfg-command").count() >= 1
    open_configurator(tab, site_url, "en", "?model=nope&nodes=3")
    settled(tab)
    assert "The link's model=nope is not valid" in tab.text_content(".cfg-status")
    assert "The link's nodes=3 is not valid" in tab.text_content(".cfg-status")


def test_pd_gives_one_command_per_role_and_is_offered_only_where_the_kb_has_pd(tab, site_url):
    query = "?model=deepseek-v4-pro&gpu=mi355x&precision=fp4&gpus=8&nodes=2&goal=balanced"
    open_configurator(tab, site_url, "en", query)
    settled(tab)
    assert tab.is_enabled("#cfg-pd")
    tab.check("#cfg-pd")
    settled(tab)
    roles = tab.eval_on_selector_all(".cfg-command", "boxes => boxes.map(b => b.dataset.role)")
    assert roles == ["prefill", "decode", "router"]
    assert "pd=1" in tab.url
    pick(tab, "model", "gpt-oss-120b")
    assert tab.is_disabled("#cfg-pd") and not tab.is_checked("#cfg-pd")
    assert "pd=1" not in tab.url


def test_switching_language_keeps_the_choice(tab, site_url):
    query = (
        "?model=qwen3.5-397b-a17b&gpu=h200&precision=fp8&gpus=8&nodes=1&goal=high-throughput&context=262144"
    )
    open_configurator(tab, site_url, "zh", query)
    settled(tab)
    chinese = tab.text_content(".cfg-headline")
    switch_language(tab, "en")
    settled(tab)
    assert urlparse(tab.url).path.endswith("/en/configurator/")
    assert tab.input_value("#cfg-goal") == "high-throughput" and tab.input_value("#cfg-gpu") == "h200"
    assert tab.text_content(".cfg-headline").startswith("This is the handbook's own command (H200 × 8")
    assert chinese.startswith("这是本手册自己的命令（H200 × 8")
    switch_language(tab, "zh")
    settled(tab)
    assert tab.text_content(".cfg-headline") == chinese


# ------------------------------------------------------------------------------------------ the doctor
def test_a_pasted_typo_gets_the_checkers_suggestion_in_the_pages_language(tab, site_url):
    open_doctor(tab, site_url, "en")
    checked(tab, "python -m sglang.launch_server --model-path m \\\n  --tp-sise 2 --enable-metrics=true")
    items = tab.eval_on_selector_all(".doc-finding", "li => li.map(x => [x.dataset.code, x.textContent])")
    assert [code for code, _ in items] == ["flag.unknown", "flag.takes-no-value"]
    assert "the closest is --tp-size" in items[0][1] and "line 2" in items[0][1]
    assert tab.text_content(".doc-status") == "✖ 2 error(s), 0 warning(s), 0 note(s) (sglang 0.5.23)"
    checked(tab, "curl http://localhost:30000/metrics")
    assert "no SGLang command or flags found" in tab.text_content(".doc-status")
    tab.click(".doc-example")
    checked(tab)
    assert "--tp-size" in tab.text_content(".doc-findings")


def test_the_doctor_keeps_the_command_across_languages_and_links_to_the_explaining_section(tab, site_url):
    open_doctor(tab, site_url, "zh")
    command = "python -m sglang.launch_server --model-path m --host 0.0.0.0"
    checked(tab, command)
    assert "服务监听 0.0.0.0 却没有 --api-key" in tab.text_content(".doc-findings")
    link = tab.get_attribute(".doc-finding .doc-link", "href")
    assert link == "../08-production/#security"
    switch_language(tab, "en")
    tab.wait_for_selector("[data-doctor][data-ready=true]", timeout=15_000)
    checked(tab)
    assert tab.input_value("#doc-input") == command
    assert "The server listens on 0.0.0.0 without --api-key" in tab.text_content(".doc-findings")
    tab.click(".doc-finding .doc-link")
    tab.wait_for_url("**/en/08-production/#security")


def test_an_accelerator_sizes_the_command_and_a_mechanical_fix_is_a_command_to_copy(tab, site_url):
    open_doctor(tab, site_url, "en")
    command = "python -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 --tp 4"
    checked(tab, command)
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
    tab.wait_for_function(
        "() => document.querySelector('.doc-finding[data-code=\"sizing.weights\"]') !== null"
    )
    items = tab.eval_on_selector_all(".doc-finding", "li => li.map(x => [x.dataset.code, x.textContent])")
    assert [code for code, _ in items] == [
        "sizing.weights",
        "flag.abbreviation",
    ]  # what refuses to start first
    assert "more than the static budget" in items[0][1] and "SGLang refuses to start" in items[0][1]
    assert any(url.endswith("/assets/planner-data.json") for url in tab.requests)
    tab.select_option("#doc-gpu", "h200")
    tab.wait_for_function("() => document.querySelector('.doc-finding[data-code=\"sizing.plan\"]') !== null")
    tab.select_option("#doc-gpu", "")
    checked(tab)
    assert tab.eval_on_selector_all(".doc-finding", "li => li.map(x => x.dataset.code)") == [
        "flag.abbreviation"
    ]


def test_without_a_worker_the_page_sizes_the_command_itself(tab, site_url):
    tab.add_init_script("delete window.Worker")  # a browser where no worker can start
    open_doctor(tab, site_url, "en")
    checked(tab, "python -m sglang.launch_server --model-path Qwen/Qwen3.5-397B-A17B-FP8 --tp-size 4")
    tab.select_option("#doc-gpu", "h100")
    checked(tab)
    codes = tab.eval_on_selector_all(".doc-finding", "li => li.map(x => x.dataset.code)")
    assert codes == ["sizing.weights"]
    assert not any(url.endswith("/assets/checker-worker.js") for url in tab.requests)


# ------------------------------------------------------------------------------------------ the browser's runtime
def test_chromium_runs_the_same_checker_as_python(tab, site_url):
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


# ------------------------------------------------------------------------------------------ hostile pastes
def _failing_checker(tab, limit_ms=None):
    """Serve a checker.js that throws on a text holding BOOM and never returns on one holding HANG (a
    stand-in for whatever input might break it), and, with ``limit_ms``, a doctor.js that stops a check
    that runs longer. Routed in the context: the worker's own requests go through it too."""

    def checker(route):
        body = route.fetch().text()
        body = body.replace(
            "    function checkCommand(text, model = null, gpu = null) {",
            '    function checkCommand(text, model = null, gpu = null) {\n      if (text.includes("BOOM")) throw new Error("boom");\n'
            '      if (text.includes("HANG")) for (;;);',
        )
        route.fulfill(body=body, content_type="text/javascript")

    def doctor(route):
        body = route.fetch().text().replace("CHECK_LIMIT_MS = 10000", f"CHECK_LIMIT_MS = {limit_ms}")
        route.fulfill(body=body, content_type="text/javascript")

    tab.context.route("**/assets/checker.js", checker)
    if limit_ms is not None:
        tab.context.route("**/assets/doctor.js", doctor)


def test_a_check_that_throws_shows_an_error_never_the_previous_verdict_and_a_reload_does_not_repeat_it(
    tab, site_url
):
    _failing_checker(tab)
    open_doctor(tab, site_url, "en")
    checked(tab, "python -m sglang.launch_server --model-path m")
    assert tab.get_attribute("[data-doctor]", "data-result") == "clean"
    checked(tab, "python -m sglang.launch_server --model-path BOOM")
    assert tab.get_attribute("[data-doctor]", "data-result") == "failed"
    status = tab.text_content(".doc-status")
    assert "The checker failed on this text (boom)" in status and "no problems" not in status
    assert tab.eval_on_selector_all(".doc-finding", "items => items.length") == 0
    assert tab.evaluate("sessionStorage.getItem('handbook-doctor-command')") is None
    tab.reload()
    tab.wait_for_selector("[data-doctor][data-ready=true]", timeout=15_000)
    assert tab.input_value("#doc-input") == ""  # the failing text was not stored, so not restored
    checked(tab, "python -m sglang.launch_server --model-path BOOM")
    tab.click(".doc-clear")
    checked(tab)
    assert (
        tab.input_value("#doc-input") == "" and tab.get_attribute("[data-doctor]", "data-result") == "empty"
    )


def test_a_restored_command_that_fails_is_cleared(tab, site_url):
    _failing_checker(tab)
    open_doctor(tab, site_url, "en")
    tab.evaluate("sessionStorage.setItem('handbook-doctor-command', 'python -m sglang.launch_server BOOM')")
    tab.reload()
    tab.wait_for_selector("[data-doctor][data-ready=true]", timeout=15_000)
    checked(tab)
    assert tab.get_attribute("[data-doctor]", "data-result") == "failed"
    assert tab.input_value("#doc-input") == ""
    assert tab.evaluate("sessionStorage.getItem('handbook-doctor-command')") is None


def test_a_check_that_never_returns_is_stopped_and_the_page_answers_meanwhile(tab, site_url):
    _failing_checker(tab, limit_ms=1500)
    open_doctor(tab, site_url, "en")
    ticks = tab.evaluate(
        """async () => {
          const root = document.querySelector("[data-doctor]");
          root.querySelector(".doc-input").value = "python -m sglang.launch_server HANG";
          let ticks = 0;
          const timer = setInterval(() => { ticks += 1; }, 50);
          await root.doctor.run();
          clearInterval(timer);
          return ticks;
        }"""
    )
    assert ticks >= 20  # the page's own timers kept running through the 1.5 s the worker spun
    assert tab.get_attribute("[data-doctor]", "data-result") == "failed"
    assert "> 1.5 s" in tab.text_content(".doc-status")
    checked(tab, "python -m sglang.launch_server --model-path m --tp-sise 2")  # a fresh worker checks again
    assert tab.eval_on_selector_all(".doc-finding", "li => li.map(x => x.dataset.code)") == ["flag.unknown"]


def test_a_100k_paste_is_checked_off_the_main_thread_and_lists_its_first_findings(tab, site_url):
    from handbook.site.bench import long_commands

    open_doctor(tab, site_url, "en")
    measured = tab.evaluate(
        """async (text) => {
          const root = document.querySelector("[data-doctor]");
          root.querySelector(".doc-input").value = text;
          let ran = false;
          setTimeout(() => { ran = true; }, 0);
          const pending = root.doctor.run();
          const before = ran;
          await pending;
          return { before, after: ran, items: root.querySelectorAll(".doc-finding").length,
                   more: root.querySelector(".doc-more") && root.querySelector(".doc-more").textContent };
        }""",
        long_commands(100_000)["unknown flags"],
    )
    assert measured["before"] is False and measured["after"] is True  # run() returned before the check ended
    assert measured["items"] == 200 and "5,415 more" in measured["more"]


def test_an_invisible_character_in_a_pasted_command_is_marked(tab, site_url):
    open_doctor(tab, site_url, "en")
    checked(tab, "python -m sglang.launch_server --model-path m --served-model-name ad\u202emin")
    item = tab.text_content('.doc-finding[data-code="shell.invisible"]')
    assert "U+202E" in item and "ad⟨U+202E⟩min" in item and "\u202e" not in item
