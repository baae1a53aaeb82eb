"""The command checker: SGLang commands as people paste them, judged by the pinned engine's own parsers.

Public API (stable; other parts of the handbook call it)::

    from handbook.checker import check_command, exit_status
    findings = check_command(text, snapshot, kb)     # -> list[Finding], ordered by line

``text`` is shell as people paste it: ``python -m sglang.launch_server …``, ``python -m
sglang_router.launch_router …``, ``python -m sglang.benchmark.serving …`` (and the deprecated
``sglang.bench_serving``), ``sglang serve …``, ``docker run … IMAGE python -m …``, ``VAR=value`` prefixes and
``export`` lines, backslash continuations, comments, several commands in one block, and flags-only fragments
(checked as launch_server flags). Launchers are read through (``shell.LAUNCHERS``: sudo, timeout, conda run,
docker exec, kubectl exec, apptainer exec, xargs…; ``bash -c``, ``ssh HOST``, ``eval``; subshells, braces and
``if``/``while``); an SGLang command behind anything else is an error (``shell.unseen-program``), never a
silent pass. The work grows linearly with the text, at bounded depth.

``snapshot`` is an ``EngineSnapshot`` (default: the pinned one, ``handbook.engine.load_snapshot()``); ``kb``
is the loaded KB (``handbook.kb.loader.load_kb()``) — without it the KB's rules, model lookups and variable
labels are skipped. ``model=`` names the KB model when the
caller knows it (a recipe does).

A ``Finding`` has ``severity`` ("error" | "warning" | "note"), a stable ``code``, ``message.zh`` /
``message.en``, the ``line`` in ``text``, the ``subject`` word, an optional ``link`` to the handbook section
that explains it (``page.md#anchor``) and, for rule findings, the ``rule`` id. ``exit_status(findings)`` is
0 clean (notes only), 1 with warnings, 2 with errors. ``check_recipe(recipe, snapshot, kb)`` checks a KB
recipe as the text the site publishes.

Codes: ``shell.syntax``, ``shell.orphan-flags``, ``shell.unseen-program``, ``shell.too-deep``,
``shell.invisible``, ``shell.no-program``, ``module.unknown``, ``module.deprecated``, ``flag.unknown``,
``flag.wrong-program``, ``flag.abbreviation``, ``flag.ambiguous``, ``flag.deprecated``, ``flag.repeated``,
``flag.takes-no-value``, ``value.missing``, ``value.type``, ``value.choice``, ``value.placeholder``,
``args.required``, ``args.unexpected``, ``env.unknown``, ``env.type``, ``env.deprecated``,
``env.legacy-prefix``, ``env.foreign``, and ``rule.<id>`` for each rule of ``kb/rules.yaml``.
"""

from handbook.checker.check import check_command, check_invocation, check_recipe
from handbook.checker.findings import Finding, Severity, exit_status, ordered

__all__ = [
    "Finding",
    "Severity",
    "check_command",
    "check_invocation",
    "check_recipe",
    "exit_status",
    "ordered",
]
