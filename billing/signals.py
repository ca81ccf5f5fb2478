"""Billing's signals: other apps listen without billing importing them."""

from django.dispatch import Signal

# A provider charge of a weekly invoice failed, or was returned to the driver after a
# dispute (issue 36), and the driver has been emailed. Sent after
# commit with invoice=, driver=, link= (where to pay or change the way of paying) and
# text=; dispatch sends it by SMS or WhatsApp through the job-card notification path.
invoice_payment_failed = Signal()
