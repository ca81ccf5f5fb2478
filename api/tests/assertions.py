"""Assertions the API tests share."""

from __future__ import annotations


def assert_problem(response, status: int, code: str) -> dict:
    """``response`` is RFC 9457 problem JSON with this status, the contract's code, its
    type page, a title and a detail; returns the body."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == f"https://taxi.example/problems/{code.replace('_', '-')}"
    assert body["title"]
    assert body["detail"]
    return body
