"""The diagrams: DOT built from kb/ (fixture and real KB), the committed SVGs' freshness with and without
graphviz, the command line, the site build's use of them, and the kb:figure renderer.

Expected values are read from the YAML files directly (not through the package) and computed here.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from handbook.core.paths import REPO_ROOT
from handbook.diagrams import budget, files, pd, topologies
from handbook.diagrams.catalogue import catalogue
from handbook.diagrams.dot import DiagramError
from handbook.diagrams.figure import source_hash
from handbook.kb.loader import load_kb
from handbook.render import renderers  # noqa: F401 - registers kb:figure
from handbook.render.context import RenderContext, esc
from handbook.render.markers import MarkerErrors, RenderError, render_page

FIXTURES = Path(__file__).parent / "fixtures"
KB = load_kb()
FIGURES = catalogue(KB)
TOPOLOGY_IDS = ["attn-tp4-routed-tp4", "attn-tp4-routed-ep4", "attn-dp4-routed-tp4", "attn-dp4-routed-ep4"]
FAKE_SVG = (
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>\n'
)


def raw(rel: str) -> dict:
    return yaml.safe_load((REPO_ROOT / "kb" / rel).read_text(encoding="utf-8"))


def node_lines(dot: str, name: str) -> list[str]:
    """The text lines of one node's HTML-like label."""
    match = re.search(rf'^\s*"?{re.escape(name)}"? \[label=<(.*)>\]$', dot, re.M)
    assert match, f"no node {name} in the DOT"
    return [html.unescape(t) for t in re.split(r"<[^>]+>", match.group(1)) if t.strip()]


def edges(dot: str) -> list[str]:
    return [line.strip() for line in dot.splitlines() if " -> " in line and "style=invis" not in line]


def edge_labels(dot: str) -> list[tuple[str, str | None]]:
    """(``a -> b``, the text of its label) of every visible edge."""
    out = []
    for line in edges(dot):
        label = re.search(r"label=<(<TABLE.*</TABLE>)>", line)
        text = "".join(html.unescape(t) for t in re.split(r"<[^>]+>", label.group(1))) if label else None
        out.append((line.split(" [")[0], text))
    return out


def kb_copy(tmp_path: Path, source: Path = REPO_ROOT / "kb") -> Path:
    kb = tmp_path / "kb"
    shutil.copytree(source, kb)
    return kb


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# ------------------------------------------------------------------------------------------ topologies
def test_topology_b_gives_each_gpu_two_kv_heads_and_a_quarter_of_the_experts():
    data = raw("topologies.yaml")
    b = next(t for t in data["topologies"] if t["letter"] == "B")
    per_gpu = data["example_num_key_value_heads"] // b["gpus"]
    assert per_gpu == 2  # chapter 05's caption: "TP4 每卡 2 个 KV head"
    ranges = ["0 … E/4−1", "E/4 … 2E/4−1", "2E/4 … 3E/4−1", "3E/4 … E−1"]
    figure = FIGURES[b["id"]]
    assert figure.path("zh") == "assets/topologies/sglang/topology-2.svg"
    assert figure.path("en") == "assets/topologies/sglang/en/topology-2.svg"
    zh, en = figure.drawings["zh"].dot, figure.drawings["en"].dot
    for n in range(b["gpus"]):
        first, last = n * per_gpu, n * per_gpu + per_gpu - 1
        assert node_lines(en, f"gpu{n}") == [
            f"GPU {n}",
            "Attention · TP4",
            "Query heads: H/4",
            f"KV: {per_gpu} KV heads (#{first}–#{last})",
            "of every request",
            "Shared expert (premise)",
            "Routed experts · EP4",
            "E/4 whole experts",
            f"ids {ranges[n]}",
        ]
        assert node_lines(zh, f"gpu{n}") == [
            f"GPU {n}",
            "注意力 · TP4",
            "query head：H/4",
            f"KV：{per_gpu} 个 KV head（#{first}–#{last}）",
            "所有请求",
            "共享专家（图示前提）",
            "路由专家 · EP4",
            "E/4 个完整专家",
            f"编号 {ranges[n]}",
        ]
    assert node_lines(en, "attention_bus") == ["All-reduce", "attention TP4, every layer"]
    assert node_lines(en, "experts_bus") == [
        "EP dispatch / combine (--moe-a2a-backend)",
        "deepep etc.: all-to-all, needs ep_size = tp_size",
        "default none: AllReduce / AllGather",
    ]
    assert node_lines(zh, "experts_bus") == [
        "EP 派发 / 合并（--moe-a2a-backend）",
        "deepep 等：all-to-all，要求 ep_size = tp_size",
        "默认 none：AllReduce / AllGather",
    ]


