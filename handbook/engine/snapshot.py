"""Typed, read-only access to the engine snapshots: any stored SGLang release, by its version.

The snapshots are generated from the real wheels by ``nox -s engine-snapshot`` (see
``handbook/engine/dump.py``). The pinned release has its own file, ``kb/engine/sglang-<version>.json``;
every stored release (the pinned one included) is in ``kb/engine/sglang-history.json``, from which
``load_snapshot(version)`` expands the others (``handbook/engine/history.py``). Tests and the site read
only the committed JSON, so they stay fast and offline. Every model is closed (``extra="forbid"``): a
snapshot written by a newer dump.py with new keys fails loudly here instead of being half-read.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import re
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from handbook.core.files import WriteRefused, write_text
from handbook.core.paths import ENGINE_DIR, KB_ROOT
from handbook.engine import history as history_module
from handbook.engine.history import History, version_key
from handbook.kb.yamlfile import load_yaml

SNAPSHOT_DIR = ENGINE_DIR
HISTORY_FILE = "sglang-history.json"  # every stored release in one file (handbook/engine/history.py)
SCHEMA_VERSION = 1
# What a release version looks like (0.5.23, 0.5.10.post1): anything else never becomes a file name.
VERSION = re.compile(r"\d+(?:\.\d+)*(?:\.post\d+)?")

PARSER_NAMES: tuple[str, ...] = ("launch_server", "launch_router", "bench_serving")


class SnapshotError(Exception):
    """A snapshot file is missing, is not JSON, or does not match the schema."""


class UnknownOption(KeyError):
    """No option of the parser has this spelling (nor, for resolve(), this unique prefix)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class AmbiguousOption(UnknownOption):
    """A prefix that abbreviates more than one option (argparse refuses it too)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EngineField(_Frozen):
    """What the ServerArgs field behind a launch_server option declares beyond argparse."""

    namespace: str | None
    resolvable: bool
    fallback: JsonValue
    no_cli: bool


class Option(_Frozen):
    """One argparse action, as the engine's parser holds it."""

    option_strings: tuple[str, ...]
    dest: str
    default: JsonValue
    type: str | None
    choices: tuple[JsonValue, ...] | None
    choices_sorted: bool
    nargs: JsonValue
    const: JsonValue
    metavar: JsonValue
    action: str
    required: bool
    help: str | None
    help_suppressed: bool
    deprecated: bool
    deprecated_evidence: str | None
    replacement: str | None
    group: str | None
    engine_field: EngineField | None
    help_expand_error: str | None = None

    @property
    def name(self) -> str:
        """The canonical spelling: the first long option (``--tp-size``), else the first spelling."""
        longs = [s for s in self.option_strings if s.startswith("--")]
        return longs[0] if longs else (self.option_strings[0] if self.option_strings else self.dest)

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(s for s in self.option_strings if s != self.name)

    @property
    def takes_value(self) -> bool:
        """False for flags (store_true, store_const, help, …), whose nargs is 0."""
        return self.nargs != 0

    @property
    def is_flag_like(self) -> bool:
        return bool(self.option_strings)


class SourceWarning(_Frozen):
    line: int
    category: str
    message: str
    only_when_run_as_main: bool


class ImportWarningRecord(_Frozen):
    category: str
    message: str


class ModuleInfo(_Frozen):
    """A module path that runs (or used to run) this parser: whether it exists, and if it is an alias."""

    exists: bool
    file: str | None
    deprecated_alias_of: str | None
    import_warnings: tuple[ImportWarningRecord, ...]
    source_warnings: tuple[SourceWarning, ...]


