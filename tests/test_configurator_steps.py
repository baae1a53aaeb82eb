"""The configurator's planner path step by step, at each decision's edge: the context against the model's
native one, the planner's TP against the GPUs chosen (one instance or two for PD, one node or several), the
flags each role's command adds. The planner's auto TP is fixed here (``FixedTp``), so that only the fitting
is under test; tests/test_planner_memory.py tests the auto TP itself, tests/test_configurator.py every
combination the page offers."""

from __future__ import annotations

import pytest

from handbook.calc.configure import Composer, PlannerTp, Refusal, configurator_data
from handbook.core.messages import message
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb

KB = load_kb()
DATA = configurator_data(KB, load_snapshot())


class FixedTp:
    """A planner whose auto TP is given (None: it does not take the settings), and which lacks ``missing``."""

    def __init__(self, tp: int | None, basis: str = "headroom", missing: dict | None = None):
        self.tp, self.basis, self.missing = tp, basis, missing or {}
        self.asked = []

    def auto(self, model, hw, dtype, settings):
        self.asked.append(settings)
        return None if self.tp is None else [self.tp, self.basis]

    def record(self, model, hw, dtype, tp, ep, settings):
        return {"missing": self.missing}


def composer(planner=None) -> Composer:
    return Composer(KB, DATA, planner or FixedTp(8))


def choice(context=131_072, gpus=8, nodes=1, pd=False) -> dict:
    return {"context": context, "gpus": gpus, "nodes": nodes, "pd": pd}


def fit(tp, gpus, nodes, pd=False, model="gpt-oss-120b", basis="headroom", context=131_072):
    c = composer(FixedTp(tp, basis))
    m = c.models[model]
    return c._planner_tp(
        choice(context, gpus, nodes, pd), m, c.hardware["h100"], m["precisions"][0], c.goals["balanced"]
    )


# ------------------------------------------------------------------------------------------- context
@pytest.mark.parametrize("context", [8192, 131_071, 131_072])
def test_a_context_up_to_the_native_one_is_served(context):
    c = composer()
    assert c._context_refusal(choice(context), c.models["gpt-oss-120b"]) is None  # native 131,072


def test_one_token_beyond_the_native_context_is_refused_with_the_native_one_offered():
    c = composer()
    refused = c._context_refusal(choice(131_073), c.models["gpt-oss-120b"])
    values = {"context": "131,073", "model": "gpt-oss-120b", "native": "131,072"}
    assert refused == Refusal("cfg-refused-context", values, {"context": 131_072})


def test_a_model_with_a_long_context_command_points_at_it():
    c = composer()
    refused = c._context_refusal(choice(262_145), c.models["qwen3.5-397b-a17b"])  # native 262,144
    assert (refused.key, refused.alternative) == ("cfg-refused-context-recipe", {"context": 262_144})
    assert (refused.values["native"], refused.values["title"].en) == ("262,144", "Long context")


def test_a_model_without_a_native_context_is_never_refused_for_its_length():
    c = composer()
    assert c.models["deepseek-v3"]["native"] is None
    assert c._context_refusal(choice(1_048_576), c.models["deepseek-v3"]) is None


# ------------------------------------------------------------------------------------------- TP
@pytest.mark.parametrize(
    ("tp", "gpus", "nodes", "pd", "fitted", "span"),
    [
        (1, 1, 1, False, 1, 1),
        (8, 8, 1, False, 8, 1),  # TP equal to the node's GPUs: one node
        (8, 8, 2, True, 8, 1),  # two instances of 8 on 2 × 8
        (8, 4, 2, False, 8, 2),  # one GPU more than a node holds: ⌈8 / 4⌉ = 2 nodes
        (2, 1, 2, False, 2, 2),
        (16, 8, 2, False, 16, 2),
        (8, 2, 4, False, 8, 4),
        (4, 3, 2, False, 6, 2),  # ⌈4 / 3⌉ = 2 nodes, all of each node's GPUs: TP 6
    ],
)
def test_the_tp_fits_the_gpus_chosen_one_node_or_whole_nodes(tp, gpus, nodes, pd, fitted, span):
    found = fit(tp, gpus, nodes, pd)
    assert isinstance(found, PlannerTp)
    assert (found.tp, found.span, found.basis) == (fitted, span, "headroom")
    if span == 1:
        assert found.why == message("cfg-why-tp", context="131,072")
    else:
        assert found.why == message("cfg-why-tp-nodes", nodes=span, gpus=gpus, context="131,072")


@pytest.mark.parametrize(
    ("tp", "gpus", "nodes", "pd", "need", "alternative"),
    [
        (8, 4, 1, False, 2, {"gpus": 8}),  # ⌈8 / 4⌉ nodes, or 8 GPUs in the one node (H100: up to 8)
        (8, 8, 1, True, 2, {"nodes": 2}),  # 2 × 8 > 8: no node holds 16, two nodes do
        (16, 8, 1, True, 4, {"nodes": 4}),  # 2 × 16 = 32 GPUs: ⌈32 / 8⌉ = 4 nodes
        (9, 8, 1, False, 2, {"nodes": 2}),  # one GPU over
        (64, 8, 4, True, 16, None),  # 128 GPUs: more nodes than the form offers
    ],
)
def test_a_tp_beyond_the_gpus_is_refused_with_the_nearest_choice_that_holds_it(
    tp, gpus, nodes, pd, need, alternative
):
    found = fit(tp, gpus, nodes, pd)
    assert isinstance(found, Refusal)
    assert (found.key, found.values["need"], found.alternative) == ("cfg-refused-gpus", need, alternative)
    assert (found.values["tp"], found.values["instances"]) == (tp, 2 if pd else 1)


