"""The handbook's diagrams: graphviz sources (DOT) built from kb/ data, rendered to committed SVGs.

Building the DOT needs only Python; rendering needs graphviz's ``dot``. Every SVG carries the hash of
its DOT text and of ``GENERATOR_VERSION``, so the site build and the tests can tell a stale SVG without
graphviz installed. ``python -m handbook diagrams`` re-renders them all.
"""

# Bump when the SVG post-processing (the stamp, anything done to dot's output) changes, so every
# committed SVG counts as stale; changes to the DOT itself already change each figure's hash.
GENERATOR_VERSION = 2
