"""The planner page in headless chromium: the form drives it, its numbers equal Python's, and planner.js's
pure functions agree with handbook.calc over every model × accelerator × dtype of the KB."""

from __future__ import annotations

import dataclasses
import json
from urllib.parse import parse_qs, urlparse

import pytest
from exhaustive import sized

from handbook.calc import memory
from handbook.calc.launch import rule_flags, rule_max_running_requests, suggested_command
from handbook.calc.planner_data import kv_dtypes, weight_dtypes
from handbook.core.formatting import binary_size, gb, sig, thousands
from handbook.core.messages import msg
from handbook.kb.loader import load_kb
from handbook.render.planner import NOTE_KEYS, figure_texts, note_values

pytestmark = [pytest.mark.browser, pytest.mark.site]

KB = load_kb()
READY = "[data-planner][data-ready=true]"
FIGURES_JS = "els => Object.fromEntries(els.map(e => [e.dataset.figure, [e.textContent, e.dataset.value]]))"


def open_planner(page, site_url: str, lang: str, query: str = ""):
    prefix = "" if lang == "zh" else "/en"
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{site_url}{prefix}/planner/{query}")
    page.wait_for_selector(READY, timeout=15_000)
    return errors


def shown(page) -> dict[str, tuple[str, str]]:
    return {
        key: tuple(value) for key, value in page.eval_on_selector_all("[data-figure]", FIGURES_JS).items()
    }


def raw(value) -> str:
    """A number as JavaScript's String() writes it into data-value ("" when unknown)."""
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def expected_figures(plan: memory.Plan, lang: str) -> dict[str, tuple[str, str]]:
    model = KB.models[plan.model]
    texts = figure_texts(plan, model, lang)
    values = {
        "gpu": plan.device_mib * 2**20 if plan.device_mib is not None else None,
        "free": plan.free_bytes,
        "fraction": plan.mem_fraction_static,
        "static": plan.static_bytes,
        "rest": plan.rest_bytes,
        "weights": plan.weights_bytes,
        "weights-gpu": plan.weights_per_gpu,
        "budget": plan.kv_budget_bytes,
        "state": plan.state_pool_bytes,
        "kv-pool": plan.kv_pool_bytes,
        "kv-token": plan.kv_bytes_per_token,
        "kv-token-gpu": plan.pool_bytes_per_token,
        "page": plan.page_size,
        "max-tokens": plan.max_tokens,
        "swa-tokens": plan.swa_tokens,
        "requests": plan.max_requests,
        "running": plan.max_running_requests,
    }
    return {key: (texts[key], raw(values[key])) for key in texts}


def test_a_model_opens_on_a_context_every_model_serves_with_its_maximum_one_click_away(page, site_url):
    errors = open_planner(page, site_url, "en")
    page.select_option("#planner-model", "glm-5.3")
    page.select_option("#planner-gpu", "h200")
    glm, h200, fp8, bf16 = KB.models["glm-5.3"], KB.hardware["h200"], KB.dtypes["fp8"], KB.dtypes["bf16"]
    natives = [m.context.native for m in KB.models.values() if m.context and m.context.native]
    assert min(natives) == 131_072 < glm.context.native == 1_048_576  # gpt-oss-120b's and Llama-3.1-8B's
    assert page.input_value("#planner-context") == "131072"
    assert memory.auto_tp(glm, h200, fp8, bf16, context=131_072) == memory.AutoTp(tp=8, basis="headroom")
    assert "Auto: TP 8 is the smallest power of two" in page.text_content(".planner-status")
    button = page.locator(".planner-context-max")
    assert button.is_visible() and button.text_content() == "Use the model's maximum: 1,048,576"
    button.click()
    assert page.input_value("#planner-context") == "1048576"
    # the whole latent on every GPU: a 1M-token request takes four nodes of H200
    assert memory.auto_tp(glm, h200, fp8, bf16) == memory.AutoTp(tp=32, basis="headroom")
    assert "Auto: TP 32 is the smallest power of two" in page.text_content(".planner-status")
    assert not button.is_visible()
    assert parse_qs(urlparse(page.url).query)["context"] == ["1048576"]
    assert errors == []


