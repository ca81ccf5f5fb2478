"""quote_price / quote_create / tariff selection / quote_get_for_redemption."""

import dataclasses
import datetime as dt
import json
from decimal import Decimal

import pytest
import time_machine
from django.utils import timezone

from core.errors import DomainError
from partners.models import Account
from pricing.catalogue import tariff_compile
from pricing.loaders import lifecycle_from_status
from pricing.models import Quote, Tariff, TariffLifecycle
from pricing.selectors import quote_get_for_redemption
from pricing.services import PricedJourney, quote_create, quote_price
from pricing.tests.factories import TariffBandFactory, TariffFactory
from pricing.vehicles import VEHICLE_CLASS_BY_CODE, VEHICLE_CLASSES, vehicle_factors

NOON = dt.datetime(2030, 6, 5, 11, 0, tzinfo=dt.UTC)  # 12:00 BST, a Wednesday


def priced(**overrides) -> PricedJourney:
    kwargs = {
        "pickup": "Manchester Piccadilly",
        "dropoff": "Manchester Airport",
        "passengers": 1,
        "vehicle_type": None,
        "depart_at": NOON,
    }
    return quote_price(**{**kwargs, **overrides})


def sum_rules(journey) -> Decimal:
    return sum((Decimal(str(r["amountGBP"])) for r in journey.applied_rules), Decimal(0))


@pytest.mark.django_db
def test_priced_journey_shape(tariffs):
    journey = priced()
    assert journey.currency == "GBP"
    assert journey.tariff_source["kind"] == "council"
    assert journey.tariff_source["name"] == "Manchester City Council"
    assert journey.tariff_source["reference"] == "manchester-2023-09"
    assert journey.tariff_source["effectiveFrom"] == "2023-09-15"
    assert journey.pickup.kind == "station"
    assert journey.dropoff.kind == "airport"
    assert journey.distance_miles > 0
    assert journey.duration_minutes > 0
    assert sum_rules(journey) == journey.fare
    # the airport drop-off barrier applies to a drop at the terminal
    assert "airport_charge" in [r["code"] for r in journey.applied_rules]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("pickup", "reference"),
    [
        ("Manchester", "manchester-2023-09"),
        ("Glasgow", "glasgow-2025"),
        ("Yate", "south-glos-2025-04"),  # the 2023/24 table was replaced on 1 April 2025
        ("Sheffield", "sheffield-current"),
        ("Newport station", "newport-2022-09"),
        ("Eastwood", "broxtowe-current"),  # Nottinghamshire, Broxtowe's district
        ("Totnes", "south-hams-2022"),
        # North Yorkshire's 2024 variation, in force by September 2025 (its day not found)
        ("Harrogate", "north-yorkshire-2024-proposed"),
        # historical (Cambridge 2023, Bracknell 2011 and 2022, Brighton, TfL 2017), partial
        # (Cambridge 2024, Bracknell 2026, Brighton 2022-10, Reading 2023, TfL 2025) tables
        # are skipped: the network's own rate prices these
        ("Cambridge", "network-standard"),
        ("Bracknell", "network-standard"),
        ("Reading", "network-standard"),
        ("Brighton", "network-standard"),
        ("London", "network-standard"),
        ("Leeds", "network-standard"),
        # Aberdeen's 2023 table is historical and its 2025 one partial; Nottingham's and
        # Wirral's are partial
        ("Aberdeen", "network-standard"),
        ("Nottingham", "network-standard"),
        ("Birkenhead", "network-standard"),
        # Coventry's 2022 table is partial (the day rate's start and increment only)
        ("Coventry", "network-standard"),
        # South Ribble's complete table is partial: a further rise may have replaced it
        ("Leyland", "network-standard"),
    ],
)
def test_tariff_selection_by_pickup(tariffs, pickup, reference):
    journey = priced(pickup=pickup, dropoff="York")
    assert journey.tariff_source["reference"] == reference
    expected_kind = "operator" if reference == "network-standard" else "council"
    assert journey.tariff_source["kind"] == expected_kind