def test_topology_a_slices_every_expert_and_all_reduces_twice():
    dot = FIGURES["attn-tp4-routed-tp4"].drawings["en"].dot
    for n in range(4):
        lines = node_lines(dot, f"gpu{n}")
        assert lines[-3:] == ["Routed experts · TP4", "all E experts,", "a 1/4 slice of each"]
        assert lines[3] == f"KV: 2 KV heads (#{2 * n}–#{2 * n + 1})"
    assert node_lines(dot, "attention_bus") == ["All-reduce", "attention TP4, every layer"]
    assert node_lines(dot, "experts_bus") == ["All-reduce", "routed experts TP4, every layer"]
    assert edges(dot) == [f'attention_bus -> gpu{n}:n [color="#2563eb" dir=both]' for n in range(4)] + [
        f'gpu{n}:s -> experts_bus [color="#c2410c" dir=both]' for n in range(4)
    ]


@pytest.mark.parametrize("fid", ["attn-dp4-routed-tp4", "attn-dp4-routed-ep4"])
def test_attention_dp_keeps_the_kv_of_each_gpus_own_requests(fid):
    kv = raw("topologies.yaml")["example_num_key_value_heads"]
    dot = FIGURES[fid].drawings["en"].dot
    zh = FIGURES[fid].drawings["zh"].dot
    for n in range(4):
        assert node_lines(dot, f"gpu{n}")[1:5] == [
            f"Attention · DP group {n}",
            "Query heads: all H",
            f"KV: all {kv} KV heads",
            "of its own requests only",
        ]
        assert node_lines(zh, f"gpu{n}")[1:5] == [
            f"注意力 · DP 组 {n}",
            "query head：全部 H",
            f"KV：全部 {kv} 个 KV head",
            "仅本组请求",
        ]
        assert node_lines(dot, f"dp{n}") == [f"attention DP group {n}", "own scheduler, KV pool, queue"]
    assert "attention_bus" not in dot
    assert [e for e in edges(dot) if e.startswith("dp")] == [
        f'dp{n} -> gpu{n}:n [color="#2563eb"]' for n in range(4)
    ]


@pytest.mark.parametrize("fid", TOPOLOGY_IDS)
def test_every_topology_states_the_shared_expert_premise_and_the_symbols(fid):
    premise = raw("topologies.yaml")["shared_expert_premise"]
    for lang, join in (("zh", ""), ("en", " ")):
        notes = node_lines(FIGURES[fid].drawings[lang].dot, "notes")
        assert join.join(notes).endswith(premise[lang])
    assert node_lines(FIGURES[fid].drawings["en"].dot, "notes")[0].startswith(
        "GQA example with 8 KV heads; H is the number of query heads. E is the number of routed experts"
    )


def test_the_alt_text_carries_the_kbs_communication_and_premise():
    data = raw("topologies.yaml")
    d = next(t for t in data["topologies"] if t["letter"] == "D")
    alt = FIGURES[d["id"]].drawings["zh"].alt
    assert alt == (
        "SGLang · D · attention-DP4 + routed EP4：4 张 GPU。"
        "每张 GPU 保存 全部 H 个 query head 和 8 个 KV head，但只存本组请求的 KV，以及 E/4 个完整的路由专家。"
        + d["communication"]["zh"]
        + data["shared_expert_premise"]["zh"]
    )


def test_a_change_in_kb_topologies_changes_the_hash_and_the_picture(tmp_path):
    kb = kb_copy(tmp_path)
    replace_in(
        kb / "topologies.yaml",
        "example_num_key_value_heads: 8",
        "example_num_key_value_heads: 16\nexample_routed_experts: 64",
    )
    changed = catalogue(load_kb(kb))
    b = changed["attn-tp4-routed-ep4"]
    for lang in ("zh", "en"):
        assert b.source_hash(lang) != FIGURES["attn-tp4-routed-ep4"].source_hash(lang)
    assert node_lines(b.drawings["en"].dot, "gpu1")[3] == "KV: 4 KV heads (#4–#7)"
    assert node_lines(b.drawings["en"].dot, "gpu1")[-2:] == ["16 whole experts", "ids 16 … 31"]
    assert node_lines(changed["attn-tp4-routed-tp4"].drawings["en"].dot, "gpu0")[-2] == "all 64 experts,"
    # figures drawn from other data keep their hash
    for fid in ("architecture", "memory-budget", "llama-3.1-8b-pd-local"):
        assert changed[fid].source_hash("zh") == FIGURES[fid].source_hash("zh")


def test_the_hash_covers_the_dot_text_and_the_generator_version():
    figure = FIGURES["architecture"]
    assert figure.source_hash("en") == source_hash(figure.drawings["en"].dot)
    assert source_hash("digraph a {}") != source_hash("digraph b {}")
    import hashlib

    from handbook.diagrams import GENERATOR_VERSION

    expected = hashlib.sha256(f"handbook.diagrams {GENERATOR_VERSION}\ndigraph a {{}}".encode()).hexdigest()
    assert source_hash("digraph a {}") == expected


