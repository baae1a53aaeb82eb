"""Metric names in the KB against the Prometheus metrics the pinned engine defines.

Chapter 08's metric table (``kb/observability.yaml``'s ``metrics``) and every KB text that writes a metric
name (``sglang:…``) must name what the engine's ``/metrics`` serves: a metric family of the snapshot
(``handbook/engine/dump.py``'s ``describe_metrics``; a histogram by its family name) or one of the sample
names prometheus_client derives from it (``_total``, ``_bucket``, ``_count``, ``_sum``).
"""

from __future__ import annotations

import re

from handbook.core.problem import Problem
from handbook.core.suggest import closest
from handbook.engine.snapshot import EngineSnapshot
from handbook.kb.loader import KB, KINDS
from handbook.kb.texts import leaves

# A metric name written in text; an image tag (lmsysorg/sglang:latest) has a / or a word before it.
METRIC_IN_TEXT = re.compile(r"(?<![\w/.:-])sglang:[a-z_][a-z0-9_:]*")


def unknown_metric(name: str, snapshot: EngineSnapshot) -> str | None:
    """Why ``name`` is not a sample of the engine's /metrics (None when it is)."""
    metrics = snapshot.metrics
    version = snapshot.sglang_version
    if metrics is None:
        return f"got '{name}', but the snapshot of sglang {version} has no metrics (nox -s engine-snapshot)"
    if metrics.named(name) is not None:
        return None
    hint = closest(name, [m.base_name for m in metrics.definitions] + metrics.series_names())
    return f"got '{name}', expected a metric sglang {version} exports" + (
        f" (did you mean '{hint}'?)" if hint else ""
    )


def metric_name_problems(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    problems = []
    observability = kb.observability
    origin = kb.origin(observability)
    for index, metric in enumerate(observability.metrics):
        message = unknown_metric(metric.name, snapshot)
        if message is not None:
            problems.append(origin.at(("metrics", index, "name"), message))
    for kind in KINDS:
        for entity in kind.entities(getattr(kb, kind.name)):
            for leaf in leaves(entity):
                for name in METRIC_IN_TEXT.findall(leaf.text):
                    message = unknown_metric(name, snapshot)
                    if message is not None and not (entity is observability and leaf.field == "name"):
                        problems.append(kb.origin(entity).at(leaf.path, message))
    return problems
