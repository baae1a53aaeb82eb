"""Every flag written with a value where a reader sees it, checked like a command (handbook.checker.prose).

Three places hold text a reader sees:

- the KB: every string of every entity of every kind, found by walking the schema (handbook.kb.texts),
  so figure captions, tab titles (recipe titles), table cells and notes built from KB text are covered
  with no list of fields; a field marked ``Quoted`` (the source's words, wrong on purpose) is skipped, and
  so are a recipe's command fields (the engine-recipes check runs the published command);
- the pages of docs/<lang>/: prose, tables, admonitions and every fence but the shell ones (the
  page-commands check runs those), line by line, with the ``<!-- kb:… -->`` markers taken out;
- the catalogue of the site's own wording (handbook/core/messages/), with its ``{fields}`` left out.

A flag must be the engine's (a near miss is an error; an option of another tool is left alone), its value
one of its choices and of its type, a deprecated flag or module must be said to be deprecated, and what a
text writes must not break a KB rule the engine enforces unless the text references that rule (its
owner's ``rules``), so that the page shows the engine's verdict beside it. Words quoted from the source
(``⟦…⟧``) are not read. Each problem names the file and line: the YAML line of the field (the
loader's origins), the page's line, the catalogue entry's line.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from handbook.checker.findings import Finding
from handbook.checker.prose import Context, check_text
from handbook.core.messages import DOMAINS
from handbook.core.paths import REPO_ROOT
from handbook.core.problem import Problem
from handbook.core.quotes import quote_problem
from handbook.core.text import LANGS
from handbook.engine.snapshot import EngineSnapshot
from handbook.kb import schema as s
from handbook.kb.loader import KB, KINDS
from handbook.kb.texts import Leaf, leaves
from handbook.validation.pages import SHELL_LANGUAGES, fence_language

# A recipe's command, as published, is checked whole by the engine-recipes check.
_COMMAND_FIELDS = ("flags", "shell", "env", "docker", "module")
_TEMPLATE_FIELD = re.compile(r"\{[a-z_]+\}")
_COMMENT = re.compile(r"<!--.*?-->")
# A page line about another program than SGLang's (the handbook's own CLI, package tools).
_OTHER_PROGRAM = re.compile(
    r"python3? -m handbook|\bhandbook (?:plan|check|new|validate|build)\b|\bpip install\b|\bnox\b"
)
# The rules a text must answer for (by referencing them): what the engine itself does, refusing or adjusting.
_ENFORCED = ("raises", "adjusts")
# A string that is one flag's name names the flag (a related flag, a parameter's own or an alias): it is a
# reference, which the loader (documented in kb/parameters/) and the engine-parameters check judge.
_FLAG_NAME = re.compile(r"^--[a-z0-9][a-z0-9_-]*$")
# Catalogue entries worded for the handbook's own command line (its options are not SGLang's).
# The wording of this site's own command line (its options are the handbook's, not SGLang's flags).
_OWN_CLI_KEYS = ("planner-cli-", "cli-")
_DEPRECATION_WORDS = ("弃用", "deprecat")


@dataclass(frozen=True)
class Unit:
    """A text to check: where it is, its words, and its context."""

    file: str
    line: int | None
    path: str
    text: str
    context: Context
    covered: frozenset[str] = frozenset()  # the rules its owners reference

    @property
    def names_a_flag(self) -> bool:
        return bool(_FLAG_NAME.match(self.text.strip()))


# ------------------------------------------------------------------------------------------------ KB
def owner_rules(owners: tuple[BaseModel, ...]) -> frozenset[str]:
    """The rules a text's owners reference (a choice answers to its parameter's too); a rule's own texts
    are about that rule."""
    ids: set[str] = set()
    for owner in owners:
        ids.update(getattr(owner, "rules", None) or ())
        if isinstance(owner, s.Rule):
            ids.add(owner.id)
    return frozenset(ids)


def leaf_context(leaf: Leaf) -> Context:
    """The program a string's flags are for, what its owner writes, and the model it is about."""
    program = "launch_server"
    model: str | None = None
    owner: tuple[str, ...] = ()
    parameter: s.Parameter | None = None
    for item in leaf.owners:
        value = getattr(item, "program", None) if "program" in type(item).model_fields else None
        if isinstance(value, str):
            program = value
        if isinstance(item, s.Model):
            model = item.id
        elif isinstance(item, s.Recipe) and item.model:
            model = item.model
        elif isinstance(item, s.Pitfall) and len(item.scope.models) == 1:
            model = item.scope.models[0]
        if isinstance(item, s.Parameter):
            parameter = item
            owner = (item.flag,)
        elif isinstance(item, s.Choice) and parameter is not None:
            owner = (parameter.flag, "/".join(item.values))
    return Context(program, owner, model)


