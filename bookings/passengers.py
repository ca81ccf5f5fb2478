"""Passenger contact checks: genuine emails (seed 4 rule 3) and E.164 phone numbers."""

from __future__ import annotations

from dataclasses import dataclass

import phonenumbers
from disposable_email_domains import blocklist as DISPOSABLE_DOMAINS
from email_validator import EmailNotValidError, validate_email

# Role addresses reach a team or nobody, not the passenger (contract 3).
ROLE_LOCAL_PARTS = frozenset(
    {
        "admin",
        "administrator",
        "info",
        "noreply",
        "no-reply",
        "donotreply",
        "do-not-reply",
        "support",
        "sales",
        "postmaster",
        "hostmaster",
        "webmaster",
        "abuse",
        "root",
        "contact",
        "enquiries",
        "office",
        "help",
        "billing",
        "accounts",
        "marketing",
        "mailer-daemon",
        "security",
        "team",
        "hello",
    }
)


@dataclass(frozen=True)
class EmailVerdict:
    email: str
    valid: bool
    disposable: bool
    role: bool

    @property
    def acceptable(self) -> bool:
        return self.valid and not self.disposable and not self.role


def email_assess(address: str) -> EmailVerdict:
    """Normalise and judge an email address without any network look-up."""
    try:
        normalised = validate_email(address, check_deliverability=False).normalized
    except EmailNotValidError:
        return EmailVerdict(email=address.strip(), valid=False, disposable=False, role=False)
    local, _, domain = normalised.rpartition("@")
    domain = domain.lower()
    parts = domain.split(".")
    # A subdomain of a disposable domain is disposable too.
    disposable = any(".".join(parts[i:]) in DISPOSABLE_DOMAINS for i in range(len(parts) - 1))
    role = local.lower().split("+", 1)[0] in ROLE_LOCAL_PARTS
    return EmailVerdict(email=f"{local}@{domain}", valid=True, disposable=disposable, role=role)


def phone_to_e164(raw: str, region: str = "GB") -> str | None:
    """E.164 form of a phone number, or None when it is not a possible number."""
    try:
        number = phonenumbers.parse(raw, region)
    except phonenumbers.NumberParseException:
        return None
    # "Possible" rather than "valid": Ofcom's drama ranges (07700 900xxx) and newly issued
    # ranges must not be refused; the contract's line is "unparseable is 400".
    if not phonenumbers.is_possible_number(number):
        return None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
