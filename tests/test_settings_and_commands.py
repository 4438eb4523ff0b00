import json
import os
import secrets
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Assignment, Membership, Project, Question
from tests import factories as f

ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean | {"DJANGO_SETTINGS_MODULE": "factapp.settings.base"} | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_passes_check_deploy_without_warnings() -> None:
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="example.org",
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "System check identified no issues" in result.stdout


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (None, "DJANGO_SECRET_KEY is not set"),
        ("short", "too weak"),
        ("django-insecure-" + "x" * 60, "too weak"),
    ],
)
def test_production_refuses_to_start_without_a_real_secret_key(key, message) -> None:  # noqa: ANN001
    env = {"DJANGO_DEBUG": "0"} | ({"DJANGO_SECRET_KEY": key} if key else {})
    result = manage("check", **env)
    assert result.returncode != 0 and message in result.stderr


def test_bad_boolean_setting_is_named() -> None:
    result = manage("check", DJANGO_DEBUG="maybe")
    assert result.returncode != 0 and "DJANGO_DEBUG='maybe' is not a boolean" in result.stderr


def test_migrations_are_committed(db) -> None:  # noqa: ANN001
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)


PRINT_EMBEDDED = """
import django
django.setup()
from django.conf import settings as s
o = s.CELERY_BROKER_TRANSPORT_OPTIONS
print(s.CELERY_BROKER_URL, o["data_folder_in"] == o["data_folder_out"], s.DATABASES["default"]["ENGINE"])
"""


def test_embedded_broker_is_the_filesystem_with_one_folder() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL")}
    result = subprocess.run(
        [sys.executable, "-c", PRINT_EMBEDDED],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env=env | {"DJANGO_SETTINGS_MODULE": "factapp.settings.base", "DJANGO_DEBUG": "1"},
    )
    assert result.stdout.split() == ["filesystem://", "True", "django.db.backends.sqlite3"], result.stderr


def test_demo_setup_is_idempotent(db, tmp_path, settings) -> None:  # noqa: ANN001
    settings.VAR_DIR = tmp_path
    out = StringIO()
    call_command("demo_setup", "--url", "http://127.0.0.1:8123/", stdout=out)
    login = json.loads((tmp_path / "demo_login.json").read_text())
    assert "http://127.0.0.1:8123/" in out.getvalue() and login["password"] in out.getvalue()
    call_command("demo_setup", stdout=StringIO())
    assert json.loads((tmp_path / "demo_login.json").read_text()) == login
    project = Project.objects.get(slug="demo")
    assert Question.objects.filter(project=project).count() == 7
    assert sorted(q.answers.count() for q in project.questions.all()) == [2, 2, 2, 2, 3, 3, 3]
    assert Membership.objects.get(project=project, user__username="demo").role == "manager"
    assert Assignment.objects.filter(annotator__username="demo").count() == 4
    assert Project.objects.get(slug="demo").progress["questions"] == 7


def test_demo_login_works_on_the_page(client, db, tmp_path, settings) -> None:  # noqa: ANN001
    settings.VAR_DIR = tmp_path
    call_command("demo_setup", stdout=StringIO())
    login = json.loads((tmp_path / "demo_login.json").read_text())
    response = client.post("/accounts/login/", login, follow=True)
    assert b"Demo: HaluQuestQA sample" in response.content
    assert client.get("/projects/demo/").status_code == 200


def test_add_member_command(db) -> None:  # noqa: ANN001
    project = f.ProjectFactory(slug="p")
    out = StringIO()
    call_command("add_member", "--project", "p", "--role", "reviewer", "--create", "newbie", stdout=out)
    assert "Created user newbie with password" in out.getvalue()
    assert Membership.objects.get(project=project, user__username="newbie").role == "reviewer"
    with pytest.raises(CommandError, match="No project"):
        call_command("add_member", "--project", "nope", "newbie")
    with pytest.raises(CommandError, match="--create"):
        call_command("add_member", "--project", "p", "ghost")


def test_a_new_user_runs_faaf_on_the_demo_project_offline(db, tmp_path, settings) -> None:  # noqa: ANN001
    settings.VAR_DIR = tmp_path
    settings.LLM_BASE_URL = ""
    call_command("demo_setup", stdout=StringIO())
    out = StringIO()
    call_command("run_job", "--project", "demo", "--method", "faaf", "--sync", stdout=out)
    assert "model offline" in out.getvalue() and "succeeded: 9 answers done, 0 failed" in out.getvalue()
