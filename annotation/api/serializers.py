"""One output serializer per resource and one input serializer per write. Inputs check shapes and
that referenced ids are visible to the user; the services check everything against the data."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from annotation import permissions
from annotation.choices import AnswerKind, Role
from annotation.models import Answer, Atom, ErrorSpan, Preference, Project, Question, Run, Verdict
from annotation.services.datasets import IMPORTERS


class ProjectSerializer(serializers.ModelSerializer):
    role = serializers.SerializerMethodField(help_text="Your role in this project.")

    class Meta:
        model = Project
        fields = [
            "id",
            "name",
            "slug",
            "description",
            "guidelines",
            "blind",
            "role",
            "progress",
            "progress_updated_at",
            "created_at",
        ]
        read_only_fields = fields

    def get_role(self, obj: Project) -> str | None:
        return self.context["roles"].get(obj.pk)


class AnswerSerializer(serializers.ModelSerializer):
    kind = serializers.CharField(allow_null=True, help_text="Hidden (null) from annotators.")
    model_name = serializers.CharField(allow_null=True, help_text="Hidden (null) from annotators.")

    class Meta:
        model = Answer
        fields = ["id", "question", "text", "kind", "model_name", "position", "parent", "created_at"]
        read_only_fields = fields

    def to_representation(self, instance: Answer) -> dict[str, Any]:
        data = super().to_representation(instance)
        # HaluQuestQA's set-up: annotators judge answers without knowing who wrote them.
        if self.context["roles"].get(instance.question.project_id) == Role.ANNOTATOR:
            data["kind"] = None
            data["model_name"] = None
        return data


class QuestionSerializer(serializers.ModelSerializer):
    answers = AnswerSerializer(many=True, read_only=True)

    class Meta:
        model = Question
        fields = [
            "id",
            "project",
            "external_id",
            "text",
            "category",
            "source_file",
            "metadata",
            "answers",
            "created_at",
        ]
        read_only_fields = fields


class SpanSerializer(serializers.ModelSerializer):
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = ErrorSpan
        fields = [
            "id",
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
            "confidence",
            "version",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class _VisibleMixin:
    """Restrict every related-id field to rows in the requesting user's projects."""

    visible: dict[str, Any] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        if request is None:  # schema generation: the field types are all that matter
            return
        user = request.user
        projects = permissions.projects_visible(user)
        querysets = {
            "question": Question.objects.filter(project__in=projects),
            "answer": Answer.objects.filter(question__project__in=projects),
            "atom": Atom.objects.filter(answer__question__project__in=projects),
        }
        for name, field in self.fields.items():
            model_key = self.visible.get(name)
            if model_key:
                field.queryset = querysets[model_key]


class SpanCreateSerializer(_VisibleMixin, serializers.Serializer):
    visible = {"question": "question", "answer": "answer"}

    question = serializers.PrimaryKeyRelatedField(
        queryset=Question.objects.none(), required=False, allow_null=True
    )
    answer = serializers.PrimaryKeyRelatedField(
        queryset=Answer.objects.none(), required=False, allow_null=True
    )
    start = serializers.IntegerField(required=False, allow_null=True, help_text="Code points into the text.")
    end = serializers.IntegerField(required=False, allow_null=True, help_text="Code points, exclusive.")
    quote = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        trim_whitespace=False,
        help_text="If given, must equal text[start:end].",
    )
    category = serializers.CharField()
    justification = serializers.CharField(allow_blank=True, trim_whitespace=False)
    references = serializers.ListField(
        child=serializers.CharField(allow_blank=True), required=False, default=list
    )
    helpful = serializers.BooleanField(required=False, allow_null=True, default=None)
    whole_answer = serializers.BooleanField(required=False, default=False)


class SpanUpdateSerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="The version you last saw; a stale one gives 409.")
    start = serializers.IntegerField(required=False, allow_null=True)
    end = serializers.IntegerField(required=False, allow_null=True)
    quote = serializers.CharField(required=False, allow_null=True, allow_blank=True, trim_whitespace=False)
    category = serializers.CharField(required=False)
    justification = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    references = serializers.ListField(child=serializers.CharField(allow_blank=True), required=False)
    helpful = serializers.BooleanField(required=False, allow_null=True)
    whole_answer = serializers.BooleanField(required=False)


