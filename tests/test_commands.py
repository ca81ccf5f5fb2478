"""Management commands of contract section 9."""

import json

import pytest
from django.core.management import call_command

from partners.models import Account, AccountKey

pytestmark = pytest.mark.django_db


def test_create_account_prints_key_once_on_its_last_line(capsys):
    call_command(
        "create_account",
        "--kind",
        "operator",
        "--name",
        "Leeds Cars",
        "--approved",
        "--webhook-url",
        "https://leeds-cars.example/hooks",
        "--daily-limit",
        "250",
    )
    last_line = capsys.readouterr().out.strip().splitlines()[-1]
    printed = json.loads(last_line)
    assert set(printed) == {"slug", "kind", "apiKey", "signingSecret"}
    assert printed["slug"] == "leeds-cars"
    assert printed["kind"] == "operator"
    account = Account.objects.get(slug="leeds-cars")
    assert account.approved
    assert account.daily_job_limit == 250
    assert account.webhook_url == "https://leeds-cars.example/hooks"
    assert printed["signingSecret"] == account.signing_secret
    # The key works and is stored only as a hash.
    assert AccountKey.objects.get_from_key(printed["apiKey"]).account == account
    assert printed["apiKey"] not in AccountKey.objects.get(account=account).hashed_key


def test_seed_demo_is_idempotent(capsys):
    from bookings.models import Booking
    from drivers.models import Driver
    from pricing.models import Tariff

    call_command("seed_demo")
    counts = (Tariff.objects.count(), Driver.objects.count(), Account.objects.count())
    call_command("seed_demo")
    assert (Tariff.objects.count(), Driver.objects.count(), Account.objects.count()) == counts
    assert counts[0] > 5
    assert counts[1] >= 5
    assert {a.kind for a in Account.objects.all()} == {"partner", "operator", "supplier", "agent"}
    assert not Booking.objects.exists()


def test_production_settings_pass_check_deploy():
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "SECRET_KEY": "a-long-random-production-secret-key-for-the-deploy-check-0123456789",
        "SITE_URL": "https://taxi.example",
        "ALLOWED_HOSTS": "taxi.example",
    }
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_load_tariffs_loads_once_and_creates_no_accounts_or_users(capsys):
    """Issue 13: "`seed_demo` ... is the only command that loads tariffs, so production
    must run it"."""
    from django.contrib.auth import get_user_model

    from pricing.models import Tariff

    call_command("load_tariffs")
    count = Tariff.objects.count()
    call_command("load_tariffs")
    assert count > 5
    assert Tariff.objects.count() == count
    assert not Account.objects.exists()
    assert not get_user_model().objects.exists()


def test_seed_demo_creates_no_back_office_user_outside_the_local_configuration(settings):
    """Issue 13: "`seed_demo` creates an `admin`/`admin` superuser under any settings"."""
    from django.contrib.auth import get_user_model

    settings.SEED_DEMO_BACK_OFFICE_USER = False  # production, test
    call_command("seed_demo")
    assert not get_user_model().objects.exists()

    settings.SEED_DEMO_BACK_OFFICE_USER = True  # the local configuration
    call_command("seed_demo")
    assert get_user_model().objects.get(username="admin").is_superuser


def _printed_logins(output: str) -> dict[str, str]:
    """username -> password from seed_demo's "Demo logins" lines."""
    lines = output.split("Demo logins", 1)[1].splitlines()[1:]
    pairs = [line.rsplit(" ", 3)[-3:] for line in lines if " / " in line]
    return {username: password for username, _slash, password in pairs}


def test_seed_demo_prints_a_working_login_for_each_demo_driver_and_the_operator(
    settings, capsys, client
):
    """Issue 16: "The six demo drivers have no login ... seed_demo prints a login for each
    demo driver and the demo operator"."""
    from django.contrib.auth import get_user_model

    from drivers.models import Driver
    from operations.management.commands.seed_demo import DEMO_DRIVERS

    # Given the local configuration, when seed_demo runs twice
    settings.SEED_DEMO_BACK_OFFICE_USER = True
    call_command("seed_demo")
    users = get_user_model().objects.count()
    call_command("seed_demo")
    logins = _printed_logins(capsys.readouterr().out.rsplit("Loading council tariffs", 1)[1])

    # Then nothing is created twice, and it printed one login per demo driver and operator
    assert get_user_model().objects.count() == users
    assert len(logins) == len(DEMO_DRIVERS) + 1
    for username, password in logins.items():
        assert client.login(username=username, password=password), username
        user = get_user_model().objects.get(username=username)
        if username == "operator":
            page = client.get("/operator/")
            assert page.status_code == 200
            assert "Demo Operator" in page.content.decode()
            assert client.get("/operator/calendar/").status_code == 200
        else:
            driver = Driver.objects.get(user=user)
            page = client.get("/driver/dashboard/")
            assert page.status_code == 200
            assert driver.name in page.content.decode()
        client.logout()
    # and the operator's own fleet is the two Leeds drivers, so it has someone to assign
    assert set(
        Driver.objects.filter(operator__slug="demo-operator").values_list("base_city", flat=True)
    ) == {"Leeds"}


def test_seed_demo_gives_no_logins_outside_the_local_configuration(settings, capsys):
    from drivers.models import Driver

    settings.SEED_DEMO_BACK_OFFICE_USER = False
    call_command("seed_demo")
    assert "Demo logins" not in capsys.readouterr().out
    assert not Driver.objects.filter(user__isnull=False).exists()
