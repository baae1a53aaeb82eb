"""What the checker reports: one finding per problem, with a stable code and a message in both languages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from handbook.core.text import Text

Severity = Literal["error", "warning", "note"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "note")  # the most severe first
RANK = {severity: rank for rank, severity in enumerate(SEVERITIES)}
# What a finding means for the reader, the most harmful first: the order findings are listed in. An error
# refuses to start (or to connect); a warning will misbehave; security advice (a rule marked ``security``)
# comes next; any other note is style.
IMPACTS = ("refuses", "misbehaves", "security", "style")
# A finding's impact by its severity, where the finding is not a security rule's warning or note
IMPACT_OF = {"error": "refuses", "warning": "misbehaves", "note": "style"}


@dataclass(frozen=True)
class Finding:
    """One problem in a command.

    ``code`` is stable (tests, scripts and the site key on it); ``line`` is the 1-based line of the checked
    text where the offending word starts; ``subject`` is that word (a flag, a variable, a module); ``link``
    is the handbook section that explains the finding, as ``page.md#anchor`` relative to a language folder;
    ``rule`` is the id of the KB rule behind a ``rule.*`` finding, and ``said`` that rule's message with the
    command's values, without what the engine does (the drift page shows it for each rule's example).
    """

    severity: Severity
    code: str
    message: Text
    line: int | None = None
    subject: str | None = None
    link: str | None = None
    rule: str | None = None
    said: Text | None = None
    # A mechanical fix: edits to the command that starts on ``edit_line`` (``("set", flag, value)``,
    # ``("drop", flag)``, ``("rename", spelling, flag)``), applied by corrections.corrected_commands.
    edits: tuple[tuple[str, ...], ...] = ()
    edit_line: int | None = None
    security: bool = False  # the finding of a rule marked ``security`` in kb/rules.yaml

    @property
    def impact(self) -> str:
        """refuses > misbehaves > security > style (IMPACTS)."""
        if self.security and self.severity != "error":
            return "security"
        return IMPACT_OF[self.severity]

    def format(self, lang: str, where: str = "") -> str:
        """``where:line: severity[code]: message`` — the form the CLI and the build print."""
        place = (
            f"{where}:{self.line}"
            if where and self.line
            else (where or (str(self.line) if self.line else ""))
        )
        head = f"{place}: " if place else ""
        return f"{head}{self.severity}[{self.code}]: {self.message[lang]}"


def exit_status(findings: list[Finding]) -> int:
    """0 when clean (notes only), 1 with warnings, 2 with errors."""
    severities = {f.severity for f in findings}
    if "error" in severities:
        return 2
    if "warning" in severities:
        return 1
    return 0


def ordered(findings: list[Finding]) -> list[Finding]:
    """By impact (IMPACTS: what refuses to start first, style last), then line, then severity; stable for
    findings of the same place."""
    return sorted(findings, key=lambda f: (IMPACTS.index(f.impact), f.line or 0, RANK[f.severity]))
