"""Dataset import and export through the API and the pages, for every role."""

import csv
import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.choices import RunStatus
from annotation.models import Question, Run
from annotation.tasks import dataset_import_task

FIXTURE = Path(__file__).parent / "fixtures" / "haluquestqa_sample.tsv"
ROLES = ["anonymous", "annotator", "annotator2", "outsider", "reviewer", "manager"]


def upload(content: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(
        "sample.tsv",
        content if content is not None else FIXTURE.read_bytes(),
        content_type="text/tab-separated-values",
    )


@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_api_import_permissions(api, world, role_index) -> None:  # noqa: ANN001
    user = world.user(ROLES[role_index])
    if user:
        api.force_authenticate(user)
    response = api.post(
        f"/api/projects/{world.project.pk}/imports/",
        {"format": "haluquestqa", "file": upload()},
        format="multipart",
    )
    assert response.status_code == [401, 403, 403, 404, 403, 200][role_index], response.content
    if response.status_code == 200:
        assert response.json()["imported"] == 11 and response.json()["spans"]["unlocated"] >= 1
    assert Question.objects.filter(project=world.project).count() == (
        12 if response.status_code == 200 else 1
    )


@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_api_export_permissions(api, world, role_index) -> None:  # noqa: ANN001
    user = world.user(ROLES[role_index])
    if user:
        api.force_authenticate(user)
    response = api.get(f"/api/projects/{world.project.pk}/export/haluquestqa/")
    assert response.status_code == [401, 403, 403, 404, 200, 200][role_index]
    if response.status_code == 200:
        assert response.streaming and "attachment" in response["Content-Disposition"]
        rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode()), delimiter="\t"))
        # One row per (question, annotator): the world's question has spans by two annotators.
        assert [row[2] for row in rows[1:]] == ["annotator", "annotator2"]


def test_api_import_errors_have_the_one_shape(api, world) -> None:  # noqa: ANN001
    api.force_authenticate(world.manager)
    url = f"/api/projects/{world.project.pk}/imports/"
    response = api.post(url, {"format": "haluquestqa", "file": upload(b"a,b\n1,2\n")}, format="multipart")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "import_failed" and "comma-separated" in body["message"]
    response = api.post(url, {"format": "excel", "file": upload()}, format="multipart")
    assert response.status_code == 400 and "format" in response.json()["extra"]
    response = api.post(url, {"format": "haluquestqa"}, format="multipart")
    assert response.status_code == 400 and "file" in response.json()["extra"]
    assert api.get(f"/api/projects/{world.project.pk}/export/excel/").status_code == 404


def test_large_upload_becomes_a_background_run(
    api, world, settings, django_capture_on_commit_callbacks, tmp_path
) -> None:  # noqa: ANN001
    settings.DATASET_SYNC_IMPORT_MAX_BYTES = 100
    settings.DATASET_UPLOAD_DIR = tmp_path
    api.force_authenticate(world.manager)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = api.post(
            f"/api/projects/{world.project.pk}/imports/",
            {"format": "haluquestqa", "file": upload()},
            format="multipart",
        )
    assert response.status_code == 202 and len(callbacks) == 1
    run = Run.objects.get(pk=response.json()["id"])
    assert run.status == RunStatus.PENDING and Path(run.parameters["path"]).exists()
    dataset_import_task.run(run.pk)  # what the worker does
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED and run.items_total == 11 and run.result["imported"] == 11
    assert not Path(run.parameters["path"]).exists()
    dataset_import_task.run(run.pk)  # redelivered: nothing happens twice
    assert Question.objects.filter(project=world.project).count() == 12
    assert api.get(f"/api/runs/{run.pk}/").json()["status"] == "succeeded"


def test_background_run_reports_a_bad_file(world, settings, tmp_path) -> None:  # noqa: ANN001
    path = tmp_path / "bad.upload"
    path.write_text("just, commas\n")
    run = Run.objects.create(
        project=world.project,
        kind="import",
        method="haluquestqa",
        parameters={"path": str(path), "filename": "bad.csv"},
    )
    dataset_import_task.run(run.pk)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and "comma-separated" in run.error


