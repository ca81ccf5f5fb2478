"""A revoked position token ends on every process at once (contract 6, issue 35).

Each process remembers a verified position token for ``POSITIONS_TOKEN_CACHE_SECONDS``
(``drivers.positions.credentials``), so that a report reads nothing from the database.
Emptying that memory in the process where a token ends (a log-out, a password change, a
deactivated login, a tracker re-registered or removed) left every other process, the
ingest's above all, taking the token for up to two minutes. So the process where a token
ends also writes a revocation marker into the shared cache (Redis in production, which
every web, MCP and ingest process reads), keyed by the SHA-256 of the token; each
remembered token is checked against it on every hit (one ``GET``), and a marked token is
forgotten and read again from the database, which decides.

The marker lives twice ``POSITIONS_TOKEN_CACHE_SECONDS``: longer than any process can have
remembered the token before it ended, even one that read it just before the revocation
committed. With the cache unreachable a hit counts as revoked (the database decides, as
on a miss): a revocation is never missed for want of the marker. A marker that cannot be
written is logged; the database has already ended the token, so the other processes stop
taking it within their expiry.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable

from django.conf import settings
from django.core.cache import cache
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token

from drivers.models import TrackerDevice
from guards.ratelimits import CACHE_DOWN

logger = logging.getLogger(__name__)

MARKER_PREFIX = "pos-token-revoked:"


def token_digest(token: str) -> str:
    """The SHA-256 hex of a token: what the markers, the credential cache and the tracker
    devices' stored digests all key on."""
    return hashlib.sha256(token.encode()).hexdigest()


def position_tokens_revoke(digests: Iterable[str]) -> None:
    """Mark these tokens (by digest) revoked for every process."""
    markers = {MARKER_PREFIX + digest: 1 for digest in digests if digest}
    seconds = 2 * int(settings.POSITIONS_TOKEN_CACHE_SECONDS)
    if not markers or seconds <= 0:
        return
    try:
        cache.set_many(markers, timeout=seconds)
    except CACHE_DOWN as exc:
        logger.warning(
            "position token revocation not shared (%s): other processes stop taking "
            "the token within POSITIONS_TOKEN_CACHE_SECONDS",
            type(exc).__name__,
        )


def position_token_not_revoked(digest: str) -> bool:
    """Whether a remembered token may still be used without reading the database."""
    try:
        return cache.get(MARKER_PREFIX + digest) is None
    except CACHE_DOWN:
        return False


@receiver(post_delete, sender=Token)
def _app_token_ended(sender, instance: Token, **kwargs) -> None:
    # Every way an app token ends deletes it (drivers.tokens): a log-out, a password
    # change, a deactivated login, a new login, a deletion in the back office.
    position_tokens_revoke([token_digest(instance.key)])


@receiver(post_delete, sender=TrackerDevice)
def _device_removed(sender, instance: TrackerDevice, **kwargs) -> None:
    position_tokens_revoke([instance.token_digest])


@receiver(pre_save, sender=TrackerDevice)
def _device_token_replaced(sender, instance: TrackerDevice, **kwargs) -> None:
    if instance.pk is None:
        return
    stored = sender.objects.filter(pk=instance.pk).values_list("token_digest", flat=True).first()
    if stored and stored != instance.token_digest:
        position_tokens_revoke([stored])


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def _login_deactivated(sender, instance, **kwargs) -> None:
    """A deactivated login's tracker devices stop reporting too (its app tokens are
    deleted by ``drivers.tokens``)."""
    if instance.is_active:
        return
    digests = TrackerDevice.objects.filter(driver__user_id=instance.pk).values_list(
        "token_digest", flat=True
    )
    position_tokens_revoke(list(digests))
