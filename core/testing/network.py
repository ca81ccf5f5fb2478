"""Addresses for tests that need a backing service to be unreachable."""

from __future__ import annotations

import socket


def closed_port() -> int:
    """A local TCP port nothing listens on (bound, then released at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
