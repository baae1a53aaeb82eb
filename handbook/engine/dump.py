"""Dump the real SGLang argument parsers and env-var registry as JSON (the engine snapshot).

Runs INSIDE a throwaway virtualenv where the real wheels are installed (``nox -s engine-snapshot``
builds that environment); it imports only the standard library and the engine, never ``handbook``.

    python handbook/engine/dump.py --wheel sglang-0.5.23-*.whl --wheel sglang_router-0.3.2-*.whl \
        --output kb/engine/sglang-0.5.23.json

What it records, per parser (``launch_server``, ``launch_router``, ``bench_serving``):
every action in the parser's own order, with all its spellings, dest, default, type, choices, nargs,
action, required, help (``%(default)s`` expanded as argparse does), SUPPRESS and deprecation; plus the
engine's environment-variable registry (``sglang/srt/environ.py``), the release's entry points (which
``python -m`` modules the wheel ships, its console scripts, how ``sglang serve`` dispatches) and the
provenance of the run
(versions, wheel names and sha256, Python, date). Output is deterministic: sorted object keys, options
and env vars in source order, no timestamps other than the date.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import datetime
import enum
import functools
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import math
import os
import platform
import re
import sys
import tokenize
import warnings
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

# Which module or command builds each parser, and where its options come from.
PARSER_SOURCES = {
    "launch_server": {
        "builder": "sglang.srt.server_args.ServerArgs.add_cli_args",
        "how": "argparse.ArgumentParser(prog='sglang serve') + ServerArgs.add_cli_args(parser), "
        "as sglang.srt.server_args.prepare_server_args does",
        "modules": ["sglang.launch_server"],
        "commands": ["sglang serve", "python -m sglang.launch_server"],
    },
    "launch_router": {
        "builder": "sglang_router.router_args.RouterArgs.add_cli_args",
        "how": "RouterArgs.add_cli_args(parser, use_router_prefix=False), as "
        "sglang_router.launch_router.parse_router_args does (its parser only adds a description and "
        "an ArgumentDefaultsHelpFormatter, which change --help output, not the options)",
        "modules": ["sglang_router.launch_router"],
        "commands": ["python -m sglang_router.launch_router", "smg launch", "sglang-router launch"],
        # get_available_tool_call_parsers() comes from the Rust extension, whose hash map order changes
        # from process to process: record these choices sorted.
        "unordered_choices": ("tool_call_parser",),
    },
    "bench_serving": {
        "builder": "sglang.benchmark.serving.cli_main",
        "how": "cli_main() builds its parser inline; it is run with ArgumentParser.parse_args patched "
        "to capture the parser before anything is parsed or executed",
        "modules": ["sglang.benchmark.serving", "sglang.bench_serving"],
        "commands": ["python -m sglang.benchmark.serving", "python -m sglang.bench_serving"],
    },
}

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
# Help that *starts* with "Deprecated" ("Deprecated. Use …", "(Deprecated, use …)"); a help that merely
# mentions a deprecated neighbour ("Replaces the deprecated --grpc-mode") does not count.
_DEPRECATED_HELP = re.compile(r"^\W*deprecated\b", re.IGNORECASE)
_USE_INSTEAD = re.compile(r"\buse (--[\w{},-]+(?:=[^\s)]+)?)", re.IGNORECASE)
_ALIAS_OF = re.compile(r"use `([\w.]+)` instead")


# --------------------------------------------------------------------------------------------------
# JSON-safe values
# --------------------------------------------------------------------------------------------------


def stable_repr(value: Any) -> str:
    """repr() without memory addresses, so two runs print the same text."""
    if inspect.isroutine(value) or inspect.isclass(value):
        module = getattr(value, "__module__", None) or "?"
        return f"<{type(value).__name__} {module}.{getattr(value, '__qualname__', value.__name__)}>"
    if isinstance(value, (set, frozenset)):
        return repr(sorted(value, key=repr))
    return _ADDRESS.sub("", repr(value))


def json_safe(value: Any) -> Any:
    """JSON scalars, lists and str-keyed dicts stay as they are; anything else becomes {"repr": ...}."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"repr": repr(value)}
    if type(value) is list:
        return [json_safe(item) for item in value]
    if type(value) is dict and all(type(key) is str for key in value):
        return {key: json_safe(item) for key, item in value.items()}
    return {"repr": stable_repr(value)}


def callable_name(func: Any) -> str | None:
    """The name of an argparse ``type=`` callable: int, float, str, or the function's name."""
    if func is None:
        return None
    if isinstance(func, functools.partial):
        return f"partial({callable_name(func.func)})"
    name = getattr(func, "__name__", None)
    if name is None:  # an instance with __call__
        name = type(func).__name__
    return name


def norm_ws(text: str | None) -> str | None:
    if text is None:
        return None
    return " ".join(text.split())


# --------------------------------------------------------------------------------------------------
# Parsers
# --------------------------------------------------------------------------------------------------


def _action_names(parser: argparse.ArgumentParser) -> dict[type, str]:
    """argparse's registered action strings (store_true, …) by class; others keep their class name."""
    names: dict[type, str] = {}
    for key, cls in parser._registries.get("action", {}).items():
        if key is not None and isinstance(cls, type):
            names.setdefault(cls, key)
    return names


