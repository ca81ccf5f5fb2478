"""Scale-out and faults (issue 25), against a private PostgreSQL and a private Redis, with
the Procfile's processes run by honcho (tests/operations_stack.py).

One stack serves every test here, in order: 2 web processes, 2 dispatch workers, a
webhooks worker, 2 dispatchers and beat. Then, each on that stack: a worker process
killed (SIGKILL) mid-task, PostgreSQL restarted under load, Redis restarted with work
queued, and webhook receivers that time out, answer 500 or answer 410. Bounded: every wait
has a deadline; the whole file takes about three minutes on a 2-core machine.
"""

from __future__ import annotations

import http.server as http_server
import json
import os
import shutil
import signal
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from http.client import HTTPConnection
from itertools import count
from pathlib import Path

import pytest

from tests.operations_stack import (
    INGEST_PORT,
    LOCATION_PATH,
    MCP_PORT,
    METRICS_TOKEN,
    PROXY_PORT,
    RECEIVER_PORT,
    Stack,
    faults_skip_reason,
    http,
    wait_until,
)

pytestmark = pytest.mark.skipif(faults_skip_reason() is not None, reason=faults_skip_reason() or "")

BOOKINGS = int(os.environ.get("OPERATIONS_BOOKINGS", "500"))
DRIVERS = BOOKINGS + 400
PROCESSES = ["web", "mcp", "ingest", "worker", "worker_webhooks", "dispatcher", "beat"]
CONCURRENCY = "web=2,worker=2,dispatcher=2"
BODY_TIMEOUT = 2  # REQUEST_BODY_TIMEOUT_SECONDS of the processes here
_numbers = count(1)

DRIVERS_LOAD = """
import random
from datetime import timedelta
from django.utils import timezone
from bench.common import driver_vehicle, jitter, online_driver, positions_index_load
from drivers.models import Driver, Vehicle
rng = random.Random(25)
now = timezone.now()
expiry = timezone.localdate() + timedelta(days=365)
drivers = []
for i in range(%(count)d):
    position = jitter(53.7952, -1.5477, 3, rng)  # around Leeds station
    drivers.append(online_driver(i, position=position, base=position, authority="Leeds",
                                 radius_km=40, now=now, expiry=expiry))
Driver.objects.bulk_create(drivers, batch_size=1000)
Vehicle.objects.bulk_create([driver_vehicle(d, vehicle_class="saloon", seats=4,
                             authority="Leeds", expiry=expiry) for d in drivers], batch_size=1000)
positions_index_load(now)  # the live-position index (Redis): where dispatch looks
"""

# Every count must be 0 (bench/bench_dispatch_burst.py's invariants, and job cards).
INVARIANTS = {
    "a booking with two open offers": """SELECT count(*) FROM (SELECT booking_id
        FROM dispatch_offer WHERE status = 'open' GROUP BY booking_id HAVING count(*) > 1) t""",
    "a driver with two open offers": """SELECT count(*) FROM (SELECT driver_id
        FROM dispatch_offer WHERE status = 'open' AND driver_id IS NOT NULL
        GROUP BY driver_id HAVING count(*) > 1) t""",
    "a driver above max_jobs": "SELECT count(*) FROM drivers_driver WHERE current_jobs > max_jobs",
    "a booking offered more than once": """SELECT count(*) FROM (SELECT booking_id
        FROM dispatch_offer GROUP BY booking_id HAVING count(*) > 1) t""",
    "an offered booking without exactly one open offer": """SELECT count(*)
        FROM bookings_booking b WHERE b.status = 'offered' AND (SELECT count(*)
        FROM dispatch_offer o WHERE o.booking_id = b.id AND o.status = 'open') <> 1""",
    "a job card sent twice": """SELECT count(*) FROM (SELECT offer_id, channel
        FROM dispatch_notificationlog GROUP BY offer_id, channel HAVING count(*) > 1) t""",
    "a booking without its creation event": """SELECT count(*) FROM bookings_booking b
        WHERE NOT EXISTS (SELECT 1 FROM bookings_bookingevent e WHERE e.booking_id = b.id)""",
}


def invariants_broken(stack: Stack) -> dict[str, int]:
    broken = {name: stack.postgres.count(sql) for name, sql in INVARIANTS.items()}
    return {name: n for name, n in broken.items() if n}


