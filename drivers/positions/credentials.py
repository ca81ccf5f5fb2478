"""Who is reporting a position: the driver app's token or a tracker device's token,
checked once and remembered per process (``core.credential_cache``) for
``POSITIONS_TOKEN_CACHE_SECONDS``, so a report reads nothing from the database.

A token, a user, a vehicle or a device saved or deleted in this process empties the cache
at once (the driver's vehicle classes are part of what is remembered: they name the index
keys). A token that ends (log-out, password change, deactivated login, tracker replaced)
ends on every other process at once too: each remembered token is checked against the
revocation markers in the shared cache (``drivers.positions.revocations``). A vehicle
change reaches other processes within the expiry.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Q
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from rest_framework.authtoken.models import Token

from core.credential_cache import CredentialCache
from core.errors import DomainError
from drivers.models import Driver, TrackerDevice, Vehicle
from drivers.positions.revocations import position_token_not_revoked, token_digest
from drivers.tokens import driver_token_expires_at


@dataclass(frozen=True)
class PositionCredential:
    """A verified reporter: the driver (None for a login that is not a driver's), the
    classes of their active vehicles, and the tracker device's identifier if one."""

    driver_id: int | None
    vehicle_classes: tuple[str, ...]
    device_id: str = ""
    # An app token's end (drivers.tokens); a tracker device's token does not expire.
    expires_at: datetime | None = None


_app_tokens: CredentialCache[PositionCredential] = CredentialCache(
    max_entries=200_000, ttl_setting="POSITIONS_TOKEN_CACHE_SECONDS"
)
_device_tokens: CredentialCache[PositionCredential] = CredentialCache(
    max_entries=200_000, ttl_setting="POSITIONS_TOKEN_CACHE_SECONDS"
)


@receiver([post_save, post_delete], sender=Token)
@receiver([post_save, post_delete], sender=settings.AUTH_USER_MODEL)
@receiver([post_save, post_delete], sender=Vehicle)
@receiver([post_save, post_delete], sender=TrackerDevice)
def position_credentials_forget(**kwargs) -> None:
    _app_tokens.clear()
    _device_tokens.clear()


def _vehicle_classes(driver_id: int | None) -> tuple[str, ...]:
    if driver_id is None:
        return ()
    classes = Vehicle.objects.filter(driver_id=driver_id, active=True).values_list(
        "vehicle_class", flat=True
    )
    return tuple(sorted(set(classes)))


def _unauthenticated(detail: str) -> DomainError:
    return DomainError("unauthenticated", detail)


def _app_token_read(key: str) -> PositionCredential:
    # One query: the token's driver and the class of each of their vehicles (a row each).
    rows = list(
        Token.objects.filter(key=key, user__is_active=True).values_list(
            "user__driver__id",
            "user__driver__vehicles__vehicle_class",
            "user__driver__vehicles__active",
            "created",
        )
    )
    if not rows:
        raise _unauthenticated("Invalid token.")
    classes = tuple(sorted({code for _, code, active, _ in rows if code and active}))
    return PositionCredential(
        driver_id=rows[0][0],
        vehicle_classes=classes,
        expires_at=driver_token_expires_at(rows[0][3]),
    )


def _nothing() -> None:
    return None


def _read(load, before_read: Callable[[], None] = _nothing):
    """``load()`` after ``before_read()`` (which may refuse: the ingest's limit of failed
    tokens per address, so a refused guess costs no read); 503 ``service_unavailable``
    when the database does not answer."""
    before_read()
    try:
        return load()
    except DatabaseError as exc:
        raise DomainError(
            "service_unavailable",
            "Reports cannot be checked right now; send them again shortly.",
            extra={"retryAfter": 5},
        ) from exc


def app_token_credential(
    key: str, *, before_read: Callable[[], None] = _nothing
) -> PositionCredential:
    """The reporter behind a driver app token (``/v1/driver/login``); 401
    ``unauthenticated`` for an unknown token or an inactive login. ``before_read`` runs
    before the database is read for a token not remembered."""
    if not key or len(key) > 128:
        raise _unauthenticated("Invalid token.")
    credential = _app_tokens.get(
        key,
        lambda: _read(lambda: _app_token_read(key), before_read),
        still_good=position_token_not_revoked,
    )
    # It may have expired while remembered (contract 6: tokens end).
    if credential.expires_at is not None and credential.expires_at <= timezone.now():
        raise _unauthenticated("Token expired: log in again.")
    return credential


def device_token_digest(token: str) -> str:
    return token_digest(token)


def _device_token_read(token: str) -> PositionCredential:
    device = (
        TrackerDevice.objects.filter(token_digest=device_token_digest(token))
        # A driver without a login of their own reports through the tracker alone.
        .filter(Q(driver__user__isnull=True) | Q(driver__user__is_active=True))
        .values_list("driver_id", "device_id")
        .first()
    )
    if device is None:
        raise _unauthenticated("Unknown tracker token.")
    driver_id, device_id = device
    return PositionCredential(
        driver_id=driver_id, vehicle_classes=_vehicle_classes(driver_id), device_id=device_id
    )


def device_token_credential(
    token: str, *, device_id: str, before_read: Callable[[], None] = _nothing
) -> PositionCredential:
    """The reporter behind a tracker device's token, when the request names the same
    device; 401 ``unauthenticated`` otherwise. ``before_read`` as for
    :func:`app_token_credential`."""
    if not token or len(token) > 128:
        raise _unauthenticated("Unknown tracker token.")
    credential = _device_tokens.get(
        token,
        lambda: _read(lambda: _device_token_read(token), before_read),
        still_good=position_token_not_revoked,
    )
    if not secrets.compare_digest(credential.device_id.encode(), device_id.encode()):
        raise _unauthenticated("This token belongs to another device identifier.")
    return credential


def tracker_device_register(*, driver: Driver, device_id: str) -> tuple[TrackerDevice, str]:
    """Register the driver's tracking app (Traccar Client) by its device identifier, or
    give a registered one a new token; returns the device and the raw token, shown once.
    The identifier is the app's own (its settings show it); 1-64 letters, digits, ``-_.``."""
    device_id = device_id.strip()
    if not (0 < len(device_id) <= 64) or not all(c.isalnum() or c in "-_." for c in device_id):
        raise DomainError(
            "invalid_input",
            "A device identifier is 1-64 letters, digits, '-', '_' or '.'.",
            errors={"device_id": ["1-64 letters, digits, '-', '_' or '.'."]},
        )
    token = secrets.token_urlsafe(24)
    taken = TrackerDevice.objects.filter(device_id=device_id).exclude(driver=driver).exists()
    if taken:
        raise DomainError(
            "invalid_input",
            "That device identifier is registered to another driver.",
            errors={"device_id": ["Registered to another driver."]},
        )
    device, _ = TrackerDevice.objects.update_or_create(
        device_id=device_id,
        defaults={"driver": driver, "token_digest": device_token_digest(token)},
    )
    return device, token
