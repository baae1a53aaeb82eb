"""Load ``kb/`` into one validated object, or report every problem at once as ``file:line: path: message``.

Three passes, each collecting problems instead of stopping at the first:
1. every file: YAML syntax, then its pydantic schema (closed models);
2. layout: file name = id, unique ids, required files present, no stray files;
3. cross-references: sources, models, hardware, dtypes, flags and variables that entities name.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from handbook.core.paths import KB_ROOT, REPO_ROOT
from handbook.core.problem import Problem
from handbook.core.suggest import closest
from handbook.kb import schema as s
from handbook.kb.common import flags_in
from handbook.kb.yamlfile import Path_, YamlDoc, format_path, load_yaml

# Files the loader reads besides YAML, and folders it leaves to other readers.
IGNORED = ("README.md", "engine/*", "schema/*")


@dataclass(frozen=True)
class Kind:
    name: str
    pattern: str  # relative to kb/
    schema: type[BaseModel]
    per_file: bool = False  # one entity per file; the file name is its id


SINGLE_FILES = [
    Kind("handbook", "handbook.yaml", s.HandbookFile),
    Kind("dtypes", "dtypes.yaml", s.DtypesFile),
    Kind("pitfalls", "pitfalls.yaml", s.PitfallsFile),
    Kind("env_vars", "env_vars.yaml", s.EnvVarsFile),
    Kind("observability", "observability.yaml", s.ObservabilityFile),
    Kind("tuning", "tuning.yaml", s.TuningFile),
    Kind("attention", "attention.yaml", s.AttentionFile),
    Kind("architecture", "architecture.yaml", s.ArchitectureFile),
    Kind("topologies", "topologies.yaml", s.TopologiesFile),
    Kind("claims", "claims.yaml", s.ClaimsFile),
    Kind("rules", "rules.yaml", s.RulesFile),
]
ENTITY_DIRS = [
    Kind("sources", "sources/*.yaml", s.Source, per_file=True),
    Kind("hardware", "hardware/*.yaml", s.Hardware, per_file=True),
    Kind("models", "models/*.yaml", s.Model, per_file=True),
    Kind("recipes", "recipes/*.yaml", s.Recipe, per_file=True),
    Kind("parameters", "parameters/*.yaml", s.ParameterGroup, per_file=True),
]


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


@dataclass
class KB:
    """The whole knowledge base, validated. Lookups by id; ``origin`` locates any entity in its file."""

    root: Path
    handbook: s.HandbookFile
    dtypes: dict[str, s.Dtype]
    sources: dict[str, s.Source]
    hardware: dict[str, s.Hardware]
    models: dict[str, s.Model]
    recipes: dict[str, s.Recipe]
    groups: dict[str, s.ParameterGroup]  # in display order
    parameters: dict[tuple[str, str], s.Parameter]  # (program, flag)
    pitfalls: dict[str, s.Pitfall]
    env_vars: dict[str, s.EnvVar]
    observability: s.ObservabilityFile
    tuning: s.TuningFile
    attention: dict[str, s.AttentionFamily]
    claims: dict[str, s.Claim]
    architecture: s.ArchitectureFile
    topologies: s.TopologiesFile
    origins: dict[int, Origin] = field(default_factory=dict, repr=False)
    rules: dict[str, s.Rule] = field(default_factory=dict)  # kb/rules.yaml, checked against every command
    resolved_defaults: list[s.ResolvedDefault] = field(default_factory=list)  # kb/rules.yaml

    def origin(self, entity: BaseModel) -> Origin:
        return self.origins[id(entity)]

    def group_of(self, parameter: s.Parameter) -> str:
        for gid, group in self.groups.items():
            if any(p is parameter for p in group.parameters):
                return gid
        raise KeyError(parameter.flag)

    def parameter(self, flag: str, program: str = "launch_server") -> s.Parameter | None:
        """A parameter by its flag or any alias."""
        return self._spellings().get((program, flag))

    @functools.cache  # noqa: B019 - the KB is immutable once loaded
    def _spellings(self) -> dict[tuple[str, str], s.Parameter]:
        out: dict[tuple[str, str], s.Parameter] = {}
        for (program, flag), p in self.parameters.items():
            out[(program, flag)] = p
            for alias in [*p.aliases, *p.abbreviations]:
                out[(program, alias)] = p
        return out

    def __hash__(self) -> int:
        return id(self)


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


class _Loader:
    def __init__(self, root: Path):
        self.root = root
        # files are shown relative to the repository when the KB is inside it (kb/…, tests/fixtures/…)
        self.repo = REPO_ROOT if root.resolve().is_relative_to(REPO_ROOT) else root.parent
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

    def note(self, entity: BaseModel, doc: YamlDoc, path: Path_ = ()) -> None:
        self.origins[id(entity)] = Origin(doc, path)

    def load(self) -> KB | None:
        if not self.root.is_dir():
            self.problems.append(Problem(self.shown(self.root), 1, "", "got no such folder, expected the KB"))
            return None
        known: set[Path] = set()
        singles: dict[str, Any] = {}
        for kind in SINGLE_FILES:
            path = self.root / kind.pattern
            known.add(path)
            if not path.is_file():
                self.problems.append(
                    Problem(self.shown(path), 1, "", "got no such file, expected it to exist")
                )
                self.broken.add(kind.name)
                continue
            model, doc = self.parse(path, kind.schema)
            if model is not None and doc is not None:
                self.note(model, doc)
                singles[kind.name] = (model, doc)
            else:
                self.broken.add(kind.name)
        entities: dict[str, list[tuple[BaseModel, YamlDoc]]] = {}
        for kind in ENTITY_DIRS:
            entities[kind.name] = []
            for path in sorted(self.root.glob(kind.pattern)):
                known.add(path)
                model, doc = self.parse(path, kind.schema)
                if model is None or doc is None:
                    self.broken.add(kind.name)
                    continue
                if hasattr(model, "id") and model.id != path.stem:
                    self.problems.append(
                        Problem(
                            doc.file,
                            doc.line_of(("id",)),
                            "id",
                            f"got '{model.id}', expected '{path.stem}' (the file name)",
                        )
                    )
                    self.broken.add(kind.name)
                    continue
                self.note(model, doc)
                entities[kind.name].append((model, doc))
        self.check_stray_files(known)
        # Go on with whatever loaded, so that reference problems are reported together with the rest.
        return self.assemble(singles, entities)

    def check_stray_files(self, known: set[Path]) -> None:
        patterns = [k.pattern for k in SINGLE_FILES + ENTITY_DIRS]
        for path in sorted(self.root.rglob("*")):
            if path.is_dir() or path in known:
                continue
            rel = path.relative_to(self.root)
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

    def assemble(
        self, singles: dict[str, Any], entities: dict[str, list[tuple[BaseModel, YamlDoc]]]
    ) -> KB | None:
        def listed(kind: str, attr: str) -> list[tuple[BaseModel, Origin]]:
            if kind not in singles:
                return []
            model, doc = singles[kind]
            out = []
            for i, item in enumerate(getattr(model, attr)):
                origin = Origin(doc, (attr, i))
                self.origins[id(item)] = origin
                out.append((item, origin))
            return out

        dtypes = listed("dtypes", "dtypes")
        pitfalls = listed("pitfalls", "pitfalls")
        env_vars = listed("env_vars", "env_vars")
        families = listed("attention", "families")
        claims = listed("claims", "claims")
        rules = listed("rules", "rules")
        resolved_defaults = listed("rules", "resolved_defaults")
        self.unique([(d.id, o, ("id",)) for d, o in dtypes], "dtype id")
        self.unique([(p.id, o, ("id",)) for p, o in pitfalls], "pitfall id")
        self.unique([(e.name, o, ("name",)) for e, o in env_vars], "variable")
        self.unique([(f.id, o, ("id",)) for f, o in families], "attention family id")
        self.unique([(c.id, o, ("id",)) for c, o in claims], "claim id")
        self.unique([(r.id, o, ("id",)) for r, o in rules], "rule id")

        groups = sorted(entities["parameters"], key=lambda pair: (pair[0].order, pair[1].file))
        spellings: list[tuple[Any, Origin, Path_]] = []
        parameters: dict[tuple[str, str], s.Parameter] = {}
        for group, doc in groups:
            for i, p in enumerate(group.parameters):
                origin = Origin(doc, ("parameters", i))
                self.origins[id(p)] = origin
                parameters.setdefault((p.program, p.flag), p)
                spellings.append(((p.program, p.flag), origin, ("flag",)))
                spellings += [((p.program, a), origin, ("aliases", j)) for j, a in enumerate(p.aliases)]
                spellings += [
                    ((p.program, a), origin, ("abbreviations", j)) for j, a in enumerate(p.abbreviations)
                ]
        self.unique(spellings, "flag")

        def single(kind: str) -> Any:
            return singles[kind][0] if kind in singles else None

        kb = KB(
            root=self.root,
            handbook=single("handbook"),
            dtypes={d.id: d for d, _ in dtypes},
            sources={e.id: e for e, _ in entities["sources"]},
            hardware={e.id: e for e, _ in entities["hardware"]},
            models={e.id: e for e, _ in entities["models"]},
            recipes={e.id: e for e, _ in entities["recipes"]},
            groups={doc.file.rsplit("/", 1)[-1].removesuffix(".yaml"): g for g, doc in groups},
            parameters=parameters,
            pitfalls={p.id: p for p, _ in pitfalls},
            env_vars={e.name: e for e, _ in env_vars},
            observability=single("observability"),
            tuning=single("tuning"),
            attention={f.id: f for f, _ in families},
            claims={c.id: c for c, _ in claims},
            architecture=single("architecture"),
            topologies=single("topologies"),
            origins=self.origins,
            rules={r.id: r for r, _ in rules},
            resolved_defaults=[d for d, _ in resolved_defaults],
        )
        self.problems += check_references(kb, frozenset(self.broken))
        return None if self.problems else kb


# ------------------------------------------------------------------------------------------- references
def _walk(model: BaseModel, path: Path_ = ()) -> Iterator[tuple[Path_, str, Any]]:
    """Every (path, field name, value) in a model tree."""
    for name in type(model).model_fields:
        value = getattr(model, name)
        yield path + (name,), name, value
        if isinstance(value, BaseModel):
            yield from _walk(value, path + (name,))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, BaseModel):
                    yield from _walk(item, path + (name, i))


def _roots(kb: KB) -> Iterator[BaseModel]:
    singles = (kb.handbook, kb.observability, kb.tuning, kb.architecture, kb.topologies)
    yield from (single for single in singles if single is not None)  # None: its file failed to load
    for pool in (
        kb.dtypes,
        kb.sources,
        kb.hardware,
        kb.models,
        kb.recipes,
        kb.groups,
        kb.pitfalls,
        kb.env_vars,
        kb.attention,
        kb.claims,
        kb.rules,
    ):
        yield from pool.values()
    yield from kb.resolved_defaults


def _did_you_mean(name: str, options: Any) -> str:
    close = closest(name, options)
    return f" (did you mean '{close}'?)" if close else ""


class _References:
    """Checks that ids and flags named by entities exist; silent about pools whose files failed to load."""

    POOLS = {  # kind → (KB attribute, where authors find it, loader kind)
        "source": ("sources", "kb/sources/", "sources"),
        "model": ("models", "kb/models/", "models"),
        "hardware": ("hardware", "kb/hardware/", "hardware"),
        "dtype": ("dtypes", "kb/dtypes.yaml", "dtypes"),
        "variable": ("env_vars", "kb/env_vars.yaml", "env_vars"),
        "attention family": ("attention", "kb/attention.yaml", "attention"),
    }

    def __init__(self, kb: KB, broken: frozenset[str]):
        self.kb = kb
        self.broken = broken
        self.problems: list[Problem] = []

    def id(self, origin: Origin, sub: Path_, value: str | None, kind: str) -> None:
        attr, where, loader_kind = self.POOLS[kind]
        pool = getattr(self.kb, attr)
        if value is None or value in pool or loader_kind in self.broken:
            return
        self.problems.append(
            origin.at(
                sub, f"got '{value}', expected one of the {kind} ids in {where}{_did_you_mean(value, pool)}"
            )
        )

    def ids(self, origin: Origin, sub: Path_, values: list[str], kind: str) -> None:
        for i, value in enumerate(values):
            self.id(origin, sub + (i,), value, kind)

    def flag(self, origin: Origin, sub: Path_, flag: str, program: str = "launch_server") -> None:
        if "parameters" in self.broken or self.kb.parameter(flag, program) is not None:
            return
        known = [f for (prog, f) in self.kb._spellings() if prog == program]
        self.problems.append(
            origin.at(
                sub,
                f"got flag '{flag}', expected a {program} flag documented in kb/parameters/"
                f"{_did_you_mean(flag, known)}",
            )
        )

    def flags(self, origin: Origin, sub: Path_, flags: list[str], program: str = "launch_server") -> None:
        for i, flag in enumerate(flags):
            self.flag(origin, sub + (i,), flag, program)

    def line(self, origin: Origin, sub: Path_, line: Any, program: str = "launch_server") -> None:
        """A flag line (``--tp-size 8``): every flag in it must be documented."""
        for flag, _ in flags_in([line]):
            self.flag(origin, sub, flag, program)

    def lines(self, origin: Origin, sub: Path_, lines: list, program: str = "launch_server") -> None:
        for i, line in enumerate(lines):
            self.line(origin, sub + (i,), line, program)


def check_references(kb: KB, broken: frozenset[str] = frozenset()) -> list[Problem]:
    refs = _References(kb, broken)
    for root in _roots(kb):
        origin = kb.origin(root)
        for sub, name, value in _walk(root):
            if name == "source":
                refs.id(origin, sub, value, "source")
            elif name == "field_sources":
                for key, sid in value.items():
                    refs.id(origin, sub + (key,), sid, "source")

    for model in kb.models.values():
        origin = kb.origin(model)
        for i, p in enumerate(model.precisions):
            refs.id(origin, ("precisions", i, "dtype"), p.dtype, "dtype")
            refs.ids(origin, ("precisions", i, "hardware"), p.hardware, "hardware")
        refs.ids(origin, ("attention", "families"), model.attention.families, "attention family")
        if model.recommended:
            refs.lines(origin, ("recommended", "key_flags"), model.recommended.key_flags)
    for fam in kb.attention.values():
        refs.ids(kb.origin(fam), ("models",), fam.models, "model")
        refs.lines(kb.origin(fam), ("flags",), fam.flags)
    for recipe in kb.recipes.values():
        origin = kb.origin(recipe)
        refs.id(origin, ("model",), recipe.model, "model")
        refs.ids(origin, ("hardware",), recipe.hardware, "hardware")
        refs.id(origin, ("precision",), recipe.precision, "dtype")
        refs.ids(origin, ("env",), [env.name for env in recipe.env], "variable")
        if recipe.program:
            refs.lines(origin, ("flags",), recipe.flags, recipe.program)
    for pitfall in kb.pitfalls.values():
        origin = kb.origin(pitfall)
        refs.flags(origin, ("flags",), pitfall.flags)
        refs.ids(origin, ("env",), pitfall.env, "variable")
        refs.ids(origin, ("scope", "models"), pitfall.scope.models, "model")
        refs.ids(origin, ("scope", "hardware"), pitfall.scope.hardware, "hardware")
    for group in kb.groups.values():
        for p in group.parameters:
            refs.flags(kb.origin(p), ("related",), p.related, p.program)
    for (
        rule
    ) in kb.rules.values():  # flags are checked against the engine snapshot (handbook/validation/registry.py)
        refs.ids(kb.origin(rule), ("params", "models"), list(rule.params.get("models", [])), "model")
    if obs := kb.observability:
        for i, band in enumerate(obs.available_gpu_mem_bands):
            refs.flags(kb.origin(obs), ("available_gpu_mem_bands", i, "flags"), band.flags)
        for i, signal in enumerate(obs.signals):
            refs.flags(kb.origin(obs), ("signals", i, "flags"), signal.flags)
    if tuning := kb.tuning:
        for i, step in enumerate(tuning.steps):
            refs.flags(kb.origin(tuning), ("steps", i, "flags"), step.flags)
        for i, scenario in enumerate(tuning.scenarios):
            refs.lines(kb.origin(tuning), ("scenarios", i, "flags"), scenario.flags)
        for i, tip in enumerate(tuning.startup):
            if tip.flags:
                refs.line(kb.origin(tuning), ("startup", i, "flags"), tip.flags)
    if arch := kb.architecture:
        for i, stage in enumerate(arch.stages):
            refs.flags(kb.origin(arch), ("stages", i, "flags"), stage.flags)
    if topologies := kb.topologies:
        for i, topo in enumerate(topologies.topologies):
            refs.line(kb.origin(topologies), ("topologies", i, "flags"), topo.flags)
    return refs.problems


def load_kb(root: Path = KB_ROOT) -> KB:
    """The validated KB, or ``KBInvalid`` carrying every problem (sorted by file and line)."""
    loader = _Loader(root)
    kb = loader.load()
    if kb is None:
        raise KBInvalid(sorted(loader.problems, key=lambda p: (p.file, p.line, p.path)))
    return kb
