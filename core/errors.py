"""Domain errors: what a use case refuses, said as a stable ``code``.

Services, selectors and policies raise :class:`DomainError`; they never name an HTTP
status. The HTTP edge maps each code to its status in one table
(``api.problems.STATUS_BY_CODE``); pages, admin actions, Celery tasks and MCP tools catch
the same exception and show ``code`` and ``detail`` in their own way.
"""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """A refusal with a stable ``code`` (contract 1.1), a sentence for people and, for
    input errors, the offending fields as the caller named them."""

    def __init__(
        self,
        code: str,
        detail: str = "",
        *,
        errors: dict[str, list[str]] | None = None,
        extra: dict[str, Any] | None = None,
        title: str | None = None,
    ) -> None:
        super().__init__(detail or code)
        self.code = code
        self.detail = detail
        self.errors = errors
        self.extra = extra or {}
        self.title = title


class LimitReached(DomainError):
    """A rate or volume limit: the caller may try again after ``retry_after`` seconds."""

    def __init__(self, retry_after: int, code: str = "rate_limited", detail: str = "") -> None:
        retry_after = max(1, int(retry_after))
        super().__init__(
            code,
            detail or f"Rate limit exceeded; retry in {retry_after} seconds.",
            extra={"retryAfter": retry_after},
        )
        self.retry_after = retry_after


def field_error(code: str, field: str, message: str, detail: str = "") -> DomainError:
    """An error about one request field, named as the caller wrote it."""
    return DomainError(code, detail or message, errors={field: [message]})
