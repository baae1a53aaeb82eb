"""The command checker as data: what docs/assets/checker.js needs to give ``check_command``'s findings.

The browser's checker (the command doctor and the configurator pages) runs the same algorithm as this
package, written again in JavaScript, over this export: the engine snapshot's three parsers (only the fields
argparse and the checker read), its variable registry, the KB's rules with their validated parameters, the
KB's checkpoints and variable readers, and the checker's wording in both languages. Nothing here is
computed for the browser that the Python checker computes at check time, except each rule's engine clause,
which depends on the rule alone. tests/test_doctor_parity.py runs both on the same commands and compares
every finding.
"""

from __future__ import annotations

import json
from typing import Any

from handbook.checker import argv, deployment, entrypoints, envcheck, findings, shell, sizing
from handbook.checker.abbreviations import stored_span
from handbook.checker.check import INVISIBLE_LINES, engine_clause, entry_points, rule_params
from handbook.checker.entrypoints import module_lives
from handbook.checker.envcheck import READ_BY_KEYS
from handbook.checker.shell import (
    DOCKER_ENV_OPTIONS,
    DOCKER_RUN,
    DOCKER_VALUE_OPTIONS,
    KEYWORDS,
    LAUNCHERS,
    MAX_NESTING,
    QUOTING,
    QUOTING_MODULES,
    SHELLS,
    SSH_VALUE_OPTIONS,
    mention_pattern,
)
from handbook.core.messages import DOMAINS
from handbook.core.suggest import SUGGESTIONS_PER_CHECK
from handbook.core.text import INVISIBLE_RANGES
from handbook.engine.snapshot import EngineSnapshot, Option, Parser, SnapshotError, load_history

SCHEMA_VERSION = 2
# Where the build writes it, under the site root (beside the scripts that read it).
CHECKER_DATA_PATH = "assets/checker-data.json"
# The catalogue's domains the browser's checker words its findings with.
MESSAGE_DOMAINS = ("checker", "deployment", "releases", "doctor")
# The checker's fixed tables that checker.js reads from the export under "tables" instead of typing them
# again, by the name checker.js gives each: the engine's spellings (torchrun's switches, the JSON-typed
# options, the SLO keys of --goodput, sglang serve's own flag, the boolean words of its variables, the PD
# flags, human_readable_int's suffixes, the retired CUDA graph backend), the order of impacts, each
# severity's impact and the sizing's limits. tests/test_js_structure.py holds checker.js to this list.
TABLES: dict[str, Any] = {
    "TORCHRUN_SWITCHES": shell.TORCHRUN_SWITCHES,
    "JSON_TYPES": argv.JSON_TYPES,
    "SI_POWERS": argv.SI_POWERS,
    "IEC_POWERS": argv.IEC_POWERS,
    "GOODPUT_SLO_METRICS": argv.GOODPUT_SLO_METRICS,
    "RETIRED_CUDA_GRAPH_BACKEND": argv.RETIRED_CUDA_GRAPH_BACKEND,
    "MODEL_TYPE": entrypoints.MODEL_TYPE,
    "BOOL_WORDS": envcheck.BOOL_WORDS,
    "IMPACTS": findings.IMPACTS,
    "IMPACT_OF": findings.IMPACT_OF,
    "RANK": findings.RANK,
    "DEPLOY_LINK": deployment.LINK,
    "DEPLOY_ROLES": deployment.ROLES,
    "SAME_ON_EVERY_NODE": deployment.SAME_ON_EVERY_NODE,
    "PD_PARSERS": deployment.PD_PARSERS,
    "SIZING_LINK": sizing.LINK,
    "LARGEST": sizing.LARGEST,
    "SIZED_INTEGERS": sizing.INTEGERS,
}


def _option(option: Option) -> dict[str, Any]:
    """One argparse action, without the fields the checker never reads (help, groups, metavars…)."""
    out: dict[str, Any] = {"s": list(option.option_strings), "d": option.dest}
    if option.type is not None:
        out["t"] = option.type
    if option.choices is not None:
        out["c"] = list(option.choices)
    if option.nargs is not None:
        out["n"] = option.nargs
    if option.const is not None:
        out["k"] = option.const
    if option.default is not None:
        out["v"] = option.default
    if option.action != "store":
        out["a"] = option.action
    if option.required:
        out["r"] = True
    if option.deprecated:
        out["x"] = option.replacement or ""
    return out


def _shown_default(default: Any) -> str:
    return json.dumps(default) if not isinstance(default, str) else default


def _parser(parser: Parser) -> dict[str, Any]:
    return {
        "prefix_chars": parser.prefix_chars,
        "allow_abbrev": parser.allow_abbrev,
        "modules": {name: info.deprecated_alias_of for name, info in parser.modules.items()},
        "options": [_option(option) for option in parser.options],
    }


