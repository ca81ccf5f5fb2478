"""The position ingest's HTTP edge (issue 27): the lean path every car hits every few
seconds, shared by the Django views (``driverapp.api.views``) and the ingest process's own
WSGI application (``drivers.api.ingest_wsgi``), so both answer byte for byte alike.

No session, no ORM, no DRF on the way: the token is checked from the per-process
credential cache (``drivers.positions.credentials``), the body is parsed and checked here
by hand, and one service records the fixes (``drivers.services.driver_location_report``).
Each report is counted against the driver's limit by the service, in the same Redis call
that records it (``drivers.services.report_limit``), and, when it carries an
Idempotency-Key, answered once per key from the cache (``report_once``), as the other
driver endpoints are from the database.

Two request formats:

- the driver app's own, ``POST /api/public/v1/driver/location`` with
  ``Authorization: Token <token>``: ``{"lat", "lng", "heading"?, "speed"?, "accuracy"?,
  "at"?}`` for one fix (as before), or ``{"fixes": [{... "at"}, ...]}`` for a batch the
  phone buffered (at most ``POSITIONS_BATCH_MAX``, each with its own time);
- the OsmAnd protocol as Traccar Client sends it, on
  ``/api/public/v1/osmand/<token>`` (``drivers.api.osmand``).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from api.idempotency import FORGET_STATUSES, IN_FLIGHT_TIMEOUT
from api.problems import Problem, problem_from_domain_error
from core.callers import Caller
from core.errors import DomainError
from drivers import services
from drivers.api import osmand
from drivers.positions import FIX_MAX_AGE, FIX_MAX_AHEAD, LATITUDE_LIMIT, Fix
from drivers.positions.credentials import (
    PositionCredential,
    app_token_credential,
    device_token_credential,
)
from guards.ratelimits import CACHE_DOWN, limit_enforce, limit_spent_refuse, rate_parse

logger = logging.getLogger(__name__)

LOCATION_PATH = "/api/public/v1/driver/location"
OSMAND_PREFIX = "/api/public/v1/osmand/"
IDEMPOTENCY_PREFIX = "ingest-idem:"
MAX_BODY_BYTES = 64 * 1024
PROBLEM_CONTENT_TYPE = "application/problem+json"
JSON_CONTENT_TYPE = "application/json"
AUTH_KEYWORDS = ("token", "bearer")
# Failed tokens per client address (credential_limited).
TOKEN_FAILURES_SCOPE = "ingest_token"
TOKEN_FAILURES_DETAIL = "Too many invalid tokens from this address; try again later."

FIX_FIELDS = ("lat", "lng", "heading", "speed", "accuracy", "at")
# (low, high, required) of each number in a fix; speed in metres per second.
NUMBER_RANGES = {
    "lat": (-LATITUDE_LIMIT, LATITUDE_LIMIT, True),
    "lng": (-180.0, 180.0, True),
    "heading": (0.0, 360.0, False),
    "speed": (0.0, 150.0, False),
    "accuracy": (0.0, 100_000.0, False),
}


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    content_type: str = JSON_CONTENT_TYPE
    headers: dict[str, str] = field(default_factory=dict)


def problem_answer(error: DomainError) -> Answer:
    problem = error if isinstance(error, Problem) else problem_from_domain_error(error)
    headers = dict(problem.headers)
    if problem.status in (429, 503):
        headers.setdefault("Retry-After", str(error.extra.get("retryAfter", 5)))
    if problem.status == 401:
        headers.setdefault("WWW-Authenticate", "Token")
    return Answer(
        problem.status, json.dumps(problem.as_body()).encode(), PROBLEM_CONTENT_TYPE, headers
    )


def _invalid(errors: dict[str, list[str]], detail: str = "") -> DomainError:
    return DomainError(
        "invalid_input", detail or "The position has invalid fields; see errors.", errors=errors
    )


def location_credential(authorization: str | None, *, address: str) -> PositionCredential:
    """The reporter named by ``Authorization: Token <token>`` (or ``Bearer``): 401 without
    one or for a bad one; 429 once ``address`` has tried too many bad ones
    (:func:`credential_limited`)."""
    parts = (authorization or "").split()
    if len(parts) != 2 or parts[0].lower() not in AUTH_KEYWORDS:
        raise DomainError("unauthenticated", "Send the driver app's token: 'Token <token>'.")
    return credential_limited(
        lambda before_read: app_token_credential(parts[1], before_read=before_read),
        address=address,
    )


def credential_limited(
    check: Callable[[Callable[[], None]], PositionCredential], *, address: str
) -> PositionCredential:
    """``check(before_read)`` under the limit of failed tokens per client address
    (``RATELIMITS["ingest_token"]``, issue 35): every token refused counts one against
    ``address``, and once its allowance is spent a token this process does not remember
    is refused, 429 with Retry-After, before the database is read for it. Counted with the
    other limits (``guards.ratelimits``), in the database while the cache is down (a
    limit that guards a secret). A remembered token is answered without counting.

    Only an address whose tokens failed in this process within the window asks the limit
    store before reading a token, so a car with a good token never waits on it; each
    process reads at most once for an address before it learns of it."""
    counted = f"ip:{address}"

    def refuse_when_spent() -> None:
        if _failing_addresses.get(address, 0.0) > time.monotonic():
            limit_spent_refuse(TOKEN_FAILURES_SCOPE, value=counted, detail=TOKEN_FAILURES_DETAIL)

    try:
        return check(refuse_when_spent)
    except DomainError as error:
        if error.code == "unauthenticated":
            _failing_address_note(address)
            limit_enforce(
                Caller(ip=address),
                TOKEN_FAILURES_SCOPE,
                value=counted,
                detail=TOKEN_FAILURES_DETAIL,
            )
        raise


# Addresses whose tokens failed in this process, each until its window would end.
_failing_addresses: dict[str, float] = {}
FAILING_ADDRESSES_KEPT = 10_000


def _failing_address_note(address: str) -> None:
    if len(_failing_addresses) >= FAILING_ADDRESSES_KEPT:
        _failing_addresses.clear()
    _, window = rate_parse(settings.RATELIMITS[TOKEN_FAILURES_SCOPE])
    _failing_addresses[address] = time.monotonic() + window


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number")


def json_body(body: bytes):
    """The parsed body; 400 ``invalid_body`` for anything that is not plain JSON (the
    limits of ``api.parsers.GuardedJSONParser``: no NaN or Infinity, no huge numbers)."""
    if len(body) > MAX_BODY_BYTES:
        raise DomainError("invalid_body", f"The body is larger than {MAX_BODY_BYTES} bytes.")
    try:
        return json.loads(body, parse_constant=_reject_constant, parse_int=_small_int)
    except (ValueError, RecursionError) as exc:
        raise DomainError("invalid_body", f"The body is not valid JSON: {exc}"[:300]) from None


def _small_int(text: str) -> int:
    if len(text) > 40:
        raise ValueError("number literal too long")
    return int(text)


def fix_time(value, *, now: dt.datetime) -> dt.datetime:
    """An ISO 8601 time (UTC when it names no offset) within a day before ``now`` and a few
    minutes after; ValueError otherwise."""
    if not isinstance(value, str) or len(value) > 40:
        raise ValueError("Give an ISO 8601 time, e.g. 2026-11-25T14:05:09Z.")
    at = dt.datetime.fromisoformat(value)
    if at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return fix_time_check(at, now=now)


def fix_time_check(at: dt.datetime, *, now: dt.datetime) -> dt.datetime:
    if at < now - FIX_MAX_AGE or at > now + FIX_MAX_AHEAD:
        raise ValueError("More than a day old, or ahead of the server's clock: check the clock.")
    return at


def fix_parse(item, *, prefix: str, now: dt.datetime, need_time: bool) -> Fix:
    """One fix of the driver app's format; DomainError naming the fields otherwise."""
    if not isinstance(item, dict):
        raise _invalid({prefix or "non_field_errors": ["Expected a JSON object."]})
    name = (lambda key: f"{prefix}.{key}") if prefix else (lambda key: key)
    errors: dict[str, list[str]] = {}
    for key in item:
        if key not in FIX_FIELDS:
            errors[name(str(key))[:100]] = ["Unknown field."]
    values: dict = {}
    for key, (low, high, required) in NUMBER_RANGES.items():
        value = item.get(key)
        if value is None:
            if required:
                errors[name(key)] = ["This field is required."]
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            errors[name(key)] = ["A valid number is required."]
            continue
        number = float(value)
        if not (math.isfinite(number) and low <= number <= high):
            errors[name(key)] = [f"Ensure this value is between {low:g} and {high:g}."]
            continue
        values[key] = number
    at = now
    if item.get("at") is not None or need_time:
        try:
            at = fix_time(item.get("at"), now=now)
        except ValueError as exc:
            errors[name("at")] = [str(exc)]
    if errors:
        raise _invalid(errors)
    return Fix(at=at, **values)


