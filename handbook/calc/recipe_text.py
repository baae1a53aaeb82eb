"""Recipes → the exact shell text a reader copies (and the command checker reads)."""

from __future__ import annotations

import re

from handbook.core.text import Text
from handbook.kb.common import FlagLine, flag_line_text
from handbook.kb.schema import Recipe

MODULES = {
    "launch_server": "sglang.launch_server",
    "launch_router": "sglang_router.launch_router",
    "bench_serving": "sglang.benchmark.serving",
}
# A command stays on one line only when a phone shows it whole: 44 characters of code fit a 390 px screen.
# Anything longer is written one flag per line, continued with a backslash, so no flag is ever cut off.
ONE_LINE_MAX = 44
INDENT = "  "


def module_of(recipe: Recipe) -> str:
    assert recipe.program is not None
    return recipe.module or MODULES[recipe.program]


_FLAG_AHEAD = re.compile(r"\s+(?=--[A-Za-z])")


def one_flag_each(line: str) -> list[str]:
    """A line of flags as the recipe spells it (``--host 0.0.0.0 --port 8000``), one flag with its values
    per item; a ``--`` inside quotes (a JSON value) does not start a flag."""
    parts: list[str] = []
    start = 0
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch.isspace() and (match := _FLAG_AHEAD.match(line, i)) and match.start() == i:
            parts.append(line[start:i])
            start = match.end()
    parts.append(line[start:])
    return [part.strip() for part in parts if part.strip()]


def _continued(head: str | None, lines: list[str], indent: str = INDENT) -> str:
    parts = ([head] if head else []) + [(indent if head else "") + line for line in lines]
    return " \\\n".join(parts)


def command_text(recipe: Recipe, lang: str | None = None, with_title: bool = True) -> str:
    """The command as a reader types it. ``lang`` adds the title and remarks as comments in that language."""
    out: list[str] = []
    if lang and with_title:
        out.append(f"# {recipe.title[lang]}")
    if recipe.kind == "shell":
        return "\n".join(out + list(recipe.shell))

    flags = [flag for item in recipe.flags for flag in one_flag_each(flag_line_text(item))]
    if recipe.env and recipe.env_style == "export":
        for env in recipe.env:
            line = f"export {env.name}={env.value}"
            out.append(f"{line}   # {env.note[lang]}" if lang and env.note else line)
        out.append("")
    inline = recipe.env and recipe.env_style == "inline"
    prefix = "".join(f"{env.name}={env.value} " for env in recipe.env) if inline else ""

    if recipe.kind == "fragment":
        out.append(_continued(None, flags))
        return "\n".join(out)
    program = f"{prefix}python -m {module_of(recipe)}"
    if recipe.kind == "docker":
        assert recipe.docker is not None
        # the server's command inside the container: one flag per line too, indented under it
        inner = [program] + [INDENT + flag for flag in flags]
        out.append(
            _continued(
                "docker run " + recipe.docker.options[0],
                [*recipe.docker.options[1:], recipe.docker.image, *inner],
            )
        )
        return "\n".join(out)
    one_line = " ".join([program, *flags])
    if len(flags) <= 2 and len(one_line) <= ONE_LINE_MAX:
        out.append(one_line)
    else:
        out.append(_continued(program, flags))
    return "\n".join(out)


def line_notes(recipe: Recipe) -> list[tuple[str, Text]]:
    """End-of-line remarks on flag lines; shown beside the block, since a comment would break the ``\\``."""
    return [(item.line, item.note) for item in recipe.flags if isinstance(item, FlagLine) and item.note]


# The order a deployment's commands are read in: the servers before the router that targets them.
DEPLOYMENT_ORDER = ("prefill", "decode", "standalone", "router")


def deployments(recipes: list[Recipe]) -> dict[str, list[Recipe]]:
    """Recipes that run together (a shared ``deployment`` id), each set in DEPLOYMENT_ORDER then by id."""
    found: dict[str, list[Recipe]] = {}
    for recipe in recipes:
        if recipe.deployment is not None:
            found.setdefault(recipe.deployment, []).append(recipe)

    def order(recipe: Recipe) -> tuple[int, str]:
        known = recipe.role in DEPLOYMENT_ORDER
        return (DEPLOYMENT_ORDER.index(recipe.role) if known else len(DEPLOYMENT_ORDER)), recipe.id

    return {key: sorted(found[key], key=order) for key in sorted(found)}


def deployment_text(recipes: list[Recipe]) -> str:
    """A deployment's commands as one text, one after another, as the deployment check reads them."""
    return "\n".join(command_text(recipe) for recipe in recipes)