def test_topologies_from_the_fixture_kb():
    kb = load_kb(FIXTURES / "kb-mini")
    [figure] = topologies.figures(kb)
    assert (figure.id, figure.path("zh")) == ("sglang-a", "assets/topologies/sglang/topology-1.svg")
    dot = figure.drawings["en"].dot
    assert 'label=<<FONT POINT-SIZE="15"><B>SGLang · A · Attention TP4 + routed TP4</B></FONT>' in dot
    assert [node_lines(dot, f"gpu{n}")[3] for n in range(4)] == [
        "KV: 2 KV heads (#0–#1)",
        "KV: 2 KV heads (#2–#3)",
        "KV: 2 KV heads (#4–#5)",
        "KV: 2 KV heads (#6–#7)",
    ]
    assert node_lines(figure.drawings["zh"].dot, "notes")[-1] == "前提"


def test_a_topology_that_cannot_be_drawn_is_reported_with_file_and_line(tmp_path):
    kb = kb_copy(tmp_path, FIXTURES / "kb-mini")
    replace_in(kb / "topologies.yaml", "gpus: 4, layout: {attention: tp", "gpus: 8, layout: {attention: dp")
    with pytest.raises(DiagramError) as exc:
        topologies.figures(load_kb(kb))
    assert exc.value.problems == [
        "kb/topologies.yaml:6: topologies[0].gpus: got 8, expected 4 (the figure draws one TP group: --tp-size 4)",
        "kb/topologies.yaml:6: topologies[0].layout.attention: got 'dp', but the flags give --attn-dp-size 1",
    ]


def test_kv_heads_that_do_not_split_evenly_are_reported(tmp_path):
    kb = kb_copy(tmp_path, FIXTURES / "kb-mini")
    replace_in(kb / "topologies.yaml", "example_num_key_value_heads: 8", "example_num_key_value_heads: 6")
    with pytest.raises(DiagramError) as exc:
        topologies.figures(load_kb(kb))
    assert exc.value.problems == [
        "kb/topologies.yaml:3: example_num_key_value_heads: 6 KV heads do not split evenly over attention TP 4 (A)"
    ]


# ------------------------------------------------------------------------------------------ architecture
def test_architecture_from_the_fixture_kb():
    from handbook.diagrams import architecture

    figure, path = architecture.figures(load_kb(FIXTURES / "kb-mini"))
    assert path.id == "request-path" and node_lines(path.drawings["en"].dot, "stage1")[0] == "① Access"
    dot = figure.drawings["en"].dot
    assert node_lines(dot, "client") == ["Client"]
    assert node_lines(dot, "http") == ["HTTP Server", "· Tokenisation"]
    assert node_lines(dot, "scheduler") == ["Scheduler × TP", "· Scheduling"]
    assert edge_labels(dot) == [("client -> http", "① Access: HTTP"), ("http -> scheduler", "ZMQ")]
    assert (
        figure.drawings["zh"].alt
        == "SGLang 的进程与组件：客户端 (① 接入：HTTP) → HTTP Server（分词） (ZMQ) → Scheduler × TP（调度）"
    )


def test_architecture_from_the_real_kb_follows_chapter_03():
    data = raw("architecture.yaml")
    dot = FIGURES["architecture"].drawings["zh"].dot
    names = [
        "HTTP Server (FastAPI + uvicorn)",
        "Scheduler × (TP × DP × attn-dp)",
        "Model Runner × N",
    ]  # 03's boxes
    for component, name in zip(data["components"], names, strict=True):
        assert node_lines(dot, component["id"]) == [name] + [f"· {d['zh']}" for d in component["duties"]]
    first = data["stages"][0]
    assert f"① {first['name']['zh']}：{first['steps']['zh']}" in html.unescape(dot)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_request_path_names_each_stage_as_the_architecture_figure_does(lang):
    data = raw("architecture.yaml")
    path = FIGURES["request-path"].drawings[lang].dot
    marks = "①②③④⑤⑥⑦"
    for stage in data["stages"]:
        node = node_lines(path, f"stage{stage['number']}")
        flags = stage.get("flags") or ["—"]
        assert node == [f"{marks[stage['number'] - 1]} {stage['name'][lang]}", stage["steps"][lang], *flags]
    first = data["stages"][0]  # the architecture figure labels the client's link with the same words
    sep = "：" if lang == "zh" else ": "
    assert f"① {first['name'][lang]}{sep}{first['steps'][lang]}" in html.unescape(
        FIGURES["architecture"].drawings[lang].dot
    )
    assert [s["name"]["en"] for s in data["stages"]][3] == "Queueing and scheduling"


