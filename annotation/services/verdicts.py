"""Writes of human verdicts: an expert's label for an atom against an answer (or its evidence)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from annotation import permissions
from annotation.choices import Source, VerdictLabel
from annotation.errors import Conflict, Forbidden, ValidationFailed
from annotation.models import Answer, Atom, Verdict
from annotation.services.audit import audit_record, snapshot

VERDICT_FIELDS = ["atom", "target", "source", "annotator", "label", "rationale", "evidence_quote", "version"]


@transaction.atomic
def verdict_set_human(
    *,
    actor: Any,
    atom: Atom,
    target: Answer | None,
    label: str,
    rationale: str = "",
    evidence_quote: str = "",
    version: int | None = None,
) -> Verdict:
    """Create or change the actor's verdict on ``atom`` against ``target`` (None: against evidence)."""
    project = atom.answer.question.project
    permissions.require_writer(actor, project)
    errors: dict[str, list[str]] = {}
    if label not in VerdictLabel.values:
        errors["label"] = [f"Unknown label {label!r}; use one of: {', '.join(VerdictLabel.values)}."]
    if target is not None and target.question_id != atom.answer.question_id:
        errors["target"] = [f"Answer {target.pk} does not answer the question atom {atom.pk} belongs to."]
    if errors:
        raise ValidationFailed.from_fields(errors)
    current = Verdict.objects.select_for_update().filter(annotator=actor, atom=atom, target=target).first()
    if current is None:
        verdict = Verdict(
            atom=atom,
            target=target,
            source=Source.HUMAN,
            annotator=actor,
            label=label,
            raw_value=label,
            rationale=rationale.strip(),
            evidence_quote=evidence_quote,
        )
        verdict.full_clean()
        try:
            with transaction.atomic():
                verdict.save()
        except IntegrityError:
            raise Conflict("Your verdict was saved from elsewhere at the same moment; reload.") from None
        audit_record(
            actor=actor,
            action="verdict.create",
            obj=verdict,
            project=project,
            after=snapshot(verdict, VERDICT_FIELDS),
        )
        return verdict
    if version is not None and version != current.version:
        raise Conflict(
            f"This verdict was changed elsewhere (version {current.version}, you sent {version}).",
            extra={
                "current_version": current.version,
                "current": snapshot(current, VERDICT_FIELDS) | {"id": current.pk},
            },
        )
    before = snapshot(current, VERDICT_FIELDS)
    current.label = label
    current.raw_value = label
    current.rationale = rationale.strip()
    current.evidence_quote = evidence_quote
    current.version += 1
    current.full_clean()
    current.save()
    audit_record(
        actor=actor,
        action="verdict.update",
        obj=current,
        project=project,
        before=before,
        after=snapshot(current, VERDICT_FIELDS),
    )
    return current


@transaction.atomic
def verdict_delete_human(*, actor: Any, verdict: Verdict) -> None:
    """Withdraw the actor's own verdict."""
    if verdict.source != Source.HUMAN or verdict.annotator_id != actor.pk:
        raise Forbidden("Only the annotator who gave a verdict can withdraw it.")
    audit_record(
        actor=actor,
        action="verdict.delete",
        obj=verdict,
        project=verdict.atom.answer.question.project,
        before=snapshot(verdict, VERDICT_FIELDS),
    )
    verdict.delete()
