"""The Prometheus metrics in the engine snapshot: dump.py's static reader, the committed 0.5.23 metrics, and
the check that every metric name the KB writes is one the engine serves."""

from __future__ import annotations

import textwrap

import pytest
from test_checker_kb import mini_copy

from handbook.engine import dump, load_snapshot
from handbook.kb.loader import load_kb
from handbook.validation.registry import run_checks

# A package shaped like SGLang's: a collector whose constructors come through the DI hooks, with
# collections.Counter imported at module level (a call of it is no metric), a label builder, a GaugeHistogram,
# a name that is not a literal, an f-string help, and a test folder that is never read.
FAKE_COLLECTOR = """
from collections import Counter
from prometheus_client import Histogram as _PromHistogram
from fake.gauge_histogram import GaugeHistogram


def build_labels(mode, dp):
    labels = {"model_name": "m", "engine_type": mode}
    if dp is not None:
        labels["dp_rank"] = dp
    labels.update(extra())
    return labels


class Collector:
    _counter_cls = None

    def __init__(self, labels, prefix):
        from prometheus_client import Counter as _PromCounter
        from prometheus_client import Gauge

        Counter = self._counter_cls or _PromCounter
        self.retracted = Counter(
            name="fake:retracted_requests_total",
            documentation="Total number of retracted requests.",
            labelnames=labels.keys(),
        )
        self.stage = _PromHistogram(
            name="fake:stage_seconds",
            documentation=f"Per stage: {' '.join(STAGES)}.",
            labelnames=list(labels.keys()) + ["stage"],
        )
        if prefix:
            self.dynamic = Gauge(name=prefix + "usage", documentation="computed name")
        self.keys = GaugeHistogram(
            name="fake:keys", documentation="Keys.", labelnames=[*labels.keys(), "pool"], bucket_bounds=[1, 2]
        )


def tally(words):
    return Counter(words)  # collections.Counter: the module's own name, no metric
"""

FAKE_GAUGE_HISTOGRAM = """
class GaugeHistogram:
    def __init__(self, name, documentation, labelnames, bucket_bounds):
        from prometheus_client import Gauge

        self._gauge = Gauge(name=name, documentation=documentation, labelnames=list(labelnames) + ["gt", "le"])
"""


@pytest.fixture
def fake_package(tmp_path):
    package = tmp_path / "fake"
    (package / "test").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "collector.py").write_text(textwrap.dedent(FAKE_COLLECTOR))
    (package / "gauge_histogram.py").write_text(textwrap.dedent(FAKE_GAUGE_HISTOGRAM))
    (package / "test" / "test_metrics.py").write_text(
        'from prometheus_client import Gauge\nG = Gauge("fake:only_in_tests", "never read")\n'
    )
    return package


def test_the_reader_finds_every_definition_with_its_type_labels_and_place(fake_package, monkeypatch):
    monkeypatch.setattr(
        dump, "_METRIC_CLASSES", {**dump._METRIC_CLASSES, "fake.gauge_histogram.GaugeHistogram": "gauge"}
    )
    monkeypatch.setattr(dump, "_EXTRA_LABELS", {"fake.gauge_histogram.GaugeHistogram": ["gt", "le"]})
    monkeypatch.setattr(dump, "METRIC_LABEL_BUILDERS", (("Collector", "fake/collector.py", "build_labels"),))
    found = dump.describe_metrics(fake_package)
    rows = [
        (m["name"], m["type"], m["labels"], m["collector_labels"], m["help"], m["line"], m["conditional"])
        for m in found["definitions"]
    ]
    assert rows == [
        (
            "fake:retracted_requests_total",
            "counter",
            [],
            "Collector",
            "Total number of retracted requests.",
            23,
            False,
        ),
        (
            "fake:stage_seconds",
            "histogram",
            ["stage"],
            "Collector",
            "Per stage: {' '.join(STAGES)}.",
            28,
            False,
        ),
        ("fake:keys", "gauge", ["pool", "gt", "le"], "Collector", "Keys.", 35, False),
    ]
    assert [(u["line"], u["call"]) for u in found["unresolved"]] == [
        (34, "Gauge(name=prefix + 'usage', documentation='computed name')")
    ]
    assert found["label_sets"] == {
        "Collector": {
            "builder": "fake/collector.py:build_labels",
            "always": ["model_name", "engine_type"],
            "sometimes": ["dp_rank"],
            "merged_from": ["extra()"],
        }
    }


@pytest.fixture(scope="module")
def metrics():
    snapshot = load_snapshot("0.5.23")
    assert snapshot.metrics is not None
    return snapshot.metrics


def test_the_pinned_release_records_its_metrics_with_their_source_lines(metrics):
    by_name = {m.name: m for m in metrics.definitions}
    assert len(by_name) == len(metrics.definitions) == 184
    assert metrics.unresolved == ()
    e2e = by_name["sglang:e2e_request_latency_seconds"]
    assert (e2e.type, e2e.file, e2e.line) == (
        "histogram",
        "sglang/srt/observability/metrics_collector.py",
        2067,
    )
    assert e2e.series == (
        "sglang:e2e_request_latency_seconds_bucket",
        "sglang:e2e_request_latency_seconds_count",
        "sglang:e2e_request_latency_seconds_sum",
    )
    retracted = by_name["sglang:num_retracted_requests_total"]
    assert (retracted.type, retracted.series) == ("counter", ("sglang:num_retracted_requests_total",))
    assert by_name["sglang:token_usage"].series == ("sglang:token_usage",)


def test_collector_labels_come_from_the_function_that_builds_them(metrics):
    scheduler = metrics.label_sets["SchedulerMetricsCollector"]
    assert scheduler.always == ("model_name", "engine_type", "tp_rank", "pp_rank", "moe_ep_rank")
    assert scheduler.sometimes == ("priority", "dp_rank")
    queue = metrics.named("sglang:num_queue_reqs")
    assert metrics.label_names(queue) == scheduler.always + scheduler.sometimes
    ttft = metrics.by_series("sglang:time_to_first_token_seconds_bucket")
    assert metrics.label_names(ttft) == ("model_name", "engine_type", "priority", "is_streaming", "le")


def test_a_family_name_and_a_sample_name_both_resolve_and_nothing_else_does(metrics):
    assert metrics.named("sglang:e2e_request_latency_seconds").type == "histogram"
    assert metrics.by_series("sglang:e2e_request_latency_seconds") is None  # a query must name a sample
    assert metrics.named("sglang:num_retracted_reqs_total") is None


def test_a_metric_name_the_engine_does_not_export_fails_validation_at_its_line(tmp_path):
    root = mini_copy(tmp_path)
    observability = root / "observability.yaml"
    observability.write_text(
        observability.read_text().replace('"sglang:token_usage"', '"sglang:token_usage_ratio"'),
        encoding="utf-8",
    )
    assert [str(p) for p in run_checks(load_kb(root))] == [
        "kb/observability.yaml:14: metrics[0].name: got 'sglang:token_usage_ratio', expected a metric sglang "
        "0.5.23 exports (did you mean 'sglang:token_usage'?)",
    ]


def test_the_committed_kb_names_only_metrics_the_engine_exports(metrics):
    from handbook.kb.loader import load_kb as load
    from handbook.validation.metrics import metric_name_problems

    kb = load()
    assert metric_name_problems(kb, load_snapshot("0.5.23")) == []
    assert all(metrics.named(m.name) is not None for m in kb.observability.metrics)
