"""Demo data: tariffs, drivers in several cities, demo accounts. Safe to run again.

Logins are created only under the local configuration (``SEED_DEMO_BACK_OFFICE_USER``),
never under production settings: the back-office user (admin/admin), one login per demo
driver and one for the demo operator, whose own fleet is the two Leeds drivers. Their
passwords are reset to the printed demo values on every run.
"""

from __future__ import annotations

import json
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from drivers.demo import DEMO_DRIVERS, demo_licence_number
from drivers.models import Driver, DriverStage, NetworkTier, Vehicle
from drivers.services import driver_position_index
from partners.models import Account, OperatorUser
from partners.services import account_create


class Command(BaseCommand):
    help = "Load tariffs, demo drivers and demo accounts (idempotent)."

    def handle(self, *args, **options):
        self.stdout.write("Loading council tariffs ...")
        call_command("load_tariffs", stdout=self.stdout)
        logins: list[tuple[str, str, str]] = []
        with transaction.atomic():
            self._drivers()
            keys = self._accounts()
            if settings.SEED_DEMO_BACK_OFFICE_USER:
                self._admin()
                logins = self._driver_logins() + self._operator_login()
        if keys:
            self.stdout.write("Demo API keys (shown once):")
            for line in keys:
                self.stdout.write("  " + json.dumps(line))
        if logins:
            self.stdout.write("Demo logins (local demo only; passwords reset on every run):")
            for who, username, password in logins:
                self.stdout.write(f"  {who:<32} {username} / {password}")
            self.stdout.write(
                f"  drivers log in at {settings.SITE_URL}/driver/login/, "
                f"the operator at {settings.SITE_URL}/operator/login/"
            )
            self.stdout.write(
                "To see an offer pass from one driver to the next: sign in to the driver app "
                f"({settings.SITE_URL}/driver/app/) as asha.khan in one browser and as "
                "ben.walsh in another (a private window); book a journey from Leeds station "
                f"on {settings.SITE_URL}/ ; Asha (nearer) is offered it: tap Decline, and "
                "within seconds Ben is offered it (or wait 60 s and it times out to him)."
            )
        self.stdout.write(self.style.SUCCESS("Demo data ready."))

    def _drivers(self) -> None:
        now = timezone.now()
        for index, (name, city, lat, lng, authority, vehicle) in enumerate(DEMO_DRIVERS, 1):
            driver, created = Driver.objects.get_or_create(
                licence_number=demo_licence_number(index),
                defaults={
                    "name": name,
                    "phone": f"+4477009000{index:02d}",
                    "stage": DriverStage.TRIAL,
                    "approved_at": now,
                    "licensing_authority": authority,
                    "licence_expiry": timezone.localdate() + timedelta(days=365),
                    "base_city": city,
                    "base_lat": lat,
                    "base_lng": lng,
                    "operating_radius_km": 30,
                    "network": NetworkTier.NATIONAL if index == 4 else NetworkTier.LOCAL,
                    "online": True,
                    "last_lat": lat,
                    "last_lng": lng,
                    "last_seen_at": now,
                    "max_jobs": 1,
                },
            )
            if created:
                make, model, colour, vehicle_class, seats, wav = vehicle
                Vehicle.objects.create(
                    driver=driver,
                    make=make,
                    model=model,
                    colour=colour,
                    registration=f"DM{index:02d} DEM",
                    vehicle_class=vehicle_class,
                    seats=seats,
                    wheelchair_accessible=wav,
                    licensing_authority=authority,
                    plate_expiry=timezone.localdate() + timedelta(days=365),
                )
            else:
                Driver.objects.filter(pk=driver.pk).update(online=True, last_seen_at=now)
                driver.refresh_from_db()
            # Into the live-position index as going online puts them (with Redis).
            driver_position_index(driver=driver, at=now)
        self.stdout.write(f"  {len(DEMO_DRIVERS)} demo drivers online")

    def _accounts(self) -> list[dict]:
        issued = []
        for kind, name, slug in (
            ("partner", "Demo Partner Platform", "demo-partner"),
            ("operator", "Demo Operator", "demo-operator"),
            ("supplier", "Demo Supplier", "demo-supplier"),
            ("agent", "Demo AI Agent", "demo-agent"),
        ):
            if Account.objects.filter(slug=slug).exists():
                continue
            account, raw_key = account_create(kind=kind, name=name, slug=slug, approved=True)
            issued.append(
                {
                    "slug": slug,
                    "kind": kind,
                    "apiKey": raw_key,
                    "signingSecret": account.signing_secret,
                }
            )
        return issued

    def _driver_logins(self) -> list[tuple[str, str, str]]:
        """Each demo driver logs in at /driver/login/ as firstname.lastname."""
        logins = []
        for index, (name, *_rest) in enumerate(DEMO_DRIVERS, 1):
            driver = Driver.objects.get(licence_number=demo_licence_number(index))
            username = name.lower().replace(" ", ".")
            password = f"demo-{name.split()[0].lower()}"
            user = self._user_with_password(username, password, email=f"{username}@example.com")
            Driver.objects.filter(pk=driver.pk).update(user=user)
            logins.append((f"driver {name} ({driver.base_city})", username, password))
        return logins

    def _operator_login(self) -> list[tuple[str, str, str]]:
        """The demo operator logs in at /operator/login/; its own fleet is the Leeds drivers."""
        account = Account.objects.get(slug="demo-operator")
        user = self._user_with_password("operator", "demo-operator", email="operator@example.com")
        OperatorUser.objects.update_or_create(user=user, defaults={"account": account})
        Driver.objects.filter(
            licence_number__in=[demo_licence_number(1), demo_licence_number(2)]
        ).update(operator=account)
        return [(f"operator {account.name}", "operator", "demo-operator")]

    def _user_with_password(self, username: str, password: str, *, email: str):
        user, _ = get_user_model().objects.get_or_create(
            username=username, defaults={"email": email}
        )
        user.set_password(password)
        user.save(update_fields=["password"])
        return user

    def _admin(self) -> None:
        user_model = get_user_model()
        if not user_model.objects.filter(username="admin").exists():
            user_model.objects.create_superuser("admin", "admin@example.com", "admin")
            self.stdout.write("  admin user: admin / admin (local demo only)")
