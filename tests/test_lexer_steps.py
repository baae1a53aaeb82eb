"""The shell lexer's steps at their boundaries, in Python and in checker.js's twin, on the same cases.

handbook/checker/shell.py's _Lexer reads a word piece by piece, one method per quoting context; checker.js's
Lexer has the same methods under the same names (camelCase) in the same order, which the first tests hold it
to. Each case starts one step at a chosen index of a chosen text (with the word read so far, where the step
depends on it) and compares the lexer's whole state afterwards with values written out here: where the next
read starts, the line, the word being read, and what has been emitted. tests/test_checker_shell.py reads
whole commands; tests/test_doctor_parity.py compares both runtimes on every command of the site.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
from pathlib import Path

import pytest
from js_twins import camel

from handbook.checker import export
from handbook.checker.shell import ShellSyntaxError, Word, _Lexer
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb

ROOT = Path(__file__).resolve().parents[1]
CHECKER_JS = ROOT / "docs" / "assets" / "checker.js"
SHELL_PY = ROOT / "handbook" / "checker" / "shell.py"


# ------------------------------------------------------------------------------------------- the names
def python_steps(source: str) -> tuple[list[str], list[str]]:
    """_Lexer's methods in the order they are defined, and the ones words_and_separators calls, in the
    order they are written."""
    lexer = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == "_Lexer")
    methods = [n for n in lexer.body if isinstance(n, ast.FunctionDef) and n.name != "__init__"]
    loop = next(n for n in methods if n.name == "words_and_separators")
    calls = [
        n
        for n in ast.walk(loop)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "self"
    ]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    return [n.name for n in methods], [n.func.attr for n in calls]


def js_steps(text: str) -> tuple[list[str], list[str]]:
    start = text.index("\n    class Lexer {\n")
    body = text[start : text.index("\n    }\n", start)]
    methods = [m for m in re.findall(r"^      ([A-Za-z]\w*)\([^)]*\) \{$", body, re.M) if m != "constructor"]
    loop_start = body.index("\n      wordsAndSeparators() {\n")
    loop = body[loop_start : body.index("\n      }\n", loop_start)]
    return methods, re.findall(r"\bthis\.([A-Za-z]\w*)\(", loop)


def test_the_python_lexer_is_read_as_its_steps():
    defined, called = python_steps(SHELL_PY.read_text(encoding="utf-8"))
    assert defined == [
        "words_and_separators",
        "add",
        "end_word",
        "backslash",
        "single_quoted",
        "double_quoted",
        "dollar",
        "expansion",
        "backquoted",
        "angle_placeholder",
        "redirection",
        "comment",
        "separator",
    ]
    assert called[:9] == [
        "backslash",
        "single_quoted",
        "double_quoted",
        "dollar",
        "backquoted",
        "angle_placeholder",
        "redirection",
        "comment",
        "end_word",
    ]


def test_checker_js_lexer_has_the_same_steps_in_the_same_order():
    defined, called = python_steps(SHELL_PY.read_text(encoding="utf-8"))
    assert js_steps(CHECKER_JS.read_text(encoding="utf-8")) == (
        [camel(n) for n in defined],
        [camel(n) for n in called],
    )


def test_a_lexer_step_renamed_or_moved_in_checker_js_is_found():
    text = CHECKER_JS.read_text(encoding="utf-8")
    renamed = js_steps(text.replace("      backquoted() {", "      backticks() {"))[0]
    assert "backticks" in renamed and "backquoted" not in renamed
    swapped = text.replace(
        'if (ch === "\\\\") this.backslash();\n          else if (ch === "\'") this.singleQuoted();',
        'if (ch === "\'") this.singleQuoted();\n          else if (ch === "\\\\") this.backslash();',
    )
    assert swapped != text
    assert js_steps(swapped)[1] != js_steps(text)[1]


# ------------------------------------------------------------------------------------------- the cases
def after(at, line=1, word=None, placeholder=False, drop=False, out=(), returned=None) -> dict:
    """The lexer's state after a step: ``word`` is (unquoted, typed, start line) while one is being read;
    ``out`` holds emitted words as (text, raw, line, placeholder) and separators as strings."""
    return {
        "at": at,
        "line": line,
        "word": None if word is None else list(word),
        "placeholder": placeholder,
        "drop": drop,
        "out": [list(item) if isinstance(item, tuple) else item for item in out],
        "returned": returned,
    }


def refused(problem: str, line: int) -> dict:
    return {"error": [problem, line]}


SINGLE, DOUBLE = "unterminated single quote", "unterminated double quote"

# (case id, text, step, where it starts, the state before it, its arguments, the state after it)
# fmt: off
CASES = [
    # words_and_separators: the whole text, from its first character
    ("all-empty", "", "words_and_separators", 0, {}, [], after(0)),
    ("all-one-word", "a", "words_and_separators", 0, {}, [], after(1, out=[("a", "a", 1, False)])),
    ("all-one-separator", ";", "words_and_separators", 0, {}, [], after(1, out=[";"])),
    ("all-blanks", " \t\r", "words_and_separators", 0, {}, [], after(3)),
    ("all-newline", "\n", "words_and_separators", 0, {}, [], after(1, line=2, out=["\n"])),
    ("all-comment-only", "# x", "words_and_separators", 0, {}, [], after(3)),
    ("all-backslash-last", "a\\", "words_and_separators", 0, {}, [], after(2, out=[("a", "a\\", 1, False)])),
    ("all-continuation-last", "a \\\n", "words_and_separators", 0, {}, [], after(4, line=2, out=[("a", "a", 1, False)])),
    ("all-quote-last", "a '", "words_and_separators", 0, {}, [], refused(SINGLE, 1)),
    ("all-double-quote-last", 'a\n"', "words_and_separators", 0, {}, [], refused(DOUBLE, 2)),
    ("all-redirect-last", "a >", "words_and_separators", 0, {}, [], after(3, drop=True, out=[("a", "a", 1, False)])),
    # add, end_word: the word being read
    ("add-starts-a-word", "ab", "add", 0, {"line": 3}, ["a", "'a'"], after(0, line=3, word=("a", "'a'", 3))),
    ("add-extends-a-word", "ab", "add", 0, {"word": ("a", "a", 1)}, ["b", "b"], after(0, word=("ab", "ab", 1))),
    ("end-no-word", "", "end_word", 0, {}, [], after(0)),
    ("end-a-word", "", "end_word", 0, {"word": ("x", "'x'", 2), "placeholder": True}, [], after(0, out=[("x", "'x'", 2, True)])),
    ("end-a-dropped-word", "", "end_word", 0, {"word": ("f", "f", 1), "drop": True}, [], after(0)),
    ("end-drop-waits-for-a-word", "", "end_word", 0, {"drop": True}, [], after(0, drop=True)),
    # backslash
    ("backslash-last", "\\", "backslash", 0, {}, [], after(1, word=("", "\\", 1))),
    ("backslash-continuation", "\\\n", "backslash", 0, {}, [], after(2, line=2)),
    ("backslash-quotes-one", "\\ab", "backslash", 0, {}, [], after(2, word=("a", "\\a", 1))),
    ("backslash-quotes-itself", "\\\\", "backslash", 0, {}, [], after(2, word=("\\", "\\\\", 1))),
    ("backslash-quotes-a-quote", "\\'", "backslash", 0, {}, [], after(2, word=("'", "\\'", 1))),
    # single_quoted
    ("single-empty", "''", "single_quoted", 0, {}, [], after(2, word=("", "''", 1))),
    ("single-unterminated", "'", "single_quoted", 0, {}, [], refused(SINGLE, 1)),
    ("single-unterminated-line", "'a", "single_quoted", 0, {"line": 4}, [], refused(SINGLE, 4)),
    ("single-keeps-everything", "'a\\\n$b'", "single_quoted", 0, {}, [], after(7, line=2, word=("a\\\n$b", "'a\\\n$b'", 1))),
    ("single-placeholder", "'<m>'", "single_quoted", 0, {}, [], after(5, word=("<m>", "'<m>'", 1), placeholder=True)),
    ("single-mid-text", "x'y'z", "single_quoted", 1, {}, [], after(4, word=("y", "'y'", 1))),
    # double_quoted
    ("double-empty", '""', "double_quoted", 0, {}, [], after(2, word=("", '""', 1))),
    ("double-unterminated", '"', "double_quoted", 0, {}, [], refused(DOUBLE, 1)),
    ("double-backslash-last", '"\\', "double_quoted", 0, {}, [], refused(DOUBLE, 1)),
    ("double-escaped-quote-last", '"\\"', "double_quoted", 0, {}, [], refused(DOUBLE, 1)),
    ("double-error-names-the-start", '"a\nb', "double_quoted", 0, {"line": 2}, [], refused(DOUBLE, 2)),
    ("double-escapes", '"\\"\\\\\\$\\`"', "double_quoted", 0, {}, [], after(10, word=('"\\$`', '"\\"\\\\\\$\\`"', 1))),
    ("double-other-backslash-stays", '"\\a"', "double_quoted", 0, {}, [], after(4, word=("\\a", '"\\a"', 1))),
    ("double-continuation", '"a\\\nb"', "double_quoted", 0, {}, [], after(6, line=2, word=("ab", '"a\\\nb"', 1))),
    ("double-newline", '"a\nb"', "double_quoted", 0, {}, [], after(5, line=2, word=("a\nb", '"a\nb"', 1))),
    ("double-lone-dollar", '"$"', "double_quoted", 0, {}, [], after(3, word=("$", '"$"', 1))),
    ("double-expansion", '"$A"', "double_quoted", 0, {}, [], after(4, word=("$A", '"$A"', 1), placeholder=True)),
    ("double-placeholder", '"<m>"', "double_quoted", 0, {}, [], after(5, word=("<m>", '"<m>"', 1), placeholder=True)),
    ("double-not-a-placeholder", '"<1>"', "double_quoted", 0, {}, [], after(5, word=("<1>", '"<1>"', 1))),
    # dollar, expansion
    ("dollar-last", "$", "dollar", 0, {}, [], after(1, word=("$", "$", 1))),
    ("dollar-before-blank", "$ x", "dollar", 0, {}, [], after(1, word=("$", "$", 1))),
    ("dollar-name", "$A_1-b", "dollar", 0, {}, [], after(4, word=("$A_1", "$A_1", 1), placeholder=True)),
    ("dollar-digit-is-one", "$12", "dollar", 0, {}, [], after(2, word=("$1", "$1", 1), placeholder=True)),
    ("dollar-special", "$?x", "dollar", 0, {}, [], after(2, word=("$?", "$?", 1), placeholder=True)),
    ("dollar-brace", "${A}b", "dollar", 0, {}, [], after(4, word=("${A}", "${A}", 1), placeholder=True)),
    ("dollar-brace-unclosed", "${", "dollar", 0, {}, [], after(2, word=("${", "${", 1), placeholder=True)),
    ("dollar-paren-unclosed-lines", "$(a\nb", "dollar", 0, {}, [], after(5, line=2, word=("$(a\nb", "$(a\nb", 1), placeholder=True)),
    ("expansion-lone", "a$", "expansion", 0, {}, [1], after(0, returned=None)),
    ("expansion-name", "a$B", "expansion", 0, {}, [1], after(0, word=("$B", "$B", 1), placeholder=True, returned=3)),
    # backquoted
    ("backquote-last", "`", "backquoted", 0, {}, [], after(1, word=("`", "`", 1), placeholder=True)),
    ("backquote-closed", "`a`b", "backquoted", 0, {}, [], after(3, word=("`a`", "`a`", 1), placeholder=True)),
    ("backquote-unclosed-lines", "`a\nb", "backquoted", 0, {}, [], after(4, line=2, word=("`a\nb", "`a\nb", 1), placeholder=True)),
    # angle_placeholder
    ("angle", "<your-model>x", "angle_placeholder", 0, {}, [], after(12, word=("<your-model>", "<your-model>", 1), placeholder=True)),
    # redirection
    ("redirect-last", ">", "redirection", 0, {}, [], after(1, drop=True)),
    ("redirect-ends-the-word", "a>f", "redirection", 1, {"word": ("a", "a", 1)}, [], after(2, drop=True, out=[("a", "a", 1, False)])),
    ("redirect-descriptor-word", "2>f", "redirection", 1, {"word": ("2", "2", 1)}, [], after(2, drop=True)),
    ("redirect-to-descriptor", ">&2", "redirection", 0, {}, [], after(3)),
    ("redirect-to-descriptors", ">&12x", "redirection", 0, {}, [], after(4)),
    ("redirect-ampersand-last", ">&", "redirection", 0, {}, [], after(2, drop=True)),
    ("redirect-heredoc", "<<EOF", "redirection", 0, {}, [], after(2, drop=True)),
    ("redirect-clobber", ">|f", "redirection", 0, {}, [], after(2, drop=True)),
    # comment
    ("comment-last", "#", "comment", 0, {}, [], after(1)),
    ("comment-to-the-newline", "# a \\\nb", "comment", 0, {}, [], after(5)),
    # separator
    ("separator-one", "&", "separator", 0, {}, [], after(1, out=["&"])),
    ("separator-and", "&&", "separator", 0, {}, [], after(2, out=["&&"])),
    ("separator-or", "||x", "separator", 0, {}, [], after(2, out=["||"])),
    ("separator-pipe", "|", "separator", 0, {}, [], after(1, out=["|"])),
    ("separator-semicolon-ends-the-word", "a;", "separator", 1, {"word": ("a", "a", 1)}, [], after(2, out=[("a", "a", 1, False), ";"])),
    ("separator-parenthesis", ")", "separator", 0, {}, [], after(1, out=[")"])),
    ("separator-ampersand-redirect", "&>f", "separator", 0, {}, [], after(1)),
]
# fmt: on


def python_state(lexer: _Lexer, returned) -> dict:
    word = ["".join(lexer.unquoted), "".join(lexer.typed), lexer.start_line] if lexer.in_word else None
    out = [[i.text, i.raw, i.line, i.placeholder] if isinstance(i, Word) else i for i in lexer.out]
    return {
        "at": lexer.at,
        "line": lexer.line,
        "word": word,
        "placeholder": lexer.placeholder,
        "drop": lexer.drop_next_word,
        "out": out,
        "returned": returned,
    }


def run_python(text: str, step: str, at: int, before: dict, args: list) -> dict:
    lexer = _Lexer(text)
    lexer.at = at
    lexer.line = before.get("line", 1)
    if "word" in before:
        unquoted, typed, lexer.start_line = before["word"]
        lexer.unquoted, lexer.typed, lexer.in_word = [unquoted], [typed], True
    lexer.placeholder = before.get("placeholder", False)
    lexer.drop_next_word = before.get("drop", False)
    try:
        returned = getattr(lexer, step)(*args)
    except ShellSyntaxError as exc:
        return refused(exc.problem.en, exc.line)
    return python_state(lexer, None if step in ("words_and_separators", "add", "end_word") else returned)


# the cases are written in the order of the steps, each step's in one run
@pytest.mark.parametrize(
    ("text", "step", "at", "before", "args", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_python_lexer_steps(text, step, at, before, args, expected):
    assert run_python(text, step, at, before, args) == expected


def test_every_lexer_step_has_a_case():
    defined, _ = python_steps(SHELL_PY.read_text(encoding="utf-8"))
    assert sorted({c[2] for c in CASES}) == sorted(defined)


JS_LEXER = """
const { create } = require("./docs/assets/checker.js");
const { data, cases } = JSON.parse(require("fs").readFileSync(0, "utf8"));
const checker = create(data);
const out = cases.map(([text, step, at, before, args]) => {
  const lexer = checker.lexer(text);
  lexer.at = at;
  lexer.line = before.line ?? 1;
  if (before.word) {
    lexer.unquoted = [before.word[0]];
    lexer.typed = [before.word[1]];
    lexer.startLine = before.word[2];
    lexer.inWord = true;
  }
  lexer.placeholder = before.placeholder ?? false;
  lexer.dropNextWord = before.drop ?? false;
  let returned;
  try {
    returned = lexer[step](...args);
  } catch (err) {
    if (err.problem === undefined) throw err;
    return { error: [err.problem.en, err.line] };
  }
  const state = (w) => (typeof w === "string" ? w : [w.text, w.raw, w.line, w.placeholder]);
  return {
    at: lexer.at,
    line: lexer.line,
    word: lexer.inWord ? [lexer.unquoted.join(""), lexer.typed.join(""), lexer.startLine] : null,
    placeholder: lexer.placeholder,
    drop: lexer.dropNextWord,
    out: lexer.out.map(state),
    returned: ["wordsAndSeparators", "add", "endWord"].includes(step) ? null : (returned ?? null),
  };
});
process.stdout.write(JSON.stringify(out));
"""


def test_checker_js_lexer_steps_decide_the_same_on_the_same_cases(node):
    cases = [[text, camel(step), at, before, args] for _, text, step, at, before, args, _ in CASES]
    done = subprocess.run(
        [node, "-e", JS_LEXER],
        input=json.dumps({"data": export.checker_data(load_snapshot(), load_kb()), "cases": cases}),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    got = dict(zip([c[0] for c in CASES], json.loads(done.stdout), strict=True))
    assert got == {c[0]: json.loads(json.dumps(c[-1])) for c in CASES}