def location_fixes(body: bytes, *, now: dt.datetime) -> list[Fix]:
    """The fixes of a driver app report: one fix, or ``{"fixes": [...]}``."""
    parsed = json_body(body)
    if not isinstance(parsed, dict):
        raise DomainError("invalid_body", "The body must be a JSON object.")
    if "fixes" not in parsed:
        return [fix_parse(parsed, prefix="", now=now, need_time=False)]
    unknown = {key: ["Unknown field."] for key in parsed if key != "fixes"}
    batch = parsed["fixes"]
    if unknown:
        raise _invalid(unknown)
    if not isinstance(batch, list) or not batch:
        raise _invalid({"fixes": ["Give a list of one or more fixes."]})
    if len(batch) > settings.POSITIONS_BATCH_MAX:
        raise DomainError(
            "batch_too_large",
            f"At most {settings.POSITIONS_BATCH_MAX} fixes in one report.",
            errors={"fixes": [f"At most {settings.POSITIONS_BATCH_MAX} fixes."]},
        )
    fixes, errors = [], {}
    for index, item in enumerate(batch):
        try:
            fixes.append(fix_parse(item, prefix=f"fixes[{index}]", now=now, need_time=True))
        except DomainError as exc:
            errors.update(exc.errors or {})
    if errors:
        raise _invalid(errors)
    return fixes


