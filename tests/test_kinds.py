"""A KB entity kind is declared once: the worked example of adding one, and the declarations' own checks.

The worked example makes the exact edits a contributor makes to add a kind (a schema class, its
declaration as a field of KB, a fixture) in a throwaway copy of the package, then loads a copy of
tests/fixtures/kb-mini holding the new kind's files in a fresh interpreter: the loader reads it, references
into and out of it are checked, kb.json's model and the JSON Schemas carry it, and the only package files
that changed are schema.py and loader.py.
"""

from __future__ import annotations

import filecmp
import json
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from handbook.core.text import Closed
from handbook.kb import loader
from handbook.kb import schema as s
from handbook.kb.kinds import FlagUse, Ref, declared, listed, markers, per_file, references
from handbook.kb.loader import load_kb

REPO = Path(__file__).resolve().parents[1]
MINI = Path(__file__).parent / "fixtures" / "kb-mini"

# ------------------------------------------------------------------------------------- the three edits
# 1. handbook/kb/schema.py: the entity's schema class, appended. ``Ref("benchmarks")`` marks a field that
#    names a benchmark; ``Ref("recipes")`` one that names a recipe.
SCHEMA_EDIT = '''

# ---------------------------------------------------------------------------------------------- benchmarks
RecipeId = Annotated[Id, Ref("recipes")]
BenchmarkId = Annotated[Id, Ref("benchmarks")]


class Benchmark(Closed):
    """A measured run of a recipe. File: ``kb/benchmarks/<id>.yaml``."""

    id: Id
    recipe: RecipeId
    baseline: BenchmarkId | None = None  # the run this one is compared with
    output_tokens_per_s: size(0.001, 1e9, "tokens per second")
    flags: list[FlagRef] = []  # what was changed from the recipe
    source: SourceId
'''
# 2. handbook/kb/loader.py: its declaration, a field of KB (after the last kind: kb.json keeps its order).
LOADER_ANCHOR = "    # Not kinds: derived at load.\n"
LOADER_EDIT = '    benchmarks: dict[str, s.Benchmark] = per_file("benchmarks/*.yaml", noun="benchmark")\n'
# 3. the fixture (tests/fixtures/kb-mini/benchmarks/ in a real change; here, a copy of kb-mini).
FIXTURE = {
    "benchmarks/dense-a-tp2-base.yaml": """\
        id: dense-a-tp2-base
        recipe: dense-a-tp2
        output_tokens_per_s: 1200
        source: handbook
        """,
    "benchmarks/dense-a-tp2-larger-batch.yaml": """\
        id: dense-a-tp2-larger-batch
        recipe: dense-a-tp2
        baseline: dense-a-tp2-base
        output_tokens_per_s: 1500
        flags: [--mem-fraction-static]
        source: handbook
        """,
}

# What the fresh interpreter reports about the new kind, as JSON.
PROBE = r"""
import json, shutil, sys
from pathlib import Path
import handbook
from handbook.kb import export, json_schema, loader

repo, kb_root = Path(sys.argv[1]), Path(sys.argv[2])
assert Path(handbook.__file__).resolve().is_relative_to(repo.resolve()), handbook.__file__

def problems(root):
    try:
        loader.load_kb(root)
        return []
    except loader.KBInvalid as exc:
        return [str(p) for p in exc.problems]

kb = loader.load_kb(kb_root)
out = {
    "loaded": {bid: b.model_dump(mode="json") for bid, b in kb.benchmarks.items()},
    "origin": kb.origin(kb.benchmarks["dense-a-tp2-larger-batch"]).at(("baseline",), "").line,
    "export_fields": list(export.KBExport.model_fields),
    "exported": json.loads(export.kb_export(kb, None, None).model_dump_json())["benchmarks"],
    "export_schema": export.export_schema()["properties"]["benchmarks"],
    "generated": sorted(json_schema.generated()),
    "file_schema": json.loads(json_schema.generated()["kb/schema/benchmarks.schema.json"]),
    "editor": json.loads(json_schema.generated()[".vscode/settings.json"])["yaml.schemas"],
}

broken = repo.parent / "broken" / "kb"
shutil.copytree(kb_root, broken)
run = broken / "benchmarks" / "dense-a-tp2-larger-batch.yaml"
run.write_text(run.read_text().replace("baseline: dense-a-tp2-base", "baseline: dense-a-tp2-bse")
               .replace("recipe: dense-a-tp2", "recipe: dense-a-tp3")
               .replace("--mem-fraction-static", "--mem-fraction-statik"))
(broken / "benchmarks" / "notes.txt").write_text("x")
out["broken"] = problems(broken)
(broken / "benchmarks" / "notes.txt").unlink()
(broken / "parameters" / "memory.yaml").write_text("title: [\n")  # flags not judged then
out["broken_flags_pool"] = [p for p in problems(broken) if "flag" in p]
print(json.dumps(out))
"""


