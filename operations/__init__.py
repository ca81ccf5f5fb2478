"""Operating the service (contract 10.1): health and readiness, request ids, JSON logs,
Prometheus metrics and the 503 a refused database connection is answered with.

It sits above every app (like ``config``): it reads their models to count backlogs at
scrape time; no app imports it except the HTTP edge's problem renderer (the request id).
"""
