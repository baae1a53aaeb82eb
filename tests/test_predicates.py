"""Each predicate of handbook/checker/predicates.py at its edges (0, 1, equal, one past), on flags parsed by
the pinned release's launch_server parser: the values it returns are what a rule's message quotes, so each
case names them exactly. Needs no site, no node and no KB."""

from __future__ import annotations

import math
import shlex

import pytest

from handbook.checker.argv import UNKNOWN, parse_args
from handbook.checker.predicates import PREDICATES, Facts, Unwritten, _number, _show, is_loopback
from handbook.checker.shell import DockerRun, Word
from handbook.engine import load_snapshot


def words(text: str) -> list[Word]:
    return [Word(w, w, 1, placeholder=w.startswith("$")) for w in shlex.split(text)]


def facts(
    flags: str = "",
    *,
    env: dict | None = None,
    docker: str | None = None,
    model: str | None = None,
    fragment: bool = False,
) -> Facts:
    """The facts of ``launch_server`` given ``flags``; ``docker``: the options of the ``docker run`` it runs in."""
    args, _ = parse_args(load_snapshot(), "launch_server", words(flags), fragment=fragment)
    run = None if docker is None else DockerRun(words(docker), Word("img", "img", 1))
    return Facts("launch_server", args, run, model, env or {}, written_only=fragment)


HICACHE = ["--enable-hierarchical-cache", "--disable-radix-cache"]
EAGLE = "--speculative-algorithm eagle"  # the engine upper-cases it
M = {"models": ["m1"]}

