"""Writes of answer preferences: one per (annotator, question), reason required, audited."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from annotation import permissions
from annotation.errors import Conflict, Forbidden, ValidationFailed
from annotation.models import Answer, Preference, Question
from annotation.services.audit import audit_record, snapshot
from annotation.services.projects import project_progress_refresh_later

PREFERENCE_FIELDS = ["question", "annotator", "preferred_answer", "reason", "version"]


@transaction.atomic
def preference_set(
    *, actor: Any, question: Question, preferred_answer: Answer, reason: str, version: int | None = None
) -> Preference:
    """Create or replace the actor's preference for ``question``.

    With ``version``, an existing preference is only replaced if it is still at that version.
    """
    permissions.require_writer(actor, question.project)
    errors: dict[str, list[str]] = {}
    if preferred_answer.question_id != question.pk:
        errors["preferred_answer"] = [
            f"Answer {preferred_answer.pk} is not an answer to question {question.pk}."
        ]
    if not reason or not reason.strip():
        errors["reason"] = ["Say why you prefer this answer."]
    if errors:
        raise ValidationFailed.from_fields(errors)
    current = Preference.objects.select_for_update().filter(question=question, annotator=actor).first()
    if current is None:
        preference = Preference(
            question=question, annotator=actor, preferred_answer=preferred_answer, reason=reason.strip()
        )
        preference.full_clean()
        try:
            with transaction.atomic():
                preference.save()
        except IntegrityError:
            raise Conflict("Your preference was saved from elsewhere at the same moment; reload.") from None
        audit_record(
            actor=actor,
            action="preference.create",
            obj=preference,
            project=question.project,
            after=snapshot(preference, PREFERENCE_FIELDS),
        )
        project_progress_refresh_later(project=question.project)
        return preference
    if version is not None and version != current.version:
        raise Conflict(
            f"Your preference was changed elsewhere (version {current.version}, you sent {version}).",
            extra={
                "current_version": current.version,
                "current": snapshot(current, PREFERENCE_FIELDS) | {"id": current.pk},
            },
        )
    before = snapshot(current, PREFERENCE_FIELDS)
    current.preferred_answer = preferred_answer
    current.reason = reason.strip()
    current.version += 1
    current.full_clean()
    current.save()
    audit_record(
        actor=actor,
        action="preference.update",
        obj=current,
        project=question.project,
        before=before,
        after=snapshot(current, PREFERENCE_FIELDS),
    )
    return current


@transaction.atomic
def preference_delete(*, actor: Any, preference: Preference) -> None:
    """Withdraw the actor's own preference."""
    if preference.annotator_id != actor.pk:
        raise Forbidden("Only the annotator who gave a preference can withdraw it.")
    before = snapshot(preference, PREFERENCE_FIELDS)
    audit_record(
        actor=actor,
        action="preference.delete",
        obj=preference,
        project=preference.question.project,
        before=before,
    )
    preference.delete()