# ------------------------------------------------------------------------------------------ memory budget
def test_the_memory_bar_is_the_planners_plan_for_the_h200_command_drawn_to_scale():
    recipe = raw(f"recipes/{budget.RECIPE}.yaml")
    model = raw(f"models/{recipe['model']}.yaml")
    [hw_id] = recipe["hardware"]
    # one GPU's free memory before loading: the device-reported memory (kb/hardware memory_mib_reported)
    memory_mib = raw(f"hardware/{hw_id}.yaml")["memory_mib_reported"]
    bits = next(d["bits"] for d in raw("dtypes.yaml")["dtypes"] if d["id"] == recipe["precision"])
    tp = int(next(f.split()[1] for f in recipe["flags"] if f.startswith("--tp-size")))
    fraction = float(next(f.split()[1] for f in recipe["flags"] if f.startswith("--mem-fraction-static")))
    gpu = memory_mib * 2**20
    weights = model["params"]["total_b"] * 1e9 * bits / 8 / tp
    parts = [weights, gpu * fraction - weights, gpu * (1 - fraction)]
    assert [round(p / 2**30, 3) for p in parts] == [46.217, 73.124, 21.06]
    widths = [round(budget.BAR_PT * p / gpu) for p in parts[:2]]
    widths.append(budget.BAR_PT - sum(widths))
    figure = FIGURES["memory-budget"]
    dot = figure.drawings["zh"].dot
    assert [int(w) for w in re.findall(r'WIDTH="(\d+)" HEIGHT="58"', dot)] == widths == [230, 365, 105]
    assert node_lines(dot, "bar") == [
        "权重",
        "46.2 GiB",
        "KV 池",
        "（含线性注意力状态）",
        "73.1 GiB",
        "CUDA Graph",
        "与激活",
        "21.1 GiB",
        "mem_fraction_static 0.85 = 119 GiB",
        "其余",
        "21.1 GiB",
    ]
    assert figure.drawings["en"].caption == (
        "The memory budget of one NVIDIA H200 (140 GiB) under this site's command “H200 × 8, FP8, throughput "
        "first (text)” (Qwen3.5-397B-A17B, --tp-size 8, --mem-fraction-static 0.85), as the planner computes it: "
        "weights per GPU = 397B parameters × 1 byte per parameter (FP8 (E4M3), 8 bits) ÷ TP 8 = 46.2 GiB; "
        "KV pool = 140 GiB × 0.85 − "
        "weights = 73.1 GiB; the remaining 21.1 GiB is left for CUDA graphs and activations. The model's "
        "linear-attention layers also keep a per-request state pool, taken from the KV pool's "
        "part of the budget."
    )


def test_a_budget_command_the_planner_cannot_use_is_reported(tmp_path):
    kb = kb_copy(tmp_path)
    replace_in(kb / "recipes" / f"{budget.RECIPE}.yaml", "hardware: [h200]", "hardware: [h200, h100]")
    with pytest.raises(DiagramError) as exc:
        budget.figures(load_kb(kb))
    assert exc.value.problems == [
        f"kb/recipes/{budget.RECIPE}.yaml:8: hardware: the memory-budget figure needs one accelerator, "
        "got ['h200', 'h100']"
    ]


# ------------------------------------------------------------------------------------------ PD set-ups
def test_the_local_pd_setup_shows_roles_ports_and_the_routers_urls():
    prefill, decode, router = (
        raw(f"recipes/{r}.yaml")
        for r in ("llama-3.1-8b-pd-prefill", "llama-3.1-8b-pd-decode", "pd-router-local")
    )
    assert prefill["deployment"] == decode["deployment"] == router["deployment"] == "llama-3.1-8b-pd-local"
    placing = ("--port", "--host", "--base-gpu-id", "--disaggregation-ib-device")
    dot = FIGURES["llama-3.1-8b-pd-local"].drawings["en"].dot
    for name, recipe in (("prefill", prefill), ("decode", decode)):
        lines = node_lines(dot, name)
        assert lines[:3] == [
            f"{name.capitalize()} instance",
            "python -m sglang.launch_server",
            "meta-llama/Llama-3.1-8B-Instruct",
        ]
        assert lines[3:] == [f for f in recipe["flags"] if f.startswith(placing)]
    assert node_lines(dot, "router") == [
        "Router",
        "python -m sglang_router.launch_router",
        "--host 0.0.0.0 --port 8000",
    ]
    prefill_url = next(f for f in router["flags"] if f.startswith("--prefill "))
    decode_url = next(f for f in router["flags"] if f.startswith("--decode "))
    assert edge_labels(dot) == [
        ("client -> router", None),
        ("router -> prefill", prefill_url),
        ("router -> decode", decode_url),
        ("prefill -> decode", "KV cache transfer (Mooncake / NIXL)"),
    ]
    assert prefill_url == "--prefill http://127.0.0.1:30000" and "--port 30000" in prefill["flags"]


