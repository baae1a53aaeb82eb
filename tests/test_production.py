"""The production pack: deterministic files, every query and alert on metrics the engine serves, the PD
sets connect by construction, and the real tools (promtool, kubernetes-validate) accept every file.

promtool comes from Debian's prometheus package (.ci/run installs it): without it these tests skip, unless
HANDBOOK_REQUIRE_PROMTOOL=1 (as in CI), where a missing promtool is a failure.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from test_checker_kb import mini_copy

from handbook.engine import load_snapshot
from handbook.kb.loader import load_kb
from handbook.production import alerts, dashboards, tools
from handbook.production.deployments import deployments, reached_commands
from handbook.production.pack import MANIFESTS, recipe_files, site_files
from handbook.validation.registry import run_checks

REPO = Path(__file__).resolve().parents[1]
SITE_URL = "https://example.invalid/handbook/"


@pytest.fixture(scope="module")
def kb():
    return load_kb()


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot("0.5.23")


@pytest.fixture(scope="module")
def files(kb, snapshot):
    return site_files(kb, snapshot, SITE_URL)


def test_the_pack_is_deterministic(kb, snapshot, files):
    assert site_files(kb, snapshot, SITE_URL) == files
    assert sorted(p for p in files if p.endswith(MANIFESTS)) == [
        "production/deepseek-v3-attn-dp-multinode/manifests.yaml",
        "production/deepseek-v3-pd-2node/manifests.yaml",
        "production/deepseek-v4-pro-mi355x-1p1d/manifests.yaml",
        "production/llama-3.1-8b-pd-local/manifests.yaml",
    ]


# ------------------------------------------------------------------------------------------ metrics
SAMPLE = re.compile(r"\b(?:sglang:[a-z_][a-z0-9_:]*|smg_[a-z0-9_]+|up)\b")
SELECTOR_LABELS = re.compile(r"\{([^}]*)\}")
BY_LABELS = re.compile(r"\bby \(([^)]*)\)")


def _labels_used(expr: str) -> set[str]:
    names = set()
    for group in SELECTOR_LABELS.findall(expr):
        names |= {part.split("=")[0].strip().rstrip("!~") for part in group.split(",") if part.strip()}
    for group in BY_LABELS.findall(expr):
        names |= {part.strip() for part in group.split(",")}
    return names - {"instance", "job"}  # Prometheus's own target labels


@pytest.mark.parametrize("kind", ["server", "pd"])
def test_every_dashboard_query_names_samples_and_labels_the_engine_serves(kind, snapshot):
    metrics = snapshot.metrics
    for expr in dashboards.queries(kind):
        for name in SAMPLE.findall(expr):
            if name.startswith("smg_"):
                continue  # sglang-router's: only strings of its binary (see the module's docstring)
            metric = metrics.by_series(name)
            assert metric is not None, f"{expr}: {name} is not a sample sglang 0.5.23 serves"
            assert _labels_used(expr) <= set(metrics.label_names(metric)), expr


def test_every_alert_reads_samples_the_engine_serves(kb, snapshot):
    for alert in alerts.alerts(kb):
        found = {n for n in SAMPLE.findall(alert.expr) if n != "up"}
        assert found == set(alert.metrics)
        assert all(snapshot.metrics.by_series(name) for name in found), alert.name


def test_the_thresholds_the_source_gives_are_read_from_the_kb(kb):
    by_name = {a.name: a for a in alerts.alerts(kb)}
    assert by_name["SGLangQueueAboveHealthyRange"].expr == "sglang:num_queue_reqs > 2000"
    assert (
        by_name["SGLangQueueWhileKVPoolNotFull"].expr
        == "sglang:token_usage < 0.9 and sglang:num_queue_reqs > 0"
    )
    assert "handbook default" in by_name["SGLangThroughputCollapsed"].threshold_source.en


def test_a_text_that_no_longer_states_its_threshold_is_a_located_problem(tmp_path):
    root = mini_copy(tmp_path)
    path = root / "observability.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace(
        "signals:\n",
        "signals:\n  - {id: conservative-scheduling, condition: {zh: 很慢, en: slow}, action: {zh: 调, en: tune}}\n",
    )
    path.write_text(text, encoding="utf-8")
    line = text.splitlines().index(
        "  - {id: conservative-scheduling, condition: {zh: 很慢, en: slow}, action: {zh: 调, en: tune}}"
    )
    problems = [str(p) for p in run_checks(load_kb(root)) if "threshold" in str(p)]
    assert problems == [
        f"{root.name}/observability.yaml:{line + 1}: signals[0].condition.en: got 'slow', expected "
        "'token usage < X and #queue-req > 0' (the conservative-scheduling alert's threshold)"
    ]


def test_a_kb_that_states_no_threshold_gets_only_the_alerts_that_need_none(tmp_path):
    kb = load_kb(mini_copy(tmp_path))  # kb-mini has no #queue-req range and no signal ids
    assert [a.key for a in alerts.alerts(kb)] == ["collapse", "down", "absent"]


def test_both_languages_have_the_same_panels_and_queries(snapshot):
    for kind in ("server", "pd"):
        zh, en = (dashboards.build(kind, lang, "0.5.23", {}) for lang in ("zh", "en"))
        assert [p["targets"] for p in zh["panels"]] == [p["targets"] for p in en["panels"]]
        assert [p["title"] for p in zh["panels"]] != [p["title"] for p in en["panels"]]
        assert not any(re.search(r"[\u4e00-\u9fff]", p["title"] + p["description"]) for p in en["panels"])


# ------------------------------------------------------------------------------------------ deployments
def test_a_pd_sets_router_targets_are_its_servers_services_and_ports(kb, snapshot):
    pd_sets = [d for d in deployments(kb, snapshot) if d.kind == "pd"]
    assert [d.id for d in pd_sets] == [
        "deepseek-v3-pd-2node",
        "deepseek-v4-pro-mi355x-1p1d",
        "llama-3.1-8b-pd-local",
    ]
    for deployment in pd_sets:
        reached = {r.role: r for r in reached_commands(deployment)}
        router = reached["router"].argv
        for role in ("prefill", "decode"):
            url = urlsplit(router[router.index(f"--{role}") + 1])
            assert (url.hostname, url.port) == (reached[role].host, reached[role].port), deployment.id
            server = reached[role].argv
            assert server[server.index("--host") + 1] == "$(POD_IP)"
            port = int(server[server.index("--port") + 1]) if "--port" in server else 30000
            assert port == reached[role].port


def test_the_mi355x_set_binds_the_addresses_its_corrected_recipes_give(kb, snapshot):
    """The source's 1P1D commands bind no address and the decode sets no --port while the router targets
    :30001; the recipes publish the site's corrections (--host <prefill-ip> / <decode-ip>, --port 30001), and
    the manifests bind each address to the pod's IP, visibly, adding only what the metrics need."""
    deployment = next(d for d in deployments(kb, snapshot) if d.id == "deepseek-v4-pro-mi355x-1p1d")
    decode = next(w for w in deployment.workloads if w.role == "decode")
    assert [(c.kind, c.words, c.was) for c in decode.changes if c.kind in ("added", "bound")] == [
        ("bound", "$(POD_IP)", "<decode-ip>"),
        ("added", "--enable-metrics", None),
    ]
    assert decode.port == 30001
    text = site_files(kb, snapshot, SITE_URL)["production/deepseek-v4-pro-mi355x-1p1d/manifests.yaml"]
    assert "# decode" not in text
    assert "--port 30001 — the router targets this port" not in text