def _kb_units(kb: KB) -> Iterator[tuple[Unit, Any]]:
    for kind in KINDS:
        for entity in kind.entities(getattr(kb, kind.name)):
            origin = kb.origin(entity)
            for leaf in leaves(entity):
                if isinstance(entity, s.Recipe) and leaf.path[0] in _COMMAND_FIELDS:
                    continue
                if isinstance(entity, s.Rule) and leaf.path[0] in ("params", "predicate"):
                    continue
                context = leaf_context(leaf)
                text = leaf.text
                inner = leaf.owners[-1]
                if isinstance(inner, s.Rule) and leaf.field == "message":
                    text = _TEMPLATE_FIELD.sub("…", text)
                elif leaf.value_of is not None:
                    text = f"{leaf.value_of} {text}"
                elif (isinstance(inner, s.Choice) and leaf.field == "values") or (
                    isinstance(inner, s.Default) and leaf.field == "value"
                ):
                    text, context = _as_value(context, text)
                unit = Unit("", None, "", text, context, owner_rules(leaf.owners))
                yield unit, (origin, leaf.path)


def _as_value(context: Context, value: str) -> tuple[str, Context]:
    """A value of the owning parameter's flag, checked as ``flag value`` (the owner's words are the flag's
    alone here: a choice's value is what is being checked)."""
    flag = context.owner[0] if context.owner else ""
    return f"{flag} {value}", Context(context.program, (), context.model)


# --------------------------------------------------------------------------------------------- pages
def page_units(docs_dir: Path, langs: tuple[str, ...]) -> Iterator[Unit]:
    """Every line of every page a reader sees as text: prose, tables and non-shell fences."""
    for lang in langs:
        root = docs_dir / lang
        for path in sorted(root.rglob("*.md")):
            rel = f"docs/{lang}/{path.relative_to(root).as_posix()}"
            fence: tuple[str, str | None] | None = None
            continued_other = False  # the line continues (\) a command of another program
            lines = path.read_text(encoding="utf-8").splitlines()
            for number, line in enumerate(lines, 1):
                stripped = line.strip()
                if continued_other:
                    continued_other = stripped.endswith("\\")
                    continue
                if fence is None:
                    opened = re.match(r"^(`{3,}|~{3,})(.*)$", stripped)
                    if opened:
                        fence = (opened.group(1), fence_language(opened.group(2)))
                        continue
                elif stripped.startswith(fence[0]) and stripped.strip(fence[0][0]) == "":
                    fence = None
                    continue
                if fence is not None and fence[1] in SHELL_LANGUAGES:
                    continue
                text = _COMMENT.sub(" ", line)
                if _OTHER_PROGRAM.search(text):
                    continued_other = fence is not None and stripped.endswith("\\")
                    continue
                if "--" not in text and "⟦" not in text and "⟧" not in text and "-m sglang" not in text:
                    continue
                if _introduces_other_program(lines, number):
                    continue
                yield Unit(rel, number, "", text, Context())


def _introduces_other_program(lines: list[str], number: int) -> bool:
    """A sentence ending with a colon right before a block that runs another program is about that program
    ("The command line gives the same figures (without `--tp` …):" above ``python -m handbook plan``)."""
    if not lines[number - 1].rstrip().endswith((":", "：")):
        return False
    rest = [line for line in lines[number:] if line.strip()]
    if len(rest) < 2 or not re.match(r"^\s*(`{3,}|~{3,})", rest[0]):
        return False
    return bool(_OTHER_PROGRAM.search(rest[1]))


# ------------------------------------------------------------------------------------------ catalogue
def catalogue_units(langs: tuple[str, ...] = LANGS, own_cli: bool = False) -> Iterator[Unit]:
    """Every entry of the site's own wording in ``langs`` (both by default), its ``{fields}`` left out; the
    help and errors of this site's own command line only with ``own_cli`` (its flags are not SGLang's)."""
    for domain, messages in DOMAINS.items():
        path = REPO_ROOT / "handbook" / "core" / "messages" / f"{domain}.py"
        lines = _entry_lines(path)
        for key, pair in messages.items():
            if key.startswith(_OWN_CLI_KEYS) and not own_cli:
                continue
            for lang, text in zip(LANGS, pair, strict=True):
                if lang not in langs:
                    continue
                yield Unit(
                    path.relative_to(REPO_ROOT).as_posix(),
                    lines.get(key),
                    key,
                    _TEMPLATE_FIELD.sub("…", text.replace("{{", "{").replace("}}", "}")),
                    Context(),
                )