class PreferenceSerializer(serializers.ModelSerializer):
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Preference
        fields = [
            "id",
            "question",
            "annotator",
            "preferred_answer",
            "reason",
            "version",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class PreferenceInputSerializer(_VisibleMixin, serializers.Serializer):
    visible = {"question": "question", "preferred_answer": "answer"}

    question = serializers.PrimaryKeyRelatedField(queryset=Question.objects.none())
    preferred_answer = serializers.PrimaryKeyRelatedField(queryset=Answer.objects.none())
    reason = serializers.CharField(allow_blank=True, trim_whitespace=False)
    version = serializers.IntegerField(required=False, allow_null=True, default=None)


class VerdictSerializer(serializers.ModelSerializer):
    annotator = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Verdict
        fields = [
            "id",
            "atom",
            "target",
            "passage",
            "source",
            "annotator",
            "run",
            "label",
            "raw_value",
            "probability",
            "evidence_quote",
            "evidence_start",
            "evidence_end",
            "rationale",
            "valid",
            "version",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class VerdictInputSerializer(_VisibleMixin, serializers.Serializer):
    visible = {"atom": "atom", "target": "answer"}

    atom = serializers.PrimaryKeyRelatedField(queryset=Atom.objects.none())
    target = serializers.PrimaryKeyRelatedField(queryset=Answer.objects.none(), allow_null=True)
    label = serializers.CharField()
    rationale = serializers.CharField(required=False, allow_blank=True, default="")
    evidence_quote = serializers.CharField(
        required=False, allow_blank=True, default="", trim_whitespace=False
    )
    version = serializers.IntegerField(required=False, allow_null=True, default=None)


class RunSerializer(serializers.ModelSerializer):
    class Meta:
        model = Run
        fields = [
            "id",
            "project",
            "kind",
            "method",
            "variant",
            "endpoint",
            "model_name",
            "prompt_version",
            "parameters",
            "status",
            "items_total",
            "items_done",
            "items_failed",
            "items_na",
            "llm_calls",
            "cache_hits",
            "prompt_tokens",
            "completion_tokens",
            "error",
            "result",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class ErrorSerializer(serializers.Serializer):
    """The shape of every error response."""

    message = serializers.CharField()
    code = serializers.CharField()
    extra = serializers.DictField()


class ImportInputSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=sorted(IMPORTERS))
    file = serializers.FileField()
    skip_bad_rows = serializers.BooleanField(required=False, default=False)


class ImportReportSerializer(serializers.Serializer):
    format = serializers.CharField()
    rows = serializers.IntegerField()
    imported = serializers.IntegerField()
    already_present = serializers.IntegerField()
    skipped = serializers.ListField(child=serializers.DictField(), help_text="{row, column, message} each.")
    spans = serializers.DictField(
        child=serializers.IntegerField(), help_text="exact, loose, unlocated, whole_answer"
    )
    preferences = serializers.IntegerField()


class RunInputSerializer(serializers.Serializer):
    project = serializers.PrimaryKeyRelatedField(queryset=Project.objects.none())
    method = serializers.ChoiceField(
        choices=["faaf", "prompt", "atomize", "facts"],
        help_text="faaf / prompt verify facts; atomize makes atomic facts; facts makes reference facts.",
    )
    variant = serializers.ChoiceField(choices=["tf", "tfn"], default="tf")
    citation = serializers.BooleanField(default=False)
    answer_kinds = serializers.ListField(
        child=serializers.ChoiceField(choices=AnswerKind.values), required=False, default=list
    )
    cache = serializers.BooleanField(
        default=True, help_text="Reuse cached LLM calls (a re-run then costs nothing)."
    )
    passage = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        trim_whitespace=False,
        help_text="Precision set-up: verify each answer's own atoms against this text.",
    )
    revise = serializers.BooleanField(default=False, help_text="atomize: revise atoms to stand on their own.")
    endpoint = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        help_text="offline, default (LLM_BASE_URL) or the name of one of the project's endpoints.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")
        if request is not None:
            self.fields["project"].queryset = permissions.projects_visible(request.user)
