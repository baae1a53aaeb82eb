"""Checks that need more than the schema: computations the KB's statements rely on.

``python -m handbook validate`` and the site build run these after loading; each problem is located in
its KB file like a schema error.
"""

from __future__ import annotations

from handbook.calc.claims import check_claims
from handbook.checker.kbcheck import engine_problems
from handbook.kb.loader import KB
from handbook.kb.yamlfile import Problem


def run_checks(kb: KB) -> list[Problem]:
    problems = [kb.origin(claim).at(("stated_values",), message) for claim, message in check_claims(kb)]
    problems += engine_problems(kb)  # recipes, rules, aliases and variables against the pinned engine
    return sorted(problems, key=lambda p: (p.file, p.line, p.path))
