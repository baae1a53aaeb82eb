"""One-line errors everywhere: every option of every subcommand, given a hostile value of its kind
(integers up to 10^5000, inf, nan, 1e999, a lone surrogate, a path that is missing, a folder, a file, or
holds a NUL), ends in exactly one line on stderr, exit status 2 and no traceback; so do hostile positional
arguments, hostile standard input and hostile files given to engine-diff. The options are read from the
parsers themselves, so a new option is fuzzed without being listed here."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from pathlib import Path

import pytest
from exhaustive import sized
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handbook.cli import SUBCOMMANDS, build_parser, main
from handbook.core import arguments
from handbook.core.formatting import integer_text
from handbook.core.text import INVISIBLE

pytestmark = pytest.mark.slow  # out of nox -s unit: fuzzing: each case runs a subcommand

FUZZ = os.environ.get("HANDBOOK_FUZZ_EXAMPLES")


def fuzzed(sample: int, full: int = 60) -> settings:
    """The same ``sample`` cases every time in the suite, ``full`` under `nox -s exhaustive`, and
    HANDBOOK_FUZZ_EXAMPLES new ones when it is set."""
    return settings(
        max_examples=int(FUZZ or sized(sample, full)),
        deadline=None,
        derandomize=FUZZ is None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


PROPERTY = fuzzed(60)
# Each case of these two runs a subcommand that loads the KB first (about 0.1-0.3 s): 20 per option in the
# suite, whose paths, choices and numbers are few kinds of value each; 60 in `nox -s exhaustive`.
SUBCOMMAND_CASES = fuzzed(20)
HERE = Path(__file__).resolve()


def run(argv: list[str], stdin: bytes | None = None) -> tuple[int, str, str]:
    """``python -m handbook *argv`` in this process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(argv)
            except SystemExit as stop:  # argparse's own exit, after its one line
                status = stop.code if isinstance(stop.code, int) else 1
    finally:
        sys.stdin = saved
    return status, out.getvalue(), err.getvalue()


def assert_one_line_error(status: int, out: str, err: str) -> None:
    assert "Traceback" not in out + err
    assert status == 2, (status, err)
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("✖ "), err
    assert not INVISIBLE.search(err)


# ------------------------------------------------------------------------------------------ every option
def _options() -> list[tuple[str, str, str]]:
    """(subcommand, option, kind) for every option whose values can be wrong."""
    out = []
    for name in SUBCOMMANDS:
        parser = build_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]
        parsers = [sub]
        kinds = next((a for a in sub._actions if isinstance(a, argparse._SubParsersAction)), None)
        if kinds is not None:  # new recipe|model|hardware|pitfall
            parsers = [kinds.choices[k] for k in kinds.choices]
        for each in parsers:
            prefix = each.prog.split("handbook ", 1)[1]
            for action in each._actions:
                if not action.option_strings or action.nargs == 0:
                    continue
                kind = _kind(action)
                if kind is not None:
                    out.append((prefix, action.option_strings[-1], kind))
    return sorted(set(out))


def _kind(action: argparse.Action) -> str | None:
    kind = action.type
    for named in ("folder", "file", "output", "new_folder", "text"):
        if kind is getattr(arguments, named):
            return named
    if kind is arguments.output_or_dash:
        return "output"
    if getattr(kind, "__name__", "") in ("whole number", "number"):
        return "number"
    if action.choices is not None:
        return "choice"
    return None


OPTIONS = _options()


def test_the_options_fuzzed_are_every_kind_of_every_command():
    kinds = {kind for _, _, kind in OPTIONS}
    assert kinds >= {"folder", "file", "output", "new_folder", "text", "number", "choice"}
    commands = {command.split()[0] for command, _, _ in OPTIONS}
    assert commands >= {"validate", "build", "generate", "new", "check", "plan", "configure", "links"}
    assert len(OPTIONS) >= 40


def hostile(kind: str, tmp: Path) -> st.SearchStrategy[str]:
    folder_path, file_path = str(tmp), str(HERE)
    missing = str(tmp / "missing" / "deeper")
    paths = {
        "folder": [missing, file_path, "a\x00b", "\udcff/x"],
        "file": [missing, folder_path, "a\x00b", "/dev/null"],
        "output": [folder_path, str(tmp / "missing" / "x.json"), "a\x00b"],
        "new_folder": [str(tmp / "missing" / "site"), "a\x00b"],
    }
    if kind in paths:
        return st.sampled_from(paths[kind])
    if kind == "number":
        huge = st.integers(min_value=10**20, max_value=10**5000).map(integer_text)  # str() stops at 4,300
        return st.one_of(
            huge,
            huge.map(lambda v: "-" + v),
            st.sampled_from(["inf", "-inf", "nan", "NaN", "1e999", "0x10", ""]),
        )
    if kind == "text":
        return st.text(st.characters(categories=["Cs"]), min_size=1, max_size=3).map(lambda s: "a" + s)
    return st.text(min_size=1, max_size=12).filter(lambda s: s not in ("zh", "en") and not s.startswith("-"))


