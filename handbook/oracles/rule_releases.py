"""In which stored releases each rule's engine behaviour holds: ``nox -s engine-rule-releases``.

A rule of ``kb/rules.yaml`` says what the pinned engine does about a command (raises, adjusts, logs). Whether
an older release does the same is read in its wheel: the release holds the rule when its code carries the
behaviour's text, ``engine.found_by`` where given, else ``engine.says`` (fragments between ``…``, ``{…}`` or
``%s`` are looked for separately). The text is read as Python reads it: every string literal (adjacent
literals joined, an f-string with ``{}`` for each field) and every ``assert`` statement of the wheel's
modules, so a message split over lines is found whole, and every comparison, arithmetic expression and dict
literal as ``ast.unparse`` writes it. Nothing is imported or run.

Advice about the command itself (``does: nothing`` and no ``at``: security, containers) states no engine
behaviour, so it holds in every stored release. A rule the engine leaves alone but whose place is given
(``does: nothing`` with ``at``) is looked for like the others, with ``found_by``.

For each rule this prints the releases found and compares them with the rule's ``releases`` (first and last,
none meaning the newest): exit status 1 when any differs, when evidence is missing from the pinned release,
or when the releases found are not one unbroken run.

    python -m handbook.oracles.rule_releases WHEEL_DIR
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import zipfile
from pathlib import Path

from handbook.core.files import write_text
from handbook.engine.history import version_key
from handbook.kb.loader import load_kb
from handbook.kb.schema import Rule

_SPLIT = re.compile(r"\{[^}]*\}|%[sdr]|…")
_VERSION = re.compile(r"^sglang-(\d+(?:\.\d+)*(?:\.post\d+)?)-")


def wheel_text(wheel: Path, packages: tuple[str, ...]) -> str:
    """Every string literal and assert statement of the wheel's modules under ``packages``, one a line."""
    out: list[str] = []
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if not (name.endswith(".py") and name.startswith(packages)):
                continue
            try:
                tree = ast.parse(archive.read(name).decode("utf-8", "replace"))
            except SyntaxError:
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    out.append(node.value)
                elif isinstance(node, ast.JoinedStr):
                    out.append("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values))
                elif isinstance(node, ast.Assert):
                    out.append("assert " + ast.unparse(node.test))
                elif isinstance(node, ast.Compare | ast.BinOp | ast.Dict):
                    out.append(ast.unparse(node))
    return "\n".join(out)


def evidence(rule: Rule) -> list[str] | None:
    """The fragments that carry the rule's behaviour in a wheel; None for advice (no engine behaviour)."""
    text = rule.engine.found_by or rule.engine.says
    if text is None:
        return None
    return [part.strip() for part in _SPLIT.split(text) if len(part.strip()) >= 6]


def found_in(rule: Rule, texts: dict[str, dict[str, str]]) -> list[str] | None:
    fragments = evidence(rule)
    if fragments is None:
        return None
    package = "router" if rule.program == "launch_router" else "sglang"
    return [v for v, text in texts.items() if fragments and all(f in text[package] for f in fragments)]


def main(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("wheels", type=Path, help="a folder with the sglang wheel of every stored release")
    cli.add_argument("--cache", type=Path, help="keep the wheels' text here (JSON), to compare again quickly")
    args = cli.parse_args(argv)
    kb = load_kb()
    wheels = {}
    for wheel in args.wheels.glob("sglang-*.whl"):
        match = _VERSION.match(wheel.name)
        if match:
            wheels[match.group(1)] = wheel
    routers = sorted(args.wheels.glob("sglang_router-*.whl"))
    versions = sorted(wheels, key=version_key)
    router_text = wheel_text(routers[-1], ("sglang_router/",)) if routers else ""
    texts: dict[str, dict[str, str]] = {}
    if args.cache is not None and args.cache.is_file():
        texts = json.loads(args.cache.read_text(encoding="utf-8"))
    for version in versions:  # the server's code only: the rules are about launch_server and the router
        if version not in texts:
            texts[version] = {"sglang": wheel_text(wheels[version], ("sglang/srt/",)), "router": router_text}
            print(f"read sglang {version}", file=sys.stderr)
    if args.cache is not None:
        write_text(args.cache, json.dumps(texts), root=args.cache.parent)
    pinned, newest = kb.handbook.engine_version, versions[-1]
    bad = 0
    for rule in kb.rules.values():
        found = found_in(rule, texts)
        if found is None:
            if rule.engine.at is not None:
                print(f"✖ {rule.id}: the engine's place is given but no text to find it by (engine.found_by)")
                bad += 1
                continue
            found = versions
        indices = [versions.index(v) for v in found]
        run = bool(found) and indices == list(range(indices[0], indices[-1] + 1))
        want = (found[0], None if found[-1] == newest else found[-1]) if found else None
        stated = (rule.releases.first, rule.releases.last) if rule.releases is not None else None
        span = f"{found[0]}–{found[-1]}" if found else "none"
        if not found or pinned not in found or not run or want != stated:
            bad += 1
            print(f"✖ {rule.id}: found in {span} ({', '.join(found)}); kb/rules.yaml states {stated}")
        else:
            print(f"✔ {rule.id}: {span}")
    print(f"{len(kb.rules) - bad} of {len(kb.rules)} rules state the releases their wheels show")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
