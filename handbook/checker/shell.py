"""Shell text as people paste it → words with line numbers → the commands the checker understands.

Only as much of the shell as commands in documentation use: quotes, backslash continuations, comments,
several commands per block (newlines, ``;``, ``&&``, ``||``, ``|``, ``&``), ``VAR=value`` prefixes,
``export`` lines, redirections, ``$VAR`` / ``${VAR}`` / ``$(…)`` and ``<placeholder>`` values. Nothing is
expanded or run: a word that holds a variable or a placeholder is marked, so its value is not judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from handbook.core.messages import message
from handbook.core.text import Text

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
# <model>, <your-token>, <prefill-ip>: documentation placeholders, not redirections
_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9_.:/ -]*>")
_SPECIAL_PARAMETER = re.compile(r"[0-9@*#?$!-]")
_SEPARATORS = ("&&", "||", ";", "|", "&")
_INTERPRETER = re.compile(r"^(?:.*/)?python(?:3(?:\.\d+)?)?$")


class ShellSyntaxError(ValueError):
    """Text the shell itself would reject (an unterminated quote): ``problem`` says what, ``line`` where it
    starts."""

    def __init__(self, problem: Text, line: int):
        super().__init__(problem.en)
        self.problem = problem
        self.line = line


@dataclass(frozen=True)
class Word:
    """One shell word: ``text`` with quotes removed, ``raw`` as typed, the line it starts on."""

    text: str
    raw: str
    line: int
    placeholder: bool = False  # holds $VAR, ${VAR}, $(…), `…` or <placeholder>: its value is unknown here


@dataclass
class Command:
    """A simple command: its words, in order, between two separators."""

    words: list[Word]
    line: int
    end_line: int


def _words_and_separators(text: str) -> list[Word | str]:
    """Lex ``text`` into words and separators ("\\n", ";", "&&", …); redirections are dropped."""
    out: list[Word | str] = []
    i, n, line = 0, len(text), 1
    buf: list[str] = []
    raw: list[str] = []
    start_line = 1
    in_word = False
    placeholder = False
    skip_next_word = False  # the target of a redirection

    def flush() -> None:
        nonlocal buf, raw, in_word, placeholder, skip_next_word
        if in_word:
            if skip_next_word:
                skip_next_word = False
            else:
                out.append(Word("".join(buf), "".join(raw), start_line, placeholder))
        buf, raw, in_word, placeholder = [], [], False, False

    def begin() -> None:
        nonlocal in_word, start_line
        if not in_word:
            in_word = True
            start_line = line

    def dollar(j: int) -> int:
        """Consume $VAR, ${…}, $(…) starting at ``j`` (the $); return the index after it."""
        nonlocal placeholder
        if j + 1 < n and text[j + 1] == "{":
            end = text.find("}", j + 2)
            end = n - 1 if end < 0 else end
        elif j + 1 < n and text[j + 1] == "(":
            depth, end = 0, j + 1
            while end < n:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                if depth == 0:
                    break
                end += 1
            end = min(end, n - 1)
        else:
            match = _NAME.match(text, j + 1) or _SPECIAL_PARAMETER.match(text, j + 1)
            if not match:
                return -1  # a lone $ is literal
            end = match.end() - 1
        placeholder = True
        chunk = text[j : end + 1]
        buf.append(chunk)
        raw.append(chunk)
        return end + 1

    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] == "\n":
            i += 2  # line continuation
            line += 1
            continue
        if c == "\\":
            begin()
            if i + 1 < n:
                buf.append(text[i + 1])
                raw.append(text[i : i + 2])
                i += 2
            else:
                raw.append(c)
                i += 1
            continue
        if c == "'":
            begin()
            end = text.find("'", i + 1)
            if end < 0:
                raise ShellSyntaxError(message("check-shell-unterminated-single-quote"), line)
            buf.append(text[i + 1 : end])
            raw.append(text[i : end + 1])
            placeholder = placeholder or bool(_PLACEHOLDER.search(text, i + 1, end))
            line += text.count("\n", i, end)
            i = end + 1
            continue
        if c == '"':
            begin()
            j = i + 1
            raw.append('"')
            while True:
                if j >= n:
                    raise ShellSyntaxError(message("check-shell-unterminated-double-quote"), start_line)
                ch = text[j]
                if ch == '"':
                    raw.append('"')
                    j += 1
                    break
                if ch == "\\" and j + 1 < n and text[j + 1] in '"\\$`\n':
                    if text[j + 1] == "\n":
                        line += 1
                    else:
                        buf.append(text[j + 1])
                    raw.append(text[j : j + 2])
                    j += 2
                    continue
                if ch == "$":
                    after = dollar(j)
                    if after > 0:
                        j = after
                        continue
                if ch == "<" and _PLACEHOLDER.match(text, j):
                    placeholder = True
                if ch == "\n":
                    line += 1
                buf.append(ch)
                raw.append(ch)
                j += 1
            i = j
            continue
        if c == "$":
            begin()
            after = dollar(i)
            if after > 0:
                i = after
                continue
            buf.append(c)
            raw.append(c)
            i += 1
            continue
        if c == "`":
            begin()
            end = text.find("`", i + 1)
            end = n - 1 if end < 0 else end
            chunk = text[i : end + 1]
            buf.append(chunk)
            raw.append(chunk)
            placeholder = True
            line += chunk.count("\n")
            i = end + 1
            continue
        if c == "<":
            match = _PLACEHOLDER.match(text, i)
            if match:
                begin()
                buf.append(match.group(0))
                raw.append(match.group(0))
                placeholder = True
                i = match.end()
                continue
        if c in "<>":
            if in_word and "".join(raw).isdigit():  # 2>&1: the digits name a file descriptor
                buf, raw, in_word = [], [], False
            flush()
            j = i + 1
            while j < n and text[j] in "<>&|":
                j += 1
            if text[j - 1] == "&" and j < n and text[j].isdigit():
                while j < n and text[j].isdigit():
                    j += 1  # >&2: no target word
            else:
                skip_next_word = True
            i = j
            continue
        if c == "#" and not in_word:
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c in " \t\r":
            flush()
            i += 1
            continue
        if c == "\n":
            flush()
            out.append("\n")
            line += 1
            i += 1
            continue
        separator = next((s for s in _SEPARATORS if text.startswith(s, i)), None)
        if separator:
            if separator == "&" and i + 1 < n and text[i + 1] == ">":
                flush()
                i += 1  # &>file: a redirection
                continue
            flush()
            out.append(separator)
            i += len(separator)
            continue
        begin()
        buf.append(c)
        raw.append(c)
        i += 1
    flush()
    return out


def split_commands(text: str) -> list[Command]:
    """Every simple command of a block, in order (raises ShellSyntaxError for an unterminated quote)."""
    commands: list[Command] = []
    current: list[Word] = []
    for item in _words_and_separators(text):
        if isinstance(item, Word):
            current.append(item)
            continue
        if current:
            commands.append(Command(current, current[0].line, current[-1].line))
            current = []
    if current:
        commands.append(Command(current, current[0].line, current[-1].line))
    return commands


# ------------------------------------------------------------------------------------------ structure
@dataclass(frozen=True)
class EnvAssignment:
    """A variable a command sets: ``export``, a ``VAR=value`` prefix, or ``docker run -e``."""

    name: str
    value: Word | None  # None: passed through from the caller's environment (docker -e NAME)
    how: str  # "export" | "prefix" | "docker"
    line: int


# docker run options that take a value (the rest are switches such as --rm, -it, --privileged)
_DOCKER_VALUE_OPTIONS = frozenset(
    [
        "-a",
        "--attach",
        "--add-host",
        "--annotation",
        "--blkio-weight",
        "--blkio-weight-device",
        "--cap-add",
        "--cap-drop",
        "--cgroup-parent",
        "--cgroupns",
        "--cidfile",
        "--cpu-period",
        "--cpu-quota",
        "--cpu-rt-period",
        "--cpu-rt-runtime",
        "-c",
        "--cpu-shares",
        "--cpus",
        "--cpuset-cpus",
        "--cpuset-mems",
        "--device",
        "--device-cgroup-rule",
        "--device-read-bps",
        "--device-read-iops",
        "--device-write-bps",
        "--device-write-iops",
        "--dns",
        "--dns-option",
        "--dns-search",
        "--domainname",
        "--entrypoint",
        "-e",
        "--env",
        "--env-file",
        "--expose",
        "--gpus",
        "--group-add",
        "--health-cmd",
        "--health-interval",
        "--health-retries",
        "--health-start-period",
        "--health-timeout",
        "-h",
        "--hostname",
        "--ip",
        "--ip6",
        "--ipc",
        "--isolation",
        "--kernel-memory",
        "-l",
        "--label",
        "--label-file",
        "--link",
        "--link-local-ip",
        "--log-driver",
        "--log-opt",
        "--mac-address",
        "-m",
        "--memory",
        "--memory-reservation",
        "--memory-swap",
        "--memory-swappiness",
        "--mount",
        "--name",
        "--network",
        "--net",
        "--network-alias",
        "--oom-score-adj",
        "--pid",
        "--pids-limit",
        "--platform",
        "-p",
        "--publish",
        "--pull",
        "--restart",
        "--runtime",
        "--security-opt",
        "--shm-size",
        "--stop-signal",
        "--stop-timeout",
        "--storage-opt",
        "--sysctl",
        "--tmpfs",
        "--ulimit",
        "-u",
        "--user",
        "--userns",
        "--uts",
        "-v",
        "--volume",
        "--volume-driver",
        "--volumes-from",
        "-w",
        "--workdir",
    ]
)


@dataclass
class DockerRun:
    options: list[Word]  # every word between `run` and the image, as typed
    image: Word | None

    def has_option(self, name: str) -> bool:
        return any(w.text == name or w.text.startswith(name + "=") for w in self.options)


@dataclass
class Invocation:
    """A command the checker has an opinion on.

    ``kind`` is "program" (an SGLang entry point, ``program`` names its parser), "fragment" (flags only,
    checked as launch_server flags), "docker" (a ``docker run`` that runs nothing the checker knows) or
    "module" (``python -m`` of an SGLang module the snapshot does not cover).
    """

    kind: str
    line: int
    program: str | None = None
    module: str | None = None
    launcher: Word | None = None  # the word that names the module or the command
    args: list[Word] = field(default_factory=list)
    env: list[EnvAssignment] = field(default_factory=list)  # prefixes and docker -e of this command
    docker: DockerRun | None = None


@dataclass
class Script:
    """A parsed block: what it runs, the variables it sets, and flag lines cut off from their command."""

    invocations: list[Invocation]
    assignments: list[EnvAssignment]  # every export, prefix and docker -e, in order
    orphans: list[Command]  # flag lines after an SGLang command whose continuation was lost


def _assignment(word: Word, how: str) -> EnvAssignment | None:
    match = _ASSIGNMENT.match(word.text)
    if not match:
        return None
    name, value = match.groups()
    raw_value = word.raw.split("=", 1)[1] if "=" in word.raw else value
    return EnvAssignment(name, Word(value, raw_value, word.line, word.placeholder), how, word.line)


def _docker(words: list[Word]) -> tuple[DockerRun, list[Word], list[EnvAssignment]] | None:
    """``docker run [options] IMAGE [command…]`` → options, the inner command, its -e variables."""
    texts = [w.text for w in words]
    for head in (
        ["docker", "run"],
        ["docker", "container", "run"],
        ["podman", "run"],
        ["nvidia-docker", "run"],
    ):
        if texts[: len(head)] == head:
            rest = words[len(head) :]
            break
    else:
        return None
    options: list[Word] = []
    env: list[EnvAssignment] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.text.startswith("-") or word.text == "-":
            break
        options.append(word)
        name, has_value, value = word.text.partition("=")
        if name in ("-e", "--env") or (name.startswith("-e") and len(name) > 2 and not name.startswith("--")):
            if has_value:
                target = Word(value, value, word.line, word.placeholder)
            elif len(name) > 2 and name.startswith("-e"):
                target = Word(name[2:], name[2:], word.line, word.placeholder)
            elif i + 1 < len(rest):
                target = rest[i + 1]
            else:
                target = None
            if target is not None:
                assigned = _assignment(target, "docker")
                if assigned is None and _NAME.fullmatch(target.text):
                    assigned = EnvAssignment(target.text, None, "docker", target.line)
                if assigned is not None:
                    env.append(assigned)
        if not has_value and name in _DOCKER_VALUE_OPTIONS and i + 1 < len(rest):
            options.append(rest[i + 1])
            i += 1
        i += 1
    image = rest[i] if i < len(rest) else None
    inner = rest[i + 1 :] if image is not None else []
    return DockerRun(options, image), inner, env


def _strip_wrappers(words: list[Word]) -> tuple[list[Word], list[EnvAssignment]]:
    """Leading ``VAR=value`` words, ``sudo`` and ``env`` in front of the command itself."""
    env: list[EnvAssignment] = []
    i = 0
    while i < len(words):
        word = words[i]
        assigned = _assignment(word, "prefix")
        if assigned is not None:
            env.append(assigned)
        elif word.text in ("sudo", "env", "exec", "nohup", "time"):
            pass
        else:
            break
        i += 1
    return words[i:], env


def classify(
    words: list[Word], entry_points: dict[tuple[str, ...], str], modules: set[str]
) -> Invocation | None:
    """What a command runs, or None for commands the checker has nothing to say about (curl, git, cd…).

    ``entry_points`` maps command words (``("sglang", "serve")``) to a parser; ``modules`` are the
    ``python -m`` modules the snapshot knows.
    """
    words, env = _strip_wrappers(words)
    if not words:
        return None
    line = words[0].line
    if words[0].text.startswith("--"):
        return Invocation("fragment", line, program="launch_server", args=words, env=env)
    docker = _docker(words)
    if docker is not None:
        run, inner, docker_env = docker
        found = classify(inner, entry_points, modules) if inner else None
        if found is None:
            return Invocation("docker", line, env=env + docker_env, docker=run)
        found.docker = run
        found.env = env + docker_env + found.env
        found.line = line
        return found
    first = words[0].text
    if _INTERPRETER.match(first):
        i = 1
        while i < len(words):
            text = words[i].text
            if text == "-m" and i + 1 < len(words):
                module_word = words[i + 1]
                return _module_invocation(module_word, module_word.text, words[i + 2 :], env, line, modules)
            if text.startswith("-m") and len(text) > 2:
                return _module_invocation(words[i], text[2:], words[i + 1 :], env, line, modules)
            if text in ("-X", "-W") and i + 1 < len(words):
                i += 2
                continue
            if text.startswith("-"):
                i += 1
                continue
            return None  # python script.py …
        return None
    texts = tuple(w.text for w in words)
    for head, program in sorted(entry_points.items(), key=lambda item: -len(item[0])):
        if texts[: len(head)] == head:
            return Invocation(
                "program", line, program=program, launcher=words[0], args=words[len(head) :], env=env
            )
    return None if not env else Invocation("prefix-only", line, env=env)


def _module_invocation(
    word: Word, module: str, args: list[Word], env: list[EnvAssignment], line: int, modules: set[str]
) -> Invocation | None:
    if module in modules:
        return Invocation("program", line, module=module, launcher=word, args=args, env=env)
    if module.split(".", 1)[0] in ("sglang", "sglang_router"):
        return Invocation("module", line, module=module, launcher=word, args=args, env=env)
    return None


def parse_script(
    text: str, entry_points: dict[tuple[str, ...], str], module_programs: dict[str, str]
) -> Script:
    """Parse a block. ``module_programs`` maps each known ``python -m`` module to its parser name."""
    invocations: list[Invocation] = []
    assignments: list[EnvAssignment] = []
    orphans: list[Command] = []
    ran_program = False
    last_fragment: Invocation | None = None
    last_end = -1
    for command in split_commands(text):
        words = command.words
        if words[0].text == "export":
            for word in words[1:]:
                assigned = _assignment(word, "export")
                if assigned is not None:
                    assignments.append(assigned)
            last_fragment = None
            continue
        found = classify(words, entry_points, set(module_programs))
        if found is None:
            last_fragment = None
            continue
        assignments += found.env
        if found.kind == "prefix-only":
            last_fragment = None
            continue
        if found.kind == "program" and found.module is not None:
            found.program = module_programs[found.module]
        if found.kind == "fragment":
            if ran_program:
                orphans.append(command)
                continue
            if last_fragment is not None and command.line == last_end + 1:
                last_fragment.args += found.args  # one fragment written over several lines
                last_end = command.end_line
                continue
            last_fragment = found
            last_end = command.end_line
        else:
            last_fragment = None
            ran_program = ran_program or found.kind == "program"
        invocations.append(found)
    return Script(invocations, assignments, orphans)