def test_choosing_a_model_and_a_gpu_gives_pythons_numbers(page, site_url):
    errors = open_planner(page, site_url, "en")
    page.select_option("#planner-model", "gpt-oss-120b")
    page.select_option("#planner-gpu", "h100")
    oss, h100 = KB.models["gpt-oss-120b"], KB.hardware["h100"]
    mxfp4, bf16 = KB.dtypes["mxfp4"], KB.dtypes["bf16"]
    auto = memory.auto_tp(oss, h100, mxfp4, bf16)
    assert auto == memory.AutoTp(tp=2, basis="headroom")
    plan = memory.plan(oss, h100, mxfp4, bf16, auto.tp)
    assert shown(page) == expected_figures(plan, "en")
    assert shown(page)["requests"] == ("8", "8")
    assert page.text_content(".planner-command code") == suggested_command(KB, plan)
    assert "Auto: TP 2 is the smallest power of two" in page.text_content(".planner-status")
    query = parse_qs(urlparse(page.url).query)
    assert query["model"] == ["gpt-oss-120b"] and query["gpu"] == ["h100"] and query["tp"] == ["auto"]
    assert "mem-fraction-static" not in query  # the engine's default: nothing to pass
    # the picture is drawn from the same numbers: weights | KV pool | the rest = the free memory
    parts = page.eval_on_selector_all(
        ".planner-bar rect[data-part]", "els => els.map(e => [e.dataset.part, Number(e.dataset.bytes)])"
    )
    assert [kind for kind, _ in parts] == ["weights", "kv", "rest"]
    assert dict(parts) == {
        "weights": plan.weights_per_gpu,
        "kv": plan.static_bytes - plan.weights_per_gpu,
        "rest": plan.rest_bytes,
    }
    # one GPU instead: the weights fit, but not one full-length request
    page.select_option("#planner-tp", "1")
    one = memory.plan(oss, h100, mxfp4, bf16, 1)
    assert shown(page) == expected_figures(one, "en")
    # (81,559 MiB × 0.835 − 65,248,815,744 B of MXFP4 experts and BF16 rest) // (8 × 128 × 18 × 2 × 1.8),
    # the engine's own sizing
    assert shown(page)["max-tokens"][0] == "92,849"
    assert shown(page)["requests"] == ("0", "0")
    assert errors == []


def test_a_shared_link_reopens_the_same_plan_in_chinese(page, site_url, browser):
    query = "?model=qwen3.5-397b-a17b&gpu=h200&tp=4&weights-dtype=fp8&kv-dtype=fp8&mem-fraction-static=0.8&context=131072"
    errors = open_planner(page, site_url, "zh", query)
    qwen = KB.models["qwen3.5-397b-a17b"]
    fp8 = KB.dtypes["fp8"]
    plan = memory.plan(qwen, KB.hardware["h200"], fp8, fp8, 4, mem_fraction_static=0.8, context=131_072)
    assert shown(page) == expected_figures(plan, "zh")
    # mamba_ssm_dtype is not in this KB: the token count is an upper bound, and says so
    assert shown(page)["max-tokens"][0].startswith("≤ 1,462,460（上限：")
    assert page.text_content(".planner-status").strip() == ""
    notes = page.eval_on_selector_all(".planner-notes li", "els => els.map(e => e.dataset.note)")
    assert notes == list(plan.notes) and notes[0] == "bounds"
    link = page.get_attribute(".planner-share", "href")
    other = browser.new_context().new_page()
    open_planner(other, site_url, "zh", "?" + urlparse(link).query)
    assert shown(other) == shown(page)
    other.context.close()
    assert errors == []


