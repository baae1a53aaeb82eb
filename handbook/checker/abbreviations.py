"""Abbreviations across the stored releases: a prefix argparse accepts today may be ambiguous in another.

argparse (``allow_abbrev``) takes a unique prefix of a long option as that option. A prefix that matched one
option in every stored release is robust so far: the doctor notes it and names the full flag. One that
matched none, or several, in any stored release (``--cuda-graph-bs`` became ambiguous when 0.5.23 split it
in two) stays a warning.
"""

from __future__ import annotations

import functools

from handbook.engine.history import History
from handbook.engine.snapshot import SnapshotError, load_history


@functools.lru_cache(maxsize=8)
def _spellings(history: History, program: str) -> dict[str, tuple[int, ...]]:
    return history.spellings_by_release(program)


def stable_abbreviation(program: str, prefix: str) -> str | None:
    """The one spelling ``prefix`` abbreviates in every stored release, or None when it matches none or
    several in any of them (or no history is stored)."""
    try:
        history = load_history()
    except SnapshotError:
        return None
    spellings = _spellings(history, program)
    matched = [spelling for spelling in spellings if spelling.startswith(prefix)]
    if len(matched) != 1:
        return None
    return matched[0] if len(spellings[matched[0]]) == len(history.versions) else None


def stored_span() -> tuple[int, str]:
    """How many releases are stored, and their span (``0.5.10–0.5.23``)."""
    history = load_history()
    return len(history.versions), f"{history.versions[0]}–{history.newest}"
