"""``{% fee_schedule as fees %}``: the driver fee rules (``billing.fees``) for templates
outside billing, such as the driver sign-up pages, which must state the fee, the
threshold and the trial as billing applies them, not as a copy typed into the page."""

from __future__ import annotations

from django import template

from billing.fees import FeeSchedule, fee_schedule_current

register = template.Library()


@register.simple_tag
def fee_schedule() -> FeeSchedule:
    return fee_schedule_current()
