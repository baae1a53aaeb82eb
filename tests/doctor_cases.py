"""The commands the parity test gives both checkers: every command on the site, the checker tests' own inputs,
and seeded variants of them (typos, wrong choices, abbreviations, dropped values, shuffled order, wrappers…).

Everything is deterministic: the same KB, pages and seed give the same cases, in the same order.
"""

from __future__ import annotations

import ast
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

from handbook.calc.recipe_text import command_text, deployment_text, deployments
from handbook.engine.snapshot import EngineSnapshot
from handbook.kb.loader import KB
from handbook.validation.pages import shell_blocks

TESTS = Path(__file__).parent
DOCS = TESTS.parent / "docs"
CHECKER_TESTS = sorted(TESTS.glob("test_checker_*.py"))


def site_commands(kb: KB) -> list[str]:
    """Every command the site shows: each recipe as published, each deployment's commands read together,
    every shell block of both languages' pages, and each rule's examples (the one that breaks it and the
    one that keeps it)."""
    out = [command_text(recipe) for recipe in kb.recipes.values()]
    out += [deployment_text(recipes) for recipes in deployments(list(kb.recipes.values())).values()]
    for lang in ("zh", "en"):
        for page in sorted((DOCS / lang).rglob("*.md")):
            out += [code for _, code in shell_blocks(page.read_text(encoding="utf-8"))]
    out += [command for rule in kb.rules.values() for command in (rule.example, rule.holds)]
    return list(dict.fromkeys(out))


