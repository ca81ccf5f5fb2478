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
