"""Marker comments in the docs (``<!-- kb:NAME key=value … -->``) and the registry that replaces them.

A page holds prose and markers; every KB fact reaches it through a renderer registered here. An unknown
marker, a bad argument, a renderer error or a ``kb:`` comment left after replacement is an error that
names the page and line; all of a page's errors are reported together.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from handbook.core.markdown import code_lines
from handbook.core.quotes import QUOTE
from handbook.core.suggest import closest

MARKER = re.compile(r"<!--\s*kb:(?P<name>[a-z0-9-]+)(?P<args>(?:\s+[a-z_]+=\S+?)*)\s*-->")
LEFTOVER = re.compile(r"<!--\s*kb:")
_ARG = re.compile(r"([a-z_]+)=(\S+)")


class RenderError(Exception):
    """A renderer refused its input (unknown id, impossible calculation…); the message is for the author."""


@dataclass(frozen=True)
class MarkerProblem:
    page: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.message}"


class MarkerErrors(Exception):
    def __init__(self, problems: list[MarkerProblem]):
        self.problems = problems
        super().__init__("\n".join(map(str, problems)))


@dataclass(frozen=True)
class Renderer:
    name: str
    func: Callable[..., str]
    inline: bool  # replaces a marker inside a sentence; block renderers need the marker on a line of its own
    params: tuple[str, ...]
    required: tuple[str, ...]


REGISTRY: dict[str, Renderer] = {}


def renderer(name: str, *, inline: bool = False) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Register ``func(ctx, **args) -> markdown`` as the renderer of ``<!-- kb:name … -->``."""

    def register(func: Callable[..., str]) -> Callable[..., str]:
        if name in REGISTRY:
            raise ValueError(f"renderer kb:{name} registered twice")
        sig = inspect.signature(func)
        params = tuple(p for p in sig.parameters if p != "ctx")
        required = tuple(p for p in params if sig.parameters[p].default is inspect.Parameter.empty)
        REGISTRY[name] = Renderer(name, func, inline, params, required)
        return func

    return register


def parse_args(raw: str) -> dict[str, str]:
    return {key: value for key, value in _ARG.findall(raw)}


def render_page(markdown: str, ctx: Any, page: str) -> str:
    """Replace every marker of one page; raise ``MarkerErrors`` with all of its problems."""
    problems: list[MarkerProblem] = []
    code = code_lines(markdown)  # markers in code blocks are examples, not markers
    out: list[str] = []
    for number, line in enumerate(markdown.splitlines(keepends=True)):
        if number in code:
            out.append(line)
            continue
        rendered = _render_line(line, number + 1, ctx, page, problems)
        # what a renderer put inside a code block is shown as written: no quotation markup, no marker
        pieces = rendered.splitlines(keepends=True)
        inside = code_lines(rendered)
        for i, piece in enumerate(pieces):
            if i in inside:
                continue
            if QUOTE.search(piece):  # the page's own quotations of the source (⟦…⟧)
                piece = pieces[i] = QUOTE.sub(lambda m: ctx.source_quote(m.group("text")), piece)
            if LEFTOVER.search(piece) and not any(p.line == number + 1 for p in problems):
                problems.append(
                    MarkerProblem(
                        page, number + 1, "malformed kb: marker (expected <!-- kb:name key=value -->)"
                    )
                )
        out.append("".join(pieces))
    if problems:
        raise MarkerErrors(problems)
    return "".join(out)


def _render_line(line: str, number: int, ctx: Any, page: str, problems: list[MarkerProblem]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group("name")
        spec = REGISTRY.get(name)
        if spec is None:
            close = closest(name, REGISTRY)
            hint = f" (did you mean kb:{close}?)" if close else ""
            problems.append(MarkerProblem(page, number, f"unknown marker kb:{name}{hint}"))
            return match.group(0)
        alone = line.strip() == match.group(0)
        if not spec.inline and not alone:
            problems.append(
                MarkerProblem(page, number, f"kb:{name} renders a block: put it on a line of its own")
            )
            return match.group(0)
        args = parse_args(match.group("args"))
        unknown = sorted(set(args) - set(spec.params))
        missing = [p for p in spec.required if p not in args]
        if unknown or missing:
            parts = []
            if unknown:
                parts.append(f"unknown argument(s) {', '.join(unknown)}")
            if missing:
                parts.append(f"missing argument(s) {', '.join(missing)}")
            problems.append(
                MarkerProblem(
                    page,
                    number,
                    f"kb:{name}: {'; '.join(parts)} (accepts: {', '.join(spec.params) or 'none'})",
                )
            )
            return match.group(0)
        try:
            output = spec.func(ctx, **args)
        except RenderError as exc:
            problems.append(MarkerProblem(page, number, f"kb:{name}: {exc}"))
            return match.group(0)
        if spec.inline:
            return output
        # A block keeps the marker's indentation (inside a tab or an admonition) and stands in blank lines.
        indent = line[: len(line) - len(line.lstrip())]
        body = "\n".join(indent + row if row.strip() else "" for row in output.strip("\n").splitlines())
        return "\n" + body + "\n"

    return MARKER.sub(replace, line)
