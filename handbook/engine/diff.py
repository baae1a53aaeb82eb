"""What changed between two engine snapshots: options, defaults, choices, types, env vars.

``python -m handbook engine-diff OLD.json NEW.json`` (wired by the package CLI) calls ``main``; the
structured result (``diff_snapshots``) is what a drift page or a test reads, and ``render_markdown`` turns
it into a Markdown report with one section per parser.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from handbook.core.arguments import OneLineParser, output
from handbook.core.files import WriteRefused, write_text
from handbook.engine.snapshot import (
    PARSER_NAMES,
    EngineSnapshot,
    EnvVar,
    Option,
    Parser,
    SnapshotError,
    load_snapshot,
    snapshot_versions,
)


@dataclass(frozen=True)
class OptionRef:
    """An option as a reader would name it: its canonical spelling, the others, and its dest."""

    name: str
    spellings: tuple[str, ...]
    dest: str

    @classmethod
    def of(cls, option: Option) -> OptionRef:
        return cls(name=option.name, spellings=option.option_strings, dest=option.dest)


@dataclass(frozen=True)
class Renamed:
    """Same dest, spellings changed. ``kept`` is empty for a full rename; else aliases were added/removed."""

    dest: str
    old_spellings: tuple[str, ...]
    new_spellings: tuple[str, ...]

    @property
    def kept(self) -> tuple[str, ...]:
        return tuple(s for s in self.old_spellings if s in self.new_spellings)

    @property
    def dropped(self) -> tuple[str, ...]:
        return tuple(s for s in self.old_spellings if s not in self.new_spellings)

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(s for s in self.new_spellings if s not in self.old_spellings)


@dataclass(frozen=True)
class ValueChange:
    """One attribute of one option (or env var) that changed: default, type, …"""

    name: str
    old: Any
    new: Any


@dataclass(frozen=True)
class ChoicesChange:
    name: str
    added: tuple[Any, ...]
    removed: tuple[Any, ...]
    old: tuple[Any, ...] | None
    new: tuple[Any, ...] | None


@dataclass(frozen=True)
class ParserDiff:
    parser: str
    added: list[OptionRef] = field(default_factory=list)
    removed: list[OptionRef] = field(default_factory=list)
    renamed: list[Renamed] = field(default_factory=list)
    defaults_changed: list[ValueChange] = field(default_factory=list)
    choices_changed: list[ChoicesChange] = field(default_factory=list)
    types_changed: list[ValueChange] = field(default_factory=list)
    newly_deprecated: list[OptionRef] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not any(getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "parser")


@dataclass(frozen=True)
class EnvDiff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    defaults_changed: list[ValueChange] = field(default_factory=list)
    types_changed: list[ValueChange] = field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.defaults_changed or self.types_changed)


@dataclass(frozen=True)
class SnapshotDiff:
    old_version: str
    new_version: str
    old_router_version: str
    new_router_version: str
    parsers: list[ParserDiff]
    parsers_added: list[str]
    parsers_removed: list[str]
    environ: EnvDiff

    @property
    def is_empty(self) -> bool:
        return (
            not self.parsers_added
            and not self.parsers_removed
            and all(p.is_empty for p in self.parsers)
            and self.environ.is_empty
        )

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


# --------------------------------------------------------------------------------------------------
# Matching and comparing
# --------------------------------------------------------------------------------------------------


def _match_options(
    old: Parser, new: Parser
) -> tuple[list[tuple[Option, Option]], list[Option], list[Option]]:
    """Pair old and new options: first by a shared spelling, then (for the rest) by a dest unique on both
    sides. Returns (pairs in old parser order, removed, added)."""
    new_by_spelling = {s: o for o in new.options for s in o.option_strings}
    pairs: list[tuple[Option, Option]] = []
    paired_new: set[int] = set()
    unpaired_old: list[Option] = []
    for option in old.options:
        partner = next((new_by_spelling[s] for s in option.option_strings if s in new_by_spelling), None)
        if partner is not None and id(partner) not in paired_new:
            pairs.append((option, partner))
            paired_new.add(id(partner))
        else:
            unpaired_old.append(option)
    unpaired_new = [o for o in new.options if id(o) not in paired_new]

    def unique_dests(options: list[Option]) -> dict[str, Option]:
        counts: dict[str, int] = {}
        for o in options:
            counts[o.dest] = counts.get(o.dest, 0) + 1
        return {o.dest: o for o in options if counts[o.dest] == 1}

    old_dests, new_dests = unique_dests(unpaired_old), unique_dests(unpaired_new)
    renamed = [(o, new_dests[o.dest]) for o in unpaired_old if o.dest in old_dests and o.dest in new_dests]
    renamed_ids = {id(x) for pair in renamed for x in pair}
    pairs.extend(renamed)
    removed = [o for o in unpaired_old if id(o) not in renamed_ids]
    added = [o for o in unpaired_new if id(o) not in renamed_ids]
    return pairs, removed, added


def _key(value: Any) -> str:
    """A strict identity for JSON values: 1, 1.0 and True differ (== would call them equal)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _same(a: Any, b: Any) -> bool:
    return _key(a) == _key(b)


