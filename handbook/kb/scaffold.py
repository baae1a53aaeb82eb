"""``python -m handbook new recipe|model|hardware|pitfall|rule <id>``: a commented skeleton to fill in.

What the options give (model, accelerators, GPUs, precision, source…) is checked against the KB's files
and written in; everything else the contributor must write holds the placeholder ``<fill in>``, which
``python -m handbook validate`` (and so the site build) rejects with the file and line. A recipe, model or
accelerator gets its own file, kb/<kind>/<id>.yaml; a pitfall is appended to kb/pitfalls.yaml and a rule to
the ``rules`` list of kb/rules.yaml, leaving the file's existing text as it was. An id that exists already is
refused and nothing is written.

The ids and flags the options name are read from the YAML files directly (not through the loader), so that
a KB with an unfinished scaffold in it can still be scaffolded into.
"""

from __future__ import annotations

import argparse
import datetime
import re
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, StringConstraints, ValidationError
from pydantic.fields import FieldInfo

from handbook.core.files import WriteRefused, write_text
from handbook.core.paths import REPO_ROOT, inside
from handbook.core.suggest import did_you_mean
from handbook.core.text import PLACEHOLDER
from handbook.kb import schema as s
from handbook.kb.common import Id
from handbook.kb.from_config import (
    ConfigError,
    Imported,
    model_from_config,
    read_json,
    source_entry,
    yaml_text,
)
from handbook.kb.loader import FLAGS_POOL, KIND, KINDS, problems_from_validation
from handbook.kb.yamlfile import dump_yaml, load_text, load_yaml, read_text

FILL = PLACEHOLDER
TEXT = f"{{zh: {FILL}, en: {FILL}}}"  # a bilingual field to write
ID_PATTERN = next(m.pattern for m in Id.__metadata__ if isinstance(m, StringConstraints))
ID_MAX = next(m.max_length for m in Id.__metadata__ if isinstance(m, StringConstraints))
SCAFFOLDED = {"recipe": "recipes", "model": "models", "hardware": "hardware"}  # `new <kind>` → its KB pool


class ScaffoldError(Exception):
    """The request cannot be honoured; ``problems`` say why, one line each. Nothing was written."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


def choices(model: type, name: str) -> list[str]:
    """The values a Literal field accepts (through ``X | None`` and ``list[X]``), from the schema itself."""

    def literals(annotation: Any) -> list[str]:
        if typing.get_origin(annotation) is typing.Literal:
            return list(typing.get_args(annotation))
        return [v for arg in typing.get_args(annotation) for v in literals(arg)]

    return literals(model.model_fields[name].annotation)


def scalar(value: Any) -> str:
    """One YAML value in flow style, quoted only where the KB's reader (YAML 1.2, not PyYAML's 1.1) needs it
    to read the value back: text such as ``1e3`` or ``off`` is quoted."""
    text = dump_yaml(value, default_flow_style=True, width=1_000_000)
    return text.removesuffix("\n").removesuffix("\n...").strip()


# Names Windows reserves for devices, with any extension: a KB file named so breaks a checkout there
WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{port}{n}" for port in ("com", "lpt") for n in "123456789"]
)


# --------------------------------------------------------------------------------------------- the KB's ids
@dataclass(kw_only=True)
class KnownIds:
    """The ids the KB's files define, read leniently (a file that does not parse contributes nothing).

    Where each kind's ids are is taken from its declaration (handbook.kb.loader.KB)."""

    root: Path
    ids: dict[str, set[str]] = field(default_factory=dict)  # KB pool → its ids, for every kind with ids
    models: dict[str, Any] = field(default_factory=dict)  # id → the file's data (for checkpoints)
    flags: set[str] = field(default_factory=set)  # launch_server flags and every other spelling of them
    pitfalls: dict[str, int] = field(default_factory=dict)  # id → line in kb/pitfalls.yaml

    @classmethod
    def read(cls, root: Path) -> KnownIds:
        known = cls(root=root)
        for kind in KINDS:
            if kind.shape == "per_file":
                known.ids[kind.name] = {p.stem for p in root.glob(kind.pattern)}
            elif kind.keyed:
                items = _items(root / kind.pattern, str(kind.list_key))
                known.ids[kind.name] = {
                    item[kind.key] for item in items if isinstance(item.get(kind.key), str)
                }
        for path in sorted(root.glob(KIND["models"].pattern)):
            known.models[path.stem] = _data(path) or {}
        for path in sorted(root.glob(KIND[FLAGS_POOL].pattern)):
            for p in _items(path, "parameters"):
                if p.get("program", "launch_server") == "launch_server":
                    spellings = [p.get("flag"), *(p.get("aliases") or []), *(p.get("abbreviations") or [])]
                    known.flags |= {flag for flag in spellings if isinstance(flag, str)}
        pitfalls = KIND["pitfalls"]
        path = root / pitfalls.pattern
        doc, _ = load_yaml(path, f"kb/{pitfalls.pattern}")
        if doc is not None and isinstance(doc.data, dict):
            for i, item in enumerate(doc.data.get(str(pitfalls.list_key)) or []):
                if isinstance(item, dict) and isinstance(item.get(str(pitfalls.key)), str):
                    known.pitfalls.setdefault(
                        item[str(pitfalls.key)], doc.line_of((str(pitfalls.list_key), i, str(pitfalls.key)))
                    )
        return known


