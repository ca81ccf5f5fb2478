"""The driver app's tokens (contract 6): one home for when a token starts and ends.

- Each login issues a new token; the previous one ends (DRF keeps one token per login).
- A password change, a log-out (the driver pages' or the app's) or a deactivated login
  ends the token; every process stops taking it at once
  (``drivers.positions.revocations``).
- A token older than ``DRIVER_TOKEN_MAX_AGE_HOURS`` no longer authenticates: the app
  logs in again.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_out
from django.db import transaction
from django.db.models.signals import pre_save
from django.dispatch import receiver
from django.utils import timezone
from rest_framework.authtoken.models import Token


def driver_token_issue(*, user) -> Token:
    """A new token for the driver's app at login; any earlier token of this login ends.

    Guarantees: the login's row is locked while the old token is deleted and the new one
    created, so concurrent logins each end with one token and never a duplicate-key error.
    """
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def driver_tokens_end(*, user) -> int:
    """End every app token of this login (log-out, password change); how many ended."""
    if user is None or user.pk is None:
        return 0
    deleted, _ = Token.objects.filter(user_id=user.pk).delete()
    return deleted


def driver_token_expires_at(created: dt.datetime) -> dt.datetime:
    """When a token issued at ``created`` stops working (``DRIVER_TOKEN_MAX_AGE_HOURS``)."""
    return created + dt.timedelta(hours=settings.DRIVER_TOKEN_MAX_AGE_HOURS)


def driver_token_expired(token: Token, *, now: dt.datetime | None = None) -> bool:
    """Whether the token is past ``DRIVER_TOKEN_MAX_AGE_HOURS`` since it was issued."""
    return driver_token_expires_at(token.created) <= (now or timezone.now())


@receiver(user_logged_out)
def _tokens_end_at_logout(sender, request, user, **kwargs) -> None:
    driver_tokens_end(user=user)


@receiver(pre_save, sender=settings.AUTH_USER_MODEL)
def _tokens_end_at_password_change(sender, instance, update_fields=None, **kwargs) -> None:
    """A saved password that differs from the stored one, or a login saved inactive, ends
    the login's tokens (one read, and none for saves that write neither, such as
    ``last_login``)."""
    if instance.pk is None or (
        update_fields is not None and not {"password", "is_active"} & set(update_fields)
    ):
        return
    stored = sender.objects.filter(pk=instance.pk).values_list("password", "is_active").first()
    if stored is None:
        return
    password, was_active = stored
    if password != instance.password or (was_active and not instance.is_active):
        driver_tokens_end(user=instance)