def _expand_help(parser: argparse.ArgumentParser, action: argparse.Action) -> tuple[str | None, str | None]:
    """Expand %(default)s and friends exactly as argparse's HelpFormatter does; return (help, error)."""
    if action.help is None or action.help == argparse.SUPPRESS:
        return None, None
    formatter = argparse.HelpFormatter(prog=parser.prog)
    if isinstance(action.choices, (set, frozenset)):  # %(choices)s of a set: expand in sorted order
        action = copy.copy(action)
        action.choices = sorted(action.choices, key=str)
    try:
        return formatter._expand_help(action), None
    except (KeyError, TypeError, ValueError) as error:
        return action.help, f"{type(error).__name__}: {error}"


def _choices(action: argparse.Action, unordered: bool = False) -> list | None:
    choices = action.choices
    if choices is None:
        return None
    if unordered or isinstance(choices, (set, frozenset)):
        # A set has no order of its own (and str hashes vary per process): sort for stable output.
        return [json_safe(c) for c in sorted(choices, key=str)]
    if isinstance(choices, dict):  # subparsers
        return [json_safe(c) for c in choices]
    try:
        return [json_safe(c) for c in choices]
    except TypeError:
        return [json_safe(choices)]


def _deprecation(action: argparse.Action, help_text: str | None) -> tuple[bool, str | None, str | None]:
    """Whether the option is deprecated, the evidence, and the replacement it names (if any)."""
    replacement = getattr(action, "new_flag", None)
    if getattr(action, "deprecated", False):  # argparse >= 3.13
        return True, "argparse deprecated=True", replacement
    if type(action).__name__.startswith("Deprecated"):
        return True, f"action {type(action).__name__}", replacement
    if help_text and _DEPRECATED_HELP.search(help_text):
        match = _USE_INSTEAD.search(help_text)
        return True, "help text", replacement or (match.group(1).rstrip(".,") if match else None)
    return False, None, replacement


def describe_parser(
    parser: argparse.ArgumentParser,
    field_meta: dict[str, dict] | None = None,
    unordered_choices: tuple[str, ...] = (),
) -> dict:
    names = _action_names(parser)
    groups: dict[int, str] = {}
    for group in parser._action_groups:
        for action in group._group_actions:
            groups.setdefault(id(action), group.title)
    options = []
    for action in parser._actions:
        help_text, help_error = _expand_help(parser, action)
        deprecated, evidence, replacement = _deprecation(action, action.help)
        option = {
            "option_strings": list(action.option_strings),
            "dest": action.dest,
            "default": json_safe(action.default),
            "type": callable_name(action.type),
            "choices": _choices(action, unordered=action.dest in unordered_choices),
            "choices_sorted": action.dest in unordered_choices
            or isinstance(action.choices, (set, frozenset)),
            "nargs": json_safe(action.nargs),
            "const": json_safe(action.const),
            "metavar": json_safe(action.metavar),
            "action": names.get(type(action), type(action).__name__),
            "required": bool(action.required),
            "help": norm_ws(help_text),
            "help_suppressed": action.help == argparse.SUPPRESS,
            "deprecated": deprecated,
            "deprecated_evidence": evidence,
            "replacement": replacement,
            "group": groups.get(id(action)),
            "engine_field": (field_meta or {}).get(action.dest),
        }
        if help_error is not None:
            option["help_expand_error"] = help_error
        options.append(option)
    return {
        "prog": parser.prog,
        "allow_abbrev": parser.allow_abbrev,
        "prefix_chars": parser.prefix_chars,
        "description": norm_ws(parser.description),
        "options": options,
    }


def _server_field_meta() -> dict[str, dict] | None:
    """ServerArgs field metadata argparse does not keep: namespace, resolvable, fallback, no_cli.

    Read from what the release declares (``sglang/srt/arg_groups/arg_utils.py``): ``Annotated[...,
    Arg(...)]`` metadata with ``no_cli`` appears in 0.5.14, ``Arg.resolvable`` in 0.5.15, ``NS``
    namespaces (``namespace_of``) in 0.5.17, ``Arg.fallback``, ``record_fields`` and
    ``ServerArgs._NS_BY_FIELD`` in 0.5.20. A key the release does not declare gets its "nothing
    declared" value (``None``/``False``). Releases without ``arg_utils`` (0.5.10-0.5.13) declare no
    field metadata: ``None``, and every option's ``engine_field`` is null.
    """
    import dataclasses
    from typing import get_type_hints

    try:
        arg_utils = importlib.import_module("sglang.srt.arg_groups.arg_utils")
    except ImportError:
        return None
    from sglang.srt.server_args import ServerArgs

    unwrap = getattr(arg_utils, "_unwrap_annotated", None)
    if unwrap is None:
        return None
    record_fields = getattr(arg_utils, "record_fields", None) or dataclasses.fields
    hints = get_type_hints(ServerArgs, include_extras=True)
    namespaces = getattr(ServerArgs, "_NS_BY_FIELD", None)
    if namespaces is None and hasattr(arg_utils, "namespace_of"):
        namespaces = arg_utils.namespace_of(ServerArgs)
    namespaces = namespaces or {}
    meta = {}
    for field in record_fields(ServerArgs):
        _, arg = unwrap(hints.get(field.name, field.type))
        meta[field.name] = {
            "namespace": namespaces.get(field.name),
            "resolvable": bool(getattr(arg, "resolvable", False)) if arg is not None else False,
            "fallback": json_safe(getattr(arg, "fallback", None)) if arg is not None else None,
            "no_cli": bool(getattr(arg, "no_cli", False)) if arg is not None else False,
        }
    return meta


