"""gunicorn settings for the web process (Procfile ``web``, compose.yaml, Makefile).

Metrics from every worker: prometheus-client's multiprocess mode needs one folder that all
workers write to, emptied when the server starts, and told when a worker dies
(operations.metrics). The folder is ``PROMETHEUS_MULTIPROC_DIR``, or a new temporary one.
Bind, workers and worker class are given on the command line.
"""

import os
import tempfile
from pathlib import Path

# Seconds an idle keep-alive connection stays open (uvicorn workers take it too). Longer
# than a load balancer's or a client's idle timeout (60 s is common), so the server never
# closes a connection that the other side is just reusing: at gunicorn's default 2 s, a
# caller pausing about 2 s between requests met "connection reset" (bench/bench_load.py).
keepalive = 75


def on_starting(server):
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or tempfile.mkdtemp(prefix="taxi-metrics-")
    Path(folder).mkdir(parents=True, exist_ok=True)
    for counts in Path(folder).glob("*.db"):  # the previous run's counts
        counts.unlink()
    # Workers are forked from here, after this, so they all inherit it.
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


# gunicorn's own lines (start, worker boots and exits, timeouts) and uvicorn's, in the same
# JSON as the application's (core.logs, contract 10.1). LOG_FORMAT=console for text.
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"structured": {"()": "core.logs.server_formatter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "structured",
            "stream": "ext://sys.stderr",
        }
    },
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["console"], "propagate": False},
        "gunicorn.access": {"level": "INFO", "handlers": ["console"], "propagate": False},
    },
}
