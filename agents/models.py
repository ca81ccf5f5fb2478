"""Sign-in by emailed one-time code, for passengers who authorize an AI agent.

The OAuth clients, grants and tokens themselves are django-oauth-toolkit's models; a
passenger is a Django user whose username is derived from their email (agents.services).
"""

from __future__ import annotations

from django.db import models


class SignInCode(models.Model):
    """A 6-digit code emailed to ``email``; only its keyed hash is stored."""

    email = models.EmailField(db_index=True)
    code_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Sign-in code for {self.email}"