def test_unpublished_fields_say_so(page, site_url):
    # GLM-5 publishes no parameter count: its weights are its architecture formula's, 743,911,218,432 × 2 B,
    # which leave no KV pool on 8 H200s
    open_planner(page, site_url, "zh", "?model=glm-5&gpu=h200&tp=8")
    figures = shown(page)
    assert figures["weights"][1] == str(743_911_218_432 * 2)
    assert figures["max-tokens"][1] == "0"
    # MLA (512 + 64) × 2 B × 78 layers, and the DSA indexer's (128 + 128 / 128 × 4) B on each of the 78 layers
    # (GLM-5's config.json has no index_topk_freq: every layer computes its own top-k)
    assert figures["kv-token-gpu"] == ("89,856 B (87.8 KiB) + 索引器 10,296 B (10.1 KiB)", "100152")
    # DeepSeek-V4-Pro's config.json has no kv_lora_rank (its pool is its own): the KV is not in this KB
    open_planner(page, site_url, "en", "?model=deepseek-v4-pro&gpu=ascend")
    figures = shown(page)
    assert figures["gpu"] == ("not in this KB (memory_gb)", "")
    assert figures["kv-token"] == ("not in this KB (kv_lora_rank)", "")
    # on an accelerator whose engine path the planner models, its own pool is sized: 30 layers × 585 B / 4
    # + 31 layers × 1,728 B / 256 of compressed KV per token (V4 rows in 256-token pages)
    open_planner(page, site_url, "en", "?model=deepseek-v4-pro&gpu=gb200")
    assert shown(page)["kv-token"][1] == str(30 * 585 / 4 + 31 * 1728 / 256)


def test_deepseek_v4_opens_with_its_own_swa_ratio_and_a_command_it_accepts(page, site_url):
    """The field's engine fallback (0.8) is not sent as a choice: DeepSeek-V4's override (0.1) sizes the page,
    the field shows it, and the command spells BF16 KV as the V4 hook accepts it, with no ratio flag."""
    errors = open_planner(page, site_url, "en", "?model=deepseek-v4-pro&gpu=h200&tp=8")
    v4, h200 = KB.models["deepseek-v4-pro"], KB.hardware["h200"]
    # the page opens on the context every model serves (131,072); the pool does not depend on it
    plan = memory.plan(v4, h200, KB.dtypes["fp4"], KB.dtypes["bf16"], 8, context=131_072)
    assert (plan.swa_full_tokens_ratio, plan.max_tokens, plan.swa_tokens) == (0.1, 3_066_368, 306_432)
    assert shown(page) == expected_figures(plan, "en")
    assert page.input_value("#planner-swa-full-tokens-ratio") == "0.1"
    command = page.text_content(".planner-command code")
    assert command == suggested_command(KB, plan)
    assert "--kv-cache-dtype bfloat16" in command and "--swa-full-tokens-ratio" not in command
    assert errors == []


def test_invalid_link_values_fall_back_with_a_visible_note(page, site_url):
    open_planner(page, site_url, "en", "?model=nope&gpu=h200&tp=7&mem-fraction-static=1.5&context=abc")
    status = page.text_content(".planner-status")
    for note in [
        "The link's model=nope is not valid; the default deepseek-v3 is used instead.",
        "The link's tp=7 is not valid; the default auto is used instead.",
        "The link's mem-fraction-static=1.5 is not valid; the default — is used instead.",
        # DeepSeek-V3 opens on the context every model serves (its own, derived, is 163,840)
        "The link's context=abc is not valid; the default 131072 is used instead.",
    ]:
        assert note in status
    assert page.is_visible(".planner-status.planner-warn")
    assert page.input_value("#planner-model") == "deepseek-v3"
    assert page.input_value("#planner-gpu") == "h200"  # the valid one is kept
    assert page.input_value("#planner-mem-fraction-static") == ""  # the engine's default


def change(page, selector: str, value: str) -> None:
    page.fill(selector, value)
    page.dispatch_event(selector, "change")


