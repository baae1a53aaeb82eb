"""A server recipe's gpus and nodes against its command (handbook.calc.placement, the recipe-placement
check), and the production pack's pods, which split a multi-node server by the same facts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from handbook.calc.placement import gpus_per_node, placement
from handbook.engine import load_snapshot
from handbook.kb.loader import load_kb
from handbook.production.deployments import deployments
from handbook.validation.placement import placement_problems

REPO = Path(__file__).resolve().parents[1]
ATTN_DP = "recipes/deepseek-v3-attn-dp-multinode.yaml"
PD_PREFILL = "recipes/deepseek-v3-pd-prefill.yaml"
LARGEST = "a node holds at most 8: kb/hardware gpus_per_node of b200, h100, h200, mi300x, mi350x, mi355x"


def kb_copy(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """The repository's KB with ``old`` replaced by ``new`` once in each named file."""
    root = tmp_path / "kb"
    shutil.copytree(REPO / "kb", root, ignore=shutil.ignore_patterns("engine"))
    for name, (old, new) in edits.items():
        path = root / name
        text = path.read_text(encoding="utf-8")
        assert text.count(old) == 1, (name, old)
        path.write_text(text.replace(old, new), encoding="utf-8")
    return root


def line_of(root: Path, name: str, text: str) -> int:
    return (root / name).read_text(encoding="utf-8").splitlines().index(text) + 1


def test_every_recipe_of_the_kb_places_as_its_command_says():
    assert placement_problems(load_kb()) == []


@pytest.mark.parametrize(
    ("name", "old", "new", "expected"),
    [
        (ATTN_DP, "nodes: 2\n", "", f"{ATTN_DP}:1: nodes: got 1, expected 2 (the command's 16 GPUs, --tp-size 16; {LARGEST})"),
        (ATTN_DP, "gpus: 16\n", "gpus: 8\n", f"{ATTN_DP}:6: gpus: got 8, expected 16 (--tp-size 16)"),
        (
            ATTN_DP,
            "nodes: 2\n",
            "nodes: 3\n",
            f"{ATTN_DP}:10: nodes: got 3, expected a number of nodes that divides the command's 16 GPUs (--tp-size 16)",
        ),
        (
            ATTN_DP,
            "  - --tp-size 16\n",
            "  - --tp-size 16 --pp-size 2\n",
            f"{ATTN_DP}:6: gpus: got 16, expected 32 (--tp-size 16 × --pp-size 2)\n"
            f"{ATTN_DP}:10: nodes: got 2, expected 4 (the command's 32 GPUs, --tp-size 16 × --pp-size 2; {LARGEST})",
        ),
        (PD_PREFILL, "nodes: 2\n", "nodes: 1\n", f"{PD_PREFILL}:9: nodes: got 1, expected 2 (the command's --nnodes)"),
    ],
)  # fmt: skip
def test_a_recipe_whose_gpus_or_nodes_disagree_with_its_command_is_a_located_problem(
    tmp_path, name, old, new, expected
):
    root = kb_copy(tmp_path, {name: (old, new)})
    problems = [str(p).removeprefix("kb/") for p in placement_problems(load_kb(root))]
    assert problems == expected.split("\n")


@pytest.mark.parametrize(
    ("flags", "gpus", "nnodes"),
    [
        (["--tp-size 8", "--dp-size 2"], 16, None),  # dp replicas: dp × tp
        (["--tp 8", "--dp-size 2", "--enable-dp-attention"], 8, None),  # attention DP inside the TP group
        (["--tp-size 8", "--attn-dp-size 8", "--dp-size 1"], 8, None),
        (["--tp-size 4", "--pp-size 2", "--nnodes 2"], 8, 2),
        (["--model-path m"], 1, None),  # the engine's defaults: one GPU
    ],
)
def test_the_gpus_a_command_spans_follow_the_engines_world_size(flags, gpus, nnodes):
    kb = load_kb()
    recipe = kb.recipes["deepseek-v3-attn-dp-multinode"].model_copy(update={"flags": flags})
    placed = placement(kb, recipe)
    assert placed is not None and (placed.gpus, placed.nnodes) == (gpus, nnodes)


def test_a_size_that_is_a_placeholder_places_nothing():
    kb = load_kb()
    recipe = kb.recipes["deepseek-v3-attn-dp-multinode"].model_copy(update={"flags": ["--tp-size ${TP}"]})
    assert placement(kb, recipe) is None


def test_gpus_per_node_come_from_the_hardware_or_the_recipes_own_gpus_over_nodes():
    kb = load_kb()
    recipes = kb.recipes
    assert gpus_per_node(kb, recipes["deepseek-v3-attn-dp-multinode"]) == 16 // 2  # no hardware: gpus / nodes
    assert gpus_per_node(kb, recipes["llama-3.1-8b-pd-prefill"]) is None  # one node, no hardware: not stated
    one_node = recipes["deepseek-v3-attn-dp-multinode"].model_copy(update={"nodes": 1})
    assert gpus_per_node(kb, one_node) is None  # never a number no source gives


def test_a_multi_node_server_of_no_named_hardware_is_split_by_its_own_gpus_and_nodes(tmp_path):
    # 32 GPUs on 2 nodes, no hardware named: 2 pods of 16, with no per-node count chosen for the reader
    root = kb_copy(tmp_path, {ATTN_DP: ("gpus: 16\n", "gpus: 32\n")})
    root_engine = root / "engine"
    shutil.copytree(REPO / "kb" / "engine", root_engine)
    kb = load_kb(root)
    kb.recipes["deepseek-v3-attn-dp-multinode"].flags[1] = "--tp-size 32"
    by_id = {d.id: d for d in deployments(kb, load_snapshot("0.5.23"))}
    (server,) = by_id["deepseek-v3-attn-dp-multinode"].workloads
    assert (server.nodes, server.gpus_per_pod) == (2, 16)
    assert [c.reason for c in server.changes] == [
        "prod-change-host",
        "prod-change-multinode",
        "prod-change-metrics",
        "prod-change-gpu-vendor",  # no hardware named: the NVIDIA image, said so
    ]
