"""A twilio.http.HttpClient that records what the real Twilio SDK sends (no network)."""

from __future__ import annotations

import json
import logging

from twilio.http import HttpClient
from twilio.http.response import Response


class RecordingTwilioHttpClient(HttpClient):
    """Answers each request with a canned 201 (or 500 for the first ``failures`` calls)."""

    def __init__(self, failures: int = 0) -> None:
        super().__init__(logger=logging.getLogger("tests.twilio"), is_async=False)
        self.requests: list[dict] = []
        self.failures = failures

    def request(
        self,
        method,
        uri,
        params=None,
        data=None,
        headers=None,
        auth=None,
        timeout=None,
        allow_redirects=False,
    ):
        self.requests.append({"method": method, "uri": uri, "data": dict(data or {}), "auth": auth})
        if self.failures > 0:
            self.failures -= 1
            return Response(
                500, json.dumps({"code": 20500, "message": "Internal Server Error", "status": 500})
            )
        sid = f"SM{len(self.requests):032d}"
        body = {
            "sid": sid,
            "status": "queued",
            "to": data["To"],
            "from": data["From"],
            "body": data["Body"],
            "account_sid": auth[0] if auth else "",
        }
        return Response(201, json.dumps(body))
