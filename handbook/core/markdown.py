"""What every reader of the docs' Markdown agrees on: which lines are inside fenced code blocks."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")


def code_lines(markdown: str) -> set[int]:
    """0-based numbers of the lines inside fenced code blocks (fences included)."""
    inside: set[int] = set()
    fence: str | None = None
    for number, line in enumerate(markdown.splitlines()):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
            inside.add(number)
        elif fence is not None:
            inside.add(number)
            if line.strip().startswith(fence[0] * len(fence)) and line.strip().strip(fence[0]) == "":
                fence = None
    return inside
