"""Renderers for commands: one recipe as a copyable block, or variants of one recipe as content tabs."""

from __future__ import annotations

from collections.abc import Sequence

from handbook.calc.recipe_text import command_text, line_notes
from handbook.core.anchors import DRIFT_PAGE
from handbook.kb.schema import Note, Recipe
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


def _notes(ctx: RenderContext, notes: Sequence[Note], program: str | None, title_key: str) -> str:
    """The source's warnings under a command (or a set of commands), apart in a box, with their verdicts."""
    body = "\n\n".join(ctx.text_html(note, program) + verdicts(ctx, note.rules) for note in notes)
    return admonition("note", ctx.msg(title_key), body)


def shared_notes(recipes: Sequence[Recipe]) -> list[Note]:
    """The notes every one of the recipes carries (the same words, the same rules): said once for all."""
    first, *others = recipes
    return [note for note in first.notes if all(note in other.notes for other in others)]


def recipe_block(
    ctx: RenderContext, recipe: Recipe, with_title: bool = True, said: Sequence[Note] = ()
) -> str:
    """The command; what this site changed from the source, right under it and never folded; one status
    line with the check and the replay folded under it; then line remarks and the source's notes (but
    those ``said`` once for a whole set of commands)."""
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
    notes = [note for note in recipe.notes if note not in said]
    if notes:  # the source sets its warnings under a command apart: keep them in a box
        parts.append(_notes(ctx, notes, recipe.program, "recipe-notes"))
    return "\n\n".join(parts)


@renderer("recipe")
def recipe(ctx: RenderContext, id: str, title: str = "yes") -> str:
    if title not in ("yes", "no"):
        raise RenderError("title= takes yes or no")
    return recipe_block(ctx, _recipe(ctx, id), with_title=title == "yes")


def _recipes(ctx: RenderContext, ids: str, marker: str) -> list[Recipe]:
    recipes = [_recipe(ctx, rid) for rid in ids.split(",") if rid]
    if len(recipes) < 2:
        raise RenderError(f"{marker} needs at least two recipe ids")
    return recipes


def _shared(ctx: RenderContext, recipes: Sequence[Recipe], shared: list[Note]) -> list[str]:
    return [_notes(ctx, shared, recipes[0].program, "recipe-notes-shared")] if shared else []


@renderer("recipe-tabs")
def recipe_tabs(ctx: RenderContext, ids: str) -> str:
    """Variants of one command that a reader picks one of and never sets side by side (one vendor's
    platform or the other's) as content tabs, labelled by their titles; notes every variant carries are
    said once, under the tabs."""
    recipes = _recipes(ctx, ids, "recipe-tabs")
    shared = shared_notes(recipes)
    blocks = tabs([(ctx.t(r.title), recipe_block(ctx, r, with_title=False, said=shared)) for r in recipes])
    return "\n\n".join([blocks, *_shared(ctx, recipes, shared)])


@renderer("recipe-set")
def recipe_set(ctx: RenderContext, ids: str) -> str:
    """Alternatives a reader compares (GPU count, strategy, precision), one after another, each under a
    small heading with its title and an anchor (#recipe-<id>) so that scanning and printing show them all;
    notes every command carries are said once, after the last."""
    recipes = _recipes(ctx, ids, "recipe-set")
    shared = shared_notes(recipes)
    parts = []
    for r in recipes:
        anchor, title = attr("recipe-" + r.id), esc(ctx.t(r.title))
        heading = f'<p class="recipe-heading" id="{anchor}"><strong>{title}</strong></p>'
        parts += [heading, recipe_block(ctx, r, with_title=False, said=shared)]
    return "\n\n".join([*parts, *_shared(ctx, recipes, shared)])
