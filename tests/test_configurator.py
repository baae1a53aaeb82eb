"""The configurator's answers (handbook.calc.configure + handbook.site.configurator) over every combination
the page offers, the data files the page renders them from, and ``python -m handbook configure``."""

from __future__ import annotations

import gzip
import json
import re
from collections import Counter
from urllib.parse import parse_qs

import pytest

from handbook.calc.checkpoints import listed_hardware
from handbook.calc.configure import CONFIGURATOR_ANSWERS_DIR, CONFIGURATOR_DATA_PATH, choice_key
from handbook.calc.recipe_text import command_text
from handbook.checker import check_command
from handbook.checker.export import CHECKER_DATA_PATH
from handbook.cli import main
from handbook.core.paths import DOCS_DIR
from handbook.engine.snapshot import load_snapshot
from handbook.kb.common import flags_in
from handbook.kb.loader import load_kb
from handbook.site.configurator import Configurator, doctor_exports

KB = load_kb()
SNAPSHOT = load_snapshot()


@pytest.fixture(scope="module")
def configurator():
    return Configurator(KB, SNAPSHOT)


def choice(model, gpu, precision, goal, *, gpus=8, nodes=1, context=None, pd=False):
    native = KB.models[model].context.native
    return {
        "model": model,
        "gpu": gpu,
        "precision": precision,
        "gpus": gpus,
        "nodes": nodes,
        "goal": goal,
        "context": context or native,
        "pd": pd,
    }


def command_flags(command):
    words = command["text"].replace("\\\n", " ")
    return {m.group(1): m.group(2) for m in re.finditer(r"(--[\w-]+)(?: ([^\s-][^\s]*))?", words)}


def running_figure(figures):
    """SGLang's max_running_requests as the plan's row gives it (None where it is not known)."""
    value = figures["running"] if isinstance(figures["running"], str) else figures["running"]["en"]
    digits = re.sub(r"[^\d]", "", value.split("(")[0])
    return int(digits) if digits else None


# ------------------------------------------------------------------------------------------ every combination
def test_every_combination_the_page_offers_is_deployable_or_refused_with_a_reason(configurator):
    """The issue's closing test: no offered combination launches a checkpoint on hardware its sources do
    not name, every command shown passes the checker, every composed flag has a reason, and every figure
    under a command is the planner's for that command's inputs."""
    results = configurator.results
    assert len(results) == len(configurator.choices()) > 20_000
    statuses = Counter(r["status"] for r in results)
    checked: dict[tuple[str, str], list] = {}
    shown = 0
    for result in results:
        picked = result["choice"]
        if result["status"] == "refused":
            assert result["why"] and not result["commands"], picked
            assert all("not published" not in why["en"] for why in result["why"])
            continue
        model = KB.models[picked["model"]]
        precision = next(p for p in model.precisions if p.dtype == picked["precision"])
        assert picked["gpu"] in listed_hardware(precision), picked  # offered only where a source names it
        for command in result["commands"]:
            if command["role"] == "router":
                continue
            shown += 1
            found = command_flags(command)
            path = found.get("--model-path") or found.get("--model")
            assert path == precision.checkpoint or (precision.checkpoint is None and path), (picked, path)
            key = (command["text"], picked["model"])
            if key not in checked:
                checked[key] = [
                    f for f in check_command(command["text"], SNAPSHOT, KB, model=picked["model"])
                    if f.severity == "error"
                ]  # fmt: skip
            assert checked[key] == [], (picked, command["text"])
            for line in command["lines"]:
                assert line["why"]["en"] and line["why"]["zh"], (picked, line)
                assert "the planner's value" not in line["why"]["en"], (picked, line)
            plan = command["plan"]
            if plan is None or plan["link"] is None:
                continue
            query = {k: v[0] for k, v in parse_qs(plan["link"]["query"]).items()}
            assert query["tp"] == found.get("--tp-size", found.get("--tp", "1")), (picked, query)
            assert "context" in query  # the planner's link carries every input, the context included
            if "--context-length" in found:
                assert query["context"] == found["--context-length"]
            engine = running_figure(plan["figures"])
            if "--max-running-requests" in found and command["lines"] and engine is not None:
                assert int(found["--max-running-requests"]) <= engine, picked
    offered = {(r["choice"]["model"], r["choice"]["gpu"]) for r in results if r["choice"]["precision"]}
    print(
        f"\nconfigurator: {len(results)} combinations, {len(offered)} model × accelerator pairs offered, "
        f"{dict(statuses)}, {shown} commands checked ({len(checked)} distinct)"
    )
    assert statuses["recipe"] >= 200 and statuses["composed"] >= 5_000 and statuses["refused"]


