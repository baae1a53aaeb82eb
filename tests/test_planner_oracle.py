"""The planner against SGLang 0.5.23's own sizing, run on the CPU by ``nox -s engine-sizing``.

tests/golden/sizing-0.5.23.json holds, for every KB model × H100/H200/B200/B300/MI300X/MI355X × TP 1-8 ×
BF16/FP8 KV and two sets of inputs (the engine's defaults; --mem-fraction-static 0.85 with the vendor's GB
free), what the wheel's own code computed (handbook/oracles/sizing.py). Where the engine needed no field the
KB lacks, the planner must give the same figures (tokens within 0.1 %, the rest exactly); where it did, the
planner must say its figure is an upper bound and the bound must hold. The golden file must also still
describe the KB: each record carries a digest of the inputs it was computed from.
"""

from __future__ import annotations

import functools
import itertools
import json

import pytest

from handbook.calc import memory
from handbook.core.paths import REPO_ROOT
from handbook.kb.loader import load_kb
from handbook.oracles import sizing as oracle

BASE = load_kb()
# the KB and the public configs it does not ship (tests/fixtures/extra-configs), imported as
# `new model --from-config` imports them
KB = oracle.with_extras(BASE, REPO_ROOT / oracle.EXTRA_CONFIGS)
EXTRAS = [m for m in KB.models if m not in BASE.models]
GOLDEN = REPO_ROOT / "tests" / "golden" / "sizing-0.5.23.json"
REGENERATE = "nox -s engine-sizing"
RECORDS = json.loads(GOLDEN.read_text(encoding="utf-8"))["records"]
# What each field the oracle reports missing makes of the planner's figure: an upper bound (its reason), or
# a field the planner reports as not published.
NEEDS = {
    "config.architectures": "architecture",
    "config.mamba_ssm_dtype": "state-dtype",
    "config.vision_config": "vision-config",
    "config.index_head_dim": "indexer",
    "config.index_topk_freq": "indexer",
    "config.index_skip_topk_offset": "indexer",
    "params.total_b": "weights",
}


@functools.cache
def config(model_id: str) -> dict | None:
    return oracle.build_config(KB, model_id)


def planned(record: dict) -> memory.Plan:
    """The planner's plan for the record's inputs, as a user sets them (the CLI's options)."""
    case = record["inputs"]
    given = case["variant"] == "given"
    return memory.plan(
        KB.models[case["model"]],
        KB.hardware[case["hw"]],
        KB.dtypes[case["weights_dtype"]],
        KB.dtypes[case["kv"]],
        case["tp"],
        context=case["context"],
        mem_fraction_static=case["mem_fraction_static"],
        free_gib=case["free_before_load_gib"] if given else None,
    )


def by_status(status: str) -> list[dict]:
    return [r for r in RECORDS if r["status"] == status]


def label(record: dict) -> str:
    case = record["inputs"]
    return f"{case['variant']}:{case['model']}:{case['hw']}:tp{case['tp']}:{case['kv']}"


def test_the_golden_covers_every_model_accelerator_tp_and_kv_dtype():
    seen = sorted(
        (
            r["inputs"]["model"],
            r["inputs"]["hw"],
            r["inputs"]["tp"],
            r["inputs"]["kv"],
            r["inputs"]["variant"],
        )
        for r in RECORDS
    )
    expected = sorted(
        [
            *itertools.product(BASE.models, oracle.HW_IDS, oracle.TPS, oracle.KV_IDS, oracle.VARIANTS),
            *itertools.product(EXTRAS, oracle.EXTRA_HW_IDS, oracle.EXTRA_TPS, oracle.KV_IDS, oracle.VARIANTS),
        ]
    )
    assert seen == expected, f"the golden file does not cover the KB: run `{REGENERATE}`"
    assert not by_status("engine-error")


def test_the_golden_still_describes_the_kb():
    stale = []
    for record in RECORDS:
        case = record["inputs"]
        fresh = oracle.make_case(KB, case["model"], case["hw"], case["tp"], case["kv"], case["variant"])
        if oracle.digest_of(config(case["model"]), fresh) != record["digest"]:
            stale.append(label(record))
    assert stale == [], (
        f"{len(stale)} golden records were computed from inputs the KB no longer has "
        f"(first: {stale[:3]}); regenerate them with `{REGENERATE}`"
    )


