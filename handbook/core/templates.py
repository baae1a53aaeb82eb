"""Wording from data (a KB rule's message): literal text and ``{name}`` fields, nothing else.

A template is literal text, ``{{`` and ``}}`` (a brace each) and ``{name}`` fields. Python's ``str.format``
would also read ``{name:>50000000}`` (50 MB of padding), ``{name!r}``, ``{name.attr}``, ``{name[0]}`` and
``{0}``; the browser's ``format()`` (docs/assets/checker.js) reads none of them. So a template is checked
against this one grammar when the KB is validated, and filled by it: both runtimes write the same words, and
data never decides how much is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# A field's name, as the rules' messages write them (the browser's format() reads \w+, a superset)
NAME = r"[a-z_][a-z0-9_]*"
_TOKEN = re.compile(r"\{\{|\}\}|\{(" + NAME + r")\}|[{}]")
_SHOWN = 40  # how much of a refused field a message quotes


def template_problems(template: str, allowed: Iterable[str], what: str = "the fields") -> list[str]:
    """Why ``template`` is not plain text with ``{name}`` fields among ``allowed`` (``what`` words them):
    one line per problem."""
    offered = list(allowed)
    listed = ", ".join(offered) or "none"
    out = []
    at = 0
    while (match := _TOKEN.search(template, at)) is not None:
        token, name = match.group(0), match.group(1)
        at = match.end()
        if token in ("{{", "}}"):
            continue
        if name is not None:
            if name not in offered:
                out.append(f"got {{{name}}}, expected only {what}: {listed}")
            continue
        field = token
        if token == "{":  # the whole field, up to its closing brace, is one problem
            end = template.find("}", match.start())
            at = len(template) if end < 0 else end + 1
            field = template[match.start() : at]
        shown = field if len(field) <= _SHOWN else field[:_SHOWN] + "…"
        out.append(
            f"got {shown!r}, expected plain {{name}} fields ({what}: {listed}) and {{{{ or }}}} for a brace; "
            "no format spec, conversion, index or position"
        )
    return out


def fields(template: str) -> list[str]:
    """The names of ``template``'s ``{name}`` fields, each once, in order."""
    names = (match.group(1) for match in _TOKEN.finditer(template) if match.group(1) is not None)
    return list(dict.fromkeys(names))


def fill(template: str, values: Mapping[str, object]) -> str:
    """``template`` with each ``{name}`` replaced by ``str(values[name])`` and ``{{``/``}}`` by a brace; a
    template that breaks the grammar raises ValueError (the KB's validation refuses it first)."""

    def one(match: re.Match[str]) -> str:
        token, name = match.group(0), match.group(1)
        if token in ("{{", "}}"):
            return token[0]
        if name is None:
            raise ValueError(f"not a template field: {token!r}")
        return str(values[name])

    return _TOKEN.sub(one, template)