def build_launch_server() -> argparse.ArgumentParser:
    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(prog="sglang serve")
    ServerArgs.add_cli_args(parser)
    return parser


def build_launch_router() -> argparse.ArgumentParser:
    from sglang_router.router_args import RouterArgs

    parser = argparse.ArgumentParser(prog="python -m sglang_router.launch_router")
    RouterArgs.add_cli_args(parser, use_router_prefix=False)
    return parser


class _Captured(BaseException):
    """Raised from the patched parse_args: carries the parser out before anything is parsed."""

    def __init__(self, parser: argparse.ArgumentParser):
        super().__init__()
        self.parser = parser


def capture_parser(entry, argv0: str) -> argparse.ArgumentParser:
    """Run ``entry()`` until it calls parse_args/parse_known_args, and return that parser."""

    def capture(self, *args, **kwargs):
        raise _Captured(self)

    saved = (argparse.ArgumentParser.parse_args, argparse.ArgumentParser.parse_known_args, sys.argv)
    argparse.ArgumentParser.parse_args = capture
    argparse.ArgumentParser.parse_known_args = capture
    sys.argv = [argv0]
    try:
        entry()
    except _Captured as captured:
        return captured.parser
    finally:
        argparse.ArgumentParser.parse_args, argparse.ArgumentParser.parse_known_args, sys.argv = saved
    raise RuntimeError(f"{entry!r} returned without calling parse_args")


def build_bench_serving() -> argparse.ArgumentParser:
    """0.5.15+: ``sglang.benchmark.serving.cli_main()``; before, the parser is built inline under
    ``if __name__ == "__main__":`` of ``sglang/bench_serving.py`` (run with runpy as ``__main__``)."""
    if importlib.util.find_spec("sglang.benchmark.serving") is not None:
        module = importlib.import_module("sglang.benchmark.serving")
        return capture_parser(module.cli_main, argv0=module.__file__)
    import runpy

    spec = importlib.util.find_spec("sglang.bench_serving")
    return capture_parser(
        lambda: runpy.run_module("sglang.bench_serving", run_name="__main__", alter_sys=False),
        argv0=spec.origin,
    )


def _bench_serving_source() -> dict:
    """Builder and how-text for the bench_serving parser of the installed release."""
    if importlib.util.find_spec("sglang.benchmark.serving") is not None:
        return {}
    return {
        "builder": "sglang.bench_serving (__main__ block)",
        "how": "sglang/bench_serving.py builds its parser inline under if __name__ == '__main__'; the "
        "module is run as __main__ with ArgumentParser.parse_args patched to capture the parser "
        "before anything is parsed or executed",
    }


# --------------------------------------------------------------------------------------------------
# Module paths: which exist, which are deprecated aliases (with the evidence)
# --------------------------------------------------------------------------------------------------


def _site_relative(path: str | None) -> str | None:
    if path is None:
        return None
    parts = Path(path).parts
    for anchor in ("site-packages", "dist-packages"):
        if anchor in parts:
            return "/".join(parts[parts.index(anchor) + 1 :])
    return Path(path).name


def _source_warnings(path: str) -> list[dict]:
    """warnings.warn(...) calls with a literal message in a module's source, and whether under __main__."""
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    main_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
            for sub in ast.walk(node):
                if hasattr(sub, "lineno"):
                    main_lines.add(sub.lineno)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and ast.unparse(node.func) in ("warnings.warn", "warn")):
            continue
        if (
            not node.args
            or not isinstance(node.args[0], ast.Constant)
            or not isinstance(node.args[0].value, str)
        ):
            continue
        category = node.args[1] if len(node.args) > 1 else None
        for keyword in node.keywords:
            if keyword.arg == "category":
                category = keyword.value
        found.append(
            {
                "line": node.lineno,
                "category": ast.unparse(category) if category is not None else "UserWarning",
                "message": node.args[0].value,
                "only_when_run_as_main": node.lineno in main_lines,
            }
        )
    return sorted(found, key=lambda item: item["line"])


def describe_module(name: str) -> dict:
    """Whether a module path exists, its file, its warnings; a deprecated alias says what it points to.

    The source is read statically (importing sglang.launch_server or sglang_router.launch_router
    would need the whole serving stack); a module that warns at import time is also imported, so
    the warning recorded is the one Python actually emits.
    """
    try:
        spec = importlib.util.find_spec(name)
    except ImportError:
        spec = None
    if spec is None or spec.origin is None:
        return {
            "exists": False,
            "file": None,
            "deprecated_alias_of": None,
            "import_warnings": [],
            "source_warnings": [],
        }
    source_warnings = _source_warnings(spec.origin)
    import_warnings = []
    if any(not w["only_when_run_as_main"] for w in source_warnings):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            importlib.import_module(name)
        import_warnings = [
            {"category": w.category.__name__, "message": str(w.message)}
            for w in caught
            if Path(w.filename).resolve() == Path(spec.origin).resolve()
        ]
    alias_of = None
    for warning in import_warnings:
        if (
            warning["category"] in ("FutureWarning", "DeprecationWarning")
            and "deprecated" in warning["message"]
        ):
            match = _ALIAS_OF.search(warning["message"])
            alias_of = match.group(1) if match else "?"
    return {
        "exists": True,
        "file": _site_relative(spec.origin),
        "deprecated_alias_of": alias_of,
        "import_warnings": import_warnings,
        "source_warnings": source_warnings,
    }


