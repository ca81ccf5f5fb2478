"""What the limits that count per email count: one key per mailbox, however the address
is spelt (issue 35), so ``User+1@gmail.com``, ``u.s.e.r@googlemail.com`` and
``user@gmail.com`` share one allowance instead of each getting a fresh one.

The key only counts: the address stored and mailed stays as the passenger typed it.

Not a package: ``email-normalize`` (the maintained one) decides the provider from the
domain's MX records, a DNS lookup on every limited request that fails closed or open with
the resolver; the rules here need no network and cover the providers that document them.
"""

from __future__ import annotations

# Domains whose mailboxes ignore dots in the local part, each with the domain it is an
# alias of (Gmail: "Dots don't matter in Gmail addresses"; googlemail.com is the same
# service under its older name).
DOTS_IGNORED = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def email_limit_key(email: str) -> str:
    """The mailbox ``email`` names, for counting: lower-cased, without a ``+tag`` (RFC 5233
    sub-addressing, honoured by nearly every provider, so a tag costs the sender nothing),
    and at the providers in ``DOTS_IGNORED`` without dots and under one domain name."""
    local, at, domain = email.strip().lower().rpartition("@")
    if not at:
        return email.strip().lower()
    domain = domain.rstrip(".")
    local = local.split("+", 1)[0]
    if domain in DOTS_IGNORED:
        local, domain = local.replace(".", ""), DOTS_IGNORED[domain]
    return f"{local}@{domain}"


def email_key_domains(key: str) -> list[str]:
    """The domains an address counted under ``key`` may be written with: for a store that
    keeps addresses as typed and narrows its rows by domain before comparing keys."""
    domain = key.rpartition("@")[2]
    return [name for name, same in DOTS_IGNORED.items() if same == domain] or [domain]
