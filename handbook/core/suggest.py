""" "Did you mean …?": one way to find the closest known spelling of a mistyped name."""

from __future__ import annotations

import difflib
import functools
from collections import Counter
from collections.abc import Iterable

# How alike two spellings must be (difflib's ratio) to suggest one for the other: 0.6 catches one or two
# wrong letters in a flag or an id without proposing unrelated words.
CUTOFF = 0.6
# How many names one check compares with its lists (each distinct name once). A pasted command of
# thousands of unknown words would otherwise cost seconds of comparisons; past this many, a finding keeps
# its error and loses only its "did you mean". The browser's checker counts the same way.
SUGGESTIONS_PER_CHECK = 50


@functools.lru_cache(maxsize=8192)
def _letters(text: str) -> Counter[str]:
    return Counter(text)


def closest(name: str, options: Iterable[str], cutoff: float = CUTOFF) -> str | None:
    """The known spelling closest to ``name``, or None when none is close enough: what
    ``difflib.get_close_matches(name, options, n=1, cutoff)`` returns (the highest ratio, ties to the
    larger string), with fewer exact ratios computed. Each option's letters shared with ``name`` bound its
    ratio from above (difflib's quick_ratio); options are compared in the order of that bound, and the
    search stops once the bound falls below the best ratio found."""
    wanted = _letters(name)
    bounded = []
    for option in options:
        length = len(option) + len(name)
        if not length:
            bounded.append((1.0, option))
            continue
        if 2.0 * min(len(option), len(name)) / length < cutoff:  # difflib's real_quick_ratio
            continue
        shared = sum(min(count, wanted[letter]) for letter, count in _letters(option).items())
        bound = 2.0 * shared / length
        if bound >= cutoff:
            bounded.append((bound, option))
    bounded.sort(key=lambda item: item[0], reverse=True)
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(name)
    best: tuple[float, str] | None = None
    for bound, option in bounded:
        if best is not None and bound < best[0]:
            break
        matcher.set_seq1(option)
        score = matcher.ratio()
        if score >= cutoff and (best is None or (score, option) > best):
            best = (score, option)
    return best[1] if best else None


def did_you_mean(name: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for an English problem message, or "" when nothing is close."""
    close = closest(name, options)
    return f" (did you mean '{close}'?)" if close else ""


class Suggestions:
    """The "did you mean" of one check: each distinct name is compared with a list once, and at most
    ``limit`` names are compared in all (SUGGESTIONS_PER_CHECK); after that, None."""

    def __init__(self, limit: int = SUGGESTIONS_PER_CHECK):
        self.left = limit
        self._found: dict[tuple[str, str], str | None] = {}

    def closest(self, name: str, pool: str, options: Iterable[str]) -> str | None:
        """``closest(name, options)``; ``pool`` names the list, for remembering the answer."""
        key = (pool, name)
        if key not in self._found:
            if self.left <= 0:
                return None
            self.left -= 1
            self._found[key] = closest(name, options)
        return self._found[key]