def test_a_multinode_server_is_a_leaderworkerset_whose_ranks_come_from_it(kb, snapshot, files):
    docs = list(yaml.safe_load_all(files["production/deepseek-v3-pd-2node/manifests.yaml"]))
    lws = [d for d in docs if d and d["kind"] == "LeaderWorkerSet"]
    assert [d["spec"]["leaderWorkerTemplate"]["size"] for d in lws] == [2, 2]
    args = lws[0]["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["args"]
    words = " ".join(args)
    assert (
        "--node-rank $(LWS_WORKER_INDEX)" in words and "--dist-init-addr $(LWS_LEADER_ADDRESS):5000" in words
    )
    worker = lws[0]["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]
    leader = lws[0]["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    assert "readinessProbe" not in worker and leader["readinessProbe"]["httpGet"]["path"] == "/health"
    service = next(
        d for d in docs if d and d["kind"] == "Service" and d["metadata"]["name"].endswith("prefill")
    )
    assert service["spec"]["selector"]["handbook.sglang.io/leader"] == "true"
    assert {p["port"] for p in service["spec"]["ports"]} == {30000, 8998}


def test_a_recipe_in_no_set_gets_alerts_and_dashboards_only(kb, snapshot):
    assert MANIFESTS not in recipe_files(kb, snapshot, "gpt-oss-120b-tp4", SITE_URL)
    assert MANIFESTS in recipe_files(kb, snapshot, "pd-router-local", SITE_URL)


# ------------------------------------------------------------------------------------------ the tools
def _require_promtool() -> None:
    if tools.promtool() is not None:
        return
    if os.environ.get("HANDBOOK_REQUIRE_PROMTOOL") == "1":
        pytest.fail(
            "promtool not found (apt-get install prometheus); HANDBOOK_REQUIRE_PROMTOOL=1 forbids skipping"
        )
    pytest.skip("promtool not found (apt-get install prometheus)")


def _written(files: dict[str, str], root: Path) -> list[Path]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return sorted({(root / name).parent for name in files})


@pytest.mark.slow
def test_promtool_checks_and_unit_tests_every_rules_file(files, tmp_path):
    _require_promtool()
    for folder in _written(files, tmp_path):
        runs = tools.run_promtool(folder)
        assert [r.command for r in runs][:2] == [
            "promtool check rules sglang-alerts.yaml",
            "promtool test rules sglang-alerts.test.yaml",
        ]
        for run in runs:
            assert run.ok, f"{folder.name}: {run.command}\n{run.output}"


def test_promtool_unit_tests_fail_when_a_threshold_moves(kb, tmp_path):
    """The unit tests can fail: the same tests against rules whose queue threshold moved must fail."""
    _require_promtool()
    files = {
        alerts.RULES_FILE: alerts.dump(alerts.rules(kb, SITE_URL), []).replace("> 2000", "> 3000"),
        alerts.TESTS_FILE: alerts.dump(alerts.unit_tests(kb, SITE_URL), []),
    }
    _written(files, tmp_path)
    runs = tools.run_promtool(tmp_path)
    assert runs[0].ok and not runs[1].ok
    assert "SGLangQueueAboveHealthyRange" in runs[1].output


def test_kubernetes_validate_accepts_every_object(files, tmp_path):
    for folder in _written(files, tmp_path):
        if (folder / MANIFESTS).is_file():
            results = tools.validate_manifests(folder)
            assert results and all(line.endswith(": ok") for line in results), results


def test_kubernetes_validate_rejects_a_broken_object(files):
    docs = [d for d in yaml.safe_load_all(files["production/llama-3.1-8b-pd-local/manifests.yaml"]) if d]
    docs[0]["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["paht"] = "/health"
    assert tools.validate_objects(docs[:1])[0].startswith("Deployment/llama-3-1-8b-pd-local-prefill: ")
    assert not tools.validate_objects(docs[:1])[0].endswith(": ok")


def test_every_command_in_a_manifest_is_its_recipes_words_plus_the_listed_changes(kb, snapshot):
    from handbook.production.deployments import words_of

    for deployment in deployments(kb, snapshot):
        for workload in deployment.workloads:
            recipe_words = shlex.join(words_of(kb.recipes[workload.recipe]))
            listed = [c for c in workload.changes if c.kind in ("added", "bound", "removed", "replaced")]
            if not listed:
                assert shlex.join(workload.args) == recipe_words, workload.name
            else:
                assert shlex.join(workload.args) != recipe_words, workload.name


# ------------------------------------------------------------------------------------------ numbers
def test_no_production_message_types_a_threshold_the_kb_or_the_engine_states():
    from handbook.core.messages.production import MESSAGES

    # the KB's healthy ranges and thresholds (100–2000, 2000, 0.9, 0.3) and the alerts' durations
    typed = re.compile(r"\d+–\d+\d|(?<![\d.])(?:2000|0\.9|0\.3)(?![\d.])|\b\d+ (?:分钟|minutes?)")
    assert [key for key, (zh, en) in MESSAGES.items() if typed.search(zh) or typed.search(en)] == []
    # the engine's facts: its version, its default --host, the source's --dist-init-addr port
    engine = re.compile(r"0\.5\.23|127\.0\.0\.1|\b5000\b")
    assert [key for key, (zh, en) in MESSAGES.items() if engine.search(zh) or engine.search(en)] == []


def test_the_queue_range_and_the_alerts_numbers_follow_the_kb(tmp_path):
    shutil.copytree(REPO / "kb", tmp_path / "kb", ignore=shutil.ignore_patterns("engine"))
    path = tmp_path / "kb" / "observability.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("healthy: {zh: 100–2000, en: 100–2000}") == 1
    path.write_text(text.replace("100–2000, en: 100–2000", "50–500, en: 50–500"), encoding="utf-8")
    edited = load_kb(tmp_path / "kb")
    by_name = {a.name: a for a in alerts.alerts(edited)}
    queue = alerts.rules(edited, SITE_URL)["groups"][0]["rules"]
    annotations = {rule["alert"]: rule["annotations"] for rule in queue}
    assert by_name["SGLangQueueAboveHealthyRange"].expr == "sglang:num_queue_reqs > 500"
    assert annotations["SGLangQueueAboveHealthyRange"]["description"] == (
        "sglang:num_queue_reqs has stayed above 500 for 10m (the source's healthy range is 50–500): "
        "add replicas or look at throughput"
    )
    assert annotations["SGLangQueueAboveHealthyRange"]["description_zh"] == (
        "sglang:num_queue_reqs 持续 10m 高于 500（源稿的健康区间是 50–500）：加副本或查吞吐"
    )
    assert annotations["SGLangQueueWhileKVPoolNotFull"]["description"] == (
        "token usage < 0.9 and #queue-req > 0 for 15m: the source says: "
        "The server is too conservative: lower --schedule-conservativeness (e.g. to 0.3)"
    )
    board = dashboards.build("server", "en", "0.5.23", dashboards.healthy_values(edited))
    assert [p["description"] for p in board["panels"] if p["title"] == "Queued requests"] == [
        "Requests waiting to be scheduled (sglang:num_queue_reqs); the source calls 50–500 healthy"
    ]
    assert [p["description"] for p in board["panels"] if p["title"] == "KV pool usage"] == [
        "sglang:token_usage (0–1); the source: > 0.9 means the pool is well used"
    ]
    unstated = dashboards.build("server", "en", "0.5.23", {})
    assert [p["description"] for p in unstated["panels"] if p["title"] == "Queued requests"] == [
        "Requests waiting to be scheduled (sglang:num_queue_reqs)"
    ]


# ------------------------------------------------------------------------------------------ site URL
def test_the_preview_url_has_one_definition_mkdocs_yml():
    spelled = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "handbook").rglob("*.py"))
        if path.name != "bench.py" and "127.0.0.1:8000" in path.read_text(encoding="utf-8")
    ]
    assert spelled == []
    assert 'site_url: !ENV [HANDBOOK_SITE_URL, "http://127.0.0.1:8000/"]' in (REPO / "mkdocs.yml").read_text()


@pytest.mark.parametrize(
    ("env", "expected"), [(None, "http://127.0.0.1:8000/"), ("https://h.example/x", "https://h.example/x/")]
)
def test_the_production_command_links_the_runbooks_to_mkdocs_site_url(tmp_path, monkeypatch, env, expected):
    import argparse

    from handbook.cli import production

    if env is None:
        monkeypatch.delenv("HANDBOOK_SITE_URL", raising=False)
    else:
        monkeypatch.setenv("HANDBOOK_SITE_URL", env)
    parser = argparse.ArgumentParser()
    production.configure(parser)
    args = parser.parse_args(["--recipe", "deepseek-v3-pd-prefill", "--out", str(tmp_path)])
    assert production.run(args) == 0
    rules = yaml.safe_load((tmp_path / alerts.RULES_FILE).read_text(encoding="utf-8"))
    links = {rule["annotations"]["runbook_url"] for rule in rules["groups"][0]["rules"]}
    assert links and all(link.startswith(f"{expected}en/08-production/#") for link in links)
