"""Committed generated files: what a stale one looks like, and the one command that regenerates them all."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

REGENERATE = "python -m handbook generate"
DIFF_LINES = 12  # enough of a diff to see what changed; the command shows the rest by rewriting the file


@dataclass(frozen=True)
class Stale:
    """A generated file that does not match its source, and why."""

    path: str  # relative to the repository root
    reason: str
    diff: str = ""  # the start of a unified diff, where the expected text is known without rendering

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def short_diff(path: str, committed: str, expected: str, limit: int = DIFF_LINES) -> str:
    """The first ``limit`` lines of the unified diff from the committed text to the expected one."""
    lines = list(
        difflib.unified_diff(
            committed.splitlines(),
            expected.splitlines(),
            f"{path} (committed)",
            f"{path} (generated)",
            lineterm="",
        )
    )
    more = len(lines) - limit
    return "\n".join(lines[:limit] + ([f"… {more} more diff line(s)"] if more > 0 else []))
