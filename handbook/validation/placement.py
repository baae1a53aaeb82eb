"""A server recipe's ``gpus`` and ``nodes`` against what its command places (handbook.calc.placement).

``gpus`` must be the GPUs the command spans (dp × tp × pp); ``nodes`` the command's ``--nnodes`` when it
gives one. A command without ``--nnodes`` runs on one node as published (each node of a multi-node recipe
adds its rank); its GPUs must then fit the recipe's nodes: a node of its hardware, or of any hardware of
kb/hardware when it names none, holds at most that hardware's ``gpus_per_node``.
"""

from __future__ import annotations

import math

from handbook.calc.placement import placement
from handbook.core.problem import Problem
from handbook.kb.loader import KB
from handbook.kb.schema import Recipe


def _largest_node(kb: KB, recipe: Recipe) -> tuple[int, str] | None:
    """The most GPUs a node of the recipe's hardware (all of kb/hardware when it names none) holds, and
    which hardware holds that many; None when no gpus_per_node is known."""
    sizes = {
        h.id: h.gpus_per_node
        for h in kb.hardware.values()
        if h.gpus_per_node is not None and (not recipe.hardware or h.id in recipe.hardware)
    }
    if not sizes:
        return None
    most = max(sizes.values())
    return most, ", ".join(sorted(h for h, n in sizes.items() if n == most))


def placement_problems(kb: KB) -> list[Problem]:
    problems = []
    for recipe in sorted(kb.recipes.values(), key=lambda r: r.id):
        placed = placement(kb, recipe)
        if placed is None:
            continue
        origin = kb.origin(recipe)
        if recipe.gpus is not None and recipe.gpus != placed.gpus:
            problems.append(
                origin.at(("gpus",), f"got {recipe.gpus}, expected {placed.gpus} ({placed.product})")
            )
        if placed.nnodes is not None:
            if recipe.nodes != placed.nnodes:
                problems.append(
                    origin.at(
                        ("nodes",), f"got {recipe.nodes}, expected {placed.nnodes} (the command's --nnodes)"
                    )
                )
            continue
        if placed.gpus % recipe.nodes:
            problems.append(
                origin.at(
                    ("nodes",),
                    f"got {recipe.nodes}, expected a number of nodes that divides the command's "
                    f"{placed.gpus} GPUs ({placed.product})",
                )
            )
            continue
        largest = _largest_node(kb, recipe)
        if largest is not None and placed.gpus // recipe.nodes > largest[0]:
            most, holders = largest
            problems.append(
                origin.at(
                    ("nodes",),
                    f"got {recipe.nodes}, expected {math.ceil(placed.gpus / most)} (the command's "
                    f"{placed.gpus} GPUs, {placed.product}; a node holds at most {most}: kb/hardware "
                    f"gpus_per_node of {holders})",
                )
            )
    return problems
