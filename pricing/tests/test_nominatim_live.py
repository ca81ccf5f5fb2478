"""A real Nominatim, built here from the extract the test writes (issue 40).

Runs with ``make test-nominatim`` (about a minute: its own PostgreSQL cluster by initdb on
a free port, ``nominatim import`` of pricing/tests/nominatim_extract.py's extract, then
``nominatim serve``); skipped unless ``NOMINATIM_BIN`` names the ``nominatim`` command.
Needs Debian's ``osm2pgsql`` and PostGIS for the PostgreSQL whose ``initdb`` is on PATH
(or ``PG_BINDIR``). Everything it starts it stops, by its own process or data directory.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from pricing.routing import great_circle_m
from pricing.tests.nominatim_extract import EXPECTED, extract_xml

pytestmark = [
    pytest.mark.nominatim,
    pytest.mark.skipif(
        not os.environ.get("NOMINATIM_BIN"), reason="set NOMINATIM_BIN: make test-nominatim"
    ),
]

RECORDED = Path(__file__).parent / "data" / "nominatim_search_jsonv2.json"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run its own commands as ``postgres`` then."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _pg(name: str) -> str:
    bindir = os.environ.get("PG_BINDIR") or "/usr/lib/postgresql/15/bin"
    return str(Path(bindir) / name) if (Path(bindir) / name).exists() else name


@pytest.fixture(scope="module")
def nominatim_url():
    nominatim = os.environ["NOMINATIM_BIN"]
    if not shutil.which("osm2pgsql"):
        pytest.skip("osm2pgsql is not installed")
    # Not under pytest's own (owner-only) temporary directory: the cluster's owner must
    # reach it when the tests run as root.
    root = Path(tempfile.mkdtemp(prefix="nominatim-test-"))
    root.chmod(0o777)
    data, project, extract = root / "pg", root / "project", root / "extract.osm"
    extract.write_text(extract_xml())
    project.mkdir()
    pg_port, http_port = _free_port(), _free_port()
    subprocess.run(
        _as_postgres([_pg("initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"]),
        check=True,
        capture_output=True,
    )
    options = f"-p {pg_port} -k {root} -c listen_addresses=''"
    # The server inherits pg_ctl's output: a log file, not a pipe nobody would close.
    log = str(root / "postgres.log")
    subprocess.run(
        _as_postgres([_pg("pg_ctl"), "-D", str(data), "-o", options, "-l", log, "-w", "start"]),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    server = None
    try:
        env = {
            **os.environ,
            "NOMINATIM_DATABASE_DSN": f"pgsql:host={root};port={pg_port};dbname=nominatim;user=postgres",
            "NOMINATIM_DATABASE_WEBUSER": "postgres",
        }
        subprocess.run(
            [nominatim, "import", "--osm-file", str(extract), "--project-dir", str(project)],
            check=True,
            capture_output=True,
            env=env,
            timeout=300,
        )
        server = subprocess.Popen(
            [
                nominatim,
                "serve",
                "--project-dir",
                str(project),
                "--server",
                f"127.0.0.1:{http_port}",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{http_port}"
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"{url}/status", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                time.sleep(0.2)
        yield url
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        subprocess.run(
            _as_postgres([_pg("pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]),
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.django_db
@pytest.mark.parametrize("text", sorted(EXPECTED))
def test_a_real_nominatim_places_the_issues_streets(nominatim_url, tariffs, text):
    cache.clear()
    (lat, lng), precision = EXPECTED[text]
    with override_settings(
        GEOCODER_STREET_URL=nominatim_url, PRICING_GEOCODER="pricing.geocoding.AddressGeocoder"
    ):
        response = APIClient().post(
            "/api/public/v1/quote", {"pickup": text, "dropoff": "Heathrow T5"}, format="json"
        )
    assert response.status_code == 200, response.content
    place = response.json()["pickupPlace"]
    assert (place["precision"], place["source"]) == (precision, "nominatim")
    assert great_circle_m(place["lat"], place["lng"], lat, lng) < 100


def test_the_recorded_exchanges_are_what_it_answers(nominatim_url):
    recorded = json.loads(RECORDED.read_text())["search"]
    for text, answer in recorded.items():
        query = urllib.parse.urlencode(
            {"q": text, "format": "jsonv2", "addressdetails": 1, "limit": 5, "countrycodes": "gb"}
        )
        with urllib.request.urlopen(f"{nominatim_url}/search?{query}", timeout=10) as live:
            rows = json.load(live)
        keep = ("lat", "lon", "category", "addresstype", "display_name", "address")
        assert [{k: r[k] for k in keep} for r in rows] == [{k: r[k] for k in keep} for r in answer]