# (predicate, params, facts, the values it returns or None when it does not fire)
CASES = {
    # flags-set: none, one short, all; a value of 0 is set, an empty value is not
    "flags-set/none": ("flags-set", {"flags": HICACHE}, facts(), None),
    "flags-set/one-short": ("flags-set", {"flags": HICACHE}, facts("--enable-hierarchical-cache"), None),
    "flags-set/all": (
        "flags-set",
        {"flags": HICACHE},
        facts("--enable-hierarchical-cache --disable-radix-cache"),
        {"flags": "--enable-hierarchical-cache + --disable-radix-cache"},
    ),
    "flags-set/zero-is-set": ("flags-set", {"flags": ["--page-size"]}, facts("--page-size 0"), {"flags": "--page-size"}),
    "flags-set/empty-is-not": ("flags-set", {"flags": ["--api-key"]}, facts("--api-key ''"), None),
    # when / unless, the base of every predicate
    "when/not-met": (
        "flags-set",
        {"flags": ["--enable-hierarchical-cache"], "when": {"--disaggregation-mode": ["decode"]}},
        facts("--enable-hierarchical-cache"),
        None,
    ),
    "when/met": (
        "flags-set",
        {"flags": ["--enable-hierarchical-cache"], "when": {"--disaggregation-mode": ["decode"]}},
        facts("--enable-hierarchical-cache --disaggregation-mode decode"),
        {"flags": "--enable-hierarchical-cache"},
    ),
    "when/unknown": (
        "flags-set",
        {"flags": ["--enable-hierarchical-cache"], "when": {"--disaggregation-mode": ["decode"]}},
        facts("--enable-hierarchical-cache --disaggregation-mode $MODE"),
        None,
    ),
    "unless/met": (
        "flags-set",
        {"flags": ["--enable-hierarchical-cache"], "unless": {"--disaggregation-decode-enable-radix-cache": [True]}},
        facts("--enable-hierarchical-cache --disaggregation-decode-enable-radix-cache"),
        None,
    ),
    "unless/not-met": (
        "flags-set",
        {"flags": ["--enable-hierarchical-cache"], "unless": {"--disaggregation-decode-enable-radix-cache": [True]}},
        facts("--enable-hierarchical-cache"),
        {"flags": "--enable-hierarchical-cache"},
    ),
    "unless/unknown": (
        "flags-set",
        {"flags": ["--enable-hierarchical-cache"], "unless": {"--disaggregation-mode": ["decode"]}},
        facts("--enable-hierarchical-cache --disaggregation-mode $MODE"),
        None,
    ),
    # value-in: the default, one below, equal, one above
    "value-in/default": ("value-in", {"flag": "--pp-size", "values": [2]}, facts(), None),
    "value-in/below": ("value-in", {"flag": "--pp-size", "values": [2]}, facts("--pp-size 1"), None),
    "value-in/equal": ("value-in", {"flag": "--pp-size", "values": [2]}, facts("--pp-size 2"), {"value": "2"}),
    "value-in/above": ("value-in", {"flag": "--pp-size", "values": [2]}, facts("--pp-size 3"), None),
    "value-in/word": (
        "value-in", {"flag": "--deepep-mode", "values": ["normal"]}, facts("--deepep-mode normal"), {"value": "normal"}
    ),
    "value-in/unknown": ("value-in", {"flag": "--pp-size", "values": [2]}, facts("--pp-size $PP"), None),
    # env-set: unset, set, set to another value, set to a placeholder
    "env-set/unset": ("env-set", {"name": "SGLANG_X"}, facts(), None),
    "env-set/set": ("env-set", {"name": "SGLANG_X"}, facts(env={"SGLANG_X": "1"}), {"name": "SGLANG_X", "value": "1"}),
    "env-set/empty": ("env-set", {"name": "SGLANG_X"}, facts(env={"SGLANG_X": None}), {"name": "SGLANG_X", "value": ""}),
    "env-set/value-listed": (
        "env-set", {"name": "SGLANG_X", "values": ["1"]}, facts(env={"SGLANG_X": "1"}), {"name": "SGLANG_X", "value": "1"}
    ),
    "env-set/value-not-listed": ("env-set", {"name": "SGLANG_X", "values": ["1"]}, facts(env={"SGLANG_X": "0"}), None),
    "env-set/unknown-listed": ("env-set", {"name": "SGLANG_X", "values": ["1"]}, facts(env={"SGLANG_X": UNKNOWN}), None),
    "env-set/unknown": ("env-set", {"name": "SGLANG_X"}, facts(env={"SGLANG_X": UNKNOWN}), {"name": "SGLANG_X", "value": ""}),
    # requires-value: the other flag at its default (None), off by one, allowed
    "requires-value/other-default": (
        "requires-value",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "allowed": [16]},
        facts("--attention-backend aiter"),
        {"value": "aiter", "other_value": "—"},
    ),
    "requires-value/other-off-by-one": (
        "requires-value",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "allowed": [16]},
        facts("--attention-backend aiter --page-size 15"),
        {"value": "aiter", "other_value": "15"},
    ),
    "requires-value/other-allowed": (
        "requires-value",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "allowed": [16]},
        facts("--attention-backend aiter --page-size 16"),
        None,
    ),
    "requires-value/flag-elsewhere": (
        "requires-value",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "allowed": [16]},
        facts("--attention-backend fa3 --page-size 15"),
        None,
    ),
    # requires-minimum: one below, equal, one above, unset
    "requires-minimum/below": (
        "requires-minimum",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "minimum": 16},
        facts("--attention-backend aiter --page-size 15"),
        {"value": "aiter", "other_value": "15"},
    ),
    "requires-minimum/zero": (
        "requires-minimum",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "minimum": 16},
        facts("--attention-backend aiter --page-size 0"),
        {"value": "aiter", "other_value": "0"},
    ),
    "requires-minimum/equal": (
        "requires-minimum",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "minimum": 16},
        facts("--attention-backend aiter --page-size 16"),
        None,
    ),
    "requires-minimum/above": (
        "requires-minimum",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "minimum": 16},
        facts("--attention-backend aiter --page-size 17"),
        None,
    ),
    "requires-minimum/unset": (
        "requires-minimum",
        {"flag": "--attention-backend", "values": ["aiter"], "other": "--page-size", "minimum": 16},
        facts("--attention-backend aiter"),
        None,
    ),
    # all-above: every one above, one of them equal, defaults
    "all-above/all": (
        "all-above",
        {"flags": ["--tp-size", "--dp-size"], "than": 1},
        facts("--tp-size 2 --dp-size 2"),
        {"values": "--tp-size 2, --dp-size 2"},
    ),
    "all-above/one-equal": ("all-above", {"flags": ["--tp-size", "--dp-size"], "than": 1}, facts("--tp-size 2 --dp-size 1"), None),
    "all-above/defaults": ("all-above", {"flags": ["--tp-size", "--dp-size"], "than": 1}, facts(), None),
    "all-above/zero-than": ("all-above", {"flags": ["--pp-size"], "than": 0}, facts("--pp-size 1"), {"values": "--pp-size 1"}),
    "all-above/zero": ("all-above", {"flags": ["--pp-size"], "than": 0}, facts("--pp-size 0"), None),
    # not-divisible: a multiple, equal, one past, a zero dividend, a zero divisor
    "not-divisible/multiple": (
        "not-divisible", {"dividend": ["--tp-size"], "divisor": "--attn-dp-size"}, facts("--tp-size 8 --attn-dp-size 4"), None
    ),
    "not-divisible/equal": (
        "not-divisible", {"dividend": ["--tp-size"], "divisor": "--attn-dp-size"}, facts("--tp-size 4 --attn-dp-size 4"), None
    ),
    "not-divisible/one-past": (
        "not-divisible",
        {"dividend": ["--tp-size"], "divisor": "--attn-dp-size"},
        facts("--tp-size 5 --attn-dp-size 4"),
        {"dividend": "5", "divisor": "4"},
    ),
    "not-divisible/smaller": (
        "not-divisible",
        {"dividend": ["--tp-size"], "divisor": "--attn-dp-size"},
        facts("--tp-size 4 --attn-dp-size 8"),
        {"dividend": "4", "divisor": "8"},
    ),
    "not-divisible/zero-dividend": (
        "not-divisible", {"dividend": ["--tp-size"], "divisor": "--attn-dp-size"}, facts("--tp-size 0 --attn-dp-size 4"), None
    ),
    "not-divisible/zero-divisor": (
        "not-divisible", {"dividend": ["--tp-size"], "divisor": "--attn-dp-size"}, facts("--tp-size 4 --attn-dp-size 0"), None
    ),
    "not-divisible/negative": (  # only a positive product is a layout the rule judges
        "not-divisible", {"dividend": ["--tp-size"], "divisor": "--attn-dp-size"}, facts("--tp-size -4 --attn-dp-size 3"), None
    ),
    "not-divisible/product": (
        "not-divisible",
        {"dividend": ["--tp-size", "--pp-size"], "divisor": "--nnodes"},
        facts("--tp-size 2 --pp-size 2 --nnodes 3"),
        {"dividend": "4", "divisor": "3"},
    ),
    # a2a-ep-differs-from-tp: ep given and different, equal, not given
    "a2a-ep/differs": (
        "a2a-ep-differs-from-tp",
        {"backends": ["deepep"]},
        facts("--moe-a2a-backend deepep --tp-size 8 --ep-size 4"),
        {"backend": "deepep", "ep": "4", "tp": "8"},
    ),
    "a2a-ep/equal": ("a2a-ep-differs-from-tp", {"backends": ["deepep"]}, facts("--moe-a2a-backend deepep --tp-size 8 --ep-size 8"), None),
    "a2a-ep/not-given": ("a2a-ep-differs-from-tp", {"backends": ["deepep"]}, facts("--moe-a2a-backend deepep --tp-size 8"), None),
    "a2a-ep/other-backend": ("a2a-ep-differs-from-tp", {"backends": ["deepep"]}, facts("--tp-size 8 --ep-size 4"), None),
    # a2a-attn-dp-differs-from-tp: the default 1 against tp, equal, one short
    "a2a-attn-dp/default": (
        "a2a-attn-dp-differs-from-tp",
        {"backends": ["pplx"]},
        facts("--moe-a2a-backend pplx --tp-size 8"),
        {"backend": "pplx", "attn_dp": "1", "tp": "8"},
    ),
    "a2a-attn-dp/one-short": (
        "a2a-attn-dp-differs-from-tp",
        {"backends": ["pplx"]},
        facts("--moe-a2a-backend pplx --tp-size 8 --attn-dp-size 7"),
        {"backend": "pplx", "attn_dp": "7", "tp": "8"},
    ),
    "a2a-attn-dp/equal": (
        "a2a-attn-dp-differs-from-tp", {"backends": ["pplx"]}, facts("--moe-a2a-backend pplx --tp-size 8 --attn-dp-size 8"), None
    ),
    "a2a-attn-dp/both-one": ("a2a-attn-dp-differs-from-tp", {"backends": ["pplx"]}, facts("--moe-a2a-backend pplx"), None),
    "a2a-attn-dp/deprecated-spelling": (  # --enable-dp-attention --dp-size 8 is --attn-dp-size 8
        "a2a-attn-dp-differs-from-tp",
        {"backends": ["pplx"]},
        facts("--moe-a2a-backend pplx --tp-size 8 --dp-size 8 --enable-dp-attention"),
        None,
    ),
    # spec-running-requests-unset: unset, given (even 0), another algorithm
    "spec-running/unset": ("spec-running-requests-unset", {"algorithms": ["EAGLE"]}, facts(EAGLE), {"algorithm": "EAGLE"}),
    "spec-running/zero": (
        "spec-running-requests-unset", {"algorithms": ["EAGLE"]}, facts(f"{EAGLE} --max-running-requests 0"), None
    ),
    "spec-running/other-algorithm": (
        "spec-running-requests-unset", {"algorithms": ["EAGLE"]}, facts("--speculative-algorithm NEXTN"), None
    ),
    "spec-running/none": ("spec-running-requests-unset", {"algorithms": ["EAGLE"]}, facts(), None),
    # eagle-params-without-steps: none, one, both given; steps or adaptive given
    "eagle-params/none": ("eagle-params-without-steps", {"algorithms": ["EAGLE"]}, facts(EAGLE), None),
    "eagle-params/topk": (
        "eagle-params-without-steps",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-eagle-topk 1"),
        {"algorithm": "EAGLE", "given": "--speculative-eagle-topk"},
    ),
    "eagle-params/both": (
        "eagle-params-without-steps",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-num-draft-tokens 4 --speculative-eagle-topk 1"),
        {"algorithm": "EAGLE", "given": "--speculative-eagle-topk / --speculative-num-draft-tokens"},
    ),
    "eagle-params/steps": (
        "eagle-params-without-steps",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-eagle-topk 1 --speculative-num-steps 3"),
        None,
    ),
    "eagle-params/adaptive": (
        "eagle-params-without-steps",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-eagle-topk 1 --speculative-adaptive"),
        None,
    ),
    # eagle-steps-without-topk
    "eagle-steps/no-topk": (
        "eagle-steps-without-topk", {"algorithms": ["EAGLE"]}, facts(f"{EAGLE} --speculative-num-steps 3"), {"algorithm": "EAGLE"}
    ),
    "eagle-steps/topk": (
        "eagle-steps-without-topk",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-num-steps 3 --speculative-eagle-topk 1"),
        None,
    ),
    "eagle-steps/adaptive": (
        "eagle-steps-without-topk",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-num-steps 3 --speculative-adaptive"),
        None,
    ),
    "eagle-steps/no-steps": ("eagle-steps-without-topk", {"algorithms": ["EAGLE"]}, facts(EAGLE), None),
    # draft-tokens-adjusted: draft = steps (one short), steps + 1, steps + 2; topk 2; draft unset
    "draft-tokens/one-short": (
        "draft-tokens-adjusted",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-eagle-topk 1 --speculative-num-steps 3 --speculative-num-draft-tokens 3"),
        {"draft": "3", "steps": "3", "adjusted": "4"},
    ),
    "draft-tokens/equal": (
        "draft-tokens-adjusted",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-eagle-topk 1 --speculative-num-steps 3 --speculative-num-draft-tokens 4"),
        None,
    ),
    "draft-tokens/one-over": (
        "draft-tokens-adjusted",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-eagle-topk 1 --speculative-num-steps 3 --speculative-num-draft-tokens 5"),
        {"draft": "5", "steps": "3", "adjusted": "4"},
    ),
    "draft-tokens/zero-steps": (
        "draft-tokens-adjusted",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-eagle-topk 1 --speculative-num-steps 0 --speculative-num-draft-tokens 0"),
        {"draft": "0", "steps": "0", "adjusted": "1"},
    ),
    "draft-tokens/topk-2": (
        "draft-tokens-adjusted",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-eagle-topk 2 --speculative-num-steps 3 --speculative-num-draft-tokens 3"),
        None,
    ),
    "draft-tokens/draft-unset": (
        "draft-tokens-adjusted",
        {"algorithms": ["EAGLE"]},
        facts(f"{EAGLE} --speculative-eagle-topk 1 --speculative-num-steps 3"),
        None,
    ),
    # attn-dp-rescales: attn_dp 1 (no rescaling), 2, the flag not given; floor division; a multiplication
    "attn-dp-rescales/attn-dp-1": (
        "attn-dp-rescales",
        {"flag": "--chunked-prefill-size", "operation": "divide-by-attn-dp"},
        facts("--attn-dp-size 1 --chunked-prefill-size 8192"),
        None,
    ),
    "attn-dp-rescales/attn-dp-2": (
        "attn-dp-rescales",
        {"flag": "--chunked-prefill-size", "operation": "divide-by-attn-dp"},
        facts("--tp-size 2 --attn-dp-size 2 --chunked-prefill-size 8193"),
        {"value": "8193", "attn_dp": "2", "adjusted": "4096"},
    ),
    "attn-dp-rescales/not-given": (
        "attn-dp-rescales",
        {"flag": "--chunked-prefill-size", "operation": "divide-by-attn-dp"},
        facts("--attn-dp-size 4"),
        None,
    ),
    "attn-dp-rescales/multiply": (
        "attn-dp-rescales",
        {"flag": "--schedule-conservativeness", "operation": "multiply", "factor": 0.3},
        facts("--attn-dp-size 4 --schedule-conservativeness 1.0"),
        {"value": "1", "attn_dp": "4", "adjusted": "0.3"},
    ),
    # public-host-without: loopback (127/8, ::1, localhost), any address, a host name, the flag empty
    "public-host/default": ("public-host-without", {"flag": "--api-key"}, facts(), None),
    "public-host/loopback-range": ("public-host-without", {"flag": "--api-key"}, facts("--host 127.0.0.2"), None),
    "public-host/ipv6-loopback": ("public-host-without", {"flag": "--api-key"}, facts("--host ::1"), None),
    "public-host/localhost": ("public-host-without", {"flag": "--api-key"}, facts("--host localhost"), None),
    "public-host/any": ("public-host-without", {"flag": "--api-key"}, facts("--host 0.0.0.0"), {"host": "0.0.0.0"}),
    "public-host/name": ("public-host-without", {"flag": "--api-key"}, facts("--host node1"), {"host": "node1"}),
    "public-host/with-key": ("public-host-without", {"flag": "--api-key"}, facts("--host 0.0.0.0 --api-key k"), None),
    "public-host/empty-key": (
        "public-host-without", {"flag": "--api-key"}, facts("--host 0.0.0.0 --api-key ''"), {"host": "0.0.0.0"}
    ),
    "public-host/unknown": ("public-host-without", {"flag": "--api-key"}, facts("--host $IP"), None),
    # docker-option-missing: no docker, without, with (both spellings), a longer option that only starts alike
    "docker/none": ("docker-option-missing", {"option": "--shm-size"}, facts(), None),
    "docker/without": ("docker-option-missing", {"option": "--shm-size"}, facts(docker="--gpus all"), {"option": "--shm-size"}),
    "docker/with": ("docker-option-missing", {"option": "--shm-size"}, facts(docker="--shm-size 32g"), None),
    "docker/with-equals": ("docker-option-missing", {"option": "--shm-size"}, facts(docker="--shm-size=32g"), None),
    "docker/prefix-only": (
        "docker-option-missing", {"option": "--shm-size"}, facts(docker="--shm-sizes 1"), {"option": "--shm-size"}
    ),
    # model-value-outside: another model, unset, allowed, not allowed
    "model-outside/other-model": (
        "model-value-outside",
        {**M, "flag": "--reasoning-parser", "allowed": ["qwen3"]},
        facts("--reasoning-parser deepseek-r1", model="m2"),
        None,
    ),
    "model-outside/unset": (
        "model-value-outside",
        {**M, "flag": "--reasoning-parser", "allowed": ["qwen3"]},
        facts(model="m1"),
        {"model": "m1", "value": "—"},
    ),
    "model-outside/allowed": (
        "model-value-outside", {**M, "flag": "--reasoning-parser", "allowed": ["qwen3"]}, facts("--reasoning-parser qwen3", model="m1"), None
    ),
    "model-outside/not-allowed": (
        "model-value-outside",
        {**M, "flag": "--reasoning-parser", "allowed": ["qwen3"]},
        facts("--reasoning-parser deepseek-r1", model="m1"),
        {"model": "m1", "value": "deepseek-r1"},
    ),
    # model-value-below: 0, one below, equal, not given, another model
    "model-below/zero": (
        "model-value-below",
        {**M, "flag": "--max-running-requests", "minimum": 256},
        facts("--max-running-requests 0", model="m1"),
        {"model": "m1", "value": "0"},
    ),
    "model-below/one-below": (
        "model-value-below",
        {**M, "flag": "--max-running-requests", "minimum": 256},
        facts("--max-running-requests 255", model="m1"),
        {"model": "m1", "value": "255"},
    ),
    "model-below/equal": (
        "model-value-below", {**M, "flag": "--max-running-requests", "minimum": 256}, facts("--max-running-requests 256", model="m1"), None
    ),
    "model-below/not-given": ("model-value-below", {**M, "flag": "--max-running-requests", "minimum": 256}, facts(model="m1"), None),
    "model-below/other-model": (
        "model-value-below", {**M, "flag": "--max-running-requests", "minimum": 256}, facts("--max-running-requests 1", model="m2"), None
    ),
    # model-single-gpu-unset: tp × pp × dp = 1, each of them 2, a zero product, the flag given
    "single-gpu/one": ("model-single-gpu-unset", {**M, "flag": "--max-running-requests"}, facts(model="m1"), {"model": "m1"}),
    "single-gpu/tp-2": ("model-single-gpu-unset", {**M, "flag": "--max-running-requests"}, facts("--tp-size 2", model="m1"), None),
    "single-gpu/pp-2": ("model-single-gpu-unset", {**M, "flag": "--max-running-requests"}, facts("--pp-size 2", model="m1"), None),
    "single-gpu/dp-2": ("model-single-gpu-unset", {**M, "flag": "--max-running-requests"}, facts("--dp-size 2", model="m1"), None),
    "single-gpu/zero": ("model-single-gpu-unset", {**M, "flag": "--max-running-requests"}, facts("--tp-size 0", model="m1"), None),
    "single-gpu/given": (
        "model-single-gpu-unset", {**M, "flag": "--max-running-requests"}, facts("--max-running-requests 64", model="m1"), None
    ),
    "single-gpu/other-model": ("model-single-gpu-unset", {**M, "flag": "--max-running-requests"}, facts(model="m2"), None),
    # exceeds: one above, equal, one below, the other unset, the flag not given
    "exceeds/one-above": (
        "exceeds",
        {"flag": "--context-length", "other": "--max-total-tokens"},
        facts("--context-length 65537 --max-total-tokens 65536"),
        {"value": "65537", "other_value": "65536"},
    ),
    "exceeds/equal": (
        "exceeds", {"flag": "--context-length", "other": "--max-total-tokens"}, facts("--context-length 65536 --max-total-tokens 65536"), None
    ),
    "exceeds/below": (
        "exceeds", {"flag": "--context-length", "other": "--max-total-tokens"}, facts("--context-length 65535 --max-total-tokens 65536"), None
    ),
    "exceeds/other-unset": ("exceeds", {"flag": "--context-length", "other": "--max-total-tokens"}, facts("--context-length 65537"), None),
    "exceeds/not-given": ("exceeds", {"flag": "--watchdog-timeout", "other": "--max-total-tokens"}, facts("--max-total-tokens 1"), None),
    # outside-range: at and just past each bound
    "outside/at-most-equal": ("outside-range", {"flag": "--mem-fraction-static", "at_most": 0}, facts("--mem-fraction-static 0"), {"value": "0"}),
    "outside/at-most-below": (
        "outside-range", {"flag": "--mem-fraction-static", "at_most": 0}, facts("--mem-fraction-static -0.5"), {"value": "-0.5"}
    ),
    "outside/at-most-above": ("outside-range", {"flag": "--mem-fraction-static", "at_most": 0}, facts("--mem-fraction-static 0.001"), None),
    "outside/at-least-equal": ("outside-range", {"flag": "--mem-fraction-static", "at_least": 1}, facts("--mem-fraction-static 1"), {"value": "1"}),
    "outside/at-least-below": ("outside-range", {"flag": "--mem-fraction-static", "at_least": 1}, facts("--mem-fraction-static 0.999"), None),
    "outside/not-given": ("outside-range", {"flag": "--mem-fraction-static", "at_most": 0}, facts(), None),
    # model-value-in: the first listed flag that holds a value wins; another model; no value listed
    "model-in/second-flag": (
        "model-value-in",
        {**M, "flags": ["--tool-call-parser", "--reasoning-parser"], "values": ["qwen3"]},
        facts("--reasoning-parser qwen3", model="m1"),
        {"model": "m1", "flag": "--reasoning-parser", "value": "qwen3"},
    ),
    "model-in/first-flag": (
        "model-value-in",
        {**M, "flags": ["--tool-call-parser", "--reasoning-parser"], "values": ["qwen3", "glm45"]},
        facts("--reasoning-parser qwen3 --tool-call-parser glm45", model="m1"),
        {"model": "m1", "flag": "--tool-call-parser", "value": "glm45"},
    ),
    "model-in/not-listed": (
        "model-value-in",
        {**M, "flags": ["--tool-call-parser", "--reasoning-parser"], "values": ["qwen3"]},
        facts("--reasoning-parser deepseek-r1", model="m1"),
        None,
    ),
    "model-in/other-model": (
        "model-value-in",
        {**M, "flags": ["--tool-call-parser", "--reasoning-parser"], "values": ["qwen3"]},
        facts("--reasoning-parser qwen3", model="m2"),
        None,
    ),
    # model-values-differ: equal, off by one, another model, one unknown
    "model-differ/equal": ("model-values-differ", {**M, "flags": ["--tp-size", "--ep-size"]}, facts("--tp-size 4 --ep-size 4", model="m1"), None),
    "model-differ/off-by-one": (
        "model-values-differ",
        {**M, "flags": ["--tp-size", "--ep-size"]},
        facts("--tp-size 4 --ep-size 3", model="m1"),
        {"model": "m1", "values": "--tp-size 4, --ep-size 3"},
    ),
    "model-differ/other-model": (
        "model-values-differ", {**M, "flags": ["--tp-size", "--ep-size"]}, facts("--tp-size 4 --ep-size 3", model="m2"), None
    ),
    "model-differ/unknown": (
        "model-values-differ", {**M, "flags": ["--tp-size", "--ep-size"]}, facts("--tp-size 4 --ep-size $EP", model="m1"), None
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_predicate_at_its_edges(case):
    name, params, given, expected = CASES[case]
    assert PREDICATES[name].model_validate(params).check(given) == expected


def test_every_predicate_has_edge_cases():
    assert sorted(PREDICATES) == sorted({name for name, *_ in CASES.values()})


def test_every_predicate_fires_and_stays_quiet_in_its_cases():
    fired = {name: set() for name in PREDICATES}
    for name, _, _, expected in CASES.values():
        fired[name].add(expected is not None)
    assert {name for name, seen in fired.items() if seen != {True, False}} == set()


def test_the_deprecated_dp_attention_spelling_reads_as_attention_dp():
    # --enable-dp-attention --dp-size 4: four attention-DP groups and no replicas (handle_deprecated_dp_attention)
    read = facts("--enable-dp-attention --dp-size 4")
    assert (read.value("--attn-dp-size"), read.value("--dp-size")) == (4, 1)
    read = facts("--enable-dp-attention --dp-size 4 --attn-dp-size 2")  # an explicit --attn-dp-size wins
    assert (read.value("--attn-dp-size"), read.value("--dp-size")) == (2, 4)
    assert facts("--dp-size 4").value("--attn-dp-size") == 1


def test_a_fragment_leaves_unwritten_flags_unjudged():
    fragment = facts("--tp-size 4", fragment=True)
    assert fragment.value("--tp-size") == 4
    with pytest.raises(Unwritten):
        fragment.value("--attn-dp-size")
    with pytest.raises(Unwritten):  # the rescaled attention DP needs the --dp-size it comes from
        facts("--enable-dp-attention", fragment=True).value("--attn-dp-size")
    assert facts("--tp-size 4").value("--attn-dp-size") == 1  # a command: the parser default


@pytest.mark.parametrize(
    ("value", "number"),
    [(0, 0.0), (1, 1.0), (-1, -1.0), (0.5, 0.5), (True, None), (False, None), ("1", None), (None, None)],
)
def test_only_numbers_are_numbers(value, number):
    assert _number(value) == number


def test_an_int_past_floats_range_is_infinite():
    assert (_number(10**400), _number(-(10**400))) == (math.inf, -math.inf)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "—"),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (0.0, "0"),
        (2.0, "2"),
        (1.5, "1.5"),
        ("x", "x"),
    ],
)
def test_values_are_quoted_as_the_browser_quotes_them(value, shown):
    assert _show(value) == shown


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("127.0.0.1", True),
        ("127.255.255.255", True),
        ("128.0.0.1", False),
        ("::1", True),
        ("::2", False),
        ("0.0.0.0", False),
        ("node1", False),
    ],
)
def test_loopback_is_127_8_and_1_and_localhost(host, loopback):
    assert is_loopback(host) is loopback
