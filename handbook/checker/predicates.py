"""The named predicates that KB rules (``kb/rules.yaml``) refer to, with their typed parameters.

A rule names one predicate and gives its parameters; the predicate decides whether a parsed command breaks
the rule and returns the values its message may quote (``{ep}``, ``{tp}``…), or None. Parameters are
pydantic models, so a rule with a wrong predicate name, a missing parameter or a message quoting a value
the predicate does not provide fails ``python -m handbook validate`` at its file and line.

Every predicate reads the command the way the engine will: the given value, else the parser default; a
value hidden by a placeholder is unknown, and a predicate that needs it does not fire. A fragment (flags
without their command: a recipe of kind fragment, flags written in a sentence) is read with
``written_only``: a flag it does not write is unknown rather than at its parser default, so a rule is judged
only when every flag its predicate reads is written.
"""

from __future__ import annotations

import ipaddress
import math
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from handbook.checker.argv import UNKNOWN, ParsedArgs
from handbook.checker.shell import DockerRun
from handbook.core.formatting import integer_text

Flag = Annotated[str, StringConstraints(pattern=r"^--[a-z0-9][a-z0-9_-]*$")]
Scalar = str | bool | int | float


class Unwritten(Exception):
    """A predicate read a flag that a fragment does not write (``Facts.written_only``): not judged."""


@dataclass
class Facts:
    """What a predicate may look at: the parsed command and what surrounds it."""

    program: str
    args: ParsedArgs
    docker: DockerRun | None = None
    model: str | None = None  # the KB model id the --model-path names, when the KB knows it
    env: dict[str, Any] = field(default_factory=dict)  # variables the block sets: name -> value (UNKNOWN)
    written_only: bool = False  # a fragment: reading a flag it does not write raises Unwritten

    def _dest(self, flag: str) -> str:
        dest = self.args.parser.option(flag).dest
        if self.written_only and not self.args.is_set(dest):
            raise Unwritten(flag)
        return dest

    def given(self, flag: str) -> bool:
        return self.args.is_set(self._dest(flag))

    def is_set(self, flag: str) -> bool:
        """Given, and not switched off (``--no-x``) or emptied. A value of 0 is given, not off: ``in (False,
        …)`` would read it as False (0 == False in Python), where the browser's checker does not."""
        if not self.given(flag):
            return False
        value = self.value(flag)
        return not (value is False or value is None or value == "" or value == [])

    def value(self, flag: str) -> Any:
        """The value the engine starts resolution with, normalised as its first hooks do."""
        args = self.args
        dest = args.parser.option(flag).dest
        if self.program == "launch_server":
            # parallel_hook.handle_deprecated_dp_attention: --enable-dp-attention turns --dp-size N into
            # --attn-dp-size N (when --attn-dp-size is left at 1) before anything reads the layout. Releases
            # before --attn-dp-size existed read --dp-size N with --enable-dp-attention the same way: N
            # attention-DP groups, no replicas (0.5.10-0.5.13 name that dest data_parallel_size).
            dp_dest = "dp_size" if args.parser.by_dest("dp_size") else "data_parallel_size"
            has_attn = bool(args.parser.by_dest("attn_dp_size"))
            if (
                dest in ("attn_dp_size", dp_dest)
                and args.is_set("enable_dp_attention")
                and args.value("enable_dp_attention") is True
                and (not has_attn or args.value("attn_dp_size") == 1 or not args.is_set("attn_dp_size"))
            ):
                if dest == "attn_dp_size" and self.written_only and not args.is_set(dp_dest):
                    raise Unwritten("--dp-size")
                return args.value(dp_dest) if dest == "attn_dp_size" else 1
            self._dest(flag)  # unwritten in a fragment: not judged
            if dest == "speculative_algorithm":
                # speculative_hook.handle_speculative_decoding upper-cases the name
                value = args.value(dest)
                return value.upper() if isinstance(value, str) else value
        return args.value(self._dest(flag))


def known(*values: Any) -> bool:
    return all(v is not UNKNOWN for v in values)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:  # an int past float's range: infinite, as the browser's Number(BigInt) reads it
        return math.inf if value > 0 else -math.inf