def _choices_change(name: str, old: Option, new: Option) -> ChoicesChange | None:
    if _same(old.choices, new.choices):
        return None
    before, after = list(old.choices or ()), list(new.choices or ())
    before_keys, after_keys = {_key(c) for c in before}, {_key(c) for c in after}
    added = tuple(c for c in after if _key(c) not in before_keys)
    removed = tuple(c for c in before if _key(c) not in after_keys)
    if not added and not removed and (old.choices is None) == (new.choices is None):
        return None  # only the order changed
    return ChoicesChange(name=name, added=added, removed=removed, old=old.choices, new=new.choices)


def diff_parsers(name: str, old: Parser, new: Parser) -> ParserDiff:
    pairs, removed, added = _match_options(old, new)
    result = ParserDiff(
        parser=name,
        added=[OptionRef.of(o) for o in added],
        removed=[OptionRef.of(o) for o in removed],
    )
    for before, after in pairs:
        label = after.name
        if before.option_strings != after.option_strings and set(before.option_strings) != set(
            after.option_strings
        ):
            result.renamed.append(Renamed(after.dest, before.option_strings, after.option_strings))
        if not _same(before.default, after.default):
            result.defaults_changed.append(ValueChange(label, before.default, after.default))
        change = _choices_change(label, before, after)
        if change is not None:
            result.choices_changed.append(change)
        if before.type != after.type:
            result.types_changed.append(ValueChange(label, before.type, after.type))
        if after.deprecated and not before.deprecated:
            result.newly_deprecated.append(OptionRef.of(after))
    return result


def _env_map(snapshot: EngineSnapshot) -> dict[str, EnvVar]:
    return {v.name: v for v in snapshot.environ.variables}


def diff_environ(old: EngineSnapshot, new: EngineSnapshot) -> EnvDiff:
    before, after = _env_map(old), _env_map(new)
    result = EnvDiff(
        added=[n for n in after if n not in before],
        removed=[n for n in before if n not in after],
    )
    for name, variable in after.items():
        previous = before.get(name)
        if previous is None:
            continue
        if not _same(previous.default, variable.default):
            result.defaults_changed.append(ValueChange(name, previous.default, variable.default))
        if previous.type != variable.type:
            result.types_changed.append(ValueChange(name, previous.type, variable.type))
    return result


def _parser_order(name: str) -> tuple[int, str]:
    """launch_server, launch_router, bench_serving first (the JSON file stores them sorted by name)."""
    return (PARSER_NAMES.index(name) if name in PARSER_NAMES else len(PARSER_NAMES), name)


def diff_snapshots(old: EngineSnapshot, new: EngineSnapshot) -> SnapshotDiff:
    common = sorted((name for name in old.parsers if name in new.parsers), key=_parser_order)
    return SnapshotDiff(
        old_version=old.sglang_version,
        new_version=new.sglang_version,
        old_router_version=old.sglang_router_version,
        new_router_version=new.sglang_router_version,
        parsers=[diff_parsers(name, old.parsers[name], new.parsers[name]) for name in common],
        parsers_added=[name for name in new.parsers if name not in old.parsers],
        parsers_removed=[name for name in old.parsers if name not in new.parsers],
        environ=diff_environ(old, new),
    )


# --------------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------------