def _strings(node: ast.AST, names: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
                if value.value.id not in names:
                    return None
                parts.append(names[value.value.id])
            else:
                return None
        return "".join(parts)
    return None


def corpus_commands() -> list[str]:
    """The commands of SGLang's own docs and cookbook (tests/fixtures/doc-corpus, handbook/oracles/corpus.py)."""
    path = TESTS / "fixtures" / "doc-corpus" / "commands.json"
    return [item["text"] for item in json.loads(path.read_text(encoding="utf-8"))]


def test_inputs() -> list[str]:
    """The string literals of the checker's own tests that look like commands (f-strings over module-level
    constants resolved)."""
    out: list[str] = []
    for path in CHECKER_TESTS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names: dict[str, str] = {}
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                text = _strings(node.value, names)
                if text is not None:
                    names[node.targets[0].id] = text
        for node in ast.walk(tree):
            text = _strings(node, names)
            if (
                text
                and ("--" in text or "python" in text or "export " in text or "=" in text)
                and len(text) < 4000
            ):
                out.append(text)
    return list(dict.fromkeys(out))


def edge_cases() -> list[str]:
    """Values where Python and JavaScript part ways unless handled: Unicode digits, integers beyond 2^53,
    float spellings, JSON's NaN and Infinity, IPv6 loopbacks, variables' odd casing, the lexer's brackets."""
    server = "python -m sglang.launch_server --model-path m"
    values = [
        "٣", "１２", "99999999999999999999999", "-99999999999999999999", "1e400", "inf", "-inf", "nan", "NaN",
        "1_000", "1__0", "_1", "1_", " 7 ", "\t8\n", "0x10", "+5", "-0", "1.", ".5", "1e-7", "1E5", "5e-324",
        "1.7976931348623157e309", "9" * 400, "-" + "9" * 400, "9" * 4000, "9" * 5000,
    ]  # fmt: skip
    flags = [
        "--tp-size", "--mem-fraction-static", "--max-total-tokens", "--log-requests-level",
        "--cuda-graph-max-bs-decode", "--chunked-prefill-size", "--schedule-conservativeness", "--dp-size",
        "--context-length", "--attn-dp-size", "--ep-size",
    ]  # fmt: skip
    out = [f"{server} {flag} '{value}'" for value in values for flag in flags]
    documents = [
        "{}", '{"a":1}', "[1,", "NaN", '{"a": Infinity}', '"x"', "1", '{"a":1}}', ' {"a": [1, {"b": null}]} ',
        '{"a": "\\u00e9"}', '{"a": "\\x"}', '{"a":1,}', "-", "-0", "01", "1.0e+2",
    ]  # fmt: skip
    for document in documents:
        out += [
            f"{server} --json-model-override-args '{document}'",
            f"{server} --cuda-graph-config '{document}'",
        ]
    for assignment in (
        "SGLANG_ENABLE_TORCH_COMPILE=Yes",
        "SGLANG_ENABLE_TORCH_COMPILE=İ",
        "SGL_ENABLE_JIT=1",
    ):
        out.append(f"{assignment} {server}")
    hosts = [
        "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "127.255.255.254", "127.0.0.01", "::1%eth0", "fe80::1",
        "[::1]", "localhost", "LOCALHOST", "0.0.0.0", "::", "1::", "::0:1",
    ]  # fmt: skip
    out += [f"{server} --host {host}" for host in hosts]
    out += [
        f"{server} --tp-size 99999999999999999999 --attn-dp-size 3",
        f"{server} --dp-size 3 --enable-dp-attention --tp-size 4",
        f"{server} --speculative-algorithm eagle --speculative-num-steps 3 --speculative-eagle-topk 1 "
        "--speculative-num-draft-tokens 9 --max-running-requests 4",
        f"{server} --chunked-prefill-size 4096 --attn-dp-size 3 --tp-size 3 --schedule-conservativeness 0.7",
        "python -m sglang_router.launch_router --host ::1",
        "python -m sglang_router.launch_router --policy cache_awar",
        # the lexer: a bracket inside quotes, nested braces, newlines inside a substitution
        f'{server} --served-model-name $(echo ")") --tp-size x',
        f'{server} --served-model-name ${{A:-"}}"}} --tp-size x',
        f"{server} --served-model-name ${{N:-${{HOME}}/my m}} --tp-size x",
        f"{server} --served-model-name $(ls\n  /models) \\\n  --tp-size x",
        # a flag given 0 is given (flags-set rules): Python's `0 in (False, …)` once read it as off
        f"{server} --watchdog-timeout 0",
        " --watchdog-timeout 0",
        f"{server} --watchdog-timeout 0.0",
    ]
    # --goodput: the engine checks the SLO key against its list before the number
    bench = "python -m sglang.benchmark.serving --backend sglang"
    slos = [
        "latency:50",
        "ttft",
        "ttft:",
        ":500",
        "TTFT:500",
        "ttft:500 tpot:50",
        "e2el:1e3",
        "tpot:0",
        "ttft:500:1",
    ]
    out += [f"{bench} --goodput {slo}" for slo in slos]
    # several commands as one deployment: addresses written every way a router URL or --host allows
    prefill = f"{server} --disaggregation-mode prefill"
    decode = f"{server} --disaggregation-mode decode"
    router = "python -m sglang_router.launch_router --pd-disaggregation"
    targets = [
        "http://[::1]:30000", "[::1]:30000", "http://LOCALHOST:٣0000", "https://10.0.0.1", "http://10.0.0.1",
        "http://10.0.0.1:30000/", "http://:30000", "10.0.0.1", "http://${P}:${PORT}", "http://<p>:30000 none",
        "http://127.0.0.1:030000 8998", "http://127.0.0.1:30000 ٨٩٩٨", "http://[fe80::1%eth0]:30000",
    ]  # fmt: skip
    for target in targets:
        for host in ("", " --host 10.0.0.1", " --host ::", " --host [::1]", " --host ${P}", " --port 443"):
            out.append(f"{prefill}{host}\n{decode} --port 30001\n{router} --prefill {target} --decode :30001")
    for nodes in ("2", "1", "3", "99999999999999999999", "true"):
        node = f"{server} --dist-init-addr a:5000 --nnodes {nodes} --tp-size 4 --node-rank"
        out += [f"{node} 0\n{node} 1", f"{node} 0\n{node} 0 --pp-size 2", f"{node} 1\n{node} 2"]
    return out + launcher_cases() + invisible_cases() + long_cases()


# Every launcher and shell form the checker reads through, each in front of a command with a typo
LAUNCHED = "python -m sglang.launch_server --model-path m --tp-sise 2"
LAUNCHERS = [
    "setsid", "setsid -f", "conda run -n sglang", "conda run --name sglang --no-capture-output", "poetry run",
    "pixi run -e cuda", "pipenv run", "mamba run -n x", "apptainer exec --nv sglang.sif",
    "apptainer exec --bind /data:/data --env HF_TOKEN=x sglang.sif", "singularity exec img.sif",
    "docker exec -it sglang", "docker exec -e SGLANG_ENABLE_TORCH_COMPILE=maybe -w /work c",
    "docker container exec c", "podman exec -it c", "kubectl exec -it pod --", "kubectl exec pod -c main --",
    "kubectl exec -n ns pod --", "ssh host", "ssh -p 2222 -i key user@host", "xargs -0", "xargs -I{}",
    "watch -n 5", "/usr/bin/env", "/usr/bin/env -u X", "env -i", "timeout --preserve-status 600",
    "timeout -s KILL 600", "taskset -c 0-7", "taskset 0x3", "chrt -f 50", "command", "sudo -u root -E",
    "/usr/bin/sudo", "nohup nice -n 5 stdbuf -oL", "eval", "time", "exec -a sglang", "mpirun -np 2 -x A",
    "docker run --gpus all img sudo -E", "docker run img bash -lc", "unknown-launcher --flag",
    "unknown-launcher",
]  # fmt: skip


def launcher_cases() -> list[str]:
    out = []
    for launcher in LAUNCHERS:
        quoted = launcher.endswith(("bash -lc", "eval")) or launcher.startswith("ssh")
        out.append(
            f"{launcher} '{LAUNCHED}'"
            if quoted and not launcher.startswith("ssh")
            else f"{launcher} {LAUNCHED}"
        )
    out += [
        f"( {LAUNCHED} )", f"{{ {LAUNCHED}; }}", f"if true; then {LAUNCHED}; fi", f"! {LAUNCHED}",
        f"while true; do {LAUNCHED}; done", f"(cd /tmp && {LAUNCHED}) &", f"ssh host '{LAUNCHED}'",
        f"ssh host \"cd /x && {LAUNCHED}\"", f"bash -c \"bash -c '{LAUNCHED}'\"",
        f"eval \"{LAUNCHED}\"", f"tmux new -d '{LAUNCHED}'", f"pkill -f '{LAUNCHED}'",
        f"python -m handbook check -- {LAUNCHED}", "ssh host " * 6 + LAUNCHED, "ssh host " * 6 + "ls",
        "docker run img bash -c 'echo hi'", f"docker run -eSGLANG_X=1 --env=SGLANG_Y=2 img {LAUNCHED}",
        f"python -c 'import sglang' && {LAUNCHED}", f"sglang.launch_server {LAUNCHED}",
    ]  # fmt: skip
    return out


def invisible_cases() -> list[str]:
    server = "python -m sglang.launch_server --model-path m"
    out = []
    for char in (
        "\u202e",
        "\u200b",
        "\u2066",
        "\x1b",
        "\x1b]0;x\x07",
        "\u00ad",
        "\ufeff",
        "\U000e0041",
        "\x7f",
    ):
        out += [
            f"{server} --tp-size{char} 2",
            f"{server} --served-model-name a{char}b",
            f"SGLANG_X{char}=1 {server}",
            f"{server} \\\n  --tp-size 2 {char}\\\n  --host x",
            f"{server} '--tp{char}",
            f"{char}" * 3 + f"\n{server}\n" + "x" * 70 + char + "y" * 70,
        ]
    return out


def long_cases() -> list[str]:
    """More unknown names than one check compares (the suggestion budget), and long wrapper chains."""
    server = "python -m sglang.launch_server --model-path m"
    flags = " ".join(f"--tp-sise{i}" for i in range(70))
    env = " ".join(f"SGLANG_ENABLE_TORCH_COMPIL{i}=1" for i in range(30))
    return [
        f"{server} {flags}",
        f"{env} {server} --attention-backend fa{' --attention-backend fa'.join(str(i) for i in range(30))}",
        "docker run i " * 300 + server + " --tp-sise 2",
        "sudo -E " * 300 + server,
        "( " * 300 + server + " )" * 300,
    ]


# ------------------------------------------------------------------------------------------ variants
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9_-]*")
_LETTERS = "abcdefghijklmnopqrstuvwxyz-_"