class Predicate(BaseModel):
    """Base of every predicate's parameters. ``when``/``unless`` restrict any predicate by flag values."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: ClassVar[str]
    fields: ClassVar[tuple[str, ...]] = ()  # the values a message may quote
    uses: ClassVar[tuple[str, ...]] = ()  # flags the predicate reads besides those its parameters name
    doc: ClassVar[str] = ""

    when: dict[Flag, list[Scalar]] = {}  # only when each flag's value is one of these
    unless: dict[Flag, list[Scalar]] = {}  # never when a flag's value is one of these

    def flags(self) -> list[str]:
        """Every flag the parameters name (validated against the engine snapshot)."""
        out = list(self.uses) + list(self.when) + list(self.unless)
        for key in type(self).model_fields:
            value = getattr(self, key)
            if isinstance(value, str) and value.startswith("--") and key not in ("option",):
                out.append(value)
            elif (
                isinstance(value, list)
                and value
                and all(isinstance(v, str) and v.startswith("--") for v in value)
            ):
                out += value
        return out

    def applies(self, facts: Facts) -> bool:
        for flag, values in self.when.items():
            value = facts.value(flag)
            if not known(value) or value not in values:
                return False
        for flag, values in self.unless.items():
            value = facts.value(flag)
            if not known(value) or value in values:
                return False
        return True

    def check(self, facts: Facts) -> dict[str, str] | None:
        if not self.applies(facts):
            return None
        return self.test(facts)

    @abstractmethod
    def test(self, facts: Facts) -> dict[str, str] | None:
        """The values the rule's message quotes when the rule is broken; None when it holds."""


PREDICATES: dict[str, type[Predicate]] = {}


def predicate(name: str, *, fields: tuple[str, ...] = ()) -> Callable[[type[Predicate]], type[Predicate]]:
    def register(cls: type[Predicate]) -> type[Predicate]:
        if name in PREDICATES:
            raise ValueError(f"predicate {name} registered twice")
        cls.name = name
        cls.fields = fields
        cls.doc = (cls.__doc__ or "").strip().splitlines()[0]
        PREDICATES[name] = cls
        return cls

    return register


def _show(value: Any) -> str:
    if value is None:
        return "—"  # not given, and no parser default
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return integer_text(int(value))
    return integer_text(value) if isinstance(value, int) else str(value)


@predicate("flags-set", fields=("flags",))
class FlagsSet(Predicate):
    """Fires when every one of ``flags`` is set on the command line."""

    flags_: list[Flag] = Field(alias="flags", min_length=1)

    def test(self, facts: Facts) -> dict[str, str] | None:
        if all(facts.is_set(flag) for flag in self.flags_):
            return {"flags": " + ".join(self.flags_)}
        return None


@predicate("value-in", fields=("value",))
class ValueIn(Predicate):
    """Fires when ``flag`` has one of ``values``."""

    flag: Flag
    values: list[Scalar] = Field(min_length=1)

    def test(self, facts: Facts) -> dict[str, str] | None:
        value = facts.value(self.flag)
        return {"value": _show(value)} if known(value) and value in self.values else None


@predicate("env-set", fields=("name", "value"))
class EnvSet(Predicate):
    """Fires when the command runs with the variable ``name`` set (to one of ``values``, if given)."""

    name_: Annotated[str, StringConstraints(pattern=r"^[A-Z][A-Z0-9_]*$")] = Field(alias="name")
    values: list[str] = []

    def test(self, facts: Facts) -> dict[str, str] | None:
        if self.name_ not in facts.env:
            return None
        value = facts.env[self.name_]
        if self.values and (not known(value) or value not in self.values):
            return None
        shown = integer_text(value) if isinstance(value, int) and not isinstance(value, bool) else str(value)
        return {"name": self.name_, "value": "" if value is None or not known(value) else shown}


@predicate("requires-value", fields=("value", "other_value"))
class RequiresValue(Predicate):
    """Fires when ``flag`` has one of ``values`` and ``other`` has none of ``allowed``."""

    flag: Flag
    values: list[Scalar] = Field(min_length=1)
    other: Flag
    allowed: list[Scalar] = Field(min_length=1)

    def test(self, facts: Facts) -> dict[str, str] | None:
        value, other = facts.value(self.flag), facts.value(self.other)
        if known(value, other) and value in self.values and other not in self.allowed:
            return {"value": _show(value), "other_value": _show(other)}
        return None