def _data(path: Path) -> Any:
    """A KB file's data, read as the loader reads it (regular files only, no aliases or tags); None when it
    cannot be read: ``validate`` reports why."""
    doc, _ = load_yaml(path, path.name)
    return None if doc is None else doc.data


def _items(path: Path, key: str) -> list[dict[str, Any]]:
    data = _data(path)
    items = data.get(key) if isinstance(data, dict) else None
    return [item for item in items or [] if isinstance(item, dict)]


class Checks:
    """Collects every problem with the request before anything is written."""

    def __init__(self, known: KnownIds):
        self.known = known
        self.problems: list[str] = []

    def new_id(self, value: str) -> None:
        if not re.fullmatch(ID_PATTERN, value) or len(value) > ID_MAX:
            self.problems.append(
                f"id: got '{value}', expected lowercase letters, digits, '.', '_' and '-', starting with a "
                f"letter or digit, at most {ID_MAX} characters ({ID_PATTERN})"
            )
        elif value.split(".", 1)[0] in WINDOWS_RESERVED:
            self.problems.append(
                f"id: got '{value}', a name Windows reserves for a device (a file named so cannot be checked "
                "out there), expected another id"
            )

    def ref(self, option: str, value: str | None, pool: str) -> None:
        """``value`` is an id of the KB pool ``pool`` (a KB attribute: "models", "dtypes"…)."""
        kind, ids = KIND[pool], self.known.ids[pool]
        if value is not None and value not in ids:
            self.problems.append(
                f"{option}: got '{value}', expected one of the {kind.noun} ids in {kind.where}"
                f"{did_you_mean(value, ids)}"
            )

    def refs(self, option: str, values: list[str], pool: str) -> None:
        for value in values:
            self.ref(option, value, pool)

    def source(self, value: str | None) -> None:
        self.ref("--source", value, "sources")

    def done(self) -> None:
        if self.problems:
            raise ScaffoldError(self.problems)


# ------------------------------------------------------------------------------------------------ skeletons
def _source_line(source: str | None, indent: str = "") -> str:
    if source:
        return f"{indent}source: {source}"
    return f"{indent}source: {FILL}  # the id of a file in kb/sources/ that states these facts"


def _list(values: list[str]) -> str:
    return scalar(list(values))