def _rules(kb: Any, version: str) -> list[dict[str, Any]]:
    out = []
    for rule in kb.rules.values():
        params = rule_params(rule)
        if params is None:  # the checker skips a broken rule too (validate reports it)
            continue
        engine = engine_clause(rule, version)
        out.append(
            {
                "id": rule.id,
                "program": rule.program,
                "severity": rule.severity,
                "predicate": rule.predicate,
                "params": params.model_dump(by_alias=True, mode="json"),
                "flags": params.flags(),
                "message": {"zh": rule.message.zh, "en": rule.message.en},
                "engine": {"zh": engine.zh, "en": engine.en},
                "link": rule.explained_at,
                "security": rule.security,
            }
        )
    return out


def _releases(snapshot: EngineSnapshot) -> dict[str, Any]:
    """What the checker reads about the other stored releases: how many releases have each spelling (a
    stable abbreviation, abbreviations.py), each entry-point module's releases (entrypoints.py), and how the
    checked release's ``sglang serve`` dispatches."""
    try:
        history = load_history()
    except SnapshotError:
        return {"count": 0, "span": "", "versions": [], "spellings": {}, "modules": {}, "serve": None}
    count, span = stored_span()
    # abbreviations.py asks which spellings start with a prefix in any stored release, and whether the one
    # that does is in every release: the checked release's own spellings are in "parsers" already, so only
    # the others ("elsewhere") and the checked release's that some release lacks ("partial") are sent
    spellings = {}
    for name, parser in snapshot.parsers.items():
        lives = history.spellings_by_release(name)
        current = set(parser.all_spellings())
        spellings[name] = {
            "elsewhere": sorted(s for s in lives if s not in current),
            "partial": sorted(s for s in current if len(lives.get(s, ())) != count),
        }
    modules = {
        name: {
            "parser": life.parser,
            "versions": list(life.versions),
            "alias_of": [list(a) for a in life.alias_of],
        }
        for name, life in sorted(module_lives().items())
    }
    serve = snapshot.entry_points.serve if snapshot.entry_points is not None else None
    return {
        "count": count,
        "span": span,
        "versions": list(history.versions),
        "spellings": spellings,
        "modules": modules,
        "serve": serve.model_dump(mode="json") if serve is not None else None,
    }


def checker_data(snapshot: EngineSnapshot, kb: Any) -> dict[str, Any]:
    """The export, for ``check_command(text, snapshot, kb)``; deterministic for one KB and snapshot."""
    commands, modules = entry_points(snapshot)
    environ = snapshot.environ
    rewrite = environ.legacy_prefix_rewrite
    checkpoints = [
        [model.id, precision.checkpoint, precision.dtype]
        for model in kb.models.values()
        for precision in model.precisions
        if precision.checkpoint
    ]
    return {
        "schema_version": SCHEMA_VERSION,
        "version": snapshot.sglang_version,
        "parsers": {name: _parser(parser) for name, parser in snapshot.parsers.items()},
        "commands": [[list(words), program] for words, program in commands.items()],
        "modules": modules,
        "environ": {
            # the default as env.type quotes it (envcheck.check_assignment)
            "variables": [[v.name, v.type, _shown_default(v.default)] for v in environ.variables],
            "deprecated": [[d.name, d.replacement, d.note] for d in environ.deprecated],
            "rewrite": {"from": rewrite.from_, "to": rewrite.to, "present": rewrite.present},
            # read without the registry: the first file that reads each (envcheck.py's env.direct)
            "direct": {read.name: read.files[0] for read in snapshot.env_reads if read.files},
        },
        "env_readers": {name: READ_BY_KEYS[var.read_by] for name, var in kb.env_vars.items()},
        "checkpoints": checkpoints,
        # what the engine does was established against the pinned release (check.check_invocation)
        "rules": _rules(kb, kb.handbook.engine_version),
        "releases": _releases(snapshot),
        "messages": {key: list(pair) for domain in MESSAGE_DOMAINS for key, pair in DOMAINS[domain].items()},
        "shell": _shell(commands, modules),
        "suggestions": SUGGESTIONS_PER_CHECK,
        "invisible": [[start, end] for start, end, _ in INVISIBLE_RANGES],
        "invisible_lines": INVISIBLE_LINES,
        "tables": {name: list(v) if isinstance(v, tuple) else v for name, v in TABLES.items()},
    }


def _shell(commands: dict[tuple[str, ...], str], modules: dict[str, str]) -> dict[str, Any]:
    """The shell reader's tables (handbook/checker/shell.py): launchers, keywords, docker run's options."""
    return {
        "launchers": [
            [
                list(head),
                list(how.takes_value),
                how.switches_only,
                how.operands,
                list(how.env_options),
                how.double_dash,
            ]
            for head, how in LAUNCHERS.items()
        ],
        "keywords": sorted(KEYWORDS),
        "shells": list(SHELLS),
        "ssh_values": list(SSH_VALUE_OPTIONS),
        "docker_run": [list(head) for head in DOCKER_RUN],
        "docker_values": sorted(DOCKER_VALUE_OPTIONS),
        "docker_env": list(DOCKER_ENV_OPTIONS),
        "quoting": sorted(QUOTING),
        "quoting_modules": sorted(QUOTING_MODULES),
        "nesting": MAX_NESTING,
        "mention": mention_pattern(commands, modules),
    }