class Parser(_Frozen):
    prog: str
    allow_abbrev: bool
    prefix_chars: str
    description: str | None
    builder: str
    how: str
    commands: tuple[str, ...]
    modules: dict[str, ModuleInfo]
    options: tuple[Option, ...]

    @cached_property
    def _by_spelling(self) -> dict[str, Option]:
        return {spelling: option for option in self.options for spelling in option.option_strings}

    def option(self, spelling: str) -> Option:
        """The option with exactly this spelling (``--tp-size`` or ``--tensor-parallel-size``)."""
        name = spelling.split("=", 1)[0]
        try:
            return self._by_spelling[name]
        except KeyError:
            raise UnknownOption(f"{self.prog}: no option spelled {name!r}") from None

    def get(self, spelling: str) -> Option | None:
        return self._by_spelling.get(spelling.split("=", 1)[0])

    def __contains__(self, spelling: object) -> bool:
        return isinstance(spelling, str) and spelling.split("=", 1)[0] in self._by_spelling

    def all_spellings(self) -> list[str]:
        """Every option string of this parser, in parser order."""
        return list(self._by_spelling)

    def by_dest(self, dest: str) -> list[Option]:
        """Options that store into ``dest`` (a deprecated spelling may share the dest of its successor)."""
        return list(self._by_dest.get(dest, ()))

    @cached_property
    def _by_dest(self) -> dict[str, tuple[Option, ...]]:
        index: dict[str, list[Option]] = {}
        for option in self.options:
            index.setdefault(option.dest, []).append(option)
        return {dest: tuple(options) for dest, options in index.items()}

    def abbreviation_matches(self, prefix: str) -> list[Option]:
        """The options a long-option prefix could abbreviate, as argparse (``allow_abbrev``) sees it."""
        name = prefix.split("=", 1)[0]
        if not self.allow_abbrev or not name.startswith("--"):
            return []
        seen: dict[int, Option] = {}
        for spelling, option in self._by_spelling.items():
            if spelling.startswith(name):
                seen.setdefault(id(option), option)
        return list(seen.values())

    def resolve(self, token: str) -> Option:
        """What argparse would do with ``token``: an exact spelling, else a unique prefix abbreviation.

        Raises UnknownOption when nothing matches and AmbiguousOption when several options start with it.
        """
        name = token.split("=", 1)[0]
        if name in self._by_spelling:
            return self._by_spelling[name]
        matches = self.abbreviation_matches(name)
        if len(matches) == 1:
            return matches[0]
        if matches:
            spelled = ", ".join(m.name for m in matches)
            raise AmbiguousOption(f"{self.prog}: {name!r} abbreviates several options: {spelled}")
        raise UnknownOption(f"{self.prog}: no option spelled {name!r}")


class EnvVar(_Frozen):
    name: str
    type: str
    descriptor: str
    default: JsonValue
    secret: bool
    deprecated_aliases: tuple[str, ...]
    section: str | None
    doc: str | None
    line: int | None


class DeprecatedEnv(_Frozen):
    name: str
    replacement: str | None
    transforms_value: bool
    note: str | None


class PrefixRewrite(_Frozen):
    """environ.py rewrites a legacy prefix (``SGL_`` → ``SGLANG_``) at import, with a warning."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    from_: str = Field(alias="from")
    to: str
    present: bool


class Environ(_Frozen):
    file: str | None
    variables: tuple[EnvVar, ...]
    deprecated: tuple[DeprecatedEnv, ...]
    legacy_prefix_rewrite: PrefixRewrite

    @cached_property
    def _by_name(self) -> dict[str, EnvVar]:
        return {variable.name: variable for variable in self.variables}

    @cached_property
    def _deprecated_by_name(self) -> dict[str, DeprecatedEnv]:
        return {entry.name: entry for entry in self.deprecated}

    def get(self, name: str) -> EnvVar | None:
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._by_name

    def deprecation(self, name: str) -> DeprecatedEnv | None:
        """The deprecation entry of a retired or renamed variable (``None`` if it is not deprecated)."""
        return self._deprecated_by_name.get(name)

    def names(self) -> list[str]:
        return list(self._by_name)


class EntryModule(_Frozen):
    """A ``python -m`` module a release may ship (read from its source, never imported); ``parser`` names the
    snapshot's parser it runs, if any."""

    parser: str | None
    exists: bool
    file: str | None
    deprecated_alias_of: str | None
    source_warnings: tuple[SourceWarning, ...]