def test_typed_values_are_validated_and_kept_in_the_link(page, site_url):
    open_planner(page, site_url, "en", "?model=gpt-oss-120b&gpu=b200&tp=4")
    change(page, "#planner-mem-fraction-static", "1.5")
    assert (
        page.text_content(".planner-status") == "1.5 is not a valid --mem-fraction-static; — is used instead."
    )
    assert page.input_value("#planner-mem-fraction-static") == ""
    page.click(".planner-advanced summary")
    change(page, "#planner-page-size", "64")
    change(page, "#planner-max-total-tokens", "500000")
    change(page, "#planner-swa-full-tokens-ratio", "0.5")
    query = parse_qs(urlparse(page.url).query)
    assert (query["page-size"], query["max-total-tokens"], query["swa-full-tokens-ratio"]) == (
        ["64"],
        ["500000"],
        ["0.5"],
    )
    oss = KB.models["gpt-oss-120b"]
    plan = memory.plan(
        oss,
        KB.hardware["b200"],
        KB.dtypes["mxfp4"],
        KB.dtypes["bf16"],
        4,
        page_size=64,
        max_total_tokens=500_000,
        swa_full_tokens_ratio=0.5,
    )
    assert (plan.max_tokens, plan.swa_tokens) == (499_968, 249_984)  # 500,000 cut to pages of 64; × 0.5
    assert shown(page) == expected_figures(plan, "en")
    assert page.text_content(".planner-command code").splitlines()[-3:] == [
        "  --page-size 64 \\",
        "  --max-total-tokens 500000 \\",
        "  --swa-full-tokens-ratio 0.5",
    ]
    notes = page.eval_on_selector_all(".planner-notes li", "els => els.map(e => e.dataset.note)")
    assert notes == ["default-fraction", "free-assumed", "weights-mixed", "swa-pool", "capped"]
    # empty again: the engine's page size comes back
    change(page, "#planner-page-size", "")
    assert "page-size" not in parse_qs(urlparse(page.url).query)


# Every 7th case of the grid in the suite (7 is prime to the 4 TPs: every model meets every accelerator,
# dtype and TP, in about 800 cases); `nox -s exhaustive` runs every case (over 5,000).
GRID_STRIDE = sized(7, 1)


def parity_cases() -> list[dict]:
    """The grid model × accelerator × weight dtype × KV dtype × TP (auto, 1, 8, 64) with the engine's
    defaults, then each model with two sets of options on three accelerators."""
    engine = {"fraction": None, "context": None, "page": None, "cap": None, "ratio": None, "free": None}
    cases = []
    for model in KB.models.values():
        for hw in KB.hardware.values():
            for weights in weight_dtypes(KB, model):
                for kv in kv_dtypes(KB):
                    for tp in ("auto", 1, 8, 64):
                        cases.append(
                            {"model": model.id, "hw": hw.id, "weights": weights, "kv": kv, "tp": tp}
                            | engine
                            | {"running": None}
                        )
        for hw_id in ("h100", "mi355x", "b300"):
            for options in (
                {"fraction": 0.7, "context": 4096, "page": 16, "cap": None, "ratio": 0.5, "free": 70.5},
                {
                    "fraction": 0.93,
                    "context": 1_000_000,
                    "page": None,
                    "cap": 250_000,
                    "ratio": 1.0,
                    "free": None,
                },
            ):
                cases.append(
                    {"model": model.id, "hw": hw_id, "weights": weight_dtypes(KB, model)[0], "kv": "fp8"}
                    | {"tp": "auto", "running": 100 if options["cap"] else None}
                    | options
                )
    return cases


def python_result(case: dict, lang: str) -> dict:
    model, hw = KB.models[case["model"]], KB.hardware[case["hw"]]
    weights, kv = KB.dtypes[case["weights"]], KB.dtypes[case["kv"]]
    options = {
        "mem_fraction_static": case["fraction"],
        "swa_full_tokens_ratio": case["ratio"],
        "free_gib": case["free"],
    }
    tp, auto = case["tp"], None
    if tp == "auto":
        chosen = memory.auto_tp(model, hw, weights, kv, context=case["context"], **options)
        tp, auto = chosen.tp, [chosen.tp, chosen.basis]
    running = case["running"]
    if running is None:
        running = rule_max_running_requests(rule_flags(KB, model), tp)
    plan = memory.plan(
        model,
        hw,
        weights,
        kv,
        tp,
        context=case["context"],
        page_size=case["page"],
        max_total_tokens=case["cap"],
        max_running_requests=running,
        **options,
    )
    values = note_values(plan, model, hw, lang)
    return {
        "auto": auto,
        "plan": json.loads(json.dumps(dataclasses.asdict(plan))),
        "command": suggested_command(KB, plan),
        "figures": figure_texts(plan, model, lang),
        "notes": [msg(NOTE_KEYS[code], lang, **values) for code in plan.notes],
    }