def test_the_two_node_pd_setup_has_no_router_because_the_handbook_gives_none():
    dot = FIGURES["deepseek-v3-pd-2node"].drawings["zh"].dot
    assert "router" not in dot and "client" not in dot
    assert node_lines(dot, "prefill")[:4] == [
        "Prefill（每节点都执行，node-rank 0/1）",
        "python -m sglang.launch_server",
        "deepseek-ai/DeepSeek-V3-0324",
        "2 个节点，共 16 张 GPU",
    ]
    assert node_lines(dot, "decode")[3:] == [
        "2 个节点，共 16 张 GPU",
        "--host ${local_ip} --port 30001",
        "--dist-init-addr ${decode_master_ip}:5000",
        "--nnodes 2 --node-rank 0",
        "--tp-size 16 --attn-dp-size 8",
    ]


def test_pd_deployments_are_the_kbs_deployment_ids():
    ids = sorted(
        {
            r["deployment"]
            for f in (REPO_ROOT / "kb" / "recipes").glob("*.yaml")
            if (r := yaml.safe_load(f.read_text())).get("deployment")
        }
    )
    assert (
        sorted(pd.deployments(KB))
        == ids
        == ["deepseek-v3-pd-2node", "deepseek-v4-pro-mi355x-1p1d", "llama-3.1-8b-pd-local"]
    )


def test_a_deployment_with_two_prefills_is_reported(tmp_path):
    kb = kb_copy(tmp_path)
    second = kb / "recipes" / "llama-3.1-8b-pd-prefill-2.yaml"
    second.write_text(
        (kb / "recipes" / "llama-3.1-8b-pd-prefill.yaml")
        .read_text()
        .replace("id: llama-3.1-8b-pd-prefill", "id: llama-3.1-8b-pd-prefill-2")
    )
    with pytest.raises(DiagramError) as exc:
        pd.figures(load_kb(kb))
    assert exc.value.problems == [
        "kb/recipes/llama-3.1-8b-pd-prefill-2.yaml:10: deployment: deployment llama-3.1-8b-pd-local has a prefill "
        "already (llama-3.1-8b-pd-prefill); the figure draws one per role"
    ]


# ------------------------------------------------------------------------------------------ freshness
def test_the_committed_svgs_match_the_data():
    stale = files.stale(FIGURES, REPO_ROOT)
    assert not stale, "stale diagrams:\n" + "\n".join(map(str, stale))


def test_every_committed_svg_is_stamped_for_its_figure_and_language():
    for figure in FIGURES.values():
        for lang in ("zh", "en"):
            svg = (REPO_ROOT / figure.path(lang)).read_text(encoding="utf-8")
            assert files.stamp_of(svg) == {
                "figure": figure.id,
                "lang": lang,
                "hash": figure.source_hash(lang),
                "generator": "2",
            }
            assert (
                'font-family="Noto Sans CJK SC,PingFang SC,Microsoft YaHei,WenQuanYi Micro Hei,sans-serif"'
                in svg
            )


@pytest.fixture
def fake_dot(tmp_path: Path) -> Path:
    """A stand-in for graphviz's dot: reads the DOT, prints a minimal SVG."""
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    dot = folder / "dot"
    # shell builtins only: the tests run it with a PATH that holds no graphviz (nor /usr/bin)
    dot.write_text(f"#!/bin/sh\nwhile IFS= read -r line; do :; done\nprintf '%s' '{FAKE_SVG}'\n")
    dot.chmod(0o755)
    return dot


def path_without_dot() -> str:
    return os.pathsep.join(
        d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not (Path(d) / "dot").exists()
    )


def test_rendering_stamps_each_svg_and_then_nothing_is_stale(tmp_path, fake_dot):
    root = tmp_path / "repo"
    root.mkdir()  # the repository exists; only the figures below it are written
    changed = files.write(FIGURES, root, str(fake_dot))
    assert sorted(changed) == sorted(f.path(lang) for f in FIGURES.values() for lang in ("zh", "en"))
    svg = (root / "assets/figures/en/architecture.svg").read_text()
    assert svg == (
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        f"<!-- handbook-diagram figure=architecture lang=en source-sha256={FIGURES['architecture'].source_hash('en')} generator=2 -->\n"
        "<!-- Generated by `python -m handbook generate` from kb/architecture.yaml: edit the data there, not this file. -->\n"
        '<svg xmlns="http://www.w3.org/2000/svg"/>\n'
    )
    assert files.stale(FIGURES, root) == []
    assert files.write(FIGURES, root, str(fake_dot)) == []  # nothing changed, nothing written