# --------------------------------------------------------------------------------------------------
# Entry points: which modules and commands this release ships, and where `sglang serve` sends a model
# --------------------------------------------------------------------------------------------------

# Every `python -m` module the site, the source or SGLang's docs run, with the parser the snapshot holds for
# it (None: a module the snapshot records but has no parser of). Each is looked up in the installed wheel.
ENTRY_POINT_MODULES: dict[str, str | None] = {
    "sglang.launch_server": "launch_server",
    "sglang.bench_serving": "bench_serving",
    "sglang.benchmark.serving": "bench_serving",
    "sglang.bench_one_batch": None,
    "sglang.benchmark.one_batch": None,
    "sglang.bench_offline_throughput": None,
    "sglang.benchmark.offline_throughput": None,
    "sglang.bench_one_batch_server": None,
    "sglang.benchmark.one_batch_server": None,
    "sglang.check_env": None,
    "sglang.compile_deep_gemm": None,
    "sglang_router.launch_router": "launch_router",
    "sglang_router.launch_server": None,
}


def _console_scripts() -> dict[str, str]:
    """The commands the sglang and sglang-router wheels install (their console_scripts entry points)."""
    out = {}
    for dist in ("sglang", "sglang-router"):
        for entry in importlib.metadata.distribution(dist).entry_points:
            if entry.group == "console_scripts":
                out[entry.name] = entry.value
    return dict(sorted(out.items()))


def _diffusion_model_paths() -> list[str]:
    """The Hugging Face ids the release's diffusion registry names (``hf_model_paths=[...]`` literals in
    ``sglang/multimodal_gen``, tests aside): ``sglang serve`` sends these to the diffusion server."""
    spec = importlib.util.find_spec("sglang")
    root = Path(spec.origin).parent / "multimodal_gen" if spec and spec.origin else None
    if root is None or not root.is_dir():
        return []
    found: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        if "test" in path.relative_to(root).parts[0]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg == "hf_model_paths" and isinstance(keyword.value, ast.List):
                    found |= {
                        item.value
                        for item in keyword.value.elts
                        if isinstance(item, ast.Constant) and isinstance(item.value, str)
                    }
    return sorted(found)


def _serve_dispatch() -> dict | None:
    """How ``sglang serve`` reads its argv in this release (sglang/cli/serve.py), found by calling it: whether
    a positional model path is accepted, the --model-type values it takes without plugins, and whether a
    diffusion server exists to send a model to."""
    try:
        serve = importlib.import_module("sglang.cli.serve")
    except ImportError:
        return None
    positional = False
    normalize = getattr(serve, "_normalize_positional_model_path", None)
    if normalize is not None:
        argv, was = normalize(["some/model", "--tp-size", "2"])
        positional = bool(was) and argv[:2] == ["--model-path", "some/model"]
    model_types: list[str] = []
    registry = getattr(serve, "_create_backend_registry", None)
    extract = getattr(serve, "_extract_model_type_override", None)
    if registry is not None:
        model_types = ["auto", *registry().available_names]
    elif extract is not None:
        for name in ("auto", "llm", "diffusion"):
            try:
                extract(["--model-type", name])
            except (ValueError, SystemExit):
                continue
            model_types.append(name)
    diffusion = _module_file("sglang.multimodal_gen.runtime.entrypoints.cli.serve") is not None
    return {
        "positional_model_path": positional,
        "model_types": model_types,
        "diffusion_server": diffusion,
        "diffusion_model_paths": _diffusion_model_paths() if diffusion else [],
    }


def _module_file(name: str) -> Path | None:
    """The source file of module ``name``, found on disk under its top-level package: importing a parent
    package to find it (importlib.util.find_spec) would run that package's imports, which some releases'
    sglang.multimodal_gen cannot complete here."""
    top, _, rest = name.partition(".")
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None:
        return None
    base = Path(spec.origin).parent.joinpath(*rest.split(".")) if rest else Path(spec.origin).parent
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def describe_entry_module(name: str) -> dict:
    """Whether the wheel has a module, its file, and whether it is a deprecated alias and of what, read from
    its source alone (the warnings.warn it makes): importing a benchmark module would need its own
    dependencies (tabulate, datasets…), which the parsers do not."""
    found = _module_file(name)
    if found is None:
        return {"exists": False, "file": None, "deprecated_alias_of": None, "source_warnings": []}
    origin = str(found)
    source_warnings = _source_warnings(origin)
    alias_of = None
    for warning in source_warnings:
        deprecation = warning["category"] in ("FutureWarning", "DeprecationWarning")
        if deprecation and "deprecated" in warning["message"]:
            match = _ALIAS_OF.search(warning["message"])
            alias_of = match.group(1) if match else "?"
    return {
        "exists": True,
        "file": _site_relative(origin),
        "deprecated_alias_of": alias_of,
        "source_warnings": source_warnings,
    }