def _iso(at: dt.datetime) -> str:
    return at.astimezone(UTC).isoformat().replace("+00:00", "Z")


def location_report_answer(
    *,
    credential: PositionCredential,
    body: bytes,
    idempotency_key: str | None = None,
    now: dt.datetime | None = None,
) -> Answer:
    """Record a driver app report; 200 with the newest fix of the report. Limited per
    driver, and once per Idempotency-Key."""
    return report_once(
        key=idempotency_key,
        credential=credential,
        path=LOCATION_PATH,
        request=body,
        answer=lambda: _location_record(credential=credential, body=body, now=now),
    )


def _location_record(
    *, credential: PositionCredential, body: bytes, now: dt.datetime | None
) -> Answer:
    now = now or timezone.now()
    try:
        fixes = location_fixes(body, now=now)
        services.driver_location_report(
            driver_id=credential.driver_id,
            vehicle_classes=credential.vehicle_classes,
            fixes=fixes,
        )
    except DomainError as error:
        return problem_answer(error)
    newest = max(fixes, key=lambda f: f.at)
    output = {
        "lat": newest.lat,
        "lng": newest.lng,
        "heading": newest.heading,
        "reportedAt": _iso(newest.at),
        "fixes": len(fixes),
    }
    return Answer(200, json.dumps(output).encode())


def location_request_answer(
    *, authorization: str | None, address: str, body: bytes, idempotency_key: str | None = None
) -> Answer:
    """``POST /api/public/v1/driver/location`` from its headers and body, sent from the
    client ``address`` (``api.callers.client_address``)."""
    try:
        credential = location_credential(authorization, address=address)
    except DomainError as error:
        return problem_answer(error)
    return location_report_answer(credential=credential, body=body, idempotency_key=idempotency_key)


def osmand_request_answer(
    *,
    token: str,
    method: str,
    query_string: str,
    body: bytes,
    content_type: str,
    address: str,
    idempotency_key: str | None = None,
) -> Answer:
    """An OsmAnd report (Traccar Client) on ``/api/public/v1/osmand/<token>``: 200 with an
    empty body, as Traccar's own server answers, once the fixes are recorded. Limited per
    driver with the app's reports, and in failed tokens per client ``address``; a POST is
    recorded once per Idempotency-Key."""
    now = timezone.now()
    try:
        report = osmand.osmand_report_parse(
            query_string=query_string, body=body, content_type=content_type, now=now
        )
        credential = credential_limited(
            lambda before_read: device_token_credential(
                token, device_id=report.device_id, before_read=before_read
            ),
            address=address,
        )
    except DomainError as error:
        return problem_answer(error)

    def record() -> Answer:
        if report.fixes:
            try:
                services.driver_location_report(
                    driver_id=credential.driver_id,
                    vehicle_classes=credential.vehicle_classes,
                    fixes=report.fixes,
                )
            except DomainError as error:
                return problem_answer(error)
        return Answer(200, b"", "text/plain")

    return report_once(
        key=idempotency_key if method == "POST" else None,
        credential=credential,
        path=OSMAND_PREFIX + token,
        request=query_string.encode("utf-8", "surrogatepass") + b"\x00" + body,
        answer=record,
    )


