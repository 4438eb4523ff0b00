"""Pages. Every view needs login (the middleware); outside the user's projects everything is 404."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from annotation import permissions, selectors, services
from annotation.choices import FINISHED_RUN_STATUSES, AnswerKind, Role, RunKind
from annotation.errors import ApplicationError, Forbidden
from annotation.models import Membership, Project, Run
from annotation.services import runs
from annotation.services.datasets import EXPORTERS, NEEDS_RUN, RUN_EXPORTS, export_response
from annotation.web.forms import ImportForm
from annotation.web.workspace import marked_text


def project_list(request: HttpRequest) -> HttpResponse:
    projects = list(selectors.project_list(user=request.user))
    roles = permissions.roles_by_project(request.user)
    me = request.user.get_username()
    rows = [
        (project, roles.get(project.pk), (project.progress.get("annotators") or {}).get(me))
        for project in projects
    ]
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
        "import_form": ImportForm() if permissions.can_manage(role) else None,
        "export_formats": sorted(set(EXPORTERS) - NEEDS_RUN) if permissions.can_export(role, project) else [],
        "runs": Run.objects.filter(project=project).order_by("-created_at")[:10],
        "can_annotate": permissions.can_annotate(role),
        "run_methods": runs.METHOD_CHOICES if permissions.can_manage(role) else None,
        "run_variants": runs.VARIANTS,
        "endpoints": list(project.endpoints.values_list("name", flat=True))
        if permissions.can_manage(role)
        else [],
        "answer_kinds": AnswerKind.choices,
        "my_progress": (project.progress.get("annotators") or {}).get(request.user.get_username()),
    }
    template = "annotation/project_detail.html" + ("#question-table" if request.htmx else "")
    return render(request, template, context)


def _project_for(request: HttpRequest, slug: str) -> tuple[Project, str | None]:
    project = get_object_or_404(selectors.project_list(user=request.user), slug=slug)
    return project, permissions.role_for(request.user, project)


@require_POST
def project_import(request: HttpRequest, slug: str) -> HttpResponse:
    project, role = _project_for(request, slug)
    if not permissions.can_manage(role):
        raise PermissionDenied("Only managers import datasets.")
    form = ImportForm(request.POST, request.FILES)
    report = error = None
    if form.is_valid():
        try:
            result = services.dataset_import_upload(
                actor=request.user,
                project=project,
                format=form.cleaned_data["format"],
                upload=form.cleaned_data["file"],
                skip_bad_rows=form.cleaned_data["skip_bad_rows"],
            )
        except ApplicationError as exc:
            error = exc
        else:
            if isinstance(result, Run):
                return redirect("web:run-detail", slug=project.slug, pk=result.pk)
            report = result.as_dict()
    status = 200 if report else 400
    return render(
        request,
        "annotation/import_result.html",
        {"project": project, "form": form, "report": report, "error": error},
        status=status,
    )


def project_export(request: HttpRequest, slug: str, format: str) -> HttpResponse:
    project, _ = _project_for(request, slug)
    if format not in EXPORTERS:
        raise Http404("No such export format.")
    run = None
    if request.GET.get("run"):
        run = (
            Run.objects.filter(project=project, pk=request.GET["run"]).first()
            if request.GET["run"].isdigit()
            else None
        )
        if run is None:
            raise Http404("No such run in this project.")
    try:
        chunks = services.dataset_export_for(actor=request.user, project=project, format=format, run=run)
    except Forbidden as exc:
        raise PermissionDenied(exc.message) from None
    except ApplicationError as exc:
        return render(
            request, "annotation/error.html", {"project": project, "message": exc.message}, status=400
        )
    return export_response(chunks, project=project, format=format)


def run_detail(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    project, role = _project_for(request, slug)
    run = get_object_or_404(Run.objects.filter(project=project).select_related("created_by"), pk=pk)
    context = {
        "project": project,
        "run": run,
        "finished": run.status in FINISHED_RUN_STATUSES,
        "can_cancel": permissions.can_manage(role) and run.status not in FINISHED_RUN_STATUSES,
        "run_exports": sorted(RUN_EXPORTS)
        if permissions.can_export(role, project) and run.kind != "import"
        else [],
    }
    if run.kind == RunKind.VERIFY:
        answers = runs.run_answers(run=run, limit=50)
        for entry in answers:  # the citations, marked in the answer text
            entry["html"] = marked_text(
                entry["answer"].text, [(i, s, e, "hl-citation") for i, s, e in entry["cited"]]
            )
        context |= {
            "report": runs.run_report(run=run),
            "cost": runs.estimated_cost(run),
            "answers": answers,
            "elapsed": round(((run.finished_at or timezone.now()) - run.started_at).total_seconds(), 1)
            if run.started_at
            else None,
        }
    template = "annotation/run_detail.html" + ("#run-status" if request.htmx else "")
    return render(request, template, context)


@require_POST
def run_cancel(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    project, _ = _project_for(request, slug)
    run = get_object_or_404(Run.objects.filter(project=project), pk=pk)
    try:
        runs.run_cancel(actor=request.user, run=run)
    except Forbidden as exc:
        raise PermissionDenied(exc.message) from None
    except ApplicationError:
        pass  # already finished: the page shows how it ended
    return redirect("web:run-detail", slug=project.slug, pk=run.pk)


@require_POST
def run_create(request: HttpRequest, slug: str) -> HttpResponse:
    project, _ = _project_for(request, slug)
    try:
        run = runs.run_start(
            actor=request.user,
            project=project,
            method=request.POST.get("method", ""),
            variant=request.POST.get("variant", "tf"),
            citation=request.POST.get("citation") == "on",
            answer_kinds=request.POST.getlist("answers") or None,
            passage=request.POST.get("passage", ""),
            endpoint=request.POST.get("endpoint") or None,
        )
    except Forbidden as exc:
        raise PermissionDenied(exc.message) from None
    except ApplicationError as exc:
        details = " ".join(m for ms in exc.extra.values() for m in ms) if exc.extra else ""
        return render(
            request,
            "annotation/error.html",
            {"project": project, "message": f"{exc.message} {details}"},
            status=400,
        )
    return redirect("web:run-detail", slug=project.slug, pk=run.pk)


@require_POST
def endpoint_save(request: HttpRequest, slug: str) -> HttpResponse:
    """Managers add or change a named LLM endpoint of the project."""
    from django.contrib import messages

    project, _ = _project_for(request, slug)
    post = request.POST
    try:
        endpoint = runs.endpoint_save(
            actor=request.user,
            project=project,
            name=post.get("name", "").strip(),
            base_url=post.get("base_url", "").strip(),
            model_name=post.get("model_name", "").strip(),
            api_key_env=post.get("api_key_env", "").strip(),
            max_concurrency=int(post.get("max_concurrency") or 4),
            requests_per_minute=int(post.get("requests_per_minute") or 0),
            supports_tools=post.get("supports_tools") == "on",
        )
        messages.success(request, f"Endpoint {endpoint.name} saved.")
    except Forbidden as exc:
        raise PermissionDenied(exc.message) from None
    except ValueError:
        messages.error(request, "Concurrency and requests per minute are whole numbers.")
    except ApplicationError as exc:
        details = " ".join(f"{k}: {' '.join(v)}" for k, v in exc.extra.items()) if exc.extra else ""
        messages.error(request, f"{exc.message} {details}".strip())
    return redirect("web:project-detail", slug=project.slug)
