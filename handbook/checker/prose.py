"""Flags and values written in sentences, checked like commands.

A sentence of the KB or of a page ("on MI355X use --attention-backend aiter", "--tp-size 8 --ep-size 8")
writes settings a reader may copy. ``check_text`` finds every ``--flag`` and, where the option takes one,
the value written after it, and judges them against the pinned engine snapshot exactly as the command
checker does (the option exists, its value is one of its choices and of its type, it is not deprecated) and
against the KB's rules as a fragment (handbook.checker.predicates: a rule is judged only when the sentence
writes every flag its predicate reads).

What counts as a value is decided with care, since prose is not argv: the next word after an option that
takes a value, when it looks like one (ASCII, no prose punctuation; a number for a numeric option; for an
option with choices, one of them, or a spelling close to one, or a word with ``_``, ``-``, ``.`` or a digit
in it). Alternatives written ``a / b`` are each checked. The words inside a quotation of the source
(``⟦…⟧``, handbook.core.quotes) are never read. The owner of a text adds its own context: a parameter's
texts are about its flag, a choice's about ``flag value``, and a model's about that model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from handbook.checker.argv import PROGRAM_LABEL, parse_args, spellings_abbreviated_by
from handbook.checker.check import rule_findings, rule_params
from handbook.checker.findings import Finding
from handbook.checker.predicates import Facts
from handbook.checker.shell import DOCKER_OPTIONS, Word
from handbook.core.messages import message
from handbook.core.quotes import without_quotes
from handbook.core.suggest import closest
from handbook.engine.snapshot import EngineSnapshot, Option, Parser
from handbook.kb.loader import KB
from handbook.kb.schema import Rule

_FLAG = re.compile(r"(?<![\w/-])(--[a-z0-9][a-z0-9_-]*[a-z0-9])(?:=(?P<eq>[A-Za-z0-9_.:+/-]+))?")
# After a flag: blanks, possibly the end and start of inline code (`--flag` `value`, `--flag value`)
_GAP = re.compile(r"^(?:`?[ \t]+`?|[ \t]*`[ \t]*(?=`?[A-Za-z0-9]))")
_VALUE = re.compile(r"^[A-Za-z0-9_.:+-]+(?:[ \t]*/[ \t]*[A-Za-z0-9_.:+-]+)*")
_NUMBER = re.compile(r"^-?\d")
_CODE_LIKE = re.compile(r"[_.\d-]|^[A-Z0-9_]+$")
_MODULE = re.compile(r"python3?\s+-m\s+(?P<module>sglang[\w.]*)")
_DEPRECATION_WORDS = ("弃用", "deprecat")
# Programs other than SGLang's whose options a sentence may name (not judged): docker's, for a start.
_OTHER_OPTIONS = DOCKER_OPTIONS


@dataclass(frozen=True)
class Context:
    """Who a text belongs to: the program its flags are for, the words its owner writes (a parameter's
    flag, a choice's ``flag value``), and the model it is about."""

    program: str = "launch_server"
    owner: tuple[str, ...] = ()
    model: str | None = None


@dataclass
class _Written:
    """One flag as the sentence writes it: where, its option, and the values read after it."""

    start: int
    spelling: str
    program: str
    option: Option
    values: list[str] = field(default_factory=list)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _resolve(snapshot: EngineSnapshot, program: str, spelling: str) -> tuple[str, Option | None, list[str]]:
    """(program, option, abbreviated spellings): an exact spelling of the text's program or of another
    program; else the spellings it abbreviates, first in the text's program."""
    order = [program, *(p for p in snapshot.parsers if p != program)]
    for name in order:
        option = snapshot.parser(name).get(spelling)
        if option is not None:
            return name, option, []
    for name in order:
        spellings = spellings_abbreviated_by(snapshot.parser(name), spelling)
        if spellings:
            return name, None, spellings
    return program, None, []


def _is_value(option: Option, token: str) -> bool:
    """Whether the word after an option that takes a value is written as its value (not prose)."""
    if option.type in ("int", "float", "human_readable_int", "_finite_positive_float"):
        return bool(_NUMBER.match(token))
    if option.choices is not None:
        shown = [str(c) for c in option.choices]
        return token in shown or bool(_CODE_LIKE.search(token)) or closest(token, shown) is not None
    return False  # free text (a path, a name): nothing to judge, and prose cannot be told from it


def _read_values(option: Option, rest: str) -> list[str]:
    gap = _GAP.match(rest)
    if gap is None:
        return []
    found = _VALUE.match(rest[gap.end() :])
    if found is None:
        return []
    words = [w.strip().rstrip(".:") for w in found.group(0).split("/")]
    words = [w for w in words if w]
    if not words or not all(_is_value(option, w) for w in words):
        return []
    return words


def written(text: str, snapshot: EngineSnapshot, program: str) -> tuple[list[_Written], list[Finding]]:
    """Every engine flag the text writes, with its values; the findings about the spellings themselves."""
    out: list[_Written] = []
    findings: list[Finding] = []
    for match in _FLAG.finditer(text):
        spelling = match.group(1)
        line = _line(text, match.start())
        prog, option, spellings = _resolve(snapshot, program, spelling)
        label = PROGRAM_LABEL[prog]
        if option is None and spellings:
            if len(spellings) == 1:
                findings.append(
                    Finding(
                        "error",
                        "flag.abbreviation",
                        message("check-flag-abbreviation", flag=spelling, program=label, full=spellings[0]),
                        line,
                        spelling,
                    )
                )
                option = snapshot.parser(prog).option(spellings[0])
            else:
                findings.append(
                    Finding(
                        "error",
                        "flag.ambiguous",
                        message("check-flag-ambiguous", flag=spelling, spellings=", ".join(spellings[:8])),
                        line,
                        spelling,
                    )
                )
                continue
        if option is None:
            if spelling in _OTHER_OPTIONS:
                continue
            close = closest(spelling, snapshot.all_spellings())
            if close is not None:  # a near miss of an engine flag; anything else is another tool's option
                hint = message("check-closest", name=close)
                findings.append(
                    Finding(
                        "error",
                        "flag.unknown",
                        message(
                            "check-flag-unknown",
                            flag=spelling,
                            program=label,
                            version=snapshot.sglang_version,
                            hint=hint,
                        ),
                        line,
                        spelling,
                    )
                )
            continue
        values: list[str] = []
        if option.takes_value:
            if match.group("eq"):
                values = [w for w in match.group("eq").split("/") if w]
            else:
                values = _read_values(option, text[match.end() :])
        out.append(_Written(match.start(), spelling, prog, option, values))
    return out, findings


def _deprecations(text: str, flags: list[_Written], snapshot: EngineSnapshot) -> list[Finding]:
    """A deprecated flag or module named in a text that does not say it is deprecated."""
    lowered = text.lower()
    if any(word in lowered for word in _DEPRECATION_WORDS):
        return []
    out = []
    version = snapshot.sglang_version
    for item in flags:
        option = item.option
        if option.deprecated:
            instead = (
                message("check-use-instead", replacement=option.replacement) if option.replacement else ""
            )
            out.append(
                Finding(
                    "error",
                    "flag.deprecated",
                    message("check-flag-deprecated", flag=option.name, version=version, instead=instead),
                    _line(text, item.start),
                    item.spelling,
                )
            )
    for match in _MODULE.finditer(text):
        module = match.group("module").rstrip(".")
        for parser in snapshot.parsers.values():
            info = parser.modules.get(module)
            if info is not None and info.deprecated_alias_of:
                out.append(
                    Finding(
                        "error",
                        "module.deprecated",
                        message(
                            "check-module-deprecated",
                            module=module,
                            version=version,
                            replacement=info.deprecated_alias_of,
                        ),
                        _line(text, match.start()),
                        module,
                    )
                )
    return out


def _fragment_findings(
    items: list[_Written],
    owner: list[_Written],
    snapshot: EngineSnapshot,
    kb: KB,
    context: Context,
    text: str,
) -> list[Finding]:
    """Each program's flags, values and rules, as a fragment the sentence writes."""
    out: list[Finding] = []
    for program in dict.fromkeys(i.program for i in [*owner, *items]):
        words: list[Word] = []
        lines: list[int] = []
        for item in [*owner, *items]:
            if item.program != program or (item.option.takes_value and not item.values):
                continue
            line = 1 if any(item is o for o in owner) else _line(text, item.start)
            for value in item.values or [None]:
                words.append(Word(item.spelling, item.spelling, line))
                if value is not None:
                    words.append(Word(value, value, line))
                lines.append(line)
        if not words:
            continue
        args, parsed = parse_args(snapshot, program, words, fragment=True)
        out += [f for f in parsed if f.code in ("value.type", "value.choice")]
        if kb is not None:
            facts = Facts(program, args, None, context.model, {}, written_only=True)
            own = {id(i.option) for i in items if i.program == program}
            for finding in rule_findings(facts, kb, snapshot.sglang_version, min(lines)):
                if _reads_written(kb.rules[finding.rule], snapshot.parser(program), own):
                    out.append(finding)
    return out


def _reads_written(rule: Rule, parser: Parser, own: set[int]) -> bool:
    """Whether the rule reads a flag the text itself writes (not only its owner's): a parameter's text that
    writes nothing is not made to answer for the parameter's own rules."""
    params = rule_params(rule)
    if params is None:
        return False
    for flag in params.flags():
        option = parser.get(flag)
        if option is not None and id(option) in own:
            return True
    return False


def check_text(
    text: str, snapshot: EngineSnapshot, kb: KB | None = None, context: Context = Context()
) -> list[Finding]:
    """Every finding about the flags and values a text writes (outside quotations of the source).

    Values are judged like a command's (type, choice); a deprecated flag or module must be said to be
    deprecated; rules are judged on what the text and its owner write together, alternatives one at a time.
    """
    text = without_quotes(text)
    items, findings = written(text, snapshot, context.program)
    owner_items, _ = (
        written(" ".join(context.owner), snapshot, context.program) if context.owner else ([], [])
    )
    for item in owner_items:
        item.start = -1
    findings += _deprecations(text, items, snapshot)
    findings += _owner_values(text, owner_items)
    # Alternatives (a / b) are separate settings: judge the first with the rest of the sentence, and each
    # further one on its own with the owner's words.
    firsts = [_first(i) for i in items]
    findings += _fragment_findings(firsts, owner_items, snapshot, kb, context, text)
    for item in items:
        for value in item.values[1:]:
            alone = _Written(item.start, item.spelling, item.program, item.option, [value])
            findings += _fragment_findings([alone], owner_items, snapshot, kb, context, text)
    unique: dict[tuple[str, str | None, str], Finding] = {}
    for finding in findings:
        unique.setdefault((finding.code, finding.subject, finding.message.en), finding)
    return sorted(unique.values(), key=lambda f: (f.line or 0, f.code))


_TOKEN = re.compile(r"(?<![\w./-])[a-z0-9]+(?:[_-][a-z0-9]+)+(?![\w/-])")


def _owner_values(text: str, owner: list[_Written]) -> list[Finding]:
    """In the texts of a parameter with choices, a bare word spelled like one of its values but not quite
    (``speed_bench`` for ``speed-bench``) is that value misspelt."""
    out = []
    for item in owner:
        option = item.option
        if option.choices is None:
            continue
        shown = [str(c) for c in option.choices]
        for match in _TOKEN.finditer(text):
            token = match.group(0)
            if token in shown:
                continue
            close = closest(token, shown, cutoff=0.85)
            if close is not None and close.replace("_", "-") == token.replace("_", "-"):
                out.append(
                    Finding(
                        "error",
                        "value.choice",
                        message(
                            "check-value-choice",
                            flag=option.name,
                            value=token,
                            choices=", ".join(shown),
                            hint=message("check-did-you-mean", name=close),
                        ),
                        _line(text, match.start()),
                        option.name,
                    )
                )
    return out


def _first(item: _Written) -> _Written:
    return _Written(item.start, item.spelling, item.program, item.option, item.values[:1])