@pytest.mark.django_db
def test_latest_complete_current_tariff_of_a_council_wins(tariffs):
    manchester = tariffs["manchester-2023-09"]
    # a newer table with missing figures is skipped...
    incomplete = TariffBandFactory(
        tariff__reference="manchester-2026-draft",
        tariff__name="draft",
        tariff__authority="Manchester City Council",
        tariff__effective_from=dt.date(2026, 1, 1),
        tariff__areas_gss=["E08000003"],
        name="All",
        flag_fall_gbp=Decimal("9"),
        # missing figures: the table is incomplete
        flag_fall_distance_m=None,
        increment_distance_m=None,
        increment_price_gbp=None,
        waiting_seconds_per_increment=None,
    ).tariff
    assert priced().tariff_source["reference"] == manchester.reference
    # ...a newer complete one wins; a historical one never does
    band = incomplete.bands.get()
    band.flag_fall_distance_m, band.increment_distance_m = Decimal(300), Decimal(100)
    band.increment_price_gbp, band.waiting_seconds_per_increment = Decimal("0.2"), Decimal(30)
    band.save()
    assert priced().tariff_source["reference"] == "manchester-2026-draft"
    Tariff.objects.filter(pk=incomplete.pk).update(lifecycle=TariffLifecycle.HISTORICAL)
    Tariff.objects.get(pk=incomplete.pk).save()
    assert priced().tariff_source["reference"] == manchester.reference


@pytest.mark.django_db
def test_a_table_naming_no_district_covers_every_district_of_its_authority(tariffs):
    # areas_gss empty: the whole authority (pricing.models.Tariff.areas_gss). Newer than
    # Manchester's district table, so it is tried first once it is found by its authority.
    TariffBandFactory(
        tariff__reference="manchester-authority-2026",
        tariff__authority="Manchester City Council",
        tariff__effective_from=dt.date(2026, 1, 1),
        tariff__areas_gss=[],
    )
    assert priced().tariff_source["reference"] == "manchester-authority-2026"


@pytest.mark.django_db
def test_editing_a_band_changes_the_next_fare(tariffs):
    before = priced().fare
    band = tariffs["manchester-2023-09"].bands.get(name="Tariff 1 Day")
    band.flag_fall_gbp += Decimal("1.00")
    band.save()
    assert priced().fare == before + Decimal("1.00")


@pytest.mark.django_db
def test_account_rate_is_used_for_its_jobs(tariffs):
    operator = Account.objects.create(kind="operator", name="Acme Cars", slug="acme")
    TariffBandFactory(
        tariff__reference="acme-rate",
        tariff__name="Acme approved rate",
        tariff__authority="Acme Cars",
        tariff__kind="operator",
        tariff__account=operator,
        name="Flat",
        flag_fall_gbp=Decimal("10"),
        flag_fall_distance_m=Decimal(1),
        increment_distance_m=Decimal(1000),
        increment_price_gbp=Decimal("1.00"),
        waiting_seconds_per_increment=Decimal(600),
    )
    assert priced(account=operator).tariff_source["reference"] == "acme-rate"
    assert priced().tariff_source["reference"] == "manchester-2023-09"
    # abroad too, the account's own rate comes before the worldwide rate
    abroad = priced(account=operator, pickup="Paris", dropoff="CDG", worldwide=True)
    assert abroad.tariff_source["reference"] == "acme-rate"


@pytest.mark.django_db
def test_an_account_rate_is_tried_on_the_public_holidays_of_the_pickup_s_nation(tariffs):
    # The account's rate (nation England by default) has no band on public holidays. On
    # 2 January, a bank holiday in Scotland only, it cannot price an Aberdeen pickup and
    # the network's rate does; an English pickup that day it prices.
    operator = Account.objects.create(kind="operator", name="Acme Cars", slug="acme")
    TariffBandFactory(
        tariff__reference="acme-rate",
        tariff__authority="Acme Cars",
        tariff__kind="operator",
        tariff__account=operator,
        name="Not on holidays",
        excludes=[{"type": "public_holiday"}],
    )
    second_of_january = dt.datetime(2030, 1, 2, 12, 0, tzinfo=dt.UTC)
    in_aberdeen = priced(
        account=operator, pickup="Aberdeen", dropoff="York", depart_at=second_of_january
    )
    assert in_aberdeen.tariff_source["reference"] == "network-standard"
    in_manchester = priced(account=operator, depart_at=second_of_january)
    assert in_manchester.tariff_source["reference"] == "acme-rate"


@pytest.mark.django_db
def test_worldwide_journeys_use_the_worldwide_rate(tariffs):
    journey = priced(pickup="Paris", dropoff="CDG", worldwide=True)
    assert journey.tariff_source["kind"] == "worldwide"
    with pytest.raises(DomainError) as exc:
        priced(pickup="Paris", dropoff="CDG")
    assert exc.value.code == "outside_service_area"
    assert list(exc.value.errors) == ["pickup"]


