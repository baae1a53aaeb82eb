"""YAML loading that keeps line numbers, rejects duplicate keys and never raises for bad input.

PyYAML's composer gives every node a start mark; we build plain Python data from the node tree and,
beside it, a map from each value's path (``("flags", 3, 1)``) to its 1-based line, so that every later
error can say ``file:line``. A well-formed file is read by libyaml in one pass and its line map is only
built when a message needs a line.

Plain values are read as YAML 1.2's core schema, strictly, not as PyYAML's YAML 1.1: a value the two
versions read differently is refused with its line (``032`` is 26 in YAML 1.1 and 32 in 1.2, ``off`` is
false in 1.1 and text in 1.2; ``0x20``, ``0o17``, ``1_000`` and ``1:30`` too), as are directives
(``%YAML``, ``%TAG``). ``YYYY-MM-DD`` stays a date (the KB's one extension). And no string of a KB file,
key or value, may hold a character a reader cannot see (core/text.INVISIBLE, or a carriage return).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from handbook.core.problem import Problem
from handbook.core.text import INVISIBLE, code_point, invisible_kind, visible

Path_ = tuple[str | int, ...]


@dataclass(kw_only=True)
class YamlDoc:
    """A parsed YAML file: its data and the line of every value in it."""

    file: str  # as shown to people: relative to the repository root
    data: Any
    _lines: dict[Path_, int] | None = None
    text: str = ""  # the source, to locate values on demand

    @property
    def lines(self) -> dict[Path_, int]:
        if self._lines is None:
            builder = _Builder(self.file)
            builder.build(_compose(self.text)[0], ())
            self._lines = builder.lines
        return self._lines

    def line_of(self, path: Path_) -> int:
        """Line of ``path``, or of its closest located ancestor (a missing key points at its parent)."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 1)


def format_path(path: Path_) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


# ------------------------------------------------------------------------------------ YAML 1.2, strictly
YAML11 = "tag:handbook,2026:yaml-1.1"  # a plain value YAML 1.1 and YAML 1.2 read differently


class _Core12(yaml.resolver.BaseResolver):
    """How a plain scalar is typed: YAML 1.2's core schema (booleans true/false, decimal integers, floats,
    null), dates as YYYY-MM-DD, and every YAML 1.1 form that 1.2 reads otherwise marked YAML11."""


def _implicit(tag: str, pattern: str, first: str | list[str]) -> None:
    _Core12.add_implicit_resolver(tag, re.compile(pattern, re.X), list(first))


