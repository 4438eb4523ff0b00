import os

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from annotation.choices import AnswerKind, Role, Source
from tests import factories as f


def pytest_sessionstart(session: pytest.Session) -> None:
    """In CI every service is real: refuse to run on SQLite or without Redis instead of skipping."""
    if not os.environ.get("CI"):
        return
    engine = settings.DATABASES["default"]["ENGINE"]
    problems = []
    if "postgresql" not in engine:
        problems.append(f"DATABASE_URL must point at PostgreSQL in CI (the engine is {engine})")
    if not settings.CELERY_BROKER_URL.startswith("redis://"):
        problems.append(f"CELERY_BROKER_URL must be Redis in CI (it is {settings.CELERY_BROKER_URL!r})")
    if problems:
        pytest.exit("CI is set but: " + "; ".join(problems), returncode=3)


@pytest.fixture
def api() -> APIClient:
    return APIClient()


class World:
    """One blind project with every role, a question with two answers and some work; and an outsider."""

    def __init__(self) -> None:
        self.project = f.ProjectFactory(slug="main", blind=True)
        self.manager = f.member(self.project, Role.MANAGER, "manager")
        self.reviewer = f.member(self.project, Role.REVIEWER, "reviewer")
        self.annotator = f.member(self.project, Role.ANNOTATOR, "annotator")
        self.annotator2 = f.member(self.project, Role.ANNOTATOR, "annotator2")
        self.other_project = f.ProjectFactory(slug="other")
        self.outsider = f.member(self.other_project, Role.ANNOTATOR, "outsider")
        self.question = f.QuestionFactory(project=self.project, text="Why is the sky blue?")
        self.answer1 = f.AnswerFactory(
            question=self.question,
            position=1,
            kind=AnswerKind.HUMAN,
            text="Rayleigh scattering 🌈 makes short wavelengths scatter more.\r\nSee https://example.org/sky.",
        )
        self.answer2 = f.AnswerFactory(
            question=self.question, position=2, kind=AnswerKind.MODEL, text="The sky reflects the ocean."
        )
        self.span = f.SpanFactory(answer=self.answer1, annotator=self.annotator, start=0, end=19)
        self.span2 = f.SpanFactory(answer=self.answer2, annotator=self.annotator2, start=0, end=7)
        self.preference = f.PreferenceFactory(
            question=self.question, annotator=self.annotator, preferred_answer=self.answer1
        )
        self.atom = f.AtomFactory(answer=self.answer1, text="Short wavelengths scatter more.")
        self.verdict = f.VerdictFactory(
            atom=self.atom, target=self.answer1, annotator=self.annotator, source=Source.HUMAN
        )
        self.run = f.RunFactory(project=self.project)
        self.other_question = f.QuestionFactory(project=self.other_project)
        self.other_answer = f.AnswerFactory(question=self.other_question, position=1)

    def user(self, role: str):  # noqa: ANN201
        return None if role == "anonymous" else getattr(self, role)


@pytest.fixture
def world(db) -> World:  # noqa: ANN001
    return World()
