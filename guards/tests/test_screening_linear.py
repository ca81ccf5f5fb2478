"""Every screening rule runs in time linear in its input (issue 24).

Finding: "A 100-job batch whose notes are runs of line breaks takes 11.8 s of a worker
(0.05 s with plain notes): the `role_tags` screening rule is quadratic in runs of
whitespace, and any partner may send 600 batches a minute."

Each rule is fed 100 KB of text built to make a backtracking regex work hard: runs of
every kind of whitespace and punctuation, and runs of the rule's own words (taken from its
pattern, so a new rule is tried with its own vocabulary). A quadratic rule takes minutes
on such input (role_tags took 338 s on 100 KB of line breaks, the img/onerror branch of
markup_injection 13 s); a linear one takes milliseconds, so the budget below is generous
enough for a busy machine and still fails any quadratic rule by orders of magnitude.
"""

from __future__ import annotations

import re
import time

import pytest

from guards.screening import RULES, screen_text

SIZE = 100_000
BUDGET_SECONDS = 2.0

FILLERS = ("\n", " ", "\t", "\r\n", ". ", "! ", "\n ", ", ", "- ", "<", "#", "a", "a ", ": ")


def _pathological(pattern: str) -> dict[str, str]:
    """Runs of FILLERS, and runs of the first words each branch of the rule starts with
    (where a backtracking engine tries the most), joined by a space or a line break."""
    starts = [re.findall(r"[a-z]{2,}", branch)[:1] for branch in pattern.split("|")]
    words = list(dict.fromkeys(word for found in starts for word in found))[:6]
    texts = {f"run of {filler!r}": filler * (SIZE // len(filler)) for filler in FILLERS}
    for word in words:
        for unit in (f"{word} ", f"{word}\n", f"<{word} "):
            texts[f"run of {unit!r}"] = unit * (SIZE // len(unit))
    return texts


@pytest.mark.parametrize(("name", "pattern"), RULES, ids=[name for name, _ in RULES])
def test_each_rule_screens_100_kb_of_pathological_text_within_budget(name, pattern):
    slowest, slowest_text = 0.0, ""
    for label, text in _pathological(pattern.pattern).items():
        started = time.perf_counter()
        pattern.search(text)
        elapsed = time.perf_counter() - started
        if elapsed > slowest:
            slowest, slowest_text = elapsed, label
    assert slowest < BUDGET_SECONDS, f"{name}: {slowest:.2f} s on {slowest_text}"


def test_a_batch_of_notes_made_of_line_breaks_is_screened_quickly():
    started = time.perf_counter()
    for _ in range(100):
        assert screen_text("\n" * 1000) is None
    assert time.perf_counter() - started < BUDGET_SECONDS