@pytest.mark.parametrize(("command", "option", "kind"), OPTIONS, ids=[f"{c} {o}" for c, o, _ in OPTIONS])
@SUBCOMMAND_CASES
@given(data=st.data())
def test_a_hostile_value_of_any_option_is_one_line_and_exit_2(command, option, kind, data, tmp_path):
    value = data.draw(hostile(kind, tmp_path))
    if kind == "number" and value in ("",):
        value = "-"
    status, out, err = run([*command.split(), option, value])
    assert_one_line_error(status, out, err)


# ------------------------------------------------------------------------------------------ positionals, stdin, files
@SUBCOMMAND_CASES
@given(st.text(st.characters(categories=["Cs", "Cc", "Cf", "Lo"]), min_size=1, max_size=8))
def test_a_hostile_id_for_new_is_one_line_and_exit_2(name):
    status, out, err = run(["new", "hardware", name])
    assert_one_line_error(status, out, err)


@PROPERTY
@given(st.binary(min_size=1, max_size=40).filter(lambda b: not _utf8(b)))
def test_standard_input_that_is_not_utf8_is_one_line_and_exit_2(data):
    status, out, err = run(["check"], stdin=b"python -m sglang.launch_server " + data)
    assert_one_line_error(status, out, err)
    assert "standard input is not UTF-8 text" in err


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


@pytest.mark.parametrize(
    "content",
    [
        b"[" * 100_000,
        b'{"a": ' + b"9" * 5000 + b"}",
        b"\xff\xfe not utf-8",
        b'{"schema_version": 1, "password": "hunter2"}',
        b"root:x:0:0:root:/root:/bin/bash\n",
        b"",
    ],
)
def test_engine_diff_on_a_hostile_file_is_one_line_exit_2_and_never_echoes_it(tmp_path, content):
    path = tmp_path / "snapshot.json"
    path.write_bytes(content)
    status, out, err = run(["engine-diff", "0.5.23", str(path)])
    assert_one_line_error(status, out, err)
    for secret in ("hunter2", "password", "root:x"):
        assert secret not in err


@pytest.mark.parametrize("given", ["", "a\x00b", "\udcff", "/dev/null", "."])
def test_engine_diff_on_a_path_that_is_no_file_is_one_line_and_exit_2(given):
    status, out, err = run(["engine-diff", "0.5.23", given])
    assert_one_line_error(status, out, err)


# ------------------------------------------------------------------------------------------ the cases
@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "--model", "deepseek-v3", "--gpu", "h200", "--tp", str(10**30)],
        ["plan", "--model", "deepseek-v3", "--gpu", "h200", "--tp", integer_text(10**5000)],
        ["plan", "--model", "deepseek-v3", "--gpu", "h200", "--context", str(10**30)],
        ["plan", "--model", "deepseek-v3", "--gpu", "h200", "--tp", "100000"],
        ["plan", "--model", "deepseek-v3", "--gpu", "h200", "--kb", "/no/such/kb"],
        ["configure", "--model", "x", "--gpu", "x", "--precision", "x", "--goal", "x", "--kb", "/no/such/kb"],
        ["translations", "--docs", "/no/such/docs"],
        ["links", "--config", "/no/such/mkdocs.yml"],
        ["new", "hardware", "gpu-x", "--memory-gb", "nan"],
        ["new", "hardware", "gpu-x", "--memory-gb", "1e999"],
        ["new", "recipe", "r-x", "--gpus", str(10**30)],
        ["new", "hardware", "gpu-x", "--name", "a\ud800"],
        ["new", "hardware", "con"],
        ["engine-diff", "0.5.22", "0.5.23", "--output", "/no/such/folder/diff.md"],
        ["engine-diff", "0.5.22", "0.5.23", "--output", "/tmp"],
        [
            "check",
            "--context-length",
            "x",
            "--",
            "python",
            "-m",
            "sglang.launch_server",
            "--tp-size",
            "9" * 5000,
        ],
    ],
)
def test_the_reviews_cases_are_one_line_and_exit_2(argv, tmp_path):
    if argv[:1] == ["new"]:
        kb = tmp_path / "kb"
        kb.mkdir()
        (kb / "hardware").mkdir()
        argv = [*argv, "--kb", str(kb)]
    if argv[0] == "check":  # a command with a 5,000-digit integer: findings, never a traceback
        status, out, err = run(["check", "--lang", "en", "--", *argv[4:]])
        assert "Traceback" not in out + err and status == 2 and "--tp-size" in out
        return
    status, out, err = run(argv)
    assert_one_line_error(status, out, err)


def test_a_closed_pipe_ends_quietly(tmp_path):
    import subprocess

    done = subprocess.run(
        f"{sys.executable} -m handbook engine-diff 0.5.10 0.5.23 | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        cwd=HERE.parents[1],
    )
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
