"""``python -m handbook new``: skeletons that validate once filled in, placeholders that never do, refusals."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from handbook.cli import main
from handbook.core.text import PLACEHOLDER
from handbook.kb.loader import KBInvalid, load_kb

MINI = Path(__file__).parent / "fixtures" / "kb-mini"
UNFILLED = f"got the placeholder '{PLACEHOLDER}', expected a real value (fill in this field)"


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(MINI, root)
    return root


def new(kb: Path, *args: str) -> int:
    return main(["new", *args, "--kb", str(kb)])


def problems(root: Path) -> list[str]:
    with pytest.raises(KBInvalid) as caught:
        load_kb(root)
    return [str(p) for p in caught.value.problems]


def line_of(text: str, start: str) -> int:
    """1-based number of the first line that starts (after indentation) with ``start``."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.lstrip().startswith(start))


# What a contributor writes in place of each placeholder, by the key of its line.
FILLS = {
    "title": "{zh: 两卡, en: Two GPUs}",
    "summary": "{zh: 示例, en: An example}",
    "stated": "{zh: 示例, en: example}",
    "symptom": "{zh: 启动失败, en: It fails to start}",
    "cause": "{zh: 原因, en: The cause}",
    "fix": "{zh: 办法, en: The fix}",
    "- --model-path": "example/New-Model",
    "name": "New-Model",
    "vendor": "Example Labs",
    "role": "reference",
    "total_b": "30",
    "active_b": "3",
    "routed": "64",
    "per_token": "8",
    "native": "32768",
    "families": "[gqa]",
    "num_hidden_layers": "48",
    "num_key_value_heads": "4",
    "head_dim": "128",
    "kv_lora_rank": "512",
    "qk_rope_head_dim": "64",
    "checkpoint": "example/New-Model-FP8",
    "source": "handbook",
    "form": "gpu",
    "architecture": "Example",
    "memory_gb": "96",
}


def filled(text: str) -> str:
    out = []
    for line in text.splitlines(keepends=True):
        value = line.split("  # ", 1)[0]
        if PLACEHOLDER in value and not line.lstrip().startswith("#"):
            key = value.strip().split(":", 1)[0] if not value.strip().startswith("- --") else "- --model-path"
            indent = value[: len(value) - len(value.lstrip())]
            if key == "- --model-path":
                line = f"{indent}- --model-path {FILLS[key]}\n"
            else:
                line = f"{indent}{key}: {FILLS[key]}\n"
        out.append(line)
    return "".join(out)


def asked(text: str) -> list[str]:
    """The keys of the lines whose value (not a comment) holds the placeholder, in order."""
    out = []
    for line in text.splitlines():
        value = "" if line.lstrip().startswith("#") else line.split("  # ", 1)[0]
        if PLACEHOLDER in value:
            out.append(value.strip().removeprefix("- ").split(":", 1)[0])
    return out


# ------------------------------------------------------------------------------------------------ recipe
def test_recipe_skeleton_fills_in_the_options_and_validates_once_filled(kb, capsys):
    assert new(kb, "recipe", "dense-a-gpu-a-tp4", "--model", "dense-a", "--hardware", "gpu-a", "--gpus", "4",
               "--precision", "bf16", "--strategy", "throughput", "--source", "handbook") == 0  # fmt: skip
    path = kb / "recipes" / "dense-a-gpu-a-tp4.yaml"
    text = path.read_text(encoding="utf-8")
    # the model's bf16 checkpoint (example/Dense-A in kb/models/dense-a.yaml) is known: no placeholder there
    assert "  - --model-path example/Dense-A\n" in text
    title = line_of(text, "title:")
    assert problems(kb) == [
        f"kb/recipes/dense-a-gpu-a-tp4.yaml:{title}: title.en: {UNFILLED}",
        f"kb/recipes/dense-a-gpu-a-tp4.yaml:{title}: title.zh: {UNFILLED}",
    ]
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "✔ wrote kb/recipes/dense-a-gpu-a-tp4.yaml",
        "Fill in (1):",
        f"  kb/recipes/dense-a-gpu-a-tp4.yaml:{title}: title: {{zh: {PLACEHOLDER}, en: {PLACEHOLDER}}}",
        "Then check it: python -m handbook validate",
    ]
    path.write_text(filled(text), encoding="utf-8")
    recipe = load_kb(kb).recipes["dense-a-gpu-a-tp4"]
    assert (recipe.model, recipe.hardware, recipe.gpus, recipe.precision, recipe.strategy) == (
        "dense-a", ["gpu-a"], 4, "bf16", "throughput"
    )  # fmt: skip
    assert recipe.flags == ["--model-path example/Dense-A", "--tp-size 4"]
    assert recipe.title.en == "Two GPUs" and recipe.source == "handbook"


