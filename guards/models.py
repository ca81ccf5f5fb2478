from django.db import models
from django.utils import timezone


class ScreeningRejection(models.Model):
    """A request refused by prompt-injection screening (contract 1.5), kept for review."""

    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    caller = models.CharField(max_length=200)
    path = models.CharField(max_length=255)
    field = models.CharField(max_length=100)
    rule = models.CharField(max_length=100)
    excerpt = models.TextField()

    class Meta:
        # The table keeps the name it had when the model lived in the api app.
        db_table = "api_screeningrejection"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.caller} {self.field} ({self.rule})"


class LimitCount(models.Model):
    """One window of a limit that guards a secret, counted in the database while the cache
    is unreachable (``guards.ratelimits.FAIL_CLOSED_SCOPES``; contract 6): a per-process
    count would let the right answer through after the allowance is spent.

    ``counted`` is the SHA-256 of what the limit counts (a booking, an email, an address),
    never the thing itself. A row is deleted once its window has ended."""

    scope = models.CharField(max_length=50)
    counted = models.CharField(max_length=64)
    window_end = models.DateTimeField(db_index=True)
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["scope", "counted", "window_end"], name="guards_limitcount_one_per_window"
            )
        ]

    def __str__(self) -> str:
        return f"{self.scope} {self.counted[:12]} until {self.window_end:%H:%M:%S}: {self.count}"