@pytest.mark.django_db
def test_unlocatable_address_is_422_naming_the_field(tariffs):
    with pytest.raises(DomainError) as exc:
        priced(dropoff="Xyzzy Plugh Nowhere")
    assert exc.value.code == "address_not_found"
    assert list(exc.value.errors) == ["dropoff"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("passengers", "vehicle"),
    [(1, "saloon"), (4, "saloon"), (5, "5seater"), (6, "6seater"), (7, "7seater"), (8, "mpv")],
)
def test_default_vehicle_is_the_smallest_that_seats_the_party(tariffs, passengers, vehicle):
    assert priced(passengers=passengers).vehicle_type == vehicle


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("vehicle", "seats"),
    [
        ("saloon", 4),
        ("estate", 4),
        ("executive", 4),
        ("luxury", 4),
        ("wav", 4),
        ("5seater", 5),
        ("6seater", 6),
        ("7seater", 7),
    ],
)
def test_vehicle_too_small_for_the_party(tariffs, vehicle, seats):
    priced(vehicle_type=vehicle, passengers=seats)
    with pytest.raises(DomainError) as exc:
        priced(vehicle_type=vehicle, passengers=seats + 1)
    assert exc.value.code == "vehicle_too_small"
    assert list(exc.value.errors) == ["vehicleType"]


@pytest.mark.django_db
def test_vehicle_classes_scale_and_wav_never_costs_more_than_saloon(tariffs, settings):
    # On the network's rate (a council's table is never scaled by the class).
    network = {"pickup": "Leeds station", "dropoff": "York"}
    fares = {
        v: priced(**network, vehicle_type=v).fare
        for v in ("saloon", "wav", "executive", "luxury", "mpv", "6seater", "7seater")
    }
    assert fares["wav"] == fares["saloon"]
    for dearer in ("executive", "luxury", "mpv", "6seater", "7seater"):
        assert fares[dearer] > fares["saloon"]
    # even a misconfigured factor cannot make a wheelchair user pay more (EA 2010 s165)
    settings.PRICING_VEHICLE_FACTORS = {"wav": "2.0"}
    assert priced(**network, vehicle_type="wav").fare == fares["saloon"]


@pytest.mark.django_db
def test_meet_and_greet_adds_25_pounds_to_an_airport_pickup(tariffs):
    airport = {"pickup": "Manchester Airport", "dropoff": "Manchester Piccadilly"}
    assert priced(**airport, meet_and_greet=True).fare - priced(**airport).fare == Decimal("25")


@pytest.mark.django_db
@pytest.mark.parametrize("pickup", ["Leeds station", "Manchester Piccadilly", "York"])
def test_meet_and_greet_away_from_an_airport_is_invalid_input(tariffs, pickup):
    with pytest.raises(DomainError) as caught:
        priced(pickup=pickup, dropoff="Manchester Airport", meet_and_greet=True)
    assert caught.value.code == "invalid_input"
    assert caught.value.errors == {"meetAndGreet": ["Only for airport pickups."]}


@pytest.mark.django_db
def test_partner_fare_override(tariffs):
    partner = Account.objects.create(kind="partner", name="Travel Co", slug="travelco")
    journey = priced(account=partner, fare_override=Decimal("42.5"))
    assert journey.fare == Decimal("42.50")
    assert journey.applied_rules == [
        {"code": "partner_fare", "label": "Fare agreed by the sender", "amountGBP": 42.5}
    ]
    assert journey.tariff_source["kind"] == "partner"


@pytest.mark.django_db
def test_naive_departure_is_utc(tariffs):
    journey = priced(depart_at=NOON.replace(tzinfo=None))
    assert journey.depart_at == NOON


@pytest.mark.django_db
def test_quote_create_freezes_the_price_for_24_hours(tariffs):
    with time_machine.travel(dt.datetime(2030, 6, 1, 9, 0, tzinfo=dt.UTC), tick=False):
        quote = quote_create(
            pickup="Leeds", dropoff="York", passengers=2, vehicle_type=None, depart_at=NOON
        )
    assert quote.expires_at - quote.created_at == dt.timedelta(hours=24)
    assert quote.fare == sum(
        (Decimal(str(r["amountGBP"])) for r in quote.applied_rules), Decimal(0)
    )
    stored = Quote.objects.get(pk=quote.pk)
    assert stored.tariff_source["kind"] == "operator"
    assert stored.redeemed_at is None


