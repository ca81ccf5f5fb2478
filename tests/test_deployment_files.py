"""The deployment files agree (issue 25): compose.yaml runs the Makefile's commands, the
Procfile and the Makefile run the same servers, and the proxy routes to them. The images
themselves cannot be built on these machines (README, "Self-hosting with containers")."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent


def procfile() -> dict[str, str]:
    lines = (ROOT / "Procfile").read_text().splitlines()
    return dict(line.split(": ", 1) for line in lines if line.strip())


def make_dry_run(*args: str) -> str:
    # -n: print the recipe without running it (the install prerequisite included).
    return subprocess.run(
        ["make", "-n", *args], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout


def test_every_compose_service_of_ours_runs_a_makefile_target():
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    ours = {
        name: s
        for name, s in services.items()
        if s.get("build") or s.get("image", "").startswith("direct-to")
    }
    assert set(ours) >= {
        "release",
        "web",
        "mcp",
        "ingest",
        "worker",
        "worker_webhooks",
        "worker_billing",
        "beat",
        "dispatcher",
    }
    for service in ours.values():
        command = service["command"]
        assert command[0] == "make"
        assert make_dry_run(*command[1:]).strip()


def test_compose_gives_each_queue_the_worker_the_procfile_gives_it():
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    for name in ("worker", "worker_webhooks", "worker_billing"):
        queues = next(a for a in services[name]["command"] if a.startswith("QUEUES="))
        queues = queues.removeprefix("QUEUES=")
        assert f"-Q {queues}" in procfile()[name]
        assert f"-Q {queues}" in make_dry_run("worker", f"QUEUES={queues}")


def _server_arguments(command: str, server: str = "gunicorn") -> list[str]:
    """The server's arguments, as the shell would split them, without the address to bind
    (from its own line: a nested make adds lines such as "make[1]: Leaving directory")."""
    line = next(line for line in command.replace("\\\n", " ").splitlines() if server in line)
    words = shlex.split(line)
    start = next(i for i, w in enumerate(words) if w.endswith(server))
    return [w for w in words[start + 1 :] if not w.startswith(("--bind", "0.0.0.0"))]


@pytest.mark.parametrize(
    ("process", "application", "worker_class"),
    [
        # Django under plain WSGI: the REST API within 10 % of plain WSGI (README, "Serving").
        ("web", "config.wsgi:application", "gthread"),
        # The MCP server needs ASGI: the one ASGI app, behind the proxy's /mcp route.
        ("mcp", "config.asgi:application", "uvicorn_worker.UvicornWorker"),
    ],
)
def test_the_procfile_and_the_makefile_run_the_same_servers(process, application, worker_class):
    from_procfile = _server_arguments(procfile()[process])
    from_make = _server_arguments(make_dry_run(process))
    for arguments in (from_procfile, from_make):
        assert arguments[0] == application
        assert worker_class in arguments
        assert any(a.startswith("--forwarded-allow-ips") for a in arguments)
    # Metrics and JSON log lines from every worker.
    assert ["-c", "config/gunicorn.py"] == from_procfile[1:3] == from_make[1:3]


def test_the_ingest_runs_under_granian_alike_from_the_procfile_and_the_makefile():
    """The position ingest (issue 27) under granian's ASGI interface, so that a body is read
    in the event loop before a thread is taken (issue 35: drivers.api.ingest_asgi), and
    headers must arrive within 10 s as at the proxy. It reads no client address, so it
    trusts no forwarded headers; a worker that dies is started again, as gunicorn's are;
    its own lines use the application's log format."""
    environment = {"INGEST_CONCURRENCY": "2", "INGEST_THREADS": "4", "INGEST_PORT": "8001"}
    from_procfile = _server_arguments(
        re.sub(
            r"\$\{(\w+):-([^}]*)\}", lambda m: environment.get(m[1], m[2]), procfile()["ingest"]
        ),
        "granian",
    )
    from_make = _server_arguments(make_dry_run("ingest"), "granian")
    assert from_procfile == from_make
    assert from_procfile[-1] == "drivers.api.ingest_asgi:application"
    assert from_procfile[:2] == ["--interface", "asgi"]
    header_timeout = from_procfile[from_procfile.index("--http1-header-read-timeout") + 1]
    assert header_timeout == "10000"
    assert "--respawn-failed-workers" in from_procfile
    log_config = from_procfile[from_procfile.index("--log-config") + 1]
    assert log_config == "config/granian-logging.json"
    config = json.loads((ROOT / log_config).read_text())
    assert config["formatters"]["structured"]["()"] == "core.logs.server_formatter"
    assert set(config["loggers"]) == {"_granian", "granian.access"}


