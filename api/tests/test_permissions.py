"""Who may use which door, as the views declare it (``api.permissions``, issue 38): each
role against every other role's actions, with the contract's problems (401
unauthenticated; 403 permission_denied for a login that is not a driver's; 403
partner_not_allowed for an agent's flight report)."""

from __future__ import annotations

import pytest

from drivers.tests.factories import DriverFactory, UserFactory
from drivers.tokens import driver_token_issue
from partners.authentication import supplier_key_header
from partners.tests.factories import partner_job

pytestmark = pytest.mark.django_db

SENDERS = {"partner", "operator", "supplier"}
ACCOUNT_KINDS = (*sorted(SENDERS), "agent")
ROLES = ("anonymous", *ACCOUNT_KINDS, "driver", "login_not_driver")
REFUSALS = {"unauthenticated", "permission_denied", "partner_not_allowed"}
SUPPLIER_SLUG = "acme-coaches"

# door: (method, path, body, the roles it lets in, {role: the problem code it refuses with})
DOORS = {
    "partner intake": ("post", "/api/public/v1/jobs", partner_job(), {"partner"}, {}),
    "operator intake": ("post", "/api/public/v1/operator/jobs", partner_job(), {"operator"}, {}),
    "supplier intake": (
        "post",
        f"/api/public/hooks/{SUPPLIER_SLUG}-booking",
        partner_job(),
        {"supplier"},
        {},
    ),
    "reconcile a job": ("get", "/api/public/v1/jobs/NO-SUCH-JOB", None, SENDERS, {}),
    "jobs changed": (
        "get",
        "/api/public/v1/jobs?updatedSince=2026-01-01T00:00:00Z",
        None,
        SENDERS,
        {},
    ),
    "report a status": ("post", "/api/public/hooks/booking-status", {}, SENDERS, {}),
    "report a flight": (
        "post",
        "/api/public/v1/flights/status",
        {},
        SENDERS,
        {"agent": "partner_not_allowed"},
    ),
    "driver's feed": (
        "get",
        "/api/public/v1/jobs",
        None,
        {"driver"},
        {"login_not_driver": "permission_denied"},
    ),
    "driver's earnings": (
        "get",
        "/api/public/v1/driver/earnings",
        None,
        {"driver"},
        {"login_not_driver": "permission_denied"},
    ),
    "driver's subscription": (
        "get",
        "/api/public/v1/driver/subscription",
        None,
        {"driver"},
        {"login_not_driver": "permission_denied"},
    ),
}


def _credentials(role: str, make_account) -> dict[str, str]:
    if role == "anonymous":
        return {}
    if role in ACCOUNT_KINDS:
        slug = SUPPLIER_SLUG if role == "supplier" else None
        account = make_account(role, name=f"The {role}", slug=slug, approved=True)
        headers = {"HTTP_X_API_KEY": account.raw_key}
        if role == "supplier":
            headers[supplier_key_header(account.slug)] = account.raw_key
        return headers
    user = DriverFactory(user=UserFactory()).user if role == "driver" else UserFactory()
    return {"HTTP_AUTHORIZATION": f"Token {driver_token_issue(user=user).key}"}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("door", DOORS)
def test_each_door_lets_in_its_roles_and_refuses_the_others(api_client, make_account, door, role):
    method, path, body, allowed, refusals = DOORS[door]
    if door == "supplier intake" and role != "supplier":
        make_account("supplier", name="Acme Coaches", slug=SUPPLIER_SLUG, approved=True)
    headers = _credentials(role, make_account)

    response = getattr(api_client, method)(path, body, format="json", **headers)

    code = response.json().get("code") if response.content else None
    if role in allowed:
        assert response.status_code != 401
        assert code not in REFUSALS
    else:
        expected = refusals.get(role, "unauthenticated")
        assert code == expected, response.content
        assert response.status_code == (401 if expected == "unauthenticated" else 403)
