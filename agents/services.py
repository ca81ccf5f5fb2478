"""Passengers who authorize AI agents: sign-in codes, their Django user, their grants.

Rules and where they live:
- A passenger signs in with a 6-digit code emailed to them (:func:`sign_in_code_send`,
  :func:`sign_in_code_verify`): codes live 10 minutes, allow 5 tries, are single-use and
  stored only as a keyed hash. Sending is rate limited per email.
- A passenger is a Django user (no password) whose username is derived from the email,
  so django-oauth-toolkit can own their grants and tokens.
- The agents a passenger authorized are the OAuth applications holding a live token for
  them; revoking one deletes its access and refresh tokens (:func:`agent_authorization_revoke`).
- A client registering itself (RFC 7591) asks for the authorization code grant (with
  refresh tokens) and nothing else, and names redirect URIs that are https, plain http on
  loopback only (RFC 8252 native apps), or an app's own scheme
  (:func:`oauth_client_metadata_require_allowed`), within the size caps below; its
  ``client_name`` is its own choice, shown as such on the consent page.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import unicodedata
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.crypto import salted_hmac
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from agents.models import SignInCode
from bookings.policies import email_require_genuine, passenger_require_not_blocked
from core.callers import Caller
from core.errors import DomainError
from core.mail import privacy_line
from guards.email_keys import email_limit_key
from guards.ratelimits import limit_enforce

# What a self-registered client may ask for (OAuth 2.1: no implicit, no password grant;
# agents act for a signed-in passenger, so no client_credentials either).
OAUTH_CLIENT_GRANT_TYPES = frozenset({"authorization_code", "refresh_token"})
OAUTH_CLIENT_RESPONSE_TYPES = frozenset({"code"})
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "[::1]", "localhost"})
# Size caps on a registration (issue 35: 3,000 redirect URIs were accepted, and a
# free-text name shown on the consent page). A client names one redirect per build or
# platform, so ten is generous; 512 characters hold any real redirect URI. A name is a
# product's name: 80 characters fit the consent page's heading in three lines on a 390 px
# phone.
OAUTH_CLIENT_REDIRECT_URIS_MAX = 10
OAUTH_CLIENT_URI_MAX_CHARS = 512
OAUTH_CLIENT_NAME_MAX_CHARS = 80
# Every other field of RFC 7591 metadata (client_uri, contacts, scope, ...; this server
# stores none of them) at most this long as JSON, and at most this many fields.
OAUTH_CLIENT_FIELD_MAX_CHARS = 2048
OAUTH_CLIENT_FIELDS_MAX = 20
# Unicode categories a client name may not hold: controls, format characters (the
# bidirectional overrides that make one name read as another), private use, surrogates,
# unassigned, and line or paragraph separators; of the spaces, only the plain one.
_NAME_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp", "Zs"})


def _metadata_refused(field: str, message: str) -> DomainError:
    return DomainError("invalid_input", message, errors={field: [message]})


def _client_metadata_require_sized(metadata: dict) -> None:
    """The size caps above, and a client name of visible characters and plain spaces."""
    if len(metadata) > OAUTH_CLIENT_FIELDS_MAX:
        raise _metadata_refused(
            "non_field_errors", f"At most {OAUTH_CLIENT_FIELDS_MAX} metadata fields."
        )
    uris = metadata.get("redirect_uris")
    if isinstance(uris, list):
        if len(uris) > OAUTH_CLIENT_REDIRECT_URIS_MAX:
            raise _metadata_refused(
                "redirect_uris", f"At most {OAUTH_CLIENT_REDIRECT_URIS_MAX} redirect URIs."
            )
        if any(isinstance(uri, str) and len(uri) > OAUTH_CLIENT_URI_MAX_CHARS for uri in uris):
            raise _metadata_refused(
                "redirect_uris",
                f"A redirect URI is at most {OAUTH_CLIENT_URI_MAX_CHARS} characters.",
            )
    name = metadata.get("client_name", "")
    if not isinstance(name, str) or len(name) > OAUTH_CLIENT_NAME_MAX_CHARS:
        raise _metadata_refused(
            "client_name", f"A name of at most {OAUTH_CLIENT_NAME_MAX_CHARS} characters."
        )
    if name != name.strip() or any(
        unicodedata.category(c) in _NAME_REFUSED_CATEGORIES and c != " " for c in name
    ):
        raise _metadata_refused(
            "client_name",
            "A name of visible characters and plain spaces, without spaces at either end.",
        )
    for field, value in metadata.items():
        if field in ("redirect_uris", "client_name"):
            continue
        if len(json.dumps(value)) > OAUTH_CLIENT_FIELD_MAX_CHARS:
            raise _metadata_refused(
                str(field)[:100], f"At most {OAUTH_CLIENT_FIELD_MAX_CHARS} characters as JSON."
            )


def oauth_client_metadata_require_allowed(metadata: dict) -> None:
    """RFC 7591 client metadata this server registers; 400 ``invalid_input`` naming the
    field (``grant_types``, ``response_types`` or ``redirect_uris``) otherwise.

    A plain-http redirect URI off loopback would hand the passenger's authorization code
    to anyone on the network path; the other grants skip the passenger's consent. The
    size caps (``OAUTH_CLIENT_*``) first: 400 naming ``redirect_uris``, ``client_name`` or
    the oversized field.
    """
    _client_metadata_require_sized(metadata)
    grant_types = metadata.get("grant_types", ["authorization_code"])
    if (
        not isinstance(grant_types, list)
        or not set(map(str, grant_types)) <= (OAUTH_CLIENT_GRANT_TYPES)
        or "authorization_code" not in grant_types
    ):
        raise DomainError(
            "invalid_input",
            "Only the authorization_code grant (with refresh_token) is registered here.",
            errors={"grant_types": ['Use ["authorization_code", "refresh_token"].']},
        )
    response_types = metadata.get("response_types", ["code"])
    if not isinstance(response_types, list) or not set(map(str, response_types)) <= (
        OAUTH_CLIENT_RESPONSE_TYPES
    ):
        raise DomainError(
            "invalid_input",
            'Only the "code" response type is registered here.',
            errors={"response_types": ['Use ["code"].']},
        )
    for uri in metadata.get("redirect_uris") or []:
        if not isinstance(uri, str):
            continue  # the library's own validation names it
        scheme, _, rest = uri.partition("://")
        host = rest.split("/", 1)[0].rsplit("@", 1)[-1]
        host = host if host.startswith("[") else host.split(":", 1)[0]
        if scheme.lower() == "http" and host.lower() not in LOOPBACK_HOSTS:
            raise DomainError(
                "invalid_input",
                f"Redirect URI {uri[:200]!r} is plain http off loopback: use https (or "
                "http://127.0.0.1 for an app on the passenger's own machine).",
                errors={"redirect_uris": ["Plain http is allowed on loopback only."]},
            )


def _code_hash(email: str, code: str) -> str:
    return salted_hmac("agents.sign-in-code", f"{email}:{code}", algorithm="sha256").hexdigest()


def passenger_username(email: str) -> str:
    """A stable username for a passenger's email (usernames are shorter than emails)."""
    return "passenger-" + hashlib.sha256(email.lower().encode()).hexdigest()[:32]


