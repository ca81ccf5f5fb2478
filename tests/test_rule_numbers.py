"""Every number of a rule has one home; serializers, schema text, templates and comments
read it from there. This fails when a module or template writes its own copy of one of
these numbers next to the words that name its rule (tests/test_rule_homes.py does the
same for settings' defaults and the local time zone)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings

from pricing.vehicles import MAX_PASSENGERS

ROOT = Path(__file__).resolve().parents[1]


def _amount(value) -> str:
    """500.00 as the prose writes it: 500 or 500.00, with or without a pound sign."""
    whole = Decimal(value).normalize()
    return rf"(?:{re.escape(str(Decimal(value)))}|{re.escape(format(whole, 'f'))})\b"


def rule_copies() -> list[tuple[str, str, re.Pattern]]:
    """(rule, its one home, the pattern of a copy elsewhere)."""
    fee = _amount(settings.SUBSCRIPTION_WEEKLY_FEE_GBP)
    threshold = _amount(settings.SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP)
    trials = "|".join(str(d) for d in (settings.DRIVER_TRIAL_DAYS, settings.PARTNER_TRIAL_DAYS))
    window = settings.SIGNED_REQUEST_WINDOW_SECONDS
    return [
        (
            "the passenger cap",
            "pricing.vehicles.MAX_PASSENGERS",
            re.compile(
                rf"(?:max_value|le)\s*=\s*{MAX_PASSENGERS}\b|\b1 (?:to|and) {MAX_PASSENGERS}\b"
                rf"|max_passengers\b[^\n]*default={MAX_PASSENGERS}\b",
                re.IGNORECASE,
            ),
        ),
        (
            "meet and greet's charge",
            "settings.PRICING_MEET_AND_GREET_GBP",
            re.compile(
                rf"meet[ _-]and[ _-]greet[^\n]{{0,80}}(?:£|\bgbp\W{{0,4}})?"
                rf"{_amount(settings.PRICING_MEET_AND_GREET_GBP)}"
                r"|adds (?:£ ?)?\d+(?:\.\d\d)? GBP",
                re.IGNORECASE,
            ),
        ),
        (
            "the weekly fee and the free-earnings threshold",
            "billing.fees.fee_schedule_current",
            re.compile(
                rf"£ ?(?:{fee}|{threshold})|\b(?:{fee}|{threshold}) GBP\b"
                rf"|(?:earn|threshold)[^\n]{{0,40}}\b{threshold}",
                re.IGNORECASE,
            ),
        ),
        (
            "the driver and partner trials",
            "billing.fees.fee_schedule_current",
            re.compile(
                rf"\b(?:{trials})[- ]days?\b[^\n]{{0,40}}trial|trial[^\n]{{0,40}}"
                rf"\b(?:{trials})[- ]days?\b|\b(?:{trials})-day\b",
                re.IGNORECASE,
            ),
        ),
        (
            "the signed-request window",
            "settings.SIGNED_REQUEST_WINDOW_SECONDS",
            re.compile(
                rf"\b{window} ?s\b|seconds\s*=\s*{window}\b|(?:sign|timestamp)"
                rf"[^\n]{{0,60}}=\s*{window}\b",
                re.IGNORECASE,
            ),
        ),
    ]


# The homes themselves (and the settings modules that hold several: base and the domain
# groups in config/settings/domains/).
HOMES = {"pricing/vehicles.py", "billing/fees.py", "config/settings/base.py"}
SETTINGS_HOMES = "config/settings/domains/"


def sources():
    """Production modules and templates: not tests, migrations, benchmarks, the venv or
    the copies that `make mutate` leaves in mutants/."""
    for path in sorted([*ROOT.glob("*/**/*.py"), *ROOT.glob("templates/**/*.html")]):
        relative = path.relative_to(ROOT).as_posix()
        if relative.startswith((".venv/", "bench/", "tests/", "node_modules/", "mutants/")):
            continue
        if "/tests/" in relative or "/migrations/" in relative or relative in HOMES:
            continue
        if relative.startswith(SETTINGS_HOMES):
            continue
        yield relative, path.read_text()


@pytest.mark.parametrize(("rule", "home", "copy"), rule_copies(), ids=lambda v: str(v)[:40])
def test_no_module_keeps_its_own_copy_of_a_rule_number(rule, home, copy):
    copies = [
        f"{name}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0)!r}"
        for name, text in sources()
        for match in copy.finditer(text)
    ]
    assert copies == [], f"{rule} is written here instead of read from {home}"


def test_the_scan_would_catch_a_copy():
    # The patterns are only worth something if they match the copies this test replaced.
    patterns = {rule: copy for rule, _home, copy in rule_copies()}
    assert patterns["the passenger cap"].search(
        f"serializers.IntegerField(min_value=1, max_value={MAX_PASSENGERS})"
    )
    assert patterns["meet and greet's charge"].search("Airport meet and greet, adds 25 GBP.")
    threshold = Decimal(settings.SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP).normalize()
    assert patterns["the weekly fee and the free-earnings threshold"].search(
        f"in any week you earn under £{threshold:f}."
    )
    assert patterns["the driver and partner trials"].search(
        f"your {settings.DRIVER_TRIAL_DAYS}-day free trial starts on approval"
    )
    assert patterns["the signed-request window"].search(
        f"must be within {settings.SIGNED_REQUEST_WINDOW_SECONDS} s of now"
    )