def _served(recipe):
    """The accelerators a launch command of the KB is for, and the choice it answers there."""
    model = KB.models[recipe.model]
    from handbook.calc.checkpoints import command_precision

    dtype = command_precision(KB, recipe)
    precision = next(p for p in model.precisions if p.dtype == dtype)
    hardware = recipe.hardware or [
        h for h in listed_hardware(precision) if KB.hardware[h].vendor == recipe.vendor
    ]
    goal = {"latency": "low-latency", "throughput": "high-throughput", "concurrency": "balanced"}.get(
        recipe.strategy, "balanced"
    )
    return dtype, hardware, goal


RECIPES = [
    r
    for r in KB.recipes.values()
    if r.kind == "launch"
    and r.role == "standalone"
    and r.model in KB.models
    and KB.models[r.model].precisions
    and (r.hardware or r.vendor)
]


@pytest.mark.parametrize("recipe", RECIPES, ids=[r.id for r in RECIPES])
def test_no_combination_is_refused_while_the_kb_has_a_command_for_it(configurator, recipe):
    dtype, hardware, goal = _served(recipe)
    assert hardware, recipe.id
    for gpu in hardware:
        if KB.hardware[gpu].memory_gb is None and not recipe.hardware:
            continue  # a command naming no accelerator is offered only where the planner can size it
        gpus = min(n for n in (1, 2, 4, 8) if n >= (recipe.gpus or 1))
        stated = dict(flags_in(recipe.flags)).get("--context-length")
        # the context it serves: the one it sets, else a 128K need (within the model's native context)
        context = int(stated[0]) if stated else min(131_072, KB.models[recipe.model].context.native)
        picked = choice(recipe.model, gpu, dtype, goal, gpus=gpus, context=context)
        result = configurator.configure(picked)
        assert result["status"] in ("recipe", "composed"), (gpu, result["why"])
        assert result["title"] == {"zh": recipe.title.zh, "en": recipe.title.en}, (gpu, result["title"])


# ------------------------------------------------------------------------------------------ the cases
def test_only_precisions_a_source_names_on_the_accelerator_are_offered(configurator):
    offered = configurator.composer.precisions
    assert [p["dtype"] for p in offered("glm-5.3", "mi355x")] == ["fp8", "mxfp4"]
    # AMD's Quark MXFP4 checkpoints: never on NVIDIA, nor on MI300X, where no source names them
    for gpu in ("h200", "h100", "mi300x"):
        assert "mxfp4" not in [p["dtype"] for p in offered("glm-5.3", gpu)]
        assert "mxfp4" not in [p["dtype"] for p in offered("qwen3.5-397b-a17b", gpu)]
    assert [p["dtype"] for p in offered("glm-5.3", "h100")] == []


def test_an_accelerator_no_source_names_is_refused_as_not_in_this_kb_with_the_nearest(configurator):
    [picked] = configurator.choices("glm-5.3", "h100")
    result = configurator.configure(picked)
    assert result["status"] == "refused"
    assert result["why"][0]["en"].startswith(
        "Not in this KB: no source of this KB names any precision of GLM-5.3"
    )
    assert result["alternative"] == {"gpu": "h200"}  # same vendor, closest memory
    assert "NVIDIA H200" in result["why"][1]["en"]


