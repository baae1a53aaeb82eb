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


class _Lexer:
    """Shell text → words and separators ("\\n", ";", "&&", …), one method per quoting context.

    A word is read piece by piece: plain characters, backslash escapes, '…', "…", ``$…`` expansions,
    backquotes and ``<placeholder>`` values all add to the word being read; blanks, newlines, separators
    and redirections end it. Redirections and their targets are dropped; a comment runs to the line's end.
    """

    def __init__(self, text: str):
        self.text = text
        self.at = 0  # the next character to read
        self.line = 1  # the line ``at`` is on
        self.out: list[Word | str] = []
        # the word being read: without quotes, as typed, where it starts, whether it hides a value
        self.unquoted: list[str] = []
        self.typed: list[str] = []
        self.start_line = 1
        self.in_word = False
        self.placeholder = False
        self.drop_next_word = False  # the next word is a redirection's target

    def words_and_separators(self) -> list[Word | str]:
        text = self.text
        while self.at < len(text):
            char = text[self.at]
            if char == "\\":
                self.backslash()
            elif char == "'":
                self.single_quoted()
            elif char == '"':
                self.double_quoted()
            elif char == "$":
                self.dollar()
            elif char == "`":
                self.backquoted()
            elif char == "<" and _PLACEHOLDER.match(text, self.at):
                self.angle_placeholder()
            elif char in "<>":
                self.redirection()
            elif char == "#" and not self.in_word:
                self.comment()
            elif char in " \t\r":
                self.end_word()
                self.at += 1
            elif char == "\n":
                self.end_word()
                self.out.append("\n")
                self.line += 1
                self.at += 1
            elif char in "&|;":
                self.separator()
            else:
                self.add(char, char)
                self.at += 1
        self.end_word()
        return self.out

    # ---------------------------------------------------------------------------------- the current word
    def add(self, unquoted: str, typed: str) -> None:
        """Add to the word being read, starting one if none is."""
        if not self.in_word:
            self.in_word = True
            self.start_line = self.line
        self.unquoted.append(unquoted)
        self.typed.append(typed)

    def end_word(self) -> None:
        if self.in_word:
            if self.drop_next_word:
                self.drop_next_word = False
            else:
                word = Word("".join(self.unquoted), "".join(self.typed), self.start_line, self.placeholder)
                self.out.append(word)
        self.unquoted, self.typed, self.in_word, self.placeholder = [], [], False, False

    # ---------------------------------------------------------------------------------- quoting contexts
    def backslash(self) -> None:
        """``\\`` + newline continues the line; before anything else it quotes that one character."""
        text, at = self.text, self.at
        if text.startswith("\\\n", at):
            self.line += 1
            self.at += 2
        elif at + 1 < len(text):
            self.add(text[at + 1], text[at : at + 2])
            self.at += 2
        else:
            self.add("", "\\")  # a trailing backslash: nothing to quote
            self.at += 1

    def single_quoted(self) -> None:
        """'…': every character as it is, newlines included; nothing is expanded."""
        text, at = self.text, self.at
        end = text.find("'", at + 1)
        if end < 0:
            raise ShellSyntaxError(message("check-shell-unterminated-single-quote"), self.line)
        self.add(text[at + 1 : end], text[at : end + 1])
        self.placeholder = self.placeholder or bool(_PLACEHOLDER.search(text, at + 1, end))
        self.line += text.count("\n", at, end)
        self.at = end + 1

    def double_quoted(self) -> None:
        """Double quotes: a backslash quotes only " \\ $ ` and newline; ``$…`` expands; a <placeholder>
        marks the word."""
        text = self.text
        self.add("", '"')
        at = self.at + 1
        while True:
            if at >= len(text):
                raise ShellSyntaxError(message("check-shell-unterminated-double-quote"), self.start_line)
            char = text[at]
            if char == '"':
                self.add("", '"')
                self.at = at + 1
                return
            if char == "\\" and at + 1 < len(text) and text[at + 1] in '"\\$`\n':
                if text[at + 1] == "\n":
                    self.line += 1  # a continuation inside the quotes: both characters vanish
                    self.add("", text[at : at + 2])
                else:
                    self.add(text[at + 1], text[at : at + 2])
                at += 2
                continue
            if char == "$":
                after = self.expansion(at)
                if after is not None:
                    at = after
                    continue
            if char == "<" and _PLACEHOLDER.match(text, at):
                self.placeholder = True
            if char == "\n":
                self.line += 1
            self.add(char, char)
            at += 1

    def dollar(self) -> None:
        """``$…`` outside quotes; a ``$`` that starts no expansion is a plain character."""
        after = self.expansion(self.at)
        if after is None:
            self.add("$", "$")
            self.at += 1
        else:
            self.at = after

    def expansion(self, at: int) -> int | None:
        """Read ``$NAME``, ``$1``, ``${…}`` or ``$(…)`` from the ``$`` at ``at`` into the word, as typed,
        marking it a placeholder (its newlines still count as lines). Returns the index after it, or None for
        a lone ``$``."""
        text = self.text
        after_dollar = text[at + 1 : at + 2]
        if after_dollar in _CLOSING:
            last = _closing_bracket(text, at + 1)
        else:
            name = _NAME.match(text, at + 1) or _SPECIAL_PARAMETER.match(text, at + 1)
            if not name:
                return None
            last = name.end() - 1
        chunk = text[at : last + 1]
        self.add(chunk, chunk)
        self.placeholder = True
        self.line += chunk.count("\n")
        return last + 1

    def backquoted(self) -> None:
        """`…`: a command substitution, kept as typed (to the end of the text when it is not closed)."""
        text, at = self.text, self.at
        end = text.find("`", at + 1)
        last = len(text) - 1 if end < 0 else end
        chunk = text[at : last + 1]
        self.add(chunk, chunk)
        self.placeholder = True
        self.line += chunk.count("\n")
        self.at = last + 1

    def angle_placeholder(self) -> None:
        """<model>, <your-token>: a documentation placeholder, not a redirection."""
        match = _PLACEHOLDER.match(self.text, self.at)
        assert match is not None
        self.add(match.group(0), match.group(0))
        self.placeholder = True
        self.at = match.end()

    # ---------------------------------------------------------------------------------- what ends a word
    def redirection(self) -> None:
        """``>``, ``2>&1``, ``<<``, ``>|``…: dropped with the word they name (a file), if any."""
        text = self.text
        if self.in_word and "".join(self.typed).isdigit():  # 2>&1: the digits name a file descriptor
            self.in_word = False
        self.end_word()
        at = self.at + 1
        while at < len(text) and text[at] in "<>&|":
            at += 1
        if text[at - 1] == "&" and at < len(text) and text[at].isdigit():
            while at < len(text) and text[at].isdigit():
                at += 1  # >&2: the target is a descriptor, not a word
        else:
            self.drop_next_word = True
        self.at = at

    def comment(self) -> None:
        """``#`` where a word would start: the rest of the line (its newline still ends the command)."""
        end = self.text.find("\n", self.at)
        self.at = len(self.text) if end < 0 else end

    def separator(self) -> None:
        """``&&``, ``||``, ``;``, ``|``, ``&`` between commands; ``&>`` is a redirection."""
        text, at = self.text, self.at
        self.end_word()
        if text.startswith("&>", at):
            self.at += 1  # the ">" is read next, as a redirection
            return
        separator = next(s for s in _SEPARATORS if text.startswith(s, at))
        self.out.append(separator)
        self.at += len(separator)