def all_dispatched(stack: Stack) -> bool:
    """No booking whose dispatch window has opened is still waiting for dispatch."""
    waiting = "SELECT count(*) FROM bookings_booking WHERE status = 'confirmed'"
    return stack.postgres.count(waiting + " AND dispatch_opens_at <= now()") == 0


def free_drivers(stack: Stack) -> None:
    """Withdraw the earlier tests' open offers (nobody answers them), so that every driver
    is free again and a test's bookings find one whatever the earlier tests booked; and
    cancel any booking left without a driver, which a freed driver would otherwise take
    into this test's counts."""
    stack.postgres.psql(
        "UPDATE dispatch_offer SET status = 'withdrawn', responded_at = now() WHERE status = 'open';"
        " UPDATE bookings_booking SET status = 'cancelled' WHERE status IN ('offered', 'no_driver');"
        " UPDATE drivers_driver SET current_jobs = 0"
    )


def cards_complete(stack: Stack) -> bool:
    """Every open driver offer has both its job cards (SMS and WhatsApp) sent."""
    lacking = stack.postgres.count(
        "SELECT count(*) FROM dispatch_offer o WHERE o.status = 'open'"
        " AND o.driver_id IS NOT NULL AND (SELECT count(*) FROM dispatch_notificationlog n"
        " WHERE n.offer_id = o.id AND n.status = 'sent') < 2"
    )
    return lacking == 0


def cards_lacking(stack: Stack) -> str:
    """Why cards_complete does not hold, for a failure to name: each open driver offer
    lacking a sent card, with its cards' channel:status:attempts (none: never written),
    then the processes' last lines."""
    rows = stack.postgres.psql(
        "SELECT o.id, coalesce(string_agg(n.channel || ':' || n.status || ':' || n.attempts,"
        " ' '), 'none') FROM dispatch_offer o LEFT JOIN dispatch_notificationlog n"
        " ON n.offer_id = o.id WHERE o.status = 'open' AND o.driver_id IS NOT NULL GROUP BY o.id"
        " HAVING count(*) FILTER (WHERE n.status = 'sent') < 2 ORDER BY o.id LIMIT 20"
    )
    return f"offers lacking a sent card:\n{rows}\n{stack.log_tail()}"


@pytest.fixture(scope="module")
def stack():
    stack = Stack()
    try:
        stack.prepare()
        stack.python(DRIVERS_LOAD % {"count": DRIVERS})
        stack.agent = stack.account(
            "--kind", "agent", "--name", "Load Agent", "--approved", "--rate-limit", "100000000/h"
        )
        stack.start(
            CONCURRENCY,
            PROCESSES,
            WEBHOOK_READ_TIMEOUT="2",
            REQUEST_BODY_TIMEOUT_SECONDS=str(BODY_TIMEOUT),
        )
        yield stack
    finally:
        stack.close()


def book(stack: Stack, port: int, **headers) -> tuple[int, dict, dict]:
    number = next(_numbers)
    status, answer_headers, body = http(
        port,
        "POST",
        "/api/public/bookings/instant",
        {
            "pickup_address": "Leeds station",
            "dropoff_address": "York",
            "passenger_count": 1,
            "passenger_name": "Load Passenger",
            "passenger_phone_whatsapp": "+447700900123",
        },
        headers={
            "x-api-key": stack.agent["apiKey"],
            "Idempotency-Key": f"load-{number}",
            **headers,
        },
    )
    try:
        payload = json.loads(body or b"{}")
    except ValueError:
        payload = {"raw": body[:200].decode(errors="replace")}
    return status, answer_headers, payload


