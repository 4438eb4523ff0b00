"""The expert's workspace: the queue, the item page, and the htmx endpoints behind it.

Every change goes through a service and answers with the re-rendered part of the page; validation
errors answer 422 with the editor and its messages, so nothing the expert typed is lost.
"""

from __future__ import annotations

from typing import Any

import markdown
import nh3
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_POST

from annotation import permissions, selectors, services
from annotation.choices import ErrorCategory, Role, Source
from annotation.errors import ApplicationError, Forbidden, NotFound, ValidationFailed
from annotation.factcheck.text import segments
from annotation.models import Assignment, ErrorSpan, Preference, Project, Question

#: Keyboard keys and colours of the five categories, in the order of the guidelines.
CATEGORIES = [
    ("1", ErrorCategory.QUESTION_MISCONCEPTION, "Question misconception", "question"),
    ("2", ErrorCategory.FACTUALITY, "Factuality", "answer"),
    ("3", ErrorCategory.RELEVANCE, "Relevance", "answer"),
    ("4", ErrorCategory.COMPLETENESS, "Completeness", "answer"),
    ("5", ErrorCategory.REFERENCES, "References", "answer"),
]


def _project(request: HttpRequest, slug: str) -> tuple[Project, str | None]:
    project = get_object_or_404(selectors.project_list(user=request.user), slug=slug)
    return project, permissions.role_for(request.user, project)


def _question(request: HttpRequest, project: Project, pk: int) -> Question:
    question = Question.objects.filter(project=project, pk=pk).select_related("project").first()
    if question is None:
        raise Http404("No such item in this project.")
    return question


def marked_text(text: str, marks: list[tuple[int, int, int, str]]) -> SafeString:
    """The text, escaped, with each (id, start, end, css class) range wrapped in a ``<mark>``; overlapping
    ranges nest as several marks.

    A carriage return is written as ``&#13;`` so the page's text keeps it (HTML parsing would turn a raw
    CR LF into LF) and offsets counted in the browser match the stored text.
    """
    classes = {mark_id: css for mark_id, _, _, css in marks}
    parts = []
    for start, end, ids in segments(len(text), [(i, s, e) for i, s, e, _ in marks]):
        chunk = escape(text[start:end]).replace("\r", "&#13;")
        if ids:
            css = " ".join(dict.fromkeys(classes[i] for i in ids))
            data = " ".join(str(i) for i in ids)
            attributes = f'class="hl {css}" data-spans="{data}" style="--depth:{len(ids)}" tabindex="-1"'
            chunk = f"<mark {attributes}>{chunk}</mark>"
        parts.append(chunk)
    return mark_safe("".join(parts))  # noqa: S308 - every piece of user text above is escaped


def _highlighted(text: str, spans: list[ErrorSpan]) -> SafeString:
    return marked_text(
        text, [(s.pk, s.start, s.end, f"hl-{s.category}") for s in spans if s.start is not None]
    )


def item_context(
    request: HttpRequest, project: Project, role: str | None, question_id: int
) -> dict[str, Any]:
    """Everything the item page shows, in a constant number of queries."""
    try:
        question, spans = selectors.question_detail(
            user=request.user, project=project, question_id=question_id
        )
    except Question.DoesNotExist:
        raise Http404("No such item in this project.") from None
    answers = list(question.answers.all())
    hide_kind = role == Role.ANNOTATOR
    if hide_kind:
        answers = selectors.item_order(answers=answers, user=request.user)
    by_target: dict[str, list[ErrorSpan]] = {"q": []}
    for answer in answers:
        by_target[f"a{answer.pk}"] = []
    for span in spans:
        by_target["q" if span.question_id else f"a{span.answer_id}"].append(span)
    panels = [
        {
            "key": "q",
            "title": "Question",
            "text": _highlighted(question.text, by_target["q"]),
            "spans": by_target["q"],
            "answer": None,
        }
    ]
    for number, answer in enumerate(answers, 1):
        key = f"a{answer.pk}"
        panels.append(
            {
                "key": key,
                "title": f"Answer {number}",
                "text": _highlighted(answer.text, by_target[key]),
                "spans": by_target[key],
                "answer": answer,
            }
        )
    writer = permissions.can_annotate(role)
    preference = (
        Preference.objects.filter(question=question, annotator=request.user).first() if writer else None
    )
    assignment = (
        Assignment.objects.filter(question=question, annotator=request.user).first() if writer else None
    )
    return {
        "project": project,
        "role": role,
        "question": question,
        "panels": panels,
        "answer_panels": panels[1:],
        "labels": {p["key"]: p["title"] for p in panels},
        "writer": writer,
        "hide_kind": hide_kind,
        "preference": preference,
        "assignment": assignment,
        "categories": CATEGORIES,
        "me": request.user,
        "model_source": Source.MODEL,
    }


def guidelines_html(project: Project) -> SafeString:
    """The project's guidelines: Markdown, with any HTML in it cleaned to a safe subset."""
    html = markdown.markdown(project.guidelines or DEFAULT_GUIDELINES, extensions=["sane_lists"])
    return mark_safe(nh3.clean(html))  # noqa: S308 - sanitised by nh3


