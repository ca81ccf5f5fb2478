"""Text a caller supplied, echoed in an MCP tool's text output, is marked as data
(issue 35): ``find_places`` echoed the query, newlines and NUL included, unmarked, so
whatever an agent's user typed came back to the agent looking like the server's words.

:func:`caller_text` gives it as one JSON string literal: inside double quotes, with
quotes, backslashes, newlines and every other control, format (bidirectional overrides,
zero-width) or separator character escaped as ``\\uXXXX``, so it can neither end the
quotation nor add a line of its own. Structured content keeps the text as it was.
"""

from __future__ import annotations

import json
import unicodedata

# Beyond what JSON escapes itself (C0 controls, quotes, backslash).
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})


def caller_text(text: str) -> str:
    """``text`` as a quoted, escaped literal: ``"Lee\\nds"`` for ``Lee<newline>ds``."""
    literal = json.dumps(str(text), ensure_ascii=False)
    return "".join(
        json.dumps(c)[1:-1] if unicodedata.category(c) in _ESCAPED_CATEGORIES else c
        for c in literal
    )
