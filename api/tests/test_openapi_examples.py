"""Docs that work when tried (issue 40): every request example in the served OpenAPI
document posts as it stands and is answered 2xx, the way Swagger UI's "Try it out" sends
it on ``make demo`` (anonymously where the operation allows it, else with an approved
partner account's key in the scheme the document names first)."""

from __future__ import annotations

import copy
import datetime as dt
from urllib.parse import urlencode

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from api.schema import DEPART_TOMORROW
from core.localtime import local_zone
from core.testing.places import LEEDS
from drivers.tests.factories import UserFactory, driver_at
from partners.models import Account
from partners.services.accounts import account_create

pytestmark = pytest.mark.django_db

# Examples about a booking the caller already holds (a flight's pickups): tried, with such
# a booking, by the test of the examples with a path parameter.
NEEDS_A_BOOKING = {"/api/public/v1/flights/status"}
# Examples that follow another (a job the intake example sent, the demo driver's login):
# tried in that order by the test of the examples with a path parameter.
FOLLOW_ANOTHER = {"/api/public/hooks/booking-status", "/api/public/v1/driver/login"}


def _document(client) -> dict:
    response = client.get(reverse("openapi"), HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return response.json()


def _examples(document: dict):
    """(method, path, operation, example name, value) of every request example of an
    operation whose path needs no parameter."""
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "requestBody" not in operation:
                continue
            content = operation["requestBody"]["content"].get("application/json", {})
            for name, example in content.get("examples", {}).items():
                yield method, path, operation, name, example["value"]


def test_the_demo_keys_scheme_is_named_first_and_says_so(client):
    schemes = _document(client)["components"]["securitySchemes"]
    first = next(iter(schemes))
    assert first == "ApiKeyHeader"
    assert "make demo" in schemes[first]["description"]


def test_no_example_departs_in_the_past(client):
    text = str(_document(client))
    assert DEPART_TOMORROW not in text
    for _method, _path, _operation, _name, value in _examples(_document(client)):
        for key in ("departAt", "depart_at"):
            if isinstance(value, dict) and key in value:
                assert dt.datetime.fromisoformat(value[key]) > timezone.now()


def test_every_public_booking_example_posts_successfully(client, tariffs):
    document = _document(client)
    keys = {
        kind: account_create(kind=kind, name=f"Docs Reader {kind}", approved=True)[1]
        for kind in (Account.Kind.PARTNER, Account.Kind.OPERATOR)
    }
    driver_token = Token.objects.create(user=driver_at(LEEDS, user=UserFactory()).user).key
    tried, failed = [], []
    for method, path, operation, name, value in _examples(document):
        if "{" in path or method != "post" or path in NEEDS_A_BOOKING | FOLLOW_ANOTHER:
            continue  # a path parameter (a booking, a driver's job) the reader fills in
        names = {scheme for requirement in operation.get("security", []) for scheme in requirement}
        api = APIClient()
        if names & {"tokenAuth", "driverPositionTokenAuth"}:  # the app's token from login
            api.credentials(HTTP_AUTHORIZATION=f"Token {driver_token}")
        elif names and {} not in operation.get("security", []) and "ApiKeyHeader" not in names:
            continue
        if "ApiKeyHeader" in names:
            kind = Account.Kind.OPERATOR if "/operator/" in path else Account.Kind.PARTNER
            api.credentials(HTTP_X_SERVICE_AI_KEY=keys[kind])
        body = copy.deepcopy(value)
        if (
            isinstance(body, dict) and "quote_id" in body
        ):  # "the quote_id of a quote you just made", as it says
            made = api.post(
                "/api/public/quotes/estimate",
                document["paths"]["/api/public/quotes/estimate"]["post"]["requestBody"]["content"][
                    "application/json"
                ]["examples"]["StationToAirport"]["value"],
                format="json",
            )
            body["quote_id"] = made.json()["quote_id"]
        response = api.post(path, body, format="json")
        if not 200 <= response.status_code < 300:
            failed.append((path, name, response.status_code, response.content[:300]))
        tried.append(path)
    assert not failed, failed
    for path in (
        "/api/public/v1/quote",
        "/api/public/quotes/estimate",
        "/api/public/v1/booking",
        "/api/public/v1/bookings",
        "/api/public/bookings/instant",
        "/api/public/bookings/create",
        "/api/public/v1/passenger-verify",
        "/api/public/v1/jobs",
        "/api/public/v1/operator/jobs",
        "/api/public/v1/driver/location",
        "/api/public/v1/driver/availability",
    ):
        assert path in tried, path


def _body(document: dict, path: str, name: str, media_type: str = "application/json"):
    content = document["paths"][path]["post"]["requestBody"]["content"][media_type]
    return copy.deepcopy(content["examples"][name]["value"])


def _png() -> bytes:
    """A 1x1 PNG: a photo of the card for the form (any image the reader chooses)."""
    import io  # noqa: PLC0415  (test helper only)

    from PIL import Image  # noqa: PLC0415

    out = io.BytesIO()
    Image.new("RGB", (1, 1), (255, 255, 255)).save(out, format="PNG")
    return out.getvalue()


def test_every_example_with_a_path_parameter_posts_once_it_is_filled_in(client, tariffs):
    """The examples of a path with a parameter post as they stand, with the parameter a
    reader fills in on ``make demo``: the booking just made, the driver's job, the tracker's
    token, the supplier's slug, the booking a flight report names. A driver job's status
    examples are tried at their moments of a trip by the next test."""
    from django.contrib.auth import get_user_model  # noqa: PLC0415  (test only)

    from bookings.models import Booking, BookingStatus  # noqa: PLC0415
    from bookings.tests.factories import BookingFactory  # noqa: PLC0415
    from dispatch.airports import airport_get  # noqa: PLC0415
    from driverapp.api.examples import (  # noqa: PLC0415
        DEMO_DRIVER_PASSWORD,
        DEMO_DRIVER_USERNAME,
        TRACKER_DEVICE_ID,
    )
    from drivers.positions.credentials import tracker_device_register  # noqa: PLC0415
    from partners.authentication import supplier_key_header  # noqa: PLC0415

    document = _document(client)
    partner_account, partner_key = account_create(
        kind=Account.Kind.PARTNER, name="Docs Partner", approved=True
    )
    partner = APIClient()
    partner.credentials(HTTP_X_SERVICE_AI_KEY=partner_key)
    answers = {}

    made = partner.post(
        "/api/public/v1/booking",
        _body(document, "/api/public/v1/booking", "BookAJourney"),
        format="json",
    )
    assert made.status_code == 201, made.content
    reference = made.json()["bookingReference"]
    answers["cancel"] = partner.post(
        f"/api/public/v1/booking/{reference}",
        _body(document, "/api/public/v1/booking/{ref}", "Cancel"),
        format="json",
    )
    assert Booking.objects.get(reference=reference).status == BookingStatus.CANCELLED

    sent = partner.post(
        "/api/public/v1/jobs", _body(document, "/api/public/v1/jobs", "OneJob"), format="json"
    )
    assert sent.status_code in (200, 201), sent.content
    answers["status hook"] = partner.post(
        "/api/public/hooks/booking-status",
        _body(document, "/api/public/hooks/booking-status", "CancelledByTheSender"),
        format="json",
    )

    # A flight's examples: the partner's pickups at the airport tomorrow on that flight.
    airport = airport_get("LBA")
    zone = local_zone()  # UK time, as examples_dated dates the flight
    tomorrow = timezone.now().astimezone(zone).date() + dt.timedelta(days=1)
    for flight in ("BA1234", "EZY12"):
        on_flight = BookingFactory(
            account=partner_account,
            source="partner",
            pickup="Leeds Bradford Airport",
            pickup_lat=airport.lat,
            pickup_lng=airport.lng,
            flight_number=flight,
            pickup_time=dt.datetime.combine(tomorrow, dt.time(11), tzinfo=zone),
        )
    delayed = _body(document, "/api/public/v1/flights/status", "Delayed,EveryPickupOnTheFlight")
    answers["flight delayed"] = partner.post(
        "/api/public/v1/flights/status", delayed, format="json"
    )
    landed = _body(document, "/api/public/v1/flights/status", "Landed,OneBooking")
    landed["bookingReference"] = on_flight.reference  # the reader's own booking on EZY12
    answers["flight landed"] = partner.post("/api/public/v1/flights/status", landed, format="json")

    supplier, supplier_key = account_create(
        kind=Account.Kind.SUPPLIER, name="Docs Supplier", approved=True
    )
    answers["supplier hook"] = APIClient().post(
        f"/api/public/hooks/{supplier.slug}-booking",
        _body(document, "/api/public/hooks/{supplier}-booking", "OneJob"),
        format="json",
        **{supplier_key_header(supplier.slug): supplier_key},
    )

    user = get_user_model().objects.create_user(
        username=DEMO_DRIVER_USERNAME, password=DEMO_DRIVER_PASSWORD
    )
    driver = driver_at(LEEDS, user=user)
    answers["login"] = APIClient().post(
        "/api/public/v1/driver/login",
        _body(document, "/api/public/v1/driver/login", "TheDemoDriver"),
        format="json",
    )
    app = APIClient()
    app.credentials(HTTP_AUTHORIZATION=f"Token {answers['login'].json()['token']}")
    job = BookingFactory(status=BookingStatus.ON_BOARD, driver=driver)
    for name in ("PaidByCard", "PaidInCash"):
        answers[f"settlement {name}"] = app.post(
            f"/api/public/v1/driver/jobs/{job.reference}/settlement",
            _body(document, "/api/public/v1/driver/jobs/{ref}/settlement", name),
            format="json",
        )
    form = _body(
        document,
        "/api/public/v1/driver/tariff-submissions",
        "OneBandOfSheffield'sTable",
        "multipart/form-data",
    )
    photo = SimpleUploadedFile("card.png", _png(), content_type="image/png")
    answers["tariff submission"] = app.post(
        "/api/public/v1/driver/tariff-submissions", {**form, "photo": photo}, format="multipart"
    )

    _device, token = tracker_device_register(driver=driver, device_id=TRACKER_DEVICE_ID)
    answers["osmand json"] = APIClient().post(
        f"/api/public/v1/osmand/{token}",
        _body(document, "/api/public/v1/osmand/{token}", "TraccarClient9"),
        format="json",
    )
    answers["osmand form"] = APIClient().post(
        f"/api/public/v1/osmand/{token}",
        urlencode(
            _body(
                document,
                "/api/public/v1/osmand/{token}",
                "OsmAndForm",
                "application/x-www-form-urlencoded",
            )
        ),
        content_type="application/x-www-form-urlencoded",
    )
    failed = {
        name: (answer.status_code, answer.content[:300])
        for name, answer in answers.items()
        if not 200 <= answer.status_code < 300
    }
    assert not failed, failed


def test_every_request_body_has_an_example(client):
    document = _document(client)
    missing = [
        (method, path, media_type)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "requestBody" in operation
        for media_type, content in operation["requestBody"]["content"].items()
        if not content.get("examples")
    ]
    assert not missing, missing


def test_a_driver_jobs_status_examples_post_at_their_moment_of_the_trip(client, settings):
    """The three status examples, each at the moment of a trip it is for: arrived at the
    pickup (the app has just reported the example's position), on board with the
    passenger's code (the example's "4821" stands for the one the passenger was sent),
    and a no-show once the free waiting is over."""
    import time_machine  # noqa: PLC0415  (test only)

    from bookings.models import Booking, BookingStatus  # noqa: PLC0415
    from bookings.tests.factories import BookingFactory  # noqa: PLC0415
    from drivers.tests.factories import position_report  # noqa: PLC0415

    document = _document(client)
    path = "/api/public/v1/driver/jobs/{ref}/status"
    arrived, on_board, no_show = (
        _body(document, path, name)
        for name in ("Arrived", "OnBoard,WithThePassenger'sCode", "No-show")
    )
    driver = driver_at(LEEDS, user=UserFactory())
    app = APIClient()
    app.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=driver.user).key}")
    pickup = timezone.now().replace(microsecond=0) + dt.timedelta(hours=1)
    boarding, missed = (
        BookingFactory(status=BookingStatus.ACCEPTED, driver=driver, pickup_time=pickup)
        for _ in range(2)
    )
    Booking.objects.filter(pk=boarding.pk).update(pickup_code=on_board["pickupCode"])

    def post(booking, body, at):
        with time_machine.travel(at, tick=False):
            if "lat" in body:
                position_report(driver, now=at, lat=body["lat"], lng=body["lng"])
            return app.post(
                f"/api/public/v1/driver/jobs/{booking.reference}/status", body, format="json"
            )

    free = dt.timedelta(minutes=settings.WAITING_FREE_MINUTES)
    answers = {
        "arrived": post(boarding, arrived, pickup),
        "on board": post(boarding, on_board, pickup + dt.timedelta(minutes=2)),
        "arrived again": post(missed, arrived, pickup + dt.timedelta(minutes=3)),
        "no-show": post(missed, no_show, pickup + free + dt.timedelta(minutes=4)),
    }
    failed = {
        k: (a.status_code, a.content[:300]) for k, a in answers.items() if a.status_code != 200
    }
    assert not failed, failed
    assert Booking.objects.get(pk=boarding.pk).status == BookingStatus.ON_BOARD
    assert Booking.objects.get(pk=missed.pk).status == BookingStatus.NO_SHOW
