"""Issue 35, finding 1: staff who may only view cannot act. Every registered admin declares
what each action needs, adds no custom view, and a view-only user neither sees an action
that changes anything nor gets one done by posting it (403)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_permission_codename, get_user_model
from django.contrib.auth.management import create_permissions
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.urls import reverse

from core.admin_actions import ActionPermissionsMixin, admin_action_names
from core.testing.sources import project_packages
from partners.models import AccountKey
from partners.tests.factories import AccountFactory

REGISTERED = sorted(admin.site._registry.items(), key=lambda item: item[0]._meta.label)


def _declared_actions(model_admin):
    for name in sorted(admin_action_names(model_admin)):
        func, _, _ = model_admin.get_action(name)
        yield name, func


ACTIONS_NOT_ONLY_VIEW = [
    pytest.param(model, name, id=f"{model._meta.label}.{name}")
    for model, model_admin in REGISTERED
    for name, func in _declared_actions(model_admin)
    if set(getattr(func, "allowed_permissions", ())) != {"view"}
]


@pytest.mark.parametrize(("model", "model_admin"), REGISTERED, ids=lambda v: str(v))
def test_every_admin_refuses_actions_it_does_not_allow(model, model_admin):
    assert isinstance(model_admin, ActionPermissionsMixin), (
        f"{type(model_admin).__name__} must derive from core.admin_actions.BackOfficeAdmin"
    )


def _as_written(model_admin) -> type:
    """The admin class as its package wrote it: operations.admin registers each admin that
    lacks the action rule again as a subclass of it, which would hide a project admin that
    forgot it (EstimatedTariffAdmin did)."""
    cls = type(model_admin)
    return cls.__bases__[-1] if cls.__module__ == "operations.admin" else cls


@pytest.mark.parametrize(("model", "model_admin"), REGISTERED, ids=lambda v: str(v))
def test_every_project_admin_is_written_on_the_back_office_base(model, model_admin):
    written = _as_written(model_admin)
    if written.__module__.split(".")[0] not in project_packages():
        return  # a third-party admin: operations.admin adds the rule to it
    assert issubclass(written, ActionPermissionsMixin), (
        f"{written.__module__}.{written.__name__} must derive from "
        "core.admin_actions.BackOfficeAdmin"
    )


@pytest.mark.parametrize(("model", "model_admin"), REGISTERED, ids=lambda v: str(v))
def test_every_action_declares_its_permissions(model, model_admin):
    for name, func in _declared_actions(model_admin):
        permissions = getattr(func, "allowed_permissions", ())
        assert permissions, f"{model._meta.label} action {name!r} declares no permissions"
        for permission in permissions:
            assert callable(getattr(model_admin, f"has_{permission}_permission", None)), (
                f"{model._meta.label} action {name!r}: no has_{permission}_permission"
            )


# Custom admin views known to check a permission themselves, each tested below.
CUSTOM_VIEWS_CHECKED = {"auth_user_password_change", "pricing_tariffsubmission_photo"}


@pytest.mark.parametrize(("model", "model_admin"), REGISTERED, ids=lambda v: str(v))
def test_no_admin_adds_a_view_without_a_tested_check(model, model_admin):
    # A custom admin URL skips the action machinery: it needs its own permission check and
    # a test here.
    stock = {p.name for p in admin.ModelAdmin(model, admin.site).get_urls()}
    extra = {p.name for p in model_admin.get_urls()} - stock - CUSTOM_VIEWS_CHECKED
    assert not extra, f"{model._meta.label}: custom admin views {extra} need a permission check"


def _view_only_staff(client, model):
    create_permissions(model._meta.app_config, verbosity=0)
    user = get_user_model().objects.create_user("viewer", password="view-only-1", is_staff=True)
    content_type = ContentType.objects.get_for_model(model, for_concrete_model=False)
    codename = get_permission_codename("view", model._meta)
    user.user_permissions.add(Permission.objects.get(content_type=content_type, codename=codename))
    client.force_login(user)
    return user


@pytest.mark.django_db
@pytest.mark.parametrize(("model", "name"), ACTIONS_NOT_ONLY_VIEW)
def test_view_only_staff_see_no_action_that_changes_and_get_403(client, model, name):
    # given staff holding only the model's view permission
    _view_only_staff(client, model)
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")

    # when they open the list, the action is not offered
    listing = client.get(url)
    assert listing.status_code == 200
    action_form = listing.context.get("action_form")
    offered = {value for value, _ in action_form.fields["action"].choices} if action_form else set()
    assert name not in offered

    # and when they post it anyway, it is refused
    response = client.post(url, {"action": name, "index": "0", "_selected_action": ["1"]})
    assert response.status_code == 403


@pytest.mark.django_db
def test_view_only_staff_cannot_issue_a_partner_api_key(client):
    # given an account and staff who may only view accounts
    account = AccountFactory()
    _view_only_staff(client, type(account))
    keys_before = AccountKey.objects.count()

    # when they post the "issue a key" action for it
    response = client.post(
        reverse("admin:partners_account_changelist"),
        {"action": "issue_key", "index": "0", "_selected_action": [account.pk]},
    )

    # then it is refused and no key exists
    assert response.status_code == 403
    assert AccountKey.objects.count() == keys_before


@pytest.mark.django_db
def test_staff_with_the_permission_still_issue_a_key(client):
    account = AccountFactory()
    user = _view_only_staff(client, type(account))
    user.user_permissions.add(Permission.objects.get(codename="add_accountkey"))
    keys_before = AccountKey.objects.count()

    response = client.post(
        reverse("admin:partners_account_changelist"),
        {"action": "issue_key", "index": "0", "_selected_action": [account.pk]},
    )

    assert response.status_code == 302
    assert AccountKey.objects.count() == keys_before + 1


@pytest.mark.django_db
def test_view_only_staff_cannot_set_a_users_password(client):
    # given staff who may only view users
    user_model = get_user_model()
    _view_only_staff(client, user_model)
    other = user_model.objects.create_user("someone", password="unchanged-1")

    # when they post a new password through the user admin's own view
    response = client.post(
        reverse("admin:auth_user_password_change", args=[other.pk]),
        {"password1": "Taken-over-99", "password2": "Taken-over-99"},
    )

    # then it is refused and the password stands
    assert response.status_code == 403
    other.refresh_from_db()
    assert other.check_password("unchanged-1")


@pytest.mark.django_db
def test_a_submitted_tables_photo_is_shown_only_to_staff_who_may_view_submissions(client):
    # given a table sent in by the trade (pricing.admin.TariffSubmissionAdmin.photo_view)
    import datetime as dt

    from django.core.files.base import ContentFile

    from pricing.models import TariffSubmission

    sender = get_user_model().objects.create_user("sender", password="sender-pass-1")
    submission = TariffSubmission(
        authority="Birmingham City Council",
        effective_from=dt.date(2026, 1, 1),
        figures={"bands": []},
        photo_type="application/pdf",
        photo_sha256="0" * 64,
        submitter_kind="driver",
        submitter_name="A driver",
        submitted_by=sender,
    )
    submission.photo.save("t.pdf", ContentFile(b"%PDF-1.4\n%%EOF\n"), save=False)
    submission.save()
    url = reverse("admin:pricing_tariffsubmission_photo", args=[submission.pk])
    # staff without the view permission are refused; with it, they see the file
    staff = get_user_model().objects.create_user("staff", password="staff-pass-1", is_staff=True)
    client.force_login(staff)
    assert client.get(url).status_code == 403
    _view_only_staff(client, TariffSubmission)
    assert client.get(url).status_code == 200
