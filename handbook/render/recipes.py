"""Renderers for commands: one recipe as a copyable block, or variants of one recipe as content tabs."""

from __future__ import annotations

from handbook.calc.recipe_text import command_text, line_notes
from handbook.core.anchors import DRIFT_PAGE
from handbook.kb.schema import Recipe
from handbook.render.context import RenderContext, attr, esc
from handbook.render.engine import correction_line, finding_html, recipe_findings, status_words
from handbook.render.html import admonition, bullet_list, fence, tabs
from handbook.render.markers import RenderError, renderer
from handbook.render.replays import replay_view
from handbook.render.verdicts import verdicts


def _recipe(ctx: RenderContext, rid: str) -> Recipe:
    recipe = ctx.kb.recipes.get(rid)
    if recipe is None:
        raise RenderError(f"{rid!r} is not a recipe id (kb/recipes/<id>.yaml)")
    return recipe


def check_block(ctx: RenderContext, recipe: Recipe) -> str:
    """One line under a command: checked against the pinned engine (✓) or how many warnings and notes the
    check found, and what the engine's startup replay made of it; the findings and the replay itself are
    folded under that line. A command with nothing to fold gets the line alone ("" for shell commands)."""
    if recipe.kind == "shell":
        return ""
    findings = recipe_findings(ctx, recipe)
    words, mark = status_words(ctx, findings)
    replay = replay_view(ctx, recipe)
    if not findings and replay is None:
        link = f'<a href="{attr(ctx.href(DRIFT_PAGE))}">{esc(words)}</a>'
        return f'<p class="cmd-status {mark}">{link}</p>'
    summary = f'<span class="cmd-mark"></span>{esc(words)}'
    if replay is not None:
        summary += esc(ctx.msg("sep-status")) + replay.short
    body = [finding_html(ctx, f) for f in findings]
    if replay is not None:
        body.append(replay.body)
    how = f'<a href="{attr(ctx.href(DRIFT_PAGE))}">{esc(ctx.msg("cmd-check-how"))}</a>'
    body.append(f"<p><small>{how}</small></p>")
    return (
        f'<details class="cmd-check {mark}"><summary>{summary}</summary>\n' + "\n".join(body) + "\n</details>"
    )


def recipe_block(ctx: RenderContext, recipe: Recipe, with_title: bool = True) -> str:
    """The command; what this site changed from the source, right under it and never folded; one status
    line with the check and the replay folded under it; then line remarks and the source's notes."""
    parts = [fence(command_text(recipe, ctx.lang, with_title), "bash")]
    parts += [
        correction_line(ctx, recipe.id, i, fix, recipe.program) for i, fix in enumerate(recipe.corrections)
    ]
    if ctx.command_status:
        check = check_block(ctx, recipe)
        if check:
            parts.append(check)
    remarks = [
        f"<code>{esc(line)}</code>: {ctx.text_html(note, recipe.program)}"
        for line, note in line_notes(recipe)
    ]
    if remarks:
        parts.append(bullet_list(remarks))
    if recipe.notes:  # the source sets its warnings under a command apart: keep them in a box
        body = "\n\n".join(
            ctx.text_html(note, recipe.program) + verdicts(ctx, note.rules) for note in recipe.notes
        )
        parts.append(admonition("note", ctx.msg("recipe-notes"), body))
    return "\n\n".join(parts)


@renderer("recipe")
def recipe(ctx: RenderContext, id: str, title: str = "yes") -> str:
    if title not in ("yes", "no"):
        raise RenderError("title= takes yes or no")
    return recipe_block(ctx, _recipe(ctx, id), with_title=title == "yes")


@renderer("recipe-tabs")
def recipe_tabs(ctx: RenderContext, ids: str) -> str:
    """Variants of one command (hardware, vendor, strategy) as content tabs, labelled by their titles."""
    recipes = [_recipe(ctx, rid) for rid in ids.split(",") if rid]
    if len(recipes) < 2:
        raise RenderError("recipe-tabs needs at least two recipe ids")
    return tabs([(ctx.t(r.title), recipe_block(ctx, r, with_title=False)) for r in recipes])
