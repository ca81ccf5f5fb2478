"""A production-shaped stack for the scale-out and fault tests (issue 25).

A private PostgreSQL cluster (``initdb`` in a temporary folder) and a private
``redis-server``, each on its own port and stopped by its PID (the shared servers on 5432
and 6379 are never touched), and the Procfile's processes run by ``honcho``, as a process
manager runs them in production: ``honcho start -c web=2,worker=2,dispatcher=2 ...``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from contextlib import suppress
from pathlib import Path

from bench.common import CADDY_RUN, caddy_environment

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# Every fixed port lies below Linux's ephemeral range (32768-60999 by default): a port in
# it can be held for a moment as the local end of any client connection on the machine, and
# a server then fails to bind it ("Address already in use": PostgreSQL on 55450 once did,
# in CI, while the other test worker held connections open).
PG_PORT = int(os.environ.get("OPERATIONS_PG_PORT", "25450"))
REDIS_PORT = int(os.environ.get("OPERATIONS_REDIS_PORT", "6450"))
WEB_PORT = int(os.environ.get("OPERATIONS_WEB_PORT", "8750"))
RECEIVER_PORT = WEB_PORT + 10
MCP_PORT = WEB_PORT + 20
INGEST_PORT = WEB_PORT + 21
PROXY_PORT = WEB_PORT + 30
METRICS_TOKEN = "operations-test-metrics-token"
LOCATION_PATH = "/api/public/v1/driver/location"


TOOLS = ("initdb", "postgres", "redis-server", "pg_isready", "psql", "redis-cli")


def tools_missing() -> list[str]:
    """The tools the stack needs that are not on PATH (``setpriv`` only as root, to run
    PostgreSQL as another user)."""
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        missing.append("setpriv")
    return missing


def in_ci() -> bool:
    """CI=true (``.ci/run``): what a laptop may skip, CI must run."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


def faults_skip_reason() -> str | None:
    """Why the fault tests skip here, or None when they run: they run whenever the tools
    are there, and always under CI, where a missing tool fails them (issue 37)."""
    missing = tools_missing()
    if not missing or in_ci():
        return None
    return f"needs {', '.join(missing)} (CI fails instead of skipping)"


