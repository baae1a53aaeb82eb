"""Load ``kb/`` into one validated object, or report every problem at once as ``file:line: path: message``.

Each kind of entity is declared once, as a field of ``KB`` (see handbook.kb.kinds); the files read, the
pools, the layout checks and the reference checks below are derived from those declarations. Three passes,
each collecting problems instead of stopping at the first:
1. every file: YAML syntax, then its pydantic schema (closed models);
2. layout: file name = id, unique ids, required files present, no stray files;
3. cross-references: every value the schema marks as naming another entity (ids, flags, flag lines).
"""

# ruff: noqa: RUF009 - document/per_file/listed return dataclasses.field(...), as the KB fields need

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from handbook.core.paths import KB_ROOT, REPO_ROOT, inside
from handbook.core.problem import Problem
from handbook.core.suggest import did_you_mean
from handbook.kb import schema as s
from handbook.kb.common import flags_in
from handbook.kb.kinds import (
    KBFile,
    Kind,
    Ref,
    declared,
    document,
    files,
    listed,
    markers,
    per_file,
    references,
)
from handbook.kb.yamlfile import Path_, YamlDoc, format_path, load_yaml

# Files the loader reads besides YAML, and folders it leaves to other readers.
IGNORED = ("README.md", "engine/*", "schema/*")


class KBInvalid(Exception):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) in the knowledge base")


@dataclass
class Origin:
    doc: YamlDoc
    path: Path_ = ()

    def at(self, sub: Path_, message: str) -> Problem:
        full = self.path + tuple(sub)
        return Problem(self.doc.file, self.doc.line_of(full), format_path(full), message)


