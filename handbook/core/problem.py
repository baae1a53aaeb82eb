"""A problem in the project's own files, located as ``file:line: path: message`` for its author."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong, located as precisely as the data allows.

    ``file`` is relative to the repository; ``line`` is 1-based, or None for a problem of the whole file
    (a missing page); ``path`` is the field inside a YAML file (``flags[3]``), empty elsewhere.
    """

    file: str
    line: int | None
    path: str
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"

    @property
    def order(self) -> tuple[str, int, str]:
        """How reports sort problems: by file, then line (whole-file problems first), then field."""
        return (self.file, self.line or 0, self.path)
