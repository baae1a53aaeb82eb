"""Where a server recipe's command puts its server: how many GPUs it spans and on how many nodes, from the
command's own sizes and the KB's hardware facts.

SGLang 0.5.23 spans dp × tp × pp GPUs (``compute_world_size``, sglang/srt/server_args.py:581); attention
data parallelism (``--attn-dp-size``, or the deprecated ``--dp-size N --enable-dp-attention``, which the
engine turns into it, server_args.py:416) runs inside the TP group and adds none. ``--nnodes`` (the engine's
default is one node) splits them across nodes. A recipe's ``gpus`` and ``nodes`` must agree with that (the
recipe-placement check), and the production pack splits a multi-node server by ``gpus_per_node``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from handbook.kb.common import flags_in
from handbook.kb.loader import KB
from handbook.kb.schema import Recipe

SIZES = ("--tp-size", "--pp-size", "--dp-size")
ATTENTION_DP = ("--attn-dp-size", "--enable-dp-attention")  # --dp-size then adds no GPUs
SERVER_ROLES = ("standalone", "prefill", "decode")


@dataclass(frozen=True)
class Placement:
    gpus: int  # the GPUs the command spans, all nodes together
    nnodes: int | None  # the command's --nnodes; None when it gives none (the engine's one node)
    sizes: tuple[tuple[str, int], ...]  # the sizes that multiply to ``gpus``, as the command gives them

    @property
    def product(self) -> str:
        """How ``gpus`` is reached: '--tp-size 16 × --pp-size 2', or the engine's default of one GPU."""
        return " × ".join(f"{flag} {value}" for flag, value in self.sizes) or "no size flag: one GPU"


def placement(kb: KB, recipe: Recipe) -> Placement | None:
    """The GPUs and nodes of a server recipe's command; None for another kind of command, or where a size
    is not a number (a placeholder)."""
    if recipe.kind not in ("launch", "docker") or recipe.role not in SERVER_ROLES:
        return None
    given: dict[str, list[str]] = {}
    for name, values in flags_in(recipe.flags):
        parameter = kb.parameter(name, recipe.program or "launch_server")
        given[parameter.flag if parameter else name] = values
    numbers: dict[str, int] = {}
    for flag in (*SIZES, "--nnodes"):
        if flag in given:
            try:
                numbers[flag] = int(given[flag][-1]) if given[flag] else -1
            except ValueError:
                return None
            if numbers[flag] < 1:
                return None
    attention_dp = any(flag in given for flag in ATTENTION_DP)
    sizes = tuple(
        (flag, numbers[flag])
        for flag in SIZES
        if flag in numbers and not (flag == "--dp-size" and attention_dp)
    )
    return Placement(math.prod(value for _, value in sizes), numbers.get("--nnodes"), sizes)


def gpus_per_node(kb: KB, recipe: Recipe) -> int | None:
    """The GPUs of one node of the recipe: its hardware's (kb/hardware gpus_per_node) when it names
    hardware of one known size, else its own gpus over its nodes when it spans several; None when neither
    says (a one-node recipe of no named hardware)."""
    known = {kb.hardware[h].gpus_per_node for h in recipe.hardware} - {None}
    if len(known) == 1:
        return known.pop()
    if recipe.nodes > 1 and recipe.gpus is not None and recipe.gpus % recipe.nodes == 0:
        return recipe.gpus // recipe.nodes
    return None
