"""The ingest process under ASGI (the Procfile's ``ingest``: ``granian --interface asgi``).

The same application as ``drivers.api.ingest_wsgi``, run on a pool of ``INGEST_THREADS``
threads (a2wsgi), behind ``api.request_bodies.RequestBodyBuffered``: a report's body is
read in granian's event loop, in full and within ``REQUEST_BODY_TIMEOUT_SECONDS``, before
a thread is taken (issue 35). Under granian's WSGI interface the application read the body
on one of its blocking threads, so a dozen clients that announced a body and sent one byte
held every thread and the ingest stopped answering. A body over ``MAX_BODY_BYTES`` is
still refused from its Content-Length, unread.
"""

from __future__ import annotations

# First: it sets Django up, which everything below needs.
from drivers.api.ingest_wsgi import application as ingest_wsgi_application  # isort: skip

from a2wsgi import WSGIMiddleware
from django.conf import settings

from api.request_bodies import RequestBodyBuffered
from drivers.api.ingest import MAX_BODY_BYTES

application = RequestBodyBuffered(
    WSGIMiddleware(ingest_wsgi_application, workers=settings.INGEST_THREADS),
    max_bytes=MAX_BODY_BYTES,
)
