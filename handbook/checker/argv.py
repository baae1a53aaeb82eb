"""The engine's own argument parsing, replayed on the snapshot: what argparse (Python 3.11) does with argv.

The three parsers are plain ``argparse`` with ``allow_abbrev=True`` (the snapshot records it). So a flag is
an exact spelling, or a *unique* prefix of one spelling (accepted silently: fragile across releases), or
ambiguous (argparse exits with "ambiguous option"), or unknown ("unrecognized arguments"). In 3.11 every
spelling counts, so a prefix of two spellings of one option is ambiguous too. Values are converted with the
option's ``type`` and checked against its ``choices``, as argparse does.
"""

from __future__ import annotations

import bisect
import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from handbook.checker.abbreviations import stable_abbreviation, stored_span
from handbook.checker.findings import Finding
from handbook.checker.shell import Word
from handbook.core.formatting import integer_text, parser_value
from handbook.core.messages import message
from handbook.core.suggest import Suggestions
from handbook.core.text import Text
from handbook.engine.snapshot import EngineSnapshot, Option, Parser

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "<unknown>"})()  # a placeholder's value
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
# human_readable_int's suffixes (sglang/srt/utils/common.py): SI as powers of ten, IEC as powers of two
SI_POWERS = {"k": 3, "M": 6, "G": 9, "T": 12}
IEC_POWERS = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40}
JSON_TYPES = ("loads", "json_list_type", "parse_cuda_graph_config_arg")
# The SLO keys --goodput accepts: sglang 0.5.23's GOODPUT_SLO_METRICS (sglang/benchmark/goodput.py:12), which
# the benchmark's _goodput_slo (sglang/benchmark/serving.py:2251) checks before the number.
GOODPUT_SLO_METRICS = ("ttft", "tpot", "e2el")
# The retired --cuda-graph-backend that parse_cuda_graph_backend_arg refuses before argparse checks the
# choices (sglang/srt/model_executor/cuda_graph_config.py:237-243)
RETIRED_CUDA_GRAPH_BACKEND = "tc_piecewise"


class BadValue(ValueError):
    """A value the option's argparse ``type`` rejects; ``expected`` says what it expected."""

    def __init__(self, expected: Text):
        super().__init__(expected.en)
        self.expected = expected


def _human_readable_int(text: str) -> int:
    # sglang/srt/utils/common.py human_readable_int: SI (decimals allowed) and IEC suffixes, case-sensitive
    value = text.strip()
    match = _HUMAN_INT.fullmatch(value)
    if match:
        number, suffix = match.groups()
        if suffix in IEC_POWERS:
            if "." in number:
                si = "k" if suffix == "Ki" else suffix[0]  # the SI kilo is lower-case
                raise BadValue(message("check-expect-iec-without-decimals", iec=suffix, number=number, si=si))
            try:
                return int(number) * 2 ** IEC_POWERS[suffix]
            except ValueError:  # more than 4,300 digits: int() refuses them, as in the engine
                raise BadValue(message("check-expect-human-int")) from None
        return int(Decimal(number) * 10 ** SI_POWERS[suffix])
    try:
        return int(value)
    except ValueError:
        raise BadValue(message("check-expect-human-int")) from None


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise BadValue(message("check-expect-positive"))
    return value


def convert(option: Option, text: str) -> Any:
    """``text`` as the option's argparse ``type`` converts it; raises BadValue where argparse would fail."""
    kind = option.type
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise BadValue(message("check-expect-integer")) from None
    if kind == "float":
        try:
            return float(text)
        except ValueError:
            raise BadValue(message("check-expect-number")) from None
    if kind == "human_readable_int":
        return _human_readable_int(text)
    if kind in JSON_TYPES:
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):  # not JSON, or an integer of more than 4,300 digits
            raise BadValue(message("check-expect-json")) from None
        if kind == "parse_cuda_graph_config_arg" and not isinstance(value, dict):
            raise BadValue(message("check-expect-json-object"))
        return value
    if kind == "_finite_positive_float":
        return _positive_float(text)
    if kind == "_goodput_slo":
        name, _, number = text.partition(":")
        if name not in GOODPUT_SLO_METRICS:
            raise BadValue(message("check-expect-goodput-slo", keys=", ".join(GOODPUT_SLO_METRICS)))
        return name, _positive_float(number)  # "ttft" alone: the engine rejects the empty number
    if kind == "parse_cuda_graph_backend_arg" and text == RETIRED_CUDA_GRAPH_BACKEND:
        raise BadValue(message("check-expect-cuda-graph-backend"))
    if kind == "nullable_str":
        return None if not text or text == "None" else text
    return text


