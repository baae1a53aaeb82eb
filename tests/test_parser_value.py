"""Every engine page writes an argparse default or choice the way Python (and so ``--help``) does: the option
reference, chapter 04's default column, the drift tables and the upgrade notes agree on ``False`` and
``None`` (a JSON ``false`` or ``null`` on one page and ``False`` on another was the site contradicting
itself). The checker lists a flag's choices with the same function."""

from __future__ import annotations

import pytest

from handbook.core.formatting import parser_value
from handbook.render.html import parser_value_code


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (False, "False"),
        (True, "True"),
        (None, "None"),
        (0, "0"),
        (0.9, "0.9"),
        (2.0, "2.0"),
        ("fa3", "fa3"),
        (["flashinfer", "fa3"], "['flashinfer', 'fa3']"),
        ({"repr": "<object at 0x1>"}, "<object at 0x1>"),
    ],
)
def test_a_parser_value_is_written_as_python_writes_it(value, shown):
    assert parser_value(value) == shown


def test_a_parser_value_in_code_is_escaped_for_html_and_markdown():
    assert parser_value_code("<a&b>") == "<code>&#60;a&#38;b&#62;</code>"
    assert parser_value_code("speed_bench") == "<code>speed&#95;bench</code>"
