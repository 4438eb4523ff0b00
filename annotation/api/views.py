"""API views: a few lines around one selector or one service call each."""

from __future__ import annotations

from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import permissions, selectors, services
from annotation.api import serializers as s
from annotation.errors import NotFound, ValidationFailed
from annotation.models import Run
from annotation.services.datasets import EXPORTERS, export_response


def _int_param(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise ValidationFailed.from_fields({name: [f"Must be an integer id, got {raw!r}."]}) from None


def _filter_param(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, int, description=description, required=False)


class _ReadViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """List and retrieve, with the user's roles in the serializer context (one query per request)."""

    filters: dict[str, str] = {}

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()
        if not hasattr(self, "_roles"):
            self._roles = permissions.roles_by_project(self.request.user)
        context["roles"] = self._roles
        return context

    def filter_queryset(self, queryset: Any) -> Any:
        for param, lookup in self.filters.items():
            value = _int_param(self.request, param)
            if value is not None:
                queryset = queryset.filter(**{lookup: value})
        return queryset


@extend_schema_view(
    list=extend_schema(summary="Your projects"), retrieve=extend_schema(summary="One project")
)
class ProjectViewSet(_ReadViewSet):
    serializer_class = s.ProjectSerializer

    def get_queryset(self) -> Any:
        return selectors.project_list(user=self.request.user)

    @extend_schema(
        summary="Import a dataset file (managers)",
        description="Small files are imported at once (200, the report); large ones by a worker "
        "(202, the run: "
        "poll /api/runs/{id}/, whose result holds the report). All or nothing unless skip_bad_rows.",
        request={"multipart/form-data": s.ImportInputSerializer},
        responses={200: s.ImportReportSerializer, 202: s.RunSerializer, 400: s.ErrorSerializer},
    )
    @action(detail=True, methods=["post"], parser_classes=[MultiPartParser], url_path="imports")
    def imports(self, request: Request, pk: str | None = None) -> Response:
        project = self.get_object()
        data = s.ImportInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.dataset_import_upload(
            actor=request.user,
            project=project,
            format=data.validated_data["format"],
            upload=data.validated_data["file"],
            skip_bad_rows=data.validated_data["skip_bad_rows"],
        )
        if isinstance(result, Run):
            return Response(s.RunSerializer(result).data, status=status.HTTP_202_ACCEPTED)
        return Response(result.as_dict())

    @extend_schema(
        summary="Download the project in a dataset format (streamed; reviewers and managers)",
        parameters=[
            OpenApiParameter("name", str, OpenApiParameter.PATH, enum=sorted(EXPORTERS)),
            _filter_param("run", "Add this run's output (required for the *-output formats)."),
        ],
        responses={(200, "text/tab-separated-values"): OpenApiTypes.STR, 404: s.ErrorSerializer},
    )
    @action(detail=True, methods=["get"], url_path=r"export/(?P<name>[a-z-]+)")
    def export(self, request: Request, pk: str | None = None, name: str = "") -> StreamingHttpResponse:
        project = self.get_object()
        if name not in EXPORTERS:
            raise NotFound(f"No export format {name!r}; use one of: {', '.join(sorted(EXPORTERS))}.")
        run = None
        run_id = _int_param(request, "run")
        if run_id is not None:
            run = Run.objects.filter(project=project, pk=run_id).first()
            if run is None:
                raise NotFound(f"No run {run_id} in this project.")
        chunks = services.dataset_export_for(actor=request.user, project=project, format=name, run=run)
        return export_response(chunks, project=project, format=name)


@extend_schema_view(
    list=extend_schema(
        summary="Questions with their answers",
        parameters=[_filter_param("project", "Only this project's questions.")],
    ),
    retrieve=extend_schema(summary="One question with its answers"),
)
class QuestionViewSet(_ReadViewSet):
    serializer_class = s.QuestionSerializer
    filters = {"project": "project_id"}

    def get_queryset(self) -> Any:
        return selectors.question_list(user=self.request.user)


@extend_schema_view(
    list=extend_schema(
        summary="Answers", parameters=[_filter_param("question", "Only this question's answers.")]
    ),
    retrieve=extend_schema(summary="One answer"),
)
class AnswerViewSet(_ReadViewSet):
    serializer_class = s.AnswerSerializer
    filters = {"question": "question_id"}

    def get_queryset(self) -> Any:
        return selectors.answer_list(user=self.request.user)


@extend_schema_view(
    list=extend_schema(
        summary="Error spans you may see",
        parameters=[
            _filter_param("question", "Spans on this question or on its answers."),
            _filter_param("answer", "Spans on this answer."),
        ],
    ),
    retrieve=extend_schema(summary="One error span"),
    create=extend_schema(
        summary="Create a span",
        request=s.SpanCreateSerializer,
        responses={201: s.SpanSerializer, 400: s.ErrorSerializer},
    ),
    partial_update=extend_schema(
        summary="Change your span (send the version you saw)",
        request=s.SpanUpdateSerializer,
        responses={200: s.SpanSerializer, 400: s.ErrorSerializer, 409: s.ErrorSerializer},
    ),
    destroy=extend_schema(
        summary="Delete your span",
        parameters=[_filter_param("version", "If given, 409 unless the span is at it.")],
        responses={204: None, 409: s.ErrorSerializer},
    ),
)
class SpanViewSet(mixins.CreateModelMixin, mixins.UpdateModelMixin, mixins.DestroyModelMixin, _ReadViewSet):
    serializer_class = s.SpanSerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self) -> Any:
        return selectors.span_list(user=self.request.user)

    def filter_queryset(self, queryset: Any) -> Any:
        question = _int_param(self.request, "question")
        if question is not None:
            queryset = queryset.filter(question_id=question) | queryset.filter(answer__question_id=question)
        answer = _int_param(self.request, "answer")
        if answer is not None:
            queryset = queryset.filter(answer_id=answer)
        return queryset

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = s.SpanCreateSerializer(data=request.data, context=self.get_serializer_context())
        data.is_valid(raise_exception=True)
        span = services.span_create(actor=request.user, **data.validated_data)
        return Response(s.SpanSerializer(span).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        span = self.get_object()
        data = s.SpanUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        changes = dict(data.validated_data)
        version = changes.pop("version")
        span = services.span_update(actor=request.user, span=span, version=version, **changes)
        return Response(s.SpanSerializer(span).data)

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.partial_update(request, *args, **kwargs)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        span = self.get_object()
        services.span_delete(actor=request.user, span=span, version=_int_param(request, "version"))
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_view(
    list=extend_schema(
        summary="Answer preferences you may see",
        parameters=[_filter_param("question", "Preferences on this question.")],
    ),
    retrieve=extend_schema(summary="One preference"),
    create=extend_schema(
        summary="Set your preference for a question (creates or replaces)",
        request=s.PreferenceInputSerializer,
        responses={200: s.PreferenceSerializer, 400: s.ErrorSerializer, 409: s.ErrorSerializer},
    ),
    destroy=extend_schema(summary="Withdraw your preference"),
)
class PreferenceViewSet(mixins.CreateModelMixin, mixins.DestroyModelMixin, _ReadViewSet):
    serializer_class = s.PreferenceSerializer
    filters = {"question": "question_id"}

    def get_queryset(self) -> Any:
        return selectors.preference_list(user=self.request.user)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = s.PreferenceInputSerializer(data=request.data, context=self.get_serializer_context())
        data.is_valid(raise_exception=True)
        preference = services.preference_set(actor=request.user, **data.validated_data)
        return Response(s.PreferenceSerializer(preference).data, status=status.HTTP_200_OK)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        services.preference_delete(actor=request.user, preference=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_view(
    list=extend_schema(
        summary="Verdicts you may see (human and model)",
        parameters=[
            _filter_param("atom", "Verdicts on this atom."),
            _filter_param("target", "Verdicts against this answer."),
            _filter_param("run", "Verdicts of this run."),
        ],
    ),
    retrieve=extend_schema(summary="One verdict"),
    create=extend_schema(
        summary="Set your verdict on an atom (creates or replaces)",
        request=s.VerdictInputSerializer,
        responses={200: s.VerdictSerializer, 400: s.ErrorSerializer, 409: s.ErrorSerializer},
    ),
    destroy=extend_schema(summary="Withdraw your verdict"),
)
class VerdictViewSet(mixins.CreateModelMixin, mixins.DestroyModelMixin, _ReadViewSet):
    serializer_class = s.VerdictSerializer
    filters = {"atom": "atom_id", "target": "target_id", "run": "run_id"}

    def get_queryset(self) -> Any:
        return selectors.verdict_list(user=self.request.user)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = s.VerdictInputSerializer(data=request.data, context=self.get_serializer_context())
        data.is_valid(raise_exception=True)
        verdict = services.verdict_set_human(actor=request.user, **data.validated_data)
        return Response(s.VerdictSerializer(verdict).data, status=status.HTTP_200_OK)

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        services.verdict_delete_human(actor=request.user, verdict=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_view(
    list=extend_schema(
        summary="Background runs", parameters=[_filter_param("project", "Only this project's runs.")]
    ),
    retrieve=extend_schema(summary="One run"),
)
class RunViewSet(mixins.CreateModelMixin, _ReadViewSet):
    serializer_class = s.RunSerializer
    filters = {"project": "project_id"}

    def get_queryset(self) -> Any:
        return selectors.run_list(user=self.request.user)

    @extend_schema(
        summary="Start a verification run (managers)",
        request=s.RunInputSerializer,
        responses={201: s.RunSerializer, 400: s.ErrorSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = s.RunInputSerializer(data=request.data, context=self.get_serializer_context())
        data.is_valid(raise_exception=True)
        values = data.validated_data
        run = services.run_start(
            actor=request.user,
            project=values["project"],
            method=values["method"],
            variant=values["variant"],
            citation=values["citation"],
            answer_kinds=values["answer_kinds"] or None,
            use_cache=values["cache"],
            passage=values["passage"],
            endpoint=values["endpoint"] or None,
            revise_atoms=values["revise"],
        )
        return Response(s.RunSerializer(run).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Cancel a run (managers)",
        request=None,
        responses={200: s.RunSerializer, 409: s.ErrorSerializer},
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request: Request, pk: str | None = None) -> Response:
        run = services.run_cancel(actor=request.user, run=self.get_object())
        return Response(s.RunSerializer(run).data)
