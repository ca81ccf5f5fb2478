"""Public booking references (contract 3): <PREFIX>-<CODE>, 8 unambiguous characters."""

import re
from collections import Counter

from bookings.references import ALPHABET, CODE_LENGTH, reference_generate


def test_a_reference_is_the_prefix_and_eight_unambiguous_characters(settings):
    settings.BOOKING_REFERENCE_PREFIX = "ABC"
    assert len(ALPHABET) == 32
    pattern = re.compile(rf"ABC-[{ALPHABET}]{{{CODE_LENGTH}}}")
    for _ in range(200):
        assert pattern.fullmatch(reference_generate())


def test_every_position_draws_from_the_whole_alphabet():
    # 4,000 draws: each of 32 characters is expected 125 times per position. A position
    # stuck on part of the alphabet (a wrong shift or mask) leaves characters unseen or
    # far too frequent; chance alone does neither (both bounds are over 7 standard
    # deviations out).
    codes = [reference_generate().split("-", 1)[1] for _ in range(4000)]
    for position in range(CODE_LENGTH):
        counts = Counter(code[position] for code in codes)
        assert set(counts) == set(ALPHABET)
        assert min(counts.values()) >= 40
        assert max(counts.values()) <= 220


def test_references_do_not_repeat():
    assert len({reference_generate() for _ in range(10000)}) == 10000
