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


def start_worker(queue: str, log_path: Path, **env: str) -> subprocess.Popen:
    """A real ``celery worker`` process on ``queue``, in its own process group, logging to ``log_path``."""
    environment = (
        os.environ
        | {
            "DJANGO_SETTINGS_MODULE": "factapp.settings.test",
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        }
        | env
    )
    command = [
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
        f"{queue}-{uuid.uuid4().hex[:4]}@%h",
        "--loglevel",
        "INFO",
    ]
    log = log_path.open("a")
    return subprocess.Popen(
        command, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )


def stop_worker(process: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.fixture
def queue():  # noqa: ANN201
    """A queue of this test's own, so that no other worker on this machine takes its tasks."""
    name = f"test-{uuid.uuid4().hex[:8]}"
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = name
    yield name
    celery_app.conf.task_default_queue = previous


@pytest.fixture
def worker(transactional_db, tmp_path, queue):  # noqa: ANN001, ANN201
    process = start_worker(queue, tmp_path / "worker.log")
    try:
        yield process
    finally:
        stop_worker(process)
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


@pytest.mark.worker
def test_a_worker_killed_mid_run_loses_nothing_and_duplicates_nothing(
    transactional_db, tmp_path, queue, settings
) -> None:  # noqa: ANN001
    """SIGKILL a worker while it waits on the LLM; another worker gets the task again (Redis)."""
    import io
    import json

    from django.core.management import call_command

    from annotation.models import Run, Verdict
    from annotation.services.runs import run_start
    from tests.factcheck.scripted_server import Reply, ScriptedServer, completion

    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        pytest.skip("redelivery needs a broker with acknowledgements (Redis); the filesystem broker has none")
    fixture = ROOT / "tests" / "fixtures" / "wikievalfacts_sample.csv"
    call_command(
        "import_dataset",
        "--format",
        "wikievalfacts",
        "--project",
        "wef",
        "--create",
        str(fixture),
        stdout=io.StringIO(),
    )
    calls = {"n": 0}

    def reply(payload: dict) -> Reply:
        calls["n"] += 1
        names = payload["tools"][0]["function"]["parameters"]["properties"]
        body = completion(arguments=json.dumps(dict.fromkeys(names, "True")))
        return Reply(delay=60 if calls["n"] == 1 else 0, body=body)  # the first call hangs: kill it there

    log = tmp_path / "workers.log"
    with ScriptedServer(handler=reply) as server:
        settings.LLM_BASE_URL = server.url
        env = {
            "LLM_BASE_URL": server.url,
            "CELERY_VISIBILITY_TIMEOUT": "3",
            "CELERY_REDIS_RESTORE_INTERVAL": "1",
        }
        first = start_worker(queue, log, **env)
        second = None
        try:
            run = run_start(
                actor=None,
                project=Project.objects.get(slug="wef"),
                method="faaf",
                answer_kinds=["reference", "poor"],
            )
            assert wait_for(lambda: calls["n"] >= 1, timeout=60), log.read_text()[-3000:]
            stop_worker(first, signal.SIGKILL)  # mid-task, nothing acknowledged
            second = start_worker(queue, log, **env)
            assert wait_for(lambda: Run.objects.get(pk=run.pk).status == "succeeded", timeout=120), (
                log.read_text()[-4000:]
            )
        finally:
            stop_worker(first, signal.SIGKILL)
            if second is not None:
                stop_worker(second)
    run = Run.objects.get(pk=run.pk)
    assert run.items_done == run.items_total == 6 and run.items_failed == 0
    verdicts = Verdict.objects.filter(run=run)
    assert verdicts.count() == 8 * 2  # every fact against every answer, once
    assert verdicts.values("atom", "target").distinct().count() == verdicts.count()
