"""The deployment files agree (issue 25): compose.yaml runs the Makefile's commands, and
the Procfile and the Makefile run the same web server. The images themselves cannot be
built on these machines (README, "Self-hosting with containers")."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

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


def test_the_procfile_and_the_makefile_run_the_same_web_server():
    def server_arguments(command: str) -> list[str]:
        words = shlex.split(command.replace("\\\n", " "))
        start = next(i for i, w in enumerate(words) if w.endswith("gunicorn"))
        return [w for w in words[start + 1 :] if not w.startswith(("--bind", "0.0.0.0"))]

    procfile_web = server_arguments(procfile()["web"])
    make_web = server_arguments(make_dry_run("web"))
    for argument in (
        "config.asgi:application",
        "-c",
        "config/gunicorn.py",
        "uvicorn_worker.UvicornWorker",
    ):
        assert argument in procfile_web
        assert argument in make_web


def test_beat_runs_once_and_every_queue_has_a_worker(settings):
    processes = procfile()
    assert [name for name in processes if "celery -A config beat" in processes[name]] == ["beat"]
    served = set()
    for command in processes.values():
        words = command.split()
        if "worker" in words and "-Q" in words:
            served |= set(words[words.index("-Q") + 1].split(","))
    assert served == set(settings.CELERY_QUEUE_NAMES)
