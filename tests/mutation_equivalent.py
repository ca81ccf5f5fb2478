"""Survivors of `make mutate` reviewed as equivalent: no input the rule can receive tells the
mutant from the original. Each entry says why. tests.mutation_score leaves them out of the
kill rate and prints them. A mutant's name follows its function's source: re-review the
entries of a function that changes."""

EQUIVALENT: dict[str, str] = {
    # agents.confirmations (make mutate FAMILY=agents)
    "agents.confirmations.x_booking_preview__mutmut_5": (
        "counted=None for False: booking_request_admit reads it only as a truth value "
        "(if counted), and None is false alike"
    ),
    "agents.confirmations.x_booking_preview__mutmut_25": (
        "compress=None: the token is signed uncompressed; signing.loads reads a compressed "
        "and an uncompressed token alike, so only its length differs"
    ),
    "agents.confirmations.x_booking_preview__mutmut_28": (
        "compress left out: the same as x_booking_preview__mutmut_25"
    ),
    "agents.confirmations.x_booking_preview__mutmut_48": (
        "compress=False: the same as x_booking_preview__mutmut_25"
    ),
    # the licensing grid (make mutate FAMILY=grid): _load reads two shipped files, and these
    # mutants read them alike
    "pricing.licensing.x__load__mutmut_1": (
        "codes None for (): the grid file always has its codes line (written by "
        "pricing_build_licensing_grid), which replaces the default before any use"
    ),
    "pricing.licensing.x__load__mutmut_4": (
        "the grid file opened in the locale's encoding: it is ASCII, read alike by every "
        "ASCII-compatible encoding"
    ),
    "pricing.licensing.x__load__mutmut_6": (
        "the grid file opened without an encoding: the same as x__load__mutmut_4"
    ),
    "pricing.licensing.x__load__mutmut_8": (
        'encoding="UTF-8" for "utf-8": the codec name is case-insensitive'
    ),
    "pricing.licensing.x__load__mutmut_14": (
        "rpartition for partition on the tab: each row of the grid file has exactly one tab"
    ),
    "pricing.licensing.x__load__mutmut_15": (
        "rstrip() for rstrip('\\n'): the part after the tab is split on whitespace anyway "
        "and no key ends in a space"
    ),
    "pricing.licensing.x__load__mutmut_16": (
        "lstrip('\\n') for rstrip: the newline left at the end is dropped by the split on "
        "whitespace of the runs and of the codes"
    ),
    "pricing.licensing.x__load__mutmut_17": (
        "rstrip('XX\\nXX'): also strips trailing X, and every line ends in a digit"
    ),
    "pricing.licensing.x__load__mutmut_38": (
        "the authorities file opened in the locale's encoding: it is ASCII (JSON escapes)"
    ),
    "pricing.licensing.x__load__mutmut_40": (
        "the authorities file opened without an encoding: the same as x__load__mutmut_38"
    ),
    "pricing.licensing.x__load__mutmut_42": (
        'encoding="UTF-8" for "utf-8": the codec name is case-insensitive'
    ),
    "pricing.licensing.x__load__mutmut_68": (
        "data.get('sites', None): the authorities file has its sites list"
    ),
    "pricing.licensing.x__load__mutmut_70": (
        "data.get('sites') without a default: the authorities file has its sites list"
    ),
    "pricing.licensing.xǁLicensingMapǁdistrict_at__mutmut_24": (
        "_cell(None, lng): no row has the key None, so the cell reads as a gap and the "
        "search runs; its offset (0, 0) is the cell itself at distance 0, which wins: the "
        "same district, found more slowly"
    ),
    "agents.grants.x_agent_grant_for_token__mutmut_5": (
        'encode("UTF-8") is encode("utf-8"): the codec name is case-insensitive'
    ),
    "agents.grants.x_agent_grant_for_token__mutmut_10": (
        "select_related without application: the same rows, one query more"
    ),
    "agents.grants.x_agent_grant_for_token__mutmut_11": (
        "select_related without user: the same rows, one query more"
    ),
    "agents.grants.x__origin__mutmut_10": (
        "split('/') without maxsplit: only the first part is used, and it is the same"
    ),
    "agents.grants.x__origin__mutmut_13": (
        "split('/', 2) for split('/', 1): only the first part is used, and it is the same"
    ),
    "agents.confirmations.x_booking_preview__mutmut_42": (
        "compress=None: the token still signs and loads the same preview, only longer"
    ),
    "agents.confirmations.x_booking_preview__mutmut_45": (
        "no compress argument: the token still signs and loads the same preview, only longer"
    ),
    "agents.confirmations.x_booking_preview__mutmut_65": (
        "compress=False: the token still signs and loads the same preview, only longer"
    ),
    "partners.services.signatures.x_signed_request_claim__mutmut_34": (
        "filter by digest alone: the digest hashes the account's id with the signature, so "
        "it names one account's row already"
    ),
    "partners.services.signatures.x_signed_request_claim__mutmut_47": (
        "status or 201 for status or 200: a done claim always has its status, written in "
        "the same UPDATE that marks it done"
    ),
    "partners.services.signatures.x_signed_request_claim__mutmut_57": (
        "a dead claim deleted by its id alone: created_at is never updated and ids are never "
        "reused (PostgreSQL sequences, SQLite AUTOINCREMENT), so the id names the same row"
    ),
    "api.idempotency.x_idempotency_settle__mutmut_27": (
        "response.get('content-type'): Django's response headers are a case-insensitive mapping"
    ),
    "api.idempotency.x_idempotency_settle__mutmut_35": (
        "response.get('location'): Django's response headers are a case-insensitive mapping"
    ),
    "api.idempotency.x_idempotency_settle__mutmut_36": (
        "response.get('LOCATION'): Django's response headers are a case-insensitive mapping"
    ),
    "dispatch.services.waiting.x_waiting_terms__mutmut_8": (
        "FlightArrival read for a pickup at no airport: the landing branch also requires an "
        "airport, so the row is never used; one query more"
    ),
    "dispatch.services.waiting.x_waiting_terms__mutmut_12": (
        "a tariff source without a reference reads as None, not '': both tariff look-ups "
        "(tariff_free_waiting_minutes, tariff_waiting_rate) return None for any falsy reference"
    ),
    "dispatch.services.waiting.x_waiting_terms__mutmut_14": (
        ".get('reference') without a default is None: falsy like '' (see x_waiting_terms__mutmut_12)"
    ),
    "dispatch.services.waiting.x_waiting_terms__mutmut_31": (
        "from_landing None for False: it is only ever read for its truth (waiting_line's "
        "'since', the no-show's waitingFrom)"
    ),
    "dispatch.services.waiting.x_waiting_line__mutmut_5": (
        "waited < 0 for <= 0: at exactly 0 the meter charges 0 increments, and amount <= 0 "
        "then returns None all the same"
    ),
    "dispatch.services.waiting.x_waiting_line__mutmut_14": (
        "int(s / 60) for int(s // 60): waited is > 0 here, and truncating a positive quotient "
        "is flooring it (seconds come in microseconds, far inside float precision)"
    ),
    "dispatch.services.waiting.x_waiting_line__mutmut_25": (
        "int(s / 60) for int(s // 60): the free time is >= 0 (positive minutes from the "
        "tariff, the airport or the setting), so truncating is flooring"
    ),
    "bookings.policies.x_pickup_require_future__mutmut_11": (
        "detail None for the past-pickup error: field_error's detail falls back to the "
        "message, the same sentence"
    ),
    "bookings.policies.x_pickup_require_future__mutmut_14": (
        "the message dropped from field_error(code, field, M, M): the detail becomes the "
        "message and the detail falls back to it, the same sentence"
    ),
    "bookings.policies.x_pickup_require_future__mutmut_15": (
        "the detail dropped from field_error(code, field, M, M): it falls back to the "
        "message, the same sentence"
    ),
    "dispatch.services.offers.answers.x_offers_expire_overdue__mutmut_6": (
        "values_list(flat=True) without 'pk': with no field named it yields the first "
        "column, the offer's id"
    ),
    "dispatch.services.offers.answers.x_offer_expire__mutmut_14": (
        "select_for_update(no_key=None): FOR UPDATE instead of FOR NO KEY UPDATE on the same "
        "row in the same transaction; the outcome is the same, a concurrent insert of a row "
        "referencing the offer only waits for the commit (and SQLite ignores both)"
    ),
    "dispatch.services.offers.answers.x_offer_expire__mutmut_15": (
        "select_for_update(no_key=False): the same as x_offer_expire__mutmut_14"
    ),
    "api.idempotency.x_idempotency_claim__mutmut_82": (
        "a stale record deleted by its id alone: created_at is never updated and ids are never "
        "reused (PostgreSQL sequences, SQLite AUTOINCREMENT), so the id names the same row"
    ),
    "api.idempotency.x_idempotency_claim__mutmut_113": (
        "the in-flight 409's Retry-After header named in lower case: Django's response "
        "headers are a case-insensitive mapping, and HTTP header names are case-insensitive"
    ),
    "api.idempotency.x_idempotency_claim__mutmut_114": (
        "the in-flight 409's Retry-After header named in upper case: the same as "
        "x_idempotency_claim__mutmut_113"
    ),
    "api.idempotency.x__digest__mutmut_10": (
        'encode("UTF-8") is encode("utf-8"): the codec name is case-insensitive'
    ),
    "api.idempotency.x_idempotency_settle__mutmut_28": (
        "response.get('CONTENT-TYPE'): Django's response headers are a case-insensitive mapping"
    ),
    # login throttles (make mutate FAMILY=tokens)
    "config.logins.x_login_lockout_response__mutmut_17": (
        "render(None, ...) for render(request, ...): login_locked.html and base.html read "
        "nothing the request's context processors add (request, user, messages), so the "
        "page is the same"
    ),
    "config.logins.x_login_lockout_response__mutmut_34": (
        "response['retry-after']: header names are case-insensitive (RFC 9110 5.1), and so "
        "are Django's response headers"
    ),
    "config.logins.x_login_lockout_response__mutmut_35": (
        "response['RETRY-AFTER']: the same as x_login_lockout_response__mutmut_34"
    ),
    # postcodes (make mutate FAMILY=postcodes): postcode_areas_load reads the shipped file
    "pricing.postcodes.x_postcode_areas_load__mutmut_8": (
        'encoding="UTF-8" for "utf-8": the codec name is case-insensitive'
    ),
    "pricing.postcodes.x_postcode_areas_load__mutmut_18": (
        "rstrip('XX\\nXX'): also strips a trailing capital X, and no line of the areas file "
        "ends in one (a town ends in a lower-case letter, a sector row in a tab)"
    ),
    "pricing.postcodes.x_postcode_areas_load__mutmut_21": (
        "code.split(None) for code.split(' '): a code is one outward part, one space and "
        "one digit, so both splits give the same outward part"
    ),
    "pricing.postcodes.x_postcode_areas_load__mutmut_31": (
        "every code, sectors too, recorded as a town's key: towns is read only by outward "
        "code, which no sector code (it holds a space) equals"
    ),
    # the trip (make mutate FAMILY=trip)
    "dispatch.services.jobs.x_settlement_require_within_fare__mutmut_8": (
        "the sums without the kind filter: they are grouped by kind, and only the payment "
        "and refund sums are read; the other kinds' sums are computed and ignored"
    ),
    # the position ingest (make mutate FAMILY=ingest)
    "drivers.api.ingest.x_location_credential__mutmut_3": (
        '(authorization or "XXXX") for (authorization or ""): no header reads as one word '
        "instead of none, and either is not the two words asked for: the same refusal"
    ),
    # the meter (make mutate FAMILY=meter)
    "pricing.fares.x__meter__mutmut_8": (
        "until_distance <= seg_end for <: when they are equal, seg_end is set to the value it "
        "already has"
    ),
    "pricing.fares.x__meter__mutmut_12": (
        "tails[0].after_distance <= seg_end for <: when they are equal, seg_end is set to the "
        "value it already has"
    ),
    "pricing.fares.x__meter__mutmut_16": (
        "waiting_here None for ZERO when there is no waiting: _steps reads it only for its "
        "truth first (`if not waiting_s`), and None is as falsy as zero"
    ),
    "pricing.fares.x__meter__mutmut_36": (
        "waiting_price * waited also when waited is 0: the meter band is complete (checked "
        "before), so waiting_price is a Decimal and the product is zero"
    ),
    "pricing.fares.x__meter__mutmut_69": (
        "waiting * (seg_len / distance_m) also when waiting is 0: zero, as falsy for _steps "
        "as ZERO; distance_m > 0 wherever a distance band applies (after_distance < distance_m)"
    ),
    "pricing.fares.x_time_in_traffic_s__mutmut_6": (
        "waiting >= ZERO for >: at exactly zero it returns that zero instead of ZERO, equal"
    ),
    # the MCP gate (make mutate FAMILY=mcp)
    "agents.mcp.gate.x__read_body__mutmut_8": (
        "a disconnect not recognised by its type: an http.disconnect message carries no body "
        "and no more_body, so the loop adds nothing and ends on `not more_body` all the same"
    ),
    "agents.mcp.gate.x__read_body__mutmut_9": (
        "the same as x__read_body__mutmut_8 (the type compared in upper case)"
    ),
    "agents.mcp.gate.x__read_body__mutmut_25": (
        'message.get("more_body", None) for False: read only for its truth, and None is as '
        "falsy as False"
    ),
    "agents.mcp.gate.x__read_body__mutmut_27": (
        'message.get("more_body") without a default: None, the same as x__read_body__mutmut_25'
    ),
    "agents.mcp.gate.x__header__mutmut_6": (
        'value.decode("LATIN-1"): the codec name is case-insensitive'
    ),
    "agents.mcp.gate.x__origin_of__mutmut_9": (
        "scope.get('scheme', 'HTTP'): the whole origin is lower-cased after"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_42": (
        'rstrip("XX/XX") for rstrip("/"): the origin is lower-cased first, so no "X" is '
        "left to strip"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_68": (
        "body=None for b'': control_character_place_in returns before reading the body's "
        "content type when the body is falsy, and the gate reads the body later"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_90": (
        "content_type 'XXXX' for '': read only for a body, and the gate passes none here "
        "(see xǁMCPGateǁ__call____mutmut_68)"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_74": (
        "scope.get('path', None): an ASGI HTTP scope always has its path (the ASGI spec "
        "requires it), so the default is never used"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_76": (
        "scope.get('path') without a default: the same as xǁMCPGateǁ__call____mutmut_74"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_79": (
        "scope.get('path', 'XXXX'): the same as xǁMCPGateǁ__call____mutmut_74"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_87": (
        "query_string's default b'XXXX' for b'': only a scope without query_string uses it, "
        "and 'XXXX' holds no control character, as the empty string holds none"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_89": (
        'decode("LATIN-1"): the codec name is case-insensitive'
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_91": (
        "body=b'XXXX' for b'': a body with no control character, as the empty one has none "
        "(the real body is checked after it is read)"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_121": (
        '{"allow": "POST"} for {"Allow": "POST"}: _send_problem lower-cases header names '
        "(ASGI sends them lower-case)"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_122": (
        '{"ALLOW": "POST"}: the same as xǁMCPGateǁ__call____mutmut_121'
    ),
    # tariff lifecycle and selection (make mutate FAMILY=tariffs)
    "pricing.loaders.x_lifecycle_from_status__mutmut_4": (
        '(status or "XXXX") for (status or ""): a missing status reads as "xxxx", which '
        "holds none of the words looked for, so it is current as before"
    ),
    "pricing.selectors.x_councils_for__mutmut_13": (
        "len(tables) >= 1 for > 1: sorting a list of one table leaves it as it is (the "
        "list is a new one, made by the +)"
    ),
    # dispatch (make mutate FAMILY=dispatch)
    "dispatch.services.waiting.x_waiting_terms__mutmut_18": (
        'reference "XXXX" when the tariff source has none: no tariff has that reference '
        '(they are lower-case slugs), so no free minutes and no rate, as for ""'
    ),
    # mcp (make mutate FAMILY=mcp), the grant memory of issue 41
    "agents.mcp.gate.x__grant_for__mutmut_1": (
        "the memory asked for token None: never remembered, so the worker thread's agent_grant_verify asks the memory again with the real token first and answers alike (one thread hop more)"
    ),
    "agents.mcp.gate.x__grant_for__mutmut_2": (
        "the memory asked for resource None: the same as x__grant_for__mutmut_1"
    ),
    "agents.mcp.gate.x__grant_for__mutmut_10": (
        "thread_sensitive=None for False: which worker thread reads the grant, not the answer"
    ),
    "agents.mcp.gate.x__grant_for__mutmut_12": (
        "sync_to_async's default thread_sensitive=True: the grant read on the one shared thread, the same answers one lookup at a time"
    ),
    "agents.mcp.gate.x__grant_for__mutmut_13": (
        "thread_sensitive=True: the same as x__grant_for__mutmut_12"
    ),
    "agents.grants.x_agent_grant_verify__mutmut_20": (
        "still_good returning None for False: core.credential_cache reads it for its truth only"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_202": (
        "the 401 challenge's header name lower-case: _send_problem lower-cases header names (ASGI sends them lower-case)"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_203": (
        "the 401 challenge's header name upper-case: the same as xǁMCPGateǁ__call____mutmut_202"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_277": (
        "the 403 insufficient_scope challenge's header name lower-case: the same as xǁMCPGateǁ__call____mutmut_202"
    ),
    "agents.mcp.gate.xǁMCPGateǁ__call____mutmut_278": (
        "the 403 challenge's header name upper-case: the same as xǁMCPGateǁ__call____mutmut_202"
    ),
    # the money rules (make mutate FAMILY=money)
    "pricing.fares.x__ceil_units__mutmut_1": (
        "units < 0 for units <= 0: at exactly 0 the ceiling of 0 is 0, the same count"
    ),
    "pricing.fares.x_fare_compute__mutmut_29": (
        "_meter(..., None) for no waiting: _meter reads waiting only for its truth (if "
        "waiting), and None is false like Decimal(0)"
    ),
    "pricing.fares.x_fare_compute__mutmut_35": (
        "waiting >= 0 for > 0: with no waiting the second run of the meter is the first "
        "(_meter reads waiting only for its truth), so the difference is 0 and adds no line"
    ),
    "pricing.fares.x_fare_compute__mutmut_41": (
        "labelled=None in the run with time: only its total is used, its lines are dropped"
    ),
    "pricing.fares.x_fare_compute__mutmut_46": (
        "labelled left at its default in the run with time: the same as x_fare_compute__mutmut_41"
    ),
    "pricing.fares.x_fare_compute__mutmut_47": (
        "labelled=True in the run with time: the same as x_fare_compute__mutmut_41"
    ),
    "pricing.fares.x_fare_compute__mutmut_66": (
        "sum() starting at int 0 for Decimal(0): 0 + a Decimal is that Decimal, same value "
        "and exponent, and the lines always hold the flag fall"
    ),
    "pricing.fares.x_fare_compute__mutmut_104": (
        "sum() starting at int 0 for Decimal(0): the same as x_fare_compute__mutmut_66"
    ),
    "pricing.compiled_tariffs.xǁCompiledTariffǁband_at__mutmut_25": (
        "best_precedence starting at 1 for 0: a window's precedence is 0 (no match) or 10, "
        "20 or 30 (pricing.tariff_windows), so > 1 and > 0 pick the same bands"
    ),
    "pricing.fares.x_fare_compute__mutmut_121": (
        "sum() starting at int 0 for Decimal(0): the same as x_fare_compute__mutmut_66 (the "
        "rules always hold the flag fall)"
    ),
}
