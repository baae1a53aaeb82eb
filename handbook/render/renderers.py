"""Importing this module registers every kb: renderer."""

from handbook.render import landscape, ops, params, recipes  # noqa: F401
