"""The Suntransfers door (ST SPEC v1): this service as a Suntransfers supplier.

Bodies here are built the way the spec's examples are (a Manchester airport pickup to a
hotel, and back), with times relative to the test's clock."""

from __future__ import annotations

import base64
from datetime import timedelta

import pytest
from django.utils import timezone

from bookings.models import Booking, BookingStatus
from partners.models import Account, AccountKey, IntakeFormat

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("tariffs")]

BASE = "/api/suppliers/suntransfers/v1/bookings"


@pytest.fixture
def marketplace(make_account):
    account = make_account("supplier", name="Suntransfers")
    Account.objects.filter(pk=account.pk).update(intake_format=IntakeFormat.ST_SPEC_V1)
    account.intake_format = IntakeFormat.ST_SPEC_V1
    return account


def basic(account) -> dict:
    token = base64.b64encode(f"{account.slug}:{account.raw_key}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}


def location(name, kind, **extra):
    return {
        "name": name,
        "translatedName": name,
        "id": "1234" if kind == "Gateway" else "4321",
        "type": kind,
        "countryCode": "UK",
        "latitude": 53.36,
        "longitude": -2.27,
        **extra,
    }


def transfer(*, days=3, status="Created", outbound=True, total=3, rate=34.4):
    when = (timezone.localtime() + timedelta(days=days)).replace(microsecond=0).isoformat()
    airport = location("Manchester airport", "Gateway", gatewayCode="MAN")
    town = location("Manchester", "Resort")
    leg = {
        "status": status,
        "origin": airport if outbound else town,
        "destination": town if outbound else airport,
        "vehicle": {
            "code": "premtx4",
            "type": "taxi",
            "title": "Premium Taxi",
            "isShared": False,
            "isWheelchairAccessible": False,
            "maxPassengers": 4,
        },
        "passengers": {"adults": 1, "children": 2, "infants": 0, "total": total, "ages": [2, 3]},
        "accommodation": {
            "type": "Hotel",
            "name": "Hotel Football",
            "addressParts": ["Sir Matt Busby Way, Stretford", "Manchester M16 0SZ"],
        },
        "transferDateTime": when,
        "pickupDateTime": when,
        "extras": [
            {
                "id": "5",
                "name": "Child booster seat (2+ years)",
                "translatedName": "Child booster seat (2+ years)",
                "quantity": 2,
                "unitRate": 5.95,
            }
        ],
        "price": {"baseRate": rate - 11.9, "extras": 11.9, "totalRate": rate},
    }
    if outbound:
        leg["fromFlight"] = {"airline": "British Airways", "flightNumber": "BA2468"}
    return leg


LEAD = {
    "firstName": "Ada",
    "lastName": "Lovelace",
    "email": "ada.lovelace@example.co.uk",
    "phoneNumber": "+447700900123",
}


def create_body(reference="SUNTR_AB1234", legs=None):
    return {
        "bookingReference": reference,
        "leadPassenger": LEAD,
        "transfers": legs if legs is not None else [transfer(), transfer(days=7, outbound=False)],
    }


def test_a_new_round_trip_is_two_sender_priced_jobs(client, marketplace):
    response = client.post(
        BASE, create_body(), content_type="application/json", **basic(marketplace)
    )

    assert response.status_code == 201, response.content
    assert response.json() == {
        "bookingReference": "SUNTR_AB1234",
        "supplierReferences": ["SUNTR_AB1234/1", "SUNTR_AB1234/2"],
    }
    outbound, back = Booking.objects.filter(account=marketplace).order_by("job_ref")
    assert (outbound.job_ref, str(outbound.fare), outbound.passengers) == (
        "SUNTR_AB1234/1",
        "34.40",
        3,
    )
    assert outbound.flight_number == "BA2468"
    assert outbound.passenger_phone == "+447700900123"
    assert "2 x Child booster seat" in outbound.notes
    assert "Accommodation: Hotel Football" in back.notes


def test_a_repeated_create_books_nothing_new(client, marketplace):
    for _ in range(2):
        response = client.post(
            BASE, create_body(), content_type="application/json", **basic(marketplace)
        )
        assert response.status_code == 201
    assert Booking.objects.filter(account=marketplace).count() == 2


def test_a_refused_leg_refuses_the_booking_and_books_neither(client, marketplace):
    body = create_body(legs=[transfer(), transfer(days=-3, outbound=False)])
    response = client.post(BASE, body, content_type="application/json", **basic(marketplace))

    assert response.status_code == 400
    problem = response.json()
    assert problem["type"] == "validation-error"
    assert problem["status"] == 400
    assert "transfer 2" in problem["detail"]
    assert problem["instance"].endswith(BASE)
    assert not Booking.objects.filter(account=marketplace).exists()


def test_a_body_the_spec_does_not_allow_is_400(client, marketplace):
    body = create_body()
    body["transfers"][0]["passengers"]["total"] = "3"
    response = client.post(BASE, body, content_type="application/json", **basic(marketplace))
    assert response.status_code == 400
    assert "transfers.0.passengers.total" in response.json()["detail"]


def test_amend_then_cancel_then_read_back(client, marketplace):
    client.post(BASE, create_body(), content_type="application/json", **basic(marketplace))
    amended = {
        "leadPassenger": LEAD,
        "modificationType": "Amendment",
        "transfers": [transfer(total=2), transfer(days=7, outbound=False, status="Cancelled")],
    }
    response = client.put(
        f"{BASE}/SUNTR_AB1234", amended, content_type="application/json", **basic(marketplace)
    )
    assert response.status_code == 200, response.content
    state = client.get(f"{BASE}/SUNTR_AB1234", **basic(marketplace)).json()
    assert state["status"] == "PartiallyCancelled"
    assert [t["status"] for t in state["transfers"]] == ["Modified", "Cancelled"]

    cancel = {"cancellationAuthor": "Customer", "leadPassenger": LEAD, "transfers": []}
    response = client.generic(
        "DELETE", f"{BASE}/SUNTR_AB1234", data=__import__("json").dumps(cancel),
        content_type="application/json", **basic(marketplace),
    )  # fmt: skip
    assert response.status_code == 200, response.content
    assert set(Booking.objects.values_list("status", flat=True)) == {BookingStatus.CANCELLED}
    assert client.get(f"{BASE}/SUNTR_AB1234", **basic(marketplace)).json()["status"] == "Cancelled"


def test_put_creates_a_booking_it_has_not_seen(client, marketplace):
    body = {"leadPassenger": LEAD, "modificationType": "Amendment", "transfers": [transfer()]}
    response = client.put(
        f"{BASE}/SUNTR_NEW1", body, content_type="application/json", **basic(marketplace)
    )
    assert response.status_code == 201
    assert response.json()["supplierReferences"] == ["SUNTR_NEW1/1"]


def test_an_unknown_booking_is_404_where_the_spec_has_one(client, marketplace):
    response = client.get(f"{BASE}/SUNTR_NONE", **basic(marketplace))
    assert response.status_code == 404
    assert response.json()["type"] == "resource-not-found"


@pytest.mark.parametrize(
    "authorization",
    [None, "Basic bm9wZQ==", "Bearer x", "Basic !!!"],
)
def test_credentials_other_than_the_marketplaces_are_401_without_details(
    client, marketplace, authorization
):
    headers = {"HTTP_AUTHORIZATION": authorization} if authorization else {}
    response = client.post(BASE, create_body(), content_type="application/json", **headers)
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid credentials."
    assert response["Content-Type"] == "application/json"


def test_a_partnerjob_supplier_key_does_not_open_this_door(client, make_account):
    other = make_account("supplier", name="Other Supplier")
    response = client.post(BASE, create_body(), content_type="application/json", **basic(other))
    assert response.status_code == 401


def test_an_st_account_cannot_push_partnerjobs(client, marketplace):
    job = {"jobRef": "X-1", "pickup": "MAN", "dropoff": "Manchester",
           "pickupTime": (timezone.now() + timedelta(days=2)).isoformat()}  # fmt: skip
    response = client.post(
        f"/api/public/hooks/{marketplace.slug}-booking", job, content_type="application/json",
        **{f"HTTP_X_{marketplace.slug.upper().replace('-', '_')}_SECRET": marketplace.raw_key},
    )  # fmt: skip
    assert response.status_code == 403
    assert AccountKey.objects.filter(account=marketplace).exists()


def test_driver_moves_are_the_legs_events(client, marketplace):
    from bookings.services import booking_status_change

    client.post(BASE, create_body(), content_type="application/json", **basic(marketplace))
    booking = Booking.objects.get(job_ref="SUNTR_AB1234/1")
    for status in (BookingStatus.OFFERED, BookingStatus.ACCEPTED, BookingStatus.EN_ROUTE):
        booking = booking_status_change(booking=booking, to_status=status, actor="test")

    response = client.get(f"{BASE}/SUNTR_AB1234/events?leg=1&sort=Desc", **basic(marketplace))

    assert response.status_code == 200, response.content
    assert [e["eventType"] for e in response.json()["items"]] == ["DriverDepartedToPickup"]
    missing_leg = client.get(f"{BASE}/SUNTR_AB1234/events?leg=3&sort=Asc", **basic(marketplace))
    assert missing_leg.status_code == 400


def test_a_quote_is_priced_by_the_booking_apis_rules(client, marketplace):
    body = {
        "transfers": [
            {
                "origin": location("Manchester airport", "Gateway", gatewayCode="MAN"),
                "destination": location("Manchester", "Resort", addressParts=["Manchester"]),
                "vehicle": transfer()["vehicle"],
                "passengers": {"adults": 2, "children": 0, "infants": 0, "total": 2},
                "transferDateTime": transfer()["transferDateTime"],
            }
        ]
    }
    response = client.post(
        "/api/suppliers/suntransfers/v1/quotes",
        body,
        content_type="application/json",
        **basic(marketplace),
    )
    assert response.status_code == 201, response.content
    quote = response.json()["transfers"][0]["quotes"][0]
    assert quote["price"]["totalRate"] == quote["price"]["baseRate"] > 0
    assert quote["validUntilUtc"].endswith("Z")


def test_a_report_of_the_day_is_acknowledged_without_rebooking(client, marketplace):
    client.post(BASE, create_body(), content_type="application/json", **basic(marketplace))
    before = list(Booking.objects.order_by("job_ref").values_list("pickup_time", "passengers"))
    report = {
        "leadPassenger": LEAD,
        "modificationType": "DriverNoShow",
        "transfers": [transfer(days=-1, total=5)],
    }
    response = client.put(
        f"{BASE}/SUNTR_AB1234", report, content_type="application/json", **basic(marketplace)
    )
    assert response.status_code == 200, response.content
    assert response.json()["supplierReferences"] == ["SUNTR_AB1234/1", "SUNTR_AB1234/2"]
    after = list(Booking.objects.order_by("job_ref").values_list("pickup_time", "passengers"))
    assert after == before
