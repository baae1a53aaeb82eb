"""The site's own wording: one catalogue (handbook/core/messages) in (zh, en) order; every key is used, every
key the code names exists, and every key is named whole in the code, so that grep finds each use.

The scan reads every module of handbook/ (the catalogue's own modules aside) as Python syntax: a key is
used when a string literal equals it anywhere there, or when a script of docs/assets/ quotes it.
"""

from __future__ import annotations

import ast
import re
import string
import typing
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from handbook.calc.launch import Basis
from handbook.calc.memory import NOTE_CODES
from handbook.checker import envcheck
from handbook.core.messages import CATALOGUE, DOMAINS, LANG_KEYS, message, msg
from handbook.core.paths import REPO_ROOT
from handbook.core.text import LANGS, has_han
from handbook.kb.schema import Default, EngineBehaviour, EnvVar, Rule, StatedRule
from handbook.pages.translations import NO_HISTORY
from handbook.render import contributors, engine, ops, params, planner

PACKAGE = REPO_ROOT / "handbook"
CATALOGUE_DIR = PACKAGE / "core" / "messages"
PLANNER_JS = REPO_ROOT / "docs" / "assets" / "planner.js"
SCRIPTS = sorted((REPO_ROOT / "docs" / "assets").glob("*.js"))  # the site's scripts, which name keys too
LOOKUPS = {"msg", "message"}  # handbook.core.messages.msg / message, and RenderContext.msg


