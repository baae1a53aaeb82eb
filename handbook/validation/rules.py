"""Each rule of kb/rules.yaml names a predicate of the checker, gives it valid parameters, and its message
uses only the values that predicate provides; what the engine does (``engine.adjustment``) is said in words
that hold for every command, with no fields to fill: it is shown beside prose too, where no command gives the
values. (The rest of a rule's shape is the schema's.)"""

from __future__ import annotations

import re

from pydantic import ValidationError

from handbook.checker.predicates import PREDICATES
from handbook.core.problem import Problem
from handbook.core.templates import template_problems
from handbook.core.text import LANGS
from handbook.kb.loader import KB

FIELD = re.compile(r"\{([a-z_]+)\}")  # a str.format field, as the messages write them


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
            what = f"values {rule.predicate} provides"
            for problem in template_problems(rule.message[lang], predicate.fields, what):
                out.append(origin.at(("message", lang), problem))
            adjustment = rule.engine.adjustment
            if adjustment is not None:
                fields = FIELD.findall(adjustment[lang])
                if fields:
                    out.append(
                        origin.at(
                            ("engine", "adjustment", lang),
                            f"got {{{fields[0]}}}, expected words without fields (the adjustment is shown "
                            "beside prose, where no command fills them; put the values in the message)",
                        )
                    )
    return out
