"""A real ``celery worker`` process (Redis in CI, the filesystem broker locally) runs our task."""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from annotation import services
from annotation.choices import Role
from annotation.models import Project
from factapp.celery import app as celery_app
from tests import factories as f

ROOT = Path(__file__).resolve().parent.parent


def database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def worker(transactional_db, tmp_path):  # noqa: ANN001, ANN201
    """Start a worker on a queue of its own, so that no other worker on this machine takes our tasks."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = os.environ | {
        "DJANGO_SETTINGS_MODULE": "factapp.settings.test",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
    }
    log = (tmp_path / "worker.log").open("w")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "factapp",
            "worker",
            "-Q",
            queue,
            "--concurrency",
            "1",
            "--without-gossip",
            "--without-mingle",
            "--hostname",
            f"{queue}@%h",
            "--loglevel",
            "INFO",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    try:
        yield process
    finally:
        celery_app.conf.task_default_queue = previous
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()
        print((tmp_path / "worker.log").read_text()[-3000:])


def wait_for(predicate, timeout: float = 60.0) -> bool:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.25)
    return False


@pytest.mark.worker
def test_worker_refreshes_progress_enqueued_on_commit(worker) -> None:  # noqa: ANN001
    if os.environ.get("CI"):
        assert settings.CELERY_BROKER_URL.startswith("redis://"), "CI runs the worker on Redis"
    project = f.ProjectFactory()
    annotator = f.member(project, Role.ANNOTATOR)
    question = f.QuestionFactory(project=project)
    answer = f.AnswerFactory(question=question, position=1)
    # The service enqueues the refresh with transaction.on_commit; the worker does the rest.
    services.preference_set(actor=annotator, question=question, preferred_answer=answer, reason="Only one.")

    def refreshed() -> bool:
        progress = Project.objects.get(pk=project.pk).progress
        return progress.get("preferences") == 1

    assert wait_for(refreshed), "the worker did not refresh the progress counts"
    progress = Project.objects.get(pk=project.pk).progress
    assert progress["questions"] == 1 and progress["annotators"][annotator.username]["preferences"] == 1

    # And a task sent directly gives its result back through the database result backend.
    from annotation.tasks import project_progress_refresh_task

    result = project_progress_refresh_task.delay(project.pk)
    assert result.get(timeout=60)["answers"] == 1
    from django_celery_results.models import TaskResult

    assert TaskResult.objects.filter(task_id=result.id, status="SUCCESS").exists()


@pytest.mark.worker
def test_worker_imports_a_large_upload(worker, settings) -> None:  # noqa: ANN001
    from django.core.files.uploadedfile import SimpleUploadedFile
    from rest_framework.test import APIClient

    from annotation.models import Question, Run

    settings.DATASET_SYNC_IMPORT_MAX_BYTES = 1000  # the fixture is larger: it goes to the worker
    project = f.ProjectFactory()
    manager = f.member(project, Role.MANAGER)
    api = APIClient()
    api.force_authenticate(manager)
    fixture = ROOT / "tests" / "fixtures" / "haluquestqa_sample.tsv"
    upload = SimpleUploadedFile("sample.tsv", fixture.read_bytes())
    response = api.post(
        f"/api/projects/{project.pk}/imports/", {"format": "haluquestqa", "file": upload}, format="multipart"
    )
    assert response.status_code == 202
    run_id = response.json()["id"]
    assert wait_for(lambda: Run.objects.get(pk=run_id).status in ("succeeded", "failed"))
    run = Run.objects.get(pk=run_id)
    assert run.status == "succeeded", run.error
    assert run.result["imported"] == 11 and Question.objects.filter(project=project).count() == 11
    assert api.get(f"/api/runs/{run_id}/").json()["result"]["rows"] == 11