class ServeDispatch(_Frozen):
    """How ``sglang serve`` reads its argv (sglang/cli/serve.py): a positional model path, the
    ``--model-type`` values, and the diffusion server it sends registered diffusion models to."""

    positional_model_path: bool
    model_types: tuple[str, ...]
    diffusion_server: bool
    diffusion_model_paths: tuple[str, ...]


class EntryPoints(_Frozen):
    """What a release ships to run it: modules, console scripts, ``sglang serve``'s dispatch."""

    modules: dict[str, EntryModule]
    console_scripts: dict[str, str]
    serve: ServeDispatch | None


class EnvRead(_Frozen):
    """A variable the package reads without its registry (os.getenv, get_bool_env_var…), and where."""

    name: str
    files: tuple[str, ...]


class MetricDefinition(_Frozen):
    """One Prometheus metric as the release's code defines it (``dump.py``'s ``describe_metrics``)."""

    name: str  # as passed to the constructor (a counter's may end in _total: prometheus_client strips it)
    type: Literal["counter", "gauge", "histogram", "summary", "info", "stateset"]
    constructor: str
    help: str | None
    labels: tuple[str, ...] | None  # the literal label names (None: not a literal the dump could read)
    collector_labels: str | None  # the collector whose shared label set comes before ``labels``
    labels_source: str | None
    conditional: bool  # defined under an ``if`` (only some configurations register it)
    file: str
    line: int
    scope: str

    @property
    def base_name(self) -> str:
        """The metric family's name as prometheus_client registers it (a counter loses its _total)."""
        return self.name.removesuffix("_total") if self.type == "counter" else self.name

    @property
    def series(self) -> tuple[str, ...]:
        """The sample names /metrics exposes for it (prometheus_client 0.26.0, metrics.py: a counter's
        ``_total``, a histogram's ``_bucket``/``_count``/``_sum``, a summary's ``_count``/``_sum``; the
        ``_created`` samples are left out: SGLang serves metrics in multiprocess mode)."""
        suffixes = {
            "counter": ("_total",),
            "histogram": ("_bucket", "_count", "_sum"),
            "summary": ("_count", "_sum"),
            "info": ("_info",),
        }.get(self.type, ("",))
        return tuple(self.base_name + suffix for suffix in suffixes)


class MetricLabelSet(_Frozen):
    """The label names a collector puts on every metric it defines with ``labels.keys()``."""

    builder: str
    always: tuple[str, ...]
    sometimes: tuple[str, ...]  # added under a condition (priority scheduling, DP attention…)
    merged_from: tuple[str, ...]  # operator-supplied extra labels merged in (e.g. --extra-metric-labels)


class UnresolvedMetric(_Frozen):
    file: str
    line: int
    scope: str
    call: str


class Metrics(_Frozen):
    how: str
    definitions: tuple[MetricDefinition, ...]
    label_sets: dict[str, MetricLabelSet | None]
    unresolved: tuple[UnresolvedMetric, ...]

    @cached_property
    def _by_series(self) -> dict[str, MetricDefinition]:
        return {series: metric for metric in self.definitions for series in metric.series}

    def by_series(self, series: str) -> MetricDefinition | None:
        """The metric a sample name belongs to (``sglang:e2e_request_latency_seconds_bucket`` → its
        histogram), or None when the release defines none."""
        return self._by_series.get(series)

    def series_names(self) -> list[str]:
        return list(self._by_series)

    def named(self, name: str) -> MetricDefinition | None:
        """The metric a name writes: its family (``# TYPE`` line of /metrics) or one of its samples."""
        family = next((m for m in self.definitions if name in (m.base_name, m.name)), None)
        return family or self.by_series(name)

    def label_names(self, metric: MetricDefinition) -> tuple[str, ...] | None:
        """Every label the metric can carry (a collector's conditional labels included); None if unknown."""
        if metric.labels is None:
            return None
        shared: tuple[str, ...] = ()
        if metric.collector_labels is not None:
            label_set = self.label_sets.get(metric.collector_labels)
            if label_set is None:
                return None
            shared = label_set.always + label_set.sometimes
        extra = ("le",) if metric.type == "histogram" else ()
        return shared + metric.labels + extra


class Wheel(_Frozen):
    filename: str
    sha256: str