def recipe_yaml(rid: str, args: argparse.Namespace, known: KnownIds) -> str:
    model = args.model
    checkpoint = None
    if model and args.precision:
        for precision in (known.models.get(model) or {}).get("precisions") or []:
            if isinstance(precision, dict) and precision.get("dtype") == args.precision:
                checkpoint = precision.get("checkpoint")
    lines = [
        "# A launch command of the handbook, as data (schema: kb/schema/recipes.schema.json).",
        f"# Replace every {FILL}, run `python -m handbook validate`, then show it on a page with",
        f"#   <!-- kb:recipe id={rid} -->",
        f"id: {rid}",
        f"title: {TEXT}  # the label readers see, e.g. {{zh: 多卡, en: Multi-GPU}}",
        "kind: launch",
        "program: launch_server",
        f"model: {model}"
        if model
        else "# model: <id>  # the id of a file in kb/models/, when it launches one",
        f"hardware: {_list(args.hardware)}"
        if args.hardware
        else "hardware: []  # ids in kb/hardware/; empty when the command does not depend on the accelerator",
        f"gpus: {args.gpus}" if args.gpus else "# gpus: 8  # how many GPUs the command uses",
        f"precision: {args.precision}"
        if args.precision
        else "# precision: fp8  # a dtype id in kb/dtypes.yaml",
        f"strategy: {args.strategy}"
        if args.strategy
        else f"# strategy: throughput  # one of: {', '.join(choices(s.Recipe, 'strategy'))}",
        "flags:  # one line per flag, as a person types it; each flag is documented in kb/parameters/",
        f"  - --model-path {scalar(checkpoint)}"
        if checkpoint
        else f"  - --model-path {FILL}  # the checkpoint to launch, e.g. its Hugging Face repository",
    ]
    if args.gpus and args.gpus > 1:
        lines.append(
            f"  - --tp-size {args.gpus}  # tensor parallel over the {args.gpus} GPUs; change to your layout"
        )
    lines += [
        "# env:  # variables set before the command; each one is documented in kb/env_vars.yaml",
        "#   - {name: SGLANG_…, value: '1'}",
        "# notes:",
        "#   - {zh: …, en: …}",
        _source_line(args.source),
    ]
    return "\n".join(lines) + "\n"


def model_yaml(mid: str, args: argparse.Namespace, known: KnownIds) -> str:
    src = args.source or FILL
    kv_fields = s.KV_FIELDS[args.kv_formula]
    other_fields = [
        name
        for name in ("num_attention_heads", "hidden_size", "head_dim", "v_head_dim", "sliding_window")
        if name not in kv_fields
    ]
    lines = [
        "# A model (schema: kb/schema/models.schema.json). Every number comes from a source you cite:",
        "# the checkpoint's config.json, the vendor's model card, the handbook. Never from memory: when no",
        "# source gives a value, write null and say why.",
        "# Replace every <fill in>, then run `python -m handbook validate`.",
        f"id: {mid}",
        f"name: {scalar(args.name)}" if args.name else f"name: {FILL}  # as the vendor writes it",
        f"vendor: {scalar(args.vendor)}"
        if args.vendor
        else f"vendor: {FILL}  # who publishes it, e.g. DeepSeek",
        f"role: {args.role}"
        if args.role
        else f"role: {FILL}  # frontier (deployed here) or reference (a baseline)",
        f"summary: {TEXT}  # one line for the models overview",
        "params:  # in billions, as the source states them",
        f"  total_b: {FILL}",
        f"  active_b: {FILL}  # per token; the same as total_b for a dense model",
        "  # stated: {zh: …, en: …}  # the source's own wording; required when a count is null",
        f"  source: {src}",
    ]
    if args.dense:
        lines.append("experts: null  # a dense model")
    else:
        lines += [
            "experts:",
            f"  routed: {FILL}",
            f"  per_token: {FILL}  # experts each token is routed to",
            "  # shared: 1",
            f"  source: {src}",
        ]
    lines += [
        "context:  # null when no source states it",
        f"  native: {FILL}  # tokens",
        "  # extended: 1048576  # with extended_method: yarn",
        f"  source: {src}",
        "attention:",
        f"  kv_formula: {args.kv_formula}",
        f"  stated: {TEXT}  # the design in the handbook's words,",
        "  #   e.g. {zh: 滑窗 + 全注意力, en: sliding window + full attention}",
        f"  families: {_list(args.family)}"
        if args.family
        else f"  families: [{FILL}]  # ids in kb/attention.yaml",
        f"  source: {src}",
        "config:  # fields of the checkpoint's config.json, named as there",
        f"  source: {src}",
    ]
    lines += [f"  {name}: {FILL}  # the {args.kv_formula} KV formula needs it" for name in kv_fields]
    lines += [f"  # {name}: …" for name in other_fields]
    lines += [
        "# unknown:  # why a config field above is null, when no source gives it",
        f"#   {kv_fields[-1]}: {{zh: …, en: …}}",
    ]
    if args.precision:
        lines.append("precisions:")
        for dtype in args.precision:
            lines += [
                f"  - dtype: {dtype}",
                f"    checkpoint: {FILL}  # the repository to launch in this dtype; null if none is named",
                f"    source: {src}",
            ]
    else:
        lines.append("precisions: []  # each: {dtype: <id in kb/dtypes.yaml>, checkpoint: …, source: …}")
    lines += [
        "# parsers: {tool_call: …, reasoning: …, source: …}",
        "notes: []  # each: {zh: …, en: …}",
    ]
    return "\n".join(lines) + "\n"


