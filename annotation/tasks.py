"""Celery tasks: ids in, one service call, idempotent."""

from celery import shared_task

from annotation.services.datasets import dataset_import_run
from annotation.services.projects import project_progress_refresh


@shared_task(name="annotation.project_progress_refresh", acks_late=True, ignore_result=False)
def project_progress_refresh_task(project_id: int) -> dict | None:
    """Recompute a project's progress counts (safe to run twice)."""
    return project_progress_refresh(project_id=project_id)


@shared_task(name="annotation.dataset_import", acks_late=True)
def dataset_import_task(run_id: int) -> None:
    """Import an uploaded dataset file (one transaction; a redelivered task starts over)."""
    dataset_import_run(run_id=run_id)
