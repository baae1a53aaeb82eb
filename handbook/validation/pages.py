"""The site's own shell blocks and the rules' links, checked before anything is built.

Every fenced block whose language is ``bash``, ``sh`` or ``shell`` in docs/ goes through the checker; an
error fails the build as ``docs/<lang>/<page>:<line>: …`` (the line of the page, not of the block). Every
rule's ``explained_at`` must name a page of both languages and an anchor that page defines (a heading's
``{ #id }``, or a parameter row on the parameters page).
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel

from handbook.checker.check import check_command
from handbook.core.anchors import PARAMETERS_PAGE, parameter_anchor
from handbook.core.problem import Problem
from handbook.engine.snapshot import EngineSnapshot
from handbook.kb.loader import KB
from handbook.kb.yamlfile import Path_

SHELL_LANGUAGES = ("bash", "sh", "shell", "console")
OWN_CLI = "python -m handbook"
_OPEN = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>.*)$")
_HEADING_ANCHOR = re.compile(r"\{[^}]*#(?P<id>[a-z0-9][a-z0-9-]*)[^}]*\}\s*$")
_HTML_ID = re.compile(r"""\bid=["'](?P<id>[a-z0-9][a-z0-9-]*)["']""")


def fence_language(info: str) -> str | None:
    """``bash``, ``{ .bash .notest }`` and ``bash title="x"`` all name bash."""
    info = info.strip()
    if info.startswith("{"):
        classes = re.findall(r"\.([\w-]+)", info)
        return classes[0] if classes else None
    return info.split()[0] if info else None


def shell_blocks(markdown: str) -> list[tuple[int, str]]:
    """(line of the block's first code line, code) for every bash/sh/shell fence of a page."""
    blocks: list[tuple[int, str]] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        match = _OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        fence, indent = match.group("fence"), match.group("indent")
        language = fence_language(match.group("info"))
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not (
            lines[j].strip().startswith(fence[0] * len(fence)) and lines[j].strip().strip(fence[0]) == ""
        ):
            line = lines[j]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            j += 1
        if language in SHELL_LANGUAGES:
            blocks.append((i + 2, "\n".join(body)))
        i = j + 1
    return blocks


def without_own_cli(code: str) -> str:
    """``code`` with every command that runs this site's own CLI (``python -m handbook …``, continued lines
    and all) blanked, line for line: its options are the handbook's, not SGLang's, and the SGLang command
    it may carry after ``--`` is an example for that tool (the doctor page shows one with a finding)."""
    lines = code.split("\n")
    inside = False
    for i, line in enumerate(lines):
        if inside or line.lstrip().startswith(OWN_CLI):
            inside = line.rstrip().endswith("\\")
            lines[i] = ""
    return "\n".join(lines)


def docs_command_problems(
    docs_dir: Path, langs: tuple[str, ...], snapshot: EngineSnapshot, kb: KB
) -> list[Problem]:
    """``docs/<lang>/<page>:<line>: error[code]: message`` for every error in the pages' shell blocks."""
    problems = []
    for lang in langs:
        root = docs_dir / lang
        for path in sorted(root.rglob("*.md")):
            page = path.relative_to(root).as_posix()
            for first_line, code in shell_blocks(path.read_text(encoding="utf-8")):
                for finding in check_command(without_own_cli(code), snapshot, kb):
                    if finding.severity == "error":
                        line = first_line + (finding.line or 1) - 1
                        message = f"{finding.severity}[{finding.code}]: {finding.message.en}"
                        problems.append(Problem(f"docs/{lang}/{page}", line, "", message))
    return problems


def page_anchors(markdown: str) -> set[str]:
    """Anchors a page defines by hand: heading ``{ #id }`` attributes and raw ``id="…"``."""
    anchors = set()
    for line in markdown.splitlines():
        match = _HEADING_ANCHOR.search(line) if line.lstrip().startswith("#") else None
        if match:
            anchors.add(match.group("id"))
        anchors.update(m.group("id") for m in _HTML_ID.finditer(line))
    return anchors


def rule_link_problems(docs_dir: Path, langs: tuple[str, ...], kb: KB) -> list[Problem]:
    """A rule's explained_at, and each section a parameter is explained in, must point at a page of every
    language and an anchor that page defines."""
    generated = {parameter_anchor(p.program, p.flag) for p in kb.parameters.values()}
    links: list[tuple[BaseModel, Path_, str]] = [
        (rule, ("explained_at",), rule.explained_at) for rule in kb.rules.values()
    ]
    links += [
        (p, ("explained_in", i), ref) for p in kb.parameters.values() for i, ref in enumerate(p.explained_in)
    ]
    problems = []
    for entity, field, ref in links:
        page, _, anchor = ref.partition("#")
        origin = kb.origin(entity)
        for lang in langs:
            path = docs_dir / lang / page
            if not path.is_file():
                problems.append(origin.at(field, f"got '{ref}', expected a page of docs/{lang}/"))
                continue
            anchors = page_anchors(path.read_text(encoding="utf-8"))
            if page == PARAMETERS_PAGE:
                anchors |= generated
            if anchor not in anchors:
                problems.append(
                    origin.at(field, f"got '#{anchor}', expected an anchor that docs/{lang}/{page} defines")
                )
    return problems
