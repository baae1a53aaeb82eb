"""The checker's shell reading: commands as people paste them, with the line each word starts on."""

from __future__ import annotations

import pytest

from handbook.checker.check import check_command, entry_points
from handbook.checker.shell import ShellSyntaxError, parse_script, split_commands
from handbook.engine import load_snapshot


@pytest.fixture(scope="module")
def points():
    return entry_points(load_snapshot())


def words(text: str) -> list[list[tuple[str, int]]]:
    return [[(w.text, w.line) for w in c.words] for c in split_commands(text)]


def test_continuations_keep_each_words_line():
    text = "python -m sglang.launch_server \\\n  --model-path m \\\n  --tp-size 2\n"
    assert words(text) == [
        [
            ("python", 1),
            ("-m", 1),
            ("sglang.launch_server", 1),
            ("--model-path", 2),
            ("m", 2),
            ("--tp-size", 3),
            ("2", 3),
        ]
    ]


def test_comments_quotes_separators_and_redirections():
    text = "# a title\necho 'a # b' \"c d\" # trailing\nls -l > out.txt 2>&1 | wc -l && cd x; pwd &\n"
    assert words(text) == [
        [("echo", 2), ("a # b", 2), ("c d", 2)],
        [("ls", 3), ("-l", 3)],
        [("wc", 3), ("-l", 3)],
        [("cd", 3), ("x", 3)],
        [("pwd", 3)],
    ]


def test_a_comment_ends_the_command_even_after_a_backslash_line():
    # the comment swallows the line's end: the next line is a new command, as in bash
    assert words("a \\\n  b  # note \\\nc\n") == [[("a", 1), ("b", 2)], [("c", 3)]]


def test_placeholders_are_marked_not_expanded():
    (command,) = split_commands(
        'run --host ${IP} --port $PORT --x "<v>" --y <model> --z $(hostname) --w plain\n'
    )
    marked = {w.text: w.placeholder for w in command.words}
    assert marked == {
        "run": False,
        "--host": False,
        "${IP}": True,
        "--port": False,
        "$PORT": True,
        "--x": False,
        "<v>": True,
        "--y": False,
        "<model>": True,
        "--z": False,
        "$(hostname)": True,
        "--w": False,
        "plain": False,
    }


def test_unterminated_quote_is_a_syntax_error_with_its_line():
    with pytest.raises(ShellSyntaxError) as caught:
        split_commands("echo ok\necho 'open\n")
    assert (str(caught.value), caught.value.line) == ("unterminated single quote", 2)


def test_exports_prefixes_and_several_commands(points):
    text = (
        "export SGLANG_USE_AITER=1 B='x y'\n"
        "CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server --model-path m --tp-size 2\n"
        "python -m sglang_router.launch_router --pd-disaggregation\n"
        "sglang serve --model-path m\n"
        "curl http://localhost:30000/metrics\n"
    )
    script = parse_script(text, *points)
    assert [(a.name, a.value.text, a.how, a.line) for a in script.assignments] == [
        ("SGLANG_USE_AITER", "1", "export", 1),
        ("B", "x y", "export", 1),
        ("CUDA_VISIBLE_DEVICES", "0,1", "prefix", 2),
    ]
    assert [(i.kind, i.program, i.module, i.line, [w.text for w in i.args]) for i in script.invocations] == [
        ("program", "launch_server", "sglang.launch_server", 2, ["--model-path", "m", "--tp-size", "2"]),
        ("program", "launch_router", "sglang_router.launch_router", 3, ["--pd-disaggregation"]),
        ("program", "launch_server", None, 4, ["--model-path", "m"]),
    ]


def test_docker_run_wrapper(points):
    text = (
        'docker run --gpus all --shm-size 32g --ipc=host -p 30000:30000 -e HF_TOKEN --env "A=<token>" \\\n'
        "  lmsysorg/sglang:latest \\\n"
        "  python -m sglang.launch_server --model-path <model> --host 0.0.0.0\n"
    )
    (invocation,) = parse_script(text, *points).invocations
    assert invocation.kind == "program" and invocation.program == "launch_server"
    assert invocation.docker.image.text == "lmsysorg/sglang:latest"
    assert [w.text for w in invocation.docker.options] == [
        "--gpus", "all", "--shm-size", "32g", "--ipc=host", "-p", "30000:30000", "-e", "HF_TOKEN", "--env", "A=<token>",
    ]  # fmt: skip
    assert invocation.docker.has_option("--shm-size") and invocation.docker.has_option("--ipc")
    assert [(e.name, e.value.text if e.value else None, e.how) for e in invocation.env] == [
        ("HF_TOKEN", None, "docker"),
        ("A", "<token>", "docker"),
    ]
    assert [w.text for w in invocation.args] == ["--model-path", "<model>", "--host", "0.0.0.0"]
    assert invocation.args[1].placeholder


