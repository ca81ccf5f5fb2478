"""A busy city's hour, for locust (issue 25): quotes, bookings, lookups, partner batches,
driver position reports and MCP calls together, against a running server.

Run through ``bench/bench_load.py`` (it prepares the database, the accounts and tokens,
starts the production processes and prints the table); the world it made is passed in
``LOAD_WORLD`` (a JSON file: keys, tokens, driver positions).

The hour's mix, per user class, for a city of ~300 cars on shift: passengers (quote, then
one in five books, then looks the booking up), partner platforms (batches of 20 jobs),
cars reporting their position every 5 s, and AI agents calling ``estimate_fare`` over MCP.
The run is the hour compressed: the weights keep the mix, the user count sets the pace.
"""

from __future__ import annotations

import json
import os
import random
import uuid
from datetime import UTC, datetime, timedelta

from locust import HttpUser, between, task

WORLD = json.loads(open(os.environ["LOAD_WORLD"]).read())  # noqa: SIM115 - read once
PLACES = [
    ("Leeds station", "York"),
    ("Leeds station", "Harrogate"),
    ("Leeds station", "Bradford"),
    ("Leeds station", "Wakefield"),
]


class Passenger(HttpUser):
    """Quotes; one in five books (instant) and then looks the booking up."""

    weight = 6
    wait_time = between(0.5, 2)

    def on_start(self):
        self.headers = {"x-api-key": WORLD["agent_key"], "Content-Type": "application/json"}

    @task(5)
    def quote(self):
        pickup, dropoff = random.choice(PLACES)
        self.client.post(
            "/api/public/v1/quote",
            json={"pickup": pickup, "dropoff": dropoff, "passengers": random.randint(1, 4)},
            headers=self.headers,
            name="POST /v1/quote",
        )

    @task(1)
    def book_and_look_up(self):
        pickup, dropoff = random.choice(PLACES)
        email = f"load.{uuid.uuid4().hex[:12]}@example.co.uk"
        response = self.client.post(
            "/api/public/bookings/instant",
            json={
                "pickup_address": pickup,
                "dropoff_address": dropoff,
                "passenger_count": 1,
                "passenger_name": "Load Passenger",
                "passenger_email": email,
                "passenger_phone_whatsapp": "+447700900123",
            },
            headers={**self.headers, "Idempotency-Key": uuid.uuid4().hex},
            name="POST /bookings/instant",
        )
        reference = response.json().get("booking_reference") if response.ok else None
        if reference:
            self.client.get(
                f"/api/public/v1/booking/{reference}",
                params={"email": email},
                name="GET /v1/booking/{ref}",
            )


class PartnerPlatform(HttpUser):
    """A partner pushing its upcoming jobs in batches of 20."""

    weight = 1
    wait_time = between(5, 15)

    @task
    def batch(self):
        pickup_time = (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        prefix = uuid.uuid4().hex[:8]
        jobs = [
            {
                "jobRef": f"LOAD-{prefix}-{n}",
                "pickup": "Leeds station",
                "dropoff": "York",
                "pickupTime": pickup_time,
                "passengers": 2,
                "fare": 42.5,
                "passengerName": "Partner Passenger",
                "passengerPhone": "07700 900123",
            }
            for n in range(20)
        ]
        self.client.post(
            "/api/public/v1/jobs",
            json=jobs,
            headers={"x-api-key": WORLD["partner_key"]},
            name="POST /v1/jobs (20)",
        )


class Car(HttpUser):
    """A car on shift reporting its position every 5 s."""

    weight = 8
    wait_time = between(4.5, 5.5)

    def on_start(self):
        self.token, self.lat, self.lng = random.choice(WORLD["cars"])

    @task
    def position(self):
        self.lat += random.uniform(-0.0005, 0.0005)
        self.lng += random.uniform(-0.0005, 0.0005)
        self.client.post(
            "/api/public/v1/driver/location",
            json={"lat": round(self.lat, 6), "lng": round(self.lng, 6), "heading": 90},
            headers={"Authorization": f"Token {self.token}"},
            name="POST /v1/driver/location",
        )


class Agent(HttpUser):
    """An AI assistant asking for fares over MCP (stateless JSON-RPC tools/call)."""

    weight = 1
    wait_time = between(1, 4)

    @task
    def estimate_fare(self):
        pickup, dropoff = random.choice(PLACES)
        self.client.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "estimate_fare",
                    "arguments": {"pickup": pickup, "dropoff": dropoff, "passengers": 2},
                },
            },
            headers={
                "Accept": "application/json, text/event-stream",
                "Authorization": f"Bearer {WORLD['mcp_token']}",
                "MCP-Protocol-Version": "2025-11-25",
            },
            name="POST /mcp estimate_fare",
        )