# --- Rate limit and Idempotency-Key (contract 1.3, 1.4), without the database -----------


def report_once(
    *,
    key: str | None,
    credential: PositionCredential,
    path: str,
    request: bytes,
    answer: Callable[[], Answer],
) -> Answer:
    """``answer()`` once per Idempotency-Key: scope key + driver + path, kept
    ``IDEMPOTENCY_RETENTION_HOURS`` in the ``default`` cache (Redis in production), not in
    ``api.idempotency``'s table, since the hot path has no ORM and a report is idempotent
    by nature. The observable rules are the contract's: the same request replays the first
    answer with ``Idempotent-Replayed: true``; another is 422 ``idempotency_key_reuse``; a
    key still in flight is 409 ``idempotency_conflict``; answers that invite a retry (401,
    409, 429, 503, 5xx) are forgotten; a claim left by a request that died expires after
    ``api.idempotency.IN_FLIGHT_TIMEOUT``.

    Without a key (the driver app's routine reports) this costs nothing; with one, two
    cache calls and about 300 bytes for the retention. With the cache unreachable the
    report is recorded unprotected (logged): refusing it would lose a position, and
    recording it twice changes nothing."""
    if key is None or credential.driver_id is None:
        return answer()
    if not 1 <= len(key) <= 255:
        return problem_answer(
            Problem(
                400,
                "invalid_input",
                "Idempotency-Key must be 1 to 255 characters.",
                errors={"Idempotency-Key": ["Must be 1 to 255 characters."]},
            )
        )
    scope = IDEMPOTENCY_PREFIX + _digest(f"driver:{credential.driver_id}", path, key)
    request_hash = _digest(request)
    try:
        in_flight = (request_hash, None, "", b"", {})
        claimed = cache.add(scope, in_flight, IN_FLIGHT_TIMEOUT.total_seconds())
        held = None if claimed else cache.get(scope)
    except CACHE_DOWN as exc:
        logger.warning("ingest idempotency: cache unreachable (%s); recorded without it", exc)
        return answer()
    if not claimed:
        return _held_answer(held, request_hash)
    first = None
    try:
        first = answer()
    finally:
        _settle(scope, request_hash, first)
    return first


def _digest(*parts: str | bytes) -> str:
    sha = hashlib.sha256()
    for part in parts:
        sha.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
        sha.update(b"\x00")
    return sha.hexdigest()


def _held_answer(held: tuple | None, request_hash: str) -> Answer:
    """The answer to a key claimed before: the first answer again, or why not."""
    if held is None:  # expired between the claim and the read: the first is over
        return problem_answer(_conflict("Could not claim the Idempotency-Key; retry."))
    first_hash, status, content_type, body, headers = held
    if first_hash != request_hash:
        return problem_answer(
            Problem(
                422,
                "idempotency_key_reuse",
                "This Idempotency-Key was already used with a different request body.",
            )
        )
    if status is None:
        return problem_answer(
            _conflict("A request with this Idempotency-Key is still being processed.")
        )
    return Answer(status, body, content_type, {**headers, "Idempotent-Replayed": "true"})


def _conflict(detail: str) -> Problem:
    return Problem(409, "idempotency_conflict", detail, headers={"Retry-After": "1"})


def _settle(scope: str, request_hash: str, first: Answer | None) -> None:
    try:
        if first is None or first.status in FORGET_STATUSES or first.status >= 500:
            cache.delete(scope)
        else:
            kept = (request_hash, first.status, first.content_type, first.body, first.headers)
            cache.set(scope, kept, settings.IDEMPOTENCY_RETENTION_HOURS * 3600)
    except CACHE_DOWN as exc:
        logger.warning("ingest idempotency: cache unreachable (%s); answer not kept", exc)
