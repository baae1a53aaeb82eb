"""Compute the figures the handbook's prose states (kb/claims.yaml) and compare them with what it says."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from handbook.calc import memory
from handbook.core.text import in_lang
from handbook.core.units import GB, GIB, KIB, MIB
from handbook.kb.common import flags_in
from handbook.kb.loader import KB
from handbook.kb.schema import Claim

UNIT_BYTES = {"B": 1, "KiB": KIB, "MiB": MIB, "GiB": GIB, "GB": GB}


class ClaimError(ValueError):
    """A claim cannot be computed (unknown model, missing argument, unpublished field)."""


@dataclass(frozen=True)
class Outcome:
    claim: Claim
    values: tuple[float, ...]  # computed, in the claim's unit
    agrees: bool


def _model(kb: KB, claim: Claim, key: str = "model"):
    mid = claim.args.get(key)
    if mid not in kb.models:
        raise ClaimError(f"claim {claim.id}: args.{key} {mid!r} is not a model id")
    return kb.models[mid]


def _dtype(kb: KB, claim: Claim, key: str = "kv_dtype"):
    did = claim.args.get(key)
    if did not in kb.dtypes:
        raise ClaimError(f"claim {claim.id}: args.{key} {did!r} is not a dtype id")
    return kb.dtypes[did]


def compute(kb: KB, claim: Claim) -> tuple[float, ...]:
    """The claim's quantity, in the claim's unit."""
    q = claim.quantity
    try:
        if q in ("kv-bytes-per-token", "kv-bytes", "kv-with-heads"):
            model, dtype = _model(kb, claim), _dtype(kb, claim)
            cell = memory.kv_cell(model, dtype).bytes_per_token
            if q == "kv-with-heads":
                heads = int(claim.args["kv_heads"])
                cell = cell // model.config.num_key_value_heads * heads
            tokens = int(claim.args.get("tokens", 1))
            return (cell * tokens / UNIT_BYTES[claim.unit],)
        if q == "kv-ratio":
            a = memory.kv_cell(_model(kb, claim, "a"), _dtype(kb, claim, "a_dtype")).bytes_per_token
            b = memory.kv_cell(_model(kb, claim, "b"), _dtype(kb, claim, "b_dtype")).bytes_per_token
            return (b / a,) if claim.unit == "1/x" else (a / b,)
        if q == "gqa-group":
            cfg = _model(kb, claim).config
            if cfg.num_attention_heads is None or cfg.num_key_value_heads is None:
                raise ClaimError(f"claim {claim.id}: the model's head counts are not published")
            return (cfg.num_attention_heads / cfg.num_key_value_heads,)
        if q == "hicache-host-bytes":
            recipe = kb.recipes.get(str(claim.args.get("recipe")))
            if recipe is None:
                raise ClaimError(f"claim {claim.id}: args.recipe is not a recipe id")
            sizes = [values for flag, values in flags_in(recipe.flags) if flag == "--hicache-size"]
            if not sizes or not sizes[0]:
                raise ClaimError(f"claim {claim.id}: recipe {recipe.id} sets no --hicache-size")
            per_rank_gb = float(sizes[0][0])  # the flag takes GB per rank
            return (per_rank_gb * int(claim.args["ranks"]) * GB / UNIT_BYTES[claim.unit],)
        if q == "weights-bytes":
            return (
                memory.weight_bytes(_model(kb, claim), _dtype(kb, claim, "dtype")) / UNIT_BYTES[claim.unit],
            )
        if q == "active-share-range":
            shares = []
            for mid in str(claim.args.get("models", "")).split(","):
                claim_model = kb.models.get(mid)
                if claim_model is None:
                    raise ClaimError(f"claim {claim.id}: {mid!r} in args.models is not a model id")
                p = claim_model.params
                if p.total_b and p.active_b:
                    shares.append(100 * p.active_b / p.total_b)
            if not shares:
                raise ClaimError(f"claim {claim.id}: no model in args.models has both parameter counts")
            return (min(shares), max(shares))
    except memory.NotPublished as exc:
        raise ClaimError(f"claim {claim.id}: {exc}") from None
    except KeyError as exc:
        raise ClaimError(f"claim {claim.id}: missing argument {exc}") from None
    raise ClaimError(f"claim {claim.id}: unknown quantity {q}")


def rounds_to(computed: float, stated: str, approximate: bool = False) -> bool:
    """Whether ``computed``, rounded as precisely as ``stated`` is written, equals it.

    Exact figures are compared at their decimals ("68.6" → 0.1); approximate ones ("~800") at their
    significant digits, trailing zeros not counting ("800" → hundreds).
    """
    value = Decimal(repr(computed))
    if approximate and "." not in stated:
        quantum = Decimal(1).scaleb(len(stated) - len(stated.rstrip("0")))
        return (value / quantum).to_integral_value() * quantum == Decimal(stated)
    places = len(stated.split(".")[1]) if "." in stated else 0
    quantum = Decimal(1).scaleb(-places)
    return value.quantize(quantum) == Decimal(stated).quantize(quantum)


def evaluate(kb: KB, claim: Claim) -> Outcome:
    values = compute(kb, claim)
    if len(values) != len(claim.stated_values):
        raise ClaimError(
            f"claim {claim.id}: states {len(claim.stated_values)} number(s), computes {len(values)}"
        )
    agrees = all(rounds_to(v, s, claim.approximate) for v, s in zip(values, claim.stated_values, strict=True))
    return Outcome(claim, values, agrees)


def check_claims(kb: KB) -> list[tuple[Claim, str]]:
    """Problems: uncomputable claims, disagreements without ``why``, and ``why`` on claims that agree."""
    problems = []
    for claim in kb.claims.values():
        try:
            outcome = evaluate(kb, claim)
        except ClaimError as exc:
            problems.append((claim, str(exc).split(": ", 1)[1]))
            continue
        shown = " – ".join(f"{v:.4g}" for v in outcome.values)
        stated = in_lang(claim.stated, "en")
        if not outcome.agrees and claim.why is None:
            problems.append(
                (
                    claim,
                    f"got stated {stated!r} but computed {shown} {claim.unit}, "
                    "expected a `why` explaining the difference",
                )
            )
        elif outcome.agrees and claim.why is not None:
            problems.append(
                (
                    claim,
                    f"got a `why`, but stated {stated!r} agrees with the computed {shown} "
                    f"{claim.unit}: remove the stale explanation",
                )
            )
    return problems