def hardware_yaml(hid: str, args: argparse.Namespace, known: KnownIds) -> str:
    forms = " | ".join(choices(s.Hardware, "form"))
    lines = [
        "# An accelerator (schema: kb/schema/hardware.schema.json), as its vendor or the handbook states it.",
        "# Unknown is a valid value: write null and give the reason under `unknown`.",
        "# Replace every <fill in>, then run `python -m handbook validate`.",
        f"id: {hid}",
        f"name: {scalar(args.name)}" if args.name else f"name: {FILL}  # e.g. NVIDIA H200",
        f"vendor: {args.vendor}"
        if args.vendor
        else f"vendor: {FILL}  # {' | '.join(choices(s.Hardware, 'vendor'))}",
        f"form: {args.form}" if args.form else f"form: {FILL}  # {forms}",
        f"architecture: {scalar(args.architecture)}"
        if args.architecture
        else f"architecture: {FILL}  # e.g. Hopper; or null with a reason under unknown.architecture",
        f"memory_gb: {scalar(args.memory_gb)}"
        if args.memory_gb is not None
        else f"memory_gb: {FILL}  # per device, the vendor's nominal GB; or null with a reason under unknown",
        "# gpus_per_device: 2  # a superchip's GPUs",
        "# unknown:",
        "#   memory_gb: {zh: …, en: …}",
        "# notes: {zh: …, en: …}",
        _source_line(args.source),
        "# field_sources: {memory_gb: <source id>}  # where one field has a source of its own",
    ]
    return "\n".join(lines) + "\n"


