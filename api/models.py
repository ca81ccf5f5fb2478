from django.db import models
from django.utils import timezone


class IdempotencyRecord(models.Model):
    """One Idempotency-Key use (contract 1.3), unique per (key, caller, path).

    The unique ``scope`` column is what makes concurrent duplicates safe: the first
    request inserts the row in state ``in_flight``; every other one hits the constraint.
    """

    class State(models.TextChoices):
        IN_FLIGHT = "in_flight"
        DONE = "done"

    scope = models.CharField(max_length=64, unique=True)
    request_hash = models.CharField(max_length=64)
    method = models.CharField(max_length=8)
    path = models.CharField(max_length=255)
    state = models.CharField(max_length=16, choices=State.choices, default=State.IN_FLIGHT)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_content_type = models.CharField(max_length=100, blank=True)
    response_body = models.BinaryField(blank=True, default=b"")
    response_location = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = "idempotency record"

    def __str__(self) -> str:
        return f"{self.method} {self.path} ({self.state})"
