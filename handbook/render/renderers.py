"""Importing this module registers every kb: renderer."""

import handbook.render.contributors  # kb:translation-status and kb:benchmarks (the contributors' pages)
import handbook.render.engine  # command status, the engine drift page, the option reference
import handbook.render.verdicts  # noqa: F401 - kb:rule-verdict, a rule's verdict in a page's own prose
from handbook.render import facts, figures, landscape, ops, params, planner, recipes, topologies  # noqa: F401
