"""Write a commented skeleton to fill in: ``python -m handbook new recipe|model|hardware|pitfall|rule <id>``.

What the options give (model, accelerators, GPUs, precision, source…) is checked against the KB's files
and written in; everything else holds the placeholder ``<fill in>``, which ``python -m handbook validate``
(and so the site build) rejects with the file and line. An id that exists already is refused and nothing is
written.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from handbook.checker.predicates import PREDICATES
from handbook.core.arguments import folder, real, text, whole
from handbook.core.paths import KB_ROOT
from handbook.kb import schema as s
from handbook.kb.scaffold import (
    ID_PATTERN,
    ScaffoldError,
    choices,
    new_file,
    new_model_from_config,
    new_pitfall,
    new_rule,
    placeholders,
    shown_path,
)


def _refused(exc: ScaffoldError) -> int:
    if len(exc.problems) == 1:  # one line, as every other refusal of the command line
        print(f"✖ {exc.problems[0]}; nothing was written.", file=sys.stderr)
        return 2
    for problem in exc.problems:
        print(f"✖ {problem}", file=sys.stderr)
    print("Nothing was written.", file=sys.stderr)
    return 2


def _from_config(args: argparse.Namespace, root: Path) -> int:
    try:
        written, imported = new_model_from_config(args.id, args, root)
    except ScaffoldError as exc:
        return _refused(exc)
    for one in written:
        print(f"✔ wrote {shown_path(one.path, root)}")
    if imported.derived:
        print(f"Derived as the engine does ({len(imported.derived)}):")
        for line in imported.derived:
            print(f"  {line}")
    if imported.unknown:
        print(f"Not in the files, and they change the plan ({len(imported.unknown)}):")
        for line in imported.unknown:
            print(f"  {line}")
    print("Then check it: python -m handbook validate")
    return 0


def run(args: argparse.Namespace) -> int:
    root = Path(args.kb)
    if args.kind == "model" and args.from_config:
        return _from_config(args, root)
    if args.kind == "model" and args.kv_formula is None:
        print(
            "✖ --kv-formula: got nothing, expected gqa or mla (or --from-config config.json); "
            "nothing was written.",
            file=sys.stderr,
        )
        return 2
    try:
        if args.kind == "pitfall":
            written = new_pitfall(args.id, args, root)
        elif args.kind == "rule":
            written = new_rule(args.id, args, root, PREDICATES)
        else:
            written = new_file(args.kind, args.id, args, root)
    except ScaffoldError as exc:
        return _refused(exc)
    shown = shown_path(written.path, root)
    verb = {"pitfall": "appended to", "rule": "added to"}.get(args.kind, "wrote")
    print(f"✔ {verb} {shown}")
    todo = placeholders(written)
    if todo:
        print(f"Fill in ({len(todo)}):")
        for line, text in todo:
            print(f"  {shown}:{line}: {text}")
    print("Then check it: python -m handbook validate")
    return 0


def _ids(value: str) -> list[str]:
    """``a,b`` → ``[a, b]`` (options that take several ids accept commas or repetition)."""
    return [part for part in value.split(",") if part]


def _flag(value: str) -> str:
    """``mem-fraction-static`` or ``--mem-fraction-static`` (argparse cannot take ``--x`` as a value)."""
    return value if value.startswith("--") else f"--{value}"


# The schema's bounds (kb/schema.py MemoryGB, GpuCount): a skeleton holds only what validate would accept
_MEMORY_GB = real(1, 4096)
_GPUS = whole(1, 100_000)


def _day(value: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"got '{value}', expected a day as YYYY-MM-DD") from None


def _memory_gb(value: str) -> float:
    number = _MEMORY_GB(value)
    return int(number) if number.is_integer() else number


def configure(new: argparse.ArgumentParser) -> None:
    kinds = new.add_subparsers(dest="kind", required=True, metavar="recipe|model|hardware|pitfall|rule")

    def kind(name: str, help_text: str) -> argparse.ArgumentParser:
        parser = kinds.add_parser(name, help=help_text, description=help_text)
        parser.add_argument("id", type=text, help=f"the new id ({ID_PATTERN}); for a file, also its name")
        parser.add_argument(
            "--source", type=text, help="the id of the source in kb/sources/ that states these facts"
        )
        parser.add_argument(
            "--kb", default=str(KB_ROOT), type=folder, help=argparse.SUPPRESS
        )  # tests use a copy
        return parser

    recipe = kind("recipe", "a launch command: kb/recipes/<id>.yaml")
    recipe.add_argument("--model", type=text, help="the model it launches (an id in kb/models/)")
    recipe.add_argument(
        "--hardware", type=_ids, action="extend", default=[], help="accelerator ids, a,b or repeated"
    )
    recipe.add_argument("--gpus", type=_GPUS, help="how many GPUs it uses (adds --tp-size N when N > 1)")
    recipe.add_argument("--precision", type=text, help="the dtype it runs in (an id in kb/dtypes.yaml)")
    recipe.add_argument("--strategy", choices=choices(s.Recipe, "strategy"))

    model = kind("model", "a model: kb/models/<id>.yaml")
    model.add_argument(
        "--kv-formula",
        choices=choices(s.Attention, "kv_formula"),
        help="what the KV pool holds per token: gqa (K and V heads) or mla (a compressed latent); "
        "with --from-config, read from the file",
    )
    model.add_argument(
        "--from-config",
        metavar="CONFIG_JSON",
        help="the checkpoint's config.json: writes a complete entry from it (and a source for it)",
    )
    model.add_argument(
        "--index",
        metavar="INDEX_JSON",
        help="the checkpoint's model.safetensors.index.json: its total size sizes the weights",
    )
    model.add_argument("--repo", type=text, help="the repository the files come from, e.g. org/Model")
    model.add_argument("--revision", type=text, help="the commit the files were read at")
    model.add_argument("--date", type=_day, help="the day they were read (YYYY-MM-DD; default today)")
    model.add_argument("--name", type=text, help="the model's name as its vendor writes it")
    model.add_argument("--vendor", type=text, help="who publishes it")
    model.add_argument("--role", choices=choices(s.Model, "role"))
    model.add_argument("--dense", action="store_true", help="a dense model (no experts)")
    model.add_argument("--family", type=_ids, action="extend", default=[], help="attention family ids")
    model.add_argument(
        "--precision", type=_ids, action="extend", default=[], help="dtype ids of its checkpoints"
    )

    hardware = kind("hardware", "an accelerator: kb/hardware/<id>.yaml")
    hardware.add_argument("--name", type=text, help="e.g. 'NVIDIA H200'")
    hardware.add_argument("--vendor", choices=choices(s.Hardware, "vendor"))
    hardware.add_argument("--form", choices=choices(s.Hardware, "form"))
    hardware.add_argument("--architecture", type=text, help="e.g. Hopper")
    hardware.add_argument(
        "--memory-gb", type=_memory_gb, help="memory per device, the vendor's nominal GB (1 to 4,096)"
    )

    pitfall = kind("pitfall", "a known pitfall: appended to kb/pitfalls.yaml")
    pitfall.add_argument(
        "--flag",
        type=_flag,
        action="append",
        default=[],
        help="a flag the fix touches, e.g. mem-fraction-static",
    )
    pitfall.add_argument("--model", type=_ids, action="extend", default=[], help="model ids it applies to")
    pitfall.add_argument(
        "--hardware", type=_ids, action="extend", default=[], help="accelerator ids it applies to"
    )
    topics = ", ".join(choices(s.Scope, "topics"))
    pitfall.add_argument("--topic", type=_ids, action="extend", default=[], help=f"topics: {topics}")
    pitfall.add_argument(
        "--no-troubleshooting", action="store_true", help="leave it out of chapter 08's troubleshooting table"
    )

    _rule_options(kind("rule", "a command-checker rule: added to kb/rules.yaml's rules"))


def _rule_options(rule: argparse.ArgumentParser) -> None:
    rule.add_argument(
        "--predicate",
        required=True,
        type=text,
        help="what the rule tests, one of handbook/checker/predicates.py: " + ", ".join(sorted(PREDICATES)),
    )
    rule.add_argument(
        "--program",
        choices=choices(s.Rule, "program"),
        default="launch_server",
        help="the command it applies to (default: launch_server)",
    )
