"""Prometheus alert rules for the chapter-08 failure modes a metric can show, and promtool unit tests.

Each alert records where its threshold comes from. A threshold the source gives is read from the KB text
that states it (``kb/observability.yaml``), so the rule follows the KB; every other number (a window, a
duration, the throughput ratio) is a default of this handbook and says so in the rule itself
(``threshold_source``). Each alert links the troubleshooting row (pitfall anchor) or section it belongs to.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from handbook.calc.thresholds import SourceThresholds, source_thresholds
from handbook.core.messages import message
from handbook.core.text import Text
from handbook.kb.loader import KB

SEVERITY = "warning"
JOB = "sglang"  # the scrape job the "not scraped" alert watches (prometheus.yml of the pack names it so)
RULES_FILE = "sglang-alerts.yaml"
TESTS_FILE = "sglang-alerts.test.yaml"
SCRAPE_FILE = "prometheus.yml"


@dataclass(frozen=True)
class Alert:
    name: str
    expr: str
    duration: str | None  # the rule's "for"
    key: str  # what the unit tests call it
    summary: str  # a key of the production messages
    description: str  # a key of the production messages
    anchor: str  # page#anchor on the site
    threshold: str  # a key of the production messages: where each number of expr and duration comes from
    metrics: tuple[str, ...]  # the sample names expr reads (checked against the engine snapshot)
    values: tuple[tuple[str, object], ...] = ()  # the fields of the threshold and description messages

    @property
    def threshold_source(self) -> Text:
        return message(self.threshold, **dict(self.values))

    @property
    def described(self) -> Text:
        """The description, its numbers filled in from ``values``."""
        return message(self.description, **dict(self.values))


def alerts(kb: KB) -> list[Alert]:
    """Every alert whose thresholds the KB states (the handbook's KB states all six)."""
    stated, _ = source_thresholds(kb)
    queue_max, usage, per_minute = stated.queue_max, stated.conservative_usage, stated.retract_per_minute
    window = 10  # minutes
    needs = {"retract": per_minute, "queue": queue_max, "conservative": usage}
    return [alert for alert in _all_alerts(stated, window) if needs.get(alert.key, 0) is not None]


def _all_alerts(stated: SourceThresholds, window: int) -> list[Alert]:
    queue_max, usage, per_minute = stated.queue_max, stated.conservative_usage, stated.retract_per_minute
    per_window = per_minute * window if per_minute is not None else None
    return [
        Alert(
            "SGLangKVPoolFullRetracting",
            f"changes(sglang:num_retracted_requests_total[{window}m]) > {per_window}",
            None,
            "retract",
            "prod-alert-retract-summary",
            "prod-alert-retract-desc",
            "08-production.md#pitfall-frequent-retract",
            "prod-threshold-retract",
            ("sglang:num_retracted_requests_total",),
            (("count", per_window), ("per_minute", per_minute), ("window", window)),
        ),
        Alert(
            "SGLangQueueAboveHealthyRange",
            f"sglang:num_queue_reqs > {queue_max}",
            "10m",
            "queue",
            "prod-alert-queue-summary",
            "prod-alert-queue-desc",
            "08-production.md#monitoring",
            "prod-threshold-queue",
            ("sglang:num_queue_reqs",),
            (("queue_max", queue_max), ("duration", "10m"), ("healthy", stated.queue_healthy)),
        ),
        Alert(
            "SGLangQueueWhileKVPoolNotFull",
            f"sglang:token_usage < {usage} and sglang:num_queue_reqs > 0",
            "15m",
            "conservative",
            "prod-alert-conservative-summary",
            "prod-alert-conservative-desc",
            "08-production.md#pitfall-low-throughput-low-token-usage",
            "prod-threshold-conservative",
            ("sglang:token_usage", "sglang:num_queue_reqs"),
            (("usage", usage), ("duration", "15m"), ("action", stated.conservative_action)),
        ),
        Alert(
            "SGLangThroughputCollapsed",
            "sglang:gen_throughput < 0.5 * avg_over_time(sglang:gen_throughput[1h] offset 10m)"
            " and sglang:num_running_reqs > 0",
            "10m",
            "collapse",
            "prod-alert-collapse-summary",
            "prod-alert-collapse-desc",
            "08-production.md#pitfall-low-throughput-low-token-usage",
            "prod-threshold-collapse",
            ("sglang:gen_throughput", "sglang:num_running_reqs"),
            (("duration", "10m"),),
        ),
        Alert(
            "SGLangTargetDown",
            f'up{{job="{JOB}"}} == 0',
            "5m",
            "down",
            "prod-alert-down-summary",
            "prod-alert-down-desc",
            "08-production.md#monitoring",
            "prod-threshold-down",
            (),
            (("job", JOB), ("duration", "5m")),
        ),
        Alert(
            "SGLangMetricsAbsent",
            "absent(sglang:num_running_reqs)",
            "5m",
            "absent",
            "prod-alert-absent-summary",
            "prod-alert-absent-desc",
            "08-production.md#monitoring",
            "prod-threshold-absent",
            ("sglang:num_running_reqs",),
            (("duration", "5m"),),
        ),
    ]


def _annotations(alert: Alert, site_url: str) -> dict[str, str]:
    page, _, anchor = alert.anchor.partition("#")
    summary = message(alert.summary)
    description = alert.described
    return {
        "summary": summary.en,
        "description": description.en,
        "summary_zh": summary.zh,
        "description_zh": description.zh,
        "runbook_url": f"{site_url}en/{page.removesuffix('.md')}/#{anchor}",
        "runbook_url_zh": f"{site_url}{page.removesuffix('.md')}/#{anchor}",
        "threshold_source": alert.threshold_source.en,
        "threshold_source_zh": alert.threshold_source.zh,
    }


def rules(kb: KB, site_url: str) -> dict[str, Any]:
    out = []
    for alert in alerts(kb):
        rule: dict[str, Any] = {"alert": alert.name, "expr": alert.expr}
        if alert.duration:
            rule["for"] = alert.duration
        rule["labels"] = {"severity": SEVERITY}
        rule["annotations"] = _annotations(alert, site_url)
        out.append(rule)
    return {"groups": [{"name": "sglang-handbook", "rules": out}]}


# ------------------------------------------------------------------------------------------ promtool tests
SERIES_LABELS = 'model_name="m",engine_type="unified",tp_rank="0",job="sglang",instance="a:30000"'
LABELS = {"model_name": "m", "engine_type": "unified", "tp_rank": "0", "job": "sglang", "instance": "a:30000"}


def _series(metric: str, values: str) -> dict[str, str]:
    return {"series": f"{metric}{{{SERIES_LABELS}}}", "values": values}


def _every(samples: int, per: int) -> str:
    """A counter that rises by one every ``per`` samples, ``samples`` samples long."""
    return " ".join(str(i // per) for i in range(samples))


def _expect(alert: Alert, site_url: str, fires: bool, labels: dict[str, str] | None = None) -> list[dict]:
    if not fires:
        return []
    return [
        {
            "exp_labels": {**(LABELS if labels is None else labels), "severity": SEVERITY},
            "exp_annotations": _annotations(alert, site_url),
        }
    ]


def unit_tests(kb: KB, site_url: str) -> dict[str, Any]:
    """Synthetic series for every alert: one case that must fire and one that must stay quiet, at a 15s
    scrape interval."""
    by_key = {a.key: a for a in alerts(kb)}
    stated, _ = source_thresholds(kb)
    queue_max, usage = stated.queue_max or 0, stated.conservative_usage or 0.0
    tests = []

    def case(key: str, series: list[dict], eval_time: str, fires: bool, labels: dict | None = None) -> None:
        if key not in by_key:  # the KB does not state this alert's threshold: no alert, no test
            return
        alert = by_key[key]
        tests.append(
            {
                "interval": "15s",
                "input_series": series,
                "alert_rule_test": [
                    {
                        "eval_time": eval_time,
                        "alertname": alert.name,
                        "exp_alerts": _expect(alert, site_url, fires, labels),
                    }
                ],
            }
        )

    retracted = "sglang:num_retracted_requests_total"
    case("retract", [_series(retracted, _every(81, 2))], "20m", True)  # one every 30 s
    case("retract", [_series(retracted, _every(81, 4))], "20m", False)  # once a minute: normal
    queue = "sglang:num_queue_reqs"
    case("queue", [_series(queue, f"{queue_max + 1}x80")], "12m", True)
    case("queue", [_series(queue, f"{queue_max}x80")], "12m", False)
    case("queue", [_series(queue, f"{queue_max + 1}x20 0x60")], "12m", False)  # a burst shorter than 10m
    low, high = round(usage / 2, 2), round((1 + usage) / 2, 3)
    case("conservative", [_series("sglang:token_usage", f"{low}x80"), _series(queue, "10x80")], "17m", True)
    case("conservative", [_series("sglang:token_usage", f"{high}x80"), _series(queue, "10x80")], "17m", False)
    case("conservative", [_series("sglang:token_usage", f"{low}x80"), _series(queue, "0x80")], "17m", False)
    throughput, running = "sglang:gen_throughput", "sglang:num_running_reqs"
    collapse = [_series(throughput, "1000x240 300x120"), _series(running, "50x360")]
    case("collapse", collapse, "85m", True)
    case("collapse", [_series(throughput, "1000x360"), _series(running, "50x360")], "85m", False)
    idle = [_series(throughput, "1000x240 0x120"), _series(running, "50x240 0x120")]
    case("collapse", idle, "85m", False)  # traffic stopped: no running requests, no alert
    up = {"job": JOB, "instance": "a:30000"}
    case("down", [{"series": f'up{{job="{JOB}",instance="a:30000"}}', "values": "0x40"}], "7m", True, up)
    case("down", [{"series": f'up{{job="{JOB}",instance="a:30000"}}', "values": "1x40"}], "7m", False)
    case("absent", [_series("sglang:num_queue_reqs", "0x40")], "7m", True, {})
    case("absent", [_series(running, "0x40")], "7m", False)
    return {"rule_files": [RULES_FILE], "evaluation_interval": "15s", "tests": tests}


def scrape_config(targets: list[str]) -> dict[str, Any]:
    """A prometheus.yml that loads the rules and scrapes a set's Services by name (static targets: the
    Debian promtool that checks it has no Kubernetes service discovery)."""
    return {
        "global": {"scrape_interval": "15s", "evaluation_interval": "15s"},
        "rule_files": [RULES_FILE],
        "scrape_configs": [{"job_name": JOB, "static_configs": [{"targets": targets}]}],
    }


def dump(data: dict[str, Any], header: list[str]) -> str:
    lines = [f"# {line}".rstrip() for line in header]
    return "\n".join(lines) + "\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
