"""Driver and partner subscriptions, weekly invoices and credit notes (seed 1.7, 8), and
what the payment provider holds for a driver (issue 36), one module per concern:
``subscriptions``, ``invoices``, ``payments``. Import them from ``billing.models``.

Drivers pay a flat weekly software subscription instead of a per-ride commission.
"""

from billing.models.invoices import (
    INVOICE_STATUSES_OWED,
    CreditNote,
    CreditNoteQuerySet,
    FeeDecision,
    ImmutableBillingRecordError,
    Invoice,
    InvoiceLine,
    InvoiceLineKind,
    InvoiceLineQuerySet,
    InvoiceQuerySet,
    InvoiceRunFailure,
    InvoiceRunFailureQuerySet,
    InvoiceStatus,
    NumberSequence,
)
from billing.models.payments import (
    FailedPayment,
    PaymentCustomer,
    PaymentMethod,
    PaymentMethodKind,
    ProviderEvent,
)
from billing.models.subscriptions import (
    PartnerJobFee,
    SmsUsage,
    Subscription,
    SubscriptionAudit,
    SubscriptionStage,
)

__all__ = [
    "INVOICE_STATUSES_OWED",
    "CreditNote",
    "CreditNoteQuerySet",
    "FailedPayment",
    "FeeDecision",
    "ImmutableBillingRecordError",
    "Invoice",
    "InvoiceLine",
    "InvoiceLineKind",
    "InvoiceLineQuerySet",
    "InvoiceQuerySet",
    "InvoiceRunFailure",
    "InvoiceRunFailureQuerySet",
    "InvoiceStatus",
    "NumberSequence",
    "PartnerJobFee",
    "PaymentCustomer",
    "PaymentMethod",
    "PaymentMethodKind",
    "ProviderEvent",
    "SmsUsage",
    "Subscription",
    "SubscriptionAudit",
    "SubscriptionStage",
]