def package_copy(tmp_path: Path) -> Path:
    """The repository's package (and what it reads at import) in a throwaway folder."""
    repo = tmp_path / "repo"
    shutil.copytree(REPO / "handbook", repo / "handbook", ignore=shutil.ignore_patterns("__pycache__"))
    return repo


def changed_files(repo: Path) -> list[str]:
    """The package files that differ from (or are missing in) the repository's package."""
    out = []
    for path in sorted((repo / "handbook").rglob("*")):
        rel = path.relative_to(repo)
        if path.is_file() and "__pycache__" not in rel.parts:
            original = REPO / rel
            if not original.is_file() or not filecmp.cmp(path, original, shallow=False):
                out.append(rel.as_posix())
    return out


@pytest.fixture(scope="module")
def worked_example(tmp_path_factory: pytest.TempPathFactory) -> dict:
    tmp_path = tmp_path_factory.mktemp("kinds")
    repo = package_copy(tmp_path)
    schema = repo / "handbook" / "kb" / "schema.py"
    schema.write_text(schema.read_text(encoding="utf-8") + SCHEMA_EDIT, encoding="utf-8")
    kb_module = repo / "handbook" / "kb" / "loader.py"
    text = kb_module.read_text(encoding="utf-8")
    assert text.count(LOADER_ANCHOR) == 1
    kb_module.write_text(text.replace(LOADER_ANCHOR, LOADER_EDIT + LOADER_ANCHOR), encoding="utf-8")
    kb_root = repo / "kb"
    shutil.copytree(MINI, kb_root)
    for rel, body in FIXTURE.items():
        (kb_root / rel).parent.mkdir(parents=True, exist_ok=True)
        (kb_root / rel).write_text(textwrap.dedent(body), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(repo), str(kb_root)],
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    return {"changed": changed_files(repo), **json.loads(run.stdout)}


def test_adding_a_kind_touches_the_schema_and_the_kb_declaration_only(worked_example):
    assert worked_example["changed"] == ["handbook/kb/loader.py", "handbook/kb/schema.py"]


def test_the_loader_reads_the_new_kind(worked_example):
    loaded = worked_example["loaded"]
    assert list(loaded) == ["dense-a-tp2-base", "dense-a-tp2-larger-batch"]  # by file name
    assert loaded["dense-a-tp2-larger-batch"] == {
        "id": "dense-a-tp2-larger-batch",
        "recipe": "dense-a-tp2",
        "baseline": "dense-a-tp2-base",
        "output_tokens_per_s": 1500.0,
        "flags": ["--mem-fraction-static"],
        "source": "handbook",
    }
    assert worked_example["origin"] == 3  # file:line of its fields, like every entity


def test_references_into_and_out_of_the_new_kind_are_checked(worked_example):
    shown = "kb/benchmarks/dense-a-tp2-larger-batch.yaml"
    stray = worked_example["broken"][-1]
    assert worked_example["broken"] == [
        f"{shown}:2: recipe: got 'dense-a-tp3', expected one of the recipe ids in kb/recipes/ "
        "(did you mean 'dense-a-tp2'?)",
        f"{shown}:3: baseline: got 'dense-a-tp2-bse', expected one of the benchmark ids in kb/benchmarks/ "
        "(did you mean 'dense-a-tp2-base'?)",
        f"{shown}:5: flags[0]: got flag '--mem-fraction-statik', expected a launch_server flag documented "
        "in kb/parameters/ (did you mean '--mem-fraction-static'?)",
        stray,
    ]
    # the new folder's pattern joins the stray-file message, after the folders the KB had
    assert stray.startswith("kb/benchmarks/notes.txt:1: got a file the KB does not read, expected one of: ")
    assert stray.endswith(", recipes/*.yaml, parameters/*.yaml, benchmarks/*.yaml")
    assert worked_example["broken_flags_pool"] == []  # a pool whose files failed is not judged


