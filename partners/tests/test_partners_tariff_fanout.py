"""Council tariff and operator rate fanout to connected dispatch platforms (seed 6.5,
contract 5.3): signed ``tariff.updated`` webhooks from the back office and the loader,
with the status webhooks' retry and redelivery, and GET /api/public/v1/tariffs/{id}.

Deliveries are real (recorded with ``responses``) and verified with the official
``standardwebhooks`` library and the platform's signing secret.
"""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
import responses
from django.core.management import call_command
from django.db import transaction
from django.forms import BooleanField
from django.urls import reverse
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from api.tests.assertions import assert_problem
from partners.models import Account, WebhookDelivery, WebhookDeliveryStatus
from pricing.catalogue import tariff_catalogue_clear
from pricing.models import Tariff, TariffPublication
from pricing.publication import tariff_publication_latest, tariff_publish
from pricing.signals import tariff_published

PLATFORM_HOOK = "https://platform.example/hooks/tariffs"
PARTNER_HOOK = "https://partner.example/hooks/taxi"
TARIFFS = "/api/public/v1/tariffs"

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh_catalogue():
    tariff_catalogue_clear()
    yield
    tariff_catalogue_clear()


@pytest.fixture
def platform(make_account):
    return make_account(
        "partner",
        name="Cab Dispatch Cloud",
        slug="cab-cloud",
        webhook_url=PLATFORM_HOOK,
        dispatch_platform=True,
    )


@pytest.fixture
def bystanders(make_account):
    """A partner with a webhook that is no dispatch platform, and a platform without one."""
    return (
        make_account("partner", name="Plain partner", webhook_url=PARTNER_HOOK),
        make_account("partner", name="Platform without URL", dispatch_platform=True),
    )


@pytest.fixture
def back_office(client, django_user_model):
    user = django_user_model.objects.create_superuser("ops", "ops@example.com", "pw-not-used")
    client.force_login(user)
    return client


def events_to(url: str) -> list[dict]:
    return [json.loads(c.request.body) for c in responses.calls if c.request.url == url]


def load(django_capture_on_commit_callbacks) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_tariffs", stdout=io.StringIO())


def form_data(page) -> dict:
    """The POST data of an admin change/add page as the browser would send it unchanged."""
    data: dict = {}

    def add(form) -> None:
        for name, field in form.fields.items():
            bound = form[name]
            value = bound.value()  # already prepared as the widget renders it
            if isinstance(field, BooleanField):
                if value:
                    data[bound.html_name] = "on"
            elif value is not None:
                data[bound.html_name] = value

    add(page.context["adminform"].form)
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        add(formset.management_form)
        for form in formset.forms:
            add(form)
    return data


def admin_change(back_office, tariff: Tariff, django_capture_on_commit_callbacks, **changes):
    url = reverse("admin:pricing_tariff_change", args=[tariff.pk])
    data = {**form_data(back_office.get(url)), **changes}
    with django_capture_on_commit_callbacks(execute=True):
        response = back_office.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors


# --- the loader ---------------------------------------------------------------------------


