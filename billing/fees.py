"""The driver fee rules of seed section 8: dated schedules, read from settings (defaults
in config/settings/domains/billing.py).

A schedule applies to the billing weeks that start on or after its ``effective_from``,
until the next one: a change (a lower free-earnings threshold, a new weekly fee) is a new
entry in ``FEE_SCHEDULES`` from a date, so the weeks before it are judged, and re-judged
when late payment records arrive, by the rule that was in force for them. Each invoice
records the rule it applied (``Invoice.fee_rule``, :meth:`FeeSchedule.rule`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from django.conf import settings

from core.localtime import local_today

CENT = Decimal("0.01")

# The base schedule (the scalar settings) applies from the start of time.
BASE_EFFECTIVE_FROM = dt.date(2000, 1, 3)


@dataclass(frozen=True)
class FeeSchedule:
    weekly_fee: Decimal
    free_earnings_threshold: Decimal
    sms_unit: Decimal
    driver_trial_days: int
    partner_trial_days: int
    collection_due_days: int
    effective_from: dt.date = BASE_EFFECTIVE_FROM

    def rule(self) -> dict[str, str]:
        """What an invoice records of the rule it applied (strings: exact decimals)."""
        return {
            "effectiveFrom": self.effective_from.isoformat(),
            "weeklyFeeGBP": str(self.weekly_fee),
            "freeBelowGBP": str(self.free_earnings_threshold),
            "smsUnitGBP": str(self.sms_unit),
        }


def fee_schedules() -> list[FeeSchedule]:
    """Every schedule, oldest first: the base one from the scalar settings, then each
    ``FEE_SCHEDULES`` entry (``effectiveFrom`` and the figures it changes)."""
    base = FeeSchedule(
        weekly_fee=Decimal(settings.SUBSCRIPTION_WEEKLY_FEE_GBP),
        free_earnings_threshold=Decimal(settings.SUBSCRIPTION_FREE_EARNINGS_THRESHOLD_GBP),
        sms_unit=Decimal(settings.SMS_PASS_THROUGH_GBP),
        driver_trial_days=int(settings.DRIVER_TRIAL_DAYS),
        partner_trial_days=int(settings.PARTNER_TRIAL_DAYS),
        collection_due_days=int(settings.BILLING_PAYMENT_DUE_DAYS),
    )
    schedules = [base]
    for entry in sorted(settings.FEE_SCHEDULES, key=lambda e: e["effectiveFrom"]):
        previous = schedules[-1]
        schedules.append(
            FeeSchedule(
                weekly_fee=Decimal(str(entry.get("weeklyFeeGBP", previous.weekly_fee))),
                free_earnings_threshold=Decimal(
                    str(entry.get("freeBelowGBP", previous.free_earnings_threshold))
                ),
                sms_unit=Decimal(str(entry.get("smsUnitGBP", previous.sms_unit))),
                driver_trial_days=previous.driver_trial_days,
                partner_trial_days=previous.partner_trial_days,
                collection_due_days=previous.collection_due_days,
                effective_from=dt.date.fromisoformat(str(entry["effectiveFrom"])),
            )
        )
    return schedules


def fee_schedule_for(day: dt.date) -> FeeSchedule:
    """The schedule in force on ``day`` (for a billing week: its Monday)."""
    in_force = [s for s in fee_schedules() if s.effective_from <= day]
    return in_force[-1] if in_force else fee_schedules()[0]


def fee_schedule_current() -> FeeSchedule:
    """Seed 8.2, 8.3, 8.5: 20 GBP a week above 500 GBP of earnings, 0.02 GBP per SMS,
    90-day driver trial, 30-day partner trial; as in force today (UK date)."""
    return fee_schedule_for(local_today())


# --- VAT on the invoice (issue 36) -----------------------------------------------------


@dataclass(frozen=True)
class VatSplit:
    net: Decimal
    vat: Decimal
    gross: Decimal


@dataclass(frozen=True)
class VatRule:
    """How an invoice's lines become what is charged: the one place VAT is worked out.

    With no ``vat_number`` the supplier is not VAT-registered: no VAT, gross = the lines.
    Registered, the rate is ``VAT_RATE_PERCENT`` and:

    - ``fee_includes_vat`` (``SUBSCRIPTION_FEE_INCLUDES_VAT=True``, the default): the lines
      are VAT-inclusive; gross = their sum, VAT = gross x rate / (100 + rate);
    - otherwise the lines are net; VAT = net x rate / 100 is added: gross = net + VAT.

    VAT applies to every line, pass-through charges (seed 8.5: SMS job cards, card
    processing fees, partner job fees) included, under both settings: they are costs the
    network buys and recharges as part of its own supply, not disbursements made as the
    driver's agent (HMRC guide "VAT: costs or disbursements passed to customers"), exactly
    as the VAT-inclusive invoice always treated them. Rounding is per invoice: VAT is worked out once on the invoice's
    total, never per line, and rounded half up to the nearer penny (HMRC VAT Notice 700,
    section 17.5, allows the nearer penny; it also allows rounding down, which we do not
    use; HMRC manual VATREC12010 explains the paragraph).

    The rule is read from settings when an invoice is issued and recorded in its
    ``fee_rule`` (:meth:`recorded`), so a later change of setting or rate changes only the
    invoices issued after it; :meth:`of_invoice` reads it back.
    """

    vat_number: str
    rate_percent: Decimal
    fee_includes_vat: bool

    @classmethod
    def current(cls) -> VatRule:
        return cls(
            vat_number=settings.VAT_NUMBER,
            rate_percent=Decimal(str(settings.VAT_RATE_PERCENT)),
            fee_includes_vat=bool(settings.SUBSCRIPTION_FEE_INCLUDES_VAT),
        )

    @classmethod
    def of_invoice(cls, fee_rule: dict) -> VatRule:
        """The rule an invoice was issued under. Invoices issued before the rule was
        recorded were all VAT-inclusive (the only mode then built) and did not record the
        VAT number or rate: those two are read from today's settings, as they always were."""
        if "feeIncludesVat" not in fee_rule:
            return cls(
                vat_number=settings.VAT_NUMBER,
                rate_percent=Decimal(str(settings.VAT_RATE_PERCENT)),
                fee_includes_vat=True,
            )
        return cls(
            vat_number=str(fee_rule.get("vatNumber", "")),
            rate_percent=Decimal(str(fee_rule.get("vatRatePercent", "0"))),
            fee_includes_vat=bool(fee_rule["feeIncludesVat"]),
        )

    def recorded(self) -> dict:
        """What an invoice's ``fee_rule`` records of this rule (decimals as strings)."""
        return {
            "vatNumber": self.vat_number,
            "vatRatePercent": str(self.rate_percent),
            "feeIncludesVat": self.fee_includes_vat,
        }

    @property
    def rate(self) -> Decimal:
        """The rate applied: 0 when the supplier is not VAT-registered."""
        return self.rate_percent if self.vat_number else Decimal(0)

    @property
    def adds_vat(self) -> bool:
        """VAT is added to the fee and the other lines (the fee is set exclusive of VAT)."""
        return bool(self.vat_number) and not self.fee_includes_vat

    def split(self, lines_total: Decimal) -> VatSplit:
        """Net, VAT and gross of an invoice whose lines add up to ``lines_total``."""
        rate = self.rate
        if self.fee_includes_vat:
            vat = (lines_total * rate / (100 + rate)).quantize(CENT, rounding=ROUND_HALF_UP)
            return VatSplit(net=lines_total - vat, vat=vat, gross=lines_total)
        vat = (lines_total * rate / 100).quantize(CENT, rounding=ROUND_HALF_UP)
        return VatSplit(net=lines_total, vat=vat, gross=lines_total + vat)
