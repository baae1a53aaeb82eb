"""Wording checks over KB text: claims about the engine name their rule; "the handbook" is this site.

Engine behaviour. A text that says what the engine does (refuses, errors, caps, resets, requires…, in
either language: ``ENGINE_WORDS``) must be held by a rule: its entry (or an entry around it) references the
rule that records what SGLang 0.5.23 actually does (``rules: [id]``), and the page shows that verdict beside
the text. A flagged text with no rule is a problem unless ``kb/rules.yaml`` lists it under
``wording_exceptions`` with the reason (a false alarm, or a behaviour no rule can hold: the engine's help
text, another library). A listed exception that no longer matches a flagged text is a problem too
("unnecessary exception"), so the list only shrinks.

The handbook. The site calls the text it is built from "the source" (源稿); 手册 / handbook means the site.
Every KB text that says 手册 or handbook is a problem unless listed as an exception (the site's title).

What is read: every Text of every entity, except the kinds that are themselves the record of the engine or
of the source (rules, resolved defaults, sources, claims) and a correction's words (its ``why`` is the
engine's verdict, with its source); words quoted from the source (``⟦…⟧``) are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from handbook.core.problem import Problem
from handbook.core.quotes import plain, without_quotes
from handbook.engine.snapshot import EngineSnapshot
from handbook.kb import schema as s
from handbook.kb.loader import KB, KINDS, shown_root
from handbook.kb.texts import Leaf, leaves
from handbook.kb.yamlfile import format_path
from handbook.validation.values import owner_rules

# The word list, refined on the KB as it stood (see the audit): words that state what the engine
# does. Chinese words are matched as written; English ones as case-insensitive patterns. Left out because
# in this KB they define what a flag does rather than claim a check: 覆盖 / overrides (a flag that sets
# a value), 自动 / automatic, 限制 / caps (a limit a flag sets), 须 and need (sizes, advice), won't.
# Flag and variable names are taken out first (--disable-radix-cache states nothing).
ENGINE_WORDS: dict[str, tuple[str, ...]] = {
    "zh": (
        "报错", "拒绝", "启动失败", "失败", "重置", "强制", "要求", "必须", "只支持", "不支持",
        "不兼容", "互斥", "失效", "忽略", "压到", "触发", "崩溃", "断言", "错误", "不能", "无法",
        "只能", "不要降", "会让", "导致", "截断", "回退", "关闭", "取代", "改写", "弃用",
    ),
    "en": (
        r"\brefus", r"\berror", r"\bfail", r"\breset", r"\brequir", r"\bmust\b",
        r"\bonly supports?\b", r"\bnot supported\b|\bdoes not support\b", r"\bincompatib",
        r"mutually exclusive",
        r"\bignor", r"\btrigger", r"\bcrash", r"\bassert", r"\bcannot\b", r"\bcan't\b",
        r"\bcan only\b", r"\bforce", r"\bfalls? back\b", r"\bdisabl", r"\bturns? off\b", r"\bdeprecat",
        r"\brewrit", r"\breplac", r"\bmandatory\b", r"\bnot compatible\b", r"\bdoesn't work\b",
    ),
}  # fmt: skip
# 回退请求 is a request being retracted, not a fallback
_NOT_ENGINE = {"回退": re.compile(r"回退请求")}
HANDBOOK_WORDS: dict[str, tuple[str, ...]] = {"zh": ("手册",), "en": (r"\bhandbook",)}
# A deprecation is the engine snapshot's to hold (deprecated flags and modules): a text whose only
# engine words are these, about a flag or module the snapshot deprecates, is held by it.
DEPRECATION_WORDS = ("弃用", "取代", "改写", "deprecat", "replac", "rewrit")
_NAMES = re.compile(r"(?<![\w-])--[a-z0-9][a-z0-9_-]*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\bpython3? -m [\w.]+")

# Kinds that are the record of the engine or of the source, not claims about them.
_RECORDS = ("sources", "claims", "edits", "rules", "resolved_defaults", "wording_exceptions")
# Kinds where 手册 / handbook names this site by construction: the site's own settings (its title).
_HANDBOOK_RECORDS = ("handbook", "wording_exceptions")


@dataclass(frozen=True)
class Flagged:
    """A text the word lists flag: where it is, the words, whether a rule holds it."""

    file: str  # relative to kb/
    path: str  # without the language
    line: int
    lang: str
    words: tuple[str, ...]
    linked: bool
    full_path: str


def _hits(text: str, lang: str, words: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    text = _NAMES.sub(" ", without_quotes(text))
    if lang == "zh":
        found = []
        for word in words["zh"]:
            if word in text:
                rest = _NOT_ENGINE[word].sub("", text) if word in _NOT_ENGINE else text
                if word in rest:
                    found.append(word)
        return tuple(found)
    return tuple(
        match.group(0).lower()
        for pattern in words["en"]
        if (match := re.search(pattern, text, re.IGNORECASE)) is not None
    )


def _texts(kb: KB, skip: tuple[str, ...]) -> Iterator[tuple[str, int, str, Leaf]]:
    """(file relative to kb/, line, dotted path, leaf) of every Text part the checks read."""
    for kind in KINDS:
        if kind.name in skip:
            continue
        for entity in kind.entities(getattr(kb, kind.name)):
            origin = kb.origin(entity)
            file = origin.doc.file.removeprefix(shown_root(kb.root) + "/")
            for leaf in leaves(entity):
                if leaf.lang is None or any(isinstance(o, s.Correction) for o in leaf.owners):
                    continue
                full = origin.path + leaf.path
                yield file, origin.doc.line_of(full), format_path(full[:-1]), leaf


def _deprecated_names(snapshot: EngineSnapshot | None) -> set[str]:
    """Every spelling of a deprecated option and every deprecated module of the snapshot."""
    if snapshot is None:
        return set()
    names: set[str] = set()
    for parser in snapshot.parsers.values():
        for option in parser.options:
            if option.deprecated:
                names.update(option.option_strings)
        names.update(m for m, info in parser.modules.items() if info.deprecated_alias_of)
    return names


def _held_by_snapshot(leaf: Leaf, found: tuple[str, ...], deprecated: set[str]) -> bool:
    """Only deprecation words, about a flag or module the snapshot deprecates (named in the text, or the
    parameter the text belongs to)."""
    if not deprecated or not all(w.startswith(DEPRECATION_WORDS) for w in found):
        return False
    text = plain(leaf.text)  # a quotation of the source names the deprecated spelling, too
    named = {m.group(0).removeprefix("python -m ").removeprefix("python3 -m ") for m in _NAMES.finditer(text)}
    named |= {o.flag for o in leaf.owners if isinstance(o, s.Parameter)}
    return bool(named & deprecated)


def flagged(kb: KB, check: str = "engine-behaviour", snapshot: EngineSnapshot | None = None) -> list[Flagged]:
    """Every text the check's word list flags, with whether a rule reference (or, for a deprecation, the
    engine snapshot) holds it."""
    words = ENGINE_WORDS if check == "engine-behaviour" else HANDBOOK_WORDS
    skip = _RECORDS if check == "engine-behaviour" else _HANDBOOK_RECORDS
    deprecated = _deprecated_names(snapshot)
    out = []
    for file, line, path, leaf in _texts(kb, skip):
        assert leaf.lang is not None
        found = _hits(leaf.text, leaf.lang, words)
        if found:
            linked = check == "engine-behaviour" and (
                bool(owner_rules(leaf.owners)) or _held_by_snapshot(leaf, found, deprecated)
            )
            out.append(Flagged(file, path, line, leaf.lang, found, linked, f"{path}.{leaf.lang}"))
    return out


def _excuses(exception: s.WordingException, item: Flagged) -> bool:
    return (
        exception.file == item.file
        and exception.path == item.path
        and any(word.lower() in item.words for word in exception.words)
    )


def _problems(kb: KB, check: str, snapshot: EngineSnapshot | None = None) -> list[Problem]:
    exceptions = [e for e in kb.wording_exceptions if e.check == check]
    used: set[int] = set()
    problems = []
    for item in flagged(kb, check, snapshot):
        if item.linked:
            continue
        excused = [i for i, e in enumerate(exceptions) if _excuses(e, item)]
        if excused:
            used.update(excused)
            continue
        shown = ", ".join(f"'{w}'" for w in item.words)
        if check == "engine-behaviour":
            message = (
                f"got {shown}, a claim about what the engine does with no rule to hold it, expected the "
                "entry to reference the rule that records SGLang's behaviour (rules: [id]), or an exception "
                f"in kb/rules.yaml wording_exceptions (file: {item.file}, path: {item.path}) with the reason"
            )
        else:
            message = (
                f"got {shown}, expected 源稿 / the source where the source text is meant (手册 / the "
                "handbook is this site), or an exception in kb/rules.yaml wording_exceptions with the reason"
            )
        problems.append(Problem(f"{shown_root(kb.root)}/{item.file}", item.line, item.full_path, message))
    for i, exception in enumerate(exceptions):
        if i not in used:
            index = kb.wording_exceptions.index(exception)
            problems.append(
                kb.origin(exception).at(
                    ("path",),
                    f"got an unnecessary exception: no {check} word of {exception.words} is flagged at "
                    f"{exception.file} {exception.path} any more (or a rule now holds it), expected it "
                    f"removed (wording_exceptions[{index}])",
                )
            )
    return problems


def engine_wording_problems(kb: KB, snapshot: EngineSnapshot | None) -> list[Problem]:
    return _problems(kb, "engine-behaviour", snapshot)


def handbook_wording_problems(kb: KB) -> list[Problem]:
    return _problems(kb, "handbook")


@dataclass(frozen=True)
class Counts:
    flagged: int  # texts (fields, both languages counted once) the word list flags
    linked: int  # of them, held by a rule reference or (a deprecation) by the engine snapshot
    excepted: int  # of them, listed as exceptions
    by_rule: int  # of the linked, held by a rule reference


def engine_wording_counts(kb: KB, snapshot: EngineSnapshot | None) -> Counts:
    items = flagged(kb, "engine-behaviour", snapshot)
    fields = {(i.file, i.path) for i in items}
    linked = {(i.file, i.path) for i in items if i.linked}
    exceptions = [e for e in kb.wording_exceptions if e.check == "engine-behaviour"]
    excepted = {(i.file, i.path) for i in items if not i.linked and any(_excuses(e, i) for e in exceptions)}
    by_rule = {(i.file, i.path) for i in flagged(kb, "engine-behaviour", None) if i.linked}
    return Counts(len(fields), len(linked), len(excepted), len(by_rule))