def describe_entry_points() -> dict:
    """The release's entry points: each known ``python -m`` module (whether the wheel has it, a deprecated
    alias and what of), the console scripts, and ``sglang serve``'s dispatch."""
    return {
        "modules": {
            name: {"parser": parser, **describe_entry_module(name)}
            for name, parser in ENTRY_POINT_MODULES.items()
        },
        "console_scripts": _console_scripts(),
        "serve": _serve_dispatch(),
    }


# --------------------------------------------------------------------------------------------------
# Variables read outside the registry: os.getenv("SGLANG_…"), get_bool_env_var("SGLANG_…") and the like
# --------------------------------------------------------------------------------------------------

_ENV_READERS = {
    "os.getenv",
    "os.environ.get",
    "environ.get",
    "getenv",
    "get_bool_env_var",
    "get_int_env_var",
    "get_float_env_var",
    "get_str_env_var",
}
_ENV_PREFIXES = ("SGLANG_", "SGL_")


def _read_names(tree: ast.AST) -> set[str]:
    """The SGLANG_*/SGL_* names a module reads by a literal: a reader call's first argument, os.environ[…],
    or ``"…" in os.environ``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        literal = None
        if isinstance(node, ast.Call) and node.args and ast.unparse(node.func) in _ENV_READERS:
            literal = node.args[0]
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("os.environ", "environ"):
            literal = node.slice
        elif (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], ast.In)
            and ast.unparse(node.comparators[0]) in ("os.environ", "environ")
        ):
            literal = node.left
        if (
            isinstance(literal, ast.Constant)
            and isinstance(literal.value, str)
            and literal.value.startswith(_ENV_PREFIXES)
        ):
            names.add(literal.value)
    return names


def describe_env_reads() -> list[dict]:
    """Every SGLANG_*/SGL_* variable the installed sglang package reads without its registry
    (sglang/srt/environ.py): the name and the first files that read it (tests aside)."""
    spec = importlib.util.find_spec("sglang")
    root = Path(spec.origin).parent if spec and spec.origin else None
    if root is None:
        return []
    found: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent).as_posix()
        if "/test" in relative:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for name in _read_names(tree):
            found.setdefault(name, []).append(relative)
    return [{"name": name, "files": files[:3]} for name, files in sorted(found.items())]


# --------------------------------------------------------------------------------------------------
# Environment variables (sglang/srt/environ.py)
# --------------------------------------------------------------------------------------------------

_ENV_TYPES = {"EnvBool": "bool", "EnvInt": "int", "EnvFloat": "float", "EnvStr": "str", "EnvJSON": "json"}
_ENV_TYPES["EnvTuple"] = "tuple[str]"


def _env_type(cls: type) -> str:
    for base in cls.__mro__:
        if base.__name__ in _ENV_TYPES:
            return _ENV_TYPES[base.__name__]
    return cls.__name__


def _environ_source_info(path: str) -> dict[str, dict]:
    """Line, section header and the comment just above each ``NAME = Env...(`` in the Envs class."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    comments: dict[int, str] = {}
    with open(path, encoding="utf-8") as handle:
        for token in tokenize.generate_tokens(handle.readline):
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = token.string.lstrip("#").strip()
    tree = ast.parse("\n".join(lines))
    envs_class = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Envs")
    info: dict[str, dict] = {}
    section = None
    previous_end = envs_class.lineno
    for node in envs_class.body:
        if not (
            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        ):
            previous_end = getattr(node, "end_lineno", previous_end)
            continue
        block = [n for n in range(previous_end + 1, node.lineno) if n in comments]
        # A section header is "# ====" / "# Title" / "# ====".
        for n in block:
            if set(comments.get(n, "")) == {"="} and set(comments.get(n + 2, "")) == {"="}:
                section = comments.get(n + 1)
        doc_lines = []
        n = node.lineno - 1
        while n in comments and set(comments[n]) != {"="}:
            doc_lines.insert(0, comments[n])
            n -= 1
        info[node.targets[0].id] = {
            "line": node.lineno,
            "section": section,
            "doc": norm_ws(" ".join(doc_lines)) or None,
            "default_source": ast.get_source_segment("\n".join(lines), node.value.args[0])
            if isinstance(node.value, ast.Call) and node.value.args
            else None,
        }
        previous_end = node.end_lineno
    return info


def _env_default(field: Any, source: str | None) -> Any:
    default = field.default
    if callable(default):
        return {"computed": source or stable_repr(default)}
    if isinstance(default, enum.Enum):
        return {"repr": f"{type(default).__name__}.{default.name}", "value": json_safe(default.value)}
    return json_safe(default)


def describe_environ() -> dict:
    environ = importlib.import_module("sglang.srt.environ")
    info = _environ_source_info(environ.__file__)
    variables = []
    for name, field in vars(environ.Envs).items():
        if not isinstance(field, environ.EnvField):
            continue
        meta = info.get(name, {})
        deprecated_name = getattr(field, "deprecated_name", None)
        variables.append(
            {
                "name": field.name,
                "type": _env_type(type(field)),
                "descriptor": type(field).__name__,
                "default": _env_default(field, meta.get("default_source")),
                "secret": bool(getattr(field, "secret", False)),
                "deprecated_aliases": [deprecated_name] if deprecated_name else [],
                "section": meta.get("section"),
                "doc": meta.get("doc"),
                "line": meta.get("line"),
            }
        )
    deprecated = []
    for name, entry in getattr(environ, "_DEPRECATED_ENVS", {}).items():
        deprecated.append(
            {
                "name": name,
                "replacement": getattr(entry, "replacement", None),
                "transforms_value": getattr(entry, "transform", None) is not None,
                "note": norm_ws(getattr(entry, "note", None)),
            }
        )
    for variable in variables:
        for old in variable["deprecated_aliases"]:
            deprecated.append(
                {
                    "name": old,
                    "replacement": variable["name"],
                    "transforms_value": False,
                    "note": f"read through {variable['descriptor']} when {variable['name']} is unset",
                }
            )
    return {
        "file": _site_relative(environ.__file__),
        "variables": variables,
        "deprecated": deprecated,
        "legacy_prefix_rewrite": {
            "from": "SGL_",
            "to": "SGLANG_",
            "present": "SGL_" in Path(environ.__file__).read_text(encoding="utf-8"),
        },
    }


# --------------------------------------------------------------------------------------------------
# Prometheus metrics: every metric the wheel's code defines (read from its source, statically)
# --------------------------------------------------------------------------------------------------

# The constructors of prometheus_client (and SGLang's GaugeHistogram, a Gauge with gt/le bucket labels,
# sglang/srt/utils/gauge_histogram.py) and the metric type each one registers.
_METRIC_CLASSES = {
    "prometheus_client.Counter": "counter",
    "prometheus_client.Gauge": "gauge",
    "prometheus_client.Histogram": "histogram",
    "prometheus_client.Summary": "summary",
    "prometheus_client.Info": "info",
    "prometheus_client.Enum": "stateset",
    "sglang.srt.utils.gauge_histogram.GaugeHistogram": "gauge",
}
_WRAPPERS = {"GaugeHistogram"}  # classes whose own constructor call is not a definition of its own
_EXTRA_LABELS = {"sglang.srt.utils.gauge_histogram.GaugeHistogram": ["gt", "le"]}
# Where a collector's shared label set is built: its metrics pass ``labels.keys()`` as their label names.
# (collector class, file of the builder, builder's qualified name); a builder a release lacks leaves that
# collector's labels unknown (null).
METRIC_LABEL_BUILDERS = (
    ("SchedulerMetricsCollector", "sglang/srt/observability/metrics_collector.py",
     "SchedulerMetricsCollector.init_new"),
    ("TokenizerMetricsCollector", "sglang/srt/observability/metrics_collector.py", "tokenizer_metric_labels"),
    ("RadixCacheMetricsCollector", "sglang/srt/observability/metrics_collector.py",
     "radix_cache_metric_labels"),
    ("StorageMetricsCollector", "sglang/srt/mem_cache/unified_cache/storage_attachment.py",
     "StorageAttachment._resolve_metrics_collector"),
)  # fmt: skip


def _imported_names(body: list[ast.stmt], module: str) -> dict[str, str | None]:
    """Names bound by the imports directly in ``body``: name → dotted origin (None: shadowed by another)."""
    bound: dict[str, str | None] = {}
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else None
    return bound


def _scope_bindings(function: ast.AST, outer: dict[str, str | None]) -> dict[str, str | None]:
    """What each name means inside a function: its imports and ``X = A or B`` aliases over the module's."""
    bound = dict(outer)
    body = [n for n in ast.walk(function) if isinstance(n, ast.stmt)]
    bound.update(_imported_names(body, ""))
    for node in body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values = node.value.values if isinstance(node.value, ast.BoolOp) else [node.value]
            names = [bound.get(v.id) for v in values if isinstance(v, ast.Name)]
            meaning = next((name for name in names if name in _METRIC_CLASSES), None)
            if meaning is not None or node.targets[0].id in bound:
                bound[node.targets[0].id] = meaning
    return bound


def _literal_strings(node: ast.AST | None) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return [e.value for e in node.elts]
    return None


def _label_names(node: ast.AST | None, assigned: dict[str, ast.AST]) -> tuple[list[str] | None, bool]:
    """(literal label names, whether the collector's shared label set comes first) of a labelnames
    expression; (None, False) when it is neither."""
    if node is None:
        return [], False
    if isinstance(node, ast.Name) and node.id in assigned:
        return _label_names(assigned[node.id], assigned)
    literal = _literal_strings(node)
    if literal is not None:
        return literal, False
    if isinstance(node, ast.Set):  # {'layer'}: one name, a set only by the writer's choice
        return _literal_strings(ast.List(elts=node.elts)), False
    if isinstance(node, ast.List) and node.elts and isinstance(node.elts[0], ast.Starred):
        head, shared = _label_names(node.elts[0].value, assigned)  # [*labels.keys(), 'source']
        tail = _literal_strings(ast.List(elts=node.elts[1:]))
        return (head + tail, shared) if head is not None and tail is not None else (None, False)
    if re.fullmatch(r"(list\()?(self\.)?labels\.keys\(\)\)?", ast.unparse(node)):
        return [], True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        head, shared = _label_names(node.left, assigned)
        tail, _ = _label_names(node.right, assigned)
        if head is not None and tail is not None:
            return head + tail, shared
    return None, False


def _metric_call(call: ast.Call, bound: dict[str, str | None]) -> str | None:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else None
    origin = bound.get(name) if name else None
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and "prometheus_client" in (func.value.id, bound.get(func.value.id))
    ):
        origin = f"prometheus_client.{func.attr}"
    return origin if origin in _METRIC_CLASSES else None


