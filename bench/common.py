"""What several benchmarks share: throwaway databases, places scattered around a town,
and online drivers. Import after ``sys.path`` holds the project root."""

from __future__ import annotations

import math
import os
import random
import re
import shlex
import subprocess
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

KM_PER_DEG = 111.2


ROOT = Path(__file__).resolve().parent.parent


def procfile_line(process: str) -> str:
    """The command of a Procfile process, as written there."""
    [line] = [
        line
        for line in (ROOT / "Procfile").read_text().splitlines()
        if line.startswith(f"{process}: ")
    ]
    return line.split(": ", 1)[1]


def procfile_command(process: str) -> list[str]:
    """A Procfile process's command as honcho runs it, through the shell, so that each
    ``${NAME:-default}`` takes the environment's value (the environment's ``PATH`` must
    find the server); ``exec`` keeps the server's PID that of the process started."""
    return ["bash", "-c", "exec env " + procfile_line(process)]


def procfile_server_arguments(process: str) -> list[str]:
    """The gunicorn arguments of a Procfile process, each ``${NAME:-default}`` at its
    default, without what a bench sets itself (bind, workers, config, trusted proxies)."""
    line = procfile_line(process)
    words = shlex.split(re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", line))
    arguments, skip = [], False
    for word in words[words.index("gunicorn") + 1 :]:
        if skip:
            skip = False
        elif word in ("-c", "--bind", "--workers", "-b", "-w"):
            skip = True
        elif not word.startswith("--forwarded-allow-ips"):
            arguments.append(word)
    return arguments


CADDY_RUN = ["caddy", "run", "--config", "deploy/Caddyfile", "--adapter", "caddyfile"]


def caddy_environment(
    folder: Path, port: int, *, web: list[int], mcp: int, ingest: int
) -> dict[str, str]:
    """The environment deploy/Caddyfile reads, for the proxy on this machine: answering on
    ``port``, the processes on loopback as upstreams, no admin endpoint, its files in
    ``folder``."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "caddy-data"),
        "XDG_CONFIG_HOME": str(folder / "caddy-config"),
        "CADDY_ADMIN": "off",
        "SITE_ADDRESS": f":{port}",
        "WEB_UPSTREAMS": " ".join(f"127.0.0.1:{p}" for p in web),
        "MCP_UPSTREAMS": f"127.0.0.1:{mcp}",
        "INGEST_UPSTREAMS": f"127.0.0.1:{ingest}",
        "CADDY_BUFFERING": caddy_buffering(),
    }


def caddy_buffering() -> str:
    """Which spelling of request buffering the installed caddy reads (deploy/Caddyfile):
    "2.6" before 2.7 (Debian 12's package), else "current"."""
    found = re.search(r"v?(\d+)\.(\d+)", caddy_version())
    return "2.6" if found and (int(found[1]), int(found[2])) < (2, 7) else "current"


def caddy_version() -> str:
    try:
        completed = subprocess.run(  # noqa: S603 - a fixed command
            ["caddy", "version"], capture_output=True, text=True, timeout=10, check=False
        )
    except OSError:
        return ""
    return completed.stdout


def database_url(base_url: str, name: str) -> str:
    """``base_url`` pointing at database ``name`` instead."""
    return urlunsplit(urlsplit(base_url)._replace(path=f"/{name}"))


def database_recreate(admin_url: str, name: str, *, drop_only: bool = False) -> None:
    """Drop database ``name`` (closing its connections) and, unless ``drop_only``, create
    it empty."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            conn.execute(f'CREATE DATABASE "{name}"')


def jitter(lat: float, lng: float, sigma_km: float, rng: random.Random) -> tuple[float, float]:
    """A point scattered around (lat, lng) with a spread of ``sigma_km``."""
    return (
        lat + rng.gauss(0, sigma_km) / KM_PER_DEG,
        lng + rng.gauss(0, sigma_km) / (KM_PER_DEG * math.cos(math.radians(lat))),
    )


def online_driver(
    number: int,
    *,
    position: tuple[float, float],
    base: tuple[float, float],
    authority: str,
    radius_km: float,
    now,
    expiry,
    current_jobs: int = 0,
):
    """An approved local driver, online at ``position`` and seen ``now`` (unsaved)."""
    from drivers.models import Driver, DriverStage, NetworkTier

    return Driver(
        name=f"Driver {number}",
        phone=f"+447700{number:06d}",
        stage=DriverStage.TRIAL,
        approved_at=now,
        licensing_authority=authority,
        licence_number=f"L{number}",
        licence_expiry=expiry,
        base_city="X",
        base_lat=base[0],
        base_lng=base[1],
        operating_radius_km=radius_km,
        network=NetworkTier.LOCAL,
        online=True,
        last_lat=position[0],
        last_lng=position[1],
        last_seen_at=now,
        current_jobs=current_jobs,
        max_jobs=1,
    )


def driver_vehicle(driver, *, vehicle_class: str, seats: int, authority: str, expiry):
    """A licensed vehicle (unsaved) of a saved ``driver``, registered after its id."""
    from drivers.models import Vehicle

    return Vehicle(
        driver=driver,
        make="Make",
        model="Model",
        colour="Grey",
        registration=f"R{driver.pk:08d}",
        vehicle_class=vehicle_class,
        seats=seats,
        wheelchair_accessible=vehicle_class == "wav",
        licensing_authority=authority,
        plate_expiry=expiry,
    )


def positions_index_load(now) -> int:
    """Put every online driver of the database into the live-position index at their
    row's position (with the Redis backend; the database backend's index is the rows)."""
    from drivers.models import Driver
    from drivers.positions import Fix, positions_backend

    backend = positions_backend()
    if not hasattr(backend, "place_many"):
        return 0
    rows = Driver.objects.filter(online=True, vehicles__active=True).values_list(
        "pk", "last_lat", "last_lng", "vehicles__vehicle_class"
    )
    batch, placed = [], 0
    for pk, lat, lng, vehicle_class in rows.iterator(chunk_size=10_000):
        batch.append((pk, Fix(lat=lat, lng=lng, at=now), [vehicle_class]))
        if len(batch) == 5000:
            backend.place_many(batch)
            placed, batch = placed + len(batch), []
    backend.place_many(batch)
    return placed + len(batch)