def test_recipe_without_a_known_checkpoint_or_source_holds_placeholders(kb):
    assert new(kb, "recipe", "plain") == 0
    text = (kb / "recipes" / "plain.yaml").read_text(encoding="utf-8")
    title, model_path, source = (
        line_of(text, "title:"),
        line_of(text, "- --model-path"),
        line_of(text, "source:"),
    )
    assert problems(kb) == [
        f"kb/recipes/plain.yaml:{title}: title.en: {UNFILLED}",
        f"kb/recipes/plain.yaml:{title}: title.zh: {UNFILLED}",
        # a flag line may be a string or a mapping: the placeholder still reads as one problem
        f"kb/recipes/plain.yaml:{model_path}: flags[0]: {UNFILLED}",
        f"kb/recipes/plain.yaml:{source}: source: {UNFILLED}",
    ]
    (kb / "recipes" / "plain.yaml").write_text(filled(text), encoding="utf-8")
    assert load_kb(kb).recipes["plain"].flags == ["--model-path example/New-Model"]


def test_unknown_ids_in_options_are_refused_with_suggestions(kb, capsys):
    code = new(kb, "recipe", "x", "--model", "dense-aa", "--hardware", "gpu-a,gpu-b", "--precision", "fp9",
               "--source", "handbok")  # fmt: skip
    assert code == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ --source: got 'handbok', expected one of the source ids in kb/sources/ (did you mean 'handbook'?)",
        "✖ --model: got 'dense-aa', expected one of the model ids in kb/models/ (did you mean 'dense-a'?)",
        "✖ --hardware: got 'gpu-b', expected one of the hardware ids in kb/hardware/ (did you mean 'gpu-a'?)",
        "✖ --precision: got 'fp9', expected one of the dtype ids in kb/dtypes.yaml (did you mean 'fp8'?)",
        "Nothing was written.",
    ]
    assert not (kb / "recipes" / "x.yaml").exists()


def test_an_existing_recipe_is_never_overwritten(kb, capsys):
    before = (kb / "recipes" / "dense-a-tp2.yaml").read_bytes()
    assert new(kb, "recipe", "dense-a-tp2", "--model", "dense-a") == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ kb/recipes/dense-a-tp2.yaml: got recipe id 'dense-a-tp2', which exists already; "
        "expected a new id (or edit that file); nothing was written.",
    ]
    assert (kb / "recipes" / "dense-a-tp2.yaml").read_bytes() == before


@pytest.mark.parametrize("bad", ["Dense_A", "_tp2", "a b", "x" * 81])
def test_ids_must_match_the_id_pattern(kb, capsys, bad):
    assert new(kb, "hardware", bad) == 2
    assert capsys.readouterr().err.splitlines()[0] == (
        f"✖ id: got '{bad}', expected lowercase letters, digits, '.', '_' and '-', starting with a letter or "
        "digit, at most 80 characters (^[a-z0-9][a-z0-9._-]*$); nothing was written."
    )
    assert sorted(p.name for p in (kb / "hardware").iterdir()) == ["gpu-a.yaml"]


