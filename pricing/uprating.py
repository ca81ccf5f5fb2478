"""Uprated tables (issue 33, basis ``uprated``): an authority's last complete table with
every change it published since applied in order, as published
(``pricing/data/tariff_changes.json``).

A change is one of:

- ``percent``: the named tariffs (``bands``: a list of names, or ``"all"``) rise by the
  percentage. A meter's rise shortens its steps: the distance and time each step (and the
  start charge) covers are divided by ``1 + percent / 100``, the prices stay;
- ``minimum``: the start charge of every time band becomes ``amount_gbp``;
- ``band_rate_of``: ``band`` is charged at the steps of ``rate_of``;
- ``extra``: the named extra's amount becomes ``amount_gbp``.

A table is uprated only when everything between it and today is known: a change without
its day in force, a percentage without its tariffs, or any listed ``gap`` and nothing is
built (the authority is then ``calibrated`` from its figures). Each change's day starts a
new dated version, so a journey is priced on the version in force on its date.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

CHANGES_FILE = Path(__file__).resolve().parent / "data" / "tariff_changes.json"
METHOD = (
    "uprated: the authority's last complete table with every change it published since "
    "applied in order, as published"
)


@dataclass
class ChangeSet:
    base: str
    authority: str
    changes: list[dict] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)

    def blockers(self) -> list[str]:
        """Why the table cannot be uprated (empty: it can)."""
        reasons = list(self.gaps)
        for change in self.changes:
            if not change.get("effective_from"):
                reasons.append(f"{change['id']}: the day it came into force is not known")
            if change["kind"] == "percent" and change.get("bands") is None:
                reasons.append(f"{change['id']}: the tariffs it applies to are not known")
        return reasons


def _data(path: Path) -> dict:
    if not Path(path).exists():
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def checks_load(path: Path = CHANGES_FILE) -> list[dict]:
    """Pairs of complete tables of one authority with the change published between them:
    what the uprating error is measured on."""
    return list(_data(path).get("checks") or [])


def changes_load(path: Path = CHANGES_FILE) -> list[ChangeSet]:
    data = _data(path)
    return [
        ChangeSet(
            t["base"], t["authority"], list(t.get("changes") or []), list(t.get("gaps") or [])
        )
        for t in data.get("tables") or []
    ]


def _dec(value) -> Decimal:
    return Decimal(str(value))


def _shorten(value, factor: Decimal, places: str = "0.1"):
    if value is None:
        return None
    return str((_dec(value) / factor).quantize(Decimal(places), rounding=ROUND_HALF_UP))


def change_apply(record: dict, change: dict) -> None:
    """Apply one published change to a table record in place."""
    kind = change["kind"]
    time_bands = [b for b in record["bands"] if b.get("applies_after_distance_m") is None]
    if kind == "percent":
        factor = 1 + _dec(change["percent"]) / 100
        named = change.get("bands")
        for band in record["bands"]:
            if named != "all" and not any(band["name"].startswith(n) for n in named):
                continue
            for key in ("increment_distance_m", "waiting_seconds_per_increment"):
                band[key] = _shorten(band.get(key), factor)
            if band.get("flag_fall_distance_m") is not None:
                band["flag_fall_distance_m"] = _shorten(band["flag_fall_distance_m"], factor)
    elif kind == "minimum":
        for band in time_bands:
            band["flag_fall_gbp"] = str(_dec(change["amount_gbp"]))
    elif kind == "band_rate_of":
        target = next(b for b in record["bands"] if b["name"].startswith(change["band"]))
        source = next(b for b in record["bands"] if b["name"].startswith(change["rate_of"]))
        for key in ("increment_distance_m", "increment_price_gbp", "waiting_seconds_per_increment"):
            target[key] = source.get(key)
    elif kind == "extra":
        extras = record.setdefault("extras", [])
        found = next((e for e in extras if e["name"] == change["extra"]), None)
        if found is None:
            found = {"name": change["extra"]}
            extras.append(found)
        found["amount_gbp"] = str(_dec(change["amount_gbp"]))
        found.pop("from", None)
        found.pop("uncertain", None)
    else:
        raise ValueError(f"Unknown change kind {kind!r}")


def _source_of(change: dict) -> dict:
    source = change["source"]
    return {
        "url": source["url"],
        "publisher": source["publisher"],
        "date": source["date"],
        "secondary": bool(source.get("secondary")),
    }


def uprated_records(changes: ChangeSet, base: dict, error_pct: float) -> list[dict]:
    """One record per day a change came into force (the registry's record form, basis
    ``uprated``), each in force until the next; [] when the chain has a gap."""
    if changes.blockers() or not changes.changes:
        return []
    record = copy.deepcopy(base)
    record.pop("effective_to", None)
    days = sorted({c["effective_from"] for c in changes.changes})
    sources: list[dict] = []
    versions = []
    for index, day in enumerate(days):
        for change in (c for c in changes.changes if c["effective_from"] == day):
            change_apply(record, change)
            source = _source_of(change)
            if source not in sources:
                sources.append(source)
        version = copy.deepcopy(record)
        version.update(
            {
                "id": f"{base['id']}-uprated-{day}",
                "status": "current (uprated estimate)",
                "effective_date": day,
                "basis": "uprated",
                "estimate": {"method": METHOD, "errorPct": error_pct, "sources": list(sources)},
                "uncertain": list(base.get("uncertain") or [])
                + [f"uprated from {base['id']} by the changes published since"],
            }
        )
        if index + 1 < len(days):
            version["effective_to"] = days[index + 1]
        versions.append(version)
    return versions
