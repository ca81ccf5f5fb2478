"""Request examples of the driver app's API (issue 40): each posts as it stands on
``make demo`` once its path parameter is filled in (a job's reference, a tracker's token),
as ``api/tests/test_openapi_examples.py`` checks.

Fix times are placeholders that ``api.schema.examples_dated`` turns into moments ago each
time the document is generated."""

from __future__ import annotations

import json

from api.schema import FIX_FIVE_SECONDS_AGO, FIX_TEN_SECONDS_AGO, example

# The first demo driver's login, as ``make demo`` prints it (seed_demo, local settings only:
# production creates no demo users, so there this login answers 401).
DEMO_DRIVER_USERNAME = "asha.khan"
DEMO_DRIVER_PASSWORD = "demo-asha"
# A tracking app's own identifier, as registered on the driver's tracking page.
TRACKER_DEVICE_ID = "traccar-asha"
LEEDS_STATION = {"lat": 53.7951, "lng": -1.5474}

DRIVER_LOGIN = [
    example(
        "The demo driver",
        {"username": DEMO_DRIVER_USERNAME, "password": DEMO_DRIVER_PASSWORD},
        summary="The demo driver's login that make demo prints",
        request_only=True,
    )
]
SETTLEMENT = [
    example(
        "Paid by card",
        {
            "amountGBP": 18.40,
            "method": "card",
            "reference": "ch_3PfZx2Lk8Q",
            "processorFeeGBP": 0.32,
        },
        summary="Paid by card in the cab, with the card processor's fee",
        request_only=True,
    ),
    example("Paid in cash", {"amountGBP": 18.40, "method": "cash"}, request_only=True),
]
OSMAND_JSON = [
    example(
        "Traccar Client 9",
        {
            "device_id": TRACKER_DEVICE_ID,
            "location": {
                "timestamp": FIX_TEN_SECONDS_AGO,
                "coords": {
                    "latitude": LEEDS_STATION["lat"],
                    "longitude": LEEDS_STATION["lng"],
                    "accuracy": 8,
                    "speed": 0,
                    "heading": 90,
                },
            },
        },
        summary="One fix, as Traccar Client 9 sends it",
        request_only=True,
        media_type="application/json",
    )
]
OSMAND_FORM = [
    example(
        "OsmAnd form",
        {
            "id": TRACKER_DEVICE_ID,
            "timestamp": FIX_FIVE_SECONDS_AGO,
            "lat": LEEDS_STATION["lat"],
            "lon": LEEDS_STATION["lng"],
            "speed": 0,
            "bearing": 90,
        },
        summary="One fix, in the original OsmAnd form",
        request_only=True,
        media_type="application/x-www-form-urlencoded",
    )
]
# Sheffield's Tariff 1 as its council publishes it (pricing/data/council_tariffs.json,
# "sheffield-current", read 2026-11-25): a driver sends the table on the card in the cab.
SHEFFIELD_DAY_FIGURES = {
    "distanceUnit": "yd",
    "bands": [
        {
            "name": "Tariff 1 Day",
            "days": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
            "start": "07:00",
            "end": "19:00",
            "flagFallGBP": "3.50",
            "flagFallDistance": 100,
            "incrementDistance": 176,
            "incrementPriceGBP": "0.20",
            "waitingSecondsPerIncrement": 45,
        }
    ],
    "extras": [],
}
TARIFF_SUBMISSION = [
    example(
        "One band of Sheffield's table",
        # A form's fields: figures are JSON text; the photo is a file the reader chooses (the
        # form's file field shows this text only as its hint).
        {
            "authority": "Sheffield City Council",
            "effectiveFrom": "2022-03-01",
            "figures": json.dumps(SHEFFIELD_DAY_FIGURES),
            "photo": "(the photo of the table: choose the file)",
        },
        summary="The figures as the card prints them (and choose its photo)",
        request_only=True,
        media_type="multipart/form-data",
    )
]
