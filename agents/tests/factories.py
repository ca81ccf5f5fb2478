"""Factories for the agents app: the OAuth clients an AI assistant registers as, and the
emailed sign-in codes (only their keyed hash is stored, as agents.services keeps it)."""

from __future__ import annotations

from datetime import timedelta

import factory
from django.utils import timezone
from factory.django import DjangoModelFactory
from oauth2_provider.models import Application

from agents.models import SignInCode
from agents.services import _code_hash


class ApplicationFactory(DjangoModelFactory):
    """A public OAuth client using the authorization-code flow, as dynamic registration
    creates one (no redirect URI unless a test gives one)."""

    class Meta:
        model = Application

    name = "Claude (test)"
    client_type = Application.CLIENT_PUBLIC
    authorization_grant_type = Application.GRANT_AUTHORIZATION_CODE


class SignInCodeFactory(DjangoModelFactory):
    """An unused sign-in code ``code`` for ``email``, valid for ten minutes."""

    class Meta:
        model = SignInCode

    class Params:
        code = "123456"

    email = factory.Sequence(lambda n: f"passenger{n}@example.co.uk")
    code_hash = factory.LazyAttribute(lambda o: _code_hash(o.email, o.code))
    expires_at = factory.LazyFunction(lambda: timezone.now() + timedelta(minutes=10))