@pytest.mark.parametrize("record", by_status("exact"), ids=label)
def test_the_planner_equals_the_engine_wherever_the_kb_has_every_input(record):
    engine, p = record["engine"], planned(record)
    assert p.bounds == () and p.missing == {}
    assert p.mem_fraction_static == pytest.approx(engine["mem_fraction_static"], rel=1e-12, abs=0)
    assert (p.page_size, p.attention_backend) == (engine["page_size"], engine["attention_backend"])
    # the engine's cell is the main pool's row: full layers (+ indexer), the SWA share in its own pool
    cell = p.kv_cell_per_gpu + p.indexer_bytes_per_token
    if p.swa_cell_per_gpu:
        cell = p.pool_bytes_per_token
    assert cell == engine["cell_bytes_per_token"]
    if "state_bytes_per_request" in engine:
        assert p.state_bytes_per_request == engine["state_bytes_per_request"]
        assert p.state_slots == engine["max_mamba_cache_size"]
    assert p.max_tokens == pytest.approx(engine["max_total_num_tokens"], rel=1e-3, abs=0)
    assert p.max_running_requests == engine["max_running_requests"]
    if engine.get("swa_max_total_num_tokens") is not None:
        assert p.swa_tokens == engine["swa_max_total_num_tokens"]


@pytest.mark.parametrize("record", by_status("does-not-fit"), ids=label)
def test_the_planner_refuses_where_the_engine_does(record):
    p = planned(record)
    assert p.bounds == ()
    assert p.refused and p.max_tokens == 0 and p.fits is False


def test_the_engine_accepts_every_kv_dtype_as_the_planner_spells_it():
    """DeepSeek-V4's hook asserts --kv-cache-dtype is fp8_e4m3 or bfloat16 (`bf16` stops launch_server): the
    golden cases run with the planner's spelling, so none is refused and no plan notes a refusal."""
    assert by_status("refuses-arguments") == []
    v4_bf16 = [r for r in RECORDS if (r["inputs"]["model"], r["inputs"]["kv"]) == ("deepseek-v4-pro", "bf16")]
    assert v4_bf16 and {r["inputs"]["kv_engine"] for r in v4_bf16} == {"bfloat16"}
    assert [label(r) for r in RECORDS if "kv-dtype-refused" in planned(r).notes] == []


@pytest.mark.parametrize("record", by_status("needs-field"), ids=label)
def test_where_the_kb_lacks_a_field_the_planner_says_upper_bound_and_it_holds(record):
    p, engine = planned(record), record.get("engine", {})
    for need in record["needs"]:
        reason = "reported-memory" if need.startswith("hardware.") else NEEDS[need]
        if reason == "weights":
            assert p.missing.get("weights") == ("params.total_b",)
        elif reason == "indexer" and "kv" in p.missing:
            pass  # no MLA dimensions either: the KV itself is not in this KB
        elif reason == "architecture" and p.max_tokens is None:
            assert p.missing, "no architecture: either a bound or a figure said to be not published"
        else:
            assert reason in p.bounds, (need, p.bounds)
    if "max_total_num_tokens" in engine and p.max_tokens is not None:
        assert p.bounds and "max-tokens" in p.bounded
        assert p.max_tokens >= engine["max_total_num_tokens"]
        assert p.max_running_requests >= engine["max_running_requests"]
    if p.mem_fraction_static is not None and "mem_fraction_static" in engine:
        assert p.mem_fraction_static >= engine["mem_fraction_static"] - 1e-12


def engine_tokens(record: dict) -> int | None:
    """The engine's token figure for a record: its pool, 0 where it refused to start, None where it did not
    get that far (no architecture, no weights)."""
    engine = record.get("engine", {})
    if "max_total_num_tokens" in engine:
        return engine["max_total_num_tokens"]
    return 0 if "refuses" in engine else None


