"""The engine's own argument parsing, replayed on the snapshot: what argparse (Python 3.11) does with argv.

The three parsers are plain ``argparse`` with ``allow_abbrev=True`` (the snapshot records it). So a flag is
an exact spelling, or a *unique* prefix of one spelling (accepted silently: fragile across releases), or
ambiguous (argparse exits with "ambiguous option"), or unknown ("unrecognized arguments"). In 3.11 every
spelling counts, so a prefix of two spellings of one option is ambiguous too. Values are converted with the
option's ``type`` and checked against its ``choices``, as argparse does.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from handbook.checker.findings import Bilingual, Finding
from handbook.checker.shell import Word
from handbook.engine.snapshot import EngineSnapshot, Option, Parser

UNKNOWN: Any = type("Unknown", (), {"__repr__": lambda self: "<unknown>"})()  # a placeholder's value
_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)")
_SI = {"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}
_IEC = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
JSON_TYPES = ("loads", "json_list_type", "parse_cuda_graph_config_arg")


class BadValue(ValueError):
    """A value the option's argparse ``type`` rejects; the message says what it expected."""

    def __init__(self, zh: str, en: str):
        super().__init__(en)
        self.message = Bilingual(zh, en)


def _human_readable_int(text: str) -> int:
    # sglang/srt/utils/common.py human_readable_int: SI (decimals allowed) and IEC suffixes, case-sensitive
    value = text.strip()
    match = _HUMAN_INT.fullmatch(value)
    if match:
        number, suffix = match.groups()
        if suffix in _IEC:
            if "." in number:
                si = "k" if suffix == "Ki" else suffix[0]  # the SI kilo is lower-case
                raise BadValue(
                    f"不带小数的 IEC 值（如 1{suffix}）或 SI 值（如 {number}{si}）",
                    f"an IEC value without decimals (1{suffix}) or an SI value ({number}{si})",
                )
            return int(number) * _IEC[suffix]
        return int(Decimal(number) * _SI[suffix])
    try:
        return int(value)
    except ValueError:
        raise BadValue(
            "整数，可带 SI 后缀（1k、1M）或 IEC 后缀（1Ki、1Mi）",
            "an integer, optionally with an SI (1k, 1M) or IEC (1Ki, 1Mi) suffix",
        ) from None


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise BadValue("有限的正数", "a finite number > 0")
    return value


def convert(option: Option, text: str) -> Any:
    """``text`` as the option's argparse ``type`` converts it; raises BadValue where argparse would fail."""
    kind = option.type
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise BadValue("整数", "an integer") from None
    if kind == "float":
        try:
            return float(text)
        except ValueError:
            raise BadValue("数字", "a number") from None
    if kind == "human_readable_int":
        return _human_readable_int(text)
    if kind in JSON_TYPES:
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise BadValue("合法的 JSON", "valid JSON") from None
        if kind == "parse_cuda_graph_config_arg" and not isinstance(value, dict):
            raise BadValue("JSON 对象", "a JSON object")
        return value
    if kind == "_finite_positive_float":
        return _positive_float(text)
    if kind == "_goodput_slo":
        name, sep, number = text.partition(":")
        if not sep or not name:
            raise BadValue("KEY:VALUE（VALUE 为毫秒）", "KEY:VALUE (VALUE in milliseconds)")
        return name, _positive_float(number)
    if kind == "parse_cuda_graph_backend_arg" and text == "tc_piecewise":
        raise BadValue(
            "breakable、full 或 disabled（tc_piecewise 已移除）",
            "breakable, full or disabled (tc_piecewise was removed)",
        )
    if kind == "nullable_str":
        return None if not text or text == "None" else text
    return text


def _shown(value: Any) -> str:
    if isinstance(value, dict) and set(value) == {"repr"}:
        return str(value["repr"])
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


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


def _matches(parser: Parser, token: str) -> list[str]:
    """Spellings ``token`` abbreviates, as Python 3.11's ``_get_option_tuples`` lists them."""
    prefix = token.split("=", 1)[0]
    if not parser.allow_abbrev or not prefix.startswith("--"):
        return []
    return [s for s in parser.all_spellings() if s.startswith(prefix)]


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
    snapshot: EngineSnapshot, program: str, words: list[Word], *, fragment: bool = False
) -> tuple[ParsedArgs, list[Finding]]:
    """Replay argparse on ``words``; every problem argparse would raise (or silently accept) is a finding."""
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
            spellings = _matches(parser, text)
            if len(spellings) > 1:
                shown = ", ".join(spellings[:8]) + (
                    f" … (+{len(spellings) - 8})" if len(spellings) > 8 else ""
                )
                findings.append(
                    Finding(
                        "error",
                        "flag.ambiguous",
                        Bilingual(
                            f"{name} 是多个参数的前缀（{shown}），"
                            "argparse 会以 ambiguous option 退出；请写出完整参数名",
                            f"{name} is a prefix of several options ({shown}); argparse exits with "
                            "'ambiguous option': spell the option out",
                        ),
                        word.line,
                        name,
                    )
                )
                i = _skip_values(parser, words, i)
                continue
            if len(spellings) == 1:
                option = parser.option(spellings[0])
                full = spellings[0]
                findings.append(
                    Finding(
                        "warning",
                        "flag.abbreviation",
                        Bilingual(
                            f"{name} 不是 {label} 的参数名，只是 {full} 的前缀缩写（argparse 前缀匹配）；"
                            f"今后新增以 {name} 开头的参数就会让它失效，请写 {full}",
                            f"{name} is not an option of {label}, only an abbreviation of {full} "
                            f"(argparse prefix matching); any new option starting with {name} breaks it: "
                            f"write {full}",
                        ),
                        word.line,
                        name,
                    )
                )
                spelling = name
            else:
                findings.append(_unknown(snapshot, parser, program, word, name, label))
                i = _skip_values(parser, words, i)
                continue
        i = _take_values(
            parsed, findings, parser, option, spelling, word, words, i, has_explicit, explicit, label
        )
    if not fragment:
        findings += _required(parsed, parser, label, words)
    return parsed, findings


