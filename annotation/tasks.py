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


@shared_task(bind=True, name="annotation.run_answer", acks_late=True, max_retries=5)
def run_answer_task(self, run_id: int, answer_id: int) -> None:  # noqa: ANN001
    """Verify one answer of a run. Transient LLM errors are retried with backoff; the last try records
    the failure on the run instead."""
    from annotation.factcheck.llm import LLMError
    from annotation.services.runs import run_answer

    try:
        run_answer(run_id=run_id, answer_id=answer_id, final_attempt=self.request.retries >= self.max_retries)
    except LLMError as exc:
        raise self.retry(exc=exc, countdown=min(300, 5 * 2**self.request.retries)) from None