def _code(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    text = text.replace("`", "'")
    return f"`{text}`"


def _value(value: Any) -> str:
    """A JSON value as code: strings quoted, so "null" and null stay apart."""
    return _code(json.dumps(value, ensure_ascii=False, sort_keys=True))


def _values(values: tuple[Any, ...]) -> str:
    return ", ".join(_code(v) for v in values)


def _spellings(ref: OptionRef) -> str:
    aliases = [s for s in ref.spellings if s != ref.name]
    extra = f" (also {', '.join(_code(a) for a in aliases)})" if aliases else ""
    return f"{_code(ref.name)}{extra}"


def _parser_section(diff: ParserDiff) -> list[str]:
    lines = [f"## {diff.parser}", ""]
    if diff.is_empty:
        return [*lines, "No changes.", ""]

    def block(title: str, items: list[str]) -> None:
        if items:
            lines.extend([f"### {title} ({len(items)})", "", *items, ""])

    block("Options added", [f"- {_spellings(r)} → dest {_code(r.dest)}" for r in diff.added])
    block("Options removed", [f"- {_spellings(r)} (dest {_code(r.dest)})" for r in diff.removed])
    renamed = []
    for r in diff.renamed:
        if r.kept:
            parts = []
            if r.added:
                parts.append(f"new spelling {_values(r.added)}")
            if r.dropped:
                parts.append(f"spelling {_values(r.dropped)} dropped")
            renamed.append(f"- dest {_code(r.dest)}: {'; '.join(parts)}")
        else:
            renamed.append(f"- dest {_code(r.dest)}: {_values(r.old_spellings)} → {_values(r.new_spellings)}")
    block("Options renamed", renamed)
    block(
        "Defaults changed",
        [f"- {_code(c.name)}: {_value(c.old)} → {_value(c.new)}" for c in diff.defaults_changed],
    )
    choices = []
    for c in diff.choices_changed:
        if c.old is None or c.new is None:
            choices.append(f"- {_code(c.name)}: choices {_value(c.old)} → {_value(c.new)}")
            continue
        parts = []
        if c.added:
            parts.append(f"added {_values(c.added)}")
        if c.removed:
            parts.append(f"removed {_values(c.removed)}")
        choices.append(f"- {_code(c.name)}: {'; '.join(parts)}")
    block("Choices changed", choices)
    block(
        "Types changed", [f"- {_code(c.name)}: {_code(c.old)} → {_code(c.new)}" for c in diff.types_changed]
    )
    block("Newly deprecated", [f"- {_spellings(r)}" for r in diff.newly_deprecated])
    return lines


def render_markdown(diff: SnapshotDiff) -> str:
    lines = [f"# SGLang {diff.old_version} → {diff.new_version}", ""]
    if diff.old_router_version != diff.new_router_version:
        lines += [f"sglang-router {diff.old_router_version} → {diff.new_router_version}", ""]
    if diff.is_empty:
        lines += ["No differences in the parsers or the environment variables.", ""]
    for name in diff.parsers_added:
        lines += [f"## {name}", "", "Parser added.", ""]
    for name in diff.parsers_removed:
        lines += [f"## {name}", "", "Parser removed.", ""]
    for parser in diff.parsers:
        lines += _parser_section(parser)
    env = diff.environ
    lines += ["## Environment variables", ""]
    if env.is_empty:
        lines += ["No changes.", ""]
    else:
        if env.added:
            lines += [f"### Added ({len(env.added)})", "", *[f"- {_code(n)}" for n in env.added], ""]
        if env.removed:
            lines += [f"### Removed ({len(env.removed)})", "", *[f"- {_code(n)}" for n in env.removed], ""]
        if env.defaults_changed:
            lines += [f"### Defaults changed ({len(env.defaults_changed)})", ""]
            lines += [f"- {_code(c.name)}: {_value(c.old)} → {_value(c.new)}" for c in env.defaults_changed]
            lines.append("")
        if env.types_changed:
            lines += [f"### Types changed ({len(env.types_changed)})", ""]
            lines += [f"- {_code(c.name)}: {_code(c.old)} → {_code(c.new)}" for c in env.types_changed]
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


# --------------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------------


def _snapshot(given: str) -> EngineSnapshot:
    """A stored release by its version (kb/engine/sglang-history.json), else the snapshot file at a path."""
    if given in snapshot_versions():
        return load_snapshot(given)
    return load_snapshot(path=Path(given))


def main(argv: list[str] | None = None) -> int:
    """``engine-diff OLD NEW``: print the Markdown report (or ``--json``). Exit 0, or 2 on a bad file."""
    parser = OneLineParser(prog="python -m handbook engine-diff", description=main.__doc__)
    parser.add_argument("old", help="the older snapshot: a stored release (0.5.22) or a snapshot file")
    parser.add_argument("new", help="the newer snapshot: a stored release or a snapshot file")
    parser.add_argument("--json", action="store_true", help="print the structured diff as JSON")
    parser.add_argument(
        "--output", "-o", type=output, help="write to this file (in an existing folder) instead of stdout"
    )
    args = parser.parse_args(argv)
    try:
        old, new = _snapshot(args.old), _snapshot(args.new)
    except SnapshotError as exc:
        print(f"✖ {exc}", file=sys.stderr)
        return 2
    result = diff_snapshots(old, new)
    if args.json:
        text = json.dumps(result.to_dict(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"
    else:
        text = render_markdown(result)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            write_text(args.output, text, root=args.output.absolute().parent)
        except WriteRefused as exc:
            print(f"✖ {exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