def test_8_h200s_get_the_handbooks_own_command_as_written(configurator):
    result = configurator.configure(choice("qwen3.5-397b-a17b", "h200", "fp8", "high-throughput"))
    recipe = KB.recipes["qwen3.5-397b-fp8-h200-tp8"]
    assert (result["status"], result["title"]["en"]) == ("recipe", recipe.title.en)
    assert result["commands"][0]["text"] == command_text(recipe)
    # with 4 GPUs the handbook's TP 8 command cannot run there: composed from the planner, or refused
    four = configurator.configure(choice("qwen3.5-397b-a17b", "h200", "fp8", "high-throughput", gpus=4))
    assert four["title"] is None


def test_a_goals_running_requests_never_exceed_what_the_plan_under_it_allows(configurator):
    result = configurator.configure(
        choice("qwen3.5-397b-a17b", "h100", "fp8", "high-throughput", context=32_768)
    )
    [command] = result["commands"]
    engine = running_figure(command["plan"]["figures"])
    # chapter 07's 1024 is above what the engine runs on this pool: the command says the plan's figure
    assert int(command_flags(command)["--max-running-requests"]) == engine < 1024
    why = {line["text"]: line["why"]["en"] for line in command["lines"]}
    assert why[f"--max-running-requests {engine}"] == (
        f"the goal gives 1024, but on this KV pool SGLang runs at most {engine} requests at once "
        "(kv_cache_configurator.py resolve_max_num_reqs)"
    )


def test_glm_on_nvidia_gets_the_handbooks_nvidia_command(configurator):
    result = configurator.configure(choice("glm-5.3", "h200", "fp8", "balanced", context=131_072))
    assert (result["status"], result["title"]["en"]) == ("recipe", "NVIDIA")
    # as written it sets no --context-length: the engine takes the native 1,048,576, and one such request
    # does not fit in the KV pool of 8 H200s, so for that context the handbook's command is not offered
    native = configurator.configure(choice("glm-5.3", "h200", "fp8", "balanced"))
    assert native["title"] is None
    assert "--model-path zai-org/GLM-5.3" in result["commands"][0]["text"]


def test_a_context_beyond_native_takes_the_handbooks_yarn_command(configurator):
    result = configurator.configure(
        choice("qwen3.5-397b-a17b", "h200", "fp8", "long-context-rag", context=1_010_000)
    )
    assert result["title"]["en"] == "Long context"
    assert "--context-length 1010000" in result["commands"][0]["text"]
    smaller = configurator.configure(
        choice("qwen3.5-397b-a17b", "h200", "fp8", "long-context-rag", gpus=4, context=1_010_000)
    )
    assert smaller["status"] == "refused" and smaller["alternative"] == {"context": 262_144}


def test_idle_gpus_are_put_to_use_behind_the_router_or_with_attention_dp(configurator):
    result = configurator.configure(choice("qwen3.5-397b-a17b", "h200", "fp8", "balanced", context=32_768))
    assert command_flags(result["commands"][0])["--tp-size"] == "4"
    notes = [n["en"] for n in result["notes"]]
    assert any(
        "uses 4 of your 8 GPUs: run 2 identical instances (TP 4 each) behind sglang_router" in n
        for n in notes
    )


def test_a_composed_flag_says_its_true_reason(configurator):
    result = configurator.configure(choice("qwen3.5-397b-a17b", "h100", "fp8", "balanced", context=131_072))
    why = {line["text"]: line["why"]["en"] for line in result["commands"][0]["lines"]}
    assert why["--context-length 131072"] == (
        "the context you need, 131,072 tokens (the model's native context is 262,144)"
    )
    assert why["--model-path Qwen/Qwen3.5-397B-A17B-FP8"].startswith(
        "the FP8 (E4M3) checkpoint; the sources that name it on NVIDIA H100: "
    )
    assert not any(text.startswith("--kv-cache-dtype") for text in why)  # the engine's own: no flag


