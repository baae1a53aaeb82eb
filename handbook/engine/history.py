"""Many engine snapshots in one file, and the history of each option and variable across them.

``kb/engine/sglang-history.json`` holds every stored SGLang release (``nox -s engine-snapshot`` writes
it from the per-release dumps of ``dump.py``). A per-release snapshot is split into

- the *document*: everything but the keyed collections below, stored as the first release's document
  plus, for each later release, a patch against the release before it (``{"set": [[path, value], …],
  "del": [path, …]}``; a path is a list of keys, and lists are replaced whole);
- *collections*: the options of each parser (one record per option), the env-var registry and its
  deprecations (one record per name). A record says which releases have it (``in``: inclusive ranges of
  release indices) and its history ``h``: ``[[release index, fields], …]``, the first entry the whole
  record, each later one only the fields that changed (``"$del"`` lists fields that disappeared). Each
  collection keeps, per release, the order of its records (``order``: record indices, or ``null`` where
  the order is the release before's).

An option's record carries over from one release to the next when the two share a spelling
(``--tensor-parallel-size/--tp-size`` with dest ``tensor_parallel_size`` in 0.5.13 and ``--tp-size/
--tensor-parallel-size`` with dest ``tp_size`` in 0.5.14 are one record, whose history shows the change).
An option that drops every old spelling at once starts a new record: it reads as removed plus added.

``expand(data, version)`` rebuilds a release's snapshot exactly: ``dumps_snapshot(expand(data, v))`` is
byte for byte the file ``dump.py`` wrote for ``v``. Standard library only, like ``dump.py``: ``nox -s
engine-snapshot`` runs it as a script in the engine's virtualenv,

    python handbook/engine/history.py combine --engine-dir kb/engine --pinned 0.5.23 DUMP.json…
    python handbook/engine/history.py expand kb/engine/sglang-history.json 0.5.20   # one release's file
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handbook.core.files import write_text

FORMAT = "sglang-engine-history/1"

# collection -> (where its list sits in a snapshot, what names a record)
COLLECTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "launch_server": (("parsers", "launch_server", "options"), "option"),
    "launch_router": (("parsers", "launch_router", "options"), "option"),
    "bench_serving": (("parsers", "bench_serving", "options"), "option"),
    "env": (("environ", "variables"), "name"),
    "env_deprecated": (("environ", "deprecated"), "name"),
    # the Prometheus metrics the release's code defines (dump.py's describe_metrics), by metric name
    "metrics": (("metrics", "definitions"), "name"),
}
# The option fields whose changes a history reports (every field is stored either way).
OPTION_FIELDS = (
    "option_strings",
    "dest",
    "default",
    "choices",
    "type",
    "nargs",
    "action",
    "help",
    "deprecated",
    "required",
)
ENV_FIELDS = ("type", "default", "deprecated_aliases")


def version_key(version: str) -> tuple[tuple[str, int], ...]:
    """0.5.10 < 0.5.10.post1 < 0.5.11: numeric parts, a post release right after its base."""
    parts = []
    for piece in version.split("."):
        if piece.startswith("post"):
            parts.append(("post", int(piece[4:])))
        else:
            parts.append(("", int(piece)))
    return tuple(parts)


# ------------------------------------------------------------------------------------------ helpers
def _record_key(kind: str, record: dict[str, Any]) -> str:
    if kind == "option":
        strings = record.get("option_strings") or []
        longs = [s for s in strings if s.startswith("--")]
        return (longs or strings or [f"<{record.get('dest')}>"])[0]
    return str(record["name"])


def _keyed(kind: str, records: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """(key, record) in order; a key met twice in one release gets ``#2``, ``#3`` …"""
    seen: dict[str, int] = {}
    out = []
    for record in records:
        key = _record_key(kind, record)
        seen[key] = seen.get(key, 0) + 1
        out.append((key if seen[key] == 1 else f"{key}#{seen[key]}", record))
    return out


