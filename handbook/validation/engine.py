"""The KB against the engine snapshot, for ``python -m handbook validate`` and the site build.

Every recipe is checked as the text the site publishes: an error is a problem located in the recipe's
file. Rules must name flags the engine has; parameters' aliases must be real spellings of the same option
and their abbreviations unique prefixes of it; ``SGLANG_*`` variables the KB documents must be in the
engine's registry, with example values its parser accepts.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from handbook.calc.recipe_text import command_text, deployment_text, deployments
from handbook.checker.argv import spellings_abbreviated_by
from handbook.checker.check import check_command, check_recipe, rule_params
from handbook.checker.envcheck import expected_env_value
from handbook.checker.findings import Finding
from handbook.core.problem import Problem
from handbook.core.templates import fields, fill
from handbook.core.text import LANGS, Text
from handbook.engine.history import version_key
from handbook.engine.snapshot import EngineSnapshot, snapshot_versions
from handbook.kb.common import flag_line_text
from handbook.kb.loader import KB
from handbook.kb.schema import Recipe, Rule
from handbook.kb.yamlfile import Path_


def locate(recipe: Recipe, finding: Finding, text: str) -> Path_:
    """The recipe field a finding is about: the flag line, variable or docker option it names."""
    subject = finding.subject or ""
    if subject.startswith("-"):
        for i, item in enumerate(recipe.flags):
            words = shlex.split(flag_line_text(item))
            if any(w == subject or w.startswith(subject + "=") for w in words):
                return ("flags", i)
    for i, env in enumerate(recipe.env):
        if env.name == subject:
            return ("env", i)
    if finding.code.startswith("module.") and recipe.module:
        return ("module",)
    lines = text.splitlines()
    if finding.line and finding.line <= len(lines):
        line = lines[finding.line - 1]
        for i, item in enumerate(recipe.flags):
            if flag_line_text(item) in line:
                return ("flags", i)
        for i, env in enumerate(recipe.env):
            if f"{env.name}=" in line:
                return ("env", i)
        if recipe.docker is not None:
            for i, option in enumerate(recipe.docker.options):
                if option in line:
                    return ("docker", "options", i)
    return ("flags",) if recipe.flags else ("shell",)


def recipe_problems(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    problems = []
    for recipe in kb.recipes.values():
        text = command_text(recipe)
        for finding in check_recipe(recipe, snapshot, kb):
            if finding.severity == "error":
                message = f"{finding.code}: {finding.message.en}"
                problems.append(kb.origin(recipe).at(locate(recipe, finding, text), message))
    return problems


def deployment_problems(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    """Each deployment's commands, read together, connect: no error or warning of the deployment check
    (handbook/checker/deployment.py), reported at the recipe whose command it is about."""
    problems = []
    for deployment, recipes in deployments(list(kb.recipes.values())).items():
        text = deployment_text(recipes)
        starts, line = [], 1
        for recipe in recipes:
            starts.append((line, recipe))
            line += command_text(recipe).count("\n") + 1
        for finding in check_command(text, snapshot, kb):
            if not finding.code.startswith("deploy.") or finding.severity == "note":
                continue
            owner = next(r for first, r in reversed(starts) if first <= (finding.line or 1))
            message = f"{finding.code}: deployment {deployment}: {finding.message.en}"
            problems.append(kb.origin(owner).at(("deployment",), message))
    return problems


def rule_problems(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    problems = []
    for rule in kb.rules.values():
        parser = snapshot.parser(rule.program)
        params = rule_params(rule)
        if params is None:
            continue  # the rule-predicates check reports it
        for flag in params.flags():
            if flag not in parser:
                problems.append(
                    kb.origin(rule).at(
                        ("params",),
                        f"got flag '{flag}', expected a {rule.program} option "
                        f"of sglang {snapshot.sglang_version}",
                    )
                )
        if all(flag in parser for flag in params.flags()):  # else the flag is the problem, not the examples
            problems += rule_example_problems(kb, rule, snapshot)
    stored = snapshot_versions()
    pinned = kb.handbook.engine_version
    for rule in kb.rules.values():
        releases = rule.releases
        if releases is None:
            continue
        for field, version in (("first", releases.first), ("last", releases.last)):
            if version is not None and version not in stored:
                problems.append(
                    kb.origin(rule).at(
                        ("releases", field), f"got {version}, expected a stored release ({', '.join(stored)})"
                    )
                )
        key = version_key(pinned)
        if version_key(releases.first) > key or (releases.last and version_key(releases.last) < key):
            problems.append(
                kb.origin(rule).at(("releases",), f"expected a range that holds the pinned release {pinned}")
            )
    for entry in kb.resolved_defaults:
        if entry.flag not in snapshot.parser(entry.program):
            problems.append(
                kb.origin(entry).at(
                    ("flag",),
                    f"got flag '{entry.flag}', expected a {entry.program} option "
                    f"of sglang {snapshot.sglang_version}",
                )
            )
    return problems


def rule_example_problems(kb: KB, rule: Rule, snapshot: EngineSnapshot) -> list[Problem]:
    """The rule's own examples: ``example`` breaks it, and its message then quotes exactly ``quotes``;
    ``holds`` does not break it."""
    origin = kb.origin(rule)
    fired = [f for f in check_command(rule.example, snapshot, kb) if f.rule == rule.id]
    problems = []
    if not fired:
        problems.append(
            origin.at(("example",), f"got a command that does not break {rule.id}, expected one that does")
        )
    quoted = list(dict.fromkeys(name for lang in LANGS for name in fields(rule.message[lang])))
    if sorted(rule.quotes) != sorted(quoted):
        problems.append(
            origin.at(
                ("quotes",),
                f"got {_names(rule.quotes)}, expected the values the message quotes for the example: "
                f"{_names(quoted)}",
            )
        )
    elif fired and fired[0].said is not None:
        said = fired[0].said
        expected = Text.of(*(fill(rule.message[lang], rule.quotes).rstrip("。.") for lang in LANGS))
        if said != expected:
            problems.append(
                origin.at(
                    ("quotes",),
                    f"got {_values(rule.quotes)}, expected the values the checker quotes for the "
                    f"example: {said.en}",
                )
            )
    if any(f.rule == rule.id for f in check_command(rule.holds, snapshot, kb)):
        problems.append(
            origin.at(("holds",), f"got a command that breaks {rule.id}, expected one that keeps it")
        )
    return problems


def _names(names: Iterable[str]) -> str:
    shown = sorted(names)
    return "{" + ", ".join(shown) + "}" if shown else "nothing"


def _values(values: dict[str, str]) -> str:
    return "{" + ", ".join(f"{name}: {value!r}" for name, value in values.items()) + "}"


def parameter_problems(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    problems = []
    version = snapshot.sglang_version
    for (program, flag), parameter in kb.parameters.items():
        origin = kb.origin(parameter)
        parser = snapshot.parser(program)
        option = parser.get(flag)
        if option is None:
            problems.append(
                origin.at(("flag",), f"got '{flag}', expected a {program} option of sglang {version}")
            )
            continue
        for i, alias in enumerate(parameter.aliases):
            if parser.get(alias) is not option:
                spellings = spellings_abbreviated_by(parser, alias)
                hint = (
                    f"; argparse only accepts it as an abbreviation of {flag}: list it under abbreviations"
                    if spellings and all(parser.get(s) is option for s in spellings)
                    else ""
                )
                problems.append(
                    origin.at(
                        ("aliases", i),
                        f"got '{alias}', expected a spelling of {flag} in sglang {version} "
                        f"({', '.join(option.option_strings)}){hint}",
                    )
                )
        for i, abbreviation in enumerate(parameter.abbreviations):
            spellings = spellings_abbreviated_by(parser, abbreviation)
            if (
                parser.get(abbreviation) is not None
                or not spellings
                or any(parser.get(s) is not option for s in spellings)
            ):
                problems.append(
                    origin.at(
                        ("abbreviations", i),
                        f"got '{abbreviation}', expected a prefix that abbreviates only {flag} "
                        f"in sglang {version} (it matches: {', '.join(spellings) or 'nothing'})",
                    )
                )
    return problems


def env_problems(kb: KB, snapshot: EngineSnapshot) -> list[Problem]:
    problems = []
    environ = snapshot.environ
    prefix = environ.legacy_prefix_rewrite.to
    for name, variable in kb.env_vars.items():
        if not name.startswith(prefix):
            continue
        origin = kb.origin(variable)
        registered = environ.get(name)
        if registered is None:
            problems.append(
                origin.at(
                    ("name",),
                    f"got '{name}', expected a variable of sglang {snapshot.sglang_version}'s registry",
                )
            )
            continue
        if variable.example is not None:
            expected = expected_env_value(registered.type, variable.example)
            if expected is not None:
                problems.append(
                    origin.at(
                        ("example",),
                        f"got '{variable.example}', expected {expected.en} ({name} is {registered.type})",
                    )
                )
    return problems