def test_docker_run_without_a_known_command(points):
    (invocation,) = parse_script("docker run --rm -it ubuntu bash\n", *points).invocations
    assert (invocation.kind, invocation.program, invocation.docker.image.text) == ("docker", None, "ubuntu")


def test_flags_only_fragment_written_over_lines_is_one_fragment(points):
    text = "--enable-hierarchical-cache\n--hicache-size 180\n\n--enable-metrics\n"
    script = parse_script(text, *points)
    assert [(i.kind, i.program, [w.text for w in i.args]) for i in script.invocations] == [
        ("fragment", "launch_server", ["--enable-hierarchical-cache", "--hicache-size", "180"]),
        ("fragment", "launch_server", ["--enable-metrics"]),
    ]


def test_flag_lines_after_a_command_are_orphans(points):
    text = "python -m sglang.launch_server --model-path m  # the comment cuts it\n  --tp-size 2\n"
    script = parse_script(text, *points)
    assert [i.line for i in script.invocations] == [1]
    assert [[w.text for w in o.words] for o in script.orphans] == [["--tp-size", "2"]]


def test_deprecated_and_unknown_modules(points):
    text = "python -m sglang.bench_serving --backend sglang\npython -m sglang.launch_sever --model-path m\n"
    script = parse_script(text, *points)
    assert [(i.kind, i.program, i.module) for i in script.invocations] == [
        ("program", "bench_serving", "sglang.bench_serving"),
        ("module", None, "sglang.launch_sever"),
    ]


def marked(text: str) -> list[list[tuple[str, str, int, bool]]]:
    return [[(w.text, w.raw, w.line, w.placeholder) for w in c.words] for c in split_commands(text)]


def test_nested_command_substitution_is_one_placeholder_word():
    assert marked("echo $(dirname $(which python))/lib x\n") == [
        [
            ("echo", "echo", 1, False),
            ("$(dirname $(which python))/lib", "$(dirname $(which python))/lib", 1, True),
            ("x", "x", 1, False),
        ]
    ]


def test_braced_expansions_outside_and_inside_double_quotes():
    assert marked('run --path ${MODEL_DIR:-/models}/llama --port "${PORT}"\n') == [
        [
            ("run", "run", 1, False),
            ("--path", "--path", 1, False),
            ("${MODEL_DIR:-/models}/llama", "${MODEL_DIR:-/models}/llama", 1, True),
            ("--port", "--port", 1, False),
            ("${PORT}", '"${PORT}"', 1, True),
        ]
    ]


def test_a_bracket_inside_quotes_does_not_close_an_expansion():
    # the shell reads $(echo ")") as one substitution and ${A:-"}"} as one expansion
    assert marked('echo $(echo ")") x ${A:-"}"}y z\n') == [
        [
            ("echo", "echo", 1, False),
            ('$(echo ")")', '$(echo ")")', 1, True),
            ("x", "x", 1, False),
            ('${A:-"}"}y', '${A:-"}"}y', 1, True),
            ("z", "z", 1, False),
        ]
    ]


def test_nested_braced_expansions_are_one_word():
    # the first } closes the inner expansion, not the outer one: the space is inside it
    assert marked("run --path ${DIR:-${HOME}/my models} --port 1\n") == [
        [
            ("run", "run", 1, False),
            ("--path", "--path", 1, False),
            ("${DIR:-${HOME}/my models}", "${DIR:-${HOME}/my models}", 1, True),
            ("--port", "--port", 1, False),
            ("1", "1", 1, False),
        ]
    ]


def test_newlines_inside_a_substitution_still_count_as_lines():
    text = "python -m sglang.launch_server --model-path $(ls\n  /models) \\\n  --tp-size x\n"
    (command,) = split_commands(text)
    assert [(w.text, w.line) for w in command.words][-2:] == [("--tp-size", 3), ("x", 3)]
    (finding,) = [f for f in check_command(text, SNAPSHOT) if f.severity == "error"]
    assert finding.line == 3  # the bad value is reported where it is written


def test_a_lone_dollar_is_a_plain_character():
    assert marked('echo $ "a$" $1\n') == [
        [("echo", "echo", 1, False), ("$", "$", 1, False), ("a$", '"a$"', 1, False), ("$1", "$1", 1, True)]
    ]


