"""Each rule of kb/rules.yaml names a predicate of the checker, gives it valid parameters, and its message
uses only the values that predicate provides. (The rest of a rule's shape is the schema's.)"""

from __future__ import annotations

import string

from pydantic import ValidationError

from handbook.checker.predicates import PREDICATES
from handbook.core.problem import Problem
from handbook.core.text import LANGS
from handbook.kb.loader import KB


def rule_problems(kb: KB) -> list[Problem]:
    out: list[Problem] = []
    for rule in kb.rules.values():
        origin = kb.origin(rule)
        predicate = PREDICATES.get(rule.predicate)
        if predicate is None:
            known = ", ".join(sorted(PREDICATES))
            out.append(
                origin.at(("predicate",), f"got '{rule.predicate}', expected one of the predicates: {known}")
            )
            continue
        try:
            predicate.model_validate(rule.params)
        except ValidationError as exc:
            error = exc.errors(include_url=False)[0]
            where = tuple(str(part) for part in error["loc"])
            out.append(origin.at(("params", *where), f"{error['msg']} (predicate {rule.predicate})"))
            continue
        for lang in LANGS:
            for _, name, _, _ in string.Formatter().parse(rule.message[lang]):
                if name is not None and name not in predicate.fields:
                    offered = ", ".join(predicate.fields) or "none"
                    out.append(
                        origin.at(
                            ("message", lang),
                            f"got {{{name}}}, expected only values {rule.predicate} provides: {offered}",
                        )
                    )
    return out
