"""Chapter 02's memory-budget bar, drawn to scale from the planner's plan for one of the handbook's commands.

The command (``RECIPE``) fixes the model, the accelerator, the weights' precision, --tp-size, --ep-size and
--mem-fraction-static; ``handbook.calc.memory.plan`` turns them into one GPU's split of its free memory (the
device-reported memory): the weights' share, the KV pool (the rest of the static budget, the state pool and
reservations in it) and what lies outside it (CUDA graph buffers, activations).
"""

from __future__ import annotations

from dataclasses import dataclass

from handbook.calc import memory
from handbook.core.formatting import binary_size, sig
from handbook.core.messages import msg
from handbook.core.text import LANGS
from handbook.diagrams.dot import COLOURS, DiagramError, bold, h, new_graph, width_em
from handbook.diagrams.figure import Drawing, Figure, flags_of
from handbook.kb.loader import KB
from handbook.kb.schema import Recipe

FIGURE_ID = "memory-budget"
# Chapter 06.2's H200 × 8 FP8 command: it states every input of the plan, --mem-fraction-static included.
RECIPE = "qwen3.5-397b-fp8-h200-tp8"
KV_DTYPE = "bf16"  # only needed by the planner's KV arithmetic; the bar shows bytes, not tokens

BAR_PT = 700  # the whole GPU's memory, in points
BAR_HEIGHT_PT = 58
LABEL_PT = 11  # font size inside the bar
PADDING_PT = 5


@dataclass(frozen=True)
class Inputs:
    recipe: Recipe
    tp: int
    ep: int
    fraction: float | None  # None: the command leaves it to the engine's default
    fraction_stated: bool  # the command gives --mem-fraction-static


def inputs(kb: KB, recipe_id: str = RECIPE) -> Inputs:
    """The plan's inputs, all read from one command of the handbook."""
    recipe = kb.recipes.get(recipe_id)
    if recipe is None:
        raise DiagramError([f"handbook/diagrams/budget.py: RECIPE {recipe_id!r} is not in kb/recipes/"])
    origin = kb.origin(recipe)
    problems = []
    if recipe.model is None:
        problems.append(origin.at(("model",), "the memory-budget figure needs the command's model"))
    if len(recipe.hardware) != 1:
        problems.append(
            origin.at(("hardware",), f"the memory-budget figure needs one accelerator, got {recipe.hardware}")
        )
    if recipe.precision is None:
        problems.append(origin.at(("precision",), "the memory-budget figure needs the weights' precision"))
    flags = dict(flags_of(kb, recipe.flags))

    def number(flag: str, default: str) -> str:
        values = flags.get(flag, [default])
        return values[0] if values else default

    try:
        tp, ep = int(number("--tp-size", "1")), int(number("--ep-size", "1"))
        stated = number("--mem-fraction-static", "")
        fraction = float(stated) if stated else None
    except ValueError as exc:
        problems.append(origin.at(("flags",), f"a size flag is not a number ({exc})"))
    if problems:
        raise DiagramError([str(p) for p in problems])
    return Inputs(recipe, tp, ep, fraction, "--mem-fraction-static" in flags)


def budget_plan(kb: KB, ins: Inputs) -> memory.Plan:
    recipe = ins.recipe
    assert recipe.model is not None and recipe.precision is not None
    plan = memory.plan(
        kb.models[recipe.model],
        kb.hardware[recipe.hardware[0]],
        kb.dtypes[recipe.precision],
        kb.dtypes[KV_DTYPE],
        ins.tp,
        mem_fraction_static=ins.fraction,
        ep=ins.ep,
    )
    where = kb.origin(recipe)
    if plan.weights_per_gpu is None or plan.free_bytes is None or plan.static_bytes is None:
        raise DiagramError([str(where.at((), f"the plan lacks published inputs: {dict(plan.missing)}"))])
    if plan.static_bytes <= plan.weights_per_gpu:
        raise DiagramError([str(where.at((), "in its plan the weights do not fit the static budget"))])
    return plan


def _fits(lines: list[str], width_pt: float) -> bool:
    return all(width_em(line) * LABEL_PT + 2 * PADDING_PT + 4 <= width_pt for line in lines)


