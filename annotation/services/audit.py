"""The audit log writer."""

from __future__ import annotations

from typing import Any

from django.db import models

from annotation.models import AuditEvent, Project


def snapshot(obj: models.Model, fields: list[str]) -> dict[str, Any]:
    """A JSON-safe picture of ``fields`` of ``obj`` (foreign keys by id)."""
    data: dict[str, Any] = {}
    for name in fields:
        field = obj._meta.get_field(name)
        value = getattr(obj, field.attname)
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        data[name] = value
    return data


def audit_record(
    *,
    actor: Any,
    action: str,
    obj: models.Model,
    project: Project | None = None,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> AuditEvent:
    """Write one audit event: who did ``action`` to ``obj``, with its state before and after."""
    return AuditEvent.objects.create(
        actor=actor if getattr(actor, "is_authenticated", False) else None,
        project=project,
        action=action,
        object_type=obj._meta.model_name,
        object_id=str(obj.pk),
        before=before,
        after=after,
    )