def _typo(flag: str, rng: random.Random) -> str:
    body = flag[2:]
    if len(body) < 2:
        return flag + rng.choice(_LETTERS)
    i = rng.randrange(len(body))
    kind = rng.randrange(4)
    if kind == 0:
        body = body[:i] + body[i + 1 :]
    elif kind == 1:
        body = body[:i] + rng.choice(_LETTERS) + body[i:]
    elif kind == 2 and i + 1 < len(body):
        body = body[:i] + body[i + 1] + body[i] + body[i + 2 :]
    else:
        body = body[:i] + rng.choice(_LETTERS) + body[i + 1 :]
    return "--" + body


class Variants:
    """Seeded variants of a command, each one mistake (or one wrapper) away from it."""

    def __init__(self, snapshot: EngineSnapshot, seed: int = 16):
        self.rng = random.Random(seed)
        server = snapshot.parser("launch_server")
        self.choices = {
            spelling: [str(c) for c in option.choices]
            for parser in snapshot.parsers.values()
            for option in parser.options
            if option.choices
            for spelling in option.option_strings
        }
        self.typed = {
            spelling: option.type
            for parser in snapshot.parsers.values()
            for option in parser.options
            for spelling in option.option_strings
        }
        self.spellings = server.all_spellings()
        self.env_names = [v.name for v in snapshot.environ.variables]
        self.deprecated_env = [d.name for d in snapshot.environ.deprecated]

    def _flags(self, text: str) -> list[re.Match[str]]:
        return list(_FLAG.finditer(text))

    def _replace(self, text: str, match: re.Match[str], new: str) -> str:
        return text[: match.start()] + new + text[match.end() :]

    def typo(self, text: str) -> str:
        flags = self._flags(text)
        if not flags:
            return text + " --tp-sise 2"
        m = self.rng.choice(flags)
        return self._replace(text, m, _typo(m.group(0), self.rng))

    def abbreviation(self, text: str) -> str:
        flags = [m for m in self._flags(text) if len(m.group(0)) > 4]
        if not flags:
            return text + " --tp 2"
        m = self.rng.choice(flags)
        return self._replace(text, m, m.group(0)[: self.rng.randrange(3, len(m.group(0)))])

    def _value_after(self, text: str, flags: list[re.Match[str]]) -> tuple[re.Match[str], int, int] | None:
        candidates = []
        for m in flags:
            rest = text[m.end() :]
            value = re.match(r"([ =])([^\s\\]+)", rest)
            if value and not value.group(2).startswith("--"):
                start = m.end() + 1
                candidates.append((m, start, start + len(value.group(2))))
        return self.rng.choice(candidates) if candidates else None

    def wrong_choice(self, text: str) -> str:
        flags = [m for m in self._flags(text) if m.group(0) in self.choices]
        found = self._value_after(text, flags)
        if found is None:
            return text + " --attention-backend " + self.rng.choice(["fa5", "flashinfr", "triton2", "TRITON"])
        m, start, end = found
        value = text[start:end]
        options = self.choices[m.group(0)]
        new = self.rng.choice(
            [_typo("--" + value, self.rng)[2:], value.upper(), value + "x", self.rng.choice(options)]
        )
        return text[:start] + new + text[end:]

    def wrong_type(self, text: str) -> str:
        flags = [m for m in self._flags(text) if self.typed.get(m.group(0)) not in (None, "str")]
        found = self._value_after(text, flags)
        bad = [
            "abc",
            "1.5",
            "1k",
            "1.5Gi",
            "2Mi",
            "-1",
            "0",
            "1e3",
            "inf",
            "nan",
            "{",
            "[1,",
            "1_000",
            " 7 ",
            "0x10",
            "true",
        ]
        if found is None:
            return text + " --max-running-requests " + self.rng.choice(bad)
        _, start, end = found
        return text[:start] + self.rng.choice(bad) + text[end:]

    def drop_value(self, text: str) -> str:
        found = self._value_after(text, self._flags(text))
        if found is None:
            return text + " --tp-size"
        _, start, end = found
        return text[: start - 1] + text[end:]

    def shuffle(self, text: str) -> str:
        lines = text.split(" \\\n")
        if len(lines) > 2:
            body = lines[1:]
            self.rng.shuffle(body)
            return " \\\n".join([lines[0], *body])
        words = text.split(" ")
        head = [w for w in words[:3]]
        tail = words[3:]
        self.rng.shuffle(tail)
        return " ".join(head + tail)

    def repeat(self, text: str) -> str:
        flags = self._flags(text)
        found = self._value_after(text, flags)
        if found is None:
            return text + " --tp-size 2 --tp-size 4"
        m, start, end = found
        return text + f" {m.group(0)} {text[start:end]}"

    def wrapper(self, text: str) -> str:
        rng = self.rng
        kind = rng.randrange(14)
        if kind == 0:
            return f"docker run --gpus all {rng.choice(['--shm-size 32g ', ''])}--ipc=host -e HF_TOKEN=x lmsysorg/sglang:latest {text}"
        if kind == 1:
            return (
                f"{rng.choice(self.env_names)}={rng.choice(['1', 'true', 'maybe', '{', '2.5', 'x'])} {text}"
            )
        if kind == 2:
            name = _typo("--" + rng.choice(self.env_names), rng)[2:].upper().replace("-", "_")
            return f"export {name}=1\n{text}"
        if kind == 3:
            return f"bash -c '{text.replace(chr(39), '')}'"
        if kind == 4:
            return f"{rng.choice(['timeout 600', 'srun -N 2', 'numactl --interleave=all', 'sudo -E', 'nohup', 'stdbuf -oL', 'uv run', 'env -u X', 'nice -n 5', 'taskset -c 0-7'])} {text}"
        if kind == 5:
            return f"# {rng.choice(['launch', 'start the server'])}\n{text}"
        if kind == 6:
            return text.replace(" \\\n", "\n", 1)  # a lost continuation
        if kind == 7:
            return text + rng.choice([" '", ' "', " $(", " `x"])
        if kind == 8:
            return text + rng.choice(
                [" --model-path $MODEL", " --port ${PORT}", " $EXTRA_ARGS", " --host <host>"]
            )
        if kind == 9:
            return text + rng.choice([" > log.txt 2>&1 &", " | tee log", " && echo done", "; sleep 1"])
        if kind == 10:
            return f"export {rng.choice(self.deprecated_env or self.env_names)}=1\n{text}"
        if kind == 11:
            return f"SGL_{rng.choice(['USE_AITER', 'ENABLE_JIT', 'X'])}=1 {text}"
        if kind == 12:
            return text.replace(
                "python -m sglang.launch_server",
                rng.choice(
                    [
                        "sglang serve",
                        "python3 -m sglang.launch_server",
                        "python -m sglang.launch_servr",
                        "torchrun --nproc-per-node 8 -m sglang.launch_server",
                        "python -msglang.launch_server",
                    ]
                ),
            )
        return text + " -- extra"

    def flag_from_elsewhere(self, text: str) -> str:
        extra = self.rng.choice(
            [
                "--dataset-name random", "--policy cache_aware", "--tp-size=2", "--enable-metrics=true",
                "--enable-metrics yes", "--no-enable-metrics", "--host 0.0.0.0", "--host ::1", "--host 127.0.0.2",
                "--json-model-override-args '{\"a\": 1}'", "--json-model-override-args '{bad'", "--cuda-graph-bs 1 2 4",
                "--cuda-graph-bs", "-1", "--nnodes 2", "--dp-size 2 --attn-dp-size 2", "--enable-dp-attention --dp-size 4",
                "--speculative-algorithm eagle", "--speculative-num-steps 3", "--trust-remote-code", "--api-key k",
                "--max-total-tokens 1.5Mi", "--chunked-prefill-size 4097 --page-size 16", "--config c.yaml",
            ]
        )  # fmt: skip
        return f"{text} {extra}"

    def mutate(self, text: str) -> str:
        kinds = (
            self.typo, self.abbreviation, self.wrong_choice, self.wrong_type, self.drop_value, self.shuffle,
            self.repeat, self.wrapper, self.flag_from_elsewhere,
        )  # fmt: skip
        out = self.rng.choice(kinds)(text)
        if self.rng.random() < 0.3:  # sometimes two mistakes at once
            out = self.rng.choice(kinds)(out)
        return out

    def many(self, bases: list[str], count: int) -> Iterator[str]:
        for i in range(count):
            yield self.mutate(bases[i % len(bases)])
