"""Environment variables a command sets, against the engine's own registry (``sglang/srt/environ.py``).

The registry types every ``SGLANG_*`` variable: ``EnvBool`` accepts true/1/yes/y and false/0/no/n (any
case), ``EnvInt`` an int, ``EnvFloat`` a float, ``EnvJSON`` JSON or a file path. A value it cannot parse is
not fatal: ``EnvField.get`` warns "Invalid value for …" and uses the default. Names outside the registry
are ignored by it. Variables read by other libraries are labelled with who reads them (kb/env_vars.yaml).
"""

from __future__ import annotations

import json
from typing import Any

from handbook.checker.findings import Finding
from handbook.checker.shell import EnvAssignment
from handbook.core.messages import message
from handbook.core.suggest import Suggestions
from handbook.core.text import Text
from handbook.engine.snapshot import EngineSnapshot

BOOL_WORDS = ("true", "1", "yes", "y", "false", "0", "no", "n")
# Who reads a variable that SGLang's registry lacks (kb/env_vars.yaml ``read_by``): the env.foreign finding
# quotes it and the drift page (render/engine.py) lists it.
READ_BY_KEYS = {
    "sglang": "check-env-read-by-sglang",
    "aiter": "check-env-read-by-aiter",
    "rocm": "check-env-read-by-rocm",
    "huggingface": "check-env-read-by-huggingface",
    "none": "check-env-read-by-none",
    "unknown": "check-env-read-by-unknown",
}


def expected_env_value(kind: str, value: str) -> Text | None:
    """What the registry's parser for a ``kind`` variable expects, when it would reject ``value``; None when
    it accepts it."""
    if kind == "bool":
        return None if value.lower() in BOOL_WORDS else message("check-expect-env-bool")
    if kind == "int":
        try:
            int(value)
        except ValueError:
            return message("check-expect-integer")
        return None
    if kind == "float":
        try:
            float(value)
        except ValueError:
            return message("check-expect-number")
        return None
    if kind == "json":
        if not value or value.startswith(("/", "./", "~")):
            return None  # EnvJSON reads a path too
        try:
            json.loads(value)
        except (json.JSONDecodeError, RecursionError):  # nested deeper than the engine's json.loads reads
            return message("check-expect-env-json")
    return None


def check_assignment(
    assignment: EnvAssignment,
    snapshot: EngineSnapshot,
    kb_env: dict[str, Any],
    suggest: Suggestions | None = None,
) -> list[Finding]:
    suggest = suggest or Suggestions()
    environ = snapshot.environ
    version = snapshot.sglang_version
    name, line = assignment.name, assignment.line
    value = assignment.value
    deprecation = environ.deprecation(name)
    if deprecation is not None:
        instead = (
            message("check-use-instead", replacement=deprecation.replacement)
            if deprecation.replacement
            else ""
        )
        note = message("check-env-deprecation-note", note=deprecation.note) if deprecation.note else ""
        return [
            Finding(
                "warning",
                "env.deprecated",
                message("check-env-deprecated", name=name, version=version, instead=instead, note=note),
                line,
                name,
            )
        ]
    rewrite = environ.legacy_prefix_rewrite
    if rewrite.present and name.startswith(rewrite.from_) and not name.startswith(rewrite.to):
        new = rewrite.to + name[len(rewrite.from_) :]
        return [
            Finding(
                "warning",
                "env.legacy-prefix",
                message("check-env-legacy-prefix", name=name, prefix=rewrite.from_, version=version, new=new),
                line,
                name,
            )
        ] + check_assignment(EnvAssignment(new, value, assignment.how, line), snapshot, kb_env, suggest)
    variable = environ.get(name)
    if variable is not None:
        if value is None or value.placeholder:
            return []
        expected = expected_env_value(variable.type, value.text)
        if expected is None:
            return []
        default = json.dumps(variable.default) if not isinstance(variable.default, str) else variable.default
        return [
            Finding(
                "warning",
                "env.type",
                message(
                    "check-env-type",
                    name=name,
                    value=value.raw,
                    expected=expected,
                    version=version,
                    default=default,
                ),
                line,
                name,
            )
        ]
    direct = snapshot.env_read(name)
    if direct is not None:
        return [
            Finding(
                "note",
                "env.direct",
                message("check-env-direct", name=name, version=version, file=direct.files[0]),
                line,
                name,
            )
        ]
    if name.startswith(rewrite.to):
        # Every candidate shares the prefix, which would make any two names look alike: compare the rest.
        prefix = rewrite.to
        rests = (known[len(prefix) :] for known in environ.names() if known.startswith(prefix))
        rest = suggest.closest(name[len(prefix) :], "env", rests)
        close = prefix + rest if rest else None
        hint = message("check-did-you-mean", name=close) if close else ""
        return [
            Finding(
                "warning",
                "env.unknown",
                message("check-env-unknown", name=name, version=version, hint=hint),
                line,
                name,
            )
        ]
    documented = kb_env.get(name)
    if documented is None:
        return []
    return [
        Finding(
            "note",
            "env.foreign",
            message(
                "check-env-foreign",
                name=name,
                version=version,
                reader=message(READ_BY_KEYS[documented.read_by]),
            ),
            line,
            name,
        )
    ]


def check_assignments(
    assignments: list[EnvAssignment],
    snapshot: EngineSnapshot,
    kb_env: dict[str, Any],
    suggest: Suggestions | None = None,
) -> list[Finding]:
    suggest = suggest or Suggestions()
    findings: list[Finding] = []
    for assignment in assignments:
        findings += check_assignment(assignment, snapshot, kb_env, suggest)
    return findings
