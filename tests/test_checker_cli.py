"""``python -m handbook check``: findings in the chosen language, exit status 0 clean, 1 warnings, 2 errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # out of nox -s unit: each test runs `python -m handbook check` apart

RUN = [sys.executable, "-m", "handbook", "check"]


def check(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*RUN, *args], input=stdin, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(
    ("command", "status", "last_line"),
    [
        (["python", "-m", "sglang.launch_server", "--model-path", "m", "--tp-size", "2"], 0,
         "✔ no problems found (checked against sglang 0.5.23)"),
        (["python", "-m", "sglang.launch_server", "--model-path", "m", "--attn-d", "1"], 1,
         "✖ 0 error(s), 1 warning(s), 0 note(s) (sglang 0.5.23)"),
        (["python", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "2"], 0,
         "✔ no problems found (checked against sglang 0.5.23)"),
        (["python", "-m", "sglang.launch_server", "--model-path", "m", "--tp-sise", "2"], 2,
         "✖ 1 error(s), 0 warning(s), 0 note(s) (sglang 0.5.23)"),
    ],
)  # fmt: skip
def test_exit_status_and_summary(command, status, last_line):
    done = check("--lang", "en", "--", *command)
    assert done.returncode == status, done.stderr
    assert done.stdout.splitlines()[-1] == last_line
    assert "Traceback" not in done.stderr


def test_findings_in_english_with_the_explaining_link():
    done = check("--lang", "en", "--", "--enable-hierarchical-cache", "--disable-radix-cache")
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        "1: error[rule.hicache-excludes-disable-radix-cache]: HiCache (--enable-hierarchical-cache) extends "
        "RadixCache and cannot be combined with --disable-radix-cache. sglang 0.5.23 refuses to start: ValueError "
        "in kv_cache_hook.py handle_cache_compatibility.",
        "    → en/04-parameters/#disable-radix-cache",
        "✖ 1 error(s), 0 warning(s), 0 note(s) (sglang 0.5.23)",
    ]


def test_command_on_stdin_in_chinese():
    text = "python -m sglang.bench_serving \\\n  --dataset-name random\n"
    done = check("--lang", "zh", stdin=text)
    assert (
        done.returncode == 0
    )  # a deprecated alias that still runs: a note, with the command to write instead
    assert done.stdout.splitlines() == [
        "1: 提示[module.deprecated]: python -m sglang.bench_serving 在 sglang 0.5.23 中已弃用，请改用 "
        "python -m sglang.benchmark.serving",
        "改正后的命令（第 1 行起）：",
        "    python -m sglang.benchmark.serving \\",
        "      --dataset-name random",
        "✔ 未发现问题（对照 sglang 0.5.23 检查）",
    ]


def test_placeholders_survive_the_argument_list():
    done = check("--lang", "en", "--", "python", "-m", "sglang.launch_server", "--model-path", "<model>")
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "1: note[value.placeholder]: Placeholders, not type-checked: --model-path <model>",
        "✔ no problems found (checked against sglang 0.5.23)",
    ]


def test_nothing_to_check():
    done = check("--lang", "en", "--", "curl", "http://localhost:30000/metrics")
    assert (done.returncode, done.stdout.strip()) == (
        0,
        "no SGLang command or flags found (python -m sglang.launch_server, sglang_router.launch_router, "
        "sglang.benchmark.serving, docker run wrappers and flags-only fragments are understood)",
    )


# ------------------------------------------------------------------------------------------------ fail closed
def test_flags_with_no_program_are_a_warning_not_a_clean_bill():
    done = check("--lang", "en", "--", "my_launcher", "--tp-sise", "2", "--model-path", "m")
    assert done.returncode == 1
    assert done.stdout.splitlines()[0] == (
        "1: warning[shell.no-program]: the text has flags (--tp-sise, --model-path) but no SGLang program the "
        "checker recognizes, so they were not checked; paste the whole command (python -m sglang.launch_server …, "
        "or one wrapped in docker run, timeout, srun and the like)"
    )


def test_an_unloadable_kb_stops_the_check(tmp_path):
    import shutil
    from pathlib import Path

    kb = tmp_path / "kb"
    shutil.copytree(Path(__file__).resolve().parents[1] / "kb", kb)
    (kb / "handbook.yaml").write_text("oops: [\n", encoding="utf-8")
    done = check(
        "--lang", "en", "--kb", str(kb), "--", "python", "-m", "sglang.launch_server", "--model-path", "m"
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("✖ the knowledge base has 1 problem(s), so the command cannot be checked")


def test_a_rule_that_cannot_be_evaluated_stops_the_check(tmp_path):
    import shutil
    from pathlib import Path

    kb = tmp_path / "kb"
    shutil.copytree(Path(__file__).resolve().parents[1] / "kb", kb)
    rules = kb / "rules.yaml"
    text = rules.read_text(encoding="utf-8")
    first = text.index("predicate: ") + len("predicate: ")
    rules.write_text(text[:first] + "no-such-predicate" + text[text.index("\n", first) :], encoding="utf-8")
    done = check(
        "--lang", "en", "--kb", str(kb), "--", "python", "-m", "sglang.launch_server", "--model-path", "m"
    )
    assert done.returncode == 2
    assert "cannot be checked against its rules" in done.stderr


def test_engine_names_a_stored_release_and_nothing_else():
    done = check(
        "--engine", "../../etc/passwd", "--", "python", "-m", "sglang.launch_server", "--model-path", "m"
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