def test_the_proxy_routes_each_path_to_the_process_that_serves_it():
    """deploy/Caddyfile, as compose.yaml mounts it: /mcp to mcp, the position reports to
    ingest, the rest to web (the routes are checked live in tests/test_operations_faults.py)."""
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    assert "./deploy:/etc/caddy:ro" in services["proxy"]["volumes"]
    caddyfile = (ROOT / "deploy/Caddyfile").read_text()
    assert "reverse_proxy @mcp {$MCP_UPSTREAMS:mcp:8002}" in caddyfile
    assert "@location path /api/public/v1/driver/location" in caddyfile
    assert "@osmand path /api/public/v1/osmand/*" in caddyfile
    assert "reverse_proxy {$WEB_UPSTREAMS:web:8000}" in caddyfile
    # The apps believe forwarded headers from the proxy's address only.
    proxy_address = services["proxy"]["networks"]["default"]["ipv4_address"]
    assert services["web"]["environment"]["TRUSTED_PROXIES"] == proxy_address
    assert "ports" not in services["web"]


def test_beat_runs_once_and_every_queue_has_a_worker(settings):
    processes = procfile()
    assert [name for name in processes if "celery -A config beat" in processes[name]] == ["beat"]
    served = set()
    for command in processes.values():
        words = command.split()
        if "worker" in words and "-Q" in words:
            served |= set(words[words.index("-Q") + 1].split(","))
    assert served == set(settings.CELERY_QUEUE_NAMES)


def test_each_container_is_checked_on_its_own_port_or_not_at_all():
    """The image's HEALTHCHECK is the web process's /healthz on $PORT; mcp and ingest
    answer /healthz on their own ports, and the processes without HTTP opt out."""
    services = yaml.safe_load((ROOT / "compose.yaml").read_text())["services"]
    assert "healthcheck" not in services["web"]
    assert "8002/healthz" in " ".join(services["mcp"]["healthcheck"]["test"])
    assert "8001/healthz" in " ".join(services["ingest"]["healthcheck"]["test"])
    for name in ("release", "worker", "worker_webhooks", "worker_billing", "beat", "dispatcher"):
        assert services[name]["healthcheck"] == {"disable": True}


def test_the_proxy_buffers_and_times_out_request_bodies():
    """Issue 35: slow clients cost the proxy a connection; the processes behind see only
    whole requests. Both spellings of buffering (Caddy 2.6 and current) read the same limit."""
    caddyfile = (ROOT / "deploy/Caddyfile").read_text()
    assert "read_header 10s" in caddyfile
    assert "read_body {$REQUEST_BODY_TIMEOUT_SECONDS:10}s" in caddyfile
    assert "max_size {$DATA_UPLOAD_MAX_MEMORY_SIZE:1048576}" in caddyfile
    assert caddyfile.count("import caddy-buffering-{$CADDY_BUFFERING:current}.caddy") == 4
    assert caddyfile.count("reverse_proxy ") == 4
    current = (ROOT / "deploy/caddy-buffering-current.caddy").read_text()
    older = (ROOT / "deploy/caddy-buffering-2.6.caddy").read_text()
    assert "request_buffers {$DATA_UPLOAD_MAX_MEMORY_SIZE:1048576}" in current
    assert "buffer_requests" in older
    assert "max_buffer_size {$DATA_UPLOAD_MAX_MEMORY_SIZE:1048576}" in older


DEV_ONLY = ("pytest", "selenium", "locust", "mutmut", "schemathesis", "factory-boy", "ruff")


def requirement_names(path: Path) -> set[str]:
    names = set()
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            names.add(re.split(r"[=<>~!\[; ]", line, maxsplit=1)[0].lower())
    return names


def test_the_production_image_installs_production_dependencies_only():
    """The image's `make install` takes requirements.txt, which names no test or load tool,
    and every make command the container runs inherits that choice (issue 38)."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    env = re.search(r"^ENV ((?:.*\\\n)*.*)$", dockerfile, re.MULTILINE).group(1)
    assert "REQUIREMENTS=requirements.txt" in env
    assert "make install" in dockerfile
    recipe = subprocess.run(
        ["make", "-n", "-B", "install", "REQUIREMENTS=requirements.txt"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "pip install -q -r requirements.txt" in recipe
    assert "requirements-dev.txt" not in recipe.replace("pip install -q -r requirements.txt", "")
    shipped = requirement_names(ROOT / "requirements.txt")
    assert not shipped & set(DEV_ONLY), shipped & set(DEV_ONLY)
    assert {"pytest", "selenium", "schemathesis"} <= requirement_names(
        ROOT / "requirements-dev.txt"
    )
