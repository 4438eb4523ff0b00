"""Screenshots of the queue and the item page, for the README.

Always taken (so the pages are known to render); copied to docs/screenshots/ by `make screenshots`
(UPDATE_SCREENSHOTS=1).
"""

import io
import os
import shutil
from pathlib import Path

from django.core.management import call_command

from annotation.choices import Role
from annotation.models import Assignment, ErrorSpan, Question
from tests import factories as f
from tests.browser.test_item_page import PASSWORD, login, panel_for, save_span, select_text

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "haluquestqa_sample.tsv"


def test_screenshots(page, transactional_db, tmp_path) -> None:  # noqa: ANN001
    call_command(
        "import_dataset",
        "--format",
        "haluquestqa",
        "--project",
        "demo",
        "--create",
        str(FIXTURE),
        stdout=io.StringIO(),
    )
    expert = f.UserFactory(username="expert", password=PASSWORD)
    project = Question.objects.first().project
    project.name = "HaluQuestQA sample"
    project.save()
    f.MembershipFactory(user=expert, project=project, role=Role.ANNOTATOR)
    for question in Question.objects.filter(project=project).order_by("id"):
        Assignment.objects.create(question=question, annotator=expert)
    login(page, "expert")
    page.goto("/projects/demo/")
    page.screenshot(path=str(tmp_path / "project.png"))
    page.goto("/projects/demo/next/")
    page.wait_for_selector("#editor")
    answer = panel_for(page, "Download sites have a wait time")
    select_text(page, answer, "manage server load")
    save_span(page, "2", "Server load is not why free users wait; the premium upsell is.")
    select_text(page, answer, "generate revenue through ads")
    save_span(page, "3", "Ads are a side effect here, not an answer to why.")
    select_text(page, "q", "Where's the reason for a timer?")
    save_span(page, "1", "Asks where a reason is, as if it were a place.")
    select_text(page, answer, "premium service")
    page.keyboard.press("4")
    page.keyboard.type("Which premium features, and how does waiting push users to them?")
    assert ErrorSpan.objects.filter(annotator=expert).count() == 3
    page.screenshot(path=str(tmp_path / "item.png"))
    if os.environ.get("UPDATE_SCREENSHOTS"):
        DOCS.mkdir(parents=True, exist_ok=True)
        for name in ("project.png", "item.png"):
            shutil.copy(tmp_path / name, DOCS / name)