# ------------------------------------------------------------------------------------------------ model
@pytest.mark.parametrize(
    ("formula", "kv_fields"),
    [("gqa", ["num_hidden_layers", "num_key_value_heads", "head_dim"]),
     ("mla", ["num_hidden_layers", "kv_lora_rank", "qk_rope_head_dim"])],
)  # fmt: skip
def test_model_skeleton_asks_for_what_its_kv_formula_needs(kb, formula, kv_fields):
    assert new(kb, "model", "new-moe", "--kv-formula", formula, "--name", "New-MoE", "--vendor", "Example Labs",
               "--precision", "fp8", "--family", "gqa", "--source", "handbook") == 0  # fmt: skip
    path = kb / "models" / "new-moe.yaml"
    text = path.read_text(encoding="utf-8")
    assert "name: New-MoE\n" in text and "vendor: Example Labs\n" in text and "families: [gqa]\n" in text
    assert asked(text) == ["role", "summary", "total_b", "active_b", "routed", "per_token", "native", "stated",
                     *kv_fields, "checkpoint"]  # fmt: skip
    path.write_text(filled(text), encoding="utf-8")
    model = load_kb(kb).models["new-moe"]
    assert model.attention.kv_formula == formula and model.attention.families == ["gqa"]
    assert [getattr(model.config, name) for name in kv_fields] == [int(FILLS[name]) for name in kv_fields]
    assert (model.params.total_b, model.experts.routed, model.context.native) == (30, 64, 32768)
    assert [(p.dtype, p.checkpoint) for p in model.precisions] == [("fp8", "example/New-Model-FP8")]


def test_dense_model_has_no_experts(kb):
    assert new(kb, "model", "new-dense", "--kv-formula", "gqa", "--dense", "--source", "handbook") == 0
    path = kb / "models" / "new-dense.yaml"
    path.write_text(filled(path.read_text(encoding="utf-8")), encoding="utf-8")
    assert load_kb(kb).models["new-dense"].experts is None


def test_every_model_placeholder_is_rejected_at_its_line(kb):
    assert new(kb, "model", "new-moe", "--kv-formula", "mla") == 0
    text = (kb / "models" / "new-moe.yaml").read_text(encoding="utf-8")
    # each placeholder line, its dotted path as the loader names it, zh/en split for bilingual fields
    sections, expected = {}, []
    for number, line in enumerate(text.splitlines(), 1):
        if line and not line.startswith((" ", "#")):
            sections[0] = line.split(":", 1)[0]
        elif line.startswith("  - "):
            sections[1] = "precisions[0]"
        value = "" if line.lstrip().startswith("#") else line.split("  # ", 1)[0]
        if PLACEHOLDER not in value:
            continue
        key = value.strip().removeprefix("- ").split(":", 1)[0]
        if value.startswith("    "):
            path = f"{sections[1]}.{key}"
        elif value.startswith("  "):
            path = f"{sections[0]}.{key}"
        else:
            path = key
        if key == "families":
            path += "[0]"
        if "{zh:" in value:
            expected += [f"kb/models/new-moe.yaml:{number}: {path}.en: {UNFILLED}",
                         f"kb/models/new-moe.yaml:{number}: {path}.zh: {UNFILLED}"]  # fmt: skip
        else:
            expected.append(f"kb/models/new-moe.yaml:{number}: {path}: {UNFILLED}")
    # name, vendor, role, summary ×2, params ×3, experts ×3, context ×2, attention ×4, config ×4
    assert len(expected) == 21
    assert problems(kb) == expected


def test_model_options_are_checked(kb, capsys):
    assert new(kb, "model", "m", "--kv-formula", "gqa", "--precision", "bf16,fp4", "--family", "mlaa") == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ --precision: got 'fp4', expected one of the dtype ids in kb/dtypes.yaml (did you mean 'fp8'?)",
        "✖ --family: got 'mlaa', expected one of the attention family ids in kb/attention.yaml "
        "(did you mean 'mla'?)",
        "Nothing was written.",
    ]
    assert not (kb / "models" / "m.yaml").exists()


