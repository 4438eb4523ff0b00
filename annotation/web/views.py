"""Pages. Every view needs login (the middleware); outside the user's projects everything is 404."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from annotation import permissions, selectors
from annotation.choices import Role
from annotation.models import Membership, Question


def project_list(request: HttpRequest) -> HttpResponse:
    projects = list(selectors.project_list(user=request.user))
    roles = permissions.roles_by_project(request.user)
    rows = [(project, roles.get(project.pk)) for project in projects]
    return render(request, "annotation/project_list.html", {"rows": rows})


def project_detail(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(selectors.project_list(user=request.user), slug=slug)
    role = permissions.role_for(request.user, project)
    page = Paginator(selectors.question_list(user=request.user, project=project), 50).get_page(
        request.GET.get("page")
    )
    members = None
    if permissions.can_manage(role):
        members = (
            Membership.objects.filter(project=project)
            .select_related("user")
            .order_by("role", "user__username")
        )
    context = {
        "project": project,
        "role": role,
        "page": page,
        "members": members,
        "hide_kind": role == Role.ANNOTATOR,
    }
    template = "annotation/project_detail.html" + ("#question-table" if request.htmx else "")
    return render(request, template, context)


def question_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    project = get_object_or_404(selectors.project_list(user=request.user), slug=slug)
    role = permissions.role_for(request.user, project)
    try:
        question, spans = selectors.question_detail(user=request.user, project=project, question_id=pk)
    except Question.DoesNotExist:
        raise Http404("No such question in this project.") from None
    answers = list(question.answers.all())
    spans_by_answer = {answer.pk: [] for answer in answers}
    question_spans = []
    for span in spans:
        (question_spans if span.question_id else spans_by_answer[span.answer_id]).append(span)
    context = {
        "project": project,
        "role": role,
        "question": question,
        "question_spans": question_spans,
        "answers": [(answer, spans_by_answer[answer.pk]) for answer in answers],
        "hide_kind": role == Role.ANNOTATOR,
    }
    return render(request, "annotation/question_detail.html", context)
