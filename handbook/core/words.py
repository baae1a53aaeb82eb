"""A word or phrase as a pattern that finds it whole: where it begins or ends with a Latin letter, digit,
``_`` or ``-``, no such character may stand next to it there (``attn-dp`` is not found in
``--attn-dp-size``); Chinese characters need no boundary. Case-sensitive."""

from __future__ import annotations

import re

_EDGE = "A-Za-z0-9_-"


def whole(phrase: str) -> re.Pattern[str]:
    before = rf"(?<![{_EDGE}])" if re.match(rf"[{_EDGE}]", phrase) else ""
    after = rf"(?![{_EDGE}])" if re.search(rf"[{_EDGE}]$", phrase) else ""
    return re.compile(before + re.escape(phrase) + after)