def pitfall_yaml(pid: str, args: argparse.Namespace, known: KnownIds, indent: str) -> str:
    """One entry of kb/pitfalls.yaml's list, its dash at ``indent``."""
    inner = indent + "  "
    lines = [
        f"{indent}- id: {pid}",
        f"{inner}symptom: {TEXT}  # what the operator sees (optional when `log` is given)",
        f"{inner}# log: the log line, verbatim",
        f"{inner}cause: {TEXT}",
        f"{inner}fix: {TEXT}",
        f"{inner}flags: {_list(args.flag)}"
        if args.flag
        else f"{inner}flags: []  # the flags the fix touches, e.g. [--mem-fraction-static]",
    ]
    scope = [("models", args.model), ("hardware", args.hardware), ("topics", args.topic)]
    if any(values for _, values in scope):
        lines.append(f"{inner}scope:")
        lines += [f"{inner}  {name}: {_list(values)}" for name, values in scope if values]
    else:
        lines.append(f"{inner}# scope: {{models: [], hardware: [], topics: []}}  # where it applies")
    lines += [
        f"{inner}troubleshooting: {'false' if args.no_troubleshooting else 'true'}"
        "  # listed in chapter 08's troubleshooting table",
        _source_line(args.source, inner),
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------- writing
@dataclass(frozen=True, kw_only=True)
class Written:
    path: Path
    first_line: int  # where the new text starts in the file
    text: str  # the new text


def shown_path(path: Path, root: Path) -> str:
    base = REPO_ROOT if root.resolve().is_relative_to(REPO_ROOT) else root.parent
    try:
        # the folder resolved, the file itself not: a link is shown where it is, not where it points
        return (path.parent.resolve() / path.name).relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _well_formed(text: str, shown: str) -> Any:
    """The skeleton's data as the KB's reader reads it (an option value YAML cannot hold as written, or one
    holding an invisible character, is refused here, before anything is written)."""
    doc, problems = load_text(text, shown)
    if doc is None:
        raise ScaffoldError([*(str(p) for p in problems), "the skeleton was not written"])
    return doc.data


def new_file(kind: str, entity_id: str, args: argparse.Namespace, root: Path) -> Written:
    known = KnownIds.read(root)
    checks = Checks(known)
    checks.new_id(entity_id)
    path = root / KIND[SCAFFOLDED[kind]].pattern.replace("*", entity_id)
    if path.exists() or path.is_symlink():
        shown = shown_path(path, root)
        raise ScaffoldError(
            [
                f"{shown}: got {kind} id '{entity_id}', which exists already; "
                "expected a new id (or edit that file)"
            ]
        )
    checks.source(args.source)
    if kind == "recipe":
        checks.ref("--model", args.model, "models")
        checks.refs("--hardware", args.hardware, "hardware")
        checks.ref("--precision", args.precision, "dtypes")
        text = recipe_yaml
    elif kind == "model":
        checks.refs("--precision", args.precision, "dtypes")
        checks.refs("--family", args.family, "attention")
        text = model_yaml
    else:
        text = hardware_yaml
    checks.done()
    body = text(entity_id, args, known)
    shown = shown_path(path, root)
    _well_formed(body, shown)
    try:  # new: never replace a file that appeared meanwhile; the kind's folder must exist
        write_text(path, body, root=root, new=True)
    except WriteRefused as exc:
        raise ScaffoldError([str(exc)]) from None
    return Written(path=path, first_line=1, text=body)


MODEL_HEADER = (
    "# A model (schema: kb/schema/models.schema.json), imported from its checkpoint's config.json by\n"
    "# `python -m handbook new model --from-config`: each config field as the file names it. Add the\n"
    "# vendor's wording (summary, attention.stated) and what the file cannot give (params, context) from a\n"
    "# source.\n"
)
SOURCE_HEADER = "# Where the model's config fields come from: the checkpoint's config.json.\n"


def new_model_from_config(mid: str, args: argparse.Namespace, root: Path) -> tuple[list[Written], Imported]:
    """kb/models/<mid>.yaml from the checkpoint's config.json (and its safetensors index), plus
    kb/sources/<mid>-config.yaml naming the repository and commit (or date) unless ``--source`` names an
    existing source. Everything is checked first; nothing is written when anything is wrong."""
    known = KnownIds.read(root)
    checks = Checks(known)
    checks.new_id(mid)
    path = root / KIND["models"].pattern.replace("*", mid)
    if path.exists() or path.is_symlink():
        checks.problems.append(
            f"{shown_path(path, root)}: got model id '{mid}', which exists already; expected a new id "
            "(or edit that file)"
        )
    source_path = None
    if args.source:
        checks.source(args.source)
        sid = args.source
    elif not args.repo:
        checks.problems.append(
            "--repo: got nothing, expected the repository the config.json comes from (e.g. org/Model), or "
            "--source with the id of a source in kb/sources/ that states it"
        )
        sid = f"{mid}-config"
    else:
        sid = f"{mid}-config"
        source_path = root / KIND["sources"].pattern.replace("*", sid)
        if sid in known.ids["sources"] or source_path.exists() or source_path.is_symlink():
            checks.problems.append(
                f"{shown_path(source_path, root)}: got source id '{sid}', which exists already; expected a "
                "new id (or pass --source to use it)"
            )
    try:
        config = read_json(Path(args.from_config), "--from-config", "the checkpoint's config.json")
        index = (
            read_json(Path(args.index), "--index", "the checkpoint's model.safetensors.index.json")
            if args.index
            else None
        )
        imported = model_from_config(
            mid,
            config,
            sid,
            index=index,
            name=args.name,
            vendor=args.vendor,
            role=args.role or "reference",
            checkpoint=args.repo,
        )
    except ConfigError as exc:
        checks.problems += exc.problems
        imported = None
    if imported is not None:  # ids the file's shape led to must be ones this KB defines
        checks.refs("attention.families", imported.data["attention"]["families"], "attention")
        checks.refs("precisions.dtype", [p["dtype"] for p in imported.data["precisions"]], "dtypes")
    checks.done()
    assert imported is not None
    body = yaml_text(MODEL_HEADER, imported.data)
    shown = shown_path(path, root)
    doc, problems = load_text(body, shown)
    if doc is None:
        raise ScaffoldError([*(str(p) for p in problems), "the entry was not written"])
    try:
        s.Model.model_validate(doc.data)
    except ValidationError as exc:
        raise ScaffoldError([str(p) for p in problems_from_validation(exc, doc, s.Model)]) from None
    written = []
    try:
        if source_path is not None:
            day = args.date or _today()
            source = source_entry(sid, args.repo, args.revision, day, imported.data["name"])
            text = yaml_text(SOURCE_HEADER, source)
            s.Source.model_validate(load_text(text, shown_path(source_path, root))[0].data)
            write_text(source_path, text, root=root, new=True)
            written.append(Written(path=source_path, first_line=1, text=text))
        write_text(path, body, root=root, new=True)
    except WriteRefused as exc:
        raise ScaffoldError([str(exc)]) from None
    written.append(Written(path=path, first_line=1, text=body))
    return written, imported


def _today() -> datetime.date:
    return datetime.date.today()


_ENTRY = re.compile(r"^(?P<indent>[ ]*)- id:", re.MULTILINE)


def _list_file_text(path: Path, shown: str, root: Path, kind: str) -> str:
    """The text of the KB file an entry is appended to (kb/pitfalls.yaml, kb/rules.yaml): it must exist, be a
    regular file and lie inside the KB; otherwise nothing is written."""
    if not (path.exists() or path.is_symlink()):
        raise ScaffoldError([f"{shown}: got no such file, expected the KB's {kind}"])
    old, unreadable = read_text(path, shown)  # a regular file, not a link: nothing outside the KB is written
    if old is None or not inside(path.parent, root):
        reasons = [str(p) for p in unreadable] or [f"{shown}: leads out of the KB folder (a link)"]
        raise ScaffoldError([*reasons, "nothing was written"])
    return old


def new_pitfall(entity_id: str, args: argparse.Namespace, root: Path) -> Written:
    known = KnownIds.read(root)
    checks = Checks(known)
    path = root / KIND["pitfalls"].pattern
    shown = shown_path(path, root)
    checks.new_id(entity_id)
    if entity_id in known.pitfalls:
        line = known.pitfalls[entity_id]
        raise ScaffoldError(
            [
                f"{shown}:{line}: got pitfall id '{entity_id}', which exists already; "
                "expected a new id (or edit that entry)"
            ]
        )
    old = _list_file_text(path, shown, root, "pitfalls")
    checks.source(args.source)
    checks.refs("--model", args.model, "models")
    checks.refs("--hardware", args.hardware, "hardware")
    topics = choices(s.Scope, "topics")
    for topic in args.topic:
        if topic not in topics:
            checks.problems.append(f"--topic: got '{topic}', expected one of: {', '.join(topics)}")
    for flag in args.flag:
        if flag not in known.flags:
            checks.problems.append(
                f"--flag: got '{flag}', expected a launch_server flag documented in kb/parameters/"
                f"{did_you_mean(flag, known.flags)}"
            )
    checks.done()
    entry = _ENTRY.search(old)
    indent = entry.group("indent") if entry else "  "
    prefix = old if old.endswith("\n") or not old else old + "\n"
    body = pitfall_yaml(entity_id, args, known, indent)
    data = _well_formed(prefix + body, shown)
    items = data.get("pitfalls") if isinstance(data, dict) else None
    if not items or not isinstance(items[-1], dict) or items[-1].get("id") != entity_id:
        raise ScaffoldError(
            [
                f"{shown}: could not append to its `pitfalls:` list as the file is laid out; "
                "add the entry by hand"
            ]
        )
    try:  # all or nothing: a whole new file replaces the old one, never a half-appended one
        write_text(path, prefix + body, root=root)
    except WriteRefused as exc:
        raise ScaffoldError([str(exc)]) from None
    return Written(path=path, first_line=prefix.count("\n") + 1, text=body)


# ------------------------------------------------------------------------------------------------------ rule
# `new rule` gets the checker's predicates from its caller (the kb layer does not import the checker): each
# a pydantic model of the rule's params, with the ClassVars ``fields`` (what a message may quote) and ``doc``.
Predicates = Mapping[str, type[BaseModel]]
_BASE_PARAMS = ("when", "unless")  # every predicate's: written as comments


def _param_line(name: str, info: FieldInfo, inner: str) -> str:
    """A predicate parameter: a required one to fill in, an optional one commented with its default."""
    key = info.alias or name
    if not info.is_required():
        return f"{inner}# {key}: {scalar(info.default)}  # optional"
    listed = typing.get_origin(info.annotation) is list
    item = typing.get_args(info.annotation)[0] if listed else info.annotation
    # pydantic keeps a top-level Annotated's constraints in the field's metadata, a list item's in its type
    constraints = getattr(item, "__metadata__", ()) if listed else info.metadata
    if typing.get_origin(item) is typing.Literal:
        hint = f"one of: {', '.join(typing.get_args(item))}"
    elif any(isinstance(c, StringConstraints) and str(c.pattern).startswith("^--") for c in constraints):
        hint = "flags, e.g. [--tp-size]" if listed else "a flag, e.g. --tp-size"
    else:
        hint = ""
    value = f"[{FILL}]" if listed else FILL
    return f"{inner}{key}: {value}" + (f"  # {hint}" if hint else "")


def rule_yaml(rid: str, args: argparse.Namespace, predicate: type[BaseModel], indent: str) -> str:
    """One entry of kb/rules.yaml's ``rules`` list, its dash at ``indent``."""
    inner = indent + "  "
    fields = list(getattr(predicate, "fields", ()))
    doc = getattr(predicate, "doc", "")
    params = [
        _param_line(name, info, inner + "  ")
        for name, info in predicate.model_fields.items()
        if name not in _BASE_PARAMS
    ]
    does = " | ".join(choices(s.EngineBehaviour, "does"))
    established = " | ".join(choices(s.EngineBehaviour, "established"))
    quotes = ", ".join(f"{name}: {FILL}" for name in fields)
    lines = [
        f"{indent}- id: {rid}",
        *([f"{inner}program: {args.program}"] if args.program != "launch_server" else []),
        f"{inner}predicate: {args.predicate}  # {doc}" if doc else f"{inner}predicate: {args.predicate}",
        f"{inner}params:",
        *params,
        f"{inner}  # when: {{--flag: [value]}}  # only when each flag's value is one of these",
        f"{inner}  # unless: {{--flag: [value]}}  # never when a flag's value is one of these",
        f"{inner}message:  # may quote "
        + (
            ", ".join(f"{{{name}}}" for name in fields) if fields else "no values (this predicate gives none)"
        ),
        f"{inner}  zh: {FILL}",
        f"{inner}  en: {FILL}",
        f"{inner}explained_at: {FILL}  # the section that explains it: page.md#anchor",
        f"{inner}engine:  # what sglang does when the rule is broken, read in the wheel",
        f"{inner}  does: {FILL}  # {does}",
        f"{inner}  # at: {{file: sglang/srt/…, function: …, line: …}}  # required unless it does nothing",
        f"{inner}  # raises: ValueError  # with does: raises",
        f"{inner}  # adjustment: {{zh: …, en: …}}  # with does: adjusts",
        f"{inner}  established: {FILL}  # {established}",
        f"{inner}# advice: warning  # warning or note, when the engine neither raises nor adjusts",
        f"{inner}example: {FILL}  # a whole command that breaks the rule",
        *([f"{inner}quotes: {{{quotes}}}  # what the message quotes for the example"] if fields else []),
        f"{inner}holds: {FILL}  # the same command put right",
        _source_line(args.source, inner),
    ]
    return "\n".join(lines) + "\n"


_TOP_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*:", re.MULTILINE)


def _end_of_rules(text: str) -> int:
    """Where a new rule goes: after the ``rules:`` list's last entry, before the comment and blank lines
    that lead into the next top-level key (or at the end of the file)."""
    start = re.search(r"^rules:", text, re.MULTILINE)
    after = _TOP_KEY.search(text, start.end()) if start else None
    if after is None:
        return len(text)
    lines = text[: after.start()].splitlines(keepends=True)
    while lines and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return sum(len(line) for line in lines)


def new_rule(entity_id: str, args: argparse.Namespace, root: Path, predicates: Predicates) -> Written:
    """Insert a rule skeleton at the end of kb/rules.yaml's ``rules`` list, the rest of the file as it was."""
    known = KnownIds.read(root)
    checks = Checks(known)
    path = root / KIND["rules"].pattern
    shown = shown_path(path, root)
    checks.new_id(entity_id)
    if entity_id in known.ids["rules"]:
        raise ScaffoldError(
            [
                f"{shown}: got rule id '{entity_id}', which exists already; "
                "expected a new id (or edit that rule)"
            ]
        )
    old = _list_file_text(path, shown, root, "rules")
    if args.predicate not in predicates:
        checks.problems.append(
            f"--predicate: got '{args.predicate}', expected one of: {', '.join(sorted(predicates))}"
            f"{did_you_mean(args.predicate, predicates)}"
        )
    checks.source(args.source)
    checks.done()
    at = _end_of_rules(old)
    head = old[:at] if old[:at].endswith("\n") or not old[:at] else old[:at] + "\n"
    entry = _ENTRY.search(old)
    body = rule_yaml(entity_id, args, predicates[args.predicate], entry.group("indent") if entry else "  ")
    rest = old[at:].lstrip("\n")  # what follows the list, after one blank line as between the file's sections
    text = head + body + ("\n" + rest if rest else "")
    doc, _ = load_text(text, shown)  # the options are all checked: only the file's layout can break it
    items = doc.data.get("rules") if doc is not None and isinstance(doc.data, dict) else None
    if not items or not isinstance(items[-1], dict) or items[-1].get("id") != entity_id:
        raise ScaffoldError(
            [f"{shown}: could not add to its `rules:` list as the file is laid out; add the rule by hand"]
        )
    try:  # all or nothing: a whole new file replaces the old one, never a half-written one
        write_text(path, text, root=root)
    except WriteRefused as exc:
        raise ScaffoldError([str(exc)]) from None
    return Written(path=path, first_line=head.count("\n") + 1, text=body)


def placeholders(written: Written) -> list[tuple[int, str]]:
    """``(line, text)`` of every line of the new text whose value (not its comment) holds the placeholder."""
    out = []
    for i, line in enumerate(written.text.splitlines()):
        value = "" if line.lstrip().startswith("#") else line.split("  # ", 1)[0]
        if FILL in value:
            out.append((written.first_line + i, value.strip()))
    return out
