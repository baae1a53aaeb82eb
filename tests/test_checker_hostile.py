"""Hostile commands, generated: the checker sees through every launcher or says it cannot (an error, never a
warning that hides the command's findings), finds invisible characters, suggests what difflib would, and on
any paste takes steps in proportion to its length (counted, not timed: `nox -s bench` times them) with a
bounded depth, in Python and in the browser's checker alike."""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handbook.checker import check_command, exit_status
from handbook.checker.export import checker_data
from handbook.checker.shell import KEYWORDS, LAUNCHERS, MAX_NESTING, QUOTING
from handbook.core.suggest import SUGGESTIONS_PER_CHECK, Suggestions, closest
from handbook.core.text import INVISIBLE, INVISIBLE_RANGES, visible
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb
from handbook.site.bench import long_commands

pytestmark = pytest.mark.slow  # out of nox -s unit: 100k-character pastes through both checkers

KB = load_kb()
SNAPSHOT = load_snapshot()
JS = Path(__file__).parent / "js"
SERVER = "python -m sglang.launch_server --model-path m"
TYPO = f"{SERVER} --tp-sise 2"

FUZZ = os.environ.get("HANDBOOK_FUZZ_EXAMPLES")
PROPERTY = settings(
    max_examples=int(FUZZ or 150),
    deadline=None,
    derandomize=FUZZ is None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def codes(text: str) -> Counter[str]:
    return Counter(f.code for f in check_command(text, SNAPSHOT, KB))


# ------------------------------------------------------------------------------------------ launchers
@st.composite
def launcher(draw: st.DrawFn) -> str:
    """One launcher of the table, with options, values and operands as its own syntax allows."""
    head, how = draw(st.sampled_from(sorted(LAUNCHERS.items())))
    words = list(head)
    for _ in range(draw(st.integers(0, 2))):
        if how.takes_value and draw(st.booleans()):
            option = draw(st.sampled_from(how.takes_value))
            words += [f"{option}=v1"] if option.startswith("--") and draw(st.booleans()) else [option, "v1"]
        elif how.switches_only:
            words.append(draw(st.sampled_from(["-q", "--quiet", "-it"])))
    if how.env_options and draw(st.booleans()):
        words += [how.env_options[0], "SGLANG_ENABLE_TORCH_COMPILE=1"]
    words += [f"operand{k}" for k in range(how.operands)]
    if how.double_dash:
        words.append("--")
    return " ".join(words)


@st.composite
def launched(draw: st.DrawFn) -> str:
    """A command with a typo behind a chain of launchers, prefixes, docker runs, shells and compound commands
    (a compound command is only ever outermost, or inside a shell: ``sudo { …; }`` runs a program named ``{``)."""
    text = TYPO
    compound = False
    for _ in range(draw(st.integers(1, 5))):
        forms = (
            ["shell", "subshell"]
            if compound
            else ["launcher", "launcher", "prefix", "docker", "shell", "subshell"]
        )
        form = draw(st.sampled_from(forms))
        if form == "launcher":
            text = f"{draw(launcher())} {text}"
        elif form == "prefix":
            text = f"SGLANG_X{draw(st.integers(0, 9))}=1 {text}"
        elif form == "docker":
            text = f"docker run --gpus all -e A=1 --shm-size 32g img {text}"
        elif form == "shell" and "'" not in text:
            text = draw(
                st.sampled_from([f"bash -c '{text}'", f"sh -lc '{text}'", f"ssh -p 22 host '{text}'"])
            )
            compound = False
        elif form == "subshell":
            text = draw(st.sampled_from([f"( {text} )", f"{{ {text}; }}", f"if true; then {text}; fi"]))
            compound = True
    return text


@PROPERTY
@given(launched())
def test_a_typo_behind_any_chain_of_launchers_is_found(text):
    found = codes(text)
    assert found["flag.unknown"] == 1, (text, found)
    assert not found & Counter(["shell.no-program", "shell.unseen-program", "shell.too-deep"]), (text, found)


KNOWN_FIRST = (
    {head[0] for head in LAUNCHERS}
    | KEYWORDS
    | QUOTING
    | {"python", "python3", "sglang", "torchrun", "docker", "ssh", "eval"}
)


@PROPERTY
@given(
    st.from_regex(r"[a-z][a-z0-9_-]{1,12}", fullmatch=True).filter(lambda w: w not in KNOWN_FIRST),
    st.sampled_from(["", "--opt ", "-x 1 ", "run ", "exec -it box "]),
    st.sampled_from([TYPO, f"'{TYPO}'", f'"{TYPO}"', "sglang serve --model-path m --tp-sise 2"]),
)
def test_a_launcher_the_checker_does_not_know_is_an_error_not_a_warning(name, options, command):
    findings = check_command(f"{name} {options}{command}", SNAPSHOT, KB)
    found = Counter(f.code for f in findings)
    assert found["shell.unseen-program"] == 1, (name, options, found)
    assert "shell.no-program" not in found
    assert exit_status(findings) == 2


def test_shells_nested_deeper_than_the_limit_are_an_error_not_silence():
    deep = "ssh host " * (MAX_NESTING + 1) + TYPO
    assert codes(deep)["shell.too-deep"] == 1
    shallow = "ssh host " * MAX_NESTING + TYPO
    assert codes(shallow)["flag.unknown"] == 1
    assert codes("ssh host " * (MAX_NESTING + 1) + "ls -l")["shell.too-deep"] == 0  # nothing SGLang inside


@pytest.mark.parametrize(
    "text",
    [
        f"pkill -f '{SERVER}'",
        f"ps aux | grep '{SERVER}'",
        f"echo '{SERVER} --tp-sise 2'",
        f"python -m handbook check -- {TYPO}",
    ],
)
def test_commands_that_only_quote_an_sglang_command_are_not_launches(text):
    assert codes(text)["shell.unseen-program"] == 0


# ------------------------------------------------------------------------------------------ invisible
invisible_char = st.sampled_from(INVISIBLE_RANGES).flatmap(lambda r: st.integers(r[0], r[1])).map(chr)


@PROPERTY
@given(invisible_char, st.integers(0, len(TYPO)), st.integers(0, 3))
def test_an_invisible_character_anywhere_is_an_error_on_its_line_and_shown_visibly(char, at, blank_lines):
    text = "\n" * blank_lines + TYPO[:at] + char + TYPO[at:]
    findings = check_command(text, SNAPSHOT, KB)
    marked = [f for f in findings if f.code == "shell.invisible"]
    assert len(marked) == 1 and marked[0].line == blank_lines + 1
    assert marked[0].subject == f"U+{ord(char):04X}"
    for lang in ("zh", "en"):
        assert not INVISIBLE.search(marked[0].message[lang])
        assert f"⟨U+{ord(char):04X}⟩" in marked[0].message[lang]
    assert exit_status(findings) == 2


@PROPERTY
@given(st.text(max_size=60))
def test_visible_writes_out_every_invisible_character_and_keeps_the_rest(text):
    shown = visible(text)
    assert not INVISIBLE.search(shown)
    if not INVISIBLE.search(text):
        assert shown == text


def test_the_set_covers_the_classes_the_review_used():
    for char in (
        "\u202e",
        "\u2066",
        "\u200b",
        "\u200d",
        "\ufeff",
        "\x1b",
        "\x07",
        "\x9b",
        "\u00ad",
        "\U000e0041",
    ):
        assert INVISIBLE.fullmatch(char), hex(ord(char))
    for char in ("\t", "\n", "\r", " ", "\u00a0", "中", "é"):
        assert not INVISIBLE.fullmatch(char), hex(ord(char))


# ------------------------------------------------------------------------------------------ suggestions
names = st.text(alphabet="abcdefgh-_", max_size=14)


@PROPERTY
@given(names, st.lists(names, max_size=30))
def test_closest_is_difflibs_closest_match(name, options):
    expected = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    assert closest(name, options) == (expected[0] if expected else None)


@PROPERTY
@given(
    st.text(alphabet="ab", min_size=190, max_size=260),
    st.lists(st.text(alphabet="abc", max_size=260), max_size=6),
)
def test_closest_agrees_with_difflib_on_long_names_too(name, options):
    """From 200 characters on, difflib drops a name's frequent letters (autojunk): the bound must still hold."""
    expected = difflib.get_close_matches(name, options, n=1, cutoff=0.6)
    assert closest(name, options) == (expected[0] if expected else None)


def test_a_check_compares_at_most_its_budget_of_names_and_each_name_once():
    typos = [f"--tp-sise{i}" for i in range(SUGGESTIONS_PER_CHECK + 20)]
    text = f"{SERVER} {' '.join(typos + typos[:5])}"
    unknown = [f for f in check_command(text, SNAPSHOT, KB) if f.code == "flag.unknown"]
    hinted = [f.subject for f in unknown if "closest" in f.message.en]
    assert hinted == typos[:SUGGESTIONS_PER_CHECK] + typos[:5]  # a repeated name keeps its answer
    suggest = Suggestions(limit=1)
    assert suggest.closest("--tp-sise", "p", ["--tp-size"]) == "--tp-size"
    assert suggest.closest("--tp-sise", "p", []) == "--tp-size"  # remembered, not compared again
    assert suggest.closest("--ep-sise", "p", ["--ep-size"]) is None  # over the budget


# ------------------------------------------------------------------------------------------ linear, bounded
SMALL, LARGE = 3_000, 12_000  # four times the text


def steps(text: str) -> int:
    """Python function calls (and C calls) the check makes: a count that does not depend on the machine."""
    count = 0

    def counting(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(counting)
    try:
        check_command(text, SNAPSHOT, KB)
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize("shape", sorted(long_commands(SMALL)))
def test_every_hostile_shape_takes_steps_in_proportion_to_its_length(shape):
    small, large = long_commands(SMALL)[shape], long_commands(LARGE)[shape]
    growth = steps(large) / steps(small)
    # four times the text: about four times the steps; a quadratic shape would take about sixteen
    assert growth < 6, f"{shape}: {growth:.1f}x the steps for {len(large) / len(small):.1f}x the text"


@pytest.mark.parametrize("shape", sorted(long_commands(SMALL)))
def test_no_hostile_shape_needs_a_deep_stack(shape):
    text = long_commands(100_000)[shape]
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(__import__("inspect").stack()) + 120)
    try:
        check_command(text, SNAPSHOT, KB)
    finally:
        sys.setrecursionlimit(limit)


# ------------------------------------------------------------------------------------------ the browser
def test_the_browser_checker_runs_every_100k_shape_on_a_small_stack_and_agrees(node):
    from handbook.site.configurator import finding_json

    shapes = long_commands(100_000)
    payload = json.dumps({"data": checker_data(SNAPSHOT, KB), "cases": list(shapes.values())})
    # a quarter of node's default stack: a checker that recursed per wrapper or per bracket would overflow
    done = subprocess.run(
        [node, "--stack-size=250", str(JS / "run_checker.js")], input=payload, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = [json.loads(line) for line in done.stdout.splitlines()]
    for (shape, text), got in zip(shapes.items(), results, strict=True):
        assert "crash" not in got, (shape, got.get("crash", "")[:500])
        expected = [finding_json(f) for f in check_command(text, SNAPSHOT, KB)]
        assert got["findings"] == expected, shape
