"""Prometheus metrics at ``/metrics`` (contract 10.1), behind ``METRICS_TOKEN``.

Two kinds, each correct however many processes serve:

- Requests by route, method and status, with their latency, counted by the process that
  served them (:class:`RequestMetricsMiddleware`; ``/mcp`` through :class:`MetricsASGI`).
  Under gunicorn each worker writes its counts to ``PROMETHEUS_MULTIPROC_DIR``
  (config/gunicorn.py sets and empties it) and a scrape sums them all (prometheus-client's
  multiprocess mode). Without that variable the process's own counts are served.
- Backlogs, read at scrape time from where they live, so every web process reports the
  same truth (:class:`BacklogCollector`): Celery queue depths (the broker), the webhook
  backlog and offers outstanding (the database), and dispatch latency: commit (or the
  opening of a prebooked journey's dispatch window) to its first offer, as quantiles over
  the bookings of the last ``METRICS_DISPATCH_LATENCY_WINDOW_MINUTES``.
"""

from __future__ import annotations

import logging
import os
import time
from datetime import timedelta

from celery import current_app
from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, Min
from django.db.models.functions import Greatest
from django.http import Http404, HttpResponse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.views.decorators.cache import never_cache
from kombu.exceptions import ChannelError
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

from bookings.models import Booking
from dispatch.models import Offer, OfferStatus
from partners.models import WebhookDelivery, WebhookDeliveryStatus

logger = logging.getLogger(__name__)
# No "_created" series beside each counter: they double a scrape and say little here.
disable_created_metrics()

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

# Not in the default registry: each scrape assembles its own (multiprocess or not).
REQUESTS = Counter(
    "taxi_http_requests",
    "HTTP requests served, by route pattern, method and status.",
    ["route", "method", "status"],
    registry=None,
)
REQUEST_SECONDS = Histogram(
    "taxi_http_request_duration_seconds",
    "Time to answer an HTTP request, by route pattern, method and status.",
    ["route", "method", "status"],
    buckets=LATENCY_BUCKETS,
    registry=None,
)
DISPATCH_LATENCY_QUANTILES = (0.5, 0.9, 0.99)


def request_observe(route: str, method: str, status: int, seconds: float) -> None:
    labels = (route, method, str(status))
    REQUESTS.labels(*labels).inc()
    REQUEST_SECONDS.labels(*labels).observe(seconds)


def _route_of(request) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "<unmatched>"
    return "/" + (match.route or match.view_name or "").lstrip("^")


