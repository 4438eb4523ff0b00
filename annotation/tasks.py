"""Celery tasks: ids in, one service call, idempotent."""

from celery import shared_task

from annotation.services.projects import project_progress_refresh


@shared_task(name="annotation.project_progress_refresh", acks_late=True, ignore_result=False)
def project_progress_refresh_task(project_id: int) -> dict | None:
    """Recompute a project's progress counts (safe to run twice)."""
    return project_progress_refresh(project_id=project_id)
