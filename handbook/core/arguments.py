"""What the command line may name, checked before anything runs: every mistake is one line and exit status 2.

``OneLineParser`` reports a bad argument as one line (argparse prints its usage block first), the value it
quotes written out visibly (an escape sequence in an argument never reaches the terminal). The argument types
refuse what would otherwise fail deep inside a command: a folder that does not exist (never created), a
file that is a folder, a number past what the command can use.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import NoReturn

from handbook.core.text import visible


class OneLineParser(argparse.ArgumentParser):
    """argparse, with one line per error (``--help`` still prints the usage and every option)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"✖ {self.prog}: {visible(message)} (--help lists the options)\n")


def _kind(path: Path) -> str:
    """What is at ``path``: "folder", "file", "other", "missing" or "unusable" (a NUL, a lone surrogate)."""
    try:
        if "\x00" in str(path):  # pathlib reads such a path as missing; the system cannot open it
            return "unusable"
        os.fsencode(path)  # a lone surrogate the file system's encoding cannot write
        if path.is_dir():
            return "folder"
        if path.is_file():
            return "file"
        return "other" if path.exists() else "missing"
    except (OSError, ValueError):
        return "unusable"


def _shown(value: str) -> str:
    shown = visible(value)
    return shown if len(shown) <= 120 else shown[:117] + "…"


def folder(value: str) -> Path:
    """An existing folder (``--kb``, ``--docs``, ``--out``): a missing one is an error, never created."""
    path = Path(value)
    kind = _kind(path)
    if kind == "folder":
        return path
    why = {"missing": "no such folder; it is not created", "unusable": "not a usable path"}.get(
        kind, "a file"
    )
    raise argparse.ArgumentTypeError(f"got '{_shown(value)}' ({why}), expected an existing folder")


def file(value: str) -> Path:
    """An existing regular file (``--config``)."""
    path = Path(value)
    kind = _kind(path)
    if kind == "file":
        return path
    why = {"folder": "a folder", "other": "not a regular file", "missing": "no such file"}.get(
        kind, "not a usable path"
    )
    raise argparse.ArgumentTypeError(f"got '{_shown(value)}' ({why}), expected an existing file")


def output(value: str) -> Path:
    """A file to write (``--output``, ``--record``): not a folder, in a folder that exists."""
    path = Path(value)
    kind = _kind(path)
    if kind in ("folder", "unusable"):
        what = "a folder" if kind == "folder" else "not a usable path"
        raise argparse.ArgumentTypeError(f"got '{_shown(value)}' ({what}), expected a file to write")
    if _kind(path.parent) != "folder":
        raise argparse.ArgumentTypeError(
            f"got '{_shown(value)}' (its folder {_shown(str(path.parent))} does not exist and is not "
            "created), expected a file in an existing folder"
        )
    return path


def output_or_dash(value: str) -> str:
    """A file to write, as ``output`` checks it, or ``-`` for none (``bench --record -``)."""
    return value if value == "-" else str(output(value))


def new_folder(value: str) -> Path:
    """A folder a command makes or replaces (``build --site-dir``): its parent must exist."""
    path = Path(value)
    if _kind(path) == "unusable" or _kind(path.absolute().parent) != "folder":
        raise argparse.ArgumentTypeError(
            f"got '{_shown(value)}' (its parent folder does not exist and is not created), expected a "
            "folder in an existing one"
        )
    return path


# The largest whole number a command takes: beyond any count of GPUs, tokens or requests
LARGEST = 2**53


def whole(low: int | None = 1, high: int = LARGEST) -> type[int]:
    """A whole number from ``low`` to ``high`` (no lower bound when ``low`` is None: the command checks it
    with its own words), refused as one line otherwise (also ``10**5000``, ``1e3``)."""
    wanted = (
        f"a whole number from {low:,} to {high:,}" if low is not None else f"a whole number up to {high:,}"
    )

    def parse(value: str) -> int:
        text = value.strip()
        if not text.lstrip("+-").isdigit() or len(text) > 20:  # also spares int() a 5,000-digit string
            raise argparse.ArgumentTypeError(f"got '{_shown(value)}', expected {wanted}")
        number = int(text)
        if number > high or (low is not None and number < low):
            raise argparse.ArgumentTypeError(f"got {number:,}, expected {wanted}")
        return number

    parse.__name__ = "whole number"
    return parse  # type: ignore[return-value]


def finite(value: str) -> float:
    """A finite number (not nan, inf or 1e999), its range left to the command's own check."""
    try:
        number = float(value) if len(value) <= 40 else math.nan
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"got '{_shown(value)}', expected a finite number")
    return number


finite.__name__ = "number"


def real(low: float, high: float, *, low_open: bool = False, high_open: bool = False) -> type[float]:
    """A finite number within ``[low, high]`` (an end excluded when open); nan, inf and 1e999 are refused."""
    below = "above" if low_open else "at least"
    above = "below" if high_open else "at most"

    def parse(value: str) -> float:
        try:
            number = float(value) if len(value) <= 40 else math.nan
        except ValueError:
            number = math.nan
        inside = (
            math.isfinite(number)
            and (number > low if low_open else number >= low)
            and (number < high if high_open else number <= high)
        )
        if not inside:
            raise argparse.ArgumentTypeError(
                f"got '{_shown(value)}', expected a number {below} {low:g} and {above} {high:g}"
            )
        return number

    parse.__name__ = "number"
    return parse  # type: ignore[return-value]


def text(value: str) -> str:
    """Text a command echoes or writes (a name, an id): no lone surrogate (not valid Unicode)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(
            f"got '{_shown(value.encode('utf-8', 'backslashreplace').decode())}' "
            "(not valid Unicode), expected text"
        ) from None
    return value


class InputError(Exception):
    """Input a command cannot read (standard input that is not text); the message is one line."""


def stdin_text() -> str:
    """Standard input as UTF-8 text whatever the locale: anything else is an InputError, not a traceback."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # replaced by text (tests, embedding)
        return sys.stdin.read()
    data = stream.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"standard input is not UTF-8 text (byte {exc.start:,}: {exc.reason})") from None
