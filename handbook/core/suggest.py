""" "Did you mean …?": one way to find the closest known spelling of a mistyped name."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

# How alike two spellings must be (difflib's ratio) to suggest one for the other: 0.6 catches one or two
# wrong letters in a flag or an id without proposing unrelated words.
CUTOFF = 0.6


def closest(name: str, options: Iterable[str], cutoff: float = CUTOFF) -> str | None:
    """The known spelling closest to ``name``, or None when none is close enough."""
    close = difflib.get_close_matches(name, list(options), n=1, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(name: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for an English problem message, or "" when nothing is close."""
    close = closest(name, options)
    return f" (did you mean '{close}'?)" if close else ""