class Flags(Mapping[tuple[str, str], s.Parameter]):
    """Every parameter by ``(program, flag)`` in display order, and by every other spelling of its flag.

    Built once, at load, from the parameter groups; ``spelled`` also finds aliases and abbreviations."""

    def __init__(self, groups: Iterable[s.ParameterGroup] = ()):
        self._by_flag: dict[tuple[str, str], s.Parameter] = {}
        for group in groups:
            for p in group.parameters:
                self._by_flag.setdefault((p.program, p.flag), p)
        self._spellings: dict[tuple[str, str], s.Parameter] = {}
        for (program, flag), p in self._by_flag.items():
            self._spellings[(program, flag)] = p
            for alias in [*p.aliases, *p.abbreviations]:
                self._spellings[(program, alias)] = p

    def __getitem__(self, key: tuple[str, str]) -> s.Parameter:
        return self._by_flag[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(self._by_flag)

    def __len__(self) -> int:
        return len(self._by_flag)

    def spelled(self, flag: str, program: str = "launch_server") -> s.Parameter | None:
        """The parameter ``flag`` spells for ``program`` (its flag, an alias or an abbreviation)."""
        return self._spellings.get((program, flag))

    def spellings(self, program: str) -> list[str]:
        """Every spelling of ``program``'s documented flags."""
        return [flag for (prog, flag) in self._spellings if prog == program]


@dataclass(kw_only=True, eq=False)
class KB:
    """The whole knowledge base, validated. Lookups by id; ``origin`` locates any entity in its file.

    Every kind of entity is declared here, once: where its files are, what identifies an entity, how
    messages name one (handbook.kb.kinds). The field order is kb.json's. Adding a kind takes its schema
    class (schema.py, with ``Ref`` on fields that name other entities), a field here and a fixture.
    """

    root: Path
    handbook: s.HandbookFile = document("handbook.yaml")
    sources: dict[str, s.Source] = per_file("sources/*.yaml", noun="source")
    dtypes: dict[str, s.Dtype] = listed("dtypes.yaml", "dtypes", noun="dtype")
    quantizations: dict[str, s.Quantization] = listed(  # what the engine refuses to load where
        "dtypes.yaml", "quantizations", noun="quantization method", min_items=0
    )
    hardware: dict[str, s.Hardware] = per_file("hardware/*.yaml", noun="hardware")
    models: dict[str, s.Model] = per_file("models/*.yaml", noun="model")
    attention: dict[str, s.AttentionFamily] = listed("attention.yaml", "families", noun="attention family")
    groups: dict[str, s.ParameterGroup] = per_file(  # the group id is the file name; shown by `order`
        "parameters/*.yaml",
        noun="parameter group",
        key=None,
        order_by="order",
        export="parameter_groups",
        description="By group id, in display order",
    )
    recipes: dict[str, s.Recipe] = per_file("recipes/*.yaml", noun="recipe")
    pitfalls: dict[str, s.Pitfall] = listed("pitfalls.yaml", "pitfalls", noun="pitfall")
    env_vars: dict[str, s.EnvVar] = listed("env_vars.yaml", "env_vars", noun="variable", key="name")
    observability: s.ObservabilityFile = document("observability.yaml")
    tuning: s.TuningFile = document("tuning.yaml")
    architecture: s.ArchitectureFile = document("architecture.yaml")
    topologies: s.TopologiesFile = document("topologies.yaml")
    claims: dict[str, s.Claim] = listed("claims.yaml", "claims", noun="claim")
    edits: list[s.SourceEdit] = listed(  # the source's words the site shows otherwise (appendix D)
        "claims.yaml", "edits", key=None, min_items=0
    )
    rules: dict[str, s.Rule] = listed(  # checked against every command
        "rules.yaml", "rules", noun="rule", description="What the command checker enforces"
    )
    resolved_defaults: list[s.ResolvedDefault] = listed(
        "rules.yaml", "resolved_defaults", key=None, min_items=0
    )
    wording_exceptions: list[s.WordingException] = listed(  # texts the wording checks rightly flag
        "rules.yaml", "wording_exceptions", key=None, min_items=0
    )
    glossary: dict[str, s.Term] = listed("glossary.yaml", "terms", noun="term")
    # Not kinds: derived at load.
    parameters: Flags = field(default_factory=Flags)  # the groups' parameters by (program, flag)
    origins: dict[int, Origin] = field(default_factory=dict, repr=False)

    def origin(self, entity: BaseModel) -> Origin:
        return self.origins[id(entity)]

    def group_of(self, parameter: s.Parameter) -> str:
        for gid, group in self.groups.items():
            if any(p is parameter for p in group.parameters):
                return gid
        raise KeyError(parameter.flag)

    def parameter(self, flag: str, program: str = "launch_server") -> s.Parameter | None:
        """A parameter by its flag or any alias."""
        return self.parameters.spelled(flag, program)


KINDS: tuple[Kind, ...] = declared(KB)
KIND: dict[str, Kind] = {kind.name: kind for kind in KINDS}
FLAGS_POOL = "groups"  # the kind that documents flags (FlagUse): its files failing silences flag checks

# The order the stray-file message names the files in, as it always has; files of kinds added later follow
# in declaration order. Only that message and the editor mapping depend on it.
_FILE_ORDER = (
    "handbook.yaml",
    "dtypes.yaml",
    "pitfalls.yaml",
    "env_vars.yaml",
    "observability.yaml",
    "tuning.yaml",
    "attention.yaml",
    "architecture.yaml",
    "topologies.yaml",
    "claims.yaml",
    "rules.yaml",
    "sources/*.yaml",
    "hardware/*.yaml",
    "models/*.yaml",
    "recipes/*.yaml",
    "parameters/*.yaml",
)


def _file_position(file: KBFile) -> tuple[bool, int]:
    """Single files before folders; known files in their usual place, new ones after them."""
    place = _FILE_ORDER.index(file.pattern) if file.pattern in _FILE_ORDER else len(_FILE_ORDER)
    return file.per_file, place


FILES: list[KBFile] = sorted(files(KINDS), key=_file_position)  # every kind of file kb/ holds


def _check_declarations() -> None:
    """Every ``Ref`` in the schemas names a kind with ids: a typo fails at import, not silently."""
    keyed = [kind.name for kind in KINDS if kind.keyed]
    for kind in KINDS:
        for marker in markers(kind.schema):
            if isinstance(marker, Ref) and marker.pool not in keyed:
                raise TypeError(
                    f"{kind.schema.__name__}: got Ref({marker.pool!r}), expected one of: {', '.join(keyed)}"
                )


_check_declarations()


def _expected(error: dict[str, Any]) -> str:
    kind, msg = error["type"], error["msg"]
    if kind == "missing":
        return "a value (this field is required)"
    for prefix in ("Input should be ", "Value error, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix) :]
    if kind == "model_type":
        return f"a mapping of {error['ctx']['class_name']} fields"
    if kind == "string_too_short":
        return "non-empty text"
    if kind == "string_too_long":
        return f"text of at most {error['ctx']['max_length']:,} characters"
    if kind == "finite_number":
        return "a finite number"
    if kind == "too_short":
        return f"at least {error['ctx']['min_length']} item(s)"
    if kind == "too_long":
        return f"at most {error['ctx']['max_length']} item(s)"
    if kind == "string_pattern_mismatch":
        return f"text matching {error['ctx']['pattern']}"
    return msg[0].lower() + msg[1:] if msg else kind


def _show(value: Any) -> str:
    if isinstance(value, dict):
        text = "a mapping {" + ", ".join(map(str, list(value)[:4])) + (", …}" if len(value) > 4 else "}")
    elif isinstance(value, list):
        text = f"a list of {len(value)}"
    elif isinstance(value, date):
        text = value.isoformat()  # as the file writes it, not datetime.date(…)
    else:
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"


def _data_path(loc: tuple[Any, ...], data: Any) -> Path_:
    """Keep the parts of a pydantic ``loc`` that address the data (drop union-branch labels)."""
    out: list[str | int] = []
    node = data
    for part in loc:
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if (isinstance(node, dict) and part in node) or in_list:
            out.append(part)
            node = node[part]
        elif (
            isinstance(node, dict) and isinstance(part, str) and part.isidentifier() and not part[0].isupper()
        ):
            out.append(part)  # a missing key: point at where it belongs
            node = None
    return tuple(out)


def _allowed_keys(schema: type[BaseModel], path: Path_) -> list[str] | None:
    """Best-effort: the keys a closed model accepts at ``path`` (for 'unknown key' messages)."""
    import typing

    def models_in(annotation: Any) -> list[type[BaseModel]]:
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return [annotation]
        return [m for arg in typing.get_args(annotation) for m in models_in(arg)]

    current: list[type[BaseModel]] = [schema]
    for part in path:
        if isinstance(part, int):
            continue
        nxt: list[type[BaseModel]] = []
        for model in current:
            if part in model.model_fields:
                nxt += models_in(model.model_fields[part].annotation)
        current = nxt
    if len(current) == 1:
        return list(current[0].model_fields)
    return None


def problems_from_validation(exc: ValidationError, doc: YamlDoc, schema: type[BaseModel]) -> list[Problem]:
    problems: dict[tuple[Path_, str], Problem] = {}
    for error in exc.errors(include_url=False):
        loc = tuple(error["loc"])
        path = _data_path(loc, doc.data)
        kind = error["type"]
        if kind == "kb_rule":
            path = path + tuple(_split(error["ctx"]["at"]))
            message = error["msg"]
        elif kind == "extra_forbidden":
            allowed = _allowed_keys(schema, path[:-1])
            expected = f"one of: {', '.join(allowed)}" if allowed else "only the keys this schema defines"
            message = f"got unknown key '{path[-1]}', expected {expected}"
        elif kind == "missing":
            message = f"got nothing, expected {_expected(error)}"
        else:
            message = f"got {_show(error.get('input'))}, expected {_expected(error)}"
        # errors of one value from several union branches share a key, and become one line
        key = (path, message) if kind in ("kb_rule", "missing", "extra_forbidden") else (path, "value")
        if key in problems and kind not in ("kb_rule", "missing", "extra_forbidden"):
            # the same value failed several branches of a union: one line, all expectations
            first = problems[key]
            extra = _expected(error)
            if extra not in first.message:
                problems[key] = Problem(first.file, first.line, first.path, f"{first.message} or {extra}")
            continue
        problems[key] = Problem(doc.file, doc.line_of(path), format_path(path), message)
    return list(problems.values())


def _split(dotted: str) -> list[str | int]:
    out: list[str | int] = []
    for part in dotted.replace("]", "").split("."):
        name, *indexes = part.split("[")
        if name:
            out.append(name)
        out += [int(i) for i in indexes]
    return out


def _rel(path: Path, repo: Path) -> str:
    try:
        return path.relative_to(repo).as_posix()
    except ValueError:
        return path.as_posix()


def _shown_from(root: Path) -> Path:
    """Where shown file names start: the repository when the KB is inside it (kb/…, tests/fixtures/…),
    else the KB folder's parent (so a KB in any folder shows as <folder>/models/…)."""
    return REPO_ROOT if root.resolve().is_relative_to(REPO_ROOT) else root.parent


def shown_root(root: Path) -> str:
    """The KB folder as its files' shown names begin (``kb`` for the repository's own)."""
    return _rel(root, _shown_from(root))


class _Loader:
    def __init__(self, root: Path):
        self.root = root
        self.repo = _shown_from(root)
        self.problems: list[Problem] = []
        self.origins: dict[int, Origin] = {}
        self.broken: set[str] = set()  # kinds with a file that failed: references into them are not judged

    def shown(self, path: Path) -> str:
        return _rel(path, self.repo)

    def parse(self, path: Path, schema: type[BaseModel]) -> tuple[BaseModel | None, YamlDoc | None]:
        doc, problems = load_yaml(path, self.shown(path))
        self.problems += problems
        if doc is None:
            return None, None
        if not isinstance(doc.data, dict):
            self.problems.append(Problem(doc.file, 1, "", f"got {_show(doc.data)}, expected a YAML mapping"))
            return None, doc
        try:
            return schema.model_validate(doc.data), doc
        except ValidationError as exc:
            self.problems += problems_from_validation(exc, doc, schema)
            return None, doc

    def note(self, entity: BaseModel, origin: Origin) -> tuple[BaseModel, Origin]:
        self.origins[id(entity)] = origin
        return entity, origin

    def load(self) -> KB | None:
        if not self.root.is_dir():
            self.problems.append(Problem(self.shown(self.root), 1, "", "got no such folder, expected the KB"))
            return None
        read: dict[str, list[tuple[BaseModel, Origin]]] = {kind.name: [] for kind in KINDS}
        known: set[Path] = set()
        for file in FILES:
            paths = sorted(self.root.glob(file.pattern)) if file.per_file else [self.root / file.pattern]
            known.update(paths)
            for path in paths:
                for kind, entity, origin in self.read(file, path):
                    read[kind.name].append((entity, origin))
        self.check_stray_files(known)
        # Go on with whatever loaded, so that reference problems are reported together with the rest.
        return self.assemble(read)

    def read(self, file: KBFile, path: Path) -> list[tuple[Kind, BaseModel, Origin]]:
        """The entities of one file, noted with their origins; a file that fails marks its kinds broken."""
        if not file.per_file and not (path.exists() or path.is_symlink()):
            self.problems.append(Problem(self.shown(path), 1, "", "got no such file, expected it to exist"))
            self.broken.update(kind.name for kind in file.kinds)
            return []
        if not inside(path.parent, self.root):
            # a folder of the KB that links elsewhere: nothing outside the KB is read, or echoed
            self.problems.append(
                Problem(
                    self.shown(path),
                    1,
                    "",
                    "got a path that leads out of the KB folder, expected a file inside it",
                )
            )
            self.broken.update(kind.name for kind in file.kinds)
            return []
        model, doc = self.parse(path, file.schema)
        if model is None or doc is None:
            self.broken.update(kind.name for kind in file.kinds)
            return []
        if file.per_file:
            kind = file.kinds[0]
            if kind.key is not None and getattr(model, kind.key) != path.stem:
                self.problems.append(
                    Problem(
                        doc.file,
                        doc.line_of((kind.key,)),
                        kind.key,
                        f"got '{getattr(model, kind.key)}', expected '{path.stem}' (the file name)",
                    )
                )
                self.broken.add(kind.name)
                return []
        out: list[tuple[Kind, BaseModel, Origin]] = []
        for kind in file.kinds:
            if kind.shape == "listed":
                for i, item in enumerate(getattr(model, str(kind.list_key))):
                    out.append((kind, *self.note(item, Origin(doc, (str(kind.list_key), i)))))
            else:
                out.append((kind, *self.note(model, Origin(doc))))
        return out

    def check_stray_files(self, known: set[Path]) -> None:
        patterns = [file.pattern for file in FILES]
        found: list[Path] = []
        for folder, dirs, names in os.walk(self.root):  # links to folders are listed, never followed
            for name in sorted(dirs):
                if (Path(folder) / name).is_symlink():
                    found.append(Path(folder) / name)
            found += [Path(folder) / name for name in names]
        for path in sorted(found):
            if path in known:
                continue
            rel = path.relative_to(self.root)
            if path.is_symlink() and not any(rel.match(pattern) for pattern in IGNORED):
                message = "got a symbolic link, expected a regular file or folder (KB files are not links)"
                self.problems.append(Problem(self.shown(path), 1, "", message))
                continue
            if any(rel.match(pattern) for pattern in IGNORED):
                continue
            self.problems.append(
                Problem(
                    self.shown(path),
                    1,
                    "",
                    f"got a file the KB does not read, expected one of: {', '.join(patterns)}",
                )
            )

    def unique(self, items: list[tuple[Any, Origin, Path_]], what: str) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        first: dict[Any, Origin] = {}
        for key, origin, sub in items:
            if key in out:
                prev = first[key]
                self.problems.append(
                    origin.at(
                        sub,
                        f"got {what} {key!r} again (first at {prev.doc.file}:"
                        f"{prev.doc.line_of(prev.path + sub)}), expected each {what} once",
                    )
                )
                continue
            out[key] = origin
            first[key] = origin
        return out

    def pool(self, kind: Kind, read: list[tuple[BaseModel, Origin]]) -> Any:
        """A kind's entities as the KB holds them: one document, a list, or a dict by id."""
        if kind.shape == "document":
            return read[0][0] if read else None  # None: its file failed to load
        if not kind.keyed:
            return [entity for entity, _ in read]
        if kind.order_by is not None:
            read = sorted(read, key=lambda pair: (getattr(pair[0], str(kind.order_by)), pair[1].doc.file))
        if kind.shape == "per_file":  # the file name is the id (and equals the key field, if any)
            return {origin.doc.file.rsplit("/", 1)[-1].removesuffix(".yaml"): e for e, origin in read}
        key = str(kind.key)
        self.unique([(getattr(e, key), origin, (key,)) for e, origin in read], kind.unique_label)
        return {getattr(entity, key): entity for entity, _ in read}  # a duplicate: the last one's references

    def flags(self, groups: dict[str, s.ParameterGroup]) -> Flags:
        """The flag index; a spelling (flag, alias, abbreviation) names one parameter of its program."""
        spellings: list[tuple[Any, Origin, Path_]] = []
        for group in groups.values():
            for p in group.parameters:
                origin = self.origins[id(p)]
                spellings.append(((p.program, p.flag), origin, ("flag",)))
                spellings += [((p.program, a), origin, ("aliases", j)) for j, a in enumerate(p.aliases)]
                spellings += [
                    ((p.program, a), origin, ("abbreviations", j)) for j, a in enumerate(p.abbreviations)
                ]
        self.unique(spellings, "flag")
        return Flags(groups.values())

    def assemble(self, read: dict[str, list[tuple[BaseModel, Origin]]]) -> KB | None:
        pools = {kind.name: self.pool(kind, read[kind.name]) for kind in KINDS}
        for group in pools[FLAGS_POOL].values():
            origin = self.origins[id(group)]
            for i, p in enumerate(group.parameters):
                self.origins[id(p)] = Origin(origin.doc, ("parameters", i))
        kb = KB(root=self.root, **pools, parameters=self.flags(pools[FLAGS_POOL]), origins=self.origins)
        self.problems += check_references(kb, frozenset(self.broken))
        return None if self.problems else kb


# ------------------------------------------------------------------------------------------- references
class _References:
    """Checks that ids and flags named by entities exist; silent about pools whose files failed to load."""

    def __init__(self, kb: KB, broken: frozenset[str]):
        self.kb = kb
        self.broken = broken
        self.problems: list[Problem] = []

    def id(self, origin: Origin, sub: Path_, value: Any, pool_name: str) -> None:
        kind = KIND[pool_name]
        pool = getattr(self.kb, pool_name)
        if value in pool or pool_name in self.broken:
            return
        self.problems.append(
            origin.at(
                sub,
                f"got '{value}', expected one of the {kind.noun} ids in {kind.where}"
                f"{did_you_mean(value, pool)}",
            )
        )

    def flag(self, origin: Origin, sub: Path_, flag: str, program: str) -> None:
        if FLAGS_POOL in self.broken or self.kb.parameter(flag, program) is not None:
            return
        self.problems.append(
            origin.at(
                sub,
                f"got flag '{flag}', expected a {program} flag documented in kb/parameters/"
                f"{did_you_mean(flag, self.kb.parameters.spellings(program))}",
            )
        )

    def line(self, origin: Origin, sub: Path_, line: Any, program: str) -> None:
        """A flag line (``--tp-size 8``): every flag in it must be documented."""
        for flag, _ in flags_in([line]):
            self.flag(origin, sub, flag, program)


def check_references(kb: KB, broken: frozenset[str] = frozenset()) -> list[Problem]:
    """Every value a schema marks (``Ref``, ``FlagUse``), in every entity of every kind, names something."""
    refs = _References(kb, broken)
    for kind in KINDS:
        for entity in kind.entities(getattr(kb, kind.name)):
            origin = kb.origin(entity)
            for sub, marker, value, program in references(entity):
                if isinstance(marker, Ref):
                    refs.id(origin, sub, value, marker.pool)
                elif marker.line:
                    refs.line(origin, sub, value, program)
                else:
                    refs.flag(origin, sub, value, program)
    # A rule's params are the predicate's own (a free mapping): its `models` name models.
    for rule in kb.rules.values():
        for i, value in enumerate(list(rule.params.get("models", []))):
            refs.id(kb.origin(rule), ("params", "models", i), value, "models")
    return refs.problems


def load_kb(root: Path = KB_ROOT) -> KB:
    """The validated KB, or ``KBInvalid`` carrying every problem (sorted by file and line)."""
    loader = _Loader(root)
    kb = loader.load()
    if kb is None:
        raise KBInvalid(sorted(loader.problems, key=lambda p: (p.file, p.line, p.path)))
    return kb