@dataclass
class Given:
    """One option as written on the command line."""

    option: Option
    spelling: str  # what was typed before any "=", e.g. "--tp"
    word: Word
    values: list[Word]
    value: Any  # converted; UNKNOWN where a placeholder hides it


@dataclass
class ParsedArgs:
    """The outcome of parsing: each option given (the last one wins, as in argparse), in order."""

    parser: Parser
    given: dict[str, Given] = field(default_factory=dict)  # by dest
    order: list[Given] = field(default_factory=list)
    hidden: list[Word] = field(default_factory=list)  # placeholder words that may hold more options

    def is_set(self, dest: str) -> bool:
        return dest in self.given

    def value(self, dest: str) -> Any:
        """The value argparse would store: the given one, else the parser default (JSON from the snapshot)."""
        if dest in self.given:
            return self.given[dest].value
        options = self.parser.by_dest(dest)
        if not options:
            raise KeyError(f"{self.parser.prog} has no option with dest {dest!r}")
        return options[0].default


def spellings_abbreviated_by(parser: Parser, token: str) -> list[str]:
    """Every spelling ``token`` (before any "=") is a prefix of, in parser order, as Python 3.11's
    ``_get_option_tuples`` lists them; none when the parser does not allow abbreviations or ``token`` is not
    a long option. Found by bisection in the sorted spellings, and remembered: a command of thousands of
    flags costs thousands of lookups, not thousands of passes over the parser."""
    prefix = token.split("=", 1)[0]
    if not parser.allow_abbrev or not prefix.startswith("--"):
        return []
    index = _abbreviations(parser)
    if prefix in index.found:
        return list(index.found[prefix])
    low = bisect.bisect_left(index.spellings, prefix)
    high = bisect.bisect_left(index.spellings, prefix + "\U0010ffff", low)
    found = [index.spellings[k] for k in sorted(range(low, high), key=lambda k: index.order[k])]
    if found:  # every prefix with a match is one of the spellings' few prefixes: the memo stays small
        index.found[prefix] = tuple(found)
    return found


@dataclass
class _Abbreviations:
    spellings: list[str]  # sorted
    order: list[int]  # each one's place in the parser
    found: dict[str, tuple[str, ...]] = field(default_factory=dict)


_ABBREVIATIONS: dict[int, tuple[Parser, _Abbreviations]] = {}


def _abbreviations(parser: Parser) -> _Abbreviations:
    held = _ABBREVIATIONS.get(id(parser))
    if held is None or held[0] is not parser:
        every = parser.all_spellings()
        ranked = sorted(range(len(every)), key=lambda k: every[k])
        held = (parser, _Abbreviations([every[k] for k in ranked], ranked))
        _ABBREVIATIONS[id(parser)] = held
    return held[1]


def _other_programs(snapshot: EngineSnapshot, parser: Parser, name: str) -> list[str]:
    return [pname for pname, p in snapshot.parsers.items() if p is not parser and p.get(name) is not None]


PROGRAM_LABEL = {
    "launch_server": "python -m sglang.launch_server",
    "launch_router": "python -m sglang_router.launch_router",
    "bench_serving": "python -m sglang.benchmark.serving",
}


def _looks_like_option(parser: Parser, text: str) -> bool:
    """Would argparse read ``text`` as an option string (so it cannot be a value)?"""
    if not text or text[0] not in parser.prefix_chars or len(text) == 1:
        return False
    if text in parser or text.split("=", 1)[0] in parser:
        return True
    if _NEGATIVE_NUMBER.match(text):
        return False
    return " " not in text


