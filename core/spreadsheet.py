"""CSV cells that a spreadsheet shows as text, never runs as a formula (OWASP CSV injection).

Passenger names, addresses and driver names are typed by outsiders; a cell that starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to Excel and
LibreOffice (``=HYPERLINK(...)``, ``@SUM(...)``). Such a cell is prefixed with a single
quote, which spreadsheets read as "this is text". A plain number (a fare, an E.164 phone
number) is left alone: it runs nothing.
"""

from __future__ import annotations

import re

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def spreadsheet_cell(value) -> str:
    """``value`` as CSV cell text that no spreadsheet evaluates."""
    text = "" if value is None else str(value)
    if text.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text
