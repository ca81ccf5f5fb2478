"""The passenger pages of issue 16: the landing quote form, the booking page of
bookingUrl (expired quotes, source website), the live tracking page and its JSON, and the
messages a person reads for each refusal."""

from __future__ import annotations

import datetime as dt
import re
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client, override_settings
from django_ratelimit.core import get_usage

from api.problems import STATUS_BY_CODE
from bookings.links import booking_page_token
from bookings.models import Booking, BookingSource
from bookings.page_errors import PASSENGER_MESSAGES, passenger_message
from bookings.services import booking_pay_driver_url, booking_status_url
from pricing.models import Quote
from pricing.vehicles import VEHICLE_CLASSES

pytestmark = pytest.mark.django_db

SUMMER = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)  # BST in force, a Monday
WINTER = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC)  # GMT in force, a Monday


def _quote_form(**overrides) -> dict:
    form = {
        "pickup": "Leeds station",
        "dropoff": "York",
        "depart_at": "",
        "passengers": "2",
        "vehicle_type": "",
    }
    return form | overrides


def _path(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


# --- the landing page ------------------------------------------------------------------


def test_landing_page_offers_the_quote_form_with_every_vehicle_class(client):
    page = client.get("/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="csrfmiddlewaretoken"' in html
    for name in ("pickup", "dropoff", "depart_at", "passengers", "vehicle_type", "meet_and_greet"):
        # every input has a label tied to it
        assert f'for="id_{name}"' in html
        assert f'id="id_{name}"' in html
    for vehicle_class in VEHICLE_CLASSES:
        assert f'value="{vehicle_class.code}"' in html
    assert 'type="datetime-local"' in html
    assert "/static/css/site.css" in html


def test_landing_page_prices_a_journey_with_its_lines_source_and_book_link(client, tariffs):
    page = client.post("/", _quote_form(), follow=True)
    quote = Quote.objects.get()
    # redirected to the quote, so that a reload asks for nothing twice
    assert page.redirect_chain == [(f"/?quote={quote.pk}#quote", 302)]
    assert page.status_code == 200
    html = page.content.decode()
    assert f"£{quote.fare}" in html
    for line in quote.applied_rules:
        assert line["label"] in html
    assert quote.tariff_source["name"] in html
    assert f'href="/book/?quote={quote.pk}"' in html
    assert "fixed until" in html


@time_machine.travel(SUMMER, tick=False)
def test_a_summer_departure_is_typed_and_shown_in_bst(client, tariffs):
    client.post("/", _quote_form(depart_at="2026-07-10T14:30"))
    quote = Quote.objects.get()
    # 14:30 on a UK clock in July is 13:30 UTC
    assert quote.depart_at == dt.datetime(2026, 7, 10, 13, 30, tzinfo=dt.UTC)
    html = client.get(f"/?quote={quote.pk}").content.decode()
    assert "Fri 10 July 2026, 14:30 UK time (BST)" in html


@time_machine.travel(WINTER, tick=False)
def test_a_winter_departure_is_typed_and_shown_in_gmt(client, tariffs):
    html = client.post("/", _quote_form(depart_at="2026-12-10T14:30"), follow=True)
    html = html.content.decode()
    assert Quote.objects.get().depart_at == dt.datetime(2026, 12, 10, 14, 30, tzinfo=dt.UTC)
    assert "Thu 10 December 2026, 14:30 UK time (GMT)" in html


@pytest.mark.parametrize(
    ("form", "code"),
    [
        ({"pickup": "Nowhereville Qwxz"}, "address_not_found"),
        ({"dropoff": "Paris"}, "outside_service_area"),
        ({"passengers": "6", "vehicle_type": "saloon"}, "vehicle_too_small"),
    ],
)
def test_landing_page_says_each_refusal_in_plain_words(client, tariffs, form, code):
    page = client.post("/", _quote_form(**form))
    assert page.status_code == 400
    html = page.content.decode()
    assert 'role="alert"' in html
    assert PASSENGER_MESSAGES[code] in html
    assert not Quote.objects.exists()


def test_offline_the_page_asks_for_what_it_can_place_not_a_street(client, tariffs):
    # Issue 40: the hint said "street and town" and the refusal offered "10 High Street,
    # Oxford", which the default set-up cannot place.
    landing = client.get("/").content.decode()
    assert "postcode" in landing
    assert "street and town" not in landing
    page = client.post("/", _quote_form(pickup="10 High Street, Oxford", dropoff="Heathrow T5"))
    html = page.content.decode()
    assert page.status_code == 400
    assert PASSENGER_MESSAGES["address_not_precise"] in html
    assert "Add the street" not in html


def test_with_a_street_engine_the_page_offers_street_addresses(client):
    with override_settings(GEOCODER_STREET_URL="http://nominatim.test"):
        landing = client.get("/").content.decode()
    assert "A street address, postcode" in landing


def test_a_missing_field_is_pointed_at_from_the_top(client):
    page = client.post("/", _quote_form(pickup=""))
    assert page.status_code == 400
    html = page.content.decode()
    assert 'id="form-errors"' in html
    assert PASSENGER_MESSAGES["invalid_input"] in html


@time_machine.travel(WINTER, tick=False)
def test_landing_page_refuses_a_pickup_in_the_past(client, tariffs):
    page = client.post("/", _quote_form(depart_at="2026-11-01T09:00"))
    assert page.status_code == 400
    assert PASSENGER_MESSAGES["pickup_in_past"] in page.content.decode()


def test_meet_and_greet_at_an_airport_is_a_line_of_the_fare(client, tariffs):
    page = client.post(
        "/",
        _quote_form(pickup="London Heathrow Airport", dropoff="Leeds", meet_and_greet="on"),
        follow=True,
    )
    assert page.status_code == 200
    assert "Airport meet and greet" in page.content.decode()


def test_an_expired_quote_on_the_landing_page_offers_no_book_link(client, quote_factory):
    quote = quote_factory()
    with time_machine.travel(quote.expires_at + timedelta(seconds=1)):
        html = client.get(f"/?quote={quote.pk}").content.decode()
    assert "This quote expired" in html
    assert 'id="book-link"' not in html


def test_place_suggestions_come_from_the_gazetteer(client):
    body = client.get("/places/suggest/", {"q": "heathr"}).json()
    labels = [s["label"] for s in body["suggestions"]]
    assert labels[0].startswith("London Heathrow Airport")
    assert body["suggestions"][0]["kindLabel"] == "Airport"
    assert client.get("/places/suggest/", {"q": "l"}).json() == {"suggestions": []}
    assert client.get("/places/suggest/").json() == {"suggestions": []}


def test_place_suggestions_are_limited_with_the_apis_places_per_address(client):
    """Issue 35: "`/places/suggest/` has no limit, while the API's `/places` does". One
    rate (RATELIMITS["places"]) and one count per address, whichever door is used."""
    here, elsewhere = {"REMOTE_ADDR": "192.0.2.77"}, {"REMOTE_ADDR": "192.0.2.78"}
    with override_settings(RATELIMITS={**settings.RATELIMITS, "places": "3/h"}):
        for _ in range(2):
            assert client.get("/places/suggest/", {"q": "york"}, **here).status_code == 200
        assert client.get("/api/public/v1/places", {"q": "york"}, **here).status_code == 200
        refused = client.get("/places/suggest/", {"q": "york"}, **here)
        assert refused.status_code == 429
        assert refused["Content-Type"] == "application/problem+json"
        assert refused.json()["code"] == "rate_limited"
        assert int(refused["Retry-After"]) > 0
        assert "public" not in refused.get("Cache-Control", "")
        assert client.get("/places/suggest/", {"q": "york"}, **elsewhere).status_code == 200


def test_every_suggestion_is_an_address_the_quote_resolves():
    from pricing.geocoding import geocoder_get
    from pricing.suggestions import place_suggestions

    for query in ("man", "kings", "gatw", "ox", "edinb"):
        for suggestion in place_suggestions(query):
            assert geocoder_get().geocode(suggestion.label) is not None, suggestion


def test_forms_are_csrf_protected(tariffs, quote_factory):
    client = Client(enforce_csrf_checks=True)
    assert client.post("/", _quote_form()).status_code == 403
    assert client.post("/book/", {"quote_id": str(quote_factory().pk)}).status_code == 403


# --- the booking page ------------------------------------------------------------------


def _booking_form(quote, **overrides) -> dict:
    form = {
        "quote_id": str(quote.pk),
        "passenger_name": "Priya Shah",
        "passenger_phone": "+447700900123",
        "passenger_email": "priya.shah@example.co.uk",
        "payment_method": "cash",
    }
    return form | overrides


def test_booking_page_shows_the_itemised_fare_and_its_council_source(client, quote_factory):
    quote = quote_factory()
    html = client.get(f"/book/?quote={quote.pk}").content.decode()
    for line in quote.applied_rules:
        assert line["label"] in html
    assert quote.tariff_source["name"] in html
    for name in ("passenger_name", "passenger_phone", "passenger_email", "payment_method"):
        assert f'for="id_{name}"' in html


def test_booking_page_books_as_source_website_and_opens_the_tracking_page(client, quote_factory):
    quote = quote_factory()
    page = client.post("/book/", _booking_form(quote))
    booking = Booking.objects.get()
    assert booking.source == BookingSource.WEBSITE
    assert booking.quote_id == quote.pk
    # a path on this site, whatever SITE_URL says
    assert page.status_code == 302
    assert page["Location"] == _path(booking_status_url(booking))


def test_an_expired_quote_offers_a_new_quote_instead_of_the_form(client, quote_factory):
    quote = quote_factory()
    with time_machine.travel(quote.expires_at + timedelta(seconds=1)):
        page = client.get(f"/book/?quote={quote.pk}")
        posted = client.post("/book/", _booking_form(quote))
    assert page.status_code == 410
    html = page.content.decode()
    assert "This quote has expired" in html
    assert 'href="/"' in html
    assert 'id="book"' not in html
    assert "passenger_name" not in html
    assert posted.status_code == 410
    assert not Booking.objects.exists()


def test_an_unknown_quote_is_a_404_with_a_way_back(client):
    page = client.get("/book/?quote=00000000-0000-0000-0000-000000000000")
    assert page.status_code == 404
    assert 'href="/"' in page.content.decode()


def test_booking_page_says_a_rejected_email_in_plain_words(client, quote_factory):
    quote = quote_factory()
    page = client.post("/book/", _booking_form(quote, passenger_email="someone@mailinator.com"))
    assert page.status_code == 200
    html = page.content.decode()
    # the sentence on top; why beside the field, which is marked invalid
    assert "We cannot accept that email address" in html
    assert "This is a disposable address." in html
    assert re.search(r'<input[^>]*aria-invalid="true"[^>]*id="id_passenger_email"', html)
    assert not Booking.objects.exists()


def test_booking_page_says_an_already_redeemed_quote_in_plain_words(client, quote_factory):
    quote = quote_factory()
    client.post("/book/", _booking_form(quote))
    other = client.post(
        "/book/", _booking_form(quote, passenger_phone="+447700900999", passenger_name="Sam")
    )
    assert PASSENGER_MESSAGES["quote_already_redeemed"] in other.content.decode()
    assert Booking.objects.count() == 1


# --- the pay page ----------------------------------------------------------------------


def test_pay_driver_page_asks_for_no_card_data(client, booking_factory):
    booking = booking_factory()
    html = client.get(booking_pay_driver_url(booking)).content.decode()
    assert "<input" not in html
    assert "<form" not in html
    assert "Cash" in html
    token = booking_page_token(booking.reference)
    assert f"/booking/{booking.reference}/{token}/" in html


# --- the messages ----------------------------------------------------------------------

PAGE_CODES = (
    "address_not_found",
    "address_not_precise",
    "outside_service_area",
    "vehicle_too_small",
    "pickup_in_past",
    "quote_expired",
    "quote_not_found",
    "quote_already_redeemed",
    "email_rejected",
    "email_limit",
    "passenger_blocked",
    "rate_limited",
    "content_rejected",
    "invalid_input",
    "tariff_incomplete",
    "service_unavailable",
)


@pytest.mark.parametrize("code", PAGE_CODES)
def test_every_code_a_page_can_meet_has_a_sentence(code):
    assert code in STATUS_BY_CODE  # a real code of the API
    message = PASSENGER_MESSAGES[code]
    assert message.endswith(".")
    assert "_" not in message


def test_a_limit_says_when_to_try_again_with_the_servers_wait():
    from core.errors import LimitReached

    with time_machine.travel(dt.datetime(2026, 11, 27, 9, 22, tzinfo=dt.UTC), tick=False):
        words = passenger_message(LimitReached(23 * 60))
    assert "Too many requests from your connection." in words
    assert "try again in 23 minutes (at 09:45 UK time)" in words
    assert "a minute" not in words


# --- the website's own quote limits (issue 34) ------------------------------------------

LIMIT_REFUSED = "Too many requests from your connection."


def _quote_asked(client: Client) -> bool:
    """One quote from ``client``'s browser; True when priced, False when the limit said no."""
    page = client.post("/", _quote_form())
    if page.status_code == 302:
        return True
    assert page.status_code == 400
    assert LIMIT_REFUSED in page.content.decode()
    return False


@override_settings(
    RATELIMITS={
        "quote_v1": "1/h",
        "quote_website_session": "2/h",
        "quote_website_address": "100/h",
    }
)
def test_a_browser_session_has_its_own_quote_limit_beside_the_address(tariffs):
    first, second = Client(), Client()  # two phones behind one address
    assert [_quote_asked(first) for _ in range(3)] == [True, True, False]
    # the session is the browser's: a cookie gone when the browser closes, out of scripts' reach
    cookie = first.cookies[settings.QUOTE_BROWSER_COOKIE]
    assert cookie["httponly"]
    assert (cookie["max-age"], cookie["expires"]) == ("", "")
    # the other browser at the same address still has its own allowance
    assert [_quote_asked(second) for _ in range(3)] == [True, True, False]
    assert Quote.objects.count() == 4
    # and the website spent nothing of the API's allowance for that address
    api = Client().post(
        "/api/public/v1/quote",
        {"pickup": "Leeds station", "dropoff": "York", "passengers": 1},
        content_type="application/json",
    )
    assert api.status_code == 200, api.content


@override_settings(RATELIMITS={"quote_website_session": "100/h", "quote_website_address": "3/h"})
def test_the_address_limit_holds_for_a_browser_that_drops_its_session(tariffs):
    # a fresh browser (no cookie) for every quote: only the address counts them
    assert [_quote_asked(Client()) for _ in range(4)] == [True, True, True, False]
    assert Quote.objects.count() == 3


@override_settings(RATELIMITS={"quote_website_session": "1/h", "quote_website_address": "100/h"})
def test_the_session_limit_says_the_servers_wait_and_when_it_ends(tariffs):
    client = Client()
    with time_machine.travel(dt.datetime(2026, 11, 27, 9, 22, 10, tzinfo=dt.UTC), tick=False):
        assert _quote_asked(client)
        page = client.post("/", _quote_form())
        session = client.cookies[settings.QUOTE_BROWSER_COOKIE].value
        usage = get_usage(
            None,
            group="dtd:quote_website_session",
            key=lambda _group, _request: f"session:{session}",
            rate="1/h",
            increment=False,
        )
    html = page.content.decode()
    wait = usage["time_left"]
    assert wait > 60  # an hour's window: never "a minute"
    shown = re.search(
        r"You can try again in (\d+) (seconds|minutes) \(at (\d\d:\d\d) UK time\)", html
    )
    assert shown, html
    ends = dt.datetime(2026, 11, 27, 9, 22, 10, tzinfo=dt.UTC) + timedelta(seconds=wait)
    assert shown.group(3) == ends.strftime("%H:%M")  # GMT in November: UK time is UTC
    expected = wait if shown.group(2) == "seconds" else round(wait / 60)
    assert int(shown.group(1)) == expected
