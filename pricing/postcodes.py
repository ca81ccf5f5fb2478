"""UK postcodes, offline (contract 2.1.1; issue 22).

Three levels, most precise first, each one a setting or a file away:

- **units** (a full postcode's own centroid): only where an operator has loaded the ONS
  Postcode Directory or OS Code-Point Open with ``manage.py load_postcodes FILE``, which
  writes a read-only SQLite file (``PRICING_POSTCODE_UNITS_FILE``);
- **sectors** ("LS1 4") and **districts** ("LS1"): shipped with the project in
  ``pricing/data/uk_postcodes.tsv`` (its header names the sources, their dates and the
  licence), the mean position of every live postcode of the sector or district, built by
  ``manage.py pricing_build_postcodes``.

A full postcode therefore resolves at least to its sector (a few hundred metres across in
a town, a few kilometres in the country), an outward code to its district. Reading the
open-data files (Code-Point Open's grid references, the ONSPD's lat/long, a plain
``postcode,lat,lng`` CSV) is here too, so the shipped file and a loaded one come from the
same parser.
"""

from __future__ import annotations

import csv
import io
import re
import sqlite3
import threading
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

DATA_FILE = Path(__file__).resolve().parent / "data" / "uk_postcodes.tsv"

# Outward code: area letters, district digit(s), optional letter or digit ("SW1A", "M1",
# "LS14"); inward code: sector digit and unit letters (never C, I, K, M, O, V).
_OUTWARD = r"[A-Z]{1,2}[0-9][A-Z0-9]?"
_INWARD = r"[0-9][ABD-HJLNP-UW-Z]{2}"
FULL_POSTCODE = re.compile(rf"^\s*({_OUTWARD})\s*({_INWARD})\s*$", re.IGNORECASE)
OUTWARD_ONLY = re.compile(rf"^\s*({_OUTWARD})\s*$", re.IGNORECASE)
# A postcode inside an address ("10 Downing Street, London SW1A 2AA"): a full one anywhere,
# an outward code only at the very end (else "B1" in "Flat B1, ..." would be a district).
FULL_IN_TEXT = re.compile(rf"(?<![A-Z0-9])({_OUTWARD})\s*({_INWARD})(?![A-Z0-9])", re.I)
OUTWARD_AT_END = re.compile(rf"(?<![A-Z0-9])({_OUTWARD})\W*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Postcode:
    """A parsed UK postcode: ``outward`` always, ``inward`` for a full postcode."""

    outward: str
    inward: str = ""

    @property
    def unit(self) -> str:
        return f"{self.outward} {self.inward}" if self.inward else ""

    @property
    def sector(self) -> str:
        return f"{self.outward} {self.inward[0]}" if self.inward else ""

    @property
    def text(self) -> str:
        return self.unit or self.outward


def postcode_parse(text: str) -> Postcode | None:
    """The postcode that ``text`` is, as typed on a phone ("sw1a2aa") or written ("LS1")."""
    match = FULL_POSTCODE.match(text)
    if match:
        return Postcode(match.group(1).upper(), match.group(2).upper())
    match = OUTWARD_ONLY.match(text)
    if match:
        return Postcode(match.group(1).upper())
    return None


def postcode_in(text: str) -> tuple[Postcode, str] | None:
    """A postcode at the end of an address (or anywhere, when full), with the text left
    once it is taken out: "10 Downing Street, London SW1A 2AA" -> (SW1A 2AA, "10 Downing
    Street, London")."""
    full = list(FULL_IN_TEXT.finditer(text))
    if full:
        match = full[-1]
        found = Postcode(match.group(1).upper(), match.group(2).upper())
    else:
        match = OUTWARD_AT_END.search(text)
        if match is None:
            return None
        found = Postcode(match.group(1).upper())
    rest = (text[: match.start()] + text[match.end() :]).strip(" ,;\n")
    return found, rest


# --- reading the open data --------------------------------------------------------------


def units_read(path: Path) -> Iterator[tuple[str, float, float]]:
    """(postcode "SW1A 2AA", lat, lng) for every live postcode with a position in ``path``:
    OS Code-Point Open (its zip, its unpacked folder, or one of its CSVs), the ONS
    Postcode Directory CSV (or its zip), or any CSV with ``postcode`` and lat/lng columns.
    Terminated postcodes (ONSPD ``doterm``) and those without a position are skipped."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*.csv") if _codepoint_data(str(p)))
        for file in files or sorted(path.rglob("*.csv")):
            with open(file, encoding="utf-8-sig", newline="") as f:
                yield from _rows(f)
    elif path.suffix.lower() == ".zip":
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if n.lower().endswith(".csv")]
            data = [n for n in names if _codepoint_data(n)]
            if not data:  # the ONSPD: its one big CSV is the longest-named file under Data/
                data = sorted((n for n in names if "/data/" in n.lower()), key=len)[:1] or names
            for name in sorted(data):
                with archive.open(name) as raw:
                    yield from _rows(io.TextIOWrapper(raw, encoding="utf-8-sig", newline=""))
    else:
        with open(path, encoding="utf-8-sig", newline="") as f:
            yield from _rows(f)


def _codepoint_data(name: str) -> bool:
    return "data/csv/" in name.lower().replace("\\", "/")


def _rows(f) -> Iterator[tuple[str, float, float]]:
    reader = csv.reader(f)
    first = next(reader, None)
    if first is None:
        return
    header = [c.strip().lower() for c in first]
    if "pcds" in header or "postcode" in header or "pcd" in header:
        yield from _rows_with_header(header, reader)
    else:  # Code-Point Open: no header; postcode, quality, easting, northing, ...
        yield from _codepoint_rows([first, *reader])


def _rows_with_header(header: list[str], reader) -> Iterator[tuple[str, float, float]]:
    code = next(header.index(c) for c in ("pcds", "postcode", "pcd") if c in header)
    lat = next(header.index(c) for c in ("lat", "latitude") if c in header)
    lng = next(header.index(c) for c in ("long", "lng", "lon", "longitude") if c in header)
    doterm = header.index("doterm") if "doterm" in header else None
    for row in reader:
        if doterm is not None and row[doterm].strip():
            continue  # terminated
        parsed = postcode_parse(row[code])
        try:
            point = float(row[lat]), float(row[lng])
        except (ValueError, IndexError):
            continue
        # The ONSPD marks postcodes without a grid reference 99.999999, 0.000000.
        if parsed is None or not parsed.inward or not _in_uk(*point):
            continue
        yield parsed.unit, *point


def _codepoint_rows(rows: Iterable[list[str]]) -> Iterator[tuple[str, float, float]]:
    # Code-Point Open gives British National Grid eastings and northings; convertbng turns
    # them into lat/lng with the OS's own OSTN15 transformation (to ~0.1 m), in batches.
    from convertbng.cutil import convert_lonlat

    batch: list[tuple[str, float, float]] = []
    for row in rows:
        if len(row) < 4 or row[1].strip() == "90":  # quality 90: no coordinates
            continue
        parsed = postcode_parse(row[0])
        try:
            easting, northing = float(row[2]), float(row[3])
        except ValueError:
            continue
        if parsed is None or not parsed.inward or easting <= 0 or northing <= 0:
            continue
        batch.append((parsed.unit, easting, northing))
        if len(batch) >= 20_000:
            yield from _convert(batch, convert_lonlat)
            batch = []
    yield from _convert(batch, convert_lonlat)


def _convert(batch, convert_lonlat) -> Iterator[tuple[str, float, float]]:
    if not batch:
        return
    lngs, lats = convert_lonlat([b[1] for b in batch], [b[2] for b in batch])
    for (code, *_), lat, lng in zip(batch, lats, lngs, strict=True):
        if _in_uk(float(lat), float(lng)):
            yield code, float(lat), float(lng)


def _in_uk(lat: float, lng: float) -> bool:
    return 49.0 < lat < 61.5 and -8.7 < lng < 2.0


def centroids_aggregate(
    units: Iterable[tuple[str, float, float]],
) -> dict[str, tuple[float, float, int]]:
    """Every district ("LS1") and sector ("LS1 4") of ``units`` -> (mean lat, mean lng,
    number of postcodes). The mean of a few hundred postcodes is where people live and
    work in the sector, which is where a taxi goes."""
    sums: dict[str, list[float]] = {}
    for unit, lat, lng in units:
        parsed = postcode_parse(unit)
        for code in (parsed.outward, parsed.sector):
            entry = sums.setdefault(code, [0.0, 0.0, 0])
            entry[0] += lat
            entry[1] += lng
            entry[2] += 1
    return {code: (s[0] / s[2], s[1] / s[2], int(s[2])) for code, s in sums.items()}


# --- the shipped districts and sectors --------------------------------------------------


@dataclass(frozen=True, slots=True)
class PostcodeArea:
    """A district or sector of the shipped file: its centroid and the town it is in."""

    lat: float
    lng: float
    postcodes: int
    town: str


def postcode_areas_load(path: Path = DATA_FILE) -> dict[str, PostcodeArea]:
    """District and sector code -> :class:`PostcodeArea`; a sector takes its district's town."""
    areas: dict[str, PostcodeArea] = {}
    towns: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            code, lat, lng, count, town = line.rstrip("\n").split("\t")
            outward = code.split(" ")[0]
            town = town or towns.get(outward, "")
            if " " not in code:
                towns[code] = town
            areas[code] = PostcodeArea(float(lat), float(lng), int(count), town)
    return areas


# --- loaded units (manage.py load_postcodes) --------------------------------------------


class PostcodeUnits:
    """Full postcodes -> their own centroid, from the SQLite file ``load_postcodes`` writes.

    Read-only and opened lazily; one connection per thread (sqlite3's rule), no query when
    no file was loaded. Lookups are a primary-key hit: a few microseconds.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = Path(path) if path else None
        self._local = threading.local()

    @property
    def available(self) -> bool:
        return self.path is not None and self.path.is_file()

    def get(self, unit: str) -> tuple[float, float] | None:
        if not self.available:
            return None
        connection = getattr(self._local, "connection", None)
        if connection is None:
            uri = f"file:{self.path}?mode=ro"
            connection = sqlite3.connect(uri, uri=True, check_same_thread=True)
            self._local.connection = connection
        try:
            row = connection.execute(
                "SELECT lat, lng FROM postcode WHERE code = ?", (unit,)
            ).fetchone()
        except sqlite3.Error:
            return None
        return (row[0], row[1]) if row else None


def postcode_units_write(path: Path, units: Iterable[tuple[str, float, float]], source: str) -> int:
    """Write ``units`` to a new SQLite file at ``path`` (replacing it only once complete,
    so a running service never reads half a file) and return how many were written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(path.suffix + ".partial")
    partial.unlink(missing_ok=True)
    connection = sqlite3.connect(partial)
    try:
        connection.execute(
            "CREATE TABLE postcode (code TEXT PRIMARY KEY, lat REAL NOT NULL, lng REAL NOT NULL)"
            " WITHOUT ROWID"
        )
        connection.execute("CREATE TABLE provenance (source TEXT NOT NULL)")
        connection.execute("INSERT INTO provenance VALUES (?)", (source,))
        connection.executemany(
            "INSERT OR REPLACE INTO postcode VALUES (?, ?, ?)",
            ((code, round(lat, 6), round(lng, 6)) for code, lat, lng in units),
        )
        (count,) = connection.execute("SELECT count(*) FROM postcode").fetchone()
        connection.commit()
    finally:
        connection.close()
    partial.replace(path)
    return count