def _get(tree: Any, path: Iterable[str]) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def _same(old: Any, new: Any) -> bool:
    return old == new and type(old) is type(new)


def _diff(old: Any, new: Any, path: list[str], out: dict[str, list[Any]]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        # sorted: a snapshot read back from its file (sorted keys) and one rebuilt by _apply (new keys
        # last) must give the same patch
        for key in sorted(old):
            if key not in new:
                out["del"].append([*path, key])
        for key, value in sorted(new.items()):
            if key not in old:
                out["set"].append([[*path, key], value])
            else:
                _diff(old[key], value, [*path, key], out)
    elif not _same(old, new):
        out["set"].append([path, new])


def _apply(tree: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    tree = copy.deepcopy(tree)
    for path in patch.get("del", []):
        del _get(tree, path[:-1])[path[-1]]
    for path, value in patch.get("set", []):
        if not path:
            tree = copy.deepcopy(value)
            continue
        parent = tree
        for key in path[:-1]:
            parent = parent.setdefault(key, {})
        parent[path[-1]] = copy.deepcopy(value)
    return tree


def _document(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The snapshot without its collections (each list left empty, as a placeholder)."""
    doc = copy.deepcopy(snapshot)
    for path, _ in COLLECTIONS.values():
        try:
            parent = _get(doc, path[:-1])
        except KeyError:  # a release dumped before this collection was recorded
            continue
        if path[-1] in parent:
            parent[path[-1]] = []
    return doc


def _ranges(indices: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for i in indices:
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out


def _has(ranges: list[list[int]], index: int) -> bool:
    return any(lo <= index <= hi for lo, hi in ranges)


def _state(record: dict[str, Any], target: int) -> dict[str, Any] | None:
    """A record as the release with index ``target`` has it (None when that release lacks it)."""
    if not _has(record["in"], target):
        return None
    state: dict[str, Any] = {}
    for index, change in record["h"]:
        if index > target:
            break
        state.update({k: v for k, v in change.items() if k != "$del"})
        for k in change.get("$del", []):
            state.pop(k, None)
    return state


def _spellings(record: dict[str, Any]) -> tuple[str, ...]:
    """Every spelling (or name) a record ever had, its newest first."""
    spellings: dict[str, None] = {record["key"]: None}
    for _, change in record["h"]:
        for spelling in change.get("option_strings") or []:
            spellings.setdefault(spelling, None)
        if "name" in change:
            spellings.setdefault(change["name"], None)
    return tuple(spellings)


def _match_option(
    record: dict[str, Any],
    key: str,
    last_state: dict[str, dict[str, Any]],
    present: dict[str, list[int]],
    index: int,
    matched: set[str],
) -> str:
    """The record an option continues: the one (not yet taken in this release) that shares a spelling
    with it, its own first long spelling first, else the largest overlap; else a new record."""
    spellings = set(record.get("option_strings") or [])
    own = last_state.get(key)
    if own is not None and key not in matched and spellings & set(own.get("option_strings") or []):
        return key
    best: tuple[int, str] | None = None
    for other, state in last_state.items():
        if other in matched or present[other][-1] == index:
            continue
        overlap = len(spellings & set(state.get("option_strings") or []))
        if overlap and (best is None or overlap > best[0]):
            best = (overlap, other)
    if best is not None:
        return best[1]
    n, name = 1, key
    while name in last_state:
        n += 1
        name = f"{key}#{n}"
    return name


# ------------------------------------------------------------------------------------------ build, expand
def build(snapshots: list[dict[str, Any]]) -> dict[str, Any]:
    """One history from per-release snapshots (any order in; releases sorted by version_key)."""
    snapshots = sorted(snapshots, key=lambda s: version_key(s["sglang_version"]))
    versions = [s["sglang_version"] for s in snapshots]
    if len(set(versions)) != len(versions):
        raise ValueError(f"a release appears twice: {versions}")

    docs = [_document(s) for s in snapshots]
    patches: list[dict[str, Any] | None] = []
    for previous, current in itertools.pairwise(docs):
        patch: dict[str, list[Any]] = {"set": [], "del": []}
        _diff(previous, current, [], patch)
        patches.append({k: v for k, v in patch.items() if v} or None)

    collections = {}
    for name, (path, kind) in COLLECTIONS.items():
        records: list[dict[str, Any]] = []
        index_of: dict[str, int] = {}
        last_state: dict[str, dict[str, Any]] = {}
        present: dict[str, list[int]] = {}
        orders: list[list[int] | None] = []
        previous_order: list[int] | None = None
        for vi, snapshot in enumerate(snapshots):
            try:
                items = _get(snapshot, path)
            except KeyError:
                items = None
            if items is None:
                orders.append(None if previous_order is None else [])
                previous_order = [] if previous_order is not None else None
                continue
            order = []
            matched: set[str] = set()
            for own_key, record in _keyed(kind, items):
                key = own_key
                if kind == "option":
                    key = _match_option(record, own_key, last_state, present, vi, matched)
                matched.add(key)
                if key not in index_of:
                    index_of[key] = len(records)
                    records.append({"key": key, "h": [[vi, copy.deepcopy(record)]]})
                else:
                    old = last_state[key]
                    change = {k: v for k, v in record.items() if k not in old or not _same(old[k], v)}
                    gone = [k for k in old if k not in record]
                    if gone:
                        change["$del"] = gone
                    if change:
                        records[index_of[key]]["h"].append([vi, copy.deepcopy(change)])
                last_state[key] = record
                present.setdefault(key, []).append(vi)
                order.append(index_of[key])
            orders.append(None if order == previous_order else order)
            previous_order = order
        for record in records:
            record["in"] = _ranges(present[record["key"]])
        if kind == "option":  # name each record by its newest spelling
            used: set[str] = set()
            for record in records:
                newest = _record_key(kind, last_state[record["key"]])
                n, label = 1, newest
                while label in used:
                    n += 1
                    label = f"{newest}#{n}"
                used.add(label)
                record["key"] = label
        collections[name] = {"order": orders, "records": records}

    return {
        "format": FORMAT,
        "versions": versions,
        "document": {"first": docs[0], "patches": patches},
        "collections": collections,
    }


def expand(data: dict[str, Any], version: str) -> dict[str, Any]:
    """The snapshot of one release, exactly as dump.py wrote it."""
    versions = data["versions"]
    if version not in versions:
        raise KeyError(f"no snapshot of sglang {version}; the history has {', '.join(versions)}")
    target = versions.index(version)
    doc = data["document"]["first"]
    for patch in data["document"]["patches"][:target]:
        if patch:
            doc = _apply(doc, patch)
    doc = copy.deepcopy(doc)
    for name, (path, _) in COLLECTIONS.items():
        collection = data["collections"].get(name)
        if collection is None:  # a history written before this collection was recorded
            continue
        order = None
        for vi in range(target + 1):
            if collection["order"][vi] is not None:
                order = collection["order"][vi]
        try:
            parent = _get(doc, path[:-1])
        except KeyError:
            continue
        if path[-1] not in parent:
            continue
        items = []
        for ri in order or []:
            state = _state(collection["records"][ri], target)
            if state is None:
                raise ValueError(f"{name} record {collection['records'][ri]['key']} is not in {version}")
            items.append(copy.deepcopy(state))
        parent[path[-1]] = items
    return doc


def dumps_snapshot(snapshot: dict[str, Any]) -> str:
    """The exact text dump.py writes."""
    return json.dumps(snapshot, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def dumps_history(data: dict[str, Any]) -> str:
    """The committed text: valid JSON with one record (and one release's order) per line, so a change to
    one option is a change to one line of the diff."""
    lines = ["{", f'"format":{_compact(data["format"])},', f'"versions":{_compact(data["versions"])},']
    lines.append(f'"document":{{"first":{_compact(data["document"]["first"])},"patches":[')
    patches = data["document"]["patches"]
    lines += [_compact(p) + ("," if i < len(patches) - 1 else "") for i, p in enumerate(patches)]
    lines.append("]},")
    lines.append('"collections":{')
    names = sorted(data["collections"])
    for n, name in enumerate(names):
        collection = data["collections"][name]
        lines.append(f'{_compact(name)}:{{"order":[')
        orders = collection["order"]
        lines += [_compact(o) + ("," if i < len(orders) - 1 else "") for i, o in enumerate(orders)]
        lines.append('],"records":[')
        records = collection["records"]
        lines += [_compact(r) + ("," if i < len(records) - 1 else "") for i, r in enumerate(records)]
        lines.append("]}" + ("," if n < len(names) - 1 else ""))
    lines.append("}")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------ documents
def documents(data: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each release's document (its snapshot less the collections), oldest first: the patches applied in
    turn, without rebuilding any collection (what reads only the document, such as the entry points, needs
    no more)."""
    doc = data["document"]["first"]
    for index, version in enumerate(data["versions"]):
        if index:
            patch = data["document"]["patches"][index - 1]
            if patch:
                doc = _apply(doc, patch)
        yield version, doc


# ------------------------------------------------------------------------------------------ history
@dataclass(frozen=True)
class Change:
    version: str  # the first release with the new value
    field: str  # an option field, or "added" / "removed"
    before: Any
    after: Any
    key: str = ""  # the record's newest spelling (or name)


@dataclass(frozen=True)
class Lifetime:
    """One option (or variable) across the stored releases."""

    key: str  # its newest spelling (or name)
    spellings: tuple[str, ...]  # every spelling it ever had
    versions: tuple[str, ...]  # the releases that have it, oldest first
    first: str
    last: str
    removed_after: str | None  # the last release that had it, when the newest release does not
    gaps: tuple[tuple[str, str], ...]  # (first, last) release of each stretch it was missing
    changes: tuple[Change, ...] = field(default=())

    def changed(self, *fields: str) -> list[Change]:
        return [c for c in self.changes if c.field in fields]


class History:
    """Read access to a combined history: releases, snapshots, and each record's lifetime."""

    def __init__(self, data: dict[str, Any]) -> None:
        if data.get("format") != FORMAT:
            raise ValueError(f"format {data.get('format')!r}, this reader reads {FORMAT}")
        self.data = data
        self.versions: tuple[str, ...] = tuple(data["versions"])
        self._lifetimes: dict[str, dict[str, Lifetime]] = {}

    @property
    def newest(self) -> str:
        return self.versions[-1]

    def expand(self, version: str) -> dict[str, Any]:
        return expand(self.data, version)

    def records(self, collection: str) -> list[dict[str, Any]]:
        return self.data["collections"][collection]["records"]

    def lifetimes(self, collection: str) -> dict[str, Lifetime]:
        """Every record of a collection by each spelling it ever had (a spelling two records shared, in
        different releases, names the newer one)."""
        if collection not in self._lifetimes:
            fields = ENV_FIELDS if COLLECTIONS[collection][1] == "name" else OPTION_FIELDS
            index: dict[str, Lifetime] = {}
            for record in self.records(collection):
                lifetime = self._lifetime(record, fields)
                for spelling in lifetime.spellings:
                    index[spelling] = lifetime
            self._lifetimes[collection] = index
        return self._lifetimes[collection]

    def lifetime(self, collection: str, key: str) -> Lifetime:
        try:
            return self.lifetimes(collection)[key]
        except KeyError:
            raise KeyError(
                f"{collection} has no {key!r} in sglang {self.versions[0]}–{self.newest}"
            ) from None

    def all_lifetimes(self, collection: str) -> list[Lifetime]:
        """Each record once, in the order records were first met."""
        unique: dict[int, Lifetime] = {}
        for lifetime in self.lifetimes(collection).values():
            unique.setdefault(id(lifetime), lifetime)
        order = {record["key"]: i for i, record in enumerate(self.records(collection))}
        return sorted(unique.values(), key=lambda life: order[life.key])

    def state(self, collection: str, key: str, version: str) -> dict[str, Any] | None:
        """The record named ``key`` (any spelling it had) as ``version`` has it, or None."""
        lifetime = self.lifetime(collection, key)
        for record in self.records(collection):
            if record["key"] == lifetime.key:
                return _state(record, self.versions.index(version))
        return None  # pragma: no cover - lifetimes come from these records

    def _lifetime(self, record: dict[str, Any], fields: tuple[str, ...]) -> Lifetime:
        versions = self.versions
        key = record["key"]
        present = [vi for lo, hi in record["in"] for vi in range(lo, hi + 1)]
        changes: list[Change] = []
        state: dict[str, Any] = {}
        for vi, change in record["h"]:
            if state:
                for name in fields:
                    if name in change and not _same(change[name], state.get(name)):
                        changes.append(Change(versions[vi], name, state.get(name), change[name], key))
                    elif name in change.get("$del", []):
                        changes.append(Change(versions[vi], name, state.get(name), None, key))
            state.update({k: v for k, v in change.items() if k != "$del"})
            for k in change.get("$del", []):
                state.pop(k, None)
        last = present[-1]
        gaps = tuple(
            (versions[hi + 1], versions[lo2 - 1]) for (_, hi), (lo2, _) in itertools.pairwise(record["in"])
        )
        return Lifetime(
            key=key,
            spellings=_spellings(record),
            versions=tuple(versions[i] for i in present),
            first=versions[present[0]],
            last=versions[last],
            removed_after=versions[last] if last < len(versions) - 1 else None,
            gaps=gaps,
            changes=tuple(changes),
        )

    def between(
        self, old: str, new: str, collection: str = "launch_server", keys: Iterable[str] | None = None
    ) -> list[Change]:
        """What changed from release ``old`` to release ``new``: options added (field ``added``), removed
        (``removed``) and each reported field that differs. ``keys`` keeps only the records with any of
        those spellings (the flags the site uses, for the upgrading page)."""
        a, b = self.versions.index(old), self.versions.index(new)
        wanted = set(keys) if keys is not None else None
        fields = ENV_FIELDS if COLLECTIONS[collection][1] == "name" else OPTION_FIELDS
        out: list[Change] = []
        for record in self.records(collection):
            key = record["key"]
            before, after = _state(record, a), _state(record, b)
            if before is None and after is None:
                continue
            if wanted is not None and not set(_spellings(record)) & wanted:
                continue
            if before is None:
                out.append(Change(new, "added", None, key, key))
            elif after is None:
                out.append(Change(new, "removed", key, None, key))
            else:
                for name in fields:
                    if not _same(before.get(name), after.get(name)):
                        out.append(Change(new, name, before.get(name), after.get(name), key))
        return out

    def documents(self) -> Iterator[tuple[str, dict[str, Any]]]:
        return documents(self.data)

    def spellings_by_release(self, collection: str) -> dict[str, tuple[int, ...]]:
        """Each spelling any option of ``collection`` ever had → the indices (into ``versions``) of the
        releases in which it is a spelling."""
        out: dict[str, list[int]] = {}
        for record in self.records(collection):
            for index in (i for lo, hi in record["in"] for i in range(lo, hi + 1)):
                state = _state(record, index) or {}
                for spelling in state.get("option_strings") or []:
                    out.setdefault(spelling, []).append(index)
        return {spelling: tuple(sorted(set(indices))) for spelling, indices in out.items()}

    def iter_snapshots(self) -> Iterator[tuple[str, dict[str, Any]]]:
        for version in self.versions:
            yield version, self.expand(version)


# ------------------------------------------------------------------------------------------ command line
HISTORY_FILE = "sglang-history.json"


def _dated_apart(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The snapshot less its generation date (two dumps of one wheel on two days compare equal)."""
    rest = copy.deepcopy(snapshot)
    rest.get("generated", {}).pop("date", None)
    return rest


def combine(engine_dir: Path, pinned: str | None, dumps: list[Path]) -> str:
    """Merge fresh per-release dumps into ``engine_dir``'s history (a release not dumped again keeps its
    stored snapshot; one whose dump differs only by date keeps its stored date), prove that every release
    expands back byte for byte, and write the history and the pinned release's own file."""
    target = engine_dir / HISTORY_FILE
    snapshots: dict[str, dict[str, Any]] = {}
    if target.is_file():
        stored = json.loads(target.read_text(encoding="utf-8"))
        snapshots = {version: expand(stored, version) for version in stored["versions"]}
    kept, changed = [], []
    for path in dumps:
        fresh = json.loads(path.read_text(encoding="utf-8"))
        version = fresh["sglang_version"]
        old = snapshots.get(version)
        if old is not None and _dated_apart(old) == _dated_apart(fresh):
            kept.append(version)
            continue
        snapshots[version] = fresh
        changed.append(version)
    data = build(list(snapshots.values()))
    for version, snapshot in snapshots.items():
        if dumps_snapshot(expand(data, version)) != dumps_snapshot(snapshot):
            raise SystemExit(f"the history does not give back sglang {version} byte for byte")
    text = dumps_history(data)
    write_text(target, text, root=engine_dir)
    releases = ", ".join(data["versions"])
    lines = [
        f"{target}: {len(data['versions'])} releases ({releases}), {len(text.encode())} bytes",
        f"  changed or new: {', '.join(changed) or 'none'}",
        f"  unchanged but for the date (date kept): {', '.join(kept) or 'none'}",
    ]
    if pinned is not None and pinned in snapshots:
        own = engine_dir / f"sglang-{pinned}.json"
        write_text(own, dumps_snapshot(snapshots[pinned]), root=engine_dir)
        lines.append(f"  {own}: the pinned release's own file")
    return "\n".join(lines)


def wheel_requirements(data: dict[str, Any], versions: Iterable[str]) -> list[str]:
    """``name==version --hash=sha256:…`` for every wheel the history records for ``versions`` (those it has):
    what nox -s engine-snapshot downloads again, checked against the file each snapshot was made from."""
    out: dict[str, str] = {}
    for version in versions:
        if version not in data["versions"]:
            continue
        for wheel in expand(data, version).get("wheels", []):
            name, release = wheel["filename"].split("-")[:2]
            out[f"{name.replace('_', '-')}=={release}"] = wheel["sha256"]
    return [f"{requirement} --hash=sha256:{digest}" for requirement, digest in sorted(out.items())]


def main(argv: list[str] | None = None) -> int:
    cli = argparse.ArgumentParser(prog="history.py", description=__doc__.splitlines()[0])
    commands = cli.add_subparsers(dest="command", required=True)
    merge = commands.add_parser("combine", help="merge per-release dumps into the history")
    merge.add_argument("--engine-dir", type=Path, default=Path("kb/engine"))
    merge.add_argument("--pinned", default=None, help="the release that keeps its own file")
    merge.add_argument("dumps", nargs="*", type=Path)
    one = commands.add_parser("expand", help="print one release's snapshot, as dump.py wrote it")
    one.add_argument("history", type=Path)
    one.add_argument("version")
    hashes = commands.add_parser("wheels", help="recorded wheels, as hash-pinned requirements")
    hashes.add_argument("history", type=Path)
    hashes.add_argument("versions", nargs="*")
    args = cli.parse_args(argv)
    if args.command == "combine":
        print(combine(args.engine_dir, args.pinned, args.dumps))
    elif args.command == "wheels":
        data = json.loads(args.history.read_text(encoding="utf-8"))
        print("\n".join(wheel_requirements(data, args.versions)))
    else:
        data = json.loads(args.history.read_text(encoding="utf-8"))
        sys.stdout.write(dumps_snapshot(expand(data, args.version)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