@pytest.mark.django_db
def test_redemption_selector(tariffs):
    with time_machine.travel(dt.datetime(2030, 6, 1, 9, 0, tzinfo=dt.UTC), tick=False) as t:
        quote = quote_create(
            pickup="Leeds", dropoff="York", passengers=1, vehicle_type=None, depart_at=NOON
        )
        assert quote_get_for_redemption(str(quote.pk)) == quote
        t.shift(dt.timedelta(hours=23, minutes=59))
        assert quote_get_for_redemption(quote.pk) == quote
        t.shift(dt.timedelta(minutes=1))
        with pytest.raises(DomainError) as exc:
            quote_get_for_redemption(quote.pk)
    assert exc.value.code == "quote_expired"
    assert "expired at 2030-06-02T09:00:00Z" in exc.value.detail


@pytest.mark.django_db
@pytest.mark.parametrize(
    "quote_id", ["not-a-uuid", "", None, "6f1c2d3e-0000-4000-8000-000000000000"]
)
def test_unknown_or_malformed_quote_is_404(quote_id):
    with pytest.raises(DomainError) as exc:
        quote_get_for_redemption(quote_id)
    assert exc.value.code == "quote_not_found"


@pytest.mark.django_db
def test_tariffs_load_is_idempotent_and_keeps_marks():
    from pricing.loaders import DATA_FILE, tariffs_load

    # every council table in the data, plus the network rate and the worldwide rate
    every_table = len(json.loads(DATA_FILE.read_text())["tariffs"]) + 2
    assert tariffs_load(estimates=False) == every_table
    assert tariffs_load(estimates=False) == 0
    tfl = Tariff.objects.get(reference="tfl-2025")
    assert tfl.lifecycle == TariffLifecycle.PARTIAL
    assert "increments" in tfl.uncertain
    assert tfl.effective_date_text == "2025-04 (day not found)"
    assert Tariff.objects.get(reference="brighton-2022").lifecycle == TariffLifecycle.HISTORICAL
    assert Tariff.objects.get(reference="network-standard").kind == "operator"


def _manchester_rise(effective_from: dt.date, **fields) -> Tariff:
    """A complete Manchester table starting on ``effective_from`` (a flag fall of £9 that
    no real table has, so a quote shows at once which table priced it)."""
    rise = TariffFactory(
        reference="manchester-rise",
        name="rise",
        authority="Manchester City Council",
        effective_from=effective_from,
        areas_gss=["E08000003"],
        **fields,
    )
    TariffBandFactory(
        tariff=rise,
        name="All",
        flag_fall_gbp=Decimal("9"),
        flag_fall_distance_m=Decimal(300),
        increment_distance_m=Decimal(100),
        increment_price_gbp=Decimal("0.2"),
        waiting_seconds_per_increment=Decimal(30),
    )
    return rise


@pytest.mark.django_db
def test_an_announced_rise_prices_journeys_from_its_first_day(tariffs):
    # Given a rise announced to start on the day of the pickup (London date)...
    start = NOON.date()
    _manchester_rise(start)
    # ...a journey the evening before is priced on the table in force then
    eve = dt.datetime.combine(start - dt.timedelta(days=1), dt.time(18), dt.UTC)
    assert priced(depart_at=eve).tariff_source["reference"] == "manchester-2023-09"
    # and one on the first day on the new table
    journey = priced(depart_at=NOON)
    assert journey.tariff_source["reference"] == "manchester-rise"
    assert journey.tariff_source["effectiveFrom"] == start.isoformat()


@pytest.mark.django_db
def test_the_first_day_follows_the_london_date_not_utc(tariffs):
    # 23:30 UTC on a summer evening is already 00:30 BST of the new table's first day.
    start = NOON.date()
    _manchester_rise(start)
    late = dt.datetime.combine(start - dt.timedelta(days=1), dt.time(23, 30), dt.UTC)
    assert priced(depart_at=late).tariff_source["reference"] == "manchester-rise"


