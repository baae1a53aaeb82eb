"""Several commands read as one deployment (handbook/checker/deployment.py): every deployment the site
publishes connects, and a copy of one with a router/server mismatch put in fails with the exact finding."""

from __future__ import annotations

import pytest

from handbook.calc.recipe_text import deployment_text, deployments
from handbook.checker import check_command
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb
from handbook.validation.engine import deployment_problems

KB = load_kb()
SNAPSHOT = load_snapshot()
SETS = deployments(list(KB.recipes.values()))


def deploy(text: str) -> list[tuple[str, str, int | None, str]]:
    return [
        (f.severity, f.code, f.line, f.message.en)
        for f in check_command(text, SNAPSHOT, KB)
        if f.code.startswith("deploy.")
    ]


def test_the_site_has_multi_command_deployments_to_check():
    assert set(SETS) >= {"deepseek-v4-pro-mi355x-1p1d", "llama-3.1-8b-pd-local", "deepseek-v3-pd-2node"}
    assert all(len(recipes) >= 2 for recipes in SETS.values())


@pytest.mark.parametrize("deployment", sorted(SETS))
def test_every_published_deployment_connects(deployment):
    found = [d for d in deploy(deployment_text(SETS[deployment])) if d[0] != "note"]
    assert found == []


def test_validate_reports_no_deployment_problem():
    assert deployment_problems(KB, SNAPSHOT) == []


LOCAL = deployment_text(SETS["llama-3.1-8b-pd-local"])
MI355X = deployment_text(SETS["deepseek-v4-pro-mi355x-1p1d"])


def test_a_router_port_that_no_server_listens_on_fails():
    broken = LOCAL.replace("--decode http://127.0.0.1:30001", "--decode http://127.0.0.1:30002")
    assert broken != LOCAL
    assert deploy(broken) == [
        ("error", "deploy.port", 15,
         "the router sends --decode requests to http://127.0.0.1:30002, but the server on line 6 listens on port "
         "30001, so nothing answers there; give it --port 30002"),
    ]  # fmt: skip


def test_a_router_host_that_the_server_does_not_bind_fails():
    broken = MI355X.replace("--host <decode-ip>", "--host 10.0.0.2").replace(
        "http://<decode-ip>:30001", "http://10.0.0.3:30001"
    )
    found = deploy(broken)
    assert [(s, c) for s, c, _, _ in found] == [("error", "deploy.unreachable")]
    assert "listens on 10.0.0.2, not 10.0.0.3" in found[0][3]


def test_the_source_s_mi355x_set_is_caught_as_the_issue_describes():
    source = (
        MI355X.replace("  --host <prefill-ip> \\\n", "")
        .replace("  --host <decode-ip> \\\n  --port 30001 \\\n", "")
        .replace("  --reasoning-parser deepseek-v4 \\\n  --tool-call-parser deepseekv4\n", "\n", 1)
    )
    codes = [(s, c) for s, c, _, _ in deploy(source)]
    # the prefill binds 127.0.0.1 and the router targets <prefill-ip>: a warning, as a placeholder could stand
    # for the loopback address (it fails validation all the same)
    assert ("warning", "deploy.unreachable") in codes
    assert ("error", "deploy.port") in codes  # the decode listens on 30000, the router targets :30001


def test_loopback_server_behind_a_network_address():
    text = (
        "python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000\n"
        "python -m sglang.launch_server --model-path m --disaggregation-mode decode --host 0.0.0.0 --port 30001\n"
        "python -m sglang_router.launch_router --pd-disaggregation --prefill http://10.0.0.1:30000 "
        "--decode http://10.0.0.2:30001\n"
    )
    assert deploy(text) == [
        ("error", "deploy.unreachable", 3,
         "the router sends --prefill requests to http://10.0.0.1:30000, but the server on line 1 listens on "
         "127.0.0.1 (--host not given: the default), a loopback address that no other address reaches, its own machine's "
         "network address included; give it --host 10.0.0.1 (or 0.0.0.0)"),
    ]  # fmt: skip


def test_roles_swapped_and_unpaired():
    swapped = LOCAL.replace("--prefill http://127.0.0.1:30000", "--prefill http://127.0.0.1:30001").replace(
        "--decode http://127.0.0.1:30001", "--decode http://127.0.0.1:30000"
    )
    codes = [c for _, c, _, _ in deploy(swapped)]
    assert codes == ["deploy.role", "deploy.role"]
    only_prefill = LOCAL.split("python -m sglang.launch_server", 2)
    text = (
        "python -m sglang.launch_server"
        + only_prefill[1]
        + ("python -m sglang.launch_server --model-path m --port 30005\n")
    )
    assert [(s, c) for s, c, _, _ in deploy(text)] == [("warning", "deploy.unpaired")]


def test_bootstrap_ports_must_agree():
    text = (
        "python -m sglang.launch_server --model-path m --disaggregation-mode prefill --port 30000 "
        "--disaggregation-bootstrap-port 9000\n"
        "python -m sglang.launch_server --model-path m --disaggregation-mode decode --port 30001\n"
        "python -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 "
        "--decode http://127.0.0.1:30001\n"
    )
    assert [(s, c, line) for s, c, line, _ in deploy(text)] == [("error", "deploy.bootstrap", 2)]
    told = text.replace("--prefill http://127.0.0.1:30000", "--prefill http://127.0.0.1:30000 9000")
    assert deploy(told) == []
    wrong = text.replace("--prefill http://127.0.0.1:30000", "--prefill http://127.0.0.1:30000 9001")
    assert [(s, c, line) for s, c, line, _ in deploy(wrong)] == [("error", "deploy.bootstrap", 3)]


def test_nodes_of_one_server_agree():
    node = (
        "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3-0324 --tp-size 16 "
        "--dist-init-addr 10.0.0.1:5000 --nnodes 2 --node-rank {rank}{extra}\n"
    )
    both = node.format(rank=0, extra="") + node.format(rank=1, extra="")
    assert deploy(both) == []
    twice = deploy(node.format(rank=0, extra="") + node.format(rank=0, extra=""))
    assert [(s, c, line) for s, c, line, _ in twice] == [
        ("error", "deploy.nodes", 2),
        ("note", "deploy.nodes", 1),
    ]
    assert "both have --node-rank 0" in twice[0][3] and "node rank 1 " in twice[1][3]
    differ = node.format(rank=0, extra="") + node.format(rank=1, extra=" --ep-size 16")
    found = deploy(differ)
    assert [(s, c) for s, c, _, _ in found] == [("error", "deploy.nodes")]
    assert "--ep-size" in found[0][3]
    alone = node.format(rank=0, extra="") + "python -m sglang.launch_server --model-path m --port 30001\n"
    assert [(s, c) for s, c, _, _ in deploy(alone)] == [("note", "deploy.nodes")]


def test_parsers_belong_on_the_decode_server():
    text = LOCAL.replace(
        "--disaggregation-mode prefill", "--disaggregation-mode prefill --reasoning-parser qwen3"
    )
    assert [(s, c, line) for s, c, line, _ in deploy(text)] == [("warning", "deploy.parsers", 6)]
    fixed = text.replace(
        "--disaggregation-mode decode", "--disaggregation-mode decode --reasoning-parser qwen3"
    )
    assert deploy(fixed) == []


def test_one_command_is_no_deployment():
    assert deploy("python -m sglang.launch_server --model-path m --disaggregation-mode prefill") == []
