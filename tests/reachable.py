"""``python -m tests.reachable URL...``: exit 0 when every server named by the URLs accepts a
TCP connection within a second, else 1 (``make test`` chooses its databases by it)."""

from __future__ import annotations

import socket
import sys
from urllib.parse import urlsplit

DEFAULT_PORTS = {"postgres": 5432, "postgresql": 5432, "redis": 6379}


def reachable(url: str, timeout: float = 1.0) -> bool:
    parts = urlsplit(url)
    if parts.scheme not in DEFAULT_PORTS:
        return True  # sqlite:///..., memory://: nothing to reach
    address = (parts.hostname or "127.0.0.1", parts.port or DEFAULT_PORTS[parts.scheme])
    try:
        socket.create_connection(address, timeout=timeout).close()
    except OSError:
        return False
    return True


if __name__ == "__main__":
    sys.exit(0 if all(reachable(url) for url in sys.argv[1:]) else 1)