def _text(node: ast.AST | None) -> str | None:
    """A help text: a literal string, or an f-string with each computed part kept as ``{source}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return norm_ws(node.value)
    if isinstance(node, ast.JoinedStr):
        return norm_ws(
            "".join(
                part.value if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}"
                for part in node.values
            )
        )
    return None


def _argument(call: ast.Call, keyword: str, position: int) -> ast.AST | None:
    for item in call.keywords:
        if item.arg == keyword:
            return item.value
    return call.args[position] if len(call.args) > position else None


def _label_set(tree: ast.Module, qualname: str) -> dict | None:
    """The keys a label builder always puts in its ``labels`` dict, and those it adds under a condition."""
    parts = qualname.split(".")
    scope: list[ast.stmt] = tree.body
    function = None
    for part in parts:
        function = next(
            (n for n in scope if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
             and n.name == part),
            None,
        )  # fmt: skip
        if function is None:
            return None
        scope = function.body
    always: list[str] = []
    sometimes: list[str] = []
    merged: list[str] = []
    base_depth: list[int] = []  # the depth of the block that builds the dict: deeper keys are conditional

    def visit(statements: list[ast.stmt], depth: int) -> None:
        for node in statements:
            if isinstance(node, (ast.If, ast.For, ast.While, ast.With, ast.Try)):
                inner = [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", [])]
                inner += [s for handler in getattr(node, "handlers", []) for s in handler.body]
                visit(inner, depth + (0 if isinstance(node, ast.With) else 1))
                continue
            if isinstance(node, (ast.Assign, ast.Return)) and isinstance(node.value, ast.Dict):
                targets = node.targets if isinstance(node, ast.Assign) else []
                if isinstance(node, ast.Return) or any(ast.unparse(t) == "labels" for t in targets):
                    base_depth.append(depth)
                    always.extend(k.value for k in node.value.keys if isinstance(k, ast.Constant))
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if (
                    isinstance(target, ast.Subscript)
                    and ast.unparse(target.value) == "labels"
                    and isinstance(target.slice, ast.Constant)
                ):
                    conditional = not base_depth or depth > base_depth[0]
                    (sometimes if conditional else always).append(target.slice.value)
            elif (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and ast.unparse(node.value.func) == "labels.update"
            ):
                merged.append(ast.unparse(node.value.args[0]) if node.value.args else "?")

    visit(function.body, 0)
    return {
        "always": always,
        "sometimes": [k for k in sometimes if k not in always],
        "merged_from": merged,
    }


def describe_metrics(package_dir: Path) -> dict:
    """Every Prometheus metric the wheel defines: each call of a prometheus_client metric constructor
    (or SGLang's GaugeHistogram) with a literal name, found in the package's source (tests excluded).

    Read statically, not by running the collectors: a collector only registers its metrics for the
    configuration it is built with (LoRA, HiCache, PD, EPLB, priority scheduling each add some) and
    needs a published runtime context per release; the source holds every definition, in every release,
    with its file and line. The type is the constructor's; the label names are the literal ones plus,
    where a collector passes ``labels.keys()``, its shared label set (``label_sets``, read from the
    function that builds it). A constructor call whose name is not a literal is listed under
    ``unresolved`` rather than dropped.
    """
    root = package_dir.parent
    metrics: list[dict] = []
    unresolved: list[dict] = []
    for path in sorted(package_dir.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        if "/test/" in f"/{relative}" or "/tests/" in f"/{relative}":
            continue
        source = path.read_text(encoding="utf-8")
        if "prometheus_client" not in source and "GaugeHistogram(" not in source:
            continue
        tree = ast.parse(source)
        module_bound = _imported_names(tree.body, relative)
        scopes: list[tuple[str, ast.AST, dict]] = [("<module>", tree, module_bound)]
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        item.qualname = f"{node.name}.{item.name}"  # type: ignore[attr-defined]
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qualname = getattr(node, "qualname", node.name)
                scopes.append((qualname, node, _scope_bindings(node, module_bound)))
        seen: set[int] = set()
        for qualname, scope, bound in reversed(scopes):  # innermost first: a call belongs to one scope
            assigned = {
                n.targets[0].id: n.value
                for n in ast.walk(scope)
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
            }
            conditional_lines = {
                sub.lineno
                for n in ast.walk(scope)
                if isinstance(n, ast.If)
                for sub in ast.walk(n)
                if hasattr(sub, "lineno")
            }
            for call in ast.walk(scope):
                if not isinstance(call, ast.Call) or id(call) in seen:
                    continue
                origin = _metric_call(call, bound)
                if origin is None or qualname.split(".")[0] in _WRAPPERS:
                    continue
                seen.add(id(call))
                name = _argument(call, "name", 0)
                documentation = _argument(call, "documentation", 1)
                if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                    unresolved.append(
                        {"file": relative, "line": call.lineno, "scope": qualname, "call": ast.unparse(call)}
                    )
                    continue
                labelnames = _argument(call, "labelnames", 2)
                labels, shared = _label_names(labelnames, assigned)
                owner = qualname.split(".")[0] if "." in qualname else None
                metrics.append(
                    {
                        "name": name.value,
                        "type": _METRIC_CLASSES[origin],
                        "constructor": origin.rsplit(".", 1)[1],
                        "help": _text(documentation),
                        "labels": None if labels is None else labels + _EXTRA_LABELS.get(origin, []),
                        "collector_labels": owner if shared else None,
                        "labels_source": ast.unparse(labelnames) if labelnames is not None else None,
                        "conditional": call.lineno in conditional_lines,
                        "file": relative,
                        "line": call.lineno,
                        "scope": qualname,
                    }
                )
    metrics.sort(key=lambda m: (m["file"], m["line"]))
    label_sets = {}
    for collector, file, builder in METRIC_LABEL_BUILDERS:
        path = root / file
        found = _label_set(ast.parse(path.read_text(encoding="utf-8")), builder) if path.is_file() else None
        label_sets[collector] = None if found is None else {"builder": f"{file}:{builder}", **found}
    return {
        "how": "static reading of the installed package's source (ast): every call of a prometheus_client "
        "metric constructor or SGLang's GaugeHistogram whose name is a literal; tests excluded",
        "definitions": metrics,
        "label_sets": label_sets,
        "unresolved": unresolved,
    }


# --------------------------------------------------------------------------------------------------
# Provenance and main
# --------------------------------------------------------------------------------------------------


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def clear_engine_env() -> list[str]:
    """Drop SGLANG_*/SGL_* variables so the snapshot shows the engine's defaults, not this shell's."""
    cleared = sorted(k for k in os.environ if k.startswith(("SGLANG_", "SGL_")))
    for key in cleared:
        del os.environ[key]
    return cleared


def build_snapshot(wheels: list[Path], date: str) -> dict:
    field_meta = _server_field_meta()
    builders = {
        "launch_server": build_launch_server,
        "launch_router": build_launch_router,
        "bench_serving": build_bench_serving,
    }
    parsers = {}
    for name, build in builders.items():
        unordered = PARSER_SOURCES[name].get("unordered_choices", ())
        first = describe_parser(build(), field_meta if name == "launch_server" else None, unordered)
        # Built twice: a difference means something in the parser is not deterministic (e.g. choices
        # from a hash map); it must be listed in unordered_choices rather than committed in random order.
        second = describe_parser(build(), field_meta if name == "launch_server" else None, unordered)
        if first != second:
            bad = [a["dest"] for a, b in zip(first["options"], second["options"], strict=False) if a != b]
            raise RuntimeError(f"{name}: two builds of the parser differ in {bad or 'their option list'}")
        parsers[name] = first
    for name, parser in parsers.items():
        source = dict(PARSER_SOURCES[name])
        if name == "bench_serving":
            source.update(_bench_serving_source())
        parser["builder"] = source["builder"]
        parser["how"] = source["how"]
        parser["modules"] = {module: describe_module(module) for module in source["modules"]}
        # "python -m X" only where the release has module X
        parser["commands"] = [
            command
            for command in source["commands"]
            if not command.startswith("python -m ")
            or parser["modules"].get(command.split()[2], {"exists": True})["exists"]
        ]
    return {
        "schema_version": SCHEMA_VERSION,
        "generated": {
            "date": date,
            "python": platform.python_version(),
            "tool": "handbook/engine/dump.py",
            "command": "nox -s engine-snapshot -- <sglang-version> [<sglang-router-version>]",
        },
        "sglang_version": importlib.metadata.version("sglang"),
        "sglang_router_version": importlib.metadata.version("sglang-router"),
        "wheels": sorted(
            ({"filename": w.name, "sha256": sha256_of(w)} for w in wheels), key=lambda w: w["filename"]
        ),
        "parsers": parsers,
        "environ": describe_environ(),
        "entry_points": describe_entry_points(),
        "env_reads": describe_env_reads(),
        "metrics": describe_metrics(Path(importlib.util.find_spec("sglang").origin).parent),
    }


def main(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cli.add_argument("--wheel", action="append", default=[], type=Path, help="a wheel that was installed")
    cli.add_argument("--output", "-o", type=Path, help="write here instead of stdout")
    cli.add_argument("--date", help="generation date (YYYY-MM-DD); default: today (UTC)")
    args = cli.parse_args(argv)
    date = args.date or datetime.datetime.now(datetime.UTC).date().isoformat()

    # Run as a script, sys.path[0] is handbook/engine/: keep its snapshot.py/diff.py from shadowing
    # any top-level module the engine imports.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != here]
    cleared = clear_engine_env()
    if cleared:
        print(
            f"dump.py: ignoring {len(cleared)} SGLANG_*/SGL_* variables from the environment", file=sys.stderr
        )
    # The engine logs and prints while importing; keep stdout for the JSON alone.
    with contextlib.redirect_stdout(sys.stderr):
        snapshot = build_snapshot(args.wheel, date)
    text = json.dumps(snapshot, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8")  # into the folder nox -s engine-snapshot made
        counts = ", ".join(f"{k}: {len(v['options'])}" for k, v in snapshot["parsers"].items())
        print(
            f"wrote {args.output} ({len(text.encode())} bytes; options {counts}; "
            f"env vars {len(snapshot['environ']['variables'])})",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
