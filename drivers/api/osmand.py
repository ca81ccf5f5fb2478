"""The OsmAnd protocol as Traccar Client sends it: an adapter at the edge that turns the
sender's format into the ingest's fixes; the use case never learns the format.

Recorded from Traccar's documentation (https://www.traccar.org/osmand/, read 2026-11-25)
and its forum answers on units (https://traccar.org/forums/topic/traccar-client-units,
https://traccar.org/forums/topic/units-of-speed-of-accuracy-in-osmand-url, same date):

- **Query or form** (the original OsmAnd format; Traccar Client before 9.0.0, and any HTTP
  method): ``id`` or ``deviceid`` (mandatory), ``timestamp`` (seconds or milliseconds
  since the epoch, ISO 8601, or ``yyyy-MM-dd HH:mm:ss``), ``lat`` and ``lon`` (or
  ``location=lat,lon``), ``speed`` (knots, Traccar Client's default unit), ``bearing`` or
  ``heading`` (degrees), ``altitude`` (m), ``accuracy`` (m), ``hdop``, ``batt``,
  ``charge``, ``valid`` (``false``/``0``: not a fix) and any other attribute, which
  Traccar keeps and this service ignores.
- **JSON** (Traccar Client from 9.0.0, the background location SDK's own format):
  ``{"location": {"timestamp": ISO 8601, "coords": {"latitude", "longitude", "accuracy",
  "speed" (m/s), "heading", "altitude"}, "is_moving", "odometer", "event", "battery",
  "activity", "extras"}, "device_id"}``; ``location`` may also be a list (a buffered batch).
  A negative heading or speed is the SDK's "unknown".

The answer is 200 with an empty body, as Traccar's own server gives; a device id that does
not match the token is 401.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass
from datetime import UTC
from urllib.parse import parse_qs

from django.conf import settings

from core.errors import DomainError
from drivers.positions import FIX_MAX_AGE, FIX_MAX_AHEAD, LATITUDE_LIMIT, Fix

METRES_PER_SECOND_PER_KNOT = 1852 / 3600
MAX_BODY_BYTES = 64 * 1024


@dataclass(frozen=True)
class OsmandReport:
    device_id: str
    fixes: list[Fix]


def _invalid(field: str, message: str) -> DomainError:
    return DomainError(
        "invalid_input", f"{field}: {message}"[:300], errors={field: [message[:200]]}
    )


def _number(value, field: str, low: float, high: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise _invalid(field, "A valid number is required.") from None
    if isinstance(value, bool) or not (math.isfinite(number) and low <= number <= high):
        raise _invalid(field, f"Ensure this value is between {low:g} and {high:g}.")
    return number


def _optional(value, field: str, low: float, high: float, *, unknown_below: float = 0.0):
    if value in (None, ""):
        return None
    number = _number(value, field, -math.inf, math.inf)
    if number < unknown_below:
        return None  # the SDK's -1: not known
    return _number(number, field, low, high)


def _check_time(at: dt.datetime, now: dt.datetime) -> dt.datetime:
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    if at < now - FIX_MAX_AGE or at > now + FIX_MAX_AHEAD:
        raise _invalid("timestamp", "More than a day old or ahead of the server's clock.")
    return at


def osmand_time(value, *, now: dt.datetime) -> dt.datetime:
    """The protocol's ``timestamp``: epoch seconds or milliseconds, ISO 8601, or
    ``yyyy-MM-dd HH:mm:ss`` (UTC); the server's time when absent."""
    if value in (None, ""):
        return now
    text = str(value).strip()[:40]
    try:
        if text.replace(".", "", 1).isdigit():
            seconds = float(text)
            # Milliseconds since the epoch are 13 digits today; seconds are 10.
            return _check_time(
                dt.datetime.fromtimestamp(seconds / 1000 if seconds > 1e11 else seconds, tz=UTC),
                now,
            )
        return _check_time(dt.datetime.fromisoformat(text.replace(" ", "T", 1)), now)
    except (ValueError, OverflowError, OSError):
        raise _invalid("timestamp", "Seconds or milliseconds since 1970, or ISO 8601.") from None


