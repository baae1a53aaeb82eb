"""Grafana dashboards for one SGLang server and for a PD set-up with its router, built in code with
grafana-foundation-sdk (no hand-written dashboard JSON).

One dashboard per language (``sglang-server-zh``, ``sglang-server-en``, …): Grafana shows a panel's title
and description as stored, and a dashboard variable can only substitute a value into them, not translate
them; two files with the same panels and the same queries (a test compares them) are the honest way to
serve both languages. Every query names only samples the pinned engine's /metrics serves (``queries`` is
what the tests check against the engine snapshot); the router's ``smg_*`` names are strings of its binary.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

from grafana_foundation_sdk.builders import dashboard as gd
from grafana_foundation_sdk.builders import prometheus, timeseries
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import DataSourceRef

from handbook.core.messages import msg
from handbook.core.text import Text
from handbook.kb.loader import KB

DATASOURCE = DataSourceRef(type_val="prometheus", uid="${datasource}")
SELECT = '{model_name=~"$model_name"}'


@dataclass(frozen=True)
class Panel:
    title: str  # a key of the production messages
    description: str  # a key of the production messages
    unit: str
    queries: tuple[tuple[str, str], ...]  # (PromQL, legend)
    max: float | None = None
    # the decode log line's field whose healthy value the source gives (kb/observability.yaml), and the
    # message that adds it to the description
    healthy: tuple[str, str] | None = None


def _quantiles(metric: str, by: str) -> tuple[tuple[str, str], ...]:
    grouping = f"le, {by}" if by else "le"
    legend = f"{{{{{by}}}}} " if by else ""
    return tuple(
        (
            f"histogram_quantile({q}, sum by ({grouping}) (rate({metric}_bucket{SELECT}[$__rate_interval])))",
            f"{legend}p{round(q * 100)}",
        )
        for q in (0.5, 0.9, 0.99)
    )


def _server_panels(by: str) -> list[Panel]:
    """The panels of one server; ``by`` splits every series by a label (engine_type for PD)."""
    group = f"instance, {by}" if by else "instance"
    legend = f"{{{{instance}}}} {{{{{by}}}}}" if by else "{{instance}}"
    rate = "[$__rate_interval]"
    return [
        Panel(
            "prod-panel-throughput",
            "prod-panel-throughput-desc",
            "none",
            ((f"sum by ({group}) (sglang:gen_throughput{SELECT})", legend),),
        ),
        Panel(
            "prod-panel-requests",
            "prod-panel-requests-desc",
            "reqps",
            ((f"sum by ({group}) (rate(sglang:num_requests_total{SELECT}{rate}))", legend),),
        ),
        Panel(
            "prod-panel-queue",
            "prod-panel-queue-desc",
            "none",
            ((f"sum by ({group}) (sglang:num_queue_reqs{SELECT})", legend),),
            healthy=("#queue-req", "prod-panel-queue-healthy"),
        ),
        Panel(
            "prod-panel-running",
            "prod-panel-running-desc",
            "none",
            ((f"sum by ({group}) (sglang:num_running_reqs{SELECT})", legend),),
        ),
        Panel(
            "prod-panel-kv",
            "prod-panel-kv-desc",
            "percentunit",
            ((f"max by ({group}) (sglang:token_usage{SELECT})", legend),),
            max=1,
            healthy=("token usage", "prod-panel-kv-healthy"),
        ),
        Panel(
            "prod-panel-retract",
            "prod-panel-retract-desc",
            "none",
            ((f"60 * sum by ({group}) (rate(sglang:num_retracted_requests_total{SELECT}{rate}))", legend),),
        ),
        Panel(
            "prod-panel-cache-hit",
            "prod-panel-cache-hit-desc",
            "percentunit",
            ((f"avg by ({group}) (sglang:cache_hit_rate{SELECT})", legend),),
            max=1,
        ),
        Panel(
            "prod-panel-ttft",
            "prod-panel-ttft-desc",
            "s",
            _quantiles("sglang:time_to_first_token_seconds", by),
        ),
        Panel(
            "prod-panel-itl", "prod-panel-itl-desc", "s", _quantiles("sglang:inter_token_latency_seconds", by)
        ),
        Panel(
            "prod-panel-e2e", "prod-panel-e2e-desc", "s", _quantiles("sglang:e2e_request_latency_seconds", by)
        ),
    ]


def _pd_panels() -> list[Panel]:
    rate = "[$__rate_interval]"
    return _server_panels("engine_type") + [
        Panel(
            "prod-panel-prefill-queues",
            "prod-panel-prefill-queues-desc",
            "none",
            (
                (
                    f"sum by (instance) (sglang:num_prefill_bootstrap_queue_reqs{SELECT})",
                    "{{instance}} bootstrap",
                ),
                (
                    f"sum by (instance) (sglang:num_prefill_inflight_queue_reqs{SELECT})",
                    "{{instance}} inflight",
                ),
            ),
        ),
        Panel(
            "prod-panel-decode-queues",
            "prod-panel-decode-queues-desc",
            "none",
            (
                (
                    f"sum by (instance) (sglang:num_decode_prealloc_queue_reqs{SELECT})",
                    "{{instance}} prealloc",
                ),
                (
                    f"sum by (instance) (sglang:num_decode_transfer_queue_reqs{SELECT})",
                    "{{instance}} transfer",
                ),
            ),
        ),
        Panel(
            "prod-panel-kv-transfer",
            "prod-panel-kv-transfer-desc",
            "none",
            (
                (
                    f"60 * sum by (instance) (rate(sglang:num_transfer_failed_reqs_total{SELECT}{rate}))",
                    "transfer",
                ),
                (
                    f"60 * sum by (instance) (rate(sglang:num_bootstrap_failed_reqs_total{SELECT}{rate}))",
                    "bootstrap",
                ),
            ),
        ),
        Panel(
            "prod-panel-router-requests",
            "prod-panel-router-requests-desc",
            "reqps",
            ((f"sum by (instance) (rate(smg_http_requests_total{rate}))", "{{instance}}"),),
        ),
        Panel(
            "prod-panel-router-workers",
            "prod-panel-router-workers-desc",
            "none",
            (("smg_worker_health", "{{instance}}"),),
        ),
    ]


KINDS = {"server": lambda: _server_panels(""), "pd": _pd_panels}
TITLES = {"server": "prod-dash-server", "pd": "prod-dash-pd"}


def queries(kind: str) -> list[str]:
    """Every PromQL expression of a dashboard kind (what the tests check against the engine snapshot)."""
    return [expr for panel in KINDS[kind]() for expr, _ in panel.queries]


def healthy_values(kb: KB) -> dict[str, Text]:
    """The healthy value the source gives each field of the runtime log lines, by the field's name."""
    return {
        item.name: item.healthy
        for line in kb.observability.log_lines
        for item in line.fields
        if item.healthy is not None
    }