@predicate("requires-minimum", fields=("value", "other_value"))
class RequiresMinimum(Predicate):
    """Fires when ``flag`` has one of ``values`` and ``other`` is below ``minimum``."""

    flag: Flag
    values: list[Scalar] = Field(min_length=1)
    other: Flag
    minimum: float

    def test(self, facts: Facts) -> dict[str, str] | None:
        value, other = facts.value(self.flag), _number(facts.value(self.other))
        if known(value) and other is not None and value in self.values and other < self.minimum:
            return {"value": _show(value), "other_value": _show(other)}
        return None


@predicate("all-above", fields=("values",))
class AllAbove(Predicate):
    """Fires when every one of ``flags`` is above ``than``."""

    flags_: list[Flag] = Field(alias="flags", min_length=1)
    than: float

    def test(self, facts: Facts) -> dict[str, str] | None:
        values = [_number(facts.value(flag)) for flag in self.flags_]
        if all(v is not None and v > self.than for v in values):
            return {"values": ", ".join(f"{f} {_show(v)}" for f, v in zip(self.flags_, values, strict=True))}
        return None


@predicate("not-divisible", fields=("dividend", "divisor"))
class NotDivisible(Predicate):
    """Fires when the product of ``dividend`` flags is positive and not a multiple of ``divisor``."""

    dividend: list[Flag] = Field(min_length=1)
    divisor: Flag

    def test(self, facts: Facts) -> dict[str, str] | None:
        parts = [_number(facts.value(flag)) for flag in self.dividend]
        divisor = _number(facts.value(self.divisor))
        if any(p is None for p in parts) or divisor is None or divisor <= 0:
            return None
        product = math.prod(parts)  # type: ignore[arg-type]
        if product > 0 and product % divisor != 0:
            return {"dividend": _show(product), "divisor": _show(divisor)}
        return None


@predicate("a2a-ep-differs-from-tp", fields=("backend", "ep", "tp"))
class A2aEpDiffersFromTp(Predicate):
    """Fires when an all-to-all backend in ``backends`` runs with an explicit --ep-size other than tp."""

    uses = ("--moe-a2a-backend", "--ep-size", "--tp-size")

    backends: list[str] = Field(min_length=1)

    def test(self, facts: Facts) -> dict[str, str] | None:
        backend, ep, tp = (facts.value(f) for f in ("--moe-a2a-backend", "--ep-size", "--tp-size"))
        if not known(backend, ep, tp) or backend not in self.backends or not facts.given("--ep-size"):
            return None
        return {"backend": backend, "ep": _show(ep), "tp": _show(tp)} if ep != tp else None


@predicate("a2a-attn-dp-differs-from-tp", fields=("backend", "attn_dp", "tp"))
class A2aAttnDpDiffersFromTp(Predicate):
    """Fires when an all-to-all backend in ``backends`` runs with --attn-dp-size other than --tp-size."""

    uses = ("--moe-a2a-backend", "--attn-dp-size", "--tp-size")

    backends: list[str] = Field(min_length=1)

    def test(self, facts: Facts) -> dict[str, str] | None:
        backend, attn_dp, tp = (facts.value(f) for f in ("--moe-a2a-backend", "--attn-dp-size", "--tp-size"))
        if known(backend, attn_dp, tp) and backend in self.backends and attn_dp != tp:
            return {"backend": backend, "attn_dp": _show(attn_dp), "tp": _show(tp)}
        return None


class _Speculative(Predicate):
    uses = (
        "--speculative-algorithm",
        "--speculative-num-steps",
        "--speculative-eagle-topk",
        "--speculative-num-draft-tokens",
        "--max-running-requests",
        "--speculative-adaptive",
    )
    algorithms: list[str] = Field(min_length=1)  # upper case, as the engine compares them

    def algorithm(self, facts: Facts) -> str | None:
        value = facts.value("--speculative-algorithm")
        return value if known(value) and value in self.algorithms else None


