"""The browser's scripts against the package, by structure: no node, no browser, a fraction of a second.

checker.js and planner.js repeat parts of the package in JavaScript. The behavioural parity runs
(tests/test_doctor_parity.py, tests/test_planner_browser.py) compare what both compute, but only on the
inputs they try; these tests compare the names both sides must share on every change: the predicates a rule
can name, the finding codes, and the tables the scripts read from the exports instead of typing them. The
last tests run node to show that the scripts refuse a name they do not know rather than skip it.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from js_twins import PLANNER_IN_NODE

from handbook.calc import planner_data
from handbook.checker import export, predicates
from handbook.core.messages import DOMAINS
from handbook.engine.snapshot import load_snapshot
from handbook.kb.loader import load_kb

ROOT = Path(__file__).resolve().parents[1]
CHECKER_JS = ROOT / "docs" / "assets" / "checker.js"
PLANNER_JS = ROOT / "docs" / "assets" / "planner.js"
ASSETS = sorted((ROOT / "docs" / "assets").glob("*.js"))
CHECKER_PY = sorted((ROOT / "handbook" / "checker").glob("*.py"))

# A finding code as both sides spell it: "flag.unknown", "shell.syntax"… (rule.* and deploy.* are built from
# a rule's id and a message key, compared below through those keys).
CODE = re.compile(r"""["']([a-z]+\.[a-z][a-z0-9-]*)["']""")
DEPLOY_KEY = re.compile(r"""["'](deploy-[a-z0-9-]+)["']""")


def js_predicates(text: str) -> set[str]:
    """The keys of checker.js's ``const PREDICATES = { … }`` (one level deeper than the constant)."""
    start = text.index("    const PREDICATES = {\n")
    end = text.index("\n    };\n", start)
    return set(re.findall(r'^      "?([a-z0-9-]+)"?: ', text[start:end], re.M))


def predicate_differences(python: set[str], js: set[str]) -> list[str]:
    return [f"predicate {name!r}: in predicates.py, not in checker.js" for name in sorted(python - js)] + [
        f"predicate {name!r}: in checker.js, not in predicates.py" for name in sorted(js - python)
    ]


def test_the_checkers_predicates_are_the_same_names_on_both_sides():
    js = js_predicates(CHECKER_JS.read_text(encoding="utf-8"))
    assert len(js) >= 20  # the block was found and read
    assert predicate_differences(set(predicates.PREDICATES), js) == []


def test_a_predicate_on_one_side_only_is_named():
    assert predicate_differences({"flags-set", "value-in"}, {"flags-set", "new-one"}) == [
        "predicate 'value-in': in predicates.py, not in checker.js",
        "predicate 'new-one': in checker.js, not in predicates.py",
    ]


def test_the_predicate_block_is_read_as_written():
    text = (
        '    const PREDICATES = {\n      "a-b": (p, F) => null,\n      c: (p) => {\n        "d": 1,\n    };\n'
    )
    assert js_predicates(text) == {"a-b", "c"}


@pytest.mark.parametrize(
    ("pattern", "what"), [(CODE, "finding code"), (DEPLOY_KEY, "deployment message key")]
)
def test_the_checkers_finding_codes_are_the_same_on_both_sides(pattern, what):
    python = {code for path in CHECKER_PY for code in pattern.findall(path.read_text(encoding="utf-8"))}
    js = set(pattern.findall(CHECKER_JS.read_text(encoding="utf-8")))
    assert len(python) >= 10, what
    assert sorted(python ^ js) == [], f"{what}s on one side only"


def test_every_message_checker_js_names_is_in_the_catalogue_it_is_sent():
    sent = {key for domain in export.MESSAGE_DOMAINS for key in DOMAINS[domain]}
    named = set(re.findall(r'"((?:check|deploy|sizing)-[a-z0-9-]+)"', CHECKER_JS.read_text(encoding="utf-8")))
    assert len(named) >= 50
    assert sorted(named - sent) == []


def converted_types(text: str, start: str, end: str) -> set[str]:
    """The argparse ``type`` names a ``convert`` function handles: ``kind == "int"``, ``kind === "int"``."""
    body = text[text.index(start) : text.index(end, text.index(start))]
    return set(re.findall(r'\bkind ===? "([A-Za-z_]+)"', body))


def test_the_checkers_value_conversions_handle_the_same_argparse_types_on_both_sides():
    """A type one side converts and the other passes through as text gives different findings."""
    python = converted_types(
        (ROOT / "handbook" / "checker" / "argv.py").read_text(encoding="utf-8"), "def convert(", "\n\n\n"
    )
    js = converted_types(CHECKER_JS.read_text(encoding="utf-8"), "function convert(", "\n    }\n")
    assert {"int", "float", "human_readable_int", "nullable_str"} <= python
    assert sorted(python ^ js) == []


def table_uses(text: str, pattern: str) -> set[str]:
    return set(re.findall(pattern, text))


@pytest.mark.parametrize(
    ("script", "tables", "use"),
    [
        (PLANNER_JS, planner_data.TABLES, r"\bK\.([A-Z][A-Z0-9_]*)"),
        (CHECKER_JS, export.TABLES, r'\btable\("([A-Z][A-Z0-9_]*)"\)'),
    ],
    ids=["planner", "checker"],
)
def test_each_exported_table_is_read_by_its_script_and_no_other_name_is(script, tables, use):
    used = table_uses(script.read_text(encoding="utf-8"), use)
    assert sorted(used - set(tables)) == [], "read but not exported"
    assert sorted(set(tables) - used) == [], "exported but never read"


STRING = r'"(?:[^"\\]|\\.)*"'
STRING_ARRAY = re.compile(rf"\[\s*{STRING}(?:\s*,\s*{STRING})*\s*,?\s*\]")


def typed_again(value: object, text: str) -> list[str]:
    """Where ``text`` types the table again: an array literal of the same strings (in any order), an object
    literal of the same entries in the same order (keys quoted or not), the same string (six characters or
    more) quoted. A number is caught by its name instead (the test below)."""
    if isinstance(value, tuple | list | frozenset | set):
        if not all(isinstance(item, str) for item in value):
            return []  # a table of numbers: any number typed is caught by the literal test below
        wanted = sorted(value)
        found = []
        for match in STRING_ARRAY.finditer(text):
            items = [item[1:-1] for item in re.findall(STRING, match.group())]  # our tables need no escapes
            if sorted(items) == wanted:
                found.append(match.group())
        return found
    if isinstance(value, dict) and value:
        entries = [
            rf'["\']?{re.escape("/".join(k) if isinstance(k, tuple) else k)}["\']?\s*:\s*{re.escape(json.dumps(v))}'
            for k, v in value.items()
        ]
        return re.findall(r"\{\s*" + r"\s*,\s*".join(entries) + r"\s*,?\s*\}", text)
    if isinstance(value, str) and len(value) >= 6:
        return re.findall(f"[\"'`]{re.escape(value)}[\"'`]", text)
    return []


ALL_TABLES = {**planner_data.TABLES, **export.TABLES}
OWNER = {**dict.fromkeys(planner_data.TABLES, PLANNER_JS), **dict.fromkeys(export.TABLES, CHECKER_JS)}


@pytest.mark.parametrize("name", sorted(ALL_TABLES))
def test_no_exported_table_is_typed_in_any_script(name):
    """Its script declares no constant of its name but from the export, and no script holds its literal."""
    value = ALL_TABLES[name]
    typed = []
    owner = OWNER[name].read_text(encoding="utf-8")
    if re.search(rf"\b(?:const|let|var)\s+{name}\s*=(?!\s*table\()", owner):
        typed.append(f"{OWNER[name].name}: declares {name}")
    for script in ASSETS:
        text = script.read_text(encoding="utf-8")
        typed += [f"{script.name}: {found}" for found in typed_again(value, text)]
    assert typed == []


def test_a_table_typed_again_is_found_and_a_different_one_is_not():
    text = (
        'const A = ["MistralLarge3ForCausalLM", "DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM",\n'
        '  "PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "Glm5NextForConditionalGeneration",\n'
        '  "LongcatFlashForCausalLM", "Dots3NoteForCausalLM", "HYV4ForCausalLM",];\n'
        'const P = { "nvidia/Hopper": "hopper", "nvidia/Blackwell": "blackwell", "nvidia/Blackwell Ultra": '
        '"blackwell", "amd/CDNA 3": "cdna", "amd/CDNA 4": "cdna" };\n'
        "const R = { error: 0, warning: 1, note: 2 }; const T = `--standalone`;\n"
        'const ROLES = ["prefill", "decode", "router"]; const COUNTS = { error: 0, warning: 0, note: 0 };\n'
        'const Q = { hopper: "fa3", blackwell: "triton", cdna: "aiter" }; const SI = { k: 3, M: 6, G: 9, T: 12 };\n'
        'const I = { error: "refuses", warning: "misbehaves", note: "style" };'
    )
    names = ("DSA_ARCHITECTURES", "PLATFORMS", "RANK", "QSA_BACKENDS", "SI_POWERS", "IMPACT_OF")
    assert [len(typed_again(ALL_TABLES[name], text)) for name in names] == [1, 1, 1, 1, 1, 1]
    assert typed_again(ALL_TABLES["DEPLOY_ROLES"], text) == []  # another table that shares two items
    assert typed_again("--standalone", text) == ["`--standalone`"]


def test_the_exports_carry_pythons_tables():
    planner = json.loads(planner_data.planner_json(load_kb()))["tables"]
    assert planner == {name: planner_data.table_json(value) for name, value in planner_data.TABLES.items()}
    # spot values, typed from the wheel's source as cited in calc/sizing.py
    assert planner["DSA_QUANT_BLOCK"] == 128 and planner["AITER_FRACTION_SCALE"] == 0.85
    assert planner["PLATFORMS"]["amd/CDNA 4"] == "cdna"
    assert set(planner["DEEPSEEK_FAMILY"]) == {
        *planner["DSA_ARCHITECTURES"],
        "KimiK25ForConditionalGeneration",
    }
    # sglang/srt/arg_groups/memory_hook.py:90-98 (below 20 GiB: chunked prefill 2048, max_bs 8), :309-315
    assert planner["MEM_FRACTION_TIERS"][0] == [20 * 1024, 2048, 8, 8]
    assert planner["MEM_FRACTION_TIERS"][-1] == [None, 16384, 512, 512]
    assert (planner["RESERVE_BASE_MIB"], planner["RESERVE_FLOOR_MIB"]) == (512, 10 * 1024)
    assert planner["AITER_MLA_HEADS"] == [16, 128] and planner["QSA_BACKENDS"]["cdna"] == "aiter"
    # kv_cache_configurator.py:3123-3124
    assert (planner["REQUESTS_PER_CONTEXT"], planner["MAX_REQUESTS_MIN"], planner["MAX_REQUESTS_MAX"]) == (
        512,
        2048,
        4096,
    )
    checker = export.checker_data(load_snapshot(), load_kb())["tables"]
    assert checker["TORCHRUN_SWITCHES"][0] == "--standalone" and checker["LARGEST"] == 2**31 - 1
    assert checker["IEC_POWERS"]["Gi"] == 30 and checker["SI_POWERS"]["k"] == 3
    assert checker["IMPACT_OF"] == {"error": "refuses", "warning": "misbehaves", "note": "style"}
    assert set(checker) == set(export.TABLES)


# ------------------------------------------------------------------------------------------ numbers typed
# No engine number is typed in a script's rule section: planner.js's engine rules up to its launch command
# (the twins of calc/sizing.py, calc/memory.py, calc/launch.py), checker.js's argv.py and predicates.py.
# Every number there is read from the export (K.NAME, table("NAME")); 0, 1, 2 (and so -1) are arithmetic.
# The few other numbers are facts of units, of Python or of address syntax, each allowed where it stands:
# a fragment of code (strings, comments and regular expressions removed) and why it is not an engine fact.
SECTIONS = {
    "planner": (PLANNER_JS, "// -{10,} engine rules\n", "// -{10,} numbers\n"),
    "checker": (CHECKER_JS, "// =+ argv\\.py\n", "// =+ check\\.py\n"),
}
ALLOWED = {
    "planner": {
        "bits % 8": "bits in a byte (memory.element_bytes)",
        "bits / 8": "bits in a byte (memory.element_bytes)",
        "dtype.bits) / 8": "bits in a byte (memory.weights)",
        "params_total_b * 1e9": "a billion parameters (params.total_b is in billions)",
        "memory_gb * 1024": "a nominal GB read as GiB, in MiB: the bound memory.device_memory takes",
    },
    "checker": {
        "big >= -9007199254740991n && big <= 9007199254740991n": "JavaScript's largest safe integer",
        "length > 28": "Python's decimal context: 28 significant digits",
        "length - 28": "Python's decimal context: 28 significant digits",
        "10n **": "powers of ten (decimal arithmetic)",
        "spellings.slice(0, 8)": "at most eight spellings shown (formatting)",
        "spellings.length > 8": "at most eight spellings shown (formatting)",
        "spellings.length - 8": "at most eight spellings shown (formatting)",
        "Number(p) > 255": "an IPv4 octet (Python's ipaddress)",
        "<< 8": "two bytes to an IPv6 group (Python's ipaddress)",
        "n[3]": "an embedded IPv4 address's fourth byte (Python's ipaddress)",
        "8 - tail.length": "eight IPv6 groups (Python's ipaddress)",
        "parseInt(g, 16)": "an IPv6 group is hexadecimal",
        "numbers.slice(0, 7)": "::1 is seven zero groups and a one (Python's ipaddress)",
        "numbers[7]": "::1 is seven zero groups and a one (Python's ipaddress)",
        "toFixed(6)": "round(value × factor, 6) as predicates.py shows the product (formatting)",
        "floored > 0.5": "CPython's float floor division",
    },
}
NUMBER = re.compile(
    r"(?<![\w$.])(0[xX][0-9a-fA-F_]+n?|\d[\d_]*(?:\.\d*)?(?:[eE][+-]?\d+)?n?|\.\d+(?:[eE][+-]?\d+)?)"
)
REGEX_AFTER = (*"(,=:[!&|?{};+-*%<>~^", "return")


def code_only(text: str) -> str:
    """The script without its comments, strings, template text and regular expressions (each string left as
    "", so that the code keeps its shape); a template's ${…} stays code."""
    out: list[str] = []
    templates: list[int] = []  # the brace depth each open ${ started at
    depth = i = 0
    while i < len(text):
        ch = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
        elif text.startswith("/*", i):
            i = text.index("*/", i + 2) + 2
        elif ch == "/" and "".join(out).rstrip().endswith(REGEX_AFTER):
            i, in_class = i + 1, False
            while text[i] != "/" or in_class:
                in_class = (in_class or text[i] == "[") and text[i] != "]"
                i += 2 if text[i] == "\\" else 1
            i += 1
            while i < len(text) and text[i].isalpha():
                i += 1
            out.append('""')
        elif ch in "\"'":
            j = i + 1
            while text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif ch == "`" or (ch == "}" and templates and templates[-1] == depth):
            if ch == "}":
                templates.pop()
            j = i + 1
            while text[j] != "`" and not text.startswith("${", j):
                j += 2 if text[j] == "\\" else 1
            if text[j] == "`":
                out.append('""')
                i = j + 1
            else:
                templates.append(depth)
                out.append('"" + (')
                i = j + 2
        else:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            out.append(ch)
            i += 1
    return "".join(out)


def typed_numbers(code: str, allowed: dict[str, str]) -> list[str]:
    """Each number in ``code`` other than 0, 1 and 2 that no allowed fragment covers, as "line: number"."""
    covered = [(m.start(), m.end()) for fragment in allowed for m in re.finditer(re.escape(fragment), code)]
    found = []
    for m in NUMBER.finditer(code):
        token = m.group().rstrip("n").replace("_", "")
        value = int(token, 16) if token[:2].lower() == "0x" else float(token)
        if value in (0, 1, 2) or any(a <= m.start() and m.end() <= b for a, b in covered):
            continue
        found.append(f"{code.count(chr(10), 0, m.start()) + 1}: {m.group()}")
    return found


def rule_section(name: str) -> str:
    path, start, end = SECTIONS[name]
    text = path.read_text(encoding="utf-8")
    first = re.search(start, text)
    last = re.search(end, text[first.end() :]) if first else None
    assert first and last, f"{path.name}: the section markers {start!r}, {end!r} were not found"
    return code_only(text[first.end() : first.end() + last.start()])


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_no_engine_number_is_typed_in_a_scripts_rule_section(name):
    code = rule_section(name)
    assert code.count("\n") > 300  # the section was found and read whole
    assert typed_numbers(code, ALLOWED[name]) == [], "read it from the export (TABLES) or allow it with why"


@pytest.mark.parametrize("name", sorted(SECTIONS))
def test_every_allowed_number_is_still_in_its_section(name):
    code = rule_section(name)
    assert sorted(fragment for fragment in ALLOWED[name] if fragment not in code) == []


def test_a_number_typed_in_code_is_found_and_one_in_text_is_not():
    script = (
        "const a = gpuMib < 20 * 1024 ? 0.85 : 1; // 8192 in a comment\n"
        'const b = "page 64" + `${x * 16} of 128` + /^\\d{1,3}$/.test(s) + fp8E4m3 + K.QWEN3_5;\n'
        "/* 4096 */ const c = [0, 1, 2, -1, 2.0, 0x10, 4n, bits / 8];\n"
    )
    code = code_only(script)
    assert typed_numbers(code, {}) == ["1: 20", "1: 1024", "1: 0.85", "2: 16", "3: 0x10", "3: 4n", "3: 8"]
    assert typed_numbers(code, {"bits / 8": "bits in a byte", "0x10": "sixteen"}) == [
        "1: 20",
        "1: 1024",
        "1: 0.85",
        "2: 16",
        "3: 4n",
    ]


# ------------------------------------------------------------------------------------------ loud failures
def run_js(node: str, program: str, payload: dict) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [node, "-e", program],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


CHECKER_CREATE = """
const { create } = require("./docs/assets/checker.js");
const data = JSON.parse(require("fs").readFileSync(0, "utf8"));
try { create(data); console.log("created"); } catch (err) { console.log(err.message); }
"""


def test_the_browsers_checker_refuses_a_rule_whose_predicate_it_does_not_know(node):
    data = export.checker_data(load_snapshot(), load_kb())
    assert run_js(node, CHECKER_CREATE, data).stdout == "created\n"
    rule = {**data["rules"][0], "id": "python-only", "predicate": "python-only-predicate"}
    data["rules"] = [*data["rules"], rule]
    assert run_js(node, CHECKER_CREATE, data).stdout == (
        'checker data: rule python-only uses predicate "python-only-predicate", which checker.js does not '
        "implement (handbook/checker/predicates.py)\n"
    )


CHECKER_MESSAGE = """
const { create } = require("./docs/assets/checker.js");
const data = JSON.parse(require("fs").readFileSync(0, "utf8"));
try { console.log(create(data).check("python -m sglang.launch_server --tp-size").map((f) => f.code).join(" ")); }
catch (err) { console.log(err.message); }
"""


def test_the_browsers_checker_refuses_a_message_it_is_not_sent(node):
    data = export.checker_data(load_snapshot(), load_kb())
    assert run_js(node, CHECKER_MESSAGE, data).stdout == "value.missing args.required\n"
    del data["messages"]["check-value-missing"]
    assert run_js(node, CHECKER_MESSAGE, data).stdout == (
        "checker data: no message check-value-missing (handbook/checker/export.py MESSAGE_DOMAINS)\n"
    )


def test_the_browsers_checker_refuses_data_without_a_table_it_reads(node):
    data = export.checker_data(load_snapshot(), load_kb())
    del data["tables"]["BOOL_WORDS"]
    assert run_js(node, CHECKER_CREATE, data).stdout == (
        "checker data: no table BOOL_WORDS (handbook/checker/export.py TABLES)\n"
    )


PLANNER_PLAN = (
    PLANNER_IN_NODE
    + """
const d = JSON.parse(require("fs").readFileSync(0, "utf8"));
const by = (list, id) => list.find((x) => x.id === id);
const model = by(d.models, "deepseek-v3");
try {
  const p = P.plan(d, model, by(d.hardware, "b200"), by(d.dtypes, "fp8"), by(d.dtypes, "bf16"), { tp: 8 });
  console.log(p.attention_backend);
} catch (err) { console.log(err.message); }
"""
)


def test_the_planner_refuses_data_without_a_table_it_reads(node):
    data = planner_data.planner_data(load_kb())
    assert run_js(node, PLANNER_PLAN, data).stdout == "trtllm_mla\n"
    del data["tables"]["DEEPSEEK_FAMILY"]
    assert run_js(node, PLANNER_PLAN, data).stdout == (
        "planner data: no table DEEPSEEK_FAMILY (handbook/calc/planner_data.py TABLES)\n"
    )
    del data["tables"]
    assert run_js(node, PLANNER_PLAN, data).stdout == (
        'planner data: no "tables" (schema_version 3; handbook/calc/planner_data.py)\n'
    )
