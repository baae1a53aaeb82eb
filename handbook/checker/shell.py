"""Shell text as people paste it → words with line numbers → the commands the checker understands.

Only as much of the shell as commands in documentation use: quotes, backslash continuations, comments,
several commands per block (newlines, ``;``, ``&&``, ``||``, ``|``, ``&``), ``VAR=value`` prefixes,
``export`` lines, redirections, ``$VAR`` / ``${VAR}`` / ``$(…)`` and ``<placeholder>`` values. Nothing is
expanded or run: a word that holds a variable or a placeholder is marked, so its value is not judged.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from handbook.core.messages import message
from handbook.core.text import Text

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", re.DOTALL)
# <model>, <your-token>, <prefill-ip>: documentation placeholders, not redirections
_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9_.:/ -]*>")
_SPECIAL_PARAMETER = re.compile(r"[0-9@*#?$!-]")
_SEPARATORS = ("&&", "||", ";", "|", "&", "(", ")")
# A run of characters that are nothing but themselves outside quotes: read at once, not one by one
_PLAIN_RUN = re.compile(r"[^\\'\"$`<>#&|;() \t\r\n]+")
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
            elif char in "&|;()":
                self.separator()
            else:
                run = _PLAIN_RUN.match(text, self.at)
                end = run.end() if run else self.at + 1
                self.add(text[self.at : end], text[self.at : end])
                self.at = end
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
        """``&&``, ``||``, ``;``, ``|``, ``&`` between commands, ``(`` and ``)`` around a subshell; ``&>`` is
        a redirection."""
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
DOCKER_VALUE_OPTIONS = frozenset(
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
DOCKER_OPTIONS = DOCKER_VALUE_OPTIONS | frozenset(
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


@dataclass(frozen=True)
class Unseen:
    """A command that runs an SGLang program the checker could not reach: ``behind`` is the first word it
    could not read past (an unknown launcher); with ``too_deep``, the shell that nests one level too many."""

    line: int
    behind: Word
    too_deep: bool = False


@dataclass
class Script:
    """A parsed block: what it runs, the variables it sets, flag lines cut off from their command, and the
    SGLang commands the checker could not see into."""

    invocations: list[Invocation]
    assignments: list[EnvAssignment]  # every export, prefix and docker -e, in order
    orphans: list[Command]  # flag lines after an SGLang command whose continuation was lost
    unseen: list[Unseen] = field(default_factory=list)


def _assignment(word: Word, how: str) -> EnvAssignment | None:
    match = _ASSIGNMENT.match(word.text)
    if not match:
        return None
    name, value = match.groups()
    raw_value = word.raw.split("=", 1)[1] if "=" in word.raw else value
    return EnvAssignment(name, Word(value, raw_value, word.line, word.placeholder), how, word.line)


def _name(word: Word) -> str:
    """The program a word names, without its folder (``/usr/bin/env`` → ``env``)."""
    return word.text.rsplit("/", 1)[-1]


def _head_at(words: list[Word], at: int, head: tuple[str, ...]) -> bool:
    """Whether the words from ``at`` start with ``head`` (its first word named with or without a folder)."""
    if at + len(head) > len(words) or _name(words[at]) != head[0]:
        return False
    return all(words[at + k].text == part for k, part in enumerate(head[1:], 1))


def _options(
    words: list[Word], at: int, takes_value: frozenset[str] | tuple[str, ...], env_options: tuple[str, ...]
) -> tuple[int, list[Word], list[EnvAssignment]]:
    """A launcher's options from ``at``, each a switch unless ``takes_value`` names it: where they end, the
    words they are, and the variables they set (``-e NAME=value``, ``-eNAME``, ``--env=NAME``)."""
    options: list[Word] = []
    env: list[EnvAssignment] = []
    i = at
    while i < len(words):
        word = words[i]
        if not word.text.startswith("-") or word.text == "-":
            break
        options.append(word)
        name, has_value, value = word.text.partition("=")
        attached = next(
            (o for o in env_options if not o.startswith("--") and name.startswith(o) and len(name) > len(o)),
            None,
        )
        if name in env_options or attached is not None:
            if attached is not None:
                target: Word | None = Word(word.text[len(attached) :], word.text[len(attached) :], word.line)
            elif has_value:
                target = Word(value, value, word.line, word.placeholder)
            else:
                target = words[i + 1] if i + 1 < len(words) else None
            if target is not None:
                assigned = _assignment(target, "docker")
                if assigned is None and _NAME.fullmatch(target.text):
                    assigned = EnvAssignment(target.text, None, "docker", target.line)
                if assigned is not None:
                    env.append(assigned)
        if not has_value and attached is None and name in takes_value and i + 1 < len(words):
            options.append(words[i + 1])
            i += 1
        i += 1
    return i, options, env


DOCKER_RUN = (("docker", "run"), ("docker", "container", "run"), ("podman", "run"), ("nvidia-docker", "run"))
_DOCKER_FIRST = frozenset(head[0] for head in DOCKER_RUN)
DOCKER_ENV_OPTIONS = ("-e", "--env")


def _docker(words: list[Word], at: int) -> tuple[DockerRun, int, list[EnvAssignment]] | None:
    """``docker run [options] IMAGE [command…]`` from ``at`` → its options and image, where the inner
    command starts, its -e variables."""
    if _name(words[at]) not in _DOCKER_FIRST:
        return None
    head = next((h for h in DOCKER_RUN if _head_at(words, at, h)), None)
    if head is None:
        return None
    i, options, env = _options(words, at + len(head), DOCKER_VALUE_OPTIONS, DOCKER_ENV_OPTIONS)
    image = words[i] if i < len(words) else None
    return DockerRun(options, image), min(i + 1, len(words)), env


@dataclass(frozen=True)
class Launcher:
    """A program that runs a command given after its own words (``sudo -E``, ``conda run -n env``,
    ``docker exec -it CONTAINER``).

    An option takes a value when ``takes_value`` names it. Otherwise it is a switch when ``switches_only``;
    when not, a word after it that cannot start a command is read as its value (``srun -N 2``).
    ``operands`` words follow the options before the command (timeout's duration, the container, the pod);
    ``env_options`` set variables for the command; with ``double_dash``, a ``--`` in the words is where the
    command starts (``kubectl exec POD -c C -- command``)."""

    takes_value: tuple[str, ...] = ()
    switches_only: bool = False
    operands: int = 0
    env_options: tuple[str, ...] = ()
    double_dash: bool = False


def _spelled(options: str) -> tuple[str, ...]:
    return tuple(options.split())


_CONDA = Launcher(_spelled("-n --name -p --prefix --cwd"))
_CONTAINER_EXEC = Launcher(
    _spelled("-e --env --env-file -u --user -w --workdir --detach-keys"),
    switches_only=True,
    operands=1,
    env_options=DOCKER_ENV_OPTIONS,
)
_APPTAINER_EXEC = Launcher(
    _spelled(
        "-B --bind --mount -H --home -o --overlay -W --workdir -S --scratch --pwd --env --env-file "
        "--security --network --network-args --hostname --dns --app --apply-cgroups"
    ),
    switches_only=True,
    operands=1,
    env_options=("--env",),
)
LAUNCHERS: dict[tuple[str, ...], Launcher] = {
    ("sudo",): Launcher(_spelled("-u -g -C -D -h -p -r -t -T -U")),
    ("env",): Launcher(_spelled("-u -C -S")),
    ("nohup",): Launcher(),
    ("exec",): Launcher(_spelled("-a")),
    ("time",): Launcher(),
    ("command",): Launcher(),
    ("setsid",): Launcher(),
    ("nice",): Launcher(_spelled("-n")),
    ("ionice",): Launcher(_spelled("-c -n -p")),
    ("stdbuf",): Launcher(_spelled("-i -o -e")),
    ("numactl",): Launcher(_spelled("-N -m -C -p -i")),
    ("srun",): Launcher(),
    ("mpirun",): Launcher(_spelled("-n -np -H --host -x")),
    ("xargs",): Launcher(
        _spelled(
            "-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs --max-lines --max-chars "
            "--replace"
        )
    ),
    ("watch",): Launcher(_spelled("-n --interval")),
    # timeout DURATION, taskset MASK, chrt PRIORITY: an operand before the command
    ("timeout",): Launcher(_spelled("-s --signal -k --kill-after"), switches_only=True, operands=1),
    ("taskset",): Launcher(switches_only=True, operands=1),
    ("chrt",): Launcher(_spelled("-T -P -D"), switches_only=True, operands=1),
    # NVIDIA Nsight Systems: nsys profile [options] <program> (SGLang's benchmark_and_profiling docs)
    ("nsys", "profile"): Launcher(_spelled("-o --output -t --trace -d --duration -y --delay -s --sample")),
    ("uv", "run"): Launcher(_spelled("--with --python -p --project --directory --env-file")),
    ("conda", "run"): _CONDA,
    ("mamba", "run"): _CONDA,
    ("micromamba", "run"): _CONDA,
    ("poetry", "run"): Launcher(),
    ("pipenv", "run"): Launcher(),
    ("pdm", "run"): Launcher(),
    ("hatch", "run"): Launcher(),
    ("pixi", "run"): Launcher(_spelled("-e --environment --manifest-path")),
    ("docker", "exec"): _CONTAINER_EXEC,
    ("docker", "container", "exec"): _CONTAINER_EXEC,
    ("podman", "exec"): _CONTAINER_EXEC,
    ("apptainer", "exec"): _APPTAINER_EXEC,
    ("singularity", "exec"): _APPTAINER_EXEC,
    ("kubectl", "exec"): Launcher(
        _spelled(
            "-c --container -n --namespace -f --filename --context --kubeconfig --pod-running-timeout -s "
            "--server --cluster --user --token --as"
        ),
        switches_only=True,
        operands=1,
        double_dash=True,
    ),
}
# Longest first, so that ``docker container exec`` is tried before a shorter head
_LAUNCHER_HEADS = sorted(LAUNCHERS, key=len, reverse=True)
_LAUNCHER_FIRST = {head[0] for head in LAUNCHERS}
# Shell words that open a compound command (``{ …; }``, ``if …; then …; fi``, ``while …; do …; done``): at
# the start of a command they are read past; ``fi``, ``done`` and ``}`` alone run nothing.
KEYWORDS = frozenset(["{", "}", "!", "if", "then", "elif", "else", "while", "until", "do"])
SHELLS = ("bash", "sh", "zsh", "dash")
SSH_VALUE_OPTIONS = _spelled("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -P -p -Q -R -S -W -w")


def _starts_command(word: Word) -> bool:
    name = _name(word)
    return (
        bool(_INTERPRETER.match(word.text))
        or name in _LAUNCHER_FIRST
        or name in SHELLS
        or name in ("torchrun", "sglang", "docker", "ssh", "eval")
        or _assignment(word, "prefix") is not None
    )


def _skip_options(words: list[Word], i: int, takes_value: tuple[str, ...]) -> int:
    """The index of the first word after a launcher's options (``-x``, ``--x=v``, ``-x v``, ``--``), where a
    word that cannot start a command is read as the value of the option before it."""
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


def _launcher_at(words: list[Word], at: int) -> tuple[tuple[str, ...], Launcher] | None:
    if _name(words[at]) not in _LAUNCHER_FIRST:
        return None
    head = next((h for h in _LAUNCHER_HEADS if _head_at(words, at, h)), None)
    return None if head is None else (head, LAUNCHERS[head])


def _after_launcher(words: list[Word], at: int, launcher: Launcher, env: list[EnvAssignment]) -> int:
    """Where the command starts after a launcher whose options start at ``at``."""
    if launcher.double_dash:
        dash = next((i for i in range(at, len(words)) if words[i].text == "--"), None)
        if dash is not None:
            return dash + 1
    if launcher.switches_only:
        i, _, found = _options(words, at, launcher.takes_value, launcher.env_options)
        env += found
        if i < len(words) and words[i].text == "--":
            i += 1
    else:
        i = _skip_options(words, at, launcher.takes_value)
    return min(i + launcher.operands, len(words))


@dataclass
class Unwrapped:
    """What is in front of a command: the variables set for it (prefixes, ``docker run -e``…), in order, the
    outermost ``docker run`` and its line, and where the command itself starts. ``own`` is where, in
    ``env``, the variables of the command's own prefix start (after the last ``docker run``)."""

    start: int
    env: list[EnvAssignment]
    own: int = 0
    docker: DockerRun | None = None
    docker_line: int = 0


def unwrap(words: list[Word]) -> Unwrapped:
    """Read past every launcher in front of a command, outermost first, without recursion: ``VAR=value``
    prefixes, shell keywords, launchers (``sudo -E``, ``timeout 600``, ``conda run -n x``, ``docker exec -it
    C``…) and ``docker run [options] IMAGE``, in any order and any number."""
    out = Unwrapped(0, [])
    i = 0
    while i < len(words) and words[i].text in KEYWORDS:
        i += 1
    while i < len(words):
        word = words[i]
        assigned = _assignment(word, "prefix")
        if assigned is not None:
            out.env.append(assigned)
            i += 1
            continue
        launcher = _launcher_at(words, i)
        if launcher is not None:
            head, how = launcher
            i = _after_launcher(words, i + len(head), how, out.env)
            continue
        docker = _docker(words, i)
        if docker is None:
            break
        run, inner, docker_env = docker
        if out.docker is None:
            out.docker, out.docker_line = run, word.line
        out.env += docker_env
        out.own = len(out.env)
        i = inner
    out.start = i
    return out


def _joined(words: list[Word]) -> Word:
    """Words a launcher joins with spaces and hands to a shell (``ssh HOST words…``, ``eval words…``)."""
    text = " ".join(w.text for w in words)
    return Word(text, text, words[0].line, any(w.placeholder for w in words))


def _script(words: list[Word], at: int) -> Word | None:
    """The shell text the command at ``at`` hands to a shell: ``bash -c '…'`` (``-lc``, ``-ec``…), ``ssh
    [options] HOST command…``, ``eval words…``; None for any other command."""
    if at >= len(words):
        return None
    name = _name(words[at])
    if name in SHELLS:
        for i in range(at + 1, len(words)):
            text = words[i].text
            if text.startswith("-") and not text.startswith("--") and "c" in text and i + 1 < len(words):
                return words[i + 1]  # -c, or -c among short options: -lc, -ec
            if not text.startswith("-"):
                return None
        return None
    if name == "ssh":
        i, _, _ = _options(words, at + 1, SSH_VALUE_OPTIONS, ())
        return _joined(words[i + 1 :]) if i + 1 < len(words) else None
    if name == "eval" and at + 1 < len(words):
        return _joined(words[at + 1 :])
    return None


TORCHRUN_SWITCHES = ("--standalone", "--no-python", "--no_python", "--run-path", "--run_path")


def _torchrun(words: list[Word]) -> tuple[int, str] | None:
    """``torchrun [options] -m module …``: the index of the module word and the module; None for a script."""
    i = 1
    while i < len(words):
        text = words[i].text
        if text in ("-m", "--module"):
            return (i + 1, words[i + 1].text) if i + 1 < len(words) else None
        if not text.startswith("-"):
            return None  # torchrun script.py: a script the checker cannot read
        i += 1 if "=" in text or text in TORCHRUN_SWITCHES else 2  # --nproc-per-node 8
    return None


def classify(
    words: list[Word],
    entry_points: dict[tuple[str, ...], str],
    modules: set[str],
    unwrapped: Unwrapped | None = None,
) -> Invocation | None:
    """What a command runs, or None for commands the checker has nothing to say about (curl, git, cd…).

    ``entry_points`` maps command words (``("sglang", "serve")``) to a parser; ``modules`` are the
    ``python -m`` modules the snapshot knows. ``unwrapped``: the command's ``unwrap``, when the caller has it.
    """
    return _classify(words, _heads(entry_points), modules, unwrapped or unwrap(words))


def _heads(entry_points: dict[tuple[str, ...], str]) -> list[tuple[tuple[str, ...], str]]:
    """The entry points, longest first (``sglang-router launch`` before a shorter head)."""
    return sorted(entry_points.items(), key=lambda item: -len(item[0]))


def _classify(
    words: list[Word], heads: list[tuple[tuple[str, ...], str]], modules: set[str], peeled: Unwrapped
) -> Invocation | None:
    found = _command(words[peeled.start :], peeled.env[peeled.own :], heads, modules)
    if peeled.docker is None:
        return found
    outer = peeled.env[: peeled.own]
    if found is None:
        return Invocation("docker", peeled.docker_line, env=outer, docker=peeled.docker)
    found.docker = peeled.docker
    found.env = outer + found.env
    found.line = peeled.docker_line
    return found


def _command(
    words: list[Word], env: list[EnvAssignment], heads: list[tuple[tuple[str, ...], str]], modules: set[str]
) -> Invocation | None:
    """What a command without launchers runs (``env``: its own prefix's variables)."""
    if not words:
        return None
    line = words[0].line
    if words[0].text.startswith("--"):
        return Invocation("fragment", line, program="launch_server", args=words, env=env)
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
    for head, program in heads:
        if _head_at(words, 0, head):
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


# How many shells deep (bash -c, ssh, eval inside one another) a command is followed: each level is read
# again from its text, so the depth bounds the work; an SGLang command deeper than this is an error.
MAX_NESTING = 4


def _escaped(text: str) -> str:
    """A literal for a pattern both Python's re and JavaScript's RegExp (with the u flag) read alike."""
    return "".join("\\" + c if c in "\\^$.|?*+()[]{}" else c for c in text)


def mention_pattern(entry_points: dict[tuple[str, ...], str], modules: Iterable[str]) -> str:
    """What in a command's words runs an SGLang program: ``-m MODULE`` of a known module, or an entry
    point's words (``sglang serve``). A command the checker cannot read that holds one is an error (the
    browser's checker compiles the same pattern, from the export)."""
    module_names = "|".join(_escaped(m) for m in sorted(modules, key=lambda m: (-len(m), m)))
    heads = "|".join(
        "\\s+".join(_escaped(part) for part in head)
        for head in sorted(entry_points, key=lambda h: (-len(h), h))
    )
    return (
        f"(?:^|[\\s'\"])-m\\s*(?:{module_names})(?![A-Za-z0-9_.])"
        f"|(?<![A-Za-z0-9_.-])(?:{heads})(?![A-Za-z0-9_-])"
    )


# Programs that take a command as text without running it (``pkill -f "python -m sglang.launch_server"``,
# the handbook's own ``python -m handbook check -- …``): naming an SGLang program there is no launch.
QUOTING = frozenset(["echo", "printf", "grep", "egrep", "fgrep", "pgrep", "pkill", "killall", "ps"])
QUOTING_MODULES = frozenset(["handbook"])


def _quotes_commands(words: list[Word]) -> bool:
    if _name(words[0]) in QUOTING:
        return True
    if _INTERPRETER.match(words[0].text) and len(words) > 2 and words[1].text == "-m":
        return words[2].text in QUOTING_MODULES
    return False


@functools.lru_cache(maxsize=8)
def _mention(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def parse_script(
    text: str, entry_points: dict[tuple[str, ...], str], module_programs: dict[str, str], _depth: int = 0
) -> Script:
    """Parse a block. ``module_programs`` maps each known ``python -m`` module to its parser name."""
    script = Script([], [], [])
    mention = _mention(mention_pattern(entry_points, module_programs))
    heads, modules = _heads(entry_points), set(module_programs)
    ran_program = False
    last_fragment: Invocation | None = None
    last_end = -1
    for command in split_commands(text):
        words = command.words
        peeled = unwrap(words)
        nested = _script(words, peeled.start)
        if (
            nested is not None
        ):  # bash -c '…', ssh HOST …: the script, parsed in place (its lines where they are)
            last_fragment = None
            if _depth >= MAX_NESTING:
                if mention.search(nested.raw):
                    script.unseen.append(Unseen(command.line, words[peeled.start], too_deep=True))
                continue
            inner = parse_script(
                "\n" * (nested.line - 1) + nested.text, entry_points, module_programs, _depth + 1
            )
            for found in inner.invocations:
                found.env = peeled.env + found.env
                found.docker = found.docker or peeled.docker
            if peeled.docker is not None and not inner.invocations:
                inner.invocations.append(
                    Invocation("docker", peeled.docker_line, env=[], docker=peeled.docker)
                )
            script.assignments += peeled.env + inner.assignments
            script.invocations += inner.invocations
            script.orphans += inner.orphans
            script.unseen += inner.unseen
            ran_program = ran_program or any(f.kind == "program" for f in inner.invocations)
            continue
        if words[0].text == "export":
            for word in words[1:]:
                assigned = _assignment(word, "export")
                if assigned is not None:
                    script.assignments.append(assigned)
            last_fragment = None
            continue
        found = _classify(words, heads, modules, peeled)
        if found is None or found.kind in ("docker", "prefix-only"):
            rest = words[peeled.start :]
            if rest and not _quotes_commands(rest) and mention.search(" ".join(w.raw for w in rest)):
                script.unseen.append(Unseen(command.line, rest[0]))
        if found is None:
            last_fragment = None
            continue
        script.assignments += found.env
        if found.kind == "prefix-only":
            last_fragment = None
            continue
        if found.kind == "program" and found.module is not None:
            found.program = module_programs[found.module]
        if found.kind == "fragment":
            if ran_program:
                script.orphans.append(command)
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
        script.invocations.append(found)
    return script
