"""Environment variables a command sets, against the engine's own registry (``sglang/srt/environ.py``).

The registry types every ``SGLANG_*`` variable: ``EnvBool`` accepts true/1/yes/y and false/0/no/n (any
case), ``EnvInt`` an int, ``EnvFloat`` a float, ``EnvJSON`` JSON or a file path. A value it cannot parse is
not fatal: ``EnvField.get`` warns "Invalid value for …" and uses the default. Names outside the registry
are ignored by it. Variables read by other libraries are labelled with who reads them (kb/env_vars.yaml).
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from handbook.checker.findings import Bilingual, Finding
from handbook.checker.shell import EnvAssignment
from handbook.engine.snapshot import EngineSnapshot

BOOL_WORDS = ("true", "1", "yes", "y", "false", "0", "no", "n")
READERS = {
    "sglang": ("由 SGLang 在 environ.py 之外直接读取", "read by SGLang directly, outside environ.py"),
    "aiter": ("由 AITER 库读取", "read by the AITER library"),
    "rocm": ("由 ROCm 读取", "read by ROCm"),
    "vllm-compat": (
        "vLLM 的变量名，手册称 SGLang 沿用",
        "a vLLM variable name the handbook says SGLang reuses",
    ),
    "huggingface": ("由 Hugging Face 的库读取", "read by the Hugging Face libraries"),
}


def _type_error(kind: str, value: str) -> tuple[str, str] | None:
    """What the registry's parser expects, when it would reject ``value``; None when it accepts it."""
    if kind == "bool":
        return (
            None
            if value.lower() in BOOL_WORDS
            else ("true/1/yes/y 或 false/0/no/n", "true/1/yes/y or false/0/no/n")
        )
    if kind == "int":
        try:
            int(value)
        except ValueError:
            return "整数", "an integer"
        return None
    if kind == "float":
        try:
            float(value)
        except ValueError:
            return "数字", "a number"
        return None
    if kind == "json":
        if not value or value.startswith(("/", "./", "~")):
            return None  # EnvJSON reads a path too
        try:
            json.loads(value)
        except json.JSONDecodeError:
            return "JSON 或 JSON 文件的路径", "JSON or the path of a JSON file"
    return None


def check_assignment(
    assignment: EnvAssignment, snapshot: EngineSnapshot, kb_env: dict[str, Any]
) -> list[Finding]:
    environ = snapshot.environ
    version = snapshot.sglang_version
    name, line = assignment.name, assignment.line
    value = assignment.value
    deprecation = environ.deprecation(name)
    if deprecation is not None:
        instead_zh = f"，请改用 {deprecation.replacement}" if deprecation.replacement else ""
        instead_en = f"; use {deprecation.replacement}" if deprecation.replacement else ""
        note = f"（{deprecation.note}）" if deprecation.note else ""
        note_en = f" ({deprecation.note})" if deprecation.note else ""
        return [
            Finding(
                "warning",
                "env.deprecated",
                Bilingual(
                    f"环境变量 {name} 在 sglang {version} 中已弃用{instead_zh}{note}",
                    f"the environment variable {name} is deprecated in sglang {version}{instead_en}{note_en}",
                ),
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
                Bilingual(
                    f"{name} 用的是旧前缀 {rewrite.from_}："
                    f"sglang {version} 导入时会把它改写为 {new} 并发出警告；请直接写 {new}",
                    f"{name} uses the legacy prefix {rewrite.from_}: sglang {version} rewrites it to {new} "
                    f"at import, with a warning; write {new}",
                ),
                line,
                name,
            )
        ] + check_assignment(EnvAssignment(new, value, assignment.how, line), snapshot, kb_env)
    variable = environ.get(name)
    if variable is not None:
        if value is None or value.placeholder:
            return []
        expected = _type_error(variable.type, value.text)
        if expected is None:
            return []
        default = json.dumps(variable.default) if not isinstance(variable.default, str) else variable.default
        return [
            Finding(
                "warning",
                "env.type",
                Bilingual(
                    f"{name}={value.raw} 不是合法取值（应为{expected[0]}）："
                    f"sglang {version} 会警告 Invalid value 并改用默认值 {default}",
                    f"{name}={value.raw} is not a valid value (expected {expected[1]}): "
                    f"sglang {version} warns 'Invalid value' and uses the default {default}",
                ),
                line,
                name,
            )
        ]
    if name.startswith(rewrite.to):
        close = difflib.get_close_matches(name, environ.names(), n=1, cutoff=0.8)
        hint_zh = f"；是不是 {close[0]}？" if close else ""
        hint_en = f"; did you mean {close[0]}?" if close else ""
        return [
            Finding(
                "warning",
                "env.unknown",
                Bilingual(
                    f"{name} 不在 sglang {version} 的环境变量注册表（environ.py）中，引擎不会读取它{hint_zh}",
                    f"{name} is not in sglang {version}'s variable registry (environ.py); "
                    f"the engine does not read it{hint_en}",
                ),
                line,
                name,
            )
        ]
    documented = kb_env.get(name)
    if documented is None:
        return []
    zh, en = READERS[documented.read_by]
    return [
        Finding(
            "note",
            "env.foreign",
            Bilingual(
                f"{name} 不在 sglang {version} 的变量注册表中（知识库：{zh}），取值未检查",
                f"{name} is not in sglang {version}'s variable registry (the KB: {en}); value not checked",
            ),
            line,
            name,
        )
    ]


def check_assignments(
    assignments: list[EnvAssignment], snapshot: EngineSnapshot, kb_env: dict[str, Any]
) -> list[Finding]:
    findings: list[Finding] = []
    for assignment in assignments:
        findings += check_assignment(assignment, snapshot, kb_env)
    return findings
