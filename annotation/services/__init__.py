"""Every write goes through a function here: one transaction, validated, audited."""

from .assignments import assignment_add_time, assignment_submit, assignments_create
from .audit import audit_record
from .datasets import dataset_export, dataset_export_for, dataset_import, dataset_import_upload
from .memberships import membership_remove, membership_set
from .preferences import preference_delete, preference_set
from .projects import (
    project_create,
    project_progress_compute,
    project_progress_refresh,
    project_progress_refresh_later,
    project_update_settings,
)
from .runs import run_cancel, run_start
from .spans import span_create, span_delete, span_update, span_validate
from .verdicts import verdict_delete_human, verdict_set_human

__all__ = [
    "assignment_add_time",
    "assignment_submit",
    "assignments_create",
    "audit_record",
    "dataset_export",
    "dataset_export_for",
    "dataset_import",
    "dataset_import_upload",
    "membership_remove",
    "membership_set",
    "preference_delete",
    "preference_set",
    "project_create",
    "project_progress_compute",
    "project_progress_refresh",
    "project_progress_refresh_later",
    "project_update_settings",
    "run_cancel",
    "run_start",
    "span_create",
    "span_delete",
    "span_update",
    "span_validate",
    "verdict_delete_human",
    "verdict_set_human",
]