@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_import_page_permissions(client, world, role_index) -> None:  # noqa: ANN001
    user = world.user(ROLES[role_index])
    if user:
        client.force_login(user)
    response = client.post("/projects/main/import/", {"format": "haluquestqa", "file": upload()})
    assert response.status_code == [302, 403, 403, 404, 403, 200][role_index]
    if response.status_code == 200:
        assert b"The file was imported" in response.content and b"Rows read" in response.content


def test_import_page_shows_row_errors(client, world) -> None:  # noqa: ANN001
    client.force_login(world.manager)
    text = FIXTURE.read_text(encoding="utf-8").replace("['answer1']", "['answer7']", 1)
    response = client.post("/projects/main/import/", {"format": "haluquestqa", "file": upload(text.encode())})
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported" in page and "answer7" in page and "<td>1</td>" in page


@pytest.mark.parametrize("role_index", range(len(ROLES)), ids=ROLES)
def test_export_and_run_pages(client, world, role_index) -> None:  # noqa: ANN001
    user = world.user(ROLES[role_index])
    if user:
        client.force_login(user)
    response = client.get("/projects/main/export/haluquestqa/")
    assert response.status_code == [302, 403, 403, 404, 200, 200][role_index]
    response = client.get(f"/projects/main/runs/{world.run.pk}/")
    assert response.status_code == [302, 200, 200, 404, 200, 200][role_index]


def test_project_page_offers_import_to_managers_and_export_to_reviewers(client, world) -> None:  # noqa: ANN001
    client.force_login(world.manager)
    page = client.get("/projects/main/").content.decode()
    assert 'action="/projects/main/import/"' in page and "/projects/main/export/haluquestqa/" in page
    client.force_login(world.reviewer)
    page = client.get("/projects/main/").content.decode()
    assert 'action="/projects/main/import/"' not in page and "/projects/main/export/haluquestqa/" in page
    client.force_login(world.annotator)
    page = client.get("/projects/main/").content.decode()
    assert "/import/" not in page and "/export/" not in page


def test_run_outputs_are_offered_on_the_run_page_and_need_a_run(client, api, world) -> None:  # noqa: ANN001
    client.force_login(world.reviewer)
    page = client.get(f"/projects/main/runs/{world.run.pk}/").content.decode()
    assert f"/projects/main/export/factscore-output/?run={world.run.pk}" in page
    assert "factscore-output" not in client.get("/projects/main/").content.decode()
    response = client.get("/projects/main/export/factscore-output/")
    assert response.status_code == 400 and b"--run" in response.content
    assert client.get(f"/projects/main/export/factscore-output/?run={world.run.pk}").status_code == 200
    assert client.get("/projects/main/export/factscore-output/?run=999999").status_code == 404
    api.force_authenticate(world.reviewer)
    response = api.get(f"/api/projects/{world.project.pk}/export/factscore-output/")
    assert response.status_code == 400 and response.json()["code"] == "run_required"
    response = api.get(f"/api/projects/{world.project.pk}/export/factscore-output/?run={world.run.pk}")
    assert response.status_code == 200
    assert b"respond_ratio" in b"".join(response.streaming_content)


@pytest.mark.parametrize("fmt", ["haluquestqa", "wikievalfacts", "factreasoner", "factscore"])
@pytest.mark.parametrize(
    "content",
    [b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe\xfa", b"", b"a;b;c\n1;2;3\n", b'[{"x": 1}]', b"\tx\ty\n1\t2\t3\n"],
    ids=["binary", "empty", "semicolons", "json-array", "tsv"],
)
def test_any_file_in_the_wrong_format_is_a_clear_400(api, world, fmt, content) -> None:  # noqa: ANN001
    api.force_authenticate(world.manager)
    response = api.post(
        f"/api/projects/{world.project.pk}/imports/",
        {"format": fmt, "file": upload(content)},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["message"].startswith("Nothing was imported") or "file" in body["extra"], body
    assert Question.objects.filter(project=world.project).count() == 1
