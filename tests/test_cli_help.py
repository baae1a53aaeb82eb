"""``python -m handbook … --help``: plain text, the KB's choices listed, in the language of --lang or else of
the locale; the output language follows the locale too."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from handbook.cli import SUBCOMMANDS, build_parser
from handbook.cli.common import chosen_lang, locale_lang
from handbook.core.paths import REPO_ROOT
from handbook.kb.loader import load_kb

KB = load_kb()


def help_of(*argv: str, lang: str = "C.UTF-8") -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    done = subprocess.run(
        [sys.executable, "-m", "handbook", *argv, "--help"],
        capture_output=True,
        text=True,
        check=False,
        env={**env, "LANG": lang, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh_TW.UTF-8"}, "zh"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, "zh"),  # LC_ALL wins, as gettext reads them
        ({"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "de_DE.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_language_comes_from_the_locale(environ, lang):
    assert locale_lang(environ) == lang


def test_lang_on_the_command_line_wins_over_the_locale():
    zh = {"LANG": "zh_CN.UTF-8"}
    assert chosen_lang(["plan", "--lang", "en", "--model", "x"], zh) == "en"
    assert chosen_lang(["plan", "--lang=en"], zh) == "en"
    assert (
        chosen_lang(["check", "--", "python", "--lang", "en"], zh) == "zh"
    )  # after --: the checked command's


@pytest.mark.parametrize("command", ["plan", "configure"])
def test_help_lists_the_kbs_choices(command):
    out = help_of(command)
    for model in KB.models:
        assert model in out, model
    for gpu in KB.hardware:
        assert gpu in out, gpu
    assert "bf16, fp8" in out
    assert "(default: kb/)" in out
    if command == "configure":
        assert (
            "low-latency, balanced, high-throughput, long-context-rag, multi-turn-agent, mixed-online" in out
        )
        assert "nodes available: 1, 2, 4" in out
        assert "GPUs per node: 1, 2, 4, 8" in out


def test_help_follows_lang_and_the_locale():
    english = help_of("configure")
    chinese = help_of("configure", lang="zh_CN.UTF-8")
    assert "the accelerator, by id or name" in english and "加速卡：id 或名称" not in english
    assert "加速卡：id 或名称" in chinese
    assert "加速卡：id 或名称" not in help_of("configure", "--lang", "en", lang="zh_CN.UTF-8")
    assert "对照固定版本的引擎与知识库规则检查一条 SGLang 命令" in help_of(lang="zh_CN.UTF-8")


def test_no_help_shows_restructuredtext_or_an_absolute_path():
    for name in SUBCOMMANDS:
        parser = build_parser(name)
        for action in parser._subparsers._group_actions[0].choices[name]._actions:  # type: ignore[union-attr]
            assert str(REPO_ROOT) not in str(action.help or ""), (name, action.dest)
        text = parser._subparsers._group_actions[0].choices[name].format_help()  # type: ignore[union-attr]
        assert "``" not in text, name
    assert "``" not in help_of()
