"""Prompt-injection screening of free-text fields (contract 1.5).

Booking text is read by people and by AI agents downstream (drivers' job cards, partner
platforms, our own MCP tools), so text that tries to instruct a model is refused before
any booking logic runs. The patterns look for instruction-shaped text, not single words:
"please ignore the doorbell" is a normal note; "ignore all previous instructions" is not.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.callers import Caller
from core.errors import DomainError

logger = logging.getLogger("api.screening")

_WORDS_INSTRUCTIONS = r"(?:instructions?|prompts?|rules|directives|guidelines|context|messages?)"

RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "override_instructions",
            r"\b(?:ignore|disregard|forget|override|bypass|skip)\b[\s\w,'-]{0,40}?"
            r"\b(?:previous|prior|above|earlier|preceding|all|any|your|system|the|these|those)\b"
            r"[\s\w-]{0,20}?\b" + _WORDS_INSTRUCTIONS + r"\b",
        ),
        ("forget_everything", r"\bforget\s+(?:everything|all\s+(?:of\s+)?that|what\s+you)\b"),
        (
            "system_prompt",
            r"\b(?:system|developer|hidden|initial)\s+(?:prompt|message|instructions?)\b",
        ),
        ("role_hijack", r"\byou\s+are\s+(?:now|no\s+longer)\b|\bfrom\s+now\s+on\s*,?\s+you\b"),
        (
            "act_as",
            r"\b(?:act|behave|respond)\s+as\s+(?:an?\s+)?(?:ai|assistant|admin|system|dan|developer|root)\b",
        ),
        ("pretend", r"\bpretend\s+(?:to\s+be|you\s+are)\b"),
        ("jailbreak", r"\b(?:jailbreak|jail-break|DAN\s+mode|developer\s+mode|god\s+mode)\b"),
        ("new_instructions", r"\bnew\s+instructions?\s*:"),
        (
            "reveal_secrets",
            r"\b(?:reveal|print|show|output|leak|repeat)\b[\s\w]{0,30}?\b(?:system\s+prompt|api[\s_-]?keys?|secrets?|passwords?|credentials|tokens?)\b",
        ),
        (
            "chat_markup",
            r"<\|(?:im_start|im_end|system|endoftext)\|>|\[/?INST\]|<</?SYS>>|^\s*#{2,}\s*(?:system|instruction)",
        ),
        ("role_tags", r"(?:^|\n)\s*(?:system|assistant)\s*:\s*\S"),
        ("tool_call", r"\b(?:call|invoke|run|execute)\s+(?:the\s+)?(?:tool|function)\b"),
        (
            "price_override",
            r"\b(?:set|change|make|override)\s+(?:the\s+)?(?:fare|price|cost)\s+(?:to|=)\s*(?:£|gbp)?\s*\d",
        ),
        ("markup_injection", r"<\s*(?:script|iframe|img[^>]+onerror)\b|javascript:"),
    )
)

# Fields that carry free text in any request form (seed 2.1-2.10, contract 1.5).
FREE_TEXT_FIELDS = (
    "notes",
    "passengerName",
    "passenger_name",
    "flightNumber",
    "flight_number",
    "pickup",
    "dropoff",
    "pickup_address",
    "dropoff_address",
    "agent",
    "reason",
)


@dataclass(frozen=True)
class ScreeningHit:
    field: str
    rule: str
    excerpt: str


def screen_text(text: str) -> str | None:
    """The name of the first rule the text trips, or None when it is clean."""
    for name, pattern in RULES:
        if pattern.search(text):
            return name
    return None


def screen_fields(
    values: Mapping[str, object], fields: Iterable[str] = FREE_TEXT_FIELDS
) -> ScreeningHit | None:
    for field in fields:
        value = values.get(field)
        if isinstance(value, str) and value:
            rule = screen_text(value)
            if rule:
                return ScreeningHit(field=field, rule=rule, excerpt=value[:500])
    return None


def text_screen(
    caller: Caller, values: Mapping[str, object], fields: Iterable[str] = FREE_TEXT_FIELDS
) -> None:
    """DomainError ``content_rejected`` when any free-text field trips a rule; the
    rejection is logged with the caller."""
    hit = screen_fields(values, fields)
    if hit is None:
        return
    from api.models import ScreeningRejection

    who = caller.limit_key
    logger.warning("screening rejected %s field=%s rule=%s", who, hit.field, hit.rule)
    ScreeningRejection.objects.create(
        caller=who[:200],
        path=caller.path[:255],
        field=hit.field,
        rule=hit.rule,
        excerpt=hit.excerpt,
    )
    raise DomainError(
        "content_rejected",
        f"The field '{hit.field}' contains text that looks like instructions to an AI "
        "system, which is not accepted in booking details.",
        errors={hit.field: ["Content rejected by screening."]},
    )


def screening_enforce(
    request, values: Mapping[str, object], fields: Iterable[str] = FREE_TEXT_FIELDS
) -> None:
    """The edge's shorthand: :func:`text_screen` for the caller of an HTTP request."""
    from api.callers import caller_from_request

    text_screen(caller_from_request(request), values, fields)