class Generated(_Frozen):
    date: str
    python: str
    tool: str
    command: str


class EngineSnapshot(_Frozen):
    schema_version: int
    generated: Generated
    sglang_version: str
    sglang_router_version: str
    wheels: tuple[Wheel, ...]
    parsers: dict[str, Parser]
    environ: Environ
    entry_points: EntryPoints | None = None  # None in a snapshot dumped before it was recorded
    env_reads: tuple[EnvRead, ...] = ()  # variables read outside environ.py (none before it was recorded)

    def env_read(self, name: str) -> EnvRead | None:
        """Where the package reads ``name`` without its registry, if it does."""
        return next((read for read in self.env_reads if read.name == name), None)

    metrics: Metrics | None = None  # releases snapshotted before the metrics were read have none

    def parser(self, name: str) -> Parser:
        try:
            return self.parsers[name]
        except KeyError:
            raise KeyError(f"no parser {name!r}; the snapshot has {', '.join(self.parsers)}") from None

    def option(self, parser: str, spelling: str) -> Option:
        """The option with this exact spelling in the named parser."""
        return self.parser(parser).option(spelling)

    def all_spellings(self, parser: str | None = None) -> list[str]:
        """Every option string of one parser, or of all parsers (each once, in parser order)."""
        if parser is not None:
            return self.parser(parser).all_spellings()
        return list(dict.fromkeys(s for p in self.parsers.values() for s in p.all_spellings()))

    def env_var(self, name: str) -> EnvVar:
        variable = self.environ.get(name)
        if variable is None:
            raise KeyError(f"{name} is not in sglang {self.sglang_version}'s environ.py")
        return variable


def pinned_version(kb_root: Path = KB_ROOT) -> str:
    """The engine release the handbook is pinned to: ``engine_version`` in kb/handbook.yaml."""
    doc, problems = load_yaml(kb_root / "handbook.yaml", str(kb_root / "handbook.yaml"))
    if doc is None or not isinstance(doc.data, dict) or "engine_version" not in doc.data:
        why = str(problems[0]) if problems else "no engine_version key"
        raise SnapshotError(f"{kb_root / 'handbook.yaml'}: no engine_version to pin ({why})")
    return str(doc.data["engine_version"])


def snapshot_path(version: str | None = None) -> Path:
    """The file of one release's own snapshot (only the pinned release has one; see load_snapshot)."""
    return SNAPSHOT_DIR / f"sglang-{version or pinned_version()}.json"


def history_path(engine_dir: Path = SNAPSHOT_DIR) -> Path:
    return engine_dir / HISTORY_FILE


@functools.lru_cache(maxsize=2)
def _history(path: Path) -> History:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SnapshotError(f"{path}: no engine history; generate it with nox -s engine-snapshot") from None
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    try:
        return History(data)
    except (ValueError, KeyError, TypeError) as exc:
        raise SnapshotError(f"{path}: not an engine history ({exc})") from None


def load_history(engine_dir: Path = SNAPSHOT_DIR) -> History:
    """Every stored release in one object: versions, any release's raw snapshot, each option's lifetime."""
    return _history(history_path(engine_dir).resolve())


def snapshot_versions(engine_dir: Path = SNAPSHOT_DIR) -> tuple[str, ...]:
    """Every release there is a snapshot of, oldest first."""
    versions = set(load_history(engine_dir).versions) if history_path(engine_dir).is_file() else set()
    versions |= {p.stem.removeprefix("sglang-") for p in engine_dir.glob("sglang-*.json")}
    versions = {v for v in versions if VERSION.fullmatch(v)}
    return tuple(sorted(versions, key=version_key))