def test_an_existing_model_is_refused(kb, capsys):
    assert new(kb, "model", "dense-a", "--kv-formula", "gqa") == 2
    assert "kb/models/dense-a.yaml: got model id 'dense-a', which exists already" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------------ hardware
def test_hardware_skeleton(kb):
    assert new(kb, "hardware", "gpu-b", "--vendor", "amd", "--name", "Example GPU-B", "--memory-gb", "192",
               "--source", "handbook") == 0  # fmt: skip
    path = kb / "hardware" / "gpu-b.yaml"
    text = path.read_text(encoding="utf-8")
    form, arch = line_of(text, "form:"), line_of(text, "architecture:")
    assert problems(kb) == [
        f"kb/hardware/gpu-b.yaml:{form}: form: {UNFILLED}",
        f"kb/hardware/gpu-b.yaml:{arch}: architecture: {UNFILLED}",
    ]
    path.write_text(filled(text), encoding="utf-8")
    gpu = load_kb(kb).hardware["gpu-b"]
    assert (gpu.name, gpu.vendor, gpu.form, gpu.memory_gb, gpu.source) == (
        "Example GPU-B",
        "amd",
        "gpu",
        192,
        "handbook",
    )


def test_an_existing_accelerator_is_refused(kb, capsys):
    before = (kb / "hardware" / "gpu-a.yaml").read_bytes()
    assert new(kb, "hardware", "gpu-a", "--vendor", "nvidia") == 2
    assert capsys.readouterr().err.startswith(
        "✖ kb/hardware/gpu-a.yaml: got hardware id 'gpu-a', which exists"
    )
    assert (kb / "hardware" / "gpu-a.yaml").read_bytes() == before


# ------------------------------------------------------------------------------------------------ pitfall
def test_pitfall_is_appended_keeping_the_file_as_it_was(kb, capsys):
    path = kb / "pitfalls.yaml"
    before = "# Known pitfalls — a comment the contributor's tool must keep.\n" + path.read_text(
        encoding="utf-8"
    )
    path.write_text(
        before.rstrip("\n"), encoding="utf-8"
    )  # no final newline: the entry still starts on its own line
    assert new(kb, "pitfall", "decode-oom", "--flag", "mem-fraction-static", "--model", "dense-a",
               "--topic", "memory", "--source", "handbook") == 0  # fmt: skip
    after = path.read_text(encoding="utf-8")
    assert after.startswith(before)
    added = after[len(before) :]
    assert added.startswith("  - id: decode-oom\n")  # the list's own indentation
    first = before.count("\n") + 1
    symptom = first + line_of(added, "symptom:") - 1
    cause, fix = first + line_of(added, "cause:") - 1, first + line_of(added, "fix:") - 1
    assert problems(kb) == [
        f"kb/pitfalls.yaml:{symptom}: pitfalls[1].symptom.en: {UNFILLED}",
        f"kb/pitfalls.yaml:{symptom}: pitfalls[1].symptom.zh: {UNFILLED}",
        f"kb/pitfalls.yaml:{cause}: pitfalls[1].cause.en: {UNFILLED}",
        f"kb/pitfalls.yaml:{cause}: pitfalls[1].cause.zh: {UNFILLED}",
        f"kb/pitfalls.yaml:{fix}: pitfalls[1].fix.en: {UNFILLED}",
        f"kb/pitfalls.yaml:{fix}: pitfalls[1].fix.zh: {UNFILLED}",
    ]
    assert f"  kb/pitfalls.yaml:{symptom}: symptom: " in capsys.readouterr().out
    path.write_text(before + filled(added), encoding="utf-8")
    pitfall = load_kb(kb).pitfalls["decode-oom"]
    assert pitfall.flags == ["--mem-fraction-static"]
    assert (pitfall.scope.models, pitfall.scope.topics, pitfall.troubleshooting) == (
        ["dense-a"],
        ["memory"],
        True,
    )
    assert pitfall.fix.zh == "办法"


