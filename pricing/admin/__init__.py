"""Back office for tariffs (editable, with bands and extras inline; each table's age,
last check and source shown), quotes (read-only: a quote's fare is frozen at issue,
contract 2.4) and tables sent in by the trade (reviewed beside their photo, checked by one
staff member and approved by another: pricing.submissions)."""

from pricing.admin.submissions import SubmissionRejectForm, TariffSubmissionAdmin
from pricing.admin.tariffs import (
    EstimatedTariffAdmin,
    QuoteAdmin,
    TariffAdmin,
    TariffBandInline,
    TariffExtraInline,
    TariffPublicationAdmin,
)

__all__ = [
    "EstimatedTariffAdmin",
    "QuoteAdmin",
    "SubmissionRejectForm",
    "TariffAdmin",
    "TariffBandInline",
    "TariffExtraInline",
    "TariffPublicationAdmin",
    "TariffSubmissionAdmin",
]