def test_stale_missing_unstamped_and_orphaned_svgs_each_name_their_fix(tmp_path, fake_dot):
    root = tmp_path / "repo"
    root.mkdir()  # the repository exists; only the figures below it are written
    files.write(FIGURES, root, str(fake_dot))
    (root / "assets/figures/memory-budget.svg").unlink()
    (root / "assets/figures/en/architecture.svg").write_text(FAKE_SVG)
    (root / "assets/figures/retired.svg").write_text(FAKE_SVG)
    kb = kb_copy(tmp_path)
    replace_in(kb / "topologies.yaml", "example_num_key_value_heads: 8", "example_num_key_value_heads: 16")
    changed = catalogue(load_kb(kb))
    assert [str(s) for s in files.stale(changed, root)] == [
        f"assets/topologies/sglang/{lang}topology-{n}.svg: out of date: the data in kb/topologies.yaml changed "
        "since it was rendered"
        for n in range(1, len(TOPOLOGY_IDS) + 1)
        for lang in ("", "en/")
    ] + [
        "assets/figures/en/architecture.svg: has no source hash (it was not written by `python -m handbook generate`)",
        "assets/figures/memory-budget.svg: missing",
        "assets/figures/retired.svg: no figure renders this file any more",
    ]
    files.write(changed, root, str(fake_dot))
    assert files.stale(changed, root) == []
    assert not (root / "assets/figures/retired.svg").exists()


def test_a_stale_svg_stops_the_site_with_the_command_and_nothing_is_rendered(tmp_path, fake_dot, monkeypatch):
    root = tmp_path / "repo"
    root.mkdir()  # the repository exists; only the figures below it are written
    files.write(FIGURES, root, str(fake_dot))
    kb = kb_copy(tmp_path)
    replace_in(kb / "topologies.yaml", "example_num_key_value_heads: 8", "example_num_key_value_heads: 16")
    changed = catalogue(load_kb(kb))
    before = {p: p.read_bytes() for p in root.rglob("*.svg")}
    for dot in (None, str(fake_dot)):  # with graphviz or without, the build never writes the source tree
        monkeypatch.setattr(files, "dot_binary", lambda dot=dot: dot)
        with pytest.raises(DiagramError) as exc:
            files.site_assets(changed, root)
        assert exc.value.problems[0] == (
            "assets/topologies/sglang/topology-1.svg: out of date: the data in kb/topologies.yaml changed since it "
            "was rendered"
        )
        assert len(exc.value.problems) == 9
        assert exc.value.problems[-1] == (
            "regenerate them with `python -m handbook generate` (needs graphviz: apt-get install graphviz "
            "fonts-wqy-microhei (Debian/Ubuntu), or brew install graphviz), then commit them"
        )
        assert {p: p.read_bytes() for p in root.rglob("*.svg")} == before
    # fresh SVGs need no dot at all
    assert len(files.site_assets(FIGURES, root)) == 2 * len(FIGURES)


def test_a_warning_from_dot_is_an_error(tmp_path):
    noisy = tmp_path / "dot"
    noisy.write_text(
        "#!/bin/sh\nwhile IFS= read -r line; do :; done\necho 'Warning: cell size too small for content' >&2\necho '<svg/>'\n"
    )
    noisy.chmod(0o755)
    with pytest.raises(DiagramError) as exc:
        files.write({"architecture": FIGURES["architecture"]}, tmp_path / "repo", str(noisy))
    assert exc.value.problems == [
        "assets/figures/architecture.svg: dot failed for figure architecture (zh): Warning: cell size too small for content",
        "assets/figures/en/architecture.svg: dot failed for figure architecture (en): Warning: cell size too small for content",
    ]
    assert not (tmp_path / "repo").exists()  # nothing is written unless every figure rendered


@pytest.mark.skipif(
    shutil.which("dot") is None, reason="graphviz's dot is not installed (apt-get install graphviz)"
)
def test_real_dot_renders_a_figure_without_warnings(tmp_path):
    changed = files.write({"memory-budget": FIGURES["memory-budget"]}, tmp_path, shutil.which("dot"))
    assert changed == ["assets/figures/memory-budget.svg", "assets/figures/en/memory-budget.svg"]
    svg = (tmp_path / changed[0]).read_text()
    assert svg.startswith(
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!-- handbook-diagram figure=memory-budget lang=zh '
    )
    assert ">KV 池</text>" in svg and "<title>memory&#45;budget</title>" in svg


# ------------------------------------------------------------------------------------------ command line
def run_cli(*args: str, path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "handbook", "generate", "diagrams", *args],
        cwd=REPO_ROOT,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.slow
