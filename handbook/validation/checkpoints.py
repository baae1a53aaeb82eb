"""Which accelerators a model's precision runs on: the KB's claims against the engine and the commands.

Two checks. A precision is never claimed on an accelerator whose quantization method SGLang refuses to load
there (kb/dtypes.yaml ``quantizations``: where the wheel raises). And every launch command of the KB that
names accelerators names only ones its precision lists (``runs_on``), so that the configurator, which offers
a precision only where a source names it, never refuses a combination the KB has a command for.
"""

from __future__ import annotations

from handbook.core.problem import Problem
from handbook.kb import schema as s
from handbook.kb.loader import KB


def command_precision(kb: KB, recipe: s.Recipe) -> str | None:
    """The precision a launch command runs: the one it states, else the model's only one."""
    if recipe.precision is not None:
        return recipe.precision
    model = kb.models.get(recipe.model or "")
    if model is not None and len(model.precisions) == 1:
        return model.precisions[0].dtype
    return None


def refusal(kb: KB, precision: s.Precision, hardware: str) -> s.QuantRefusal | None:
    """Where the engine raises loading ``precision``'s quantization on ``hardware`` (None: it does not)."""
    if precision.quantization is None:
        return None
    method = kb.quantizations[precision.quantization]
    return next((r for r in method.refused_on if hardware in r.hardware), None)


def listed_hardware(precision: s.Precision) -> list[str]:
    """The accelerators the precision's sources name, in the order they name them."""
    return list(dict.fromkeys(hw for entry in precision.runs_on for hw in entry.hardware))


def checkpoint_problems(kb: KB, engine_version: str) -> list[Problem]:
    problems = []
    for model in kb.models.values():
        origin = kb.origin(model)
        for i, precision in enumerate(model.precisions):
            for j, entry in enumerate(precision.runs_on):
                for k, hw in enumerate(entry.hardware):
                    found = refusal(kb, precision, hw)
                    if found is None:
                        continue
                    method = kb.quantizations[precision.quantization]  # type: ignore[index]
                    problems.append(
                        origin.at(
                            ("precisions", i, "runs_on", j, "hardware", k),
                            f"got {hw}, expected an accelerator SGLang {engine_version} loads "
                            f"{method.name} on: it raises at {found.file}:{found.line} (“{found.says}”)",
                        )
                    )
    for recipe in kb.recipes.values():
        if recipe.kind != "launch" or not recipe.hardware or recipe.model not in kb.models:
            continue
        model = kb.models[recipe.model]  # type: ignore[index]
        dtype = command_precision(kb, recipe)
        precision = next((p for p in model.precisions if p.dtype == dtype), None)
        if precision is None:
            continue
        listed = listed_hardware(precision)
        for k, hw in enumerate(recipe.hardware):
            if hw not in listed:
                problems.append(
                    kb.origin(recipe).at(
                        ("hardware", k),
                        f"got {hw}, expected an accelerator that models/{model.id}.yaml lists for {dtype} "
                        f"(runs_on: {', '.join(listed) or 'none'}), "
                        "so that the configurator offers this command",
                    )
                )
    return problems
