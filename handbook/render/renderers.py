"""Importing this module registers every kb: renderer."""

from handbook.render import landscape, ops, pages_a, pages_b, params, recipes  # noqa: F401