@responses.activate
def test_load_tariffs_sends_each_tariff_once_to_connected_platforms_only(
    platform, bystanders, django_capture_on_commit_callbacks
):
    # given a connected platform, a partner that is not one, and a platform with no URL
    responses.post(PLATFORM_HOOK, status=204)
    responses.post(PARTNER_HOOK, status=204)

    # when the tariff data is loaded
    load(django_capture_on_commit_callbacks)

    # then the platform received one signed tariff.updated per tariff in force
    events = events_to(PLATFORM_HOOK)
    published = TariffPublication.objects.all()
    assert len(events) == published.count() > 1
    assert {e["data"]["tariffId"] for e in events} == set(
        published.values_list("reference", flat=True)
    )
    for call in responses.calls:
        Webhook(platform.signing_secret).verify(call.request.body, dict(call.request.headers))
    kinds = {e["data"]["kind"] for e in events}
    assert kinds == {"council", "operator"}
    for event in events:
        data = event["data"]
        assert event["type"] == "tariff.updated"
        assert event["timestamp"].endswith("Z")
        assert data["version"] == 1
        assert data["status"] == "current"
        assert ("authority" in data) == (data["kind"] == "council")
        assert ("operator" in data) == (data["kind"] == "operator")
        assert {"effectiveFrom", "bands", "extras"} <= set(data)
        assert data["bands"]
    # and the worldwide rate (not a council tariff or operator rate) was not sent
    assert "worldwide-standard" not in {e["data"]["tariffId"] for e in events}
    # and nobody else received anything
    assert events_to(PARTNER_HOOK) == []
    assert {d.account_id for d in WebhookDelivery.objects.all()} == {platform.pk}


@responses.activate
def test_load_tariffs_twice_with_unchanged_data_sends_nothing_the_second_time(
    platform, django_capture_on_commit_callbacks
):
    responses.post(PLATFORM_HOOK, status=204)
    load(django_capture_on_commit_callbacks)
    sent = len(responses.calls)
    deliveries = WebhookDelivery.objects.count()

    load(django_capture_on_commit_callbacks)

    assert len(responses.calls) == sent
    assert WebhookDelivery.objects.count() == deliveries
    assert not TariffPublication.objects.filter(version__gt=1).exists()


@responses.activate
def test_loading_a_new_version_of_a_table_sends_it_and_withdraws_the_one_it_replaces(
    platform, django_capture_on_commit_callbacks, tmp_path, monkeypatch
):
    # Given the tariffs loaded and sent once
    from pricing import loaders

    responses.post(PLATFORM_HOOK, status=204)
    load(django_capture_on_commit_callbacks)
    sent = len(responses.calls)
    # When the data gains Manchester's next table, starting today, which ends the current one
    data = json.loads(loaders.DATA_FILE.read_text(encoding="utf-8"))
    current = next(t for t in data["tariffs"] if t["id"] == "manchester-2023-09")
    today = timezone.localdate().isoformat()
    rise = {**json.loads(json.dumps(current)), "id": "manchester-next", "effective_date": today}
    rise["bands"][0]["flag_fall_gbp"] = 3.6
    current["effective_to"] = today
    data["tariffs"].append(rise)
    changed = tmp_path / "council_tariffs.json"
    changed.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(loaders, "DATA_FILE", changed)
    load(django_capture_on_commit_callbacks)
    # Then the platform hears of the new table, and of the old one's withdrawal
    events = [json.loads(c.request.body)["data"] for c in responses.calls[sent:]]
    # (a new complete table also moves the estimates' measured error: the estimated
    # tables, marked with their basis, are sent again with it)
    assert all(e.get("basis") == "calibrated" for e in events if e["tariffId"].startswith("calib"))
    by_id = {e["tariffId"]: e for e in events if "basis" not in e}
    assert set(by_id) == {"manchester-next", "manchester-2023-09"}
    assert by_id["manchester-next"]["version"] == 1
    assert by_id["manchester-next"]["bands"][0]["flagFallGBP"] == 3.6
    assert by_id["manchester-next"]["effectiveFrom"] == today
    assert by_id["manchester-2023-09"]["version"] == 2
    assert by_id["manchester-2023-09"]["status"] == "withdrawn"


# --- the back office ----------------------------------------------------------------------