def test_cli_check_and_render_with_and_without_dot(tmp_path, fake_dot):
    root = tmp_path / "repo"
    root.mkdir()  # the repository exists; only the figures below it are written
    no_dot = path_without_dot()
    done = run_cli("--check", "--repo", str(root), path=no_dot)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert lines[0] == "✖ assets/topologies/sglang/topology-1.svg: missing"
    assert lines[-5:] == [
        "graphviz's dot is not installed here; first: apt-get install graphviz fonts-wqy-microhei (Debian/Ubuntu), or brew install graphviz",
        f"✖ {2 * len(FIGURES)} generated file(s) stale. Regenerate them with:",
        "",
        "    python -m handbook generate",
        "",
    ]
    done = run_cli("--repo", str(root), path=no_dot)
    assert (done.returncode, done.stderr) == (
        1,
        "✖ graphviz's dot is not installed: apt-get install graphviz fonts-wqy-microhei (Debian/Ubuntu), or brew install graphviz\n",
    )
    with_fake = f"{fake_dot.parent}{os.pathsep}{no_dot}"
    done = run_cli("--repo", str(root), path=with_fake)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == f"✔ {2 * len(FIGURES)} file(s) changed"
    done = run_cli("--check", "--repo", str(root), path=no_dot)
    assert (done.returncode, done.stdout) == (0, f"✔ up to date: {2 * len(FIGURES)} diagram SVGs\n")
    done = run_cli("nope", "--repo", str(root), path=no_dot)
    assert done.returncode == 2
    assert done.stderr == (
        "✖ python -m handbook generate: argument schema|diagrams: got 'nope', expected one of: schema, "
        "diagrams (--help lists the options)\n"
    )