def _description(panel: Panel, lang: str, healthy: Mapping[str, Text]) -> str:
    text = msg(panel.description, lang)
    if panel.healthy is not None and panel.healthy[0] in healthy:
        field, key = panel.healthy
        text += msg(key, lang, healthy=healthy[field][lang])
    return text


def build(kind: str, lang: str, engine_version: str, healthy: Mapping[str, Text]) -> dict[str, object]:
    """A dashboard of ``kind`` in ``lang``; ``healthy`` is what the source calls healthy for each log field
    (``healthy_values``), which a panel's description quotes where the KB states it."""
    title = msg(TITLES[kind], lang)
    board = (
        gd.Dashboard(title)
        .uid(f"sglang-{kind}-{lang}")
        .description(msg("prod-dash-about", lang, version=engine_version))
        .tags(["sglang", "sglang-handbook", lang])
        .time("now-1h", "now")
        .refresh("30s")
        .with_variable(gd.DatasourceVariable("datasource").type("prometheus").label("Prometheus"))
        .with_variable(
            gd.QueryVariable("model_name")
            .label("model_name")
            .datasource(DATASOURCE)
            .query("label_values(sglang:num_running_reqs, model_name)")
            .multi(True)
            .include_all(True)
            .all_value(".*")
        )
    )
    for panel in KINDS[kind]():
        built = (
            timeseries.Panel()
            .title(msg(panel.title, lang))
            .description(_description(panel, lang, healthy))
            .datasource(DATASOURCE)
            .unit(panel.unit)
            .min(0)
            .height(8)
            .span(12)
        )
        if panel.max is not None:
            built = built.max(panel.max)
        for index, (expr, legend) in enumerate(panel.queries):
            built = built.with_target(
                prometheus.Dataquery().expr(expr).legend_format(legend).ref_id(chr(ord("A") + index))
            )
        board = board.with_panel(built)
    return json.loads(json.dumps(board.build(), cls=JSONEncoder, sort_keys=True))


def dashboard_json(kind: str, lang: str, engine_version: str, healthy: Mapping[str, Text]) -> str:
    board = build(kind, lang, engine_version, healthy)
    return json.dumps(board, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