def test_a_duplicate_pitfall_is_refused_with_its_line(kb, capsys):
    before = (kb / "pitfalls.yaml").read_bytes()
    assert new(kb, "pitfall", "startup-oom") == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ kb/pitfalls.yaml:2: got pitfall id 'startup-oom', which exists already; "
        "expected a new id (or edit that entry); nothing was written.",
    ]
    assert (kb / "pitfalls.yaml").read_bytes() == before


def test_pitfall_flags_and_topics_are_checked(kb, capsys):
    before = (kb / "pitfalls.yaml").read_bytes()
    assert new(kb, "pitfall", "p", "--flag=--mem-fraction", "--topic", "memroy") == 2
    assert capsys.readouterr().err.splitlines() == [
        "✖ --topic: got 'memroy', expected one of: memory, scheduling, mamba, pd, parsers, multimodal, "
        "loading, cache",
        "✖ --flag: got '--mem-fraction', expected a launch_server flag documented in kb/parameters/ "
        "(did you mean '--mem-fraction-static'?)",
        "Nothing was written.",
    ]
    assert (kb / "pitfalls.yaml").read_bytes() == before


# ------------------------------------------------------------------------------------------------ the rule
def test_the_placeholder_fails_any_field_type_but_text_around_it_is_still_checked(kb):
    """Placeholders anywhere read "fill in this field"; other mistakes in the same file keep their message."""
    path = kb / "hardware" / "gpu-a.yaml"
    path.write_text(
        "id: gpu-a\nname: <fill in>\nvendor: <fill in>\nform: gpu\narchitecture: null\n"
        "memory_gb: lots\nsource: handbook\n",
        encoding="utf-8",
    )
    assert problems(kb) == [
        f"kb/hardware/gpu-a.yaml:2: name: {UNFILLED}",
        f"kb/hardware/gpu-a.yaml:3: vendor: {UNFILLED}",
        "kb/hardware/gpu-a.yaml:6: memory_gb: got 'lots', expected a valid number",
    ]


# ------------------------------------------------------------------------------------------------ hostile trees
def test_a_symlinked_pitfalls_file_is_never_written_through(kb, tmp_path, capsys):
    outside = tmp_path / "outside.yaml"
    outside.write_text((kb / "pitfalls.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    before = outside.read_bytes()
    (kb / "pitfalls.yaml").unlink()
    (kb / "pitfalls.yaml").symlink_to(outside)
    assert new(kb, "pitfall", "new-one", "--source", "handbook") == 2
    err = capsys.readouterr().err
    assert "got a symbolic link, expected a regular file" in err and "nothing was written" in err.lower()
    assert outside.read_bytes() == before


def test_a_dangling_link_where_the_new_file_goes_is_refused(kb, capsys):
    (kb / "hardware" / "gpu-z.yaml").symlink_to(kb / "nowhere.yaml")
    assert new(kb, "hardware", "gpu-z", "--source", "handbook") == 2
    err = capsys.readouterr().err
    assert "kb/hardware/gpu-z.yaml: got hardware id 'gpu-z', which exists already" in err
    assert "Traceback" not in err and not (kb / "nowhere.yaml").exists()


def test_a_folder_that_links_out_of_the_kb_is_not_written_into(kb, tmp_path, capsys):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.rmtree(kb / "hardware")
    (kb / "hardware").symlink_to(outside)
    assert new(kb, "hardware", "gpu-z", "--source", "handbook") == 2
    assert "kb/hardware: a link or a file, not a folder" in capsys.readouterr().err
    assert list(outside.iterdir()) == []


def test_a_fifo_in_the_kb_does_not_hang_the_scaffold(kb, capsys):
    import os

    (kb / "models" / "stuck.yaml").unlink(missing_ok=True)
    os.mkfifo(kb / "models" / "stuck.yaml")
    assert new(kb, "hardware", "gpu-z", "--source", "handbook") == 0  # the FIFO is never opened
    assert (kb / "hardware" / "gpu-z.yaml").is_file()