def _modules() -> Iterator[tuple[Path, ast.Module]]:
    """Every module of the package as syntax; in the catalogue's own modules, all but the entries."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        if path.parent == CATALOGUE_DIR:
            tree.body = [node for node in tree.body if not _assigns(node, "MESSAGES")]
        yield path, tree


def _assigns(node: ast.stmt, name: str) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return any(isinstance(t, ast.Name) and t.id == name for t in targets)


MODULES = list(_modules())


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(REPO_ROOT)}:{node.lineno}"


def _lookups(nodes: Iterable[ast.AST]) -> Iterator[ast.Call]:
    """Every call of msg(…) or message(…) among ``nodes``, as a function or a method (ctx.msg)."""
    for node in nodes:
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if name in LOOKUPS:
                yield node


def _alternatives(node: ast.expr) -> Iterator[ast.expr]:
    """The expressions a key argument can take: both branches of ``a if c else b``."""
    if isinstance(node, ast.IfExp):
        yield from _alternatives(node.body)
        yield from _alternatives(node.orelse)
    else:
        yield node


def _key_maps(tree: ast.Module) -> Iterator[tuple[str, ast.Dict]]:
    """Module-level ``NAME_KEYS = {value: "key", …}``: the keys of the values a renderer words."""
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        for target in targets:
            if (
                isinstance(target, ast.Name)
                and target.id.endswith("_KEYS")
                and isinstance(node.value, ast.Dict)
            ):
                yield target.id, node.value


def _named_keys() -> dict[str, list[str]]:
    """Every key the code names for a lookup (a literal argument, or a key map's value) → where."""
    named: dict[str, list[str]] = {}
    for path, tree in MODULES:
        for call in _lookups(ast.walk(tree)):
            for alternative in _alternatives(call.args[0]):
                if isinstance(alternative, ast.Constant) and isinstance(alternative.value, str):
                    named.setdefault(alternative.value, []).append(_where(path, call))
        for name, mapping in _key_maps(tree):
            for value in mapping.values:
                assert isinstance(value, ast.Constant) and isinstance(value.value, str), (
                    f"{_where(path, value)}: {name} maps to a literal key, got {ast.unparse(value)}"
                )
                named.setdefault(value.value, []).append(_where(path, value))
    return named


def _literals() -> set[str]:
    """Every string literal of the package's code, outside the catalogue."""
    return {
        node.value
        for _, tree in MODULES
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def _script_literals() -> set[str]:
    return {
        key
        for script in SCRIPTS
        for key in re.findall(r"""["'`]([a-z0-9][a-z0-9_-]*)["'`]""", script.read_text(encoding="utf-8"))
    }


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


# ------------------------------------------------------------------------------------------ the catalogue
def test_every_entry_has_both_languages_in_zh_en_order_with_the_same_fields():
    problems = []
    for domain, messages in DOMAINS.items():
        for key, entry in messages.items():
            if not (isinstance(entry, tuple) and len(entry) == 2 and all(isinstance(t, str) for t in entry)):
                problems.append(f"{domain}: {key}: expected (zh, en), got {entry!r}")
                continue
            zh, en = entry
            if bool(zh.strip()) != bool(en.strip()):  # punctuation may be blank in one language, prose not
                problems.append(f"{domain}: {key}: one language is blank: {entry!r}")
            if has_han(en):
                problems.append(f"{domain}: {key}: Chinese in the English (is the pair in (en, zh) order?)")
            if _fields(zh) != _fields(en):
                problems.append(
                    f"{domain}: {key}: fields {sorted(_fields(zh))} in zh, {sorted(_fields(en))} in en"
                )
    assert problems == []


def test_the_catalogue_is_its_domains_merged_and_msg_picks_the_language():
    assert len(CATALOGUE) == sum(len(m) for m in DOMAINS.values())
    assert list(DOMAINS) == [
        "site",
        "checker",
        "planner",
        "diagrams",
        "exports",
        "versions",
        "configurator",
        "deployment",
        "releases",
        "doctor",
        "production",
        "cli",
    ]
    assert msg("tp-table-agreement", LANGS[1], stated=3, agreeing=2) == (
        "Of the 3 TP sizes the source (official Cookbook) gives, 2 agree with the computation."
    )
    assert (
        msg("tp-table-agreement", LANGS[0], stated=3, agreeing=2)
        == "源稿（官方 Cookbook）给出的 3 个 TP 中，2 个与计算一致。"
    )
    both = message("planner-cli-smallest-tp", tp=8)
    assert (both.zh, both.en) == ("能放下的最小 TP 是 8。", "The smallest TP that fits is 8.")


# ------------------------------------------------------------------------------------------ keys in the code
def test_every_key_is_used():
    used = _literals() | _script_literals()
    assert sorted(set(CATALOGUE) - used) == []


def test_every_key_the_code_names_exists():
    missing = {key: where for key, where in _named_keys().items() if key not in CATALOGUE}
    assert missing == {}


def test_every_key_the_planner_script_looks_up_exists_on_the_planner_page():
    page = {k for k in DOMAINS["planner"] if not k.startswith("planner-cli-")}  # what render/planner.py ships
    script = PLANNER_JS.read_text(encoding="utf-8")
    looked_up = set(re.findall(r"""\b(?:m|messages|this\.messages)\[["']([^"']+)["']\]""", script))
    looked_up |= set(re.findall(r"""\b\w+: "(planner-legend-[a-z-]+)\"""", script))
    assert looked_up and looked_up - page == set()
    # the script builds four families of keys from codes, as render/planner.py's maps name them whole
    for prefix, mapping in (
        ("planner-note-", planner.NOTE_KEYS),
        ("planner-auto-", planner.AUTO_KEYS),
        ("planner-path-", planner.PATH_KEYS),
        ("planner-bound-", planner.BOUND_KEYS),
    ):
        assert f"m[`{prefix}$" in script or f"messages[`{prefix}$" in script
        assert {k for k in CATALOGUE if k.startswith(prefix)} == set(mapping.values())


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of one scope (a module or a function), not those of the functions inside it."""
    for child in ast.iter_child_nodes(scope):
        yield child
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _own_nodes(child)


def _built_keys(tree: ast.Module) -> list[ast.Call]:
    """The lookups whose key is built from parts: an f-string, a concatenation, a format or a join, or a
    name its scope binds to one of those."""
    built = (ast.JoinedStr, ast.BinOp)
    found = []
    scopes = [
        tree,
        *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)),
    ]
    for scope in scopes:
        nodes = list(_own_nodes(scope))
        composed = {
            target.id
            for node in nodes
            if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign)
            and (isinstance(node, ast.AugAssign) or isinstance(node.value, built))
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
        for call in _lookups(nodes):
            for key in _alternatives(call.args[0]):
                joined = isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute)
                if (
                    isinstance(key, built)
                    or (joined and key.func.attr in ("format", "join"))
                    or (isinstance(key, ast.Name) and key.id in composed)
                ):
                    found.append(call)
    return found


def test_no_key_is_built_from_parts():
    """A lookup names its key as a literal, a key map's entry, or a variable holding one of those: grep
    finds every use of a key."""
    problems = sorted(
        f"{_where(path, call)}: {ast.unparse(call)}" for path, tree in MODULES for call in _built_keys(tree)
    )
    assert problems == []


def test_the_scan_finds_keys_built_from_parts():
    source = """
NOTE_KEYS = {"a": "planner-note-a"}
def good(ctx, code, wide):
    key = "fig-alt-gpu-dp" if wide else "fig-alt-gpu-tp"
    return ctx.msg(key) + ctx.msg(NOTE_KEYS[code]) + msg("sep-list" if wide else "sep-enum", "zh")
def bad(ctx, kind, lang):
    key = f"layers-{kind}"
    return ctx.msg(key) + msg("lang-" + lang, lang) + message(f"lang-{lang}") + ctx.msg("x-{}".format(kind))
"""
    found = _built_keys(ast.parse(source))
    assert sorted(ast.unparse(c.args[0]) for c in found) == [
        "'lang-' + lang",
        "'x-{}'.format(kind)",
        "f'lang-{lang}'",
        "key",
    ]


# ------------------------------------------------------------------------------------------ key maps
def _literal_values(annotation: object) -> set[object]:
    args = typing.get_args(annotation)
    return {v for a in args for v in (_literal_values(a) if typing.get_args(a) else [a])}


READ_BY = _literal_values(EnvVar.model_fields["read_by"].annotation)


@pytest.mark.parametrize(
    ("mapping", "values"),
    [
        pytest.param(
            params.DEFAULT_KEYS,
            _literal_values(Default.model_fields["kind"].annotation) - {"value"},
            id="default",
        ),
        pytest.param(
            engine.DOES_KEYS, _literal_values(EngineBehaviour.model_fields["does"].annotation), id="does"
        ),
        pytest.param(
            engine.HOW_KEYS, _literal_values(EngineBehaviour.model_fields["established"].annotation), id="how"
        ),
        pytest.param(
            engine.VERDICT_KEYS, _literal_values(StatedRule.model_fields["verdict"].annotation), id="verdict"
        ),
        pytest.param(
            engine.SEVERITY_KEYS,
            _literal_values(typing.get_type_hints(Rule.severity.fget)["return"]),
            id="severity",
        ),
        pytest.param(envcheck.READ_BY_KEYS, READ_BY, id="read-by"),
        pytest.param(ops.READER_KEYS, READ_BY, id="env-vars-reader"),
        pytest.param(planner.NOTE_KEYS, set(NOTE_CODES), id="planner-note"),
        pytest.param(
            planner.PATH_KEYS, (_literal_values(Basis) - {"checkpoint"}) | {None}, id="planner-path"
        ),
        pytest.param(contributors.NO_HISTORY_KEYS, set(NO_HISTORY), id="no-history"),
        pytest.param(LANG_KEYS, set(LANGS), id="lang"),
    ],
)
def test_each_key_map_words_every_value_it_can_meet(mapping, values):
    assert set(mapping) == values
    assert all(key in CATALOGUE for key in mapping.values())
