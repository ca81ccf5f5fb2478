"""Keeping the registry true (issue 21): the back office shows each table's age, last
check and source; ``manage.py tariffs_stale`` lists the tables not checked for a year."""

import datetime as dt
import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from pricing.models import Tariff
from pricing.staleness import STALE_AFTER_DAYS, tariff_is_stale, tariffs_stale

pytestmark = pytest.mark.django_db


def test_a_current_table_not_checked_for_a_year_is_stale(tariffs):
    manchester = tariffs["manchester-2023-09"]
    today = timezone.localdate()
    manchester.checked_on = today - dt.timedelta(days=STALE_AFTER_DAYS)
    assert not tariff_is_stale(manchester, today=today)
    manchester.checked_on = today - dt.timedelta(days=STALE_AFTER_DAYS + 1)
    assert tariff_is_stale(manchester, today=today)
    manchester.checked_on = None
    assert tariff_is_stale(manchester, today=today)


def test_historical_tables_and_the_networks_rates_are_never_stale(tariffs):
    assert not tariff_is_stale(tariffs["tfl-2017-06"])  # replaced: nobody will republish it
    assert not tariff_is_stale(tariffs["network-standard"])


def test_the_command_lists_the_stale_tables_with_their_source(tariffs):
    Tariff.objects.filter(reference="glasgow-2025").update(checked_on=None)
    Tariff.objects.filter(reference="manchester-2023-09").update(checked_on=timezone.localdate())
    out = io.StringIO()
    call_command("tariffs_stale", stdout=out)
    lines = out.getvalue().splitlines()
    listed = {line.split("\t")[0] for line in lines[:-1]}
    assert "glasgow-2025" in listed
    assert "manchester-2023-09" not in listed
    assert "tfl-2017-06" not in listed
    glasgow = next(line for line in lines if line.startswith("glasgow-2025"))
    assert "checked never" in glasgow
    assert "https://" in glasgow
    assert lines[-1] == f"{len(tariffs_stale())} table(s) not checked for {STALE_AFTER_DAYS} days."


def test_the_back_office_list_shows_age_check_and_source(client, django_user_model, tariffs):
    user = django_user_model.objects.create_superuser("ops", "ops@example.com", "pw-not-used")
    client.force_login(user)
    page = client.get(reverse("admin:pricing_tariff_changelist"))
    assert page.status_code == 200
    html = page.content.decode()
    assert "manchester.gov.uk" in html  # the source link
    assert "Not checked for 365 days" in html
    start = tariffs["manchester-2023-09"].effective_from
    years = (timezone.localdate() - start).days // 365
    assert f"{years} y" in html