# First the forms YAML 1.1 reads otherwise: resolvers sharing a first character are tried in order.
_YAML11_FORMS: tuple[tuple[str, str], ...] = (
    ("a YAML 1.1 boolean, which YAML 1.2 reads as text",
     r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$"),
    ("a number with a leading zero, octal in YAML 1.1 and decimal in YAML 1.2", r"^[-+]?0[0-9_]+$"),
    ("a hexadecimal number", r"^[-+]?0x[0-9a-fA-F_]*$"),
    ("an octal number", r"^[-+]?0o[0-7_]*$"),
    ("a binary number", r"^[-+]?0b[01_]*$"),
    ("a base-60 number, which YAML 1.1 reads as a number and YAML 1.2 as text",
     r"^[-+]?(?:[1-9][0-9_]*(?::[0-5]?[0-9])+|[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*)$"),
    ("a number with underscores, which YAML 1.1 reads as a number and YAML 1.2 as text",
     r"^[-+]?(?:[0-9][0-9_]*_[0-9_]*(?:\.[0-9_]*)?|[0-9]*\.[0-9_]*_[0-9_]*)(?:[eE][-+]?[0-9]+)?$"),
)  # fmt: skip
for _what, _pattern in _YAML11_FORMS:
    _implicit(YAML11, _pattern, "yYnNoO-+0123456789.")
_implicit("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF")
_implicit("tag:yaml.org,2002:int", r"^[-+]?[0-9]+$", "-+0123456789")
_implicit(
    "tag:yaml.org,2002:float",
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
    "-+0123456789.",
)
_implicit("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""])
_implicit("tag:yaml.org,2002:merge", r"^<<$", "<")  # refused with its own message
_implicit(
    "tag:yaml.org,2002:timestamp",
    r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?
    (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
    "0123456789",
)


def yaml11_form(value: str) -> str | None:
    """What a plain value is, when YAML 1.1 reads it otherwise than YAML 1.2 (None when they agree)."""
    return next((what for what, pattern in _YAML11_FORMS if re.match(pattern, value, re.X)), None)


def _yaml11_problem(file: str, node: yaml.Node, path: Path_) -> Problem:
    return Problem(
        file,
        node.start_mark.line + 1,
        format_path(path),
        f"got '{node.value}', {yaml11_form(node.value)}; expected a value YAML 1.1 and 1.2 read alike "
        "(a plain decimal number, true or false, or text in quotes)",
    )


class _StrictLoader(
    yaml.reader.Reader,
    yaml.scanner.Scanner,
    yaml.parser.Parser,
    yaml.composer.Composer,
    yaml.constructor.SafeConstructor,
    _Core12,
):
    """PyYAML's pure-Python safe loader, with YAML 1.2's core schema (its messages are the ones reported)."""

    def __init__(self, stream: str):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        _Core12.__init__(self)


_CStrictLoader: type | None = None
# libyaml's parser is yaml.cyaml.CParser (the yaml package does not re-export it); None without libyaml
_CParser: type | None = getattr(getattr(yaml, "cyaml", None), "CParser", None)
if _CParser is not None:

    class _CStrict(_CParser, yaml.constructor.SafeConstructor, _Core12):  # type: ignore[misc,valid-type]
        """libyaml's parser, with YAML 1.2's core schema."""

        def __init__(self, stream: str):
            _CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            _Core12.__init__(self)

    _CStrictLoader = _CStrict


class _StrictDumper(
    yaml.emitter.Emitter, yaml.serializer.Serializer, yaml.representer.SafeRepresenter, _Core12
):
    """PyYAML's safe dumper, deciding what to quote by YAML 1.2's core schema: text this module would read
    as anything but that text (``N``, ``1e3``, ``0x10``) is quoted."""

    def __init__(self, stream: Any, **options: Any):
        yaml.emitter.Emitter.__init__(
            self,
            stream,
            canonical=options.get("canonical"),
            indent=options.get("indent"),
            width=options.get("width"),
            allow_unicode=options.get("allow_unicode"),
            line_break=options.get("line_break"),
        )
        yaml.serializer.Serializer.__init__(
            self,
            encoding=options.get("encoding"),
            explicit_start=options.get("explicit_start"),
            explicit_end=options.get("explicit_end"),
            version=options.get("version"),
            tags=options.get("tags"),
        )
        yaml.representer.SafeRepresenter.__init__(
            self,
            default_style=options.get("default_style"),
            default_flow_style=options.get("default_flow_style"),
            sort_keys=options.get("sort_keys", True),
        )
        _Core12.__init__(self)


def dump_yaml(data: Any, **options: Any) -> str:
    """``yaml.safe_dump(data, **options)`` as the KB's reader reads it back: the same data."""
    return yaml.dump(data, Dumper=_StrictDumper, allow_unicode=True, **options)


class _Builder:
    def __init__(self, file: str):
        self.file = file
        self.lines: dict[Path_, int] = {}
        self.problems: list[Problem] = []
        self._scalars = _StrictLoader("")  # only its constructor is used, to build typed scalars

    def build(self, node: yaml.Node, path: Path_) -> Any:
        self.lines[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            out: dict[Any, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    self.problems.append(
                        Problem(
                            self.file,
                            key_node.start_mark.line + 1,
                            format_path(path),
                            "got a YAML merge key '<<', expected plain keys (write the values out)",
                        )
                    )
                    continue
                if key_node.tag == YAML11:  # a key such as `yes:` or `on:`
                    self.problems.append(_yaml11_problem(self.file, key_node, path))
                    continue
                key = self.build(key_node, path + ("<key>",))
                if not isinstance(key, str | int | float | bool) or key is None:
                    self.problems.append(
                        Problem(
                            self.file,
                            key_node.start_mark.line + 1,
                            format_path(path),
                            f"got a key of type {type(key).__name__}, expected a text key",
                        )
                    )
                    continue
                key = str(key) if not isinstance(key, str) else key
                if key in out:
                    self.problems.append(
                        Problem(
                            self.file,
                            key_node.start_mark.line + 1,
                            format_path(path + (key,)),
                            f"got key '{key}' twice (first on line {self.lines[path + (key,)]}), "
                            "expected each key once",
                        )
                    )
                    continue
                out[key] = self.build(value_node, path + (key,))
                # the key's line is where a reader looks for the value
                self.lines[path + (key,)] = key_node.start_mark.line + 1
            self.lines.pop(path + ("<key>",), None)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, path + (i,)) for i, item in enumerate(node.value)]
        # Scalars: the composer typed them (int, float, bool, null, str, date, or YAML11 to refuse)
        if node.tag == YAML11:
            self.problems.append(_yaml11_problem(self.file, node, path))
            return None
        try:
            return self._scalars.construct_object(node, deep=True)
        except ValueError:  # a value shaped like a date that no calendar has (2026-02-30)
            self.problems.append(
                Problem(
                    self.file,
                    node.start_mark.line + 1,
                    format_path(path),
                    f"got '{node.value}', expected a real calendar date (YYYY-MM-DD)",
                )
            )
            return None


def _compose(text: str) -> list[yaml.Node]:
    """Node trees of every document: libyaml's parser when present (several times faster); on an error,
    the pure-Python parser again, whose messages the errors report (and the tests pin)."""
    if _CStrictLoader is not None:
        try:
            return list(yaml.compose_all(text, Loader=_CStrictLoader))
        except yaml.YAMLError:
            pass
    return list(yaml.compose_all(text, Loader=_StrictLoader))


class _Fallback(Exception):
    """The fast reader met something only the careful one reports well (a duplicate or merge key…)."""


_FAST_LOADER: type | None = None
if _CStrictLoader is not None:

    class _FastLoader(_CStrictLoader):  # type: ignore[misc,valid-type]
        """libyaml, but a duplicate key, a merge key, a non-text key or a YAML 1.1 form sends the file to
        the careful path."""

        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise _Fallback
                key = self.construct_object(key_node, deep=deep)
                if not isinstance(key, str | int | float | bool) or key is None:
                    raise _Fallback
                key = key if isinstance(key, str) else str(key)
                if key in out:
                    raise _Fallback
                out[key] = self.construct_object(value_node, deep=deep)
            return out

    def _refer(loader: Any, node: yaml.Node) -> Any:
        raise _Fallback

    _FastLoader.add_constructor(
        "tag:yaml.org,2002:map", lambda loader, node: loader.construct_mapping(node, True)
    )
    _FastLoader.add_constructor(YAML11, _refer)
    _FAST_LOADER = _FastLoader


def _fast_load(text: str) -> tuple[bool, Any]:
    """(True, data) when libyaml reads the file as exactly one clean document; else (False, None)."""
    if _FAST_LOADER is None:
        return False, None
    try:
        documents = list(yaml.load_all(text, Loader=_FAST_LOADER))
    except (yaml.YAMLError, _Fallback, ValueError):  # ValueError: an impossible date (2026-02-30)
        return False, None
    return (True, documents[0]) if len(documents) == 1 else (False, None)


# Limits no KB file comes near (the largest is ~50 KB, nested ~8 deep): past them a file is refused before it
# is parsed, so a hostile file cannot exhaust memory, time or the stack.
MAX_BYTES = 512 * 1024
MAX_DEPTH = 32


def read_text(path: Path, shown_as: str) -> tuple[str | None, list[Problem]]:
    """A KB file's text: a regular file (not a link, a folder, a device or a FIFO) of at most MAX_BYTES of
    UTF-8. Nothing of a refused file's content is echoed."""
    text, refusal = _read(path)
    return text, [] if refusal is None else [Problem(shown_as, 1, "", refusal)]


def _read(path: Path) -> tuple[str | None, str | None]:
    """(text, None), or (None, why the file is refused)."""
    unreadable = "got a file that cannot be read ({}), expected a readable YAML file"
    try:
        info = path.lstat()
    except OSError as exc:
        return None, unreadable.format(exc.strerror)
    if stat.S_ISLNK(info.st_mode):
        return None, "got a symbolic link, expected a regular file (KB files are not links)"
    if stat.S_ISDIR(info.st_mode):
        return None, "got a folder, expected a YAML file"
    if not stat.S_ISREG(info.st_mode):
        return None, "got a special file (a device, FIFO or socket), expected a regular file"
    if info.st_size > MAX_BYTES:
        return None, f"got a file of {info.st_size:,} bytes, expected at most {MAX_BYTES:,}"
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        with os.fdopen(os.open(path, flags), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped since the lstat
                return None, "got a special file, expected a regular file"
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, unreadable.format(exc.strerror)
    if len(data) > MAX_BYTES:
        return None, f"got a file of more than {MAX_BYTES:,} bytes, expected at most {MAX_BYTES:,}"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return None, f"got bytes that are not UTF-8 ({exc.reason}), expected UTF-8 text"


def _screen(text: str, shown_as: str) -> list[Problem]:
    """What plain data never needs, refused from the event stream before anything is built: anchors and
    aliases (which can multiply a small file into gigabytes), explicit tags (``!!python/…``, ``!custom``)
    and nesting deeper than MAX_DEPTH. A syntax error is left to the parser's own report."""
    depth = 0
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for event in yaml.parse(text, Loader=loader):
            line = event.start_mark.line + 1
            if isinstance(event, yaml.AliasEvent):
                return [
                    Problem(
                        shown_as,
                        line,
                        "",
                        f"got a YAML alias '*{event.anchor}', expected plain values (write them out)",
                    )
                ]
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                return [
                    Problem(
                        shown_as,
                        line,
                        "",
                        f"got a YAML anchor '&{anchor}', expected plain values (write them out)",
                    )
                ]
            if isinstance(event, yaml.DocumentStartEvent) and (event.version or event.tags):
                return [
                    Problem(
                        shown_as,
                        line,
                        "",
                        "got a YAML directive (%YAML or %TAG), expected none: KB files are read as YAML "
                        "1.2's core schema, without tags",
                    )
                ]
            tag = getattr(event, "tag", None)
            if tag is not None and not isinstance(event, yaml.DocumentStartEvent):
                return [
                    Problem(
                        shown_as,
                        line,
                        "",
                        f"got the explicit YAML tag '{tag}', expected plain values without tags",
                    )
                ]
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    return [
                        Problem(
                            shown_as,
                            line,
                            "",
                            f"got values nested more than {MAX_DEPTH} deep, expected a flatter file",
                        )
                    ]
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return []
    return []


def load_yaml(path: Path, shown_as: str) -> tuple[YamlDoc | None, list[Problem]]:
    """Parse one YAML file. Returns the document, or None with problems; never raises on bad content."""
    text, problems = read_text(path, shown_as)
    if text is None:
        return None, problems
    return load_text(text, shown_as)


def load_text(text: str, shown_as: str) -> tuple[YamlDoc | None, list[Problem]]:
    """Parse the text of one YAML file, as ``load_yaml`` does."""
    doc, problems = _parsed(text.removeprefix("\ufeff"), shown_as)
    if doc is None:
        return None, problems
    hidden = _invisible(doc)
    return (None, hidden) if hidden else (doc, [])


def _parsed(text: str, shown_as: str) -> tuple[YamlDoc | None, list[Problem]]:
    if not text.strip() or all(
        not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()
    ):
        return None, [Problem(shown_as, 1, "", "got an empty file, expected a YAML mapping")]
    screened = _screen(text, shown_as)
    if screened:
        return None, screened
    clean, data = _fast_load(text)
    if clean:
        return YamlDoc(file=shown_as, data=data, text=text), []
    try:
        nodes = _compose(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        what = exc.problem or "a syntax error"
        if exc.context and exc.context_mark and exc.context_mark.line + 1 != line:
            what = f"{exc.context} that starts on line {exc.context_mark.line + 1}: {what}"
        elif exc.context:
            what = f"{exc.context}: {what}"
        return None, [Problem(shown_as, line, "", f"got invalid YAML ({what}), expected well-formed YAML")]
    except yaml.reader.ReaderError as exc:  # a control character or an unpaired surrogate
        line = text.count("\n", 0, max(exc.position, 0)) + 1
        what = f"#x{exc.character:04x}" if isinstance(exc.character, int) else repr(exc.character)
        message = f"got a character YAML does not allow ({what}: {exc.reason}), expected plain text"
        return None, [Problem(shown_as, line, "", message)]
    except yaml.YAMLError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, [Problem(shown_as, 1, "", f"got invalid YAML ({first}), expected well-formed YAML")]
    if len(nodes) != 1:
        line = nodes[1].start_mark.line + 1 if len(nodes) > 1 else 1
        return None, [Problem(shown_as, line, "", f"got {len(nodes)} YAML documents, expected exactly one")]
    builder = _Builder(shown_as)
    try:
        data = builder.build(nodes[0], ())
    except yaml.YAMLError as exc:  # e.g. a malformed timestamp scalar
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        return None, [Problem(shown_as, line, "", f"got an unreadable value ({exc}), expected a plain value")]
    if builder.problems:
        return None, builder.problems
    return YamlDoc(file=shown_as, data=data, _lines=builder.lines, text=text), []


def _invisible(doc: YamlDoc) -> list[Problem]:
    """Every key and string of the file that holds a character no reader sees (a bidirectional control, a
    zero-width character, a terminal escape, a carriage return): KB text reaches commands people copy."""
    problems = []
    stack: list[tuple[Path_, Any]] = [((), doc.data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if _HIDDEN.search(key):
                    problems.append(_hidden_problem(doc, path, key, "key"))
                    continue
                stack.append((path + (key,), item))
        elif isinstance(value, list):
            stack.extend((path + (i,), item) for i, item in enumerate(value))
        elif isinstance(value, str) and _HIDDEN.search(value):
            problems.append(_hidden_problem(doc, path, value, "value"))
    return sorted(problems, key=lambda p: (p.line or 0, p.path))


_HIDDEN = re.compile(INVISIBLE.pattern[:-1] + "\r]")
_WHAT = {
    "control": "a control character",
    "bidi": "a bidirectional control",
    "format": "an invisible character",
}


def _hidden_problem(doc: YamlDoc, path: Path_, text: str, where: str) -> Problem:
    found = _HIDDEN.search(text)
    assert found is not None
    char = found.group(0)
    what = "a carriage return" if char == "\r" else _WHAT[invisible_kind(char)]
    start = max(0, found.start() - 20)
    shown = visible(text[start : found.start() + 20].replace("\r", "\u240d"))
    return Problem(
        doc.file,
        doc.line_of(path),
        format_path(path),
        f"got {what} ({code_point(char)}) in the {where} '{shown}', expected text a reader can see "
        "(retype it; in a command it would run differently from how it reads)",
    )
