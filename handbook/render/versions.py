"""Renderers that set the site beside every stored SGLang release: each option's history on the option
reference, the options removed since the oldest release, the release list, the upgrading page (what
changed between two adjacent releases in a flag or variable the site uses) and the compatibility matrix
(every command of the site checked against every release)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from handbook.calc.recipe_text import command_text
from handbook.checker.argv import PROGRAM_LABEL, parse_args
from handbook.checker.cache import CheckCache
from handbook.checker.check import entry_points, rule_params
from handbook.checker.findings import Finding
from handbook.checker.shell import ShellSyntaxError, parse_script
from handbook.core.anchors import OPTIONS_PAGE, option_anchor
from handbook.core.formatting import parser_value
from handbook.core.paths import ENGINE_DIR
from handbook.engine.history import Change, History, version_key
from handbook.engine.snapshot import EngineSnapshot, Option, load_history, load_snapshot
from handbook.kb.schema import Recipe
from handbook.render.context import RenderContext, attr, esc
from handbook.render.html import parser_value_code, table
from handbook.render.markers import RenderError, renderer

COMPAT_PAGE = "compatibility.md"
UPGRADING_PAGE = "upgrading.md"
PROGRAMS = ("launch_server", "launch_router", "bench_serving")
RELEASES_FILE = ENGINE_DIR / "releases.json"
# The option fields whose changes the option reference shows (the upgrading page shows all of CHANGE_KEYS)
REFERENCE_FIELDS = ("default", "choices", "type")
# How each change reads; "action" changes that only wrap a deprecation are worded by "deprecated".
CHANGE_KEYS = {
    "added": "versions-added",
    "removed": "versions-removed",
    "option_strings": "versions-spellings",
    "default": "versions-default",
    "type": "versions-type",
    "nargs": "versions-nargs",
    "action": "versions-action",
    "deprecated_aliases": "versions-env-aliases",
}
HIDDEN_FIELDS = ("help", "dest")  # reworded help and internal names: not a change a reader acts on
STATUS_KEYS = {
    "clean": "versions-compat-clean",
    "warnings": "versions-compat-warnings",
    "errors": "versions-compat-errors",
}
STATUS_MARK = {"clean": "✔", "warnings": "⚠", "errors": "✖"}


# ------------------------------------------------------------------------------------------ data
def history_of(ctx: RenderContext) -> History:
    """The stored releases, up to the one the handbook is pinned to."""
    history = load_history()
    pinned = ctx.kb.handbook.engine_version
    if pinned not in history.versions:
        raise RenderError(f"kb/engine/sglang-history.json has no sglang {pinned}: run nox -s engine-snapshot")
    return history


def releases_up_to(ctx: RenderContext) -> tuple[str, ...]:
    history = history_of(ctx)
    pinned = version_key(ctx.kb.handbook.engine_version)
    return tuple(v for v in history.versions if version_key(v) <= pinned)


def releases_file() -> dict[str, Any]:
    return json.loads(RELEASES_FILE.read_text(encoding="utf-8"))


def _codes(values: Iterable[Any]) -> str:
    return ", ".join(parser_value_code(v) for v in values)


def _choices_diff(ctx: RenderContext, change: Change) -> str:
    if change.after is None:
        return esc(ctx.msg("versions-choices-now-free", version=change.version))
    if change.before is None:
        return (
            esc(ctx.msg("versions-choices-now-listed", version=change.version)) + " " + _codes(change.after)
        )
    before, after = [parser_value(v) for v in change.before], [parser_value(v) for v in change.after]
    added = [v for v in after if v not in before]
    gone = [v for v in before if v not in after]
    parts = []
    if added:
        parts.append("+ " + _codes(added))
    if gone:
        parts.append("− " + _codes(gone))
    if not parts:  # the same values in another order
        parts.append(esc(ctx.msg("versions-choices-reordered")))
    return esc(ctx.msg("versions-choices", version=change.version)) + " " + "; ".join(parts)


def describe(ctx: RenderContext, change: Change, state: dict[str, Any] | None = None) -> str:
    """One change as HTML. ``state`` is the record in the release of the change (for a replacement)."""
    version, field = change.version, change.field
    if field == "choices":
        return _choices_diff(ctx, change)
    if field == "deprecated":
        if not change.after:
            return esc(ctx.msg("versions-undeprecated", version=version))
        replacement = (state or {}).get("replacement")
        instead = ctx.msg("versions-use-instead", replacement=replacement) if replacement else ""
        return esc(ctx.msg("versions-deprecated", version=version, instead=instead))
    if field == "required":
        return esc(ctx.msg("versions-required" if change.after else "versions-optional", version=version))
    if field == "added":
        return esc(ctx.msg("versions-added", version=version))
    if field == "removed":
        return esc(ctx.msg("versions-removed", version=version))
    if field == "option_strings":
        before = " / ".join(change.before or [])
        after = " / ".join(change.after or [])
        return (
            esc(ctx.msg("versions-spellings", version=version))
            + f" {parser_value_code(before)} → {parser_value_code(after)}"
        )
    before, after = (ctx.engine_value(parser_value(v)) for v in (change.before, change.after))
    return esc(ctx.msg(CHANGE_KEYS[field], version=version)) + f" {before} → {after}"


def _folded(changes: list[Change]) -> list[Change]:
    """An action change that only wraps a deprecation (store_true → DeprecatedStoreTrueAction) is said by
    the deprecation itself."""
    deprecated = {c.version for c in changes if c.field == "deprecated" and c.after}
    return [
        c
        for c in changes
        if not (c.field == "action" and c.version in deprecated and "Deprecated" in str(c.after))
    ]


# ------------------------------------------------------------------------------------------ option reference
def option_history(ctx: RenderContext, program: str, option: Option) -> str:
    """The option reference's history cell: the first release that has it (when newer than the oldest
    stored one) and each release where its default, choices or type changed."""
    history = history_of(ctx)
    releases = releases_up_to(ctx)
    life = history.lifetimes(program).get(option.name)
    if life is None:
        return "—"
    parts = []
    if life.first != releases[0]:
        parts.append(esc(ctx.msg("versions-since", version=life.first)))
    for change in life.changed(*REFERENCE_FIELDS):
        if change.version in releases:
            parts.append(describe(ctx, change))
    return "<br>".join(parts) or "—"


def history_caption(ctx: RenderContext) -> str:
    releases = releases_up_to(ctx)
    return ctx.msg("versions-history-caption", oldest=releases[0], newest=releases[-1], count=len(releases))


@renderer("engine-options-removed")
def options_removed(ctx: RenderContext, program: str) -> str:
    """Options of one parser that a stored release had and the pinned one does not."""
    if ctx.page != OPTIONS_PAGE:
        raise RenderError(f"the removed options live on {OPTIONS_PAGE}, beside the option reference")
    if program not in PROGRAMS:
        raise RenderError(f"program= takes one of {', '.join(PROGRAMS)}")
    history = history_of(ctx)
    releases = releases_up_to(ctx)
    pinned = releases[-1]
    current = set(load_snapshot(pinned).parser(program).all_spellings())
    rows, ids = [], []
    for life in history.all_lifetimes(program):
        if life.versions[0] not in releases or pinned in life.versions or set(life.spellings) & current:
            continue
        last = [v for v in life.versions if v in releases][-1]
        state = history.state(program, life.key, last) or {}
        changes = [
            describe(ctx, c, history.state(program, life.key, c.version))
            for c in _folded([c for c in life.changes if c.version in releases])
            if c.field not in HIDDEN_FIELDS
        ]
        spellings = " / ".join(
            f"<code>{esc(s)}</code>" for s in state.get("option_strings") or life.spellings
        )
        rows.append(
            [
                spellings,
                esc(ctx.msg("versions-span", first=life.first, last=last)),
                "<br>".join(changes) or "—",
                esc(state.get("help") or ""),
            ]
        )
        ids.append(option_anchor(program, life.key.split("#")[0]))
    command = PROGRAM_LABEL[program]
    if not rows:
        return "<p>" + esc(ctx.msg("versions-removed-none", command=command, oldest=releases[0])) + "</p>"
    headers = [
        ctx.msg("options-col-option"),
        ctx.msg("versions-removed-col-releases"),
        ctx.msg("versions-removed-col-changes"),
        ctx.msg("options-col-help"),
    ]
    caption = esc(
        ctx.msg(
            "versions-removed-caption", command=command, count=len(rows), oldest=releases[0], pinned=pinned
        )
    )
    return table(headers, rows, row_ids=ids, caption=caption)


# ------------------------------------------------------------------------------------------ releases
@renderer("engine-releases")
def engine_releases(ctx: RenderContext) -> str:
    """Every stored release: when it reached PyPI, how many options and variables it has, its router."""
    data = releases_file()
    uploaded = {r["version"]: r["uploaded"] for r in data["releases"]}
    pinned = ctx.kb.handbook.engine_version
    rows = []
    for version in reversed(releases_up_to(ctx)):
        snap = load_snapshot(version)
        counts = " / ".join(str(len(snap.parser(p).options)) for p in PROGRAMS)
        label = f"<strong>{esc(version)}</strong>" if version == pinned else esc(version)
        if version == pinned:
            label += f"<br><small>{esc(ctx.msg('versions-releases-pinned'))}</small>"
        rows.append(
            [
                label,
                esc(uploaded.get(version, "—")),
                counts,
                str(len(snap.environ.variables)),
                esc(snap.sglang_router_version),
            ]
        )
    headers = [
        ctx.msg("versions-releases-col-version"),
        ctx.msg("versions-releases-col-uploaded"),
        ctx.msg("versions-releases-col-options"),
        ctx.msg("versions-releases-col-env"),
        ctx.msg("versions-releases-col-router"),
    ]
    router = data["router"]
    notes = [
        ctx.msg("versions-router-pairing", router=router["version"], uploaded=router["uploaded"]),
        ctx.msg(
            "versions-post-releases",
            versions=ctx.msg("sep-enum").join(p["version"] for p in data["post_releases"]),
        ),
    ]
    return table(headers, rows, numeric=(2, 3)) + "\n\n" + "\n\n".join(f"<p>{esc(n)}</p>" for n in notes)


@renderer("engine-release-span", inline=True)
def engine_release_span(ctx: RenderContext) -> str:
    releases = releases_up_to(ctx)
    return ctx.msg("versions-span-count", first=releases[0], last=releases[-1], count=len(releases))


# ------------------------------------------------------------------------------------------ site's flags
@dataclass(frozen=True)
class Use:
    """Where the site uses a flag: the recipes that pass it, and whether a rule or a parameter entry
    names it."""

    recipes: tuple[str, ...] = ()
    documented: bool = False
    rule: bool = False


def _recipe_options(recipe: Recipe, snapshot: EngineSnapshot) -> list[tuple[str, Option]]:
    """(program, option) for every flag a recipe passes, as the pinned parser reads it."""
    if recipe.kind == "shell":
        return []
    try:
        script = parse_script(command_text(recipe), *entry_points(snapshot))
    except ShellSyntaxError:
        return []
    out = []
    for invocation in script.invocations:
        if invocation.program is None or invocation.kind not in ("program", "fragment"):
            continue
        fragment = invocation.kind == "fragment"
        args, _ = parse_args(snapshot, invocation.program, invocation.args, fragment=fragment)
        out += [(invocation.program, given.option) for given in args.order]
    return out


def site_uses(ctx: RenderContext) -> dict[tuple[str, str], Use]:
    """(program, record key) → where the site uses that option, for every option the site names."""
    history = history_of(ctx)
    snapshot = load_snapshot(ctx.kb.handbook.engine_version)
    recipes: dict[tuple[str, str], list[str]] = {}
    documented: set[tuple[str, str]] = set()
    ruled: set[tuple[str, str]] = set()

    def key(program: str, spelling: str) -> tuple[str, str] | None:
        life = history.lifetimes(program).get(spelling)
        return (program, life.key) if life is not None else None

    for recipe in ctx.kb.recipes.values():
        for program, option in _recipe_options(recipe, snapshot):
            k = key(program, option.name)
            if k is not None and recipe.id not in recipes.setdefault(k, []):
                recipes[k].append(recipe.id)
    for (program, flag), parameter in ctx.kb.parameters.items():
        for spelling in (flag, *parameter.aliases):
            k = key(program, spelling)
            if k is not None:
                documented.add(k)
    for rule in ctx.kb.rules.values():
        params = rule_params(rule)
        for flag in params.flags() if params is not None else ():
            k = key(rule.program, flag)
            if k is not None:
                ruled.add(k)
    return {
        k: Use(tuple(recipes.get(k, ())), k in documented, k in ruled)
        for k in set(recipes) | documented | ruled
    }


def _used_cell(ctx: RenderContext, use: Use) -> str:
    parts = [
        f'<a href="{attr(ctx.href(COMPAT_PAGE, "compat-" + rid))}"><code>{esc(rid)}</code></a>'
        for rid in use.recipes
    ]
    if use.documented:
        parts.append(esc(ctx.msg("versions-used-documented")))
    if use.rule:
        parts.append(esc(ctx.msg("versions-used-rule")))
    return ctx.msg("sep-list").join(parts)


def _flag_cell(ctx: RenderContext, program: str, key: str) -> str:
    spelling = key.split("#")[0]
    tag = {"launch_server": "", "launch_router": "router", "bench_serving": "bench"}[program]
    return ctx.flag_html(spelling, program) + (f" <small>({tag})</small>" if tag else "")


# ------------------------------------------------------------------------------------------ upgrading
def _env_names(ctx: RenderContext) -> set[str]:
    return {name for name, variable in ctx.kb.env_vars.items() if variable.read_by == "sglang"}


@renderer("engine-upgrading")
def engine_upgrading(ctx: RenderContext) -> str:
    """One section per pair of adjacent releases, newest first: what changed in a flag or an environment
    variable the site uses."""
    if ctx.page != UPGRADING_PAGE:
        raise RenderError(f"the upgrading notes live on {UPGRADING_PAGE}, where their anchors are")
    history = history_of(ctx)
    releases = releases_up_to(ctx)
    uses = site_uses(ctx)
    env_names = _env_names(ctx)
    uploaded = {r["version"]: r["uploaded"] for r in releases_file()["releases"]}
    sections = []
    for old, new in reversed(list(itertools.pairwise(releases))):
        rows = []
        for program in PROGRAMS:
            wanted = [k for (p, k) in uses if p == program]
            by_key: dict[str, list[Change]] = {}
            for change in history.between(old, new, program, keys=wanted):
                if change.field not in HIDDEN_FIELDS:
                    by_key.setdefault(change.key, []).append(change)
            for key_, changes in by_key.items():
                state = history.state(program, key_, new)
                if state is None:
                    state = history.state(program, key_, old)
                described = [describe(ctx, c, state) for c in _folded(changes)]
                rows.append(
                    [
                        _flag_cell(ctx, program, key_),
                        "<br>".join(described),
                        _used_cell(ctx, uses[(program, key_)]),
                    ]
                )
        for change_group in _env_changes(history, old, new, env_names):
            name, changes = change_group
            rows.append(
                [
                    ctx.env_html(name),
                    "<br>".join(describe(ctx, c) for c in changes),
                    esc(ctx.msg("versions-used-env")),
                ]
            )
        heading = ctx.msg("versions-upgrade-heading", old=old, new=new)
        anchor = "upgrade-" + new.replace(".", "-")
        out = [f"## {esc(heading)} {{ #{anchor} }}"]
        out.append(
            "<p>" + esc(ctx.msg("versions-upgrade-released", new=new, uploaded=uploaded.get(new, "—")))
        )
        if rows:
            out[-1] += " " + esc(ctx.msg("versions-upgrade-count", count=len(rows))) + "</p>"
            headers = [
                ctx.msg("versions-col-flag-or-variable"),
                ctx.msg("versions-col-change"),
                ctx.msg("versions-col-used"),
            ]
            out.append(table(headers, rows))
        else:
            out[-1] += " " + esc(ctx.msg("versions-upgrade-nothing")) + "</p>"
        sections.append("\n\n".join(out))
    return "\n\n".join(sections)


def _env_changes(history: History, old: str, new: str, names: set[str]) -> list[tuple[str, list[Change]]]:
    grouped: dict[str, list[Change]] = {}
    for change in history.between(old, new, "env", keys=names):
        grouped.setdefault(change.key, []).append(change)
    return sorted(grouped.items())


# ------------------------------------------------------------------------------------------ compatibility
@dataclass(frozen=True)
class Cell:
    status: str  # clean | warnings | errors
    findings: tuple[Finding, ...]  # its errors and warnings


def _cell(findings: list[Finding]) -> Cell:
    flagged = tuple(f for f in findings if f.severity != "note")
    errors = any(f.severity == "error" for f in flagged)
    return Cell("errors" if errors else ("warnings" if flagged else "clean"), flagged)


def compatibility(ctx: RenderContext) -> list[tuple[Recipe, dict[str, Cell]]]:
    """Every command the site publishes (shell recipes aside) checked against every stored release (once a
    build: both languages show the same matrix)."""
    return ctx.once("compatibility", lambda: _compatibility(ctx))


def _compatibility(ctx: RenderContext) -> list[tuple[Recipe, dict[str, Cell]]]:
    """A release's snapshot is loaded only when the build's check cache lacks one of its answers (a context
    outside a build has no cache: it checks every command)."""
    recipes = {rid: r for rid, r in ctx.kb.recipes.items() if r.kind != "shell"}
    checks = ctx.checks or CheckCache(ctx.kb, kept=False)
    found = {v: checks.findings(recipes, v, lambda v=v: load_snapshot(v)) for v in releases_up_to(ctx)}
    return [(recipe, {v: _cell(by_id[rid]) for v, by_id in found.items()}) for rid, recipe in recipes.items()]


def first_accepted(cells: dict[str, Cell]) -> str | None:
    """The oldest release from which every later release accepts the command (no errors)."""
    first = None
    for version in reversed(list(cells)):
        if cells[version].status == "errors":
            break
        first = version
    return first


@renderer("engine-compatibility")
def engine_compatibility(ctx: RenderContext) -> str:
    """The matrix: each command × each release → clean / warnings / errors, with the first release that
    accepts it and the finding that rejects it in the release before."""
    if ctx.page != COMPAT_PAGE:
        raise RenderError(f"the compatibility matrix lives on {COMPAT_PAGE}, where its anchors are")
    releases = releases_up_to(ctx)
    rows, ids = [], []
    for recipe, cells in compatibility(ctx):
        first = first_accepted(cells)
        marks = []
        for version in releases:
            cell = cells[version]
            words = ctx.msg(STATUS_KEYS[cell.status], count=len(cell.findings))
            title = f"{version}: {words}"
            if cell.findings:
                title += " — " + cell.findings[0].message[ctx.lang]
            marks.append(
                f'<span class="compat-{cell.status}" title="{attr(title)}">{STATUS_MARK[cell.status]}</span>'
            )
        if first is None:
            first_cell = esc(ctx.msg("versions-compat-never"))
        elif first == releases[0]:
            first_cell = esc(ctx.msg("versions-compat-all", oldest=first))
        else:
            first_cell = f"<strong>{esc(first)}</strong>"
        why = "—"
        before = releases[releases.index(first) - 1] if first not in (None, releases[0]) else None
        if before is not None:
            errors = [f for f in cells[before].findings if f.severity == "error"]
            why = esc(before) + ctx.msg("sep-label") + "<br>".join(esc(f.message[ctx.lang]) for f in errors)
        elif first is None:
            errors = [f for f in cells[releases[-1]].findings if f.severity == "error"]
            why = "<br>".join(esc(f.message[ctx.lang]) for f in errors)
        title = esc(ctx.t(recipe.title)) + f"<br><small><code>{esc(recipe.id)}</code></small>"
        rows.append([title, *marks, first_cell, why])
        ids.append("compat-" + recipe.id)
    headers = [
        ctx.msg("versions-compat-col-command"),
        *(f"<small>{esc(v)}</small>" for v in releases),
        ctx.msg("versions-compat-col-first"),
        ctx.msg("versions-compat-col-older"),
    ]
    legend = esc(ctx.msg("versions-compat-legend", pinned=ctx.kb.handbook.engine_version))
    return table(headers, rows, row_ids=ids, caption=legend)