@responses.activate
def test_changing_a_rate_in_the_back_office_sends_a_new_version(
    platform, back_office, tariffs, django_capture_on_commit_callbacks
):
    # given the tariffs were published before this platform listened
    responses.post(PLATFORM_HOOK, status=204)
    rate = Tariff.objects.get(reference="network-standard")
    day = rate.bands.get(position=0)

    # when the back office raises the day flag fall
    admin_change(
        back_office,
        rate,
        django_capture_on_commit_callbacks,
        **{"bands-0-flag_fall_gbp": "3.80"},
    )

    # then the platform receives version 2 of the operator rate, with the new figure
    [event] = events_to(PLATFORM_HOOK)
    data = event["data"]
    assert (data["tariffId"], data["kind"], data["version"]) == ("network-standard", "operator", 2)
    assert data["operator"] == "Direct-to-Driver network"
    assert data["bands"][0]["name"] == day.name
    assert data["bands"][0]["flagFallGBP"] == 3.8


@responses.activate
def test_a_waiting_price_of_its_own_set_in_the_back_office_is_sent_with_the_band(
    platform, back_office, tariffs, django_capture_on_commit_callbacks
):
    # given the network's rate, whose bands wait at their increment price (null)
    responses.post(PLATFORM_HOOK, status=204)
    rate = Tariff.objects.get(reference="network-standard")

    # when the back office gives the day band a waiting step of its own
    admin_change(
        back_office,
        rate,
        django_capture_on_commit_callbacks,
        **{"bands-0-waiting_increment_price_gbp": "0.10"},
    )

    # then the platform receives it beside the distance step; null still means the same
    [event] = events_to(PLATFORM_HOOK)
    day, night = event["data"]["bands"]
    assert (day["incrementPriceGBP"], day["waitingIncrementPriceGBP"]) == (0.2, 0.1)
    assert day["waitingSecondsPerIncrement"] == 36
    assert night["waitingIncrementPriceGBP"] is None


@responses.activate
def test_saving_a_tariff_unchanged_sends_nothing(
    platform, back_office, tariffs, django_capture_on_commit_callbacks
):
    responses.post(PLATFORM_HOOK, status=204)

    admin_change(
        back_office,
        Tariff.objects.get(reference="network-standard"),
        django_capture_on_commit_callbacks,
    )

    assert events_to(PLATFORM_HOOK) == []


@responses.activate
def test_creating_an_operator_rate_in_the_back_office_sends_it(
    platform, back_office, make_account, django_capture_on_commit_callbacks
):
    # given an operator
    responses.post(PLATFORM_HOOK, status=204)
    operator = make_account("operator", name="Leeds Cars", approved=True)
    url = reverse("admin:pricing_tariff_add")
    data = form_data(back_office.get(url))
    data.update(
        {
            "reference": "leeds-cars-2026",
            "name": "Leeds Cars approved rate",
            "kind": "operator",
            "authority": "Leeds Cars",
            "account": operator.pk,
            "lifecycle": "current",
            "effective_from": "2026-01-01",
            "is_active": "on",
            "bands-TOTAL_FORMS": "1",
            "bands-0-position": "0",
            "bands-0-name": "All day",
            "bands-0-windows": "[]",
            "bands-0-excludes": "[]",
            "bands-0-uncertain": "[]",
            "bands-0-applies_raw": "{}",
            "bands-0-flag_fall_gbp": "4.00",
            "bands-0-increment_distance_m": "200",
            "bands-0-increment_price_gbp": "0.25",
        }
    )

    # when the back office adds its approved rate
    with django_capture_on_commit_callbacks(execute=True):
        response = back_office.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors

    # then the platform receives it as version 1, named by the operator
    [event] = events_to(PLATFORM_HOOK)
    data = event["data"]
    assert (data["tariffId"], data["kind"], data["version"]) == ("leeds-cars-2026", "operator", 1)
    assert data["operator"] == "Leeds Cars"
    assert data["effectiveFrom"] == "2026-01-01"
    assert [b["flagFallGBP"] for b in data["bands"]] == [4]


