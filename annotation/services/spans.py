"""Writes of error spans: validated against the target text, audited, versioned."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import URLValidator
from django.db import transaction

from annotation import permissions
from annotation.choices import QUESTION_CATEGORIES, ErrorCategory, Source, SpanLocation
from annotation.errors import Conflict, Forbidden, NotFound, ValidationFailed
from annotation.models import Answer, ErrorSpan, Project, Question
from annotation.services.audit import audit_record, snapshot
from annotation.services.projects import project_progress_refresh_later

SPAN_FIELDS = [
    "question",
    "answer",
    "start",
    "end",
    "quote",
    "location",
    "category",
    "justification",
    "references",
    "helpful",
    "whole_answer",
    "source",
    "annotator",
    "run",
    "version",
]
EDITABLE_FIELDS = frozenset(
    {"start", "end", "quote", "category", "justification", "references", "helpful", "whole_answer"}
)
_url = URLValidator(schemes=["http", "https"])


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def span_validate(
    *,
    target_text: str,
    on_question: bool,
    start: int | None,
    end: int | None,
    quote: str | None,
    category: str,
    justification: str,
    references: Iterable[Any],
    helpful: bool | None,
    whole_answer: bool,
) -> dict[str, list[str]]:
    """Every problem with a span, keyed by field name. Empty when the span is valid.

    Offsets are code points into ``target_text``; the quote, when given, must equal ``text[start:end]``.
    """
    errors: dict[str, list[str]] = {}

    def add(field: str, message: str) -> None:
        errors.setdefault(field, []).append(message)

    if category not in ErrorCategory.values:
        add("category", f"Unknown category {category!r}; use one of: {', '.join(ErrorCategory.values)}.")
    elif on_question and category not in QUESTION_CATEGORIES:
        add("category", f"{category!r} spans belong on an answer; a question takes question_misconception.")
    elif not on_question and category in QUESTION_CATEGORIES:
        add("category", "question_misconception spans belong on the question, not on an answer.")

    if whole_answer:
        if on_question:
            add("whole_answer", "Only an answer can be marked as missing information as a whole.")
        if category != ErrorCategory.COMPLETENESS:
            add("whole_answer", "Only completeness spans can cover the whole answer.")
        if start is not None or end is not None:
            add("start", "A whole-answer span has no offsets; leave start and end empty.")
    else:
        length = len(target_text)
        if start is None:
            add("start", "Required (code points into the text).")
        elif start < 0:
            add("start", f"Must be 0 or more, got {start}.")
        elif start >= length:
            add("start", f"Must be before the end of the text ({length} code points), got {start}.")
        if end is None:
            add("end", "Required (code points into the text).")
        elif end > length:
            add("end", f"Must be at most the text length ({length} code points), got {end}.")
        elif start is not None and end <= start:
            add("end", f"Must be greater than start ({start}), got {end}.")
        if quote is not None and "start" not in errors and "end" not in errors:
            actual = target_text[start:end]
            if quote != actual:
                add(
                    "quote",
                    f"Does not match the text at [{start}, {end}): the text there is {_short(actual)!r}.",
                )

    if not justification or not justification.strip():
        add("justification", "A justification is required: say why this is an error.")

    references = list(references)
    for index, url in enumerate(references, start=1):
        try:
            if not isinstance(url, str):
                raise DjangoValidationError("not a string")
            _url(url)
        except DjangoValidationError:
            add("references", f"Reference {index} ({_short(str(url))!r}) is not a valid http(s) URL.")

    if helpful is not None and category != ErrorCategory.REFERENCES:
        add("helpful", "Only references spans say whether the example or reference is helpful.")
    return errors


def _target_project(*, question: Question | None, answer: Answer | None) -> Project:
    return question.project if question is not None else answer.question.project


def _require_author(*, actor: Any, span: ErrorSpan) -> Project:
    project = _target_project(question=span.question, answer=span.answer)
    role = permissions.role_for(actor, project)
    if role is None:
        raise NotFound("Not found.")
    if span.source != Source.HUMAN or span.annotator_id != actor.pk:
        if not permissions.sees_others_work(role, project) and span.source == Source.HUMAN:
            raise NotFound("Not found.")
        raise Forbidden("Only the annotator who made a span can change it.")
    return project


@transaction.atomic
def span_create(
    *,
    actor: Any,
    question: Question | None = None,
    answer: Answer | None = None,
    start: int | None = None,
    end: int | None = None,
    quote: str | None = None,
    category: str,
    justification: str,
    references: Iterable[str] = (),
    helpful: bool | None = None,
    whole_answer: bool = False,
) -> ErrorSpan:
    """Create a human span on a question or an answer (exactly one), checked against its text."""
    if (question is None) == (answer is None):
        raise ValidationFailed.from_fields({"target": ["Give exactly one of question or answer."]})
    project = _target_project(question=question, answer=answer)
    permissions.require_writer(actor, project)
    target_text = question.text if question is not None else answer.text
    references = list(references)
    errors = span_validate(
        target_text=target_text,
        on_question=question is not None,
        start=start,
        end=end,
        quote=quote,
        category=category,
        justification=justification,
        references=references,
        helpful=helpful,
        whole_answer=whole_answer,
    )
    if errors:
        raise ValidationFailed.from_fields(errors)
    span = ErrorSpan(
        question=question,
        answer=answer,
        start=start,
        end=end,
        quote="" if whole_answer else target_text[start:end],
        location=SpanLocation.EXACT,
        category=category,
        justification=justification.strip(),
        references=references,
        helpful=helpful,
        whole_answer=whole_answer,
        source=Source.HUMAN,
        annotator=actor,
    )
    span.full_clean()
    span.save()
    audit_record(
        actor=actor, action="span.create", obj=span, project=project, after=snapshot(span, SPAN_FIELDS)
    )
    project_progress_refresh_later(project=project)
    return span


def _lock(span: ErrorSpan) -> ErrorSpan:
    return (
        ErrorSpan.objects.select_for_update(of=("self",)).select_related("question", "answer").get(pk=span.pk)
    )


def _stale(current: ErrorSpan, version: int) -> Conflict:
    return Conflict(
        f"This span was changed elsewhere (version {current.version}, you sent {version}); "
        "your change was not saved. Reload to see the current span.",
        extra={
            "current_version": current.version,
            "current": snapshot(current, SPAN_FIELDS) | {"id": current.pk},
        },
    )


@transaction.atomic
def span_update(*, actor: Any, span: ErrorSpan, version: int, **changes: Any) -> ErrorSpan:
    """Change a human span. ``version`` must be the span's current version, or nothing is written."""
    unknown = set(changes) - EDITABLE_FIELDS
    if unknown:
        raise ValidationFailed.from_fields({name: ["This field cannot be changed."] for name in unknown})
    try:
        current = _lock(span)
    except ErrorSpan.DoesNotExist:
        raise NotFound("This span no longer exists.") from None
    project = _require_author(actor=actor, span=current)
    if current.version != version:
        raise _stale(current, version)
    before = snapshot(current, SPAN_FIELDS)
    merged = {name: getattr(current, name) for name in EDITABLE_FIELDS} | changes
    if merged["whole_answer"] and not current.whole_answer and not {"start", "end"} & set(changes):
        # Turning a located span into "information is missing": it no longer points at text.
        merged["start"] = merged["end"] = None
    if "quote" not in changes and ("start" in changes or "end" in changes):
        merged["quote"] = None
    errors = span_validate(
        target_text=current.target_text,
        on_question=current.question_id is not None,
        start=merged["start"],
        end=merged["end"],
        quote=None if merged["whole_answer"] else merged["quote"],
        category=merged["category"],
        justification=merged["justification"],
        references=merged["references"] or [],
        helpful=merged["helpful"],
        whole_answer=merged["whole_answer"],
    )
    if errors:
        raise ValidationFailed.from_fields(errors)
    for name in EDITABLE_FIELDS:
        setattr(current, name, merged[name])
    current.justification = current.justification.strip()
    current.quote = "" if current.whole_answer else current.target_text[current.start : current.end]
    current.location = SpanLocation.EXACT
    current.version += 1
    current.full_clean()
    current.save()
    audit_record(
        actor=actor,
        action="span.update",
        obj=current,
        project=project,
        before=before,
        after=snapshot(current, SPAN_FIELDS),
    )
    return current


@transaction.atomic
def span_delete(*, actor: Any, span: ErrorSpan, version: int | None = None) -> None:
    """Delete a human span; with ``version``, only if nobody changed it since."""
    try:
        current = _lock(span)
    except ErrorSpan.DoesNotExist:
        raise NotFound("This span no longer exists.") from None
    project = _require_author(actor=actor, span=current)
    if version is not None and current.version != version:
        raise _stale(current, version)
    before = snapshot(current, SPAN_FIELDS)
    audit_record(actor=actor, action="span.delete", obj=current, project=project, before=before)
    current.delete()
    project_progress_refresh_later(project=project)