def test_two_webs_two_workers_two_dispatchers_dispatch_each_booking_once(stack):
    ports = stack.web_ports(CONCURRENCY)
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(lambda n: book(stack, ports[n % 2]), range(BOOKINGS)))
    booked_s = time.monotonic() - started

    statuses = sorted({status for status, _, _ in answers})
    assert statuses in ([200], [201]), [a for a in answers if a[0] >= 300][:3]
    assert all(headers.get("X-Request-ID") for _, headers, _ in answers)
    assert wait_until(lambda: all_dispatched(stack), 180, interval=0.5), stack.log_tail()
    assert wait_until(lambda: cards_complete(stack), 120, interval=0.5), cards_lacking(stack)

    assert stack.postgres.count("SELECT count(*) FROM bookings_booking") == BOOKINGS
    assert stack.postgres.count("SELECT count(*) FROM dispatch_offer") == BOOKINGS
    sent = "SELECT count(*) FROM dispatch_notificationlog WHERE status = 'sent'"
    assert stack.postgres.count(sent) == 2 * BOOKINGS  # each job card sent, once
    assert invariants_broken(stack) == {}
    print(f"\n{BOOKINGS} bookings over 2 web processes in {booked_s:.1f} s, all dispatched once")

    # Metrics: both web processes count what they served; the backlogs are the database's.
    status, _headers, body = http(
        ports[0], "GET", "/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}
    )
    text = body.decode()
    assert status == 200
    assert f"taxi_offers_outstanding {float(BOOKINGS)}" in text
    assert 'taxi_celery_queue_depth{queue="dispatch"}' in text
    for port in ports:
        assert http(port, "GET", "/readyz")[0] == 200


def _location_requests_django_served(stack: Stack) -> float:
    """Requests to the position-report route that Django answered, as the web processes'
    /metrics count them (the web and mcp processes share one metrics folder here)."""
    text = http(
        stack.web_ports(CONCURRENCY)[0],
        "GET",
        "/metrics",
        headers={"Authorization": f"Bearer {METRICS_TOKEN}"},
    )[2].decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("taxi_http_requests_total{") and "driver/location" in line
    )


def test_one_proxy_sends_mcp_to_the_asgi_process_reports_to_ingest_and_the_rest_to_web(stack):
    """README, "Serving": Django under WSGI (web), the MCP server under ASGI (mcp), the
    position ingest, behind the proxy that compose.yaml runs (deploy/Caddyfile)."""
    if not shutil.which("caddy"):
        # CI installs Debian's caddy (.ci/run) and must run this; a laptop may skip it.
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail("caddy is not installed (apt-get install -y caddy)")
        pytest.skip("needs caddy (Debian's package)")
    proxy = stack.proxy_start(CONCURRENCY)
    web = stack.web_ports(CONCURRENCY)[0]
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "proxy-test", "version": "1"}}}  # fmt: skip
    mcp_headers = {"Accept": "application/json, text/event-stream"}

    status, headers, _ = http(proxy, "GET", "/readyz", headers={"X-Request-ID": "via-proxy-1"})
    assert status == 200
    assert headers["X-Request-ID"] == "via-proxy-1"
    # /mcp: the web process (plain WSGI) has no such route; through the proxy the MCP
    # server answers, asking for its OAuth token.
    assert http(web, "POST", "/mcp", initialize, headers=mcp_headers)[0] == 404
    status, headers, _ = http(proxy, "POST", "/mcp", initialize, headers=mcp_headers)
    assert status == 401
    assert "resource_metadata" in headers["WWW-Authenticate"]
    # The position reports: answered (a problem with its request id), and not by Django.
    before = _location_requests_django_served(stack)
    for _ in range(3):
        status, headers, body = http(
            proxy, "POST", LOCATION_PATH, {"lat": 53.8, "lng": -1.55},
            headers={"Authorization": "Token not-a-drivers-token"},
        )  # fmt: skip
        assert status == 401
        assert json.loads(body)["requestId"] == headers["X-Request-ID"]
    assert _location_requests_django_served(stack) == before
    # The same report sent to the web process is Django's, and counted.
    assert http(web, "POST", LOCATION_PATH, {"lat": 53.8, "lng": -1.55})[0] == 401
    assert wait_until(lambda: _location_requests_django_served(stack) == before + 1, 5)


SLOW_CLIENTS = 50


def _caddy_required() -> None:
    if not shutil.which("caddy"):
        # CI installs Debian's caddy (.ci/run) and must run this; a laptop may skip it.
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail("caddy is not installed (apt-get install -y caddy)")
        pytest.skip("needs caddy (Debian's package)")


def _slow_clients(port: int, path: str, *, headers_done: bool) -> list[socket.socket]:
    """SLOW_CLIENTS connections that each start a request and stop: with the headers done,
    a body announced as 1000 bytes of which one is sent; else headers left unfinished."""
    clients = []
    for _ in range(SLOW_CLIENTS):
        client = socket.create_connection(("127.0.0.1", port), timeout=5)
        start = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        if headers_done:
            client.sendall(f"{start}Content-Length: 1000\r\n\r\n{{".encode())
        else:
            client.sendall(start.encode())
        clients.append(client)
    time.sleep(0.5)  # every one of them reached the server
    return clients