@pytest.mark.django_db
def test_a_replaced_table_prices_no_journey_after_its_end(tariffs):
    # Given a table whose replacement starts on the pickup's date, with the replacement
    # not loaded: the ended table does not price, the network's rate does, and the quote
    # names the authority whose table is missing.
    rise = _manchester_rise(NOON.date() - dt.timedelta(days=400))
    Tariff.objects.filter(pk=rise.pk).update(effective_to=NOON.date())
    Tariff.objects.filter(reference="manchester-2023-09").update(effective_to=NOON.date())
    Tariff.objects.get(pk=rise.pk).save()
    before = priced(depart_at=NOON - dt.timedelta(days=1))
    after = priced()
    assert before.tariff_source["reference"] == "manchester-rise"
    assert after.tariff_source["kind"] == "operator"
    assert after.tariff_source["licensingAuthority"] == "Manchester City Council"


# --- the replacement day's edge, each check on its own (issue 37) -------------------------
# Two checks keep a replaced table from pricing: its lifecycle (historical once its
# effective_to is today or earlier, set at load) and the date check at selection
# (CompiledTariff.in_force_on). A test where both apply hides a break in either.


@pytest.mark.django_db
def test_a_table_is_in_force_from_its_first_day_until_the_day_before_its_replacement():
    first, replaced = dt.date(2030, 4, 1), dt.date(2030, 6, 5)
    compiled = tariff_compile(
        _manchester_rise(first, effective_to=replaced, lifecycle=TariffLifecycle.CURRENT)
    )
    day = dt.timedelta(days=1)
    assert [compiled.in_force_on(d) for d in (first - day, first, replaced - day, replaced)] == [
        False,
        True,
        True,
        False,
    ]
    open_ended = dataclasses.replace(compiled, effective_from=None, effective_to=None)
    assert open_ended.in_force_on(dt.date(1990, 1, 1))
    assert open_ended.in_force_on(dt.date(2099, 1, 1))


@pytest.mark.django_db
def test_on_the_replacement_day_a_current_table_still_does_not_price(tariffs):
    """Only the date check: the ended table's lifecycle is left current (its
    replacement day is in the future of the clock), so the lifecycle cannot hide it."""
    Tariff.objects.filter(reference="manchester-2023-09").update(effective_to=NOON.date())
    Tariff.objects.get(reference="manchester-2023-09").save()
    assert Tariff.objects.get(reference="manchester-2023-09").lifecycle == "current"
    eve = dt.datetime.combine(NOON.date() - dt.timedelta(days=1), dt.time(22, 59), dt.UTC)
    assert priced(depart_at=eve).tariff_source["reference"] == "manchester-2023-09"
    # 23:00 UTC the evening before is 00:00 BST of the replacement day (London's date)
    midnight = dt.datetime.combine(eve.date(), dt.time(23, 0), dt.UTC)
    assert priced(depart_at=midnight).tariff_source["kind"] == "operator"


def test_a_table_whose_replacement_is_in_force_loads_as_historical_whatever_its_wording():
    """Only the lifecycle: a table ending today is historical, one ending tomorrow is not."""
    today = timezone.localdate()
    day = dt.timedelta(days=1)
    assert lifecycle_from_status("current", today) == TariffLifecycle.HISTORICAL
    assert lifecycle_from_status("current", today - day) == TariffLifecycle.HISTORICAL
    assert lifecycle_from_status("current", today + day) == TariffLifecycle.CURRENT
    assert lifecycle_from_status("current", None) == TariffLifecycle.CURRENT
    assert lifecycle_from_status("proposed", today + day) == TariffLifecycle.PROPOSED


@pytest.mark.django_db
@pytest.mark.parametrize("vehicle", [vc.code for vc in VEHICLE_CLASSES])
def test_a_councils_table_is_never_multiplied_by_the_vehicle_class(tariffs, vehicle):
    # Issue 33: a council's fares are maxima; a 6-seater no longer multiplies them by 1.3.
    # Its own rules for more passengers (its extras) still apply, by passengers.
    journey = priced(vehicle_type=vehicle)
    assert priced(vehicle_type=vehicle, passengers=VEHICLE_CLASS_BY_CODE[vehicle].seats)
    assert journey.vehicle_type == vehicle
    assert journey.tariff_source["reference"] == "manchester-2023-09"
    assert journey.fare == priced(vehicle_type="saloon").fare
    assert not any(rule["code"] == "vehicle_class" for rule in journey.applied_rules)


