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


# Ofcom reserves 07700 900000-900999 for drama and documentation (as 555 numbers in the
# US): well-formed UK mobile numbers that integrators' examples and test suites use, but
# that libphonenumber's metadata leaves out of the valid mobile ranges.
OFCOM_DRAMA_MOBILE_PREFIX = "+447700900"

MOBILE_TYPES = frozenset(
    {phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE}
)


@dataclass(frozen=True)
class PhoneVerdict:
    e164: str
    mobile: bool


class AssessedPhone(str):
    """A number in E.164 that carries the verdict it was found valid with
    (:func:`phone_assessed`): a booking's input serializer assesses the passenger's phone,
    and the admission then reads that verdict instead of parsing the number a second time
    (issue 41). Anything that stores or compares it sees the plain E.164 string."""

    verdict: PhoneVerdict


def phone_assessed(raw: str, region: str = "GB") -> AssessedPhone | None:
    """:func:`phone_assess` of ``raw`` as its E.164 string carrying the verdict; None when
    it is not a valid number."""
    verdict = phone_assess(raw, region)
    if verdict is None:
        return None
    phone = AssessedPhone(verdict.e164)
    phone.verdict = verdict
    return phone


def phone_assess(raw: str, region: str = "GB") -> PhoneVerdict | None:
    """The number in E.164 and whether it is a mobile; None when it is not a valid number
    for its region (``12345`` is possible in length but allocated to nobody; contract 3).
    An :class:`AssessedPhone` is E.164, whatever the region: its own verdict answers."""
    if isinstance(raw, AssessedPhone):
        return raw.verdict
    try:
        number = phonenumbers.parse(raw, region)
    except phonenumbers.NumberParseException:
        return None
    e164 = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    if e164.startswith(OFCOM_DRAMA_MOBILE_PREFIX) and len(e164) == 13:
        return PhoneVerdict(e164=e164, mobile=True)
    if not phonenumbers.is_valid_number(number):
        return None
    return PhoneVerdict(e164=e164, mobile=phonenumbers.number_type(number) in MOBILE_TYPES)


def phone_to_e164(raw: str, region: str = "GB") -> str | None:
    """E.164 form of a phone number, or None when it is not a valid number."""
    verdict = phone_assess(raw, region)
    return verdict.e164 if verdict is not None else None