# ------------------------------------------------------------------------------------------ site
def test_a_stale_svg_without_dot_stops_the_site_build_with_the_fix(tmp_path):
    kb = kb_copy(tmp_path)
    shutil.copytree(REPO_ROOT / "assets", tmp_path / "assets")
    replace_in(kb / "topologies.yaml", "example_num_key_value_heads: 8", "example_num_key_value_heads: 16")
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "handbook", "build", "--site-dir", str(site)],
        cwd=REPO_ROOT,
        env={**os.environ, "HANDBOOK_KB": str(kb), "PATH": path_without_dot(), "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    out = done.stdout + done.stderr
    assert done.returncode != 0
    assert (
        "assets/topologies/sglang/en/topology-2.svg: out of date: the data in kb/topologies.yaml changed since it "
        "was rendered"
    ) in out
    assert "regenerate them with `python -m handbook generate`" in out and "Traceback" not in out
    assert not site.exists()
    assert (
        files.stale(FIGURES, REPO_ROOT) == []
    )  # a build of a copied KB never touches this repository's SVGs


def test_the_built_site_publishes_every_svg(built_site):
    for figure in FIGURES.values():
        for lang in ("zh", "en"):
            path = figure.path(lang)
            assert (built_site / path).read_bytes() == (REPO_ROOT / path).read_bytes(), path


# ------------------------------------------------------------------------------------------ kb:figure
def test_the_figure_renderer_embeds_the_pages_language():
    figure = FIGURES["attn-tp4-routed-ep4"]
    zh = render_page(
        "<!-- kb:figure id=attn-tp4-routed-ep4 -->\n",
        RenderContext(KB, "zh", "05-parallelism.md"),
        "docs/zh/05-parallelism.md",
    )
    alt = esc(figure.drawings["zh"].alt)
    # drawn where its smallest label (10 units of a 830-wide viewBox) is 9 px: 830 × 9 / 10 = 747 px
    assert zh == (
        "\n"
        '<figure class="kb-figure" id="figure-attn-tp4-routed-ep4" markdown="span">\n'
        f'[![{alt}](../assets/topologies/sglang/topology-2.svg){{ .diagram loading=lazy width="747" height="416" }}]'
        '(../assets/topologies/sglang/topology-2.svg){ .figure-open title="点开看原尺寸的图" }\n'
        "<figcaption>SGLang · B · Attention TP4 + routed EP4</figcaption>\n"
        "</figure>\n"
        f'<details class="figure-text"><summary>图的文字版</summary><p>{alt}</p></details>\n\n'
    )
    en = render_page(
        "<!-- kb:figure id=memory-budget -->\n",
        RenderContext(KB, "en", "02-memory.md"),
        "docs/en/02-memory.md",
    )
    assert '(../assets/figures/en/memory-budget.svg){ .diagram loading=lazy width="603" height="138" }]' in en
    assert f"<figcaption>{esc(FIGURES['memory-budget'].drawings['en'].caption)}</figcaption>" in en
    assert (
        "A bar to scale of one NVIDIA H200&#39;s memory (140 GiB) in three parts&#58; weights 46.2 GiB" in en
    )


def test_an_unknown_figure_id_is_a_render_error():
    from handbook.render.figures import figure_block

    with pytest.raises(RenderError) as exc:
        figure_block(RenderContext(KB, "zh", "05-parallelism.md"), "topology-9")
    assert str(exc.value) == f"'topology-9' is not a figure id (one of: {', '.join(FIGURES)})"
    with pytest.raises(MarkerErrors) as errors:
        render_page(
            "# x\n\n<!-- kb:figure id=topology-9 -->\n",
            RenderContext(KB, "en", "05-parallelism.md"),
            "docs/en/05-parallelism.md",
        )
    assert [str(p) for p in errors.value.problems] == [
        f"docs/en/05-parallelism.md:3: kb:figure: 'topology-9' is not a figure id (one of: {', '.join(FIGURES)})"
    ]


# ------------------------------------------------------------------------------------------ charts
def test_the_kv_chart_draws_every_model_and_no_bar_for_an_unpublished_config():
    for lang in ("zh", "en"):
        dot = html.unescape(FIGURES["kv-per-token"].drawings[lang].dot)
        shown = "{} B（{}）" if lang == "zh" else "{} B ({})"
        # Llama-3.3-70B: 2 × 80 layers × 8 KV heads × 128 × 2 bytes (BF16), half with FP8
        assert shown.format("327,680", "320 KiB") in dot and shown.format("163,840", "160 KiB") in dot
        # DeepSeek-V3 (MLA): 61 × (512 + 64) × 2
        assert shown.format("70,272", "68.6 KiB") in dot
        unknown = (
            "本 KB 没有：kv_lora_rank, qk_rope_head_dim"
            if lang == "zh"
            else "not in this KB: kv_lora_rank, qk_rope_head_dim"
        )
        assert unknown in dot  # Kimi-K3.1-Pro: said, not drawn
        # 9 models known (MiniMax-M3's layers and heads from its config.json)
        assert dot.count('BGCOLOR="#86efac"') == dot.count('BGCOLOR="#bbf7d0"') == 9
    from handbook.diagrams import charts

    bars = rf'<TD WIDTH="(\d+)" HEIGHT="{charts.ROW_PT - 4}" FIXEDSIZE'
    widths = [int(w) for w in re.findall(bars, FIGURES["kv-per-token"].drawings["en"].dot)]
    longest = widths.index(charts.BAR_PT)  # Llama-3.3-70B's BF16 bar is the longest
    assert widths[longest + 1] == charts.BAR_PT // 2  # to scale: its FP8 bar is half


def test_the_split_chart_takes_each_tp_of_the_recommended_layouts_and_the_planners_figures():
    from handbook.diagrams.charts import Layout, layouts

    kb = load_kb()
    assert layouts(kb.models["qwen3.8-flash-next"]) == [Layout(4, 4), Layout(8, 8)]  # "tp4 + ep4 / tp8 + ep8"
    assert layouts(kb.models["qwen3.5-397b-a17b"]) == [Layout(4, 1), Layout(8, 1)]  # "tp4–8"
    assert layouts(kb.models["gpt-oss-120b"]) == [Layout(1, 1), Layout(4, 1)]  # "tp1 / tp4"
    assert layouts(kb.models["deepseek-v4-pro"]) == [Layout(4, 4)]  # its remark's "TP 8" is not a layout
    dot = html.unescape(FIGURES["weights-vs-kv"].drawings["en"].dot)
    # GLM-5.3: 743B parameters × 1 byte (FP8) ÷ TP 8 = 92.9 GB = 86.5 GiB on each H200
    assert "weights 86.5 GiB · KV pool " in dot and "GLM-5.3 · TP8 + EP8" in dot
    # Kimi-K3.1-Pro, MXFP4 at TP 8: 2.8T × 4.25 bits ÷ 8 = 173 GiB, more than the static budget
    assert "weights 173 GiB do not fit (static budget 126 GiB)" in dot
    # Qwen3.5 at TP 8: the default fraction rests on an unpublished vision config, so the pool is a bound
    assert re.search(r"Qwen3\.5-397B-A17B · TP8</B>.*?KV pool ≤ [\d.]+ GiB", dot, re.S)
    assert 'STYLE="dashed"' in dot


def test_a_diagram_is_drawn_where_its_smallest_label_is_9_px():
    from handbook.diagrams.files import legible_size

    svg = (
        '<svg width="830pt" viewBox="0.00 0.00 830.00 452.00"><text font-size="10.00">GPU 0</text>'
        '<text font-size="2.00"> </text><text font-size="15.00">Title</text></svg>'
    )
    # the blank spacer does not count: 10 units must become 9 px, so 830 units become 747 px
    assert legible_size(svg) == (747, 407)
    assert legible_size(svg, min_px=12) == (996, 543)