class RequestMetricsMiddleware:
    """Counts and times every request Django answers, by its URL pattern (not its path,
    so booking references never become label values)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        request_observe(
            _route_of(request),
            request.method if request.method in _METHODS else "OTHER",
            response.status_code,
            time.perf_counter() - started,
        )
        return response


_METHODS = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}


class MetricsASGI:
    """The same counts for an ASGI app served beside Django (the MCP server)."""

    def __init__(self, app, route: str):
        self.app = app
        self.route = route

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500

        async def send_seen(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_seen)
        finally:
            method = scope.get("method", "GET")
            request_observe(
                self.route,
                method if method in _METHODS else "OTHER",
                status,
                time.perf_counter() - started,
            )


class BacklogCollector:
    """Gauges computed at scrape time from the database and the broker."""

    def collect(self):
        up = GaugeMetricFamily(
            "taxi_metrics_source_up",
            "1 when the source of the backlog gauges answered this scrape.",
            labels=["source"],
        )
        try:
            yield from self._database_gauges()
            up.add_metric(["database"], 1)
        except DatabaseError as exc:
            logger.warning("metrics: database unavailable (%s)", type(exc).__name__)
            up.add_metric(["database"], 0)
        try:
            yield self._queue_depths()
            up.add_metric(["broker"], 1)
        except Exception as exc:  # noqa: BLE001 - a broker that is down is a gauge, not a 500
            logger.warning("metrics: broker unavailable (%s)", type(exc).__name__)
            up.add_metric(["broker"], 0)
        yield up

    def _database_gauges(self):
        offers = GaugeMetricFamily(
            "taxi_offers_outstanding", "Offers sent to drivers or fleets, not yet answered."
        )
        offers.add_metric([], Offer.objects.filter(status=OfferStatus.OPEN).count())
        yield offers

        pending = WebhookDelivery.objects.filter(status=WebhookDeliveryStatus.PENDING)
        backlog = pending.aggregate(count=Count("id"), oldest=Min("created_at"))
        deliveries = GaugeMetricFamily(
            "taxi_webhook_backlog", "Webhook deliveries not yet delivered nor given up."
        )
        deliveries.add_metric([], backlog["count"])
        yield deliveries
        oldest = GaugeMetricFamily(
            "taxi_webhook_backlog_oldest_seconds", "Age of the oldest undelivered webhook."
        )
        age = (timezone.now() - backlog["oldest"]).total_seconds() if backlog["oldest"] else 0
        oldest.add_metric([], max(0.0, age))
        yield oldest
        yield from self._dispatch_latency()

    def _dispatch_latency(self):
        window = settings.METRICS_DISPATCH_LATENCY_WINDOW_MINUTES
        since = timezone.now() - timedelta(minutes=window)
        rows = (
            Booking.objects.filter(created_at__gte=since, offers__isnull=False)
            .annotate(
                ready_at=Greatest("created_at", "dispatch_opens_at"),
                first_offer_at=Min("offers__created_at"),
            )
            .values_list("ready_at", "first_offer_at")
            .order_by("-created_at")[: settings.METRICS_DISPATCH_LATENCY_SAMPLE_MAX]
        )
        latencies = sorted(max(0.0, (offered - ready).total_seconds()) for ready, offered in rows)
        family = GaugeMetricFamily(
            "taxi_dispatch_latency_seconds",
            f"Commit (or dispatch window opening) to first offer, over the bookings of the "
            f"last {window} minutes.",
            labels=["quantile"],
        )
        for quantile in DISPATCH_LATENCY_QUANTILES:
            rank = min(len(latencies) - 1, int(quantile * len(latencies)))
            family.add_metric([str(quantile)], latencies[rank] if latencies else 0.0)
        yield family
        count = GaugeMetricFamily(
            "taxi_dispatch_latency_bookings", "Bookings the dispatch latency quantiles cover."
        )
        count.add_metric([], len(latencies))
        yield count

    def _queue_depths(self) -> GaugeMetricFamily:
        family = GaugeMetricFamily(
            "taxi_celery_queue_depth", "Task messages waiting in each queue.", labels=["queue"]
        )
        seconds = settings.METRICS_BROKER_TIMEOUT_SECONDS
        with current_app.connection_for_read(connect_timeout=seconds) as connection:
            connection.ensure_connection(max_retries=1, interval_start=0, timeout=seconds)
            channel = connection.default_channel
            for queue in settings.CELERY_QUEUE_NAMES:
                try:
                    depth = channel.queue_declare(queue=queue, passive=True).message_count
                except ChannelError:
                    depth = 0  # never declared, or emptied and gone (Redis): nothing waits
                family.add_metric([queue], depth)
        return family


def _registry() -> CollectorRegistry:
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(REQUESTS)
        registry.register(REQUEST_SECONDS)
    registry.register(BacklogCollector())
    return registry


@never_cache
def metrics(request):
    """Prometheus text format. Unset METRICS_TOKEN: 404; a wrong or missing token: 401."""
    token = settings.METRICS_TOKEN
    if not token:
        raise Http404("metrics are not enabled")
    presented = request.headers.get("Authorization", "")
    if not constant_time_compare(presented, f"Bearer {token}"):
        response = HttpResponse("Unauthorized\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)
