"""The alert thresholds the source states, read from the KB texts that state them (kb/observability.yaml).

The production pack's Prometheus alerts (handbook.production.alerts) take a threshold from the source only
through here, so an alert follows the KB's words. A text is found by what cannot be reworded by accident
(a log field's name, a signal's id); its words must then state the threshold, or validation reports it at
its line (``threshold_problems``). A KB without the field or the signal (a fixture, a trimmed KB) simply has
no such threshold, and the alerts that need it are not generated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from handbook.core.text import Text
from handbook.kb.loader import KB

QUEUE_FIELD = "#queue-req"  # the decode log line's queue length, whose healthy range the source gives
CONSERVATIVE_SIGNAL = "conservative-scheduling"  # "token usage < X and #queue-req > 0"
RETRACT_SIGNAL = "frequent-retract"  # "… Retract requests." seen about once a minute is normal

_RANGE = re.compile(r"(\d+)–(\d+)")
_USAGE = re.compile(r"token usage < ([0-9.]+) and #queue-req > 0")
_ONCE_A_MINUTE = "about once a minute"

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class SourceThresholds:
    queue_max: int | None  # the top of the healthy #queue-req range
    queue_healthy: Text | None  # that range, in the KB's words
    conservative_usage: float | None  # token usage below which a queue means the server is too conservative
    conservative_action: Text | None  # what the source says to do then
    retract_per_minute: int | None  # retractions a minute the source calls normal


def source_thresholds(kb: KB) -> tuple[SourceThresholds, list[tuple[Path, str]]]:
    """The thresholds the KB states, and where a text that should state one does not (path, message)."""
    problems: list[tuple[Path, str]] = []
    observability = kb.observability
    queue_max = queue_healthy = None
    for i, line in enumerate(observability.log_lines):
        for j, item in enumerate(line.fields):
            if item.name != QUEUE_FIELD or item.healthy is None:
                continue
            found = _RANGE.fullmatch(item.healthy.en)
            if found:
                queue_max, queue_healthy = int(found.group(2)), item.healthy
            else:
                problems.append(
                    (
                        ("log_lines", i, "fields", j, "healthy", "en"),
                        f"got '{item.healthy.en}', expected a range 'a–b' (the queue alert's threshold)",
                    )
                )
    usage = per_minute = action = None
    for i, signal in enumerate(observability.signals):
        if signal.id == CONSERVATIVE_SIGNAL:
            found = _USAGE.fullmatch(signal.condition.en)
            if found:
                usage, action = float(found.group(1)), signal.action
            else:
                problems.append(
                    (
                        ("signals", i, "condition", "en"),
                        f"got '{signal.condition.en}', expected 'token usage < X and #queue-req > 0' "
                        "(the conservative-scheduling alert's threshold)",
                    )
                )
        elif signal.id == RETRACT_SIGNAL:
            if _ONCE_A_MINUTE in signal.action.en:
                per_minute = 1
            else:
                problems.append(
                    (
                        ("signals", i, "action", "en"),
                        f"got '{signal.action.en}', expected it to say how often a retraction is normal "
                        f"('{_ONCE_A_MINUTE}', the retraction alert's threshold)",
                    )
                )
    return SourceThresholds(queue_max, queue_healthy, usage, action, per_minute), problems
