"""The committed JSON Schema (kb/schema/) and the editor mapping: fresh, complete, and what the loader reads."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import yaml

from handbook.cli import main
from handbook.kb import json_schema, schema
from handbook.kb.loader import FILES

REPO = Path(__file__).resolve().parents[1]
COMMAND = "python -m handbook generate"


def test_committed_schema_and_editor_mapping_are_fresh():
    stale = json_schema.stale(REPO)
    assert stale == [], (
        "generated files are stale: "
        + ", ".join(str(item) for item in stale)
        + f"\nRegenerate them with:\n\n    {COMMAND}\n"
    )


def test_one_schema_per_kind_of_file_the_loader_reads():
    kinds = FILES
    schemas = sorted(p.name for p in (REPO / "kb" / "schema").glob("*.schema.json"))
    assert schemas == sorted([f"{k.name}.schema.json" for k in kinds] + ["kb.schema.json"])
    for kind in kinds:
        schema = json.loads((REPO / "kb" / "schema" / f"{kind.name}.schema.json").read_text(encoding="utf-8"))
        fields = kind.schema.model_fields
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["title"] == f"kb/{kind.pattern}"
        assert list(schema["properties"]) == list(fields)
        assert sorted(schema.get("required", [])) == sorted(n for n, f in fields.items() if f.is_required())
        assert schema["additionalProperties"] is False  # closed, like the pydantic models


def test_every_kb_file_uses_only_keys_its_schema_names():
    for kind in FILES:
        schema = json.loads((REPO / "kb" / "schema" / f"{kind.name}.schema.json").read_text(encoding="utf-8"))
        files = sorted((REPO / "kb").glob(kind.pattern))
        assert files, kind.pattern
        for path in files:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            assert set(data) <= set(schema["properties"]), path
            assert set(schema.get("required", [])) <= set(data), path


def test_vscode_maps_each_kb_glob_to_its_schema():
    settings = json.loads((REPO / ".vscode" / "settings.json").read_text(encoding="utf-8"))
    expected = {f"./kb/schema/{kind.name}.schema.json": [f"/kb/{kind.pattern}"] for kind in FILES}
    assert settings["yaml.schemas"] == expected
    for schema_path in expected:
        assert (REPO / schema_path).is_file()


def _repo_copy(tmp_path: Path) -> Path:
    """A folder holding freshly generated files only (so these tests do not depend on the committed ones)."""
    copy = tmp_path / "repo"
    copy.mkdir()  # the folder it writes in must exist: it makes its own folders below it, never that one
    json_schema.write(copy)
    return copy


def test_check_names_each_stale_file_and_the_command(tmp_path, capsys):
    copy = _repo_copy(tmp_path)
    (copy / "kb" / "schema" / "models.schema.json").write_text("{}\n", encoding="utf-8")
    (copy / "kb" / "schema" / "hardware.schema.json").unlink()
    (copy / "kb" / "schema" / "retired.schema.json").write_text("{}\n", encoding="utf-8")
    assert main(["generate", "schema", "--check", "--repo", str(copy)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[:4] == [
        "✖ kb/schema/hardware.schema.json: missing",
        "✖ kb/schema/models.schema.json: out of date",
        "    --- kb/schema/models.schema.json (committed)",
        "    +++ kb/schema/models.schema.json (generated)",
    ]
    # the start of the diff (12 lines), then the rest counted
    assert err[14].startswith("    … ") and err[14].endswith(" more diff line(s)")
    assert err[15:] == [
        "✖ kb/schema/retired.schema.json: no longer generated",
        "✖ 3 generated file(s) stale. Regenerate them with:",
        "",
        f"    {COMMAND}",
        "",
    ]
    assert (copy / "kb" / "schema" / "models.schema.json").read_text(
        encoding="utf-8"
    ) == "{}\n"  # check writes nothing


def test_write_brings_everything_up_to_date(tmp_path, capsys):
    copy = _repo_copy(tmp_path)
    (copy / "kb" / "schema" / "models.schema.json").write_text("{}\n", encoding="utf-8")
    (copy / "kb" / "schema" / "retired.schema.json").write_text("{}\n", encoding="utf-8")
    assert main(["generate", "schema", "--repo", str(copy)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "wrote kb/schema/models.schema.json",
        "removed kb/schema/retired.schema.json (no longer generated)",
        "✔ 2 file(s) changed",
    ]
    assert not (copy / "kb" / "schema" / "retired.schema.json").exists()
    assert main(["generate", "schema", "--check", "--repo", str(copy)]) == 0
    assert (
        capsys.readouterr().out == f"✔ up to date: {len(json_schema.generated())} schema and editor files\n"
    )


def test_choices_become_enums_editors_offer():
    hardware = json.loads((REPO / "kb" / "schema" / "hardware.schema.json").read_text(encoding="utf-8"))
    assert hardware["properties"]["vendor"]["enum"] == ["nvidia", "amd", "huawei", "intel"]
    recipes = json.loads((REPO / "kb" / "schema" / "recipes.schema.json").read_text(encoding="utf-8"))
    strategy = recipes["properties"]["strategy"]["anyOf"][0]
    assert strategy["enum"] == list(typing.get_args(schema.Strategy))
    assert recipes["properties"]["id"]["pattern"] == "^[a-z0-9][a-z0-9._-]*$"