def test_kb_json_and_its_schema_carry_the_new_kind(worked_example):
    assert worked_example["export_fields"][-2:] == ["glossary", "benchmarks"]  # appended
    assert list(worked_example["exported"]) == ["dense-a-tp2-base", "dense-a-tp2-larger-batch"]
    assert worked_example["exported"]["dense-a-tp2-base"]["output_tokens_per_s"] == 1200.0
    assert worked_example["export_schema"] == {
        "additionalProperties": {"$ref": "#/$defs/Benchmark"},
        "title": "Benchmarks",
        "type": "object",
    }


def test_the_new_kind_gets_a_json_schema_and_an_editor_mapping(worked_example):
    assert "kb/schema/benchmarks.schema.json" in worked_example["generated"]
    schema = worked_example["file_schema"]
    assert schema["title"] == "kb/benchmarks/*.yaml"
    assert list(schema["properties"]) == [
        "id",
        "recipe",
        "baseline",
        "output_tokens_per_s",
        "flags",
        "source",
    ]
    assert schema["required"] == ["id", "recipe", "output_tokens_per_s", "source"]
    assert schema["additionalProperties"] is False
    assert worked_example["editor"]["./kb/schema/benchmarks.schema.json"] == ["/kb/benchmarks/*.yaml"]


# ------------------------------------------------------------------------------------- the declarations
def test_every_kind_is_declared_once_with_its_file():
    kinds = loader.KINDS
    assert [k.name for k in kinds] == [
        "handbook", "sources", "dtypes", "quantizations", "hardware", "models", "attention", "groups", "recipes",
        "pitfalls", "env_vars", "observability", "tuning", "architecture", "topologies", "claims", "edits",
        "rules", "resolved_defaults", "wording_exceptions", "glossary",
    ]  # fmt: skip
    rules = next(f for f in loader.FILES if f.pattern == "rules.yaml")
    assert [k.name for k in rules.kinds] == [
        "rules",
        "resolved_defaults",
        "wording_exceptions",
    ]  # parsed once
    assert list(rules.schema.model_fields) == ["rules", "resolved_defaults", "wording_exceptions"]
    assert not rules.schema.model_fields["resolved_defaults"].is_required()
    assert not rules.schema.model_fields["wording_exceptions"].is_required()


def test_every_reference_in_the_schema_names_a_declared_kind():
    pools = {m.pool for kind in loader.KINDS for m in markers(kind.schema) if isinstance(m, Ref)}
    assert pools == {
        "sources",
        "models",
        "hardware",
        "dtypes",
        "quantizations",
        "attention",
        "env_vars",
        "rules",
    }


