"""The KB loader on a small valid KB and on broken copies of it: every problem, with its file and line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from handbook.kb.loader import KBInvalid, load_kb

FIXTURES = Path(__file__).parent / "fixtures"
MINI = FIXTURES / "kb-mini"
BROKEN = FIXTURES / "kb-broken"

# Each broken case overlays tests/fixtures/kb-broken/<case>/ onto a copy of kb-mini.
EXPECTED = {
    "wrong-type": [
        "kb/hardware/gpu-a.yaml:6: memory_gb: got 'eighty', expected a valid number",
    ],
    "unknown-key": [
        "kb/models/dense-a.yaml:4: colour: got unknown key 'colour', expected one of: id, name, vendor, role, "
        "summary, overview_note, params, experts, context, attention, config, unknown, precisions, parsers, image, "
        "recommended, notes",
    ],
    "missing-translation": [
        "kb/sources/handbook.yaml:3: title.en: got '', expected non-empty text",
        "kb/sources/handbook.yaml:4: backs.en: got nothing, expected a value (this field is required)",
    ],
    "dangling-reference": [
        "kb/recipes/dense-a-tp2.yaml:5: model: got 'dense-aa', expected one of the model ids in kb/models/ "
        "(did you mean 'dense-a'?)",
        "kb/recipes/dense-a-tp2.yaml:11: flags[2]: got flag '--tpp-size', expected a launch_server flag "
        "documented in kb/parameters/ (did you mean '--tp-size'?)",
    ],
    "duplicate-id": [
        "kb/pitfalls.yaml:9: pitfalls[1].id: got pitfall id 'startup-oom' again (first at kb/pitfalls.yaml:2), "
        "expected each pitfall id once",
    ],
    "duplicate-key": [
        "kb/hardware/gpu-a.yaml:7: memory_gb: got key 'memory_gb' twice (first on line 6), expected each key once",
    ],
    "id-not-filename": [
        "kb/models/dense-a.yaml:1: id: got 'dense-b', expected 'dense-a' (the file name)",
    ],
    "yaml-syntax": [
        "kb/hardware/gpu-a.yaml:4: got invalid YAML (while parsing a flow sequence that starts on line 3: "
        "expected ',' or ']', but got ':'), expected well-formed YAML",
    ],
    "empty-file": [
        "kb/models/dense-a.yaml:1: got an empty file, expected a YAML mapping",
    ],
    "stray-file": [
        "kb/model/dense-a.yaml:1: got a file the KB does not read, expected one of: handbook.yaml, dtypes.yaml, "
        "pitfalls.yaml, env_vars.yaml, observability.yaml, tuning.yaml, attention.yaml, architecture.yaml, "
        "topologies.yaml, claims.yaml, rules.yaml, glossary.yaml, sources/*.yaml, hardware/*.yaml, models/*.yaml, "
        "recipes/*.yaml, parameters/*.yaml",
    ],
}


def broken_copy(tmp_path: Path, case: str) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(MINI, root)
    shutil.copytree(BROKEN / case, root, dirs_exist_ok=True)
    return root


def problems(root: Path) -> list[str]:
    with pytest.raises(KBInvalid) as caught:
        load_kb(root)
    return [str(p) for p in caught.value.problems]


def test_every_broken_case_has_an_expectation():
    assert sorted(p.name for p in BROKEN.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_broken_kb_reports_file_line_and_expectation(tmp_path, case):
    assert problems(broken_copy(tmp_path, case)) == EXPECTED[case]


def test_mini_kb_loads_with_lookups():
    kb = load_kb(MINI)
    assert sorted(kb.models) == ["dense-a", "latent-b", "secret-c"]
    assert kb.parameter("--tp").flag == "--tp-size"  # an alias resolves to its parameter
    assert kb.parameter("--pd-disaggregation", "launch_router").program == "launch_router"
    assert kb.parameter("--pd-disaggregation") is None  # not a launch_server flag
    assert list(kb.groups) == ["memory", "router"]  # ordered by `order`
    origin = kb.origin(kb.recipes["latent-b-amd"])
    assert origin.at(("flags", 2), "x").line == 11


def test_missing_required_file(tmp_path):
    root = tmp_path / "kb"
    shutil.copytree(MINI, root)
    (root / "claims.yaml").unlink()
    assert problems(root) == ["kb/claims.yaml:1: got no such file, expected it to exist"]


def test_all_problems_at_once_and_no_cascade(tmp_path):
    """Three broken files give three problems; a broken parameters file does not make every flag 'unknown'."""
    root = broken_copy(tmp_path, "wrong-type")
    shutil.copytree(BROKEN / "empty-file", root, dirs_exist_ok=True)
    (root / "parameters" / "memory.yaml").write_text(
        "title: {zh: 模型, en: Model}\norder: one\nparameters: []\n"
    )
    assert problems(root) == [
        "kb/hardware/gpu-a.yaml:6: memory_gb: got 'eighty', expected a valid number",
        "kb/models/dense-a.yaml:1: got an empty file, expected a YAML mapping",
        "kb/parameters/memory.yaml:2: order: got 'one', expected a valid integer",
        "kb/parameters/memory.yaml:3: parameters: got a list of 0, expected at least 1 item(s)",
    ]


def test_cross_field_rule_points_at_the_field(tmp_path):
    root = tmp_path / "kb"
    shutil.copytree(MINI, root)
    model = root / "models" / "latent-b.yaml"
    model.write_text(model.read_text().replace("kv_lora_rank: 512, ", ""))
    assert problems(root) == [
        "kb/models/latent-b.yaml:10: config.kv_lora_rank: got nothing, expected a value (the mla KV formula "
        "needs it) or a reason under unknown.kv_lora_rank",
    ]


def test_validate_cli_exit_status_and_output(tmp_path):
    run = [sys.executable, "-m", "handbook", "validate", "--kb"]
    ok = subprocess.run([*run, str(MINI)], capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("✔ knowledge base valid: 3 models")
    bad = subprocess.run(
        [*run, str(broken_copy(tmp_path, "yaml-syntax"))], capture_output=True, text=True, check=False
    )
    assert bad.returncode == 1
    assert "Traceback" not in bad.stderr
    assert bad.stderr.splitlines() == [*EXPECTED["yaml-syntax"], "✖ 1 problem(s) in the knowledge base."]


def test_validate_judges_a_kb_in_a_folder_of_any_name(tmp_path, capsys):
    """The wording checks match exceptions by the file's path inside the KB, whatever the folder is called:
    the repository's KB copied to another name is as valid as it is under kb/."""
    from handbook.cli import main
    from handbook.core.paths import KB_ROOT

    root = tmp_path / "knowledge"
    shutil.copytree(KB_ROOT, root)
    assert main(["validate", "--kb", str(root)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.startswith("✔ knowledge base valid:")
    # and a flagged text names the file under that folder
    page = root / "models" / "deepseek-v4-pro.yaml"
    page.write_text(
        page.read_text().replace("Multi-node deployment is mandatory", "It must run on many nodes")
    )
    assert main(["validate", "--kb", str(root)]) == 1
    err = capsys.readouterr().err
    line = page.read_text().splitlines().index("    en: It must run on many nodes") + 1
    assert f"knowledge/models/deepseek-v4-pro.yaml:{line}: notes[0].en: got 'must'" in err


# ------------------------------------------------------------------------------------------------ strict values
@pytest.mark.parametrize(
    ("file", "old", "new", "expected"),
    [
        ("hardware/gpu-a.yaml", "memory_gb: 80", 'memory_gb: "80"', "kb/hardware/gpu-a.yaml:6: memory_gb: got '80', expected a valid number"),
        ("hardware/gpu-a.yaml", "memory_gb: 80", "memory_gb: true", "kb/hardware/gpu-a.yaml:6: memory_gb: got True, expected a valid number"),
        ("hardware/gpu-a.yaml", "memory_gb: 80", "memory_gb: .inf", "kb/hardware/gpu-a.yaml:6: memory_gb: got inf, expected a finite number"),
        ("hardware/gpu-a.yaml", "memory_gb: 80", "memory_gb: .nan", "kb/hardware/gpu-a.yaml:6: memory_gb: got nan, expected a finite number"),
        ("hardware/gpu-a.yaml", "memory_gb: 80", "memory_gb: 1e308", "kb/hardware/gpu-a.yaml:6: memory_gb: got 1e+308, expected a memory size in GB between 1 and 4,096"),  # a number in YAML 1.2 (text in 1.1)
        ("hardware/gpu-a.yaml", "memory_gb: 80", "memory_gb: 1.0e+308", "kb/hardware/gpu-a.yaml:6: memory_gb: got 1e+308, expected a memory size in GB between 1 and 4,096"),
        ("hardware/gpu-a.yaml", "memory_gb: 80", "memory_gb: 0.5", "kb/hardware/gpu-a.yaml:6: memory_gb: got 0.5, expected a memory size in GB between 1 and 4,096"),
        ("models/dense-a.yaml", "num_hidden_layers: 80", "num_hidden_layers: 100000", "kb/models/dense-a.yaml:9: config.num_hidden_layers: got 100000, expected a number of layers between 1 and 1,024"),
        ("models/dense-a.yaml", "num_hidden_layers: 80", "num_hidden_layers: 80.0", "kb/models/dense-a.yaml:9: config.num_hidden_layers: got 80.0, expected a valid integer"),
        ("models/dense-a.yaml", "num_key_value_heads: 8", "num_key_value_heads: 0", "kb/models/dense-a.yaml:9: config.num_key_value_heads: got 0, expected a number of heads between 1 and 4,096"),
        ("models/dense-a.yaml", "native: 131072", "native: 1000000000", "kb/models/dense-a.yaml:7: context.native: got 1000000000, expected a number of tokens between 1 and 1e+08"),
        ("hardware/gpu-a.yaml", "name: GPU A", "name: " + "A" * 3000, "kb/hardware/gpu-a.yaml:2: name: got '" + "A" * 76 + "…, expected text of at most 2,500 characters"),
    ],
)  # fmt: skip
def test_values_are_taken_as_written_and_within_plausible_bounds(tmp_path, file, old, new, expected):
    root = tmp_path / "kb"
    shutil.copytree(MINI, root)
    path = root / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    assert problems(root) == [expected]


def test_an_impossible_date_is_located_not_a_traceback(tmp_path):
    root = tmp_path / "kb"
    shutil.copytree(MINI, root)
    source = next((root / "sources").glob("*.yaml"))
    text = source.read_text(encoding="utf-8")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith("checked:"))
    source.write_text(
        "\n".join("checked: 2026-02-30" if row.startswith("checked:") else row for row in text.splitlines())
        + "\n"
    )
    assert problems(root) == [
        f"kb/sources/{source.name}:{line}: checked: got '2026-02-30', expected a real calendar date (YYYY-MM-DD)"
    ]
