"""Renderers on the fixture KB: exact output, escaping, links, both languages."""

from __future__ import annotations

from pathlib import Path

import handbook.render.renderers  # noqa: F401 - registers the renderers
from handbook.calc.recipe_text import command_text
from handbook.kb.loader import load_kb
from handbook.render.context import RenderContext, esc
from handbook.render.markers import render_page

KB = load_kb(Path(__file__).parent / "fixtures" / "kb-mini")


def render(markdown: str, lang: str = "zh", page: str = "02-memory.md") -> str:
    return render_page(markdown, RenderContext(KB, lang, page), f"docs/{lang}/{page}").strip()


def test_escape_neutralises_html_and_markdown():
    assert esc("<script>alert('x')</script> a|b *c* `d` [e](f)") == (
        "&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62; a&#124;b &#42;c&#42; &#96;d&#96; &#91;e&#93;(f)"
    )


def test_flags_and_variables_in_kb_text_become_linked_code():
    ctx = RenderContext(KB, "en", "08-production.md")
    html = ctx.text_html("Lower --mem-fraction-static; set SGLANG_USE_AITER=1, not --no-such-flag <b>")
    assert (
        html
        == (
            'Lower <a href="../04-parameters/#mem-fraction-static"><code>--mem-fraction-static</code></a>; '
            'set <a href="../09-appendix/#sglang-use-aiter"><code>SGLANG&#95;USE&#95;AITER</code></a>=1, '  # entities: literal in Markdown and HTML alike
            "not <code>--no-such-flag</code> &#60;b&#62;"
        )
    )


def test_links_from_the_home_page_and_within_a_page():
    home = RenderContext(KB, "zh", "index.md")
    assert home.href("04-parameters.md", "tp-size") == "04-parameters/#tp-size"
    assert RenderContext(KB, "zh", "04-parameters.md").href("04-parameters.md", "tp-size") == "#tp-size"


def test_kv_example_shows_the_handbook_formula_with_config_values():
    assert render("<!-- kb:kv-example claim=dense-a-kv -->") == (
        "```text\n2 × 80 × 8 × 128 × 2 = 327,680 B ≈ 320 KiB / token\n```"
    )


def test_claims_render_the_computed_figure_in_both_languages():
    assert render("<!-- kb:claim id=dense-a-8k -->", "en") == "2.5 GiB (2.68 GB)"
    assert render("<!-- kb:claim id=dense-a-8k -->", "zh") == "2.5 GiB (2.68 GB)"


def test_kv_table_marks_unpublished_fields_and_anchors_rows():
    out = render("<!-- kb:kv-table -->", "en")
    assert '<tr id="kv-dense-a">' in out
    assert "327,680 / 163,840" in out  # BF16 / FP8 bytes per token, 2 × 80 × 8 × 128 × {2, 1}
    assert "70,272 / 35,136" in out  # 61 × (512 + 64) × {2, 1}
    assert "not in this KB: num_hidden_layers, kv_lora_rank, qk_rope_head_dim" in out


def test_parameters_table_anchors_each_flag_on_the_parameters_page():
    out = render("<!-- kb:parameters groups=memory -->", "en", "04-parameters.md")
    # --tp is only an argparse abbreviation of --tp-size (kb-mini lists it under abbreviations), not an alias
    assert (
        '<span id="tp-size"></span><code>--tp-size</code><br><small>the source also writes <code>--tp</code>: '
        "an abbreviation, not an alias</small></td>"
    ) in out
    assert "<td>automatic</td>" in out  # kind auto
    assert "Acts at: ⑤" in out


def test_choices_mark_the_default():
    out = render("<!-- kb:choices flag=--attention-backend -->", "zh", "04-parameters.md")
    # the engine's parser has no default for it: the choice the source calls default is marked as the source's
    assert "<td><code>flashinfer</code>（源稿称为默认）</td><td>通用</td>" in out
    assert "<td><code>fa3</code> / <code>fa4</code></td>" in out
    # choices_partial: how many of the engine's values the source lists, and where the rest are
    assert out.endswith(
        '源稿只列出了引擎 25 个取值中的 3 个，全部取值见<a href="../engine-options/#opt-attention-backend">引擎参数参考</a>。'
    )


def test_recipe_block_with_env_notes_and_line_notes():
    out = render("<!-- kb:recipe id=latent-b-amd -->", "en")
    assert out == (
        "```bash\n"
        "# AMD set-up\n"
        "export SGLANG_USE_AITER=1   # enable AITER\n"
        "\n"
        "python -m sglang.launch_server \\\n"
        "  --model-path example/Latent-B \\\n"
        "  --tp-size 8 \\\n"
        "  --mem-fraction-static 0.8 \\\n"
        "  --attention-backend fa3\n"
        "```\n\n"
        "- <code>--mem-fraction-static 0.8</code>: leaves room for activations"
    )


