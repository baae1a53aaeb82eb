"""Importing this module registers every kb: renderer."""

import handbook.render.contributors  # kb:translation-status and kb:benchmarks (the contributors' pages)
import handbook.render.engine  # noqa: F401 - command status, the engine drift page, the option reference
from handbook.render import facts, figures, landscape, ops, params, planner, recipes, topologies  # noqa: F401
