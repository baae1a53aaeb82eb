"""Renderers for commands: one recipe as a copyable block, or variants of one recipe as content tabs."""

from __future__ import annotations

from handbook.calc.recipe_text import command_text, line_notes
from handbook.kb.schema import Recipe
from handbook.render.context import RenderContext, esc
from handbook.render.engine import command_status
from handbook.render.html import admonition, bullet_list, fence, tabs
from handbook.render.markers import RenderError, renderer
from handbook.render.replays import replay_block


def _recipe(ctx: RenderContext, rid: str) -> Recipe:
    recipe = ctx.kb.recipes.get(rid)
    if recipe is None:
        raise RenderError(f"{rid!r} is not a recipe id (kb/recipes/<id>.yaml)")
    return recipe


def recipe_block(ctx: RenderContext, recipe: Recipe, with_title: bool = True) -> str:
    """The command, its check status right under it, then line remarks and the source's notes."""
    parts = [fence(command_text(recipe, ctx.lang, with_title), "bash")]
    if ctx.command_status:
        parts.append(command_status(ctx, recipe))
        replay = replay_block(ctx, recipe)  # what the engine's start-up resolution made of it
        if replay:
            parts.append(replay)
    remarks = [
        f"<code>{esc(line)}</code>: {ctx.text_html(note, recipe.program)}"
        for line, note in line_notes(recipe)
    ]
    if remarks:
        parts.append(bullet_list(remarks))
    if recipe.notes:  # the source sets its warnings under a command apart: keep them in a box
        body = "\n\n".join(ctx.text_html(note, recipe.program) for note in recipe.notes)
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
