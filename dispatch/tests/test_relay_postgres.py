"""The dispatcher on PostgreSQL, with real commits, threads and processes.

- two dispatchers never claim the same booking (SKIP LOCKED);
- the dispatcher wakes on the insert trigger's NOTIFY, not on its poll;
- a web process killed (SIGKILL) right after it committed bookings loses none of them.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests
from django.db import connection

from bookings.models import Booking, BookingStatus
from bookings.tests.factories import BookingFactory
from core.testing.places import LEEDS, north_of
from dispatch import relay
from dispatch.models import Offer
from drivers.tests.factories import driver_at

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _postgres_only(settings):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    settings.DISPATCH_IN_PROCESS = False


class Thread(threading.Thread):
    """A thread whose exception fails the test (join() re-raises it), on its own connection."""

    def __init__(self, target) -> None:
        super().__init__(daemon=True)
        self._call = target
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._call()
        except BaseException as exc:  # re-raised in join()
            self.error = exc
        finally:
            connection.close()

    def join(self, timeout: float | None = 10) -> None:
        super().join(timeout)
        assert not self.is_alive(), "thread still running"
        if self.error is not None:
            raise self.error


def test_two_dispatchers_never_claim_the_same_booking():
    bookings = [BookingFactory() for _ in range(4)]
    first_holds_its_claim = threading.Event()
    second_done = threading.Event()
    first_batches: list[list[int]] = []

    def publish_slowly(booking_ids):
        first_batches.append(booking_ids)
        first_holds_its_claim.set()
        assert second_done.wait(10)

    # Given a dispatcher that has claimed two bookings and not committed yet
    first = Thread(lambda: relay.bookings_dispatch_claim(limit=2, publish=publish_slowly))
    first.start()
    assert first_holds_its_claim.wait(10)

    # When a second one claims meanwhile
    second = relay.bookings_dispatch_claim(limit=10, publish=lambda ids: None)
    second_done.set()
    first.join()

    # Then it skipped the locked rows and took the others, without waiting
    assert first_batches == [[bookings[0].pk, bookings[1].pk]]
    assert second == [bookings[2].pk, bookings[3].pk]
    assert not Booking.objects.filter(dispatch_started_at__isnull=True).exists()


def test_the_dispatcher_wakes_when_a_booking_commits_not_at_its_poll(monkeypatch):
    handed_over: list[tuple[float, list[int]]] = []
    stop = threading.Event()
    asleep, woken = threading.Event(), threading.Event()
    wait = relay.Listener.wait

    def wait_and_say_so(listener, timeout):
        # The dispatcher's own wait, observed: it has LISTENed, claimed, and now sleeps.
        asleep.set()
        return wait(listener, timeout)

    monkeypatch.setattr(relay.Listener, "wait", wait_and_say_so)

    def record(booking_ids):
        handed_over.append((time.monotonic(), booking_ids))
        woken.set()

    listening = Thread(
        lambda: relay.dispatcher_run(poll_seconds=30, publish=record, stopping=stop.is_set)
    )
    listening.start()
    assert asleep.wait(10), "the dispatcher never fell asleep on the empty queue"

    committed_at = time.monotonic()
    booking = BookingFactory()  # autocommit: the INSERT's NOTIFY goes out with it

    assert woken.wait(5), "the commit did not wake the dispatcher"
    stop.set()
    # The dispatcher notices the stop at its next wake-up: a notification does it now.
    with connection.cursor() as cursor:
        cursor.execute(f"NOTIFY {relay.CHANNEL}")
    listening.join()

    assert [ids for _, ids in handed_over] == [[booking.pk]]
    # Far inside the 30 s poll: the NOTIFY woke it. (Milliseconds on a quiet machine; the
    # bound leaves room for a loaded CI box. bench_dispatch_burst measures the latency.)
    assert handed_over[0][0] - committed_at < 3.0


def test_a_broker_outage_delays_the_hand_over_and_loses_nothing(caplog):
    booking = BookingFactory()
    attempts: list[list[int]] = []

    def broker_down_once(booking_ids):
        attempts.append(list(booking_ids))
        if len(attempts) == 1:
            raise relay.BrokerError("broker unreachable")

    relay.dispatcher_run(
        poll_seconds=0.05, publish=broker_down_once, stopping=lambda: len(attempts) >= 2
    )

    assert attempts == [[booking.pk], [booking.pk]]  # the failed claim was rolled back
    booking.refresh_from_db()
    assert booking.dispatch_started_at is not None
    assert "hand-over failed" in caplog.text


# --- a web process killed right after its commits --------------------------------------


def _database_url() -> str:
    db = connection.settings_dict
    credentials = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{credentials}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _subprocess_environment() -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": _database_url(),
        "DISPATCH_IN_PROCESS": "0",  # what production runs: the dispatcher hands over
    }


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, "the web server exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the web server did not start listening")


@pytest.mark.real_clock  # the web server and the dispatcher run in processes of their own
@pytest.mark.usefixtures("tariffs")
def test_bookings_committed_by_a_web_process_killed_at_once_are_all_dispatched(tmp_path):
    # Given a real web server (its own process, the test database)
    port = _free_port()
    log = (tmp_path / "web.log").open("w")
    web = subprocess.Popen(  # noqa: S603 (our interpreter, our arguments)
        [
            sys.executable,
            "manage.py",
            "runserver",
            "--noreload",
            "--skip-checks",
            f"127.0.0.1:{port}",
        ],
        cwd=ROOT,
        env=_subprocess_environment(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_for_port(port, web)
        # When it commits bookings and is killed the moment the last one is answered
        references = []
        for _ in range(4):
            response = requests.post(
                f"http://127.0.0.1:{port}/api/public/bookings/instant",
                json={
                    "pickup_address": "Leeds station",
                    "dropoff_address": "York",
                    "passenger_name": "Ravi Singh",
                    "passenger_phone_whatsapp": "+44 7700 900456",
                    "passenger_count": 2,
                },
                # A fresh server's first request loads the URLs and the views; on a busy
                # 2-core CI machine that took over 10 s. The test is about dispatch, not speed.
                timeout=60,
            )
            assert response.status_code == 200, response.text
            references.append(response.json()["booking_reference"])
        os.kill(web.pid, signal.SIGKILL)
        web.wait(timeout=10)
    finally:
        if web.poll() is None:
            web.kill()
            web.wait(timeout=10)
        log.close()

    # Then nothing was handed over by the dead process: every booking waits in its row
    bookings = list(Booking.objects.filter(reference__in=references))
    assert len(bookings) == 4
    assert all(b.status == BookingStatus.CONFIRMED for b in bookings)
    assert all(b.dispatch_started_at is None for b in bookings)

    # And a dispatcher started afterwards offers every one of them to a driver
    drivers = [driver_at(north_of(LEEDS, 0.5 + i)) for i in range(4)]
    dispatcher = subprocess.Popen(  # noqa: S603
        [sys.executable, "manage.py", "run_dispatcher", "--once"],
        cwd=ROOT,
        env=_subprocess_environment(),  # eager Celery: the dispatch task runs in it
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output, _ = dispatcher.communicate(timeout=30)
    assert dispatcher.returncode == 0, output
    assert "handed 4 bookings to dispatch" in output

    offers = Offer.objects.filter(booking__reference__in=references)
    assert sorted(o.booking.reference for o in offers) == sorted(references)
    assert {o.driver_id for o in offers} == {d.pk for d in drivers}
    assert set(
        Booking.objects.filter(reference__in=references).values_list("status", flat=True)
    ) == {BookingStatus.OFFERED}
