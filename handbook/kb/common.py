"""Building blocks shared by every schema: ids, dates, flag lines and cross-field errors.

The closed base model and the bilingual ``Text`` are the whole package's: ``handbook.core.text``.
"""

from __future__ import annotations

import re
import shlex
from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Strict, StringConstraints
from pydantic_core import PydanticCustomError

from handbook.core.text import Closed, Text, filled_in


def within(low: float, high: float, what: str) -> AfterValidator:
    """A plausible range for a physical quantity: a value outside it is a typo or a unit mix-up."""

    def check(value: float) -> float:
        if not low <= value <= high:
            raise ValueError(f"{what} between {low:,g} and {high:,g}")
        return value

    return AfterValidator(check)


def count(high: int, what: str) -> Any:
    """A whole number from 1 to ``high`` of ``what``."""
    return Annotated[int, within(1, high, f"a number of {what}")]


def size(low: float, high: float, what: str) -> Any:
    """A quantity from ``low`` to ``high`` (whole or not)."""
    return Annotated[float, within(low, high, what)]


Id = Annotated[
    str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$", max_length=80), BeforeValidator(filled_in)
]


def latest_date() -> date:
    """Today's date where it is latest (UTC+14): no date after it has happened anywhere yet. The check runs
    on the build's own clock, not a commit's: a fact verified today is not in the future wherever it was."""
    return (datetime.now(UTC) + timedelta(hours=14)).date()


def _not_future(value: date) -> date:
    if value > latest_date():
        raise ValueError(f"a date that has happened (on or before {latest_date().isoformat()})")
    return value


# A calendar date: YAML reads 2026-11-30 as one; kb.json writes it as text and reads it back (so not strict).
# A date after today is a typo (2999-01-01), never a fact someone checked.
Day = Annotated[date, Strict(False), AfterValidator(_not_future)]


_FLAG = re.compile(r"^--[a-z0-9][a-z0-9_-]*$")


def flag_name(token: str) -> str | None:
    """``--tp-size=4`` → ``--tp-size``; anything not shaped like a long option → None."""
    name = token.split("=", 1)[0]
    return name if _FLAG.match(name) else None


def _one_line(value: str) -> str:
    """Text that goes into a command a reader copies: one line, no tab (the KB's reader already refuses
    every character a reader cannot see)."""
    if "\n" in value or "\t" in value:
        raise ValueError(
            "one line of a command, without a newline or a tab (write each line as its own entry)"
        )
    return value


# A value copied into a command (a variable's value, a docker option, the image, a shell line)
CommandText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1),
    AfterValidator(_one_line),
    BeforeValidator(filled_in),
]


def _flag_line(value: str) -> str:
    _one_line(value)
    try:
        tokens = shlex.split(value)
    except ValueError as exc:
        raise ValueError(f"a shell-quoted flag line ({exc})") from None
    if not tokens or flag_name(tokens[0]) is None:
        raise ValueError("a line that starts with a long flag such as '--tp-size 8'")
    return value


FlagLineText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=3),
    AfterValidator(_flag_line),
    BeforeValidator(filled_in),
]


class FlagLine(Closed):
    """One line of a command as a person types it, with an optional bilingual end-of-line comment."""

    line: FlagLineText
    note: Text | None = None


def _command_words(value: str) -> str:
    _one_line(value)
    for part in value.split("…"):  # "…" separates the changed parts of one command
        try:
            shlex.split(part)
        except ValueError as exc:
            raise ValueError(f"words of a command the shell can read ({exc})") from None
    return value


# Words of a command as typed (a correction's stated and published parts, "…" between parts): the replay
# and the drift page split them as the shell does, so they must be shell-readable.
CommandWords = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1),
    AfterValidator(_command_words),
    BeforeValidator(filled_in),
]


def flag_line_text(item: str | FlagLine) -> str:
    return item.line if isinstance(item, FlagLine) else item


def flags_in(lines: list[str | FlagLine]) -> list[tuple[str, list[str]]]:
    """Every ``(flag, values)`` in command lines, in order (``--a=1`` and ``--a 1`` alike)."""
    out: list[tuple[str, list[str]]] = []
    for item in lines:
        for token in shlex.split(flag_line_text(item)):
            name = flag_name(token)
            if name is not None:
                out.append((name, [token.split("=", 1)[1]] if "=" in token else []))
            elif out:
                out[-1][1].append(token)
    return out


def rule_error(at: str, message: str) -> PydanticCustomError:
    """A cross-field rule broken at ``at`` (a dotted path below the model), for an exact file:line."""
    return PydanticCustomError("kb_rule", message, {"at": at})
