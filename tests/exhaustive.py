"""The size of the tests that sample a large space (seeded variants, grids, fuzzing).

The suite (``nox -s tests``, CI) runs a fixed, representative sample of each, chosen so that it reaches
everything the full run has been seen to reach; ``nox -s exhaustive`` (HANDBOOK_EXHAUSTIVE=1) runs them in
full. Each test's docstring says what its full version is.
"""

from __future__ import annotations

import os

EXHAUSTIVE = os.environ.get("HANDBOOK_EXHAUSTIVE") == "1"


def sized(sample: int, full: int) -> int:
    """``full`` under ``nox -s exhaustive``, else ``sample``."""
    return full if EXHAUSTIVE else sample
