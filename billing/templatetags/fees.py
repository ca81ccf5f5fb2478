"""``{% fee_schedule as fees %}``: the driver fee rules (``billing.fees``) for templates
outside billing, such as the driver sign-up pages, which must state the fee, the
threshold and the trial as billing applies them, not as a copy typed into the page.
``{% vat_rule as vat %}``: the VAT rule new invoices are issued under (``vat.adds_vat``:
the fee is set exclusive of VAT and VAT is added)."""

from __future__ import annotations

from django import template

from billing.fees import FeeSchedule, VatRule, fee_schedule_current

register = template.Library()


@register.simple_tag
def fee_schedule() -> FeeSchedule:
    return fee_schedule_current()


@register.simple_tag
def vat_rule() -> VatRule:
    return VatRule.current()
