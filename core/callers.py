"""Who is asking, as the use-case services see it: no HTTP request, no headers.

The HTTP edge builds a :class:`Caller` from the authenticated request
(``api.callers.caller_from_request``); the MCP server builds one from the OAuth token
(client and passenger); pages build one for the website. Services apply every policy (who
may book, who may price, limits, screening) to the caller, never to a request.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Caller:
    """An account (by API key or signature), an agent acting for a passenger, or anonymous.

    ``account`` is a ``partners.models.Account`` or None; ``key_id`` the primary key of the
    API key presented, when one was. ``source`` is the booking source recorded for what this
    caller books (``bookings.models.BookingSource``). ``agent`` names the assistant making
    the booking (an MCP client's name, or the ``agent`` field of the alias form).
    ``passenger_email`` is the passenger an agent acts for (MCP, after sign-in).
    ``session`` is the website's browser session (a random id the quote form's cookie
    carries): the website's quotes are counted per session beside the per-address count
    (issue 34).
    """

    ip: str = ""
    account: Any = None
    key_id: int | None = None
    source: str = "api"
    agent: str = ""
    passenger_email: str = ""
    path: str = ""
    session: str = ""

    @property
    def limit_key(self) -> str:
        """What rate limits count: the key, else the account, else the signed-in passenger
        an agent acts for, else the client IP (contract 1.4, 7).

        An agent's limits count per passenger, whatever the client: its name is chosen by
        the client at registration, so counting per name gave a passenger a fresh
        allowance with every registration (issue 24)."""
        if self.key_id is not None:
            return f"key:{self.key_id}"
        if self.account is not None:
            return f"account:{self.account.pk}"
        if self.passenger_email:
            return f"passenger:{self.passenger_email.lower()}"
        return f"ip:{self.ip or 'unknown'}"

    @property
    def rate_limit_override(self) -> str:
        """An account's own ``rate_limit`` (django-ratelimit format), or ''."""
        return getattr(self.account, "rate_limit", "") if self.account is not None else ""
