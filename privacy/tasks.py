from celery import shared_task

from privacy.services.retention import retention_apply


@shared_task(name="privacy.tasks.retention_apply")
def retention_apply_task() -> dict:
    """The retention schedule, applied daily (CELERY_BEAT_SCHEDULE; the embedded
    dispatcher runs it too)."""
    return retention_apply().counts