def parse_args(
    snapshot: EngineSnapshot,
    program: str,
    words: list[Word],
    *,
    fragment: bool = False,
    suggest: Suggestions | None = None,
) -> tuple[ParsedArgs, list[Finding]]:
    """Replay argparse on ``words``; every problem argparse would raise (or silently accept) is a finding.
    ``suggest``: the check's "did you mean" (one check's budget, shared by its commands)."""
    suggest = suggest or Suggestions()
    parser = snapshot.parser(program)
    parsed = ParsedArgs(parser)
    findings: list[Finding] = []
    label = PROGRAM_LABEL[program]
    i = 0
    while i < len(words):
        word = words[i]
        text = word.text
        i += 1
        if text == "--":
            for stray in words[i:]:
                findings.append(_unexpected(stray, label))
            break
        if not _looks_like_option(parser, text):
            if word.placeholder:
                parsed.hidden.append(word)  # $EXTRA_ARGS and the like: what it holds is unknown here
            else:
                findings.append(_unexpected(word, label))
            continue
        name, has_explicit, explicit = text.partition("=")
        option = parser.get(name)
        spelling = name
        if option is None:
            spellings = spellings_abbreviated_by(parser, text)
            if len(spellings) > 1:
                shown = ", ".join(spellings[:8]) + (
                    f" … (+{len(spellings) - 8})" if len(spellings) > 8 else ""
                )
                findings.append(
                    Finding(
                        "error",
                        "flag.ambiguous",
                        message("check-flag-ambiguous", flag=name, spellings=shown),
                        word.line,
                        name,
                    )
                )
                i = _skip_values(parser, words, i)
                continue
            if len(spellings) == 1:
                option = parser.option(spellings[0])
                findings.append(_abbreviation(program, name, spellings[0], label, word))
                spelling = name
            else:
                findings.append(_unknown(snapshot, parser, program, word, name, label, suggest))
                i = _skip_values(parser, words, i)
                continue
        i = _take_values(
            parsed, findings, parser, option, spelling, word, words, i, has_explicit, explicit, label, suggest
        )
    if not fragment:
        findings += _required(parsed, parser, label, words)
    return parsed, findings


def _abbreviation(program: str, name: str, full: str, label: str, word: Word) -> Finding:
    """A unique prefix: a note when it has matched the same option in every stored release, else a warning
    (abbreviations.py); either way the edit writes the full flag."""
    edits = (("rename", name, full),)
    if stable_abbreviation(program, name) == full:
        count, releases = stored_span()
        said = message("check-flag-abbreviation-stable", flag=name, full=full, count=count, releases=releases)
        return Finding("note", "flag.abbreviation", said, word.line, name, edits=edits)
    said = message("check-flag-abbreviation", flag=name, program=label, full=full)
    return Finding("warning", "flag.abbreviation", said, word.line, name, edits=edits)


def _unexpected(word: Word, label: str) -> Finding:
    return Finding(
        "error",
        "args.unexpected",
        message("check-args-unexpected", program=label, word=word.raw),
        word.line,
        word.text,
    )


def _unknown(
    snapshot: EngineSnapshot,
    parser: Parser,
    program: str,
    word: Word,
    name: str,
    label: str,
    suggest: Suggestions,
) -> Finding:
    elsewhere = _other_programs(snapshot, parser, name)
    if elsewhere:
        where = " / ".join(PROGRAM_LABEL[p] for p in elsewhere)
        return Finding(
            "error",
            "flag.wrong-program",
            message("check-flag-wrong-program", flag=name, program=label, owners=where),
            word.line,
            name,
        )
    close = suggest.closest(name, f"flag:{program}", parser.all_spellings())
    hint = message("check-closest", name=close) if close else ""
    return Finding(
        "error",
        "flag.unknown",
        message("check-flag-unknown", flag=name, program=label, version=snapshot.sglang_version, hint=hint),
        word.line,
        name,
    )


def _skip_values(parser: Parser, words: list[Word], i: int) -> int:
    """After an unknown option, its values are not judged again as positionals."""
    while (
        i < len(words)
        and not _looks_like_option(parser, words[i].text)
        and not words[i].text.startswith("--")
    ):
        i += 1
    return i


# What value.missing says a flag needs, by its nargs (any other number: "check-count-n")
_COUNT = {None: "check-count-one", "+": "check-count-at-least-one"}