def test_escaped_quotes():
    text = 'echo "say \\"hi\\"" \'it\'\\\'\'s\' \\"bare\\"\n'  # echo "say \"hi\"" 'it'\''s' \"bare\"
    assert marked(text) == [
        [
            ("echo", "echo", 1, False),
            ('say "hi"', '"say \\"hi\\""', 1, False),
            ("it's", "'it'\\''s'", 1, False),
            ('"bare"', '\\"bare\\"', 1, False),
        ]
    ]


def test_continuation_inside_quotes():
    # in double quotes backslash-newline vanishes; in single quotes both characters stay
    text = "echo \"a\\\n  b\" 'c\\\nd' e\n"
    assert marked(text) == [
        [
            ("echo", "echo", 1, False),
            ("a  b", '"a\\\n  b"', 1, False),
            ("c\\\nd", "'c\\\nd'", 2, False),
            ("e", "e", 3, False),
        ]
    ]


def test_comments_after_words_end_at_the_line_and_a_hash_inside_a_word_is_kept():
    text = "python -m x --a 1 # note --b 2\n--c 3 a#b\n"
    assert words(text) == [
        [("python", 1), ("-m", 1), ("x", 1), ("--a", 1), ("1", 1)],
        [("--c", 2), ("3", 2), ("a#b", 2)],
    ]


def test_unterminated_double_quote_points_at_where_the_word_starts():
    with pytest.raises(ShellSyntaxError) as caught:
        split_commands('echo ok\necho "open\nstill open\n')
    assert (str(caught.value), caught.value.line, caught.value.problem.zh) == (
        "unterminated double quote",
        2,
        "双引号没有闭合",
    )


# ------------------------------------------------------------------------------------------------ launchers
SNAPSHOT = load_snapshot()
LAUNCHERS = [
    "timeout 600",
    "timeout -s KILL --kill-after=10 1h",
    "uv run",
    "uv run --with sglang==0.5.23",
    "srun",
    "srun -N 2 --ntasks-per-node=1 --gres=gpu:8",
    "srun --nodes 2 --exclusive",
    "numactl --cpunodebind=0 --membind=0",
    "numactl -N 0 -m 0",
    "stdbuf -oL -eL",
    "stdbuf -o L",
    "sudo -E",
    "sudo -u sglang --preserve-env=HF_TOKEN",
    "env",
    "env -u CUDA_VISIBLE_DEVICES HF_TOKEN=x",
    "nohup",
    "exec",
    "time",
    "nice -n 10",
    "taskset -c 0-15",
    "HF_TOKEN=x nohup",
]
COMMANDS = [
    "python -m sglang.launch_server --model-path m --tp-sise 2",
    "python3 -m sglang.launch_server --model-path m --tp-sise 2",
    "python3.11 -m sglang.launch_server --model-path m --tp-sise 2",
]


def unknown_flag_lines(text: str) -> list[int | None]:
    return [f.line for f in check_command(text, SNAPSHOT) if f.code == "flag.unknown"]


@pytest.mark.parametrize("launcher", LAUNCHERS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_launcher_in_front_is_seen_through(launcher, command):
    assert unknown_flag_lines(f"{launcher} {command}") == [1]


@pytest.mark.parametrize("outer", ["sudo -E", "timeout 60", "srun -N 2", "numactl -N 0"])
@pytest.mark.parametrize("inner", ["nohup", "stdbuf -oL", "env A=1", "uv run"])
def test_launchers_stack(outer, inner):
    assert unknown_flag_lines(f"{outer} {inner} {COMMANDS[0]}") == [1]


@pytest.mark.parametrize(
    "text",
    [
        f"bash -c '{COMMANDS[0]}'",
        f'sh -c "{COMMANDS[0]}"',
        f"sudo -E bash -c 'timeout 60 {COMMANDS[1]}'",
        f"/bin/bash -lc '{COMMANDS[0]}'",
    ],
)
def test_a_shell_c_script_is_checked_inside(text):
    assert unknown_flag_lines(text) == [1]


def test_a_shell_c_script_keeps_its_lines():
    text = "echo start\nbash -c '\n  python -m sglang.launch_server \\\n    --model-path m --tp-sise 2'\n"
    assert unknown_flag_lines(text) == [4]


@pytest.mark.parametrize(
    "text",
    [
        "torchrun --nproc-per-node 8 -m sglang.launch_server --model-path m --tp-sise 2",
        "torchrun --nnodes=2 --standalone --module sglang.launch_server --model-path m --tp-sise 2",
    ],
)
def test_torchrun_module_mode_is_checked(text):
    assert unknown_flag_lines(text) == [1]


def test_torchrun_of_a_script_is_not_guessed_at():
    findings = check_command("torchrun --nproc-per-node 8 train.py --tp-sise 2", SNAPSHOT)
    assert [(f.severity, f.code) for f in findings] == [("warning", "shell.no-program")]  # flags unchecked