def test_a_command_a_phone_cannot_show_on_one_line_gets_one_flag_per_line():
    # 66 characters: more than the 44 a 390 px screen shows, so it is continued, each flag on its own line
    assert command_text(KB.recipes["dense-a-tp2"]) == (
        "python -m sglang.launch_server \\\n  --model-path example/Dense-A \\\n  --tp 2"
    )


def test_a_command_a_phone_shows_whole_stays_on_one_line():
    from handbook.calc.recipe_text import ONE_LINE_MAX

    short = KB.recipes["dense-a-tp2"].model_copy(update={"flags": ["--tp 2"]})
    assert command_text(short) == "python -m sglang.launch_server --tp 2"
    assert len(command_text(short)) <= ONE_LINE_MAX == 44


def test_recipe_tabs_indent_each_variant():
    out = render("<!-- kb:recipe-tabs ids=dense-a-tp2,latent-b-amd -->", "en")
    assert out.startswith(
        '=== "Two GPUs"\n\n    ```bash\n    python -m sglang.launch_server \\\n      --model-path'
    )
    assert '=== "AMD set-up"' in out


def test_a_recipe_set_shows_every_command_under_its_own_heading():
    out = render("<!-- kb:recipe-set ids=dense-a-tp2,latent-b-amd -->", "en")
    assert '=== "' not in out  # no tabs: a reader scanning or printing sees both commands
    first = '<p class="recipe-heading" id="recipe-dense-a-tp2"><strong>Two GPUs</strong></p>'
    second = '<p class="recipe-heading" id="recipe-latent-b-amd"><strong>AMD set-up</strong></p>'
    assert out.index(first) < out.index("--model-path example/Dense-A") < out.index(second)
    assert out.index(second) < out.index("--model-path example/Latent-B")


def test_notes_every_command_carries_are_said_once_after_the_set_or_the_tabs():
    from handbook.kb.schema import Note
    from handbook.render.recipes import recipe_set, recipe_tabs, shared_notes

    both = Note(zh="两条命令都要注意", en="true of both commands")
    own = Note(zh="只对 AMD", en="only for AMD")
    kb = load_kb(Path(__file__).parent / "fixtures" / "kb-mini")
    dense, latent = kb.recipes["dense-a-tp2"], kb.recipes["latent-b-amd"]
    kb.recipes["dense-a-tp2"] = dense.model_copy(update={"notes": [both]})
    kb.recipes["latent-b-amd"] = latent.model_copy(update={"notes": [own, both]})
    assert shared_notes([kb.recipes["dense-a-tp2"], kb.recipes["latent-b-amd"]]) == [both]
    ctx = RenderContext(kb, "en", "06-models.md")
    for out in (recipe_set(ctx, "dense-a-tp2,latent-b-amd"), recipe_tabs(ctx, "dense-a-tp2,latent-b-amd")):
        assert out.count("true of both commands") == 1
        assert out.count("only for AMD") == 1
        assert out.index("only for AMD") < out.index('!!! note "Note for all the commands above"')
        assert out.rstrip().endswith("true of both commands")


def test_drift_lists_only_disagreeing_claims_with_their_reason():
    out = render("<!-- kb:drift -->", "en", "09-appendix.md")
    assert "<td>2.6 GB<br>→ 2.5 GiB (2.68 GB)</td>" in out  # what the source says, then what is published
    assert "320 KiB" not in out  # the agreeing claim is not drift


def test_kb_strings_are_shown_literally_in_tables(tmp_path):
    import shutil

    root = tmp_path / "kb"
    shutil.copytree(Path(__file__).parent / "fixtures" / "kb-mini", root)
    pitfalls = root / "pitfalls.yaml"
    pitfalls.write_text(
        pitfalls.read_text().replace(
            "symptom: {zh: 启动 OOM, en: OOM at start-up}",
            "symptom: {zh: 启动 OOM, en: '<script>x</script> | *a* `b`'}",
        )
    )
    kb = load_kb(root)
    out = render_page(
        "<!-- kb:pitfalls model=dense-a -->\n", RenderContext(kb, "en", "08-production.md"), "p"
    )
    assert "<td>&#60;script&#62;x&#60;/script&#62; &#124; &#42;a&#42; &#96;b&#96;</td>" in out
    assert "<script>" not in out


def test_recipe_notes_render_in_a_box_in_the_page_language(tmp_path):
    import shutil

    root = tmp_path / "kb"
    shutil.copytree(Path(__file__).parent / "fixtures" / "kb-mini", root)
    recipe = root / "recipes" / "dense-a-tp2.yaml"
    recipe.write_text(recipe.read_text() + "notes:\n  - {zh: 先确认 --tp-size, en: Check --tp-size first}\n")
    out = render_page(
        "<!-- kb:recipe id=dense-a-tp2 -->\n", RenderContext(load_kb(root), "zh", "06-models.md"), "p"
    )
    assert out.strip().endswith(
        '!!! note "注意"\n\n    先确认 <a href="../04-parameters/#tp-size"><code>--tp-size</code></a>'
    )
