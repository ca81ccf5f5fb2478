from django.db import models


class ReferenceRow(models.Model):
    """The one row the reference view inserts per request."""

    pickup = models.CharField(max_length=300)
    dropoff = models.CharField(max_length=300)
    passengers = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "reference"

    def __str__(self) -> str:
        return f"{self.pickup} -> {self.dropoff}"
