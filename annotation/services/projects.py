"""Projects: creation and the progress counts a background task keeps fresh."""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone

from annotation import permissions
from annotation.choices import Role, Source
from annotation.errors import ValidationFailed
from annotation.models import (
    Answer,
    Assignment,
    ErrorSpan,
    Membership,
    Preference,
    Project,
    Question,
    Verdict,
)
from annotation.services.audit import audit_record, snapshot

logger = logging.getLogger(__name__)


@transaction.atomic
def project_create(
    *, actor: Any, name: str, slug: str, description: str = "", guidelines: str = "", blind: bool = True
) -> Project:
    """Create a project; the actor (if any) becomes its manager."""
    if Project.objects.filter(slug=slug).exists():
        raise ValidationFailed.from_fields({"slug": [f"A project with slug {slug!r} exists already."]})
    project = Project(name=name, slug=slug, description=description, guidelines=guidelines, blind=blind)
    project.full_clean()
    project.save()
    if actor is not None:
        Membership.objects.create(project=project, user=actor, role=Role.MANAGER)
    audit_record(
        actor=actor,
        action="project.create",
        obj=project,
        project=project,
        after=snapshot(project, ["name", "slug", "blind"]),
    )
    return project


def project_progress_compute(*, project: Project) -> dict[str, Any]:
    """Counts of the project's work, from the rows themselves (a constant number of queries)."""
    questions = Question.objects.filter(project=project)
    human_spans = ErrorSpan.objects.filter(
        Q(question__project=project) | Q(answer__question__project=project), source=Source.HUMAN
    )
    assignments = Assignment.objects.filter(question__project=project)
    per_annotator: dict[str, dict[str, int]] = {}

    def bump(username: str, key: str, value: int) -> None:
        per_annotator.setdefault(
            username, {"assigned": 0, "submitted": 0, "spans": 0, "preferences": 0, "active_minutes": 0}
        )
        per_annotator[username][key] = value

    for row in assignments.values("annotator__username").annotate(
        assigned=Count("id"),
        submitted=Count("id", filter=Q(submitted_at__isnull=False)),
        seconds=Sum("active_seconds"),
    ):
        bump(row["annotator__username"], "assigned", row["assigned"])
        bump(row["annotator__username"], "submitted", row["submitted"])
        bump(row["annotator__username"], "active_minutes", round((row["seconds"] or 0) / 60))
    for row in human_spans.values("annotator__username").annotate(n=Count("id")):
        bump(row["annotator__username"], "spans", row["n"])
    for row in (
        Preference.objects.filter(question__project=project)
        .values("annotator__username")
        .annotate(n=Count("id"))
    ):
        bump(row["annotator__username"], "preferences", row["n"])
    totals = assignments.aggregate(
        assigned=Count("id"), submitted=Count("id", filter=Q(submitted_at__isnull=False))
    )
    return {
        "questions": questions.count(),
        "answers": Answer.objects.filter(question__project=project).count(),
        "assigned": totals["assigned"],
        "submitted": totals["submitted"],
        "spans": sum(v["spans"] for v in per_annotator.values()),
        "spans_by_category": dict(human_spans.values_list("category").annotate(n=Count("id")).order_by()),
        "preferences": sum(v["preferences"] for v in per_annotator.values()),
        "human_verdicts": Verdict.objects.filter(
            atom__answer__question__project=project, source=Source.HUMAN
        ).count(),
        "annotators": dict(sorted(per_annotator.items())),
    }


def project_progress_refresh(*, project_id: int) -> dict[str, Any] | None:
    """Recompute and store a project's progress counts. Idempotent; None if the project is gone."""
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        return None
    progress = project_progress_compute(project=project)
    Project.objects.filter(pk=project_id).update(progress=progress, progress_updated_at=timezone.now())
    return progress


def project_progress_refresh_later(*, project: Project) -> None:
    """Ask a worker to refresh the counts once the current transaction has committed."""
    from annotation.tasks import project_progress_refresh_task

    project_id = project.pk

    def enqueue() -> None:
        try:
            project_progress_refresh_task.delay(project_id)
        except Exception:  # the counts are a cache: a broker outage must not fail the user's save
            logger.exception("could not enqueue the progress refresh of project %s", project_id)

    transaction.on_commit(enqueue)


@transaction.atomic
def project_update_settings(*, actor: Any, project: Project, blind: bool, guidelines: str) -> Project:
    """Managers set whether annotation is blind and the guidelines annotators see."""
    permissions.require_manager(actor, project, "change its settings")
    before = snapshot(project, ["blind", "guidelines"])
    project.blind = blind
    project.guidelines = guidelines
    project.save(update_fields=["blind", "guidelines"])
    audit_record(
        actor=actor,
        action="project.update",
        obj=project,
        project=project,
        before=before,
        after=snapshot(project, ["blind", "guidelines"]),
    )
    return project
