"""A tariff's part of tariffSource stored once, not on every quote and booking (issue 41).

What :func:`pricing.catalogue.tariff_source` gives for a tariff is written once as a
:class:`pricing.models.TariffSourceSnapshot`, keyed by the SHA-256 of its canonical JSON,
when the tariff is saved. A quote or booking priced on it stores the snapshot's key and
only its own part (the merged uncertainties, band, licensing authority, the estimate's
error for the band); :func:`tariff_source_merge` puts the two back together as priced.
Snapshots never change (a changed tariff gives another key), so the object a quote shows
is frozen as it was priced (contract 2.3), and a process may keep their content.

PostgreSQL's ``jsonb`` keeps an object's keys shortest first, then in byte order, and a
row read back shows them in that order; :func:`jsonb_ordered` gives a merged object that
order, so a row read back shows the same bytes whether it holds a whole copy or a part.
"""

from __future__ import annotations

import hashlib
import json

# The keys of pricing.catalogue.tariff_source, in its order: a snapshot's content read
# back from jsonb is put back in this order, the order a freshly priced quote shows.
SOURCE_KEYS = (
    "kind",
    "basis",
    "name",
    "reference",
    "effectiveFrom",
    "status",
    "uncertain",
    "sourceUrl",
    "estimate",
)
_SOURCE_POSITION = {key: position for position, key in enumerate(SOURCE_KEYS)}


def source_digest(content: dict) -> str:
    """The snapshot key of ``content``: SHA-256 of its JSON with sorted keys."""
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def source_in_order(content: dict) -> dict:
    """``content`` with its keys in :data:`SOURCE_KEYS` order."""
    return dict(sorted(content.items(), key=lambda item: _SOURCE_POSITION[item[0]]))


def tariff_source_merge(content: dict, own: dict) -> dict:
    """tariffSource as priced: the snapshot's ``content`` with the quote's ``own`` part
    over it. A key of both keeps the snapshot's place; ``estimate`` is merged one level
    down (the own part holds only the band's ``errorPct``); keys only in ``own`` follow."""
    merged = {**content, **own}
    estimate = own.get("estimate")
    if estimate is not None and isinstance(content.get("estimate"), dict):
        merged["estimate"] = {**content["estimate"], **estimate}
    return merged


def _jsonb_key(key: str) -> tuple[int, bytes]:
    raw = key.encode()
    return len(raw), raw


def jsonb_ordered(value):
    """``value`` with every object's keys in PostgreSQL ``jsonb`` order."""
    if isinstance(value, dict):
        return {key: jsonb_ordered(value[key]) for key in sorted(value, key=_jsonb_key)}
    if isinstance(value, list):
        return [jsonb_ordered(item) for item in value]
    return value