def _cell(lines: list[str], width: int, colour: str, height: int, sides: str = "", span: int = 1) -> str:
    """A fixed-size cell; its text only where it fits (the alt text and caption carry every number)."""
    text = "<BR/>".join(bold(h(line)) if i == 0 else h(line) for i, line in enumerate(lines))
    shown = f'<FONT POINT-SIZE="{LABEL_PT}">{text}</FONT>' if _fits(lines, width) else " "
    border = (f' SIDES="{sides}"' if sides else "") + (f' COLSPAN="{span}"' if span > 1 else "")
    return f'<TD WIDTH="{width}" HEIGHT="{height}" FIXEDSIZE="TRUE" BGCOLOR="{colour}"{border}>{shown}</TD>'


def draw(kb: KB, lang: str) -> Drawing:
    ins = inputs(kb)
    plan = budget_plan(kb, ins)
    recipe = ins.recipe
    model = kb.models[plan.model]
    hw = kb.hardware[plan.hardware]
    dtype = kb.dtypes[plan.weights_dtype]
    gpu = plan.free_bytes
    kv = plan.static_bytes - plan.weights_per_gpu  # the KV pool with the state pool and reservations in it
    segments = [
        (msg("fig-budget-weights", lang), plan.weights_per_gpu, COLOURS["weights"]),
        (msg("fig-budget-kv", lang), kv, COLOURS["kv-pool"]),
        (msg("fig-budget-rest-lines", lang), plan.rest_bytes, COLOURS["rest"]),
    ]
    widths = [round(BAR_PT * part / gpu) for _, part, _ in segments]
    widths[-1] = BAR_PT - sum(widths[:-1])  # rounding must not change the bar's length
    kv_lines = [segments[1][0]]
    if "linear-state" in plan.notes:
        kv_lines.append(msg("fig-budget-kv-linear", lang))
    labels = [
        [segments[0][0], binary_size(plan.weights_per_gpu)],
        [*kv_lines, binary_size(kv)],
        [*segments[2][0].split("\n"), binary_size(plan.rest_bytes)],
    ]
    fraction = sig(plan.mem_fraction_static)
    static = msg("fig-budget-static", lang, fraction=fraction, size=binary_size(plan.static_bytes))
    rest = msg("fig-budget-remaining", lang, size=binary_size(plan.rest_bytes))
    bar = "".join(
        _cell(lines, width, colour, BAR_HEIGHT_PT)
        for lines, width, (_, _, colour) in zip(labels, widths, segments, strict=True)
    )
    brackets = _cell([static], widths[0] + widths[1], "white", 40, "LBR", span=2) + _cell(
        rest.split("\n"), widths[2], "white", 40, "LBR"
    )
    table = (
        f'<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="{PADDING_PT}" COLOR="#475569">'
        f"<TR>{bar}</TR><TR>{brackets}</TR></TABLE>"
    )
    title = msg("fig-budget-title", lang, hardware=hw.name, memory=binary_size(gpu))
    subtitle = (
        f"{model.name} · {dtype.name} · --tp-size {plan.tp}"
        + (f" · --ep-size {plan.ep}" if plan.ep > 1 else "")
        + f" · --mem-fraction-static {fraction}"
    )
    g = new_graph(FIGURE_ID, h(title), h(subtitle))
    g.node("bar", label=f"<{table}>")

    values = {
        "recipe": recipe.title[lang],
        "model": model.name,
        "hardware": hw.name,
        "memory": binary_size(gpu),
        "params": sig(model.params.total_b),
        "dtype": dtype.name,
        "bits": sig(dtype.bits),
        "tp": plan.tp,
        "fraction": fraction,
        "weights": binary_size(plan.weights_per_gpu),
        "kv": binary_size(kv),
        "rest": binary_size(plan.rest_bytes),
        "default": "" if ins.fraction_stated else msg("fig-budget-default", lang),
    }
    caption = msg("fig-budget-caption", lang, **values)
    if "linear-state" in plan.notes:
        caption += msg("fig-budget-caption-linear", lang)
    alt = msg("fig-budget-alt", lang, **values)
    return Drawing(g.source, caption, alt)


def figures(kb: KB) -> list[Figure]:
    drawings = {lang: draw(kb, lang) for lang in LANGS}
    return [Figure(FIGURE_ID, f"kb/recipes/{RECIPE}.yaml", "figures", FIGURE_ID, drawings)]