def test_a_reference_to_an_undeclared_kind_fails_at_import(tmp_path):
    repo = package_copy(tmp_path)
    schema = repo / "handbook" / "kb" / "schema.py"
    text = schema.read_text(encoding="utf-8")
    assert text.count('ModelId = Annotated[Id, Ref("models")]') == 1
    schema.write_text(text.replace('Ref("models")', 'Ref("modles")'), encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-c", "import handbook.kb.loader"],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(repo)}, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 1
    assert run.stderr.splitlines()[-1] == (
        "TypeError: AttentionFamily: got Ref('modles'), expected one of: sources, dtypes, quantizations, hardware, models, "
        "attention, groups, recipes, pitfalls, env_vars, claims, rules, glossary"
    )


def test_declarations_that_do_not_fit_their_shape_are_refused():
    @dataclass(kw_only=True)
    class Wrong:
        models: list[s.Model] = per_file("models/*.yaml", noun="model")  # noqa: RUF009

    with pytest.raises(TypeError, match=r"models: got annotation .*, expected dict\[str, <schema class>\]"):
        declared(Wrong)
    with pytest.raises(TypeError, match=r"got pattern 'models\.yaml', expected '<folder>/\*\.yaml'"):
        per_file("models.yaml", noun="model")
    with pytest.raises(TypeError, match="needs a noun"):
        listed("terms.yaml", "terms")


def test_a_union_with_references_in_two_branches_is_refused():
    class Either(Closed):
        x: s.ModelId | list[s.HardwareId]

    with pytest.raises(TypeError, match="got references in several branches, expected them in one at most"):
        list(markers(Either))


def test_the_walker_finds_every_marked_value_with_its_program():
    recipe = load_kb(MINI).recipes["dense-a-tp2"]
    assert list(references(recipe)) == [
        (("model",), Ref("models"), "dense-a", "launch_server"),
        (("hardware", 0), Ref("hardware"), "gpu-a", "launch_server"),
        (("flags", 0), FlagUse(line=True), "--model-path example/Dense-A", "launch_server"),
        (("flags", 1), FlagUse(line=True), "--tp 2", "launch_server"),
        (("source",), Ref("sources"), "handbook", "launch_server"),
    ]
    text = {"zh": "文", "en": "text"}
    group = s.ParameterGroup.model_validate(
        {"title": text, "order": 1, "parameters": [
            {"flag": "--a", "summary": text, "meaning": text, "default": {"kind": "unstated"},
             "related": ["--b"], "source": "x"},
            {"flag": "--c", "program": "launch_router", "summary": text, "meaning": text,
             "default": {"kind": "unstated"}, "related": ["--d"], "source": "y",
             "field_sources": {"meaning": "z"}},
        ]}
    )  # fmt: skip
    assert list(references(group)) == [
        (("parameters", 0, "related", 0), FlagUse(), "--b", "launch_server"),
        (("parameters", 0, "source"), Ref("sources"), "x", "launch_server"),
        (("parameters", 1, "related", 0), FlagUse(), "--d", "launch_router"),  # the parameter's program
        (("parameters", 1, "source"), Ref("sources"), "y", "launch_router"),
        (("parameters", 1, "field_sources", "meaning"), Ref("sources"), "z", "launch_router"),
    ]


def test_the_flag_index_is_built_at_load_and_the_kb_is_no_cache_key():
    kb = load_kb(MINI)
    assert kb.parameter("--tp") is kb.parameters[("launch_server", "--tp-size")]  # an abbreviation
    assert kb.parameters.spellings("launch_router") == ["--pd-disaggregation"]
    assert "--tp" in kb.parameters.spellings("launch_server")
    assert list(kb.parameters) == [
        ("launch_server", "--tp-size"), ("launch_server", "--mem-fraction-static"),
        ("launch_server", "--attention-backend"), ("launch_server", "--model-path"),
        ("launch_router", "--pd-disaggregation"),
    ]  # fmt: skip
    assert "__hash__" not in vars(loader.KB)  # no identity hash of its own: nothing caches by the KB


def test_a_listed_kind_in_a_file_of_its_own(tmp_path):
    """The same three edits for entities listed in one file: unique ids, a required file, its schema."""
    repo = package_copy(tmp_path)
    schema = repo / "handbook" / "kb" / "schema.py"
    schema.write_text(
        schema.read_text(encoding="utf-8")
        + "\n\nclass Term(Closed):\n    id: Id\n    meaning: Text\n    models: list[ModelId] = []\n    source: SourceId\n",
        encoding="utf-8",
    )
    kb_module = repo / "handbook" / "kb" / "loader.py"
    declaration = '    glossary: dict[str, s.Term] = listed("glossary.yaml", "terms", noun="term")\n'
    kb_module.write_text(
        kb_module.read_text(encoding="utf-8").replace(LOADER_ANCHOR, declaration + LOADER_ANCHOR),
        encoding="utf-8",
    )
    assert changed_files(repo) == ["handbook/kb/loader.py", "handbook/kb/schema.py"]
    kb_root = tmp_path / "kb"
    shutil.copytree(MINI, kb_root)
    term = "  - {id: %s, meaning: {zh: 词, en: word}, models: [%s], source: handbook}\n"
    (kb_root / "glossary.yaml").write_text("terms:\n" + term % ("kv", "dense-a") + term % ("kv", "dense-b"))
    probe = textwrap.dedent(
        """
        import json, sys
        from pathlib import Path
        from handbook.kb import json_schema, loader
        try:
            loader.load_kb(Path(sys.argv[1]))
        except loader.KBInvalid as exc:
            problems = [str(p) for p in exc.problems]
        schema = json.loads(json_schema.generated()["kb/schema/glossary.schema.json"])
        print(json.dumps({"problems": problems, "schema": schema["properties"]["terms"], "required": schema["required"]}))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", probe, str(kb_root)],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(repo)}, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["problems"] == [
        "kb/glossary.yaml:3: terms[1].id: got term id 'kv' again (first at kb/glossary.yaml:2), expected each term id once",
        "kb/glossary.yaml:3: terms[1].models[0]: got 'dense-b', expected one of the model ids in kb/models/ (did you mean 'dense-a'?)",
    ]
    assert out["schema"] == {
        "items": {"$ref": "#/$defs/Term"},
        "minItems": 1,
        "title": "Terms",
        "type": "array",
    }
    assert out["required"] == ["terms"]
