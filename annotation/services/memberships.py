"""Who belongs to a project, in which role. Only managers change it (or the system, with actor None)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from annotation import permissions
from annotation.choices import Role
from annotation.errors import NotFound, ValidationFailed
from annotation.models import Membership, Project
from annotation.services.audit import audit_record, snapshot

MEMBERSHIP_FIELDS = ["user", "project", "role"]


def _require_manager(*, actor: Any, project: Project) -> None:
    if actor is not None:  # None: management commands and the system itself
        permissions.require_manager(actor, project, "change its members")


@transaction.atomic
def membership_set(*, actor: Any, project: Project, user: Any, role: str) -> Membership:
    """Add ``user`` to ``project`` in ``role``, or change their role."""
    _require_manager(actor=actor, project=project)
    if role not in Role.values:
        raise ValidationFailed.from_fields(
            {"role": [f"Unknown role {role!r}; use one of: {', '.join(Role.values)}."]}
        )
    current = Membership.objects.select_for_update().filter(project=project, user=user).first()
    if current is None:
        membership = Membership.objects.create(project=project, user=user, role=role)
        audit_record(
            actor=actor,
            action="membership.create",
            obj=membership,
            project=project,
            after=snapshot(membership, MEMBERSHIP_FIELDS),
        )
        return membership
    if current.role == role:
        return current
    _keep_a_manager(project=project, leaving=current)
    before = snapshot(current, MEMBERSHIP_FIELDS)
    current.role = role
    current.save(update_fields=["role"])
    audit_record(
        actor=actor,
        action="membership.update",
        obj=current,
        project=project,
        before=before,
        after=snapshot(current, MEMBERSHIP_FIELDS),
    )
    return current


def _keep_a_manager(*, project: Project, leaving: Membership) -> None:
    if leaving.role == Role.MANAGER and not (
        Membership.objects.filter(project=project, role=Role.MANAGER).exclude(pk=leaving.pk).exists()
    ):
        raise ValidationFailed.from_fields({"role": ["A project keeps at least one manager."]})


@transaction.atomic
def membership_remove(*, actor: Any, project: Project, user: Any) -> None:
    """Take ``user`` out of ``project``. Their work stays."""
    _require_manager(actor=actor, project=project)
    current = Membership.objects.select_for_update().filter(project=project, user=user).first()
    if current is None:
        raise NotFound(f"{user} is not a member of this project.")
    _keep_a_manager(project=project, leaving=current)
    audit_record(
        actor=actor,
        action="membership.delete",
        obj=current,
        project=project,
        before=snapshot(current, MEMBERSHIP_FIELDS),
    )
    current.delete()
