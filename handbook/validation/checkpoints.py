"""Which accelerators a model's precision runs on: the KB's claims against the engine and the commands.

Two checks. A precision is never claimed on an accelerator whose quantization method SGLang refuses to load
there (kb/dtypes.yaml ``quantizations``: where the wheel raises). And every launch command of the KB that
names accelerators names only ones its precision lists (``runs_on``), so that the configurator, which offers
a precision only where a source names it, never refuses a combination the KB has a command for.
"""

from __future__ import annotations

from handbook.calc.checkpoints import command_precision, listed_hardware, refusal
from handbook.core.problem import Problem
from handbook.kb.loader import KB


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
        named = recipe.hardware or recipe.vendor
        if recipe.kind != "launch" or not named or recipe.model not in kb.models:
            continue
        model = kb.models[recipe.model]  # type: ignore[index]
        dtype = command_precision(kb, recipe)
        precision = next((p for p in model.precisions if p.dtype == dtype), None)
        if precision is None:
            continue
        listed = listed_hardware(precision)
        if recipe.vendor is not None and not any(kb.hardware[hw].vendor == recipe.vendor for hw in listed):
            problems.append(
                kb.origin(recipe).at(
                    ("vendor",),
                    f"got {recipe.vendor}, expected a vendor of an accelerator that models/{model.id}.yaml "
                    f"lists for {dtype} (runs_on: {', '.join(listed) or 'none'})",
                )
            )
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