def _take_values(
    parsed: ParsedArgs,
    findings: list[Finding],
    parser: Parser,
    option: Option,
    spelling: str,
    word: Word,
    words: list[Word],
    i: int,
    has_explicit: str,
    explicit: str,
    label: str,
    suggest: Suggestions,
) -> int:
    nargs = option.nargs
    values: list[Word] = []
    if nargs == 0:
        if has_explicit:
            findings.append(
                Finding(
                    "error",
                    "flag.takes-no-value",
                    message("check-switch-given-value", flag=spelling, value=explicit),
                    word.line,
                    spelling,
                )
            )
        elif (
            i < len(words)
            and not _looks_like_option(parser, words[i].text)
            and not words[i].text.startswith("--")
        ):
            stray = words[i]
            findings.append(
                Finding(
                    "error",
                    "flag.takes-no-value",
                    message("check-switch-followed-by-value", flag=spelling, value=stray.raw),
                    stray.line,
                    spelling,
                )
            )
            i += 1
        value: Any = (
            option.const if option.action != "BooleanOptionalAction" else not spelling.startswith("--no-")
        )
        if option.action == "store_false":
            value = False
        _record(parsed, findings, option, spelling, word, [], value)
        return i
    if has_explicit:
        values = [Word(explicit, explicit, word.line, word.placeholder)]
    else:
        want_min = {None: 1, "?": 0, "*": 0, "+": 1}.get(nargs, nargs if isinstance(nargs, int) else 1)
        want_max = {None: 1, "?": 1}.get(nargs, nargs if isinstance(nargs, int) else None)
        while i < len(words) and (want_max is None or len(values) < want_max):
            candidate = words[i]
            if _looks_like_option(parser, candidate.text) or (
                candidate.text.startswith("--") and " " not in candidate.text
            ):
                break
            values.append(candidate)
            i += 1
        if len(values) < want_min:
            count = message(_COUNT.get(nargs, "check-count-n"), n=nargs)
            findings.append(
                Finding(
                    "error",
                    "value.missing",
                    message("check-value-missing", flag=spelling, count=count, argparse=count.en),
                    word.line,
                    spelling,
                )
            )
            return i
    converted: list[Any] = []
    for value_word in values:
        converted.append(_checked_value(findings, option, spelling, value_word, suggest, label))
    single = nargs in (None, "?")
    value = converted[0] if single and converted else (converted if converted else option.const)
    _record(parsed, findings, option, spelling, word, values, value)
    return i


def _checked_value(
    findings: list[Finding], option: Option, spelling: str, word: Word, suggest: Suggestions, label: str
) -> Any:
    if word.placeholder:
        return UNKNOWN
    try:
        value = convert(option, word.text)
    except BadValue as exc:
        findings.append(
            Finding(
                "error",
                "value.type",
                message("check-value-type", flag=spelling, value=word.raw, expected=exc.expected),
                word.line,
                spelling,
            )
        )
        return UNKNOWN
    if option.choices is not None and value not in option.choices:
        choices = [parser_value(c) for c in option.choices]
        shown = integer_text(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)
        close = suggest.closest(shown, f"choice:{label}:{option.name}", choices)
        hint = message("check-did-you-mean", name=close) if close else ""
        findings.append(
            Finding(
                "error",
                "value.choice",
                message(
                    "check-value-choice", flag=spelling, value=word.raw, choices=", ".join(choices), hint=hint
                ),
                word.line,
                spelling,
            )
        )
        return UNKNOWN
    return value


def _record(
    parsed: ParsedArgs,
    findings: list[Finding],
    option: Option,
    spelling: str,
    word: Word,
    values: list[Word],
    value: Any,
) -> None:
    previous = parsed.given.get(option.dest)
    if previous is not None and previous.option is option and option.action != "append":
        findings.append(
            Finding(
                "warning",
                "flag.repeated",
                message(
                    "check-flag-repeated",
                    flag=option.name,
                    previous=previous.spelling,
                    line=previous.word.line,
                ),
                word.line,
                spelling,
            )
        )
    given = Given(option, spelling, word, values, value)
    parsed.given[option.dest] = given
    parsed.order.append(given)


def _required(parsed: ParsedArgs, parser: Parser, label: str, words: list[Word]) -> list[Finding]:
    # --config merges a YAML file of options and --help exits first: nothing is known to be missing then
    if parsed.is_set("config") or parsed.is_set("help"):
        return []
    line = words[0].line if words else None
    out = []
    for option in parser.options:
        if option.required and not parsed.is_set(option.dest):
            out.append(
                Finding(
                    "error",
                    "args.required",
                    message("check-args-required", flag=option.name),
                    line,
                    option.name,
                )
            )
    return out