def _entry_lines(path: Path) -> dict[str, int]:
    if not path.is_file():
        return {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key in node.keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    out.setdefault(key.value, key.lineno)
    return out


# ------------------------------------------------------------------------------------------- judging
def judge(unit: Unit, snapshot: EngineSnapshot, kb: KB) -> list[str]:
    """The problems of one text, as messages."""
    out = []
    malformed = quote_problem(unit.text)
    if malformed is not None:
        out.append(malformed)
    if unit.names_a_flag:  # a reference: the loader and the engine-parameters check judge flag names
        return out
    for finding in check_text(unit.text, snapshot, kb, unit.context):
        problem = _problem(finding, unit, kb)
        if problem is not None:
            out.append(problem)
    return out


def _problem(finding: Finding, unit: Unit, kb: KB) -> str | None:
    if finding.rule is not None:
        rule = kb.rules[finding.rule]
        if rule.engine.does not in _ENFORCED or finding.rule in unit.covered:
            return None
        return (
            f"rule.{finding.rule}: {finding.message.en} Reference the rule (rules: [{finding.rule}]) so the "
            "page shows the engine's verdict beside this text, or mark the source's words ⟦…⟧"
        )
    if finding.severity != "error":
        return None
    return f"{finding.code}: {finding.message.en} (quote the source's words as ⟦…⟧ if they are meant)"


def kb_value_problems(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    problems = []
    for unit, (origin, path) in _kb_units(kb):
        for text in judge(unit, snapshot, kb):
            problems.append(origin.at(path, text))
    return problems + _deprecated_parameters(kb, snapshot) + choice_list_problems(kb, snapshot)


def choice_list_problems(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    """A parameter's choices hold every value of the engine's fixed choices, or say they do not
    (``choices_partial: true``, rendered as "the source lists N of the engine's M values"). A listed value
    the engine lacks is a value problem of its own (the choices' values are checked as ``flag value``)."""
    problems = []
    for (program, flag), parameter in kb.parameters.items():
        option = snapshot.parser(program).get(flag)
        if not parameter.choices or option is None or option.choices is None:
            continue
        listed = {v for choice in parameter.choices for v in choice.values}
        engine = [str(c) for c in option.choices]
        missing = [c for c in engine if c not in listed]
        origin = kb.origin(parameter)
        if missing and not parameter.choices_partial:
            shown = ", ".join(missing[:8]) + (f", … (+{len(missing) - 8})" if len(missing) > 8 else "")
            problems.append(
                origin.at(
                    ("choices",),
                    f"got {len(listed & set(engine))} of the engine's {len(engine)} values, expected all of "
                    f"them or choices_partial: true (missing: {shown})",
                )
            )
        elif not missing and parameter.choices_partial:
            problems.append(
                origin.at(
                    ("choices_partial",),
                    f"got choices_partial, but the choices hold all {len(engine)} of the engine's values: "
                    "expected it removed",
                )
            )
    return problems


def _deprecated_parameters(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    """A parameter the KB documents although the engine deprecates it says so in its one-line summary (the
    other texts that name the flag say so, or the value check fails them)."""
    problems = []
    for (program, flag), parameter in kb.parameters.items():
        option = snapshot.parser(program).get(flag)
        if option is None or not option.deprecated:
            continue
        for lang in ("zh", "en"):
            if not any(word in parameter.summary[lang].lower() for word in _DEPRECATION_WORDS):
                problems.append(
                    kb.origin(parameter).at(
                        ("summary", lang),
                        f"got a summary that does not say {flag} is deprecated, expected it to "
                        f"(sglang {snapshot.sglang_version} deprecates it"
                        + (f"; use {option.replacement})" if option.replacement else ")"),
                    )
                )
    return problems


def page_value_problems(
    docs_dir: Path, langs: tuple[str, ...], kb: KB, snapshot: EngineSnapshot
) -> list[Problem]:
    return [
        Problem(unit.file, unit.line, "", text)
        for unit in page_units(docs_dir, langs)
        for text in judge(unit, snapshot, kb)
    ]


def catalogue_value_problems(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    return [
        Problem(unit.file, unit.line, unit.path, text)
        for unit in catalogue_units()
        for text in judge(unit, snapshot, kb)
    ]