def _unexpected(word: Word, label: str) -> Finding:
    return Finding(
        "error",
        "args.unexpected",
        Bilingual(
            f"{label} 不接受位置参数，{word.raw} 会被 argparse 报为 unrecognized arguments",
            f"{label} takes no positional arguments; argparse rejects {word.raw} as an unrecognized argument",
        ),
        word.line,
        word.text,
    )


def _unknown(
    snapshot: EngineSnapshot, parser: Parser, program: str, word: Word, name: str, label: str
) -> Finding:
    elsewhere = _other_programs(snapshot, parser, name)
    if elsewhere:
        where = " / ".join(PROGRAM_LABEL[p] for p in elsewhere)
        return Finding(
            "error",
            "flag.wrong-program",
            Bilingual(
                f"{name} 不是 {label} 的参数，而是 {where} 的参数",
                f"{name} is not an option of {label}; it belongs to {where}",
            ),
            word.line,
            name,
        )
    close = difflib.get_close_matches(name, parser.all_spellings(), n=1, cutoff=0.6)
    hint_zh = f"；最接近的是 {close[0]}" if close else ""
    hint_en = f"; the closest is {close[0]}" if close else ""
    return Finding(
        "error",
        "flag.unknown",
        Bilingual(
            f"{name} 不是 {label} 的参数（sglang {snapshot.sglang_version}）{hint_zh}",
            f"{name} is not an option of {label} (sglang {snapshot.sglang_version}){hint_en}",
        ),
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
) -> int:
    nargs = option.nargs
    values: list[Word] = []
    if nargs == 0:
        if has_explicit:
            findings.append(
                Finding(
                    "error",
                    "flag.takes-no-value",
                    Bilingual(
                        f"{spelling} 是开关，不带取值；argparse 会报 ignored explicit argument '{explicit}'",
                        f"{spelling} is a switch and takes no value; argparse fails with "
                        f"\"ignored explicit argument '{explicit}'\"",
                    ),
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
                    Bilingual(
                        f"{spelling} 是开关，不带取值；"
                        f"其后的 {stray.raw} 会被 argparse 报为 unrecognized arguments",
                        f"{spelling} is a switch and takes no value; argparse rejects the following "
                        f"{stray.raw} as an unrecognized argument",
                    ),
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
            expected = {
                None: ("一个取值", "one argument"),
                "+": ("至少一个取值", "at least one argument"),
            }.get(nargs, (f"{nargs} 个取值", f"{nargs} arguments"))
            findings.append(
                Finding(
                    "error",
                    "value.missing",
                    Bilingual(
                        f"{spelling} 需要{expected[0]}（argparse: expected {expected[1]}）",
                        f"{spelling} needs {expected[1]} (argparse: expected {expected[1]})",
                    ),
                    word.line,
                    spelling,
                )
            )
            return i
    converted: list[Any] = []
    for value_word in values:
        converted.append(_checked_value(findings, option, spelling, value_word))
    single = nargs in (None, "?")
    value = converted[0] if single and converted else (converted if converted else option.const)
    _record(parsed, findings, option, spelling, word, values, value)
    return i


def _checked_value(findings: list[Finding], option: Option, spelling: str, word: Word) -> Any:
    if word.placeholder:
        return UNKNOWN
    try:
        value = convert(option, word.text)
    except BadValue as exc:
        findings.append(
            Finding(
                "error",
                "value.type",
                Bilingual(
                    f"{spelling} 的取值 {word.raw} 不合法：应为{exc.message.zh}",
                    f"{spelling} got {word.raw}, expected {exc.message.en}",
                ),
                word.line,
                spelling,
            )
        )
        return UNKNOWN
    if option.choices is not None and value not in option.choices:
        choices = [_shown(c) for c in option.choices]
        close = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.6)
        hint_zh = f"；是不是 {close[0]}？" if close else ""
        hint_en = f"; did you mean {close[0]}?" if close else ""
        listed = ", ".join(choices)
        findings.append(
            Finding(
                "error",
                "value.choice",
                Bilingual(
                    f"{spelling} 不接受 {word.raw}（可选：{listed}）{hint_zh}",
                    f"{spelling} does not accept {word.raw} (choices: {listed}){hint_en}",
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
                Bilingual(
                    f"{option.name} 出现了两次（第 {previous.word.line} 行的 {previous.spelling} 与此处）；"
                    "argparse 只保留最后一次的取值",
                    f"{option.name} is given twice ({previous.spelling} on line {previous.word.line}, "
                    "and here); argparse keeps only the last value",
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
                    Bilingual(
                        f"缺少必填参数 {option.name}（argparse: the following arguments are required）",
                        f"{option.name} is required (argparse: the following arguments are required)",
                    ),
                    line,
                    option.name,
                )
            )
    return out