@predicate("spec-running-requests-unset", fields=("algorithm",))
class SpecRunningRequestsUnset(_Speculative):
    """Fires when a speculative algorithm in ``algorithms`` runs without --max-running-requests."""

    def test(self, facts: Facts) -> dict[str, str] | None:
        algorithm = self.algorithm(facts)
        if algorithm and not facts.given("--max-running-requests"):
            return {"algorithm": algorithm}
        return None


@predicate("eagle-params-without-steps", fields=("algorithm", "given"))
class EagleParamsWithoutSteps(_Speculative):
    """Fires when topk or draft tokens are set without --speculative-num-steps."""

    def test(self, facts: Facts) -> dict[str, str] | None:
        algorithm = self.algorithm(facts)
        if not algorithm or facts.given("--speculative-num-steps") or facts.is_set("--speculative-adaptive"):
            return None
        given = [f for f in ("--speculative-eagle-topk", "--speculative-num-draft-tokens") if facts.given(f)]
        return {"algorithm": algorithm, "given": " / ".join(given)} if given else None


@predicate("eagle-steps-without-topk", fields=("algorithm",))
class EagleStepsWithoutTopk(_Speculative):
    """Fires when --speculative-num-steps is set without --speculative-eagle-topk."""

    def test(self, facts: Facts) -> dict[str, str] | None:
        algorithm = self.algorithm(facts)
        if (
            algorithm
            and facts.given("--speculative-num-steps")
            and not facts.given("--speculative-eagle-topk")
            and not facts.is_set("--speculative-adaptive")
        ):
            return {"algorithm": algorithm}
        return None


@predicate("draft-tokens-adjusted", fields=("draft", "steps", "adjusted"))
class DraftTokensAdjusted(_Speculative):
    """Fires when topk is 1 and --speculative-num-draft-tokens is not --speculative-num-steps + 1."""

    def test(self, facts: Facts) -> dict[str, str] | None:
        if not self.algorithm(facts):
            return None
        topk, steps, draft = (
            facts.value(f)
            for f in ("--speculative-eagle-topk", "--speculative-num-steps", "--speculative-num-draft-tokens")
        )
        if not known(topk, steps, draft) or topk != 1 or not isinstance(steps, int) or draft is None:
            return None
        if draft != steps + 1:
            return {"draft": _show(draft), "steps": _show(steps), "adjusted": _show(steps + 1)}
        return None


@predicate("attn-dp-rescales", fields=("value", "attn_dp", "adjusted"))
class AttnDpRescales(Predicate):
    """Fires when --attn-dp-size > 1 and ``flag`` is given: the engine divides it by attn_dp or scales it."""

    uses = ("--attn-dp-size",)

    flag: Flag
    operation: Literal["divide-by-attn-dp", "multiply"]
    factor: float = 1.0

    def test(self, facts: Facts) -> dict[str, str] | None:
        attn_dp = _number(facts.value("--attn-dp-size"))
        value = _number(facts.value(self.flag))
        if attn_dp is None or attn_dp <= 1 or value is None or not facts.given(self.flag):
            return None
        adjusted = (
            value // attn_dp if self.operation == "divide-by-attn-dp" else round(value * self.factor, 6)
        )
        return {"value": _show(value), "attn_dp": _show(attn_dp), "adjusted": _show(adjusted)}


def is_loopback(host: str) -> bool:
    if host in ("localhost",):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: reachable from wherever it resolves


@predicate("public-host-without", fields=("host",))
class PublicHostWithout(Predicate):
    """Fires when the server listens beyond loopback (--host) and ``flag`` is not set."""

    uses = ("--host",)

    flag: Flag

    def test(self, facts: Facts) -> dict[str, str] | None:
        host = facts.value("--host")
        if not known(host) or not isinstance(host, str) or is_loopback(host) or facts.is_set(self.flag):
            return None
        return {"host": host}


@predicate("docker-option-missing", fields=("option",))
class DockerOptionMissing(Predicate):
    """Fires when the command runs in ``docker run`` without the docker option ``option``."""

    option: Annotated[str, StringConstraints(pattern=r"^--?[a-z0-9][a-z0-9-]*$")]

    def test(self, facts: Facts) -> dict[str, str] | None:
        if facts.docker is not None and not facts.docker.has_option(self.option):
            return {"option": self.option}
        return None


