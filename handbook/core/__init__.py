"""The bottom layer: paths, languages and bilingual text, the message catalogue, small shared helpers.

Nothing here imports another part of the package; every other layer may import from here.
"""
