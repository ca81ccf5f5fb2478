"""The line every email to a person ends with (contract 11): where the privacy notice is,
and with it how to ask for a copy or the erasure of one's data."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse


def privacy_line() -> str:
    return (
        "How we use your data, and how to ask for a copy or its erasure: "
        f"{settings.SITE_URL}{reverse('privacy-notice')}"
    )