def parse_snapshot(data: object, *, source: str = "<snapshot>") -> EngineSnapshot:
    if isinstance(data, dict) and data.get("schema_version") != SCHEMA_VERSION:
        raise SnapshotError(
            f"{source}: schema_version {data.get('schema_version')!r}, this loader reads {SCHEMA_VERSION}"
        )
    try:
        return EngineSnapshot.model_validate(data)
    except ValidationError as exc:
        # which of the schema's fields and what is wrong, never a value or a key of the file's own: the file
        # may be anything (a key, a password file)
        errors = exc.errors(include_url=False, include_input=False, include_context=False)
        fields = EngineSnapshot.model_fields

        def where(error: Any) -> str:
            top = error["loc"][0] if error["loc"] else None
            if error["type"] == "extra_forbidden" or top not in fields:
                return "a key the schema does not have" if error["type"] == "extra_forbidden" else "the file"
            return str(top) if len(error["loc"]) == 1 else f"{top} (inside)"

        shown = "; ".join(f"{where(e)}: {e['msg']}" for e in errors[:3])
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise SnapshotError(f"{source}: not an engine snapshot ({shown}{more})") from None


@functools.lru_cache(maxsize=8)
def _load(path: Path) -> EngineSnapshot:
    try:
        if path.exists() and not path.is_file():  # a folder or a FIFO: refused before it is opened
            raise SnapshotError(f"{path}: not a regular file, expected a JSON snapshot file")
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SnapshotError(
            f"{path}: no such snapshot; generate it with nox -s engine-snapshot -- <version>"
        ) from None
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        raise SnapshotError(
            f"{path}: got bytes that are not UTF-8 ({exc.reason}), expected a JSON snapshot"
        ) from None
    except OSError as exc:  # a folder, a FIFO's error, no permission…
        raise SnapshotError(
            f"{path}: cannot be read ({exc.strerror}), expected a JSON snapshot file"
        ) from None
    except RecursionError:
        raise SnapshotError(f"{path}: JSON nested too deep for a snapshot") from None
    except ValueError as exc:  # an integer of more than 4,300 digits; a path with a NUL or a lone surrogate
        raise SnapshotError(
            f"{path!r}: cannot be read as a JSON snapshot ({str(exc).split(';')[0]})"
        ) from None
    return parse_snapshot(data, source=str(path))


@functools.lru_cache(maxsize=16)
def _expanded(history: Path, version: str) -> EngineSnapshot:
    """A release of the history, expanded once per content: the expansion (patches applied to the first
    release, about 0.1 s each) is kept in the repository's ``.cache/engine/``, keyed by the history's bytes
    and the code that expands it, so later builds read it back."""
    kept = _expansion_file(history, version)
    data = None
    with contextlib.suppress(OSError, ValueError):
        data = json.loads(kept.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        data = _history(history).expand(version)
        with contextlib.suppress(WriteRefused, OSError):  # a read-only checkout expands it every time
            write_text(kept, json.dumps(data), root=kept.parent.parent.parent, folders=True, durable=False)
    return parse_snapshot(data, source=f"{history} ({version})")


def _expansion_file(history: Path, version: str) -> Path:
    digest = hashlib.sha256(version.encode() + b"\0" + history.read_bytes() + b"\0")
    digest.update(Path(history_module.__file__).read_bytes())
    repo = history.parent.parent.parent  # <repo>/kb/engine/sglang-history.json
    return repo / ".cache" / "engine" / f"{version}-{digest.hexdigest()[:32]}.json"


def load_snapshot(version: str | None = None, path: str | Path | None = None) -> EngineSnapshot:
    """The snapshot of one stored release (default: the pinned one), or of the file at ``path``; cached,
    read-only. The pinned release is read from its own file, any other from the history. A version that
    names no stored release is a SnapshotError listing the ones there are."""
    if path is not None:
        try:
            return _load(Path(path).resolve())
        except ValueError as exc:  # a NUL in the path: no file can be named so
            raise SnapshotError(f"{path!r}: not a usable path ({exc})") from None
    version = version or pinned_version()
    if not VERSION.fullmatch(version):
        raise SnapshotError(f"{version!r} is not an SGLang version (e.g. 0.5.23)")
    own = snapshot_path(version)
    if own.is_file():
        return _load(own.resolve())
    history = history_path()
    if history.is_file() and version in load_history().versions:
        return _expanded(history.resolve(), version)
    known = ", ".join(snapshot_versions()) or "none"
    raise SnapshotError(
        f"no snapshot of sglang {version} (stored: {known}); add it with nox -s engine-snapshot -- {version}"
    )