@responses.activate
def test_withdrawing_a_council_tariff_sends_its_withdrawal(
    platform, back_office, tariffs, django_capture_on_commit_callbacks
):
    # given a council tariff in force
    responses.post(PLATFORM_HOOK, status=204)
    council = TariffPublication.objects.filter(data__kind="council").first()
    tariff = Tariff.objects.get(reference=council.reference)

    # when the back office deletes it
    url = reverse("admin:pricing_tariff_delete", args=[tariff.pk])
    with django_capture_on_commit_callbacks(execute=True):
        assert back_office.post(url, {"post": "yes"}).status_code == 302

    # then the platform is told it is withdrawn, and the GET says so too
    [event] = events_to(PLATFORM_HOOK)
    data = event["data"]
    assert (data["tariffId"], data["version"], data["status"]) == (
        council.reference,
        council.version + 1,
        "withdrawn",
    )
    assert data["authority"] == tariff.authority
    assert (data["bands"], data["extras"]) == ([], [])


@responses.activate
def test_switching_a_tariff_off_withdraws_it_and_on_again_reinstates_it(
    platform, back_office, tariffs, django_capture_on_commit_callbacks
):
    responses.post(PLATFORM_HOOK, status=204)
    rate = Tariff.objects.get(reference="network-standard")

    data = form_data(back_office.get(reverse("admin:pricing_tariff_change", args=[rate.pk])))
    data.pop("is_active")
    url = reverse("admin:pricing_tariff_change", args=[rate.pk])
    with django_capture_on_commit_callbacks(execute=True):
        assert back_office.post(url, data).status_code == 302
    admin_change(back_office, rate, django_capture_on_commit_callbacks, is_active="on")

    off, on = events_to(PLATFORM_HOOK)
    assert (off["data"]["status"], off["data"]["version"]) == ("withdrawn", 2)
    assert (on["data"]["status"], on["data"]["version"]) == ("current", 3)
    assert on["data"]["bands"]


def test_a_table_is_withdrawn_on_its_replacement_day_though_still_marked_current(tariffs):
    # The lifecycle is set when a table is loaded, so on the day its replacement starts a
    # table may still read "current": its end date alone withdraws it (issue 37).
    rate = Tariff.objects.filter(reference="network-standard")
    today = timezone.localdate()
    rate.update(effective_to=today + timedelta(days=1))
    tariff_publish(reference="network-standard")
    assert not tariff_publication_latest(reference="network-standard").withdrawn
    rate.update(effective_to=today)
    assert rate.get().lifecycle == "current"
    assert tariff_publish(reference="network-standard").withdrawn


# --- delivery guarantees ------------------------------------------------------------------


def test_a_change_that_rolls_back_is_never_sent(
    platform, tariffs, django_capture_on_commit_callbacks
):
    def change_that_fails() -> None:
        with transaction.atomic():
            Tariff.objects.filter(reference="network-standard").update(name="Renamed")
            assert tariff_publish(reference="network-standard").version == 2
            raise RuntimeError("the rest of the change failed")

    announced = []

    def listener(sender, publication, **kwargs):
        announced.append(publication.version)

    tariff_published.connect(listener, dispatch_uid="test-listener")
    # given a change published inside a transaction that then fails
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(RuntimeError, match="rest of the change"),
    ):
        change_that_fails()

    tariff_published.disconnect(dispatch_uid="test-listener")

    # then nothing was announced and no version was kept
    assert announced == []
    assert callbacks == []
    assert not WebhookDelivery.objects.exists()
    assert not TariffPublication.objects.filter(version=2).exists()