@pytest.mark.django_db
@pytest.mark.parametrize("vehicle", [vc.code for vc in VEHICLE_CLASSES])
def test_the_network_rate_is_priced_with_the_class_factor(tariffs, vehicle):
    journey = priced(pickup="Leeds station", dropoff="York", vehicle_type=vehicle)
    assert journey.tariff_source["basis"] == "network"
    saloon = priced(pickup="Leeds station", dropoff="York", vehicle_type="saloon").fare
    factor = vehicle_factors()[vehicle]
    if factor == 1:
        assert journey.fare == saloon
    else:
        assert journey.fare > saloon
        assert any(rule["label"].startswith(f"{vehicle}: x") for rule in journey.applied_rules)


@pytest.mark.django_db
def test_a_piccadilly_pickup_pays_the_station_barrier_and_others_do_not(tariffs):
    journey = priced(pickup="Manchester Piccadilly", dropoff="Old Trafford")
    barrier = [r for r in journey.applied_rules if r["code"] == "station_charge"]
    assert barrier == [
        {"code": "station_charge", "label": "Piccadilly Station barrier", "amountGBP": 0.6}
    ]
    assert sum_rules(journey) == journey.fare
    elsewhere = priced(pickup="Manchester Victoria", dropoff="Old Trafford")
    assert not any(r["code"] == "station_charge" for r in elsewhere.applied_rules)
    towards = priced(pickup="Old Trafford", dropoff="Manchester Piccadilly")
    assert not any(r["code"] == "station_charge" for r in towards.applied_rules)


@pytest.mark.parametrize(
    ("status", "lifecycle"),
    [
        ("Historical", TariffLifecycle.HISTORICAL),
        ("superseded by the 2024 table", TariffLifecycle.HISTORICAL),
        ("PROPOSED (consultation)", TariffLifecycle.PROPOSED),
        ("partial: waiting time missing", TariffLifecycle.PARTIAL),
        ("in force", TariffLifecycle.CURRENT),
        ("", TariffLifecycle.CURRENT),
        (None, TariffLifecycle.CURRENT),
    ],
)
def test_the_data_s_status_wording_gives_the_lifecycle_in_any_case(status, lifecycle):
    """The wording alone (no replacement date): each word, in any case, and no wording."""
    assert lifecycle_from_status(status) == lifecycle


@pytest.mark.django_db
def test_an_account_whose_rate_cannot_price_gets_each_pickup_s_own_council_table(tariffs):
    """The account's rate not yet in force: each pickup falls to its own council's table,
    the first pickup's tables never carried into the next (the catalogue is shared)."""
    operator = Account.objects.create(kind="operator", name="Acme Cars", slug="acme")
    TariffBandFactory(
        tariff__reference="acme-rate-2031",
        tariff__name="Acme approved rate from 2031",
        tariff__authority="Acme Cars",
        tariff__kind="operator",
        tariff__account=operator,
        tariff__effective_from=dt.date(2031, 1, 1),
        name="Flat",
        flag_fall_gbp=Decimal("10"),
        flag_fall_distance_m=Decimal(1),
        increment_distance_m=Decimal(1000),
        increment_price_gbp=Decimal("1.00"),
        waiting_seconds_per_increment=Decimal(600),
    )
    first = priced(account=operator, pickup="Manchester", dropoff="York")
    second = priced(account=operator, pickup="Glasgow", dropoff="York")
    assert first.tariff_source["reference"] == "manchester-2023-09"
    assert second.tariff_source["reference"] == "glasgow-2025"


@pytest.mark.django_db
def test_an_account_without_a_rate_of_its_own_is_priced_by_the_council_table(tariffs):
    partner = Account.objects.create(kind="partner", name="Hotel Desk", slug="hotel-desk")
    assert priced(account=partner).tariff_source["reference"] == "manchester-2023-09"


@pytest.mark.django_db
def test_with_no_table_that_can_price_the_refusal_is_tariff_incomplete_with_its_sentence(
    tariffs,
):
    """Leeds has no current council table; without the network's rate nothing prices it."""
    Tariff.objects.filter(reference="network-standard").update(is_active=False)
    Tariff.objects.get(reference="network-standard").save()
    with pytest.raises(DomainError) as refused:
        priced(pickup="Leeds station", dropoff="York")
    assert refused.value.code == "tariff_incomplete"
    assert refused.value.detail == (
        "No loaded tariff can price this journey at that time; the tables for this area "
        "are missing figures."
    )