def _device_id(value) -> str:
    text = "" if value is None else str(value).strip()
    if not (0 < len(text) <= 64):
        raise _invalid("id", "The device identifier (id or deviceid) is required.")
    return text


def _query_fix(params: dict[str, str], now: dt.datetime) -> Fix | None:
    if params.get("valid", "true").lower() in ("false", "0"):
        return None
    lat, lon = params.get("lat"), params.get("lon")
    if (lat is None or lon is None) and "location" in params:
        lat, _, lon = params["location"].partition(",")
    if lat in (None, "") or lon in (None, ""):
        return None  # a report without a position (battery, an event): nothing to record
    speed = _optional(params.get("speed"), "speed", 0, 300)
    return Fix(
        lat=_number(lat, "lat", -LATITUDE_LIMIT, LATITUDE_LIMIT),
        lng=_number(lon, "lon", -180, 180),
        at=osmand_time(params.get("timestamp"), now=now),
        heading=_optional(params.get("bearing", params.get("heading")), "bearing", 0, 360),
        speed=None if speed is None else speed * METRES_PER_SECOND_PER_KNOT,
        accuracy=_optional(params.get("accuracy"), "accuracy", 0, 100_000),
    )


def _json_fix(location, now: dt.datetime) -> Fix | None:
    if not isinstance(location, dict):
        raise _invalid("location", "Expected a JSON object.")
    coords = location.get("coords")
    if not isinstance(coords, dict):
        raise _invalid("location.coords", "Expected a JSON object.")
    if coords.get("latitude") is None or coords.get("longitude") is None:
        return None
    return Fix(
        lat=_number(
            coords["latitude"], "location.coords.latitude", -LATITUDE_LIMIT, LATITUDE_LIMIT
        ),
        lng=_number(coords["longitude"], "location.coords.longitude", -180, 180),
        at=osmand_time(location.get("timestamp"), now=now),
        heading=_optional(coords.get("heading"), "location.coords.heading", 0, 360),
        speed=_optional(coords.get("speed"), "location.coords.speed", 0, 150),
        accuracy=_optional(coords.get("accuracy"), "location.coords.accuracy", 0, 100_000),
    )


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number")


def osmand_report_parse(
    *, query_string: str, body: bytes, content_type: str, now: dt.datetime
) -> OsmandReport:
    """The device and its fixes, from either format; 400 ``invalid_input`` or
    ``invalid_body`` naming what is wrong."""
    if len(body) > MAX_BODY_BYTES:
        raise DomainError("invalid_body", f"The body is larger than {MAX_BODY_BYTES} bytes.")
    media_type = content_type.split(";")[0].strip().lower()
    if media_type == "application/json" or body.lstrip().startswith(b"{"):
        try:
            parsed = json.loads(body, parse_constant=_reject_constant)
        except (ValueError, RecursionError):
            raise DomainError("invalid_body", "The body is not valid JSON.") from None
        if not isinstance(parsed, dict):
            raise DomainError("invalid_body", "The body must be a JSON object.")
        device_id = _device_id(parsed.get("device_id"))
        locations = parsed.get("location")
        locations = locations if isinstance(locations, list) else [locations]
        if len(locations) > settings.POSITIONS_BATCH_MAX:
            raise DomainError("batch_too_large", "Too many locations in one report.")
        fixes = [fix for fix in (_json_fix(item, now) for item in locations) if fix]
        return OsmandReport(device_id=device_id, fixes=fixes)
    try:
        text = query_string
        if body and media_type == "application/x-www-form-urlencoded":
            text = f"{query_string}&{body.decode()}" if query_string else body.decode()
        pairs = parse_qs(text, keep_blank_values=True, max_num_fields=100, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise DomainError("invalid_body", "The parameters are not valid form data.") from None
    params = {key: values[-1] for key, values in pairs.items()}
    device_id = _device_id(params.get("id", params.get("deviceid")))
    fix = _query_fix(params, now)
    return OsmandReport(device_id=device_id, fixes=[fix] if fix else [])