def _close(clients: list[socket.socket]) -> None:
    for client in clients:
        with suppress(OSError):
            client.close()


def _answers_within(stack: Stack, port: int, *, quote: bool, seconds: float = 1) -> None:
    try:
        assert http(port, "GET", "/healthz", timeout=seconds)[0] == 200
    except OSError as failure:
        raise AssertionError(f"/healthz: {failure}") from None
    if quote:
        try:
            status, _, body = http(
                port, "POST", "/api/public/v1/quote",
                {"pickup": "Leeds station", "dropoff": "York", "passengers": 1},
                headers={"x-api-key": stack.agent["apiKey"]}, timeout=seconds,
            )  # fmt: skip
        except OSError as failure:
            raise AssertionError(f"quote: {failure}") from None
        assert status == 200, body[:300]


def test_slow_clients_cost_a_connection_not_a_thread(stack):
    """Issue 35: twelve connections that announced a body and sent one byte held every
    thread of web and ingest, and /healthz timed out. Through the proxy (it reads headers
    and bodies itself, with deadlines, and sends on whole requests) and straight to mcp and
    ingest (ASGI: the body is read in the event loop, api.request_bodies), 50 such clients,
    or 50 with unfinished headers, cost a connection each: /healthz and a quote still
    answer within a second. Straight to web (gunicorn's threads parse the request) a slow
    body holds a thread for at most REQUEST_BODY_TIMEOUT_SECONDS and is then 400
    invalid_body; slow headers there are the proxy's to stop (README, "Serving")."""
    _caddy_required()
    proxy = PROXY_PORT if stack.proxy is not None else stack.proxy_start(CONCURRENCY)
    targets = [
        ("proxy", proxy, "/api/public/v1/quote", True),
        ("proxy, reports", proxy, LOCATION_PATH, True),
        ("mcp", MCP_PORT, "/api/public/v1/quote", True),
        ("mcp, the MCP server", MCP_PORT, "/mcp", True),
        ("ingest", INGEST_PORT, LOCATION_PATH, False),
    ]
    for name, port, path, quote in targets:
        _answers_within(stack, port, quote=quote, seconds=30)  # warm: the first quote loads
        for headers_done in (True, False):
            started = time.monotonic()
            _answers_within(stack, port, quote=quote, seconds=30)
            unhindered = time.monotonic() - started
            clients = _slow_clients(port, path, headers_done=headers_done)
            try:
                _answers_within(stack, port, quote=quote)
            except (AssertionError, OSError) as failure:
                raise AssertionError(
                    f"{name}, headers done: {headers_done}: {failure} (unhindered, "
                    f"healthz and quote took {unhindered:.2f} s)"
                ) from None
            finally:
                _close(clients)
            time.sleep(1)  # the next attack starts on a quiet process

    # Straight to web: every slow body is refused within the deadline, round after round
    # of its threads (2 workers of 4; at worst every client on one worker), and the process
    # answers at once afterwards.
    web = stack.web_ports(CONCURRENCY)[0]
    clients = _slow_clients(web, "/api/public/v1/quote", headers_done=True)
    try:
        rounds = -(-SLOW_CLIENTS // 4)
        deadline = time.monotonic() + rounds * BODY_TIMEOUT + 10
        answers = []
        for client in clients:
            answer = b""
            while b"invalid_body" not in answer:
                client.settimeout(max(deadline - time.monotonic(), 0.1))
                chunk = client.recv(4096)
                if not chunk:
                    break
                answer += chunk
            answers.append(answer)
        assert all(b" 400 " in answer.split(b"\r\n", 1)[0] for answer in answers)
        assert all(b"invalid_body" in answer for answer in answers)
    finally:
        _close(clients)
    _answers_within(stack, web, quote=True)


def test_the_ingest_refuses_an_oversized_report_unread_and_starts_a_dead_worker_again(stack):
    """The ingest under granian (the Procfile's line): a body over the limit is refused
    from its Content-Length, before it is sent; a worker that dies is replaced, as
    gunicorn's were; granian's own lines are JSON like the application's."""
    connection = HTTPConnection("127.0.0.1", INGEST_PORT, timeout=10)
    connection.putrequest("POST", LOCATION_PATH)
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Content-Length", str(100_000_000))
    connection.endheaders()  # and not one byte of the body
    response = connection.getresponse()
    assert response.status == 400
    assert json.loads(response.read())["code"] == "invalid_body"
    connection.close()

    own_lines = [
        line.split("| ", 1)[1]
        for line in stack.log_tail(10**9).splitlines()
        if " ingest.1 " in line and "| " in line
    ]
    started = [json.loads(line) for line in own_lines if '"logger": "_granian' in line]
    assert any(entry["event"].startswith("Started worker") for entry in started), own_lines

    worker = stack.process_tree("ingest.1")[-1][0]
    os.kill(worker, signal.SIGKILL)
    assert wait_until(
        lambda: (
            worker not in stack.pids("ingest.1")
            and len(stack.process_tree("ingest.1")) > 1
            and http(INGEST_PORT, "GET", "/healthz", timeout=5)[0] == 200
        ),
        30,
    ), stack.log_tail()


def _pool_children(stack: Stack, name: str) -> list[int]:
    """The prefork pool processes of the Celery worker honcho runs as ``name`` (Celery
    titles them ForkPoolWorker-N)."""
    found = []
    for pid in stack.pids(name):
        with suppress(OSError):
            if b"ForkPoolWorker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
    return found


def test_a_worker_process_killed_mid_task_loses_nothing_and_sends_nothing_twice(stack):
    offers_before = stack.postgres.count("SELECT count(*) FROM dispatch_offer")
    free_drivers(stack)
    lost_before = stack.log_tail(10**9).count("WorkerLostError")
    ports = stack.web_ports(CONCURRENCY)
    burst = 150
    killed = 0
    with ThreadPoolExecutor(max_workers=8) as pool:
        pending = [pool.submit(book, stack, ports[n % 2]) for n in range(burst)]
        # While the bookings arrive and are dispatched: kill worker.1's pool processes.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and killed < 4:
            time.sleep(0.7)
            for pid in _pool_children(stack, "worker.1")[:1]:
                os.kill(pid, signal.SIGKILL)
                killed += 1
        answers = [future.result() for future in pending]

    assert killed >= 1
    assert {status for status, _, _ in answers} <= {200, 201}
    assert wait_until(lambda: all_dispatched(stack), 120, interval=0.5), stack.log_tail()
    assert wait_until(lambda: cards_complete(stack), 120, interval=0.5), cards_lacking(stack)
    assert stack.postgres.count("SELECT count(*) FROM dispatch_offer") == offers_before + burst
    assert invariants_broken(stack) == {}
    # A task was running when its process died, and went back to its queue.
    assert stack.log_tail(10**9).count("WorkerLostError") > lost_before


def test_postgresql_restarted_under_load_is_503_with_retry_after_then_serves_again(stack):
    ports = stack.web_ports(CONCURRENCY)
    web_pids = stack.pids("web.1") + stack.pids("web.2")
    free_drivers(stack)
    answers: list[tuple[float, int, dict, dict]] = []
    stop = threading.Event()

    def load(port: int) -> None:
        # Paced, so that the bookings stay fewer than the free drivers however fast the
        # machine: 4 senders for about 12 s, at most 10 a second each.
        while not stop.is_set():
            sent_at = time.monotonic()
            status, headers, body = book(stack, port)
            answers.append((sent_at, status, headers, body))
            time.sleep(max(0.0, sent_at + 0.1 - time.monotonic()))

    threads = [threading.Thread(target=load, args=(port,)) for port in ports for _ in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(3)
    down_at = time.monotonic()
    stack.postgres.stop()  # fast shutdown: every connection dropped at once
    time.sleep(1.5)
    ready_status, ready_headers, ready_body = http(ports[0], "GET", "/readyz")
    time.sleep(1.5)
    stack.postgres.start()
    up_at = time.monotonic()
    time.sleep(6)
    stop.set()
    for thread in threads:
        thread.join(timeout=60)

    statuses = [status for _, status, _, _ in answers]
    # Sent once the server was down (and before it was back): none can have been served.
    in_gap = [a for a in answers if down_at + 0.5 < a[0] < up_at - 1]
    after = [a for a in answers if a[0] > up_at + 3]
    assert set(statuses) <= {200, 201, 503}, sorted(set(statuses))
    assert in_gap
    assert all(status == 503 for _, status, _, _ in in_gap)
    for _, status, headers, body in answers:
        if status == 503:
            assert int(headers["Retry-After"]) > 0
            assert body["code"] == "service_unavailable"
            assert body["requestId"] == headers["X-Request-ID"]
    assert after
    assert all(status in (200, 201) for _, status, _, _ in after)
    # /readyz named the database as what failed.
    assert ready_status == 503
    assert json.loads(ready_body)["database"].startswith("unavailable")
    assert int(ready_headers["Retry-After"]) > 0
    # Served again by the same processes; nothing half-written.
    assert stack.pids("web.1") + stack.pids("web.2") == web_pids
    references = {body.get("booking_reference") for _, status, _, body in answers if status < 300}
    stored = stack.postgres.count(
        "SELECT count(*) FROM bookings_booking WHERE reference IN ({})".format(
            ",".join(f"'{ref}'" for ref in references if ref)
        )
    )
    assert stored == len(references - {None})
    assert wait_until(lambda: all_dispatched(stack), 120, interval=0.5), stack.log_tail()
    assert wait_until(lambda: cards_complete(stack), 120, interval=0.5), cards_lacking(stack)
    assert invariants_broken(stack) == {}


DRIVER_APP_TOKEN = """
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from drivers.models import Driver
driver = Driver.objects.filter(user__isnull=True).order_by("id").last()
driver.user = get_user_model().objects.create(username="ingest-fault-test")
driver.save(update_fields=["user"])
print(Token.objects.create(user=driver.user).key)
"""


def _report(token: str) -> tuple[int, dict]:
    """A driver app's position report to the ingest process: (status, headers)."""
    status, headers, _ = http(
        INGEST_PORT, "POST", LOCATION_PATH, {"lat": 53.7952, "lng": -1.5477},
        headers={"Authorization": f"Token {token}"}, timeout=10,
    )  # fmt: skip
    return status, headers


def test_redis_restarted_with_work_queued_loses_none_of_it_and_serves_meanwhile(stack):
    ports = stack.web_ports(CONCURRENCY)
    token = stack.python(DRIVER_APP_TOKEN).strip().splitlines()[-1]
    assert _report(token)[0] == 200
    workers = [pid for name in ("worker.1", "worker.2") for pid in stack.pids(name)]
    offers_before = stack.postgres.count("SELECT count(*) FROM dispatch_offer")
    free_drivers(stack)
    for pid in workers:
        os.kill(pid, signal.SIGSTOP)  # paused: what the dispatchers publish waits in Redis
    try:
        queued = 40
        answers = [book(stack, ports[n % 2]) for n in range(queued)]
        assert {status for status, _, _ in answers} <= {200, 201}
        assert wait_until(lambda: int(stack.redis.cli("LLEN", "dispatch") or 0) >= queued - 8, 30)
        depth = int(stack.redis.cli("LLEN", "dispatch"))

        stack.redis.stop()
        # Redis down: quotes and bookings are still served (limits count per process).
        during = [book(stack, ports[n % 2]) for n in range(4)]
        quote = http(ports[0], "POST", "/api/public/v1/quote",
                     {"pickup": "Leeds station", "dropoff": "York", "passengers": 1})  # fmt: skip
        # Live positions are in Redis: the ingest says so, and when to send again.
        report_status, report_headers = _report(token)
        stack.redis.start()
        # The queue survived (more may have been published before the stop).
        assert int(stack.redis.cli("LLEN", "dispatch")) >= depth
    finally:
        for pid in workers:
            os.kill(pid, signal.SIGCONT)

    assert {status for status, _, _ in during} <= {200, 201}, during
    assert quote[0] == 200
    assert report_status == 503
    assert int(report_headers["Retry-After"]) > 0
    # The ingest's workers reconnect by themselves.
    assert wait_until(lambda: _report(token)[0] == 200, 15), stack.log_tail()
    expected = queued + len(during)
    assert wait_until(
        lambda: (
            stack.postgres.count("SELECT count(*) FROM dispatch_offer") == offers_before + expected
            and all_dispatched(stack)
        ),
        150,
        interval=0.5,
    ), stack.log_tail()
    assert wait_until(lambda: cards_complete(stack), 120, interval=0.5), cards_lacking(stack)
    assert invariants_broken(stack) == {}


class _Receiver(http_server.BaseHTTPRequestHandler):
    """Webhook receivers: /ok answers 204, /fail 500, /gone 410, /slow too late."""

    seen: list[tuple[str, str]] = []

    def do_POST(self):  # noqa: N802 - the http.server protocol
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.seen.append((self.path, self.headers.get("webhook-id", "")))
        if self.path == "/slow":
            time.sleep(4)  # past WEBHOOK_READ_TIMEOUT=2
        status = {"/ok": 204, "/fail": 500, "/gone": 410, "/slow": 204}[self.path]
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_webhook_receivers_that_time_out_fail_or_are_gone(stack):
    server = http_server.ThreadingHTTPServer(("127.0.0.1", RECEIVER_PORT), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        partners = {
            path: stack.account("--kind", "partner", "--name", f"Hook {path[1:]}", "--approved",
                                "--webhook-url", f"http://127.0.0.1:{RECEIVER_PORT}{path}")
            for path in ("/ok", "/fail", "/gone", "/slow")
        }  # fmt: skip
        request_ids = {}
        for path, partner in partners.items():
            request_ids[path] = f"hook-test-{path[1:]}"
            status, _headers, body = http(
                stack.web_ports(CONCURRENCY)[0],
                "POST",
                "/api/public/v1/jobs",
                [{"jobRef": f"HOOK-{path[1:]}", "pickup": "Leeds station", "dropoff": "York",
                  "pickupTime": _in_two_days(), "passengers": 1, "fare": 30,
                  "passengerName": "Hook Passenger", "passengerPhone": "07700 900456"}],
                headers={"x-api-key": partner["apiKey"], "X-Request-ID": request_ids[path]},
            )  # fmt: skip
            assert status in (200, 207), body

        def delivery(path: str) -> tuple[str, int]:
            row = stack.postgres.psql(
                "SELECT d.status || ',' || (SELECT count(*) FROM partners_webhookattempt a"
                " WHERE a.delivery_id = d.id) FROM partners_webhookdelivery d"
                " JOIN partners_account acc ON acc.id = d.account_id"
                f" WHERE acc.slug = '{partners[path]['slug']}' ORDER BY d.id LIMIT 1"
            )
            status, attempts = (row or "none,0").split(",")
            return status, int(attempts)

        # At once, or by the periodic sweep (every 30 s) when the first task was lost.
        assert wait_until(lambda: delivery("/ok")[0] == "delivered", 70), stack.log_tail()
        assert wait_until(lambda: delivery("/gone")[0] == "failed", 70), stack.log_tail()
        assert wait_until(lambda: delivery("/fail")[1] >= 1, 70), stack.log_tail()
        assert wait_until(lambda: delivery("/slow")[1] >= 1, 70), stack.log_tail()
        # 500 and a timeout are retried later (the row waits, pending); 410 stops for good.
        assert delivery("/fail")[0] == "pending"
        assert delivery("/slow")[0] == "pending"
        disabled = stack.postgres.count(
            "SELECT count(*) FROM partners_account WHERE webhook_disabled_at IS NOT NULL"
            f" AND slug = '{partners['/gone']['slug']}'"
        )
        assert disabled == 1
        # Delivered once to /ok; each attempt is logged under the id of the request.
        assert len([p for p, _ in _Receiver.seen if p == "/ok"]) == 1
        # Each attempt logs one line, under the id of the request (or the task) behind it:
        # the request's own when its after-commit task made the attempt (the periodic sweep
        # may have picked a delivery up first, under its own id).
        attempts = [
            json.loads(line.split("| ", 1)[1])
            for line in stack.log_tail(10**9).splitlines()
            if '"logger": "partners.services.webhooks"' in line and "| {" in line
        ]
        assert len(attempts) >= 4
        assert all(attempt.get("request_id") for attempt in attempts)
        assert {a["request_id"] for a in attempts} & set(request_ids.values())
        # Dispatch kept going meanwhile: the webhooks have their own worker and queue.
        offers_before = stack.postgres.count("SELECT count(*) FROM dispatch_offer")
        assert book(stack, stack.web_ports(CONCURRENCY)[1])[0] in (200, 201)
        assert wait_until(
            lambda: stack.postgres.count("SELECT count(*) FROM dispatch_offer") > offers_before,
            30,
        )
    finally:
        server.shutdown()


def _in_two_days() -> str:
    from datetime import UTC, datetime, timedelta

    return (datetime.now(UTC) + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M:%SZ")
