"""An annotator's items: submitting them and recording the active time spent on them."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotation import permissions
from annotation.errors import ValidationFailed
from annotation.models import Assignment, Preference, Question
from annotation.services.audit import audit_record
from annotation.services.projects import project_progress_refresh_later

#: One report of active time covers at most this much (the page reports every 30 s).
MAX_SECONDS_PER_REPORT = 300


def _writer_assignment(*, actor: Any, question: Question) -> Assignment:
    permissions.require_writer(actor, question.project)
    assignment, _ = Assignment.objects.get_or_create(question=question, annotator=actor)
    return assignment


@transaction.atomic
def assignment_submit(*, actor: Any, question: Question) -> Assignment:
    """Mark the actor's item as done. A preference with its reason is required (the HaluQuestQA set-up)."""
    assignment = _writer_assignment(actor=actor, question=question)
    if (
        question.answers.count() > 1
        and not Preference.objects.filter(question=question, annotator=actor).exists()
    ):
        raise ValidationFailed.from_fields(
            {"preference": ["Choose the answer you prefer and say why first."]}
        )
    if assignment.submitted_at is None:
        assignment.submitted_at = timezone.now()
        assignment.save(update_fields=["submitted_at"])
        audit_record(
            actor=actor,
            action="item.submit",
            obj=assignment,
            project=question.project,
            after={"question": question.pk},
        )
        project_progress_refresh_later(project=question.project)
    return assignment


def assignment_add_time(*, actor: Any, question: Question, seconds: int) -> None:
    """Add active seconds (tab focused, user interacting) to the actor's item."""
    if not 0 <= seconds <= MAX_SECONDS_PER_REPORT:
        raise ValidationFailed.from_fields({"seconds": [f"Must be between 0 and {MAX_SECONDS_PER_REPORT}."]})
    assignment = _writer_assignment(actor=actor, question=question)
    Assignment.objects.filter(pk=assignment.pk).update(active_seconds=F("active_seconds") + seconds)


@transaction.atomic
def assignments_create(*, actor: Any, project: Any, user: Any) -> int:
    """Give ``user`` every item of ``project`` they do not have yet; returns how many were added.

    Only a manager (or the system, actor None) assigns; the user must be a member who can annotate.
    """
    if actor is not None:
        permissions.require_manager(actor, project, "assign items")
    if not permissions.can_annotate(permissions.role_for(user, project)):
        raise ValidationFailed.from_fields({"user": [f"{user} is not an annotator of this project."]})
    have = Assignment.objects.filter(annotator=user, question__project=project).values("question_id")
    missing = Question.objects.filter(project=project).exclude(pk__in=have).values_list("pk", flat=True)
    created = Assignment.objects.bulk_create(
        (Assignment(question_id=pk, annotator=user) for pk in missing.iterator(chunk_size=2000)),
        batch_size=2000,
    )
    if created:
        audit_record(
            actor=actor,
            action="assignment.create",
            obj=project,
            project=project,
            after={"user": user.pk, "items": len(created)},
        )
        project_progress_refresh_later(project=project)
    return len(created)