@responses.activate
def test_a_failed_tariff_delivery_waits_in_the_database_and_can_be_redelivered(
    platform, back_office, tariffs, django_capture_on_commit_callbacks
):
    # given a platform that is down, then back
    responses.post(PLATFORM_HOOK, status=503)
    responses.post(PLATFORM_HOOK, status=204)
    admin_change(
        back_office,
        Tariff.objects.get(reference="network-standard"),
        django_capture_on_commit_callbacks,
        **{"bands-0-flag_fall_gbp": "3.90"},
    )

    # then the failed attempt is logged and the retry waits ~5 s in the database
    delivery = WebhookDelivery.objects.get(event_type="tariff.updated")
    assert delivery.status == WebhookDeliveryStatus.PENDING
    assert delivery.attempts.get().status_code == 503
    wait = delivery.next_attempt_at - timezone.now()
    assert timedelta(seconds=3) <= wait <= timedelta(seconds=6)

    # when the back office redelivers it
    changelist = reverse("admin:partners_webhookdelivery_changelist")
    with django_capture_on_commit_callbacks(execute=True):
        back_office.post(changelist, {"action": "redeliver", "_selected_action": [delivery.pk]})

    # then the same message (webhook-id and body) arrives and is delivered
    first, second = [c.request for c in responses.calls]
    assert first.headers["webhook-id"] == second.headers["webhook-id"] == delivery.webhook_id
    assert first.body == second.body
    delivery.refresh_from_db()
    assert delivery.status == WebhookDeliveryStatus.DELIVERED
    assert list(delivery.attempts.values_list("status_code", flat=True)) == [503, 204]


# --- GET /api/public/v1/tariffs/{tariffId} --------------------------------------------------


@responses.activate
def test_a_platform_reads_the_tariff_a_quote_names_as_its_last_event_carried_it(
    api_client, platform, back_office, tariffs, django_capture_on_commit_callbacks
):
    responses.post(PLATFORM_HOOK, status=204)
    # given a quote, which names its tariff
    depart = (timezone.now() + timedelta(days=2)).replace(hour=12, minute=0).isoformat()
    quote = api_client.post(
        "/api/public/v1/quote",
        {"pickup": "Manchester Piccadilly", "dropoff": "Manchester Airport", "departAt": depart},
        format="json",
    )
    assert quote.status_code == 200, quote.content
    tariff_id = quote.json()["tariffSource"]["reference"]
    # and a change the platform was sent
    admin_change(
        back_office,
        Tariff.objects.get(reference=tariff_id),
        django_capture_on_commit_callbacks,
        notes="",
        name="Manchester hackney carriage fares (revised)",
    )
    [event] = events_to(PLATFORM_HOOK)

    # when the platform reads it with its key
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {platform.raw_key}")
    response = api_client.get(f"{TARIFFS}/{tariff_id}")

    # then it gets the event's data exactly
    assert response.status_code == 200, response.content
    assert response.json() == event["data"]
    assert response.json()["version"] == 2


def test_reading_a_tariff_needs_a_key(api_client, tariffs):
    assert_problem(api_client.get(f"{TARIFFS}/network-standard"), 401, "unauthenticated")


@pytest.mark.parametrize("kind", ["agent", "partner", "operator", "supplier"])
def test_reading_a_tariff_is_for_connected_platforms_only(api_client, make_account, tariffs, kind):
    # given an account of any kind that is not marked as a connected dispatch platform
    account = make_account(kind, name=f"Not a platform {kind}")
    api_client.credentials(HTTP_X_API_KEY=account.raw_key)

    response = api_client.get(f"{TARIFFS}/network-standard")

    assert_problem(response, 403, "partner_not_allowed")


def test_an_unknown_or_unpublished_tariff_is_404(api_client, platform, tariffs):
    api_client.credentials(HTTP_X_API_KEY=platform.raw_key)

    for tariff_id in ("no-such-tariff", "worldwide-standard", "x" * 300):
        assert_problem(api_client.get(f"{TARIFFS}/{tariff_id}"), 404, "tariff_not_found")


def test_create_account_marks_a_dispatch_platform(capsys):
    call_command(
        "create_account",
        "--kind",
        "partner",
        "--name",
        "Cab Cloud",
        "--webhook-url",
        PLATFORM_HOOK,
        "--dispatch-platform",
    )
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    account = Account.objects.get(slug=printed["slug"])
    assert account.dispatch_platform
    assert printed["signingSecret"] == account.signing_secret