def queue_next(request: HttpRequest, slug: str) -> HttpResponse:
    project, role = _project(request, slug)
    question = selectors.queue_next(user=request.user, project=project)
    if question is not None:
        return redirect("web:item", slug=project.slug, pk=question.pk)
    return render(request, "annotation/queue_empty.html", {"project": project, "role": role})


def item(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    project, role = _project(request, slug)
    context = item_context(request, project, role, pk)
    context["guidelines"] = guidelines_html(project)
    return render(request, "annotation/item.html", context)


def _workspace(
    request: HttpRequest, project: Project, role: str | None, question: Question, status: int = 200
) -> HttpResponse:
    return render(
        request,
        "annotation/item.html#workspace",
        item_context(request, project, role, question.pk),
        status=status,
    )


def _editor_errors(
    request: HttpRequest, project: Project, role: str | None, question: Question, error: ApplicationError
) -> HttpResponse:
    context = item_context(request, project, role, question.pk) | {
        "errors": error.extra if isinstance(error, ValidationFailed) else {"__all__": [error.message]},
        "message": error.message,
        "values": request.POST,
    }
    response = render(
        request, "annotation/item.html#editor", context, status=422 if error.status == 400 else error.status
    )
    response["HX-Retarget"] = "#editor"
    response["HX-Reswap"] = "outerHTML"
    return response


def _raise_access(exc: ApplicationError) -> None:
    """Not found and not allowed are answered as such (404 / 403), not as form errors."""
    if isinstance(exc, NotFound):
        raise Http404(exc.message) from None
    if isinstance(exc, Forbidden):
        raise PermissionDenied(exc.message) from None


def _int_or_none(value: str | None, field: str) -> int | None:
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        raise ValidationFailed.from_fields({field: [f"Must be a whole number, got {value!r}."]}) from None


def _span_fields(request: HttpRequest, question: Question) -> dict[str, Any]:
    """The editor's fields as service arguments: target, offsets (or a quote to find), and the rest."""
    post = request.POST
    target = post.get("target", "")
    whole = post.get("whole_answer") == "on"
    fields: dict[str, Any] = {
        "category": post.get("category", ""),
        "justification": post.get("justification", ""),
        "references": [line.strip() for line in post.get("references", "").splitlines() if line.strip()],
        "helpful": {"yes": True, "no": False}.get(post.get("helpful", "")),
        "whole_answer": whole,
    }
    if fields["category"] != ErrorCategory.REFERENCES:
        fields["helpful"] = None
    if target == "q":
        fields["question"], text = question, question.text
    elif target.startswith("a") and target[1:].isdigit():
        answer = question.answers.filter(pk=int(target[1:])).first()
        if answer is None:
            raise ValidationFailed.from_fields({"target": ["Choose the question or one of its answers."]})
        fields["answer"], text = answer, answer.text
    else:
        raise ValidationFailed.from_fields({"target": ["Select text in the question or an answer first."]})
    if whole:
        fields["start"] = fields["end"] = None
        return fields
    start, end = _int_or_none(post.get("start"), "start"), _int_or_none(post.get("end"), "end")
    quote = post.get("quote", "")
    if start is None and end is None and quote:
        # Keyboard: the expert typed the text instead of selecting it; take its first occurrence.
        found = text.find(quote)
        if found < 0:
            raise ValidationFailed.from_fields(
                {"quote": ["This text is not in the chosen question or answer."]}
            )
        start, end = found, found + len(quote)
    fields.update(start=start, end=end, quote=quote or None)
    return fields


def _span(request: HttpRequest, question: Question, span_id: int) -> ErrorSpan:
    visible = selectors.span_list(user=request.user).filter(pk=span_id)
    span = visible.filter(question=question).first() or visible.filter(answer__question=question).first()
    if span is None:
        raise Http404("No such span.")
    return span


@require_POST
def span_save(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Create a span, or change one when the editor holds a span id and the version the expert saw."""
    project, role = _project(request, slug)
    question = _question(request, project, pk)
    try:
        span_id = _int_or_none(request.POST.get("span_id"), "span_id")
        fields = _span_fields(request, question)
        if span_id is None:
            services.span_create(actor=request.user, **fields)
        else:
            span = _span(request, question, span_id)
            version = _int_or_none(request.POST.get("version"), "version")
            if version is None:
                raise ValidationFailed.from_fields({"version": ["Missing: reload the page."]})
            changes = {k: v for k, v in fields.items() if k not in ("question", "answer")}
            services.span_update(actor=request.user, span=span, version=version, **changes)
    except ApplicationError as exc:
        _raise_access(exc)
        return _editor_errors(request, project, role, question, exc)
    return _workspace(request, project, role, question)


@require_POST
def span_delete(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    project, role = _project(request, slug)
    question = _question(request, project, pk)
    try:
        span_id = _int_or_none(request.POST.get("span_id"), "span_id")
        if span_id is None:
            raise ValidationFailed.from_fields({"span_id": ["Choose a span to delete."]})
        span = _span(request, question, span_id)
        services.span_delete(
            actor=request.user, span=span, version=_int_or_none(request.POST.get("version"), "version")
        )
    except ApplicationError as exc:
        _raise_access(exc)
        return _editor_errors(request, project, role, question, exc)
    return _workspace(request, project, role, question)


@require_POST
def preference_save(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Autosaved from the preference form; answers with its message box (empty when saved)."""
    project, _ = _project(request, slug)
    question = _question(request, project, pk)
    choice = request.POST.get("preferred_answer", "")
    answer = question.answers.filter(pk=int(choice)).first() if choice.isdigit() else None
    errors: dict[str, list[str]] = {}
    try:
        if answer is None:
            raise ValidationFailed.from_fields({"preferred_answer": ["Choose the answer you prefer."]})
        services.preference_set(
            actor=request.user,
            question=question,
            preferred_answer=answer,
            reason=request.POST.get("reason", ""),
        )
    except ApplicationError as exc:
        _raise_access(exc)
        errors = exc.extra if isinstance(exc, ValidationFailed) else {"__all__": [exc.message]}
    return render(
        request,
        "annotation/_preference_errors.html",
        {"preference_errors": errors},
        status=422 if errors else 200,
    )


@require_POST
def item_submit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    project, role = _project(request, slug)
    question = _question(request, project, pk)
    try:
        services.assignment_submit(actor=request.user, question=question)
    except ApplicationError as exc:
        _raise_access(exc)
        context = item_context(request, project, role, question.pk) | {"submit_error": exc}
        if not request.htmx:
            context["guidelines"] = guidelines_html(project)
            return render(request, "annotation/item.html", context, status=422)
        return render(request, "annotation/item.html#submit", context, status=422)
    url = reverse("web:queue-next", kwargs={"slug": project.slug})
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


@require_POST
def item_time(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    project, _ = _project(request, slug)
    question = _question(request, project, pk)
    try:
        seconds = _int_or_none(request.POST.get("seconds"), "seconds") or 0
        services.assignment_add_time(actor=request.user, question=question, seconds=seconds)
    except ApplicationError as exc:
        _raise_access(exc)
        return HttpResponse(exc.message, status=400, content_type="text/plain")
    return HttpResponse(status=204)


@require_POST
def member_add(request: HttpRequest, slug: str) -> HttpResponse:
    """Managers add an existing account to the project, and give annotators every item."""
    from django.contrib import messages
    from django.contrib.auth import get_user_model

    project, _ = _project(request, slug)
    user = get_user_model().objects.filter(username=request.POST.get("username", "").strip()).first()
    try:
        if user is None:
            raise ValidationFailed.from_fields({"username": ["No account with that user name."]})
        services.membership_set(
            actor=request.user, project=project, user=user, role=request.POST.get("role", "")
        )
        added = 0
        if request.POST.get("assign") == "on" and permissions.can_annotate(
            permissions.role_for(user, project)
        ):
            added = services.assignments_create(actor=request.user, project=project, user=user)
        messages.success(request, f"{user.username} is {request.POST.get('role')}; {added} items assigned.")
    except ApplicationError as exc:
        _raise_access(exc)
        details = " ".join(m for ms in exc.extra.values() for m in ms) if exc.extra else ""
        messages.error(request, f"{exc.message} {details}".strip())
    return redirect("web:project-detail", slug=project.slug)


@require_POST
def project_settings(request: HttpRequest, slug: str) -> HttpResponse:
    project, _ = _project(request, slug)
    try:
        services.project_update_settings(
            actor=request.user,
            project=project,
            blind=request.POST.get("blind") == "on",
            guidelines=request.POST.get("guidelines", ""),
        )
    except ApplicationError as exc:
        _raise_access(exc)
        raise
    return redirect("web:project-detail", slug=project.slug)


DEFAULT_GUIDELINES = """\
### What to do

Read the question, then both answers, before marking anything. Answers are shown as plain text; one may
be written by a person and one by a model, and you are not told which.

Select the words an error is about, pick its category, and **always write why** — a span without a
justification cannot be saved.

1. **Question misconception** (on the question): the question assumes something false or confused.
   Say what the false premise is.
2. **Factuality**: a statement that is wrong, or that you cannot support. Say what is wrong and, where
   you can, give a source.
3. **Relevance**: text that does not help answer the question; the answer would lose nothing without it.
4. **Completeness**: a part that needs more explanation to be understood. If information is missing from
   the answer as a whole, use *Information is missing* on that answer and say what is missing.
5. **References**: an example, analogy or link. Say whether it helps to understand the answer.

Finally, choose the answer you prefer and explain your choice in a few sentences. Then submit: the next
item opens.

### Keyboard

`1`–`5` category · `Enter` save · `Esc` cancel · `/` type the text to mark instead of selecting it ·
`n` next item · `?` all shortcuts.
"""