# ------------------------------------------------------------------------------------------ the data files
def test_the_page_loads_every_answer_as_data_computed_at_build_time(configurator):
    exports = doctor_exports(KB, SNAPSHOT)
    form = json.loads(exports[CONFIGURATOR_DATA_PATH]())
    pairs = {(m["id"], h["id"]) for m in form["models"] for h in form["hardware"]}
    assert set(exports) == {CHECKER_DATA_PATH, CONFIGURATOR_DATA_PATH} | {
        f"{CONFIGURATOR_ANSWERS_DIR}/{model}/{gpu}.json" for model, gpu in pairs
    }
    default = form["default_choice"]
    assert configurator.configure(default)["status"] == "recipe"
    for model, gpu in [("qwen3.5-397b-a17b", "h200"), ("glm-5.3", "h100"), ("deepseek-v4-pro", "mi355x")]:
        answers = json.loads(exports[f"{CONFIGURATOR_ANSWERS_DIR}/{model}/{gpu}.json"]())
        choices = configurator.choices(model, gpu)
        assert sorted(answers["keys"]) == sorted(choice_key(c) for c in choices)
        for picked in choices[:: max(1, len(choices) // 40)]:
            stored = answers["results"][answers["keys"][choice_key(picked)]]
            expected = configurator.configure(picked)
            assert [answers["texts"][i] for i in stored["why"]] == expected["why"]
            assert [answers["texts"][i] for i in stored["notes"]] == expected["notes"]
            assert answers["texts"][stored["headline"]] == expected["headline"]
            assert [answers["commands"][i] for i in stored["commands"]] == expected["commands"]
            assert stored["status"] == expected["status"] and stored["alternative"] == expected["alternative"]


def test_what_the_pages_load_of_their_own_stays_small(configurator):
    """The configurator page loads doctor.js, its style, the form's data and one pair's answers at a time."""

    def gz(data: bytes) -> int:
        return len(gzip.compress(data, compresslevel=6, mtime=0))

    assets = DOCS_DIR / "assets"
    own = sum(gz((assets / name).read_bytes()) for name in ("doctor.js", "doctor.css"))
    assert not (assets / "configure.js").exists()  # no second runtime of the configurator's logic
    form = gz(json.dumps(configurator.form()).encode())
    largest = max(
        gz(json.dumps(configurator.answers(m, g)).encode())
        for m, g in [("qwen3.5-397b-a17b", "h200"), ("deepseek-v4-pro", "mi355x"), ("glm-5.3", "mi355x")]
    )
    assert own < 25_000 and form < 10_000 and largest < 80_000, (own, form, largest)


# ------------------------------------------------------------------------------------------ the command line
def test_the_command_line_prints_the_pages_commands_and_reasons(capsys):
    args = ["configure", "--model", "qwen3.5-397b-a17b", "--gpu", "h100", "--precision", "fp8"]
    args += ["--gpus", "8", "--context", "131072"]
    assert main([*args, "--goal", "low-latency", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "  --tp-size 8 \\\n  --context-length 131072 \\\n  --max-running-requests 8 \\\n" in out
    assert "  --max-running-requests 8: chapter 07, “Low-latency chat”: Small batches lower ITL" in out
    assert "Checked against sglang 0.5.23: no problems" in out
    assert "context=131072" in out
    assert main([*args, "--goal", "low-latency", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = Configurator(KB, SNAPSHOT).configure(
        choice("qwen3.5-397b-a17b", "h100", "fp8", "low-latency", context=131_072)
    )
    assert printed == expected


def test_the_command_line_refuses_with_exit_1_and_rejects_bad_input_with_exit_2(capsys):
    base = ["configure", "--gpu", "h100", "--goal", "balanced"]
    assert main([*base, "--model", "glm-5.3", "--lang", "en"]) == 1
    assert "✖ Not in this KB: no source of this KB names any precision of GLM-5.3 on NVIDIA H100" in (
        capsys.readouterr().out
    )
    assert main([*base, "--model", "qwen3.5-397b", "--precision", "fp8", "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert "unknown model 'qwen3.5-397b' (did you mean 'qwen3.5-397b-a17b'?)" in err
    assert main([*base, "--model", "gpt-oss-120b", "--precision", "mxfp4", "--pd", "--lang", "en"]) == 2
    assert (
        "the KB has no PD-disaggregation command for gpt-oss-120b (it has them for: deepseek-v3, deepseek-v4-pro)"
        in (capsys.readouterr().err)
    )