class _ModelScoped(Predicate):
    models: list[Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]*$")]] = Field(min_length=1)


@predicate("model-value-outside", fields=("model", "value"))
class ModelValueOutside(_ModelScoped):
    """Fires when the command serves one of ``models`` and ``flag`` has none of ``allowed``."""

    flag: Flag
    allowed: list[Scalar] = Field(min_length=1)

    def test(self, facts: Facts) -> dict[str, str] | None:
        value = facts.value(self.flag)
        if facts.model in self.models and known(value) and value not in self.allowed:
            return {"model": facts.model, "value": "—" if value is None else _show(value)}
        return None


@predicate("model-value-below", fields=("model", "value"))
class ModelValueBelow(_ModelScoped):
    """Fires when the command serves one of ``models`` with ``flag`` given below ``minimum``."""

    flag: Flag
    minimum: float

    def test(self, facts: Facts) -> dict[str, str] | None:
        value = _number(facts.value(self.flag))
        if (
            facts.model in self.models
            and facts.given(self.flag)
            and value is not None
            and value < self.minimum
        ):
            return {"model": facts.model, "value": _show(value)}
        return None


@predicate("model-single-gpu-unset", fields=("model",))
class ModelSingleGpuUnset(_ModelScoped):
    """Fires when one of ``models`` runs on one GPU (tp × pp × dp = 1) without ``flag``."""

    uses = ("--tp-size", "--pp-size", "--dp-size")

    flag: Flag

    def test(self, facts: Facts) -> dict[str, str] | None:
        sizes = [_number(facts.value(f)) for f in ("--tp-size", "--pp-size", "--dp-size")]
        if facts.model not in self.models or any(s is None for s in sizes) or facts.given(self.flag):
            return None
        return {"model": facts.model} if math.prod(sizes) == 1 else None  # type: ignore[arg-type]


@predicate("exceeds", fields=("value", "other_value"))
class Exceeds(Predicate):
    """Fires when ``flag`` is given above the value of ``other``."""

    flag: Flag
    other: Flag

    def test(self, facts: Facts) -> dict[str, str] | None:
        value, other = _number(facts.value(self.flag)), _number(facts.value(self.other))
        if facts.given(self.flag) and value is not None and other is not None and value > other:
            return {"value": _show(value), "other_value": _show(other)}
        return None


@predicate("outside-range", fields=("value",))
class OutsideRange(Predicate):
    """Fires when ``flag`` is given at or below ``at_most``, or at or above ``at_least``."""

    flag: Flag
    at_most: float | None = None
    at_least: float | None = None

    def test(self, facts: Facts) -> dict[str, str] | None:
        value = _number(facts.value(self.flag))
        if not facts.given(self.flag) or value is None:
            return None
        low = self.at_most is not None and value <= self.at_most
        high = self.at_least is not None and value >= self.at_least
        return {"value": _show(value)} if low or high else None


@predicate("model-value-in", fields=("model", "flag", "value"))
class ModelValueIn(_ModelScoped):
    """Fires when the command serves one of ``models`` with one of ``flags`` at one of ``values``."""

    flags_: list[Flag] = Field(alias="flags", min_length=1)
    values: list[Scalar] = Field(min_length=1)

    def test(self, facts: Facts) -> dict[str, str] | None:
        if facts.model not in self.models:
            return None
        for flag in self.flags_:
            value = facts.value(flag)
            if known(value) and value in self.values:
                return {"model": facts.model, "flag": flag, "value": _show(value)}
        return None


@predicate("model-values-differ", fields=("model", "values"))
class ModelValuesDiffer(_ModelScoped):
    """Fires when the command serves one of ``models`` and the two ``flags`` have different values."""

    flags_: list[Flag] = Field(alias="flags", min_length=2, max_length=2)

    def test(self, facts: Facts) -> dict[str, str] | None:
        if facts.model not in self.models:
            return None
        values = [facts.value(flag) for flag in self.flags_]
        if not known(*values) or values[0] == values[1]:
            return None
        shown = ", ".join(f"{f} {_show(v)}" for f, v in zip(self.flags_, values, strict=True))
        return {"model": facts.model, "values": shown}