JS_CASES = """cases => {
  const P = window.HandbookPlanner;
  const root = document.querySelector("[data-planner]");
  const d = root.planner.data;
  const m = root.planner.messages;
  const by = (list, id) => list.find((x) => x.id === id);
  const fill = (text, values) => text.replace(/\\{(\\w+)\\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
  return cases.map((c) => {
    const model = by(d.models, c.model), h = by(d.hardware, c.hw), w = by(d.dtypes, c.weights), k = by(d.dtypes, c.kv);
    const options = {mem_fraction_static: c.fraction, swa_full_tokens_ratio: c.ratio, free_gib: c.free};
    let tp = c.tp, auto = null;
    if (tp === "auto") {
      const chosen = P.autoTp(d, model, h, w, k, {...options, context: c.context});
      tp = chosen.tp;
      auto = [chosen.tp, chosen.basis];
    }
    const running = c.running !== null ? c.running : P.ruleMaxRunningRequests(model, tp);
    const p = P.plan(d, model, h, w, k, {...options, tp, ep: 1, context: c.context, page_size: c.page,
                                         max_total_tokens: c.cap, max_running_requests: running});
    const values = P.noteValues(d, p, model, h, m);
    const path = model.model_paths[c.weights].path;
    return {auto, plan: p, command: P.launchCommand(d, p, model, k, path), figures: P.figureTexts(p, model, m),
            notes: p.notes.map((code) => fill(m[`planner-note-${code}`], values))};
  });
}"""


def test_planner_js_agrees_with_python_on_every_model_accelerator_and_dtype(page, site_url):
    """Every 7th case of the grid (GRID_STRIDE), and every case of the options; the whole grid of over 5,000
    in `nox -s exhaustive`."""
    open_planner(page, site_url, "zh")
    grid = parity_cases()
    assert len(grid) > 5_000
    options = [c for c in grid if c["fraction"] is not None]
    cases = grid[::GRID_STRIDE] + ([] if GRID_STRIDE == 1 else options)
    for key, values in (("model", KB.models), ("hw", KB.hardware), ("tp", ("auto", 1, 8, 64))):
        assert {c[key] for c in cases} == set(values), key
    assert {(c["model"], c["hw"]) for c in cases} == {(c["model"], c["hw"]) for c in grid}
    got = page.evaluate(JS_CASES, cases)
    mismatches = []
    for case, js in zip(cases, got, strict=True):
        py = python_result(case, "zh")
        if js != py:
            fields = [key for key in py["plan"] if py["plan"][key] != js["plan"].get(key)]
            other = [key for key in ("auto", "command", "figures", "notes") if py[key] != js[key]]
            mismatches.append((case, fields + other))
    assert mismatches == []


def test_numbers_are_formatted_like_python(page, site_url):
    open_planner(page, site_url, "en")
    values = [0, 0.5, 1.5, 2.5, 68.625, 99.25, 198.5, 1234.5, 999.95, 0.000123, 3.0e-5, 7.5e12, 1_341_145.5]
    values += [70_272, 327_680, 119.85e9, 20.6e9, 2**30 * 1.25, 140_737_488_355_328.0, -78.65]
    got = page.evaluate(
        """values => values.map(v => {
          const f = window.HandbookPlanner.format;
          return [f.sig(v), f.thousands(v), f.binarySize(Math.abs(v)), f.gb(v), f.sig(v, 2)];
        })""",
        values,
    )
    expected = [[sig(v), thousands(v), binary_size(abs(v)), gb(v), sig(v, 2)] for v in values]
    assert got == expected