def wait_until(predicate, timeout: float, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with suppress(Exception):
            if predicate():
                return True
        time.sleep(interval)
    return False


def process_stop(process: subprocess.Popen | None, timeout: float = 20) -> None:
    """SIGTERM to the process group we started, SIGKILL if it does not go."""
    if process is None or process.poll() is not None:
        return
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _as_postgres_user() -> list[str]:
    """PostgreSQL refuses to run as root (CI runs as root): drop to the postgres user,
    exec'd in place (setpriv), so that the PID we hold is the server's own."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"]


class PrivatePostgres:
    """One PostgreSQL cluster of our own, fsync off (throwaway data)."""

    def __init__(self, folder: Path, port: int = PG_PORT):
        self.folder = folder / "pg"
        self.folder.mkdir()
        if os.geteuid() == 0:
            folder.chmod(0o711)  # the postgres user may pass through to its own folder
            shutil.chown(self.folder, "postgres", "postgres")
        self.data = self.folder / "data"
        self.port = port
        self.process: subprocess.Popen | None = None
        self.log = open(folder / "postgres.log", "ab")  # noqa: SIM115 - closed with the folder

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/taxi"

    def init(self) -> None:
        subprocess.run(
            [
                *_as_postgres_user(),
                "initdb",
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "--no-sync",
            ],  # fmt: skip
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                *_as_postgres_user(),
                "postgres",
                "-D",
                str(self.data),
                "-p",
                str(self.port),
                "-k",
                str(self.folder),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",
                "-c",
                "full_page_writes=off",
                "-c",
                "max_connections=200",
            ],  # fmt: skip
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        ready = wait_until(self.ready, 30)
        assert ready, (self.folder.parent / "postgres.log").read_text()[-2000:]

    def ready(self) -> bool:
        return (
            subprocess.run(
                ["pg_isready", "-q", "-h", "127.0.0.1", "-p", str(self.port)], check=False
            ).returncode
            == 0
        )

    def stop(self, *, fast: bool = True) -> None:
        """Fast shutdown (SIGINT): every client is disconnected at once, as in a restart."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT if fast else signal.SIGTERM)
        self.process.wait(timeout=30)

    def psql(self, sql: str, database: str = "taxi") -> str:
        return subprocess.run(
            [
                "psql",
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-d",
                database,
                "-tAc",
                sql,
            ],  # fmt: skip
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    def count(self, sql: str) -> int:
        return int(self.psql(sql) or 0)


class PrivateRedis:
    """One redis-server of our own, with an append-only file (queued messages survive a
    restart, as compose.yaml runs it)."""

    def __init__(self, folder: Path, port: int = REDIS_PORT):
        self.folder = folder
        self.port = port
        self.process: subprocess.Popen | None = None
        self.log = open(folder / "redis.log", "ab")  # noqa: SIM115 - closed with the folder

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--appendonly",
                "yes",
                "--save",
                "",
            ],  # fmt: skip
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        assert wait_until(lambda: self.cli("PING") == "PONG", 15)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # saves the append-only file, as a restart
            self.process.wait(timeout=30)

    def cli(self, *args: str) -> str:
        return subprocess.run(
            ["redis-cli", "-p", str(self.port), *args], capture_output=True, text=True, check=False
        ).stdout.strip()


class Stack:
    """PostgreSQL, Redis and the Procfile's processes under honcho."""

    def __init__(self) -> None:
        missing = tools_missing()
        if missing:
            raise RuntimeError(f"The fault tests need {', '.join(missing)} on PATH (.ci/run)")
        self.folder = Path(tempfile.mkdtemp(prefix="taxi-operations-"))
        self.postgres = PrivatePostgres(self.folder)
        self.redis = PrivateRedis(self.folder)
        self.honcho: subprocess.Popen | None = None
        self.honcho_log = self.folder / "honcho.log"
        self.proxy: subprocess.Popen | None = None

    def environment(self, **extra: str) -> dict[str, str]:
        values = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("DJANGO_", "PYTEST_", "DATABASE_", "REDIS_", "CELERY_"))
        }
        values.update(
            PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            PYTHONPATH=str(ROOT),
            DJANGO_SETTINGS_MODULE="config.settings.production",
            DATABASE_URL=self.postgres.url,
            REDIS_URL=self.redis.url,
            SECRET_KEY="operations-test-secret-key-not-for-production-0123456789",
            SITE_URL=f"http://127.0.0.1:{WEB_PORT}",
            ALLOWED_HOSTS="127.0.0.1,localhost",
            SECURE_SSL_REDIRECT="0",
            NOTIFICATION_BACKEND="console",
            EMAIL_BACKEND="django.core.mail.backends.dummy.EmailBackend",
            WEBHOOK_ALLOW_PRIVATE_NETWORKS="1",
            METRICS_TOKEN=METRICS_TOKEN,
            LOG_FORMAT="json",
            LOG_LEVEL="INFO",
            WEB_CONCURRENCY="1",
            MCP_PORT=str(MCP_PORT),
            MCP_CONCURRENCY="1",
            INGEST_PORT=str(INGEST_PORT),
            INGEST_CONCURRENCY="1",
            INGEST_THREADS="2",
            # The proxy (Caddy, deploy/Caddyfile) runs on this machine.
            TRUSTED_PROXIES="127.0.0.1",
            # Nobody answers the job cards: offers stay open, drivers stay "seen".
            DISPATCH_OFFER_TIMEOUT_SECONDS="3600",
            DISPATCH_DRIVER_SEEN_WITHIN_SECONDS="3600",
            # The safety nets, quick enough to be watched within the test.
            DISPATCH_HANDOVER_GRACE_SECONDS="4",
            DISPATCH_JOB_CARD_GRACE_SECONDS="4",
            DISPATCH_OVERDUE_SWEEP_SECONDS="3",
            SERVICE_UNAVAILABLE_RETRY_AFTER="3",
            PROMETHEUS_MULTIPROC_DIR=str(self.folder / "metrics"),
        )
        values.update(extra)
        return values

    def manage(self, *args: str, stdin: str | None = None) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.environment(),
            check=True,
            capture_output=True,
            text=True,
            input=stdin,
        ).stdout

    def prepare(self) -> None:
        started = time.monotonic()
        self.postgres.init()
        self.postgres.start()
        self.postgres.psql("CREATE DATABASE taxi", database="postgres")
        self.redis.start()
        servers_s = time.monotonic() - started
        self.manage("migrate", "--noinput")
        self.manage("load_tariffs")
        print(
            f"\nprivate PostgreSQL and Redis up in {servers_s:.1f} s, migrated and tariffs "
            f"loaded in {time.monotonic() - started - servers_s:.1f} s"
        )

    def account(self, *args: str) -> dict:
        out = self.manage("create_account", *args)
        return json.loads(out.strip().splitlines()[-1])

    def python(self, code: str) -> str:
        return self.manage("shell", "-c", code)

    def start(self, concurrency: str, processes: list[str], **extra: str) -> None:
        log = open(self.honcho_log, "ab")  # noqa: SIM115 - the child keeps it
        self.honcho = subprocess.Popen(
            [
                str(BIN / "honcho"),
                "start",
                "-f",
                "Procfile",
                "-d",
                str(ROOT),
                "-p",
                str(WEB_PORT),
                "-c",
                concurrency,
                *processes,
            ],  # fmt: skip
            cwd=ROOT,
            env=self.environment(**extra),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        started = time.monotonic()
        ports = self.web_ports(concurrency)
        if "mcp" in processes:
            ports.append(MCP_PORT)  # the one ASGI app: Django's /healthz too
        for port in ports:
            ready = wait_until(lambda port=port: http_get(port, "/healthz")[0] == 200, 60)
            assert ready, self.log_tail()
        if "ingest" in processes:  # it serves the reports only: 405 to a GET
            ready = wait_until(lambda: http_get(INGEST_PORT, LOCATION_PATH)[0] == 405, 60)
            assert ready, self.log_tail()
        print(f"honcho: {concurrency} {' '.join(processes)} serving in "
              f"{time.monotonic() - started:.1f} s")  # fmt: skip

    @staticmethod
    def web_ports(concurrency: str) -> list[int]:
        counts = dict(part.split("=") for part in concurrency.split(","))
        return [WEB_PORT + i for i in range(int(counts.get("web", 1)))]

    def pids(self, process_name: str) -> list[int]:
        """PIDs of what honcho started as ``process_name`` (e.g. ``worker.1``): its shell,
        found by the environment honcho gave it, and every descendant (a Celery worker
        rewrites its own environment block with its process title, so the tree is used)."""
        return sorted(pid for level in self.process_tree(process_name) for pid in level)

    def process_tree(self, process_name: str) -> list[list[int]]:
        """[[the shell], [its children], [their children], ...] of ``process_name``."""
        parents: dict[int, int] = {}
        roots = []
        for proc in Path("/proc").glob("[0-9]*"):
            with suppress(OSError, IndexError, ValueError):
                parents[int(proc.name)] = int(
                    (proc / "stat").read_text().rsplit(")", 1)[1].split()[1]
                )
                marker = f"HONCHO_PROCESS_NAME={process_name}\0".encode()
                if marker in (proc / "environ").read_bytes():
                    roots.append(int(proc.name))
        # The shell is the one whose parent is not itself marked.
        levels = [[pid for pid in roots if parents.get(pid) not in roots]]
        while levels[-1]:
            levels.append([pid for pid, ppid in parents.items() if ppid in levels[-1]])
        return levels[:-1]

    def proxy_start(self, concurrency: str) -> int:
        """Caddy with the project's deploy/Caddyfile, its upstreams the processes honcho
        runs here; answers on PROXY_PORT."""
        log = open(self.folder / "caddy.log", "ab")  # noqa: SIM115 - the child keeps it
        self.proxy = subprocess.Popen(
            CADDY_RUN,
            cwd=ROOT,
            env=caddy_environment(
                self.folder,
                PROXY_PORT,
                web=self.web_ports(concurrency),
                mcp=MCP_PORT,
                ingest=INGEST_PORT,
            ),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        ready = wait_until(lambda: http_get(PROXY_PORT, "/healthz")[0] == 200, 30)
        assert ready, (self.folder / "caddy.log").read_text(errors="replace")[-4000:]
        return PROXY_PORT

    def log_tail(self, size: int = 4000) -> str:
        return self.honcho_log.read_text(errors="replace")[-size:]

    def stop(self) -> None:
        process_stop(self.proxy)
        self.proxy = None
        process_stop(self.honcho, timeout=30)
        self.honcho = None

    def close(self) -> None:
        self.stop()
        self.redis.stop()
        self.postgres.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def http(port: int, method: str, path: str, body=None, headers=None, timeout=30):
    request = urllib.request.Request(  # noqa: S310 - loopback only
        f"http://127.0.0.1:{port}{path}",
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def http_get(port: int, path: str, headers=None):
    status, _headers, _body = http(port, "GET", path, headers=headers, timeout=5)
    return status, _headers