@pytest.mark.parametrize("record", by_status("needs-field"), ids=label)
def test_where_the_kb_lacks_a_field_the_engine_lies_within_the_stated_range(record):
    """Bounds hold, and none is looser than stated: the engine, run with its own default for the missing
    field, lies between the planner's other extreme and its bound, unless the planner says the other extreme
    is not provable."""
    p, tokens = planned(record), engine_tokens(record)
    if p.max_tokens is None or tokens is None:
        return
    assert p.bounds and (p.unproven or p.tokens_lower is not None)
    if not p.unproven:
        assert p.tokens_lower <= tokens <= p.max_tokens, (p.tokens_lower, tokens, p.max_tokens, p.loose)


def test_the_stated_ranges_meet_the_engine_on_every_kind_of_bound_it_can_check():
    """The range test above is not empty: it meets the engine where the encoder's size and where the state's
    dtype is unknown, on pools the engine sized and on starts it refused."""
    checked = [r for r in by_status("needs-field") if engine_tokens(r) is not None]
    checked = [(r, planned(r)) for r in checked]
    ranged = [(r, p) for r, p in checked if p.max_tokens is not None and not p.unproven]
    assert {p.loose for _, p in ranged} == {("vision-config",), ("state-dtype",)}
    assert any(engine_tokens(r) == 0 for r, _ in ranged) and any(engine_tokens(r) > 0 for r, _ in ranged)
    assert len(ranged) >= 100


def test_every_case_the_kb_publishes_is_golden_exact_somewhere():
    """The exact set is not empty for any model whose inputs are all published, on any accelerator whose
    reported memory is."""
    exact = {
        (r["inputs"]["model"], r["inputs"]["hw"])
        for r in by_status("exact")
        if r["inputs"]["variant"] == "engine-default"
    }
    for model_id in ("llama-3.1-8b", "deepseek-v3", "glm-5.3", "gpt-oss-120b"):
        for hw_id in ("h100", "h200", "b200", "mi300x"):
            fits = [
                r
                for r in RECORDS
                if (r["inputs"]["model"], r["inputs"]["hw"]) == (model_id, hw_id)
                and r["status"] != "does-not-fit"
            ]
            if fits:
                assert (model_id, hw_id) in exact


def test_a_changed_kb_field_makes_the_golden_stale():
    """The freshness check can fail: another index_head_dim gives another config.json, hence another digest."""
    import dataclasses

    glm = KB.models["glm-5.3"]
    changed = glm.model_copy(update={"config": glm.config.model_copy(update={"index_head_dim": 64})})
    kb = dataclasses.replace(KB, models={**KB.models, "glm-5.3": changed})
    record = next(r for r in RECORDS if r["inputs"]["model"] == "glm-5.3")
    case = record["inputs"]
    fresh = oracle.make_case(kb, case["model"], case["hw"], case["tp"], case["kv"], case["variant"])
    assert oracle.digest_of(oracle.build_config(kb, "glm-5.3"), fresh) != record["digest"]
    assert oracle.digest_of(config("glm-5.3"), fresh) == record["digest"]


def test_the_extra_configs_cover_the_families_and_plan_like_the_engine():
    """Six public models of other families, imported like a contributor's, one golden record each at least;
    their files give every input (the weights by the architecture formulas, handbook.calc.params), so every
    case is exact or refused as the engine refuses it: none is left an upper bound."""
    assert (
        sorted(EXTRAS)
        == [
            "gemma-3-27b-it",  # sliding window (one pool: not a hybrid-SWA architecture), multimodal off by default
            "mixtral-8x7b",  # MoE GQA
            "qwen2.5-7b",  # dense GQA
            "qwen2.5-vl-7b",  # multimodal
            "qwen3-30b-a3b",  # MoE GQA
            "qwen3-next-80b-a3b",  # hybrid linear
        ]
    )
    exact = {r["inputs"]["model"] for r in by_status("exact")}
    assert set(EXTRAS) <= exact
    statuses = {r["status"] for r in RECORDS if r["inputs"]["model"] in EXTRAS}
    assert statuses == {"exact", "does-not-fit"}