def test_whole_nodes_that_make_a_tp_the_model_refuses_are_refused():
    # Qwen3.8 Flash Next: 24 heads, TP 16 does not divide them; TP 8 on one node is never checked here
    # (the planner's own TP is one the engine accepts), the TP that whole nodes round up to is
    refused = fit(16, 8, 2, model="qwen3.8-flash-next", context=262_144)
    assert refused == Refusal(
        "cfg-refused-layout", {"nodes": 2, "tp": 16, "model": "Qwen3.8-Flash-Next", "heads": 24}
    )
    assert isinstance(fit(8, 8, 1, model="qwen3.8-flash-next", context=262_144), PlannerTp)


@pytest.mark.parametrize(("context", "smaller"), [(8192, None), (32_768, {"context": 8192})])
def test_no_tp_that_fits_offers_the_smallest_context_unless_it_is_the_one_chosen(context, smaller):
    found = fit(64, 8, 1, basis="none-fits", context=context)
    assert (found.key, found.alternative) == ("cfg-refused-none-fits", smaller)


def test_a_tp_sized_on_the_weights_alone_says_so():
    found = fit(8, 8, 1, basis="weights-only")
    assert (found.tp, found.why) == (8, message("cfg-why-tp-weights-only", context="131,072"))


@pytest.mark.parametrize(
    ("missing", "key", "values"),
    [
        ({"memory": ["memory_gb"]}, "cfg-refused-memory", {"gpu": "NVIDIA H100", "fields": "memory_gb"}),
        (
            {"weights": ["params.total_b"]},
            "cfg-refused-weights",
            {"model": "gpt-oss-120b", "fields": "params.total_b"},
        ),
        ({}, "cfg-refused-weights", {"model": "gpt-oss-120b", "fields": ""}),
    ],
)
def test_an_unknown_tp_names_what_the_planner_lacks(missing, key, values):
    c = composer(FixedTp(1, "unknown", missing))
    m = c.models["gpt-oss-120b"]
    found = c._planner_tp(choice(), m, c.hardware["h100"], m["precisions"][0], c.goals["balanced"])
    assert found == Refusal(key, values)


def test_settings_the_planner_does_not_take_are_refused():
    c = composer(FixedTp(None))
    m = c.models["gpt-oss-120b"]
    found = c._planner_tp(choice(), m, c.hardware["h100"], m["precisions"][0], c.goals["balanced"])
    assert found.key == "cfg-refused-settings"


@pytest.mark.parametrize(("context", "asked"), [(131_072, ""), (131_071, "131071"), (8192, "8192")])
def test_the_context_reaches_the_planner_only_when_it_is_not_the_native_one(context, asked):
    planner = FixedTp(8)
    c = composer(planner)
    m = c.models["gpt-oss-120b"]
    c._planner_tp(choice(context), m, c.hardware["h100"], m["precisions"][0], c.goals["balanced"])
    assert planner.asked[0].context == asked


# ------------------------------------------------------------------------------------------- commands
BASE = [["--model-path org/model", [["--model-path", ["org/model"]]]]]


def role_lines(role: str, span: int) -> list[str]:
    c = composer()
    command = c._role_command(role, BASE, [message("cfg-why-router")], span)
    return [line["text"] for line in command["lines"]]


@pytest.mark.parametrize(
    ("role", "span", "lines"),
    [
        ("standalone", 1, ["--model-path org/model"]),
        (
            "standalone",
            2,
            [
                "--model-path org/model",
                "--nnodes 2",
                "--node-rank <node-rank>",
                "--dist-init-addr <master-ip>:5000",
            ],
        ),
        (
            "prefill",
            1,
            [
                "--model-path org/model",
                "--disaggregation-mode prefill",
                "--disaggregation-ib-device <ib-device>",
                "--host <prefill-ip>",
                "--port 30000",
            ],
        ),
        (
            "decode",
            2,
            [
                "--model-path org/model",
                "--nnodes 2",
                "--node-rank <node-rank>",
                "--dist-init-addr <decode-master-ip>:5000",
                "--disaggregation-mode decode",
                "--disaggregation-ib-device <ib-device>",
                "--host <decode-ip>",
                "--port 30001",
            ],
        ),
    ],
)
def test_each_role_adds_the_multi_node_and_pd_flags_it_needs(role, span, lines):
    assert role_lines(role, span) == lines


def test_the_router_has_its_own_lines_whatever_the_span():
    assert role_lines("router", 1) == role_lines("router", 4) == [line[0] for line in DATA["router_lines"]]
