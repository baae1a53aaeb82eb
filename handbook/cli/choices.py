"""Picking a KB entity by name on the command line (``plan --model``, ``configure --gpu``, …): its id or its
display name in any case, else a refusal that names the closest and lists the choices."""

from __future__ import annotations

from handbook.core.messages import msg
from handbook.core.suggest import closest


class BadInput(Exception):
    """A value the command cannot use; the message says which and what would do."""


def resolve(lang: str, what_key: str, value: str, choices: dict[str, str]) -> str:
    """The id ``value`` names among ``choices`` (id → display name); ``what_key`` words what it names."""
    if value in choices:
        return value
    folded = {key.lower(): key for key in choices} | {name.lower(): key for key, name in choices.items()}
    if value.lower() in folded:
        return folded[value.lower()]
    close = closest(value.lower(), folded)
    hint = msg("cli-did-you-mean", lang, close=folded[close]) if close else ""
    what, listed = msg(what_key, lang), ", ".join(choices)
    raise BadInput(msg("cli-unknown-choice", lang, what=what, value=value, hint=hint, choices=listed))
