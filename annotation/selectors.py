"""Every non-trivial read, with its joins written out. Visibility comes from permissions.py."""

from __future__ import annotations

import hashlib
from typing import Any

from django.db.models import Prefetch, Q, QuerySet

from annotation import permissions
from annotation.models import Answer, Assignment, ErrorSpan, Preference, Project, Question, Run, Verdict


def project_list(*, user: Any) -> QuerySet[Project]:
    """The user's projects, by name (their roles come from ``permissions.roles_by_project``)."""
    return permissions.projects_visible(user).order_by("name", "id")


def question_list(*, user: Any, project: Project | None = None) -> QuerySet[Question]:
    """Questions in the user's projects (optionally one project), answers prefetched in display order."""
    questions = Question.objects.filter(project__in=permissions.projects_visible(user))
    if project is not None:
        questions = questions.filter(project=project)
    return (
        questions.select_related("project")
        .prefetch_related(Prefetch("answers", queryset=Answer.objects.order_by("position", "id")))
        .order_by("id")
    )


def answer_list(*, user: Any) -> QuerySet[Answer]:
    return (
        Answer.objects.filter(question__project__in=permissions.projects_visible(user))
        .select_related("question")
        .order_by("question_id", "position", "id")
    )


def span_list(*, user: Any) -> QuerySet[ErrorSpan]:
    """Spans the user may see: in their projects, and others' only when not blind to them."""
    return (
        ErrorSpan.objects.filter(permissions.spans_visible_q(user)).select_related("annotator").order_by("id")
    )


def preference_list(*, user: Any) -> QuerySet[Preference]:
    return (
        Preference.objects.filter(permissions.preferences_visible_q(user))
        .select_related("annotator")
        .order_by("id")
    )


def verdict_list(*, user: Any) -> QuerySet[Verdict]:
    return (
        Verdict.objects.filter(permissions.verdicts_visible_q(user))
        .select_related("annotator")
        .order_by("id")
    )


def run_list(*, user: Any) -> QuerySet[Run]:
    return (
        Run.objects.filter(project__in=permissions.projects_visible(user))
        .select_related("created_by")
        .order_by("-created_at", "-id")
    )


def question_detail(*, user: Any, project: Project, question_id: int) -> tuple[Question, list[ErrorSpan]]:
    """A question with its answers, and the spans on it that the user may see.

    Raises Question.DoesNotExist when it is not in ``project`` or not visible.
    """
    question = question_list(user=user, project=project).get(pk=question_id)
    spans = list(span_list(user=user).filter(Q(question=question) | Q(answer__question=question)))
    return question, spans


def queue_next(*, user: Any, project: Project) -> Question | None:
    """The next item assigned to ``user`` in ``project`` and not submitted yet, in assignment order."""
    assignment = (
        Assignment.objects.filter(annotator=user, question__project=project, submitted_at__isnull=True)
        .select_related("question")
        .order_by("id")
        .first()
    )
    return assignment.question if assignment else None


def item_order(*, answers: list[Answer], user: Any) -> list[Answer]:
    """The answers of an item in the order this annotator sees them: shuffled per item and annotator, and
    the same every time (the HaluQuestQA set-up hides which answer is which)."""

    def key(answer: Answer) -> str:
        return hashlib.sha256(f"{answer.question_id}:{user.pk}:{answer.pk}".encode()).hexdigest()

    return sorted(answers, key=key)
