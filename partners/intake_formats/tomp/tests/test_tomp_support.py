"""TOMP support: a provider raises a request on its committed booking (``POST /support/``),
staff answer it in the back office, and the provider reads its status
(``GET /support/{id}/status``), each body in the specification's shapes."""

from __future__ import annotations

import pytest

from partners.intake_formats.tomp.tests.spec import assert_tomp
from partners.intake_formats.tomp.tests.test_tomp_door import client_for, event, hold, plan
from partners.models import SupportRequest

pytestmark = pytest.mark.django_db

REQUEST = {
    "supportType": "NOT_AT_LOCATION",
    "priority": "ERROR_CAN_CONTINUE",
    "comment": "The taxi is not at the station's front entrance.",
    "time": "2026-11-27T18:00:00Z",
}


@pytest.fixture
def provider(make_account):
    return make_account("partner", name="MaaS One", intake_format="tomp")


@pytest.fixture
def committed(tariffs, provider):
    client = client_for(provider.raw_key)
    option_id = plan(client)
    assert hold(client, option_id).status_code == 201
    assert event(client, option_id, "COMMIT").status_code == 200
    return client, option_id


def test_a_request_on_a_committed_booking_is_kept_processing_for_staff(committed, provider):
    client, option_id = committed
    # when the provider asks for support on its booking
    response = client.post("/api/tomp/support/", {"id": option_id, **REQUEST}, format="json")
    # then it is acknowledged in TOMP's supportStatus, processing, and kept for staff
    assert response.status_code == 200, response.content
    body = response.json()
    assert_tomp(body, "supportStatus")
    assert (body["id"], body["status"], body["order"]) == (option_id, "PROCESSING", 0)
    support = SupportRequest.objects.get()
    assert (support.account, support.booking.job_ref) == (provider, f"TOMP-{option_id}")
    assert (support.support_type, support.priority) == ("NOT_AT_LOCATION", "ERROR_CAN_CONTINUE")


def test_staff_answer_in_the_back_office_and_the_provider_reads_it(committed, admin_client):
    client, option_id = committed
    client.post("/api/tomp/support/", {"id": option_id, **REQUEST}, format="json")
    support = SupportRequest.objects.get()
    # given staff see it listed
    listing = admin_client.get("/admin/partners/supportrequest/?status=PROCESSING")
    assert listing.status_code == 200
    assert f"/admin/partners/supportrequest/{support.pk}/change/" in listing.content.decode()
    assert (
        admin_client.get(f"/admin/partners/supportrequest/{support.pk}/change/").status_code == 200
    )
    # when they resolve it with a reply
    saved = admin_client.post(
        f"/admin/partners/supportrequest/{support.pk}/change/",
        {"status": "RESOLVED", "reply": "The driver is at the side entrance."},
    )
    assert saved.status_code == 302, saved.content.decode()[:2000]
    # then the provider reads the new status, one step on, with the reply
    response = client.get(f"/api/tomp/support/{option_id}/status")
    assert response.status_code == 200
    [status] = response.json()
    assert_tomp(status, "supportStatus")
    assert (status["status"], status["order"]) == ("RESOLVED", 1)
    assert status["comment"] == "The driver is at the side entrance."


def test_support_needs_a_committed_booking_of_ones_own(tariffs, provider, make_account):
    client = client_for(provider.raw_key)
    option_id = plan(client)
    # an option not committed: nothing to support
    held = client.post("/api/tomp/support/", {"id": option_id, **REQUEST}, format="json")
    assert held.status_code == 404
    assert held.json()["errorcode"] == 5204
    # another provider's booking: not found either, in both directions
    other = client_for(make_account("partner", name="Other", intake_format="tomp").raw_key)
    assert other.get(f"/api/tomp/support/{option_id}/status").status_code == 404
    # and without a booking id the request is TOMP's 400
    missing = client.post("/api/tomp/support/", REQUEST, format="json")
    assert missing.status_code == 400
    assert SupportRequest.objects.count() == 0