def passenger_user_get_or_create(*, email: str):
    email = email.lower()
    user, created = get_user_model().objects.get_or_create(
        username=passenger_username(email), defaults={"email": email}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def sign_in_code_send(*, caller: Caller, email: str) -> str:
    """Email a fresh 6-digit code to ``email`` and return the normalised address.

    Guarantees: the address is a genuine one (the booking rules) and not blocked; at most
    ``RATELIMITS["sign_in_code"]`` codes per email and ``["sign_in_ip"]`` per client IP;
    earlier unused codes stop working.
    """
    email = email_require_genuine(email, field="email")
    passenger_require_not_blocked(email)
    limit_enforce(caller, "sign_in_ip", detail="Too many sign-in codes from here; try again later.")
    limit_enforce(
        caller,
        "sign_in_code",
        value=f"email:{email_limit_key(email)}",
        code="email_limit",
        detail="Too many sign-in codes for this email; try again later.",
    )
    code = f"{secrets.randbelow(10**6):06d}"
    now = timezone.now()
    with transaction.atomic():
        SignInCode.objects.filter(email=email, used_at__isnull=True).update(used_at=now)
        SignInCode.objects.create(
            email=email,
            code_hash=_code_hash(email, code),
            expires_at=now + timedelta(seconds=settings.AGENT_SIGN_IN_CODE_TTL_SECONDS),
        )
    minutes = settings.AGENT_SIGN_IN_CODE_TTL_SECONDS // 60
    send_mail(
        subject=f"Your sign-in code: {code}",
        message=(
            f"Your Direct-to-Driver sign-in code is {code}.\n\n"
            f"It works once, for {minutes} minutes. You asked for it to let an AI assistant "
            "book taxis for you; if that was not you, ignore this email.\n\n" + privacy_line()
        ),
        from_email=None,
        recipient_list=[email],
    )
    return email


def sign_in_code_verify(*, email: str, code: str):
    """The passenger's user when ``code`` is the live code for ``email``.

    Guarantees: a code works once, within its lifetime, and within the attempt limit
    (each wrong try counts, atomically). Raises DomainError ``invalid_input`` otherwise.
    """
    email = email.lower().strip()
    refused = DomainError(
        "invalid_input",
        "That code is not valid. Check the latest email or ask for a new code.",
        errors={"code": ["Invalid or expired code."]},
    )
    with transaction.atomic():
        sign_in = (
            SignInCode.objects.select_for_update()
            .filter(email=email, used_at__isnull=True, expires_at__gt=timezone.now())
            .first()
        )
        if sign_in is None or sign_in.attempts >= settings.AGENT_SIGN_IN_CODE_MAX_ATTEMPTS:
            raise refused
        if not hmac.compare_digest(sign_in.code_hash, _code_hash(email, code.strip())):
            # The failed try must count: the refusal is raised after this commits.
            SignInCode.objects.filter(pk=sign_in.pk).update(attempts=F("attempts") + 1)
            sign_in = None
        else:
            sign_in.used_at = timezone.now()
            sign_in.save(update_fields=["used_at"])
    if sign_in is None:
        raise refused
    return passenger_user_get_or_create(email=email)


@dataclass(frozen=True)
class AgentAuthorization:
    application_id: int
    client_name: str
    scopes: list[str]
    authorized_at: object
    expires_at: object


def agent_authorizations_list(*, user) -> list[AgentAuthorization]:
    """The agents holding a live token (or refresh token) for this passenger."""
    now = timezone.now()
    seen: dict[int, AgentAuthorization] = {}
    tokens = (
        get_access_token_model()
        .objects.filter(user=user, application__isnull=False, expires__gt=now)
        .select_related("application")
        .order_by("created")
    )
    for token in tokens:
        app = token.application
        seen[app.pk] = AgentAuthorization(
            application_id=app.pk,
            client_name=app.name or app.client_id,
            scopes=token.scope.split(),
            authorized_at=seen[app.pk].authorized_at if app.pk in seen else token.created,
            expires_at=token.expires,
        )
    refreshes = get_refresh_token_model().objects.filter(
        user=user, revoked__isnull=True, application__isnull=False
    )
    for refresh in refreshes.select_related("application"):
        app = refresh.application
        if app.pk not in seen:
            seen[app.pk] = AgentAuthorization(
                application_id=app.pk,
                client_name=app.name or app.client_id,
                scopes=[],
                authorized_at=refresh.created,
                expires_at=None,
            )
    return list(seen.values())


@transaction.atomic
def agent_authorization_revoke(*, user, application_id: int) -> int:
    """Withdraw every token this passenger gave this agent; the number of tokens removed.

    Guarantees: the agent's next tool call to this process is 401 (the tokens' deletion
    empties its remembered grants, agents.grants); other processes refuse the tokens
    within API_KEY_CACHE_SECONDS, as they do a revoked API key.
    """
    refreshes = get_refresh_token_model().objects.filter(
        user=user, application_id=application_id, revoked__isnull=True
    )
    revoked = refreshes.update(revoked=timezone.now())
    deleted, _ = (
        get_access_token_model().objects.filter(user=user, application_id=application_id).delete()
    )
    return revoked + deleted
