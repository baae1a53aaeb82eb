"""Numbers as the pages show them, in the page's language."""

from __future__ import annotations

import decimal

from handbook.core.units import GB, GIB, KIB, MIB


def thousands(n: float) -> str:
    return f"{round(n):,}"


def sig(x: float, digits: int = 3) -> str:
    """``x`` with about ``digits`` significant digits, without trailing zeros."""
    if x == 0:
        return "0"
    text = f"{x:.{digits}g}"
    if "e" in text:
        text = f"{x:,.0f}"
    return text


def binary_size(n_bytes: float) -> str:
    """Bytes in the largest binary unit that keeps the number ≥ 1 (KiB, MiB, GiB)."""
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if n_bytes >= size:
            return f"{sig(n_bytes / size)} {unit}"
    return f"{thousands(n_bytes)} B"


def gb(n_bytes: float, digits: int = 3) -> str:
    return f"{sig(n_bytes / GB, digits)} GB"


def billions(b: float) -> str:
    """Parameters given in billions: 1600 → 1.6T, 397 → 397B, 5.1 → 5.1B."""
    return f"{sig(b / 1000)}T" if b >= 1000 else f"{sig(b)}B"


def tokens(n: int) -> str:
    return thousands(n)


def percent(x: float) -> str:
    return f"{x:.1f}%"


def json_safe(text: str) -> str:
    """JSON text with ``<``, ``>`` and ``&`` written as \\u escapes: the same data when parsed, and never
    markup when the file is opened as a page or set inside a <script> element."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def parser_value(value: object) -> str:
    """An argparse default or choice as Python (and so ``--help``) writes it: ``False``, ``None``, ``['a']``;
    a value the snapshot could only store as its repr is shown as that repr."""
    if isinstance(value, dict) and set(value) == {"repr"}:
        return str(value["repr"])
    return value if isinstance(value, str) else repr(value)


def integer_text(number: int) -> str:
    """``str(number)`` for any int: Python refuses to write one of more than 4,300 digits (a guard against
    quadratic conversion), but a command may hold such a value and its message must still quote it."""
    if -(10**4000) < number < 10**4000:
        return str(number)
    return str(decimal.Decimal(number))  # exact, and without the limit