_CLOSING = {"(": ")", "{": "}"}


def _closing_bracket(text: str, opening: int) -> int:
    """The index of the bracket that closes the ``(`` or ``{`` at ``opening``, or the last index when none
    does. Nested brackets are counted; one inside quotes or after a backslash is text, as the shell reads
    ``$(echo ")")`` and ``${VAR:-"}"}``."""
    open_char, close_char = text[opening], _CLOSING[text[opening]]
    depth = 0
    at = opening
    while at < len(text):
        char = text[at]
        if char == "\\":
            at += 2
            continue
        if char in "'\"":
            at = _after_quote(text, at)
            continue
        if char == open_char:
            depth += 1
        elif char == close_char:
            depth -= 1
            if depth == 0:
                return at
        at += 1
    return len(text) - 1


def _after_quote(text: str, at: int) -> int:
    """The index after the quote that closes the one at ``at`` (a backslash escapes inside double quotes
    only), or the text's length when none does."""
    quote = text[at]
    at += 1
    while at < len(text) and text[at] != quote:
        at += 2 if quote == '"' and text[at] == "\\" else 1
    return min(at + 1, len(text))


def split_commands(text: str) -> list[Command]:
    """Every simple command of a block, in order (raises ShellSyntaxError for an unterminated quote)."""
    commands: list[Command] = []
    current: list[Word] = []
    for item in _Lexer(text).words_and_separators():
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
# Every docker run option a text may name: those above and the common switches.
DOCKER_OPTIONS = _DOCKER_VALUE_OPTIONS | frozenset(
    [
        "--rm",
        "--privileged",
        "--init",
        "--interactive",
        "--tty",
        "--detach",
        "--read-only",
        "--oom-kill-disable",
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


# Launchers that run the command after their own options: how many words their options take. A word that
# follows an option and does not start another command is taken as that option's value (``srun -N 2``).
_WRAPPERS: dict[str, tuple[str, ...]] = {
    "sudo": ("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U"),
    "env": ("-u", "-C", "-S"),
    "nohup": (),
    "exec": ("-a",),
    "time": (),
    "nice": ("-n",),
    "ionice": ("-c", "-n", "-p"),
    "taskset": (),
    "stdbuf": ("-i", "-o", "-e"),
    "numactl": ("-N", "-m", "-C", "-p", "-i"),
    "srun": (),
    "mpirun": ("-n", "-np", "-H", "--host", "-x"),
    "chrt": (),
}
_SHELLS = ("bash", "sh", "zsh", "dash")
_ARGUMENT_FIRST = ("timeout", "taskset", "chrt")  # their first plain word is an argument, not the command


def _starts_command(word: Word) -> bool:
    text = word.text
    return (
        bool(_INTERPRETER.match(text))
        or text in _WRAPPERS
        or text in _ARGUMENT_FIRST
        or text in _SHELLS
        or text in ("uv", "torchrun", "sglang", "docker")
        or _assignment(word, "prefix") is not None
    )


def _skip_options(words: list[Word], i: int, takes_value: tuple[str, ...]) -> int:
    """The index of the first word after a launcher's options (``-x``, ``--x=v``, ``-x v``, ``--``)."""
    while i < len(words):
        text = words[i].text
        if text == "--":
            return i + 1
        if not text.startswith("-") or text == "-":
            return i
        following = words[i + 1] if i + 1 < len(words) else None
        takes = following is not None and "=" not in text and not following.text.startswith("-")
        # a value when the option is known to take one, or when the next word cannot start the command
        i += 2 if takes and (text in takes_value or not _starts_command(following)) else 1
    return i


def _strip_wrappers(words: list[Word]) -> tuple[list[Word], list[EnvAssignment]]:
    """Leading ``VAR=value`` words and launchers (``sudo -E``, ``env``, ``timeout 600``, ``srun -N 2``,
    ``numactl …``, ``stdbuf -oL``, ``uv run``, ``nohup``…) in front of the command itself."""
    env: list[EnvAssignment] = []
    i = 0
    while i < len(words):
        word = words[i]
        text = word.text
        assigned = _assignment(word, "prefix")
        if assigned is not None:
            env.append(assigned)
            i += 1
        elif text in _WRAPPERS:
            i = _skip_options(words, i + 1, _WRAPPERS[text])
        elif text in _ARGUMENT_FIRST:
            i = _skip_options(words, i + 1, ("-s", "-k", "-c", "-p"))
            i += 1  # timeout's duration, taskset's mask, chrt's priority
        elif text == "uv" and i + 1 < len(words) and words[i + 1].text == "run":
            i = _skip_options(
                words, i + 2, ("--with", "--python", "-p", "--project", "--directory", "--env-file")
            )
        else:
            break
    return words[i:], env


_TORCHRUN_SWITCHES = ("--standalone", "--no-python", "--no_python", "--run-path", "--run_path")


def _torchrun(words: list[Word]) -> tuple[int, str] | None:
    """``torchrun [options] -m module …``: the index of the module word and the module; None for a script."""
    i = 1
    while i < len(words):
        text = words[i].text
        if text in ("-m", "--module"):
            return (i + 1, words[i + 1].text) if i + 1 < len(words) else None
        if not text.startswith("-"):
            return None  # torchrun script.py: a script the checker cannot read
        i += 1 if "=" in text or text in _TORCHRUN_SWITCHES else 2  # --nproc-per-node 8
    return None


def shell_c(words: list[Word]) -> tuple[Word, list[EnvAssignment]] | None:
    """``bash -c '…'`` (after any launchers): the word holding the script, and the prefixes before it."""
    words, env = _strip_wrappers(words)
    if len(words) >= 3 and words[0].text.rsplit("/", 1)[-1] in _SHELLS:
        for i, word in enumerate(words[1:], 1):
            text = word.text
            if text.startswith("-") and not text.startswith("--") and "c" in text and i + 1 < len(words):
                return words[i + 1], env  # -c, or -c among short options: -lc, -ec
            if not word.text.startswith("-"):
                return None
    return None


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
    if first == "torchrun":
        found = _torchrun(words)
        if found is None:
            return None
        at, module = found
        return _module_invocation(words[at], module, words[at + 1 :], env, line, modules)
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
        nested = shell_c(words)
        if nested is not None:  # bash -c '…': the quoted script, parsed in place (its lines where they are)
            script_word, prefixes = nested
            inner = parse_script(
                "\n" * (script_word.line - 1) + script_word.text, entry_points, module_programs
            )
            for found in inner.invocations:
                found.env = prefixes + found.env
            assignments += prefixes + inner.assignments
            invocations += inner.invocations
            orphans += inner.orphans
            ran_program = ran_program or any(f.kind == "program" for f in inner.invocations)
            last_fragment = None
            continue
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
