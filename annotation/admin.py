"""Django admin for every model, with joins declared so list pages do not query per row."""

from django.contrib import admin

from annotation import models


@admin.register(models.Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "blind", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(models.Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "project", "role", "created_at"]
    list_filter = ["role", "project"]
    list_select_related = ["user", "project"]
    raw_id_fields = ["user", "project"]


@admin.register(models.Question)
class QuestionAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "external_id", "category", "short_text"]
    list_filter = ["project", "category"]
    list_select_related = ["project"]
    raw_id_fields = ["project"]
    search_fields = ["external_id", "text"]

    @admin.display(description="text")
    def short_text(self, obj: models.Question) -> str:
        return obj.text[:80]


@admin.register(models.Answer)
class AnswerAdmin(admin.ModelAdmin):
    list_display = ["id", "question", "kind", "model_name", "position"]
    list_filter = ["kind"]
    list_select_related = ["question"]
    raw_id_fields = ["question", "parent"]

    def get_readonly_fields(self, request, obj=None):  # noqa: ANN001, ANN201
        # Spans and atoms hold offsets into the text: once anything points into it, it is frozen.
        if obj is not None and (obj.spans.exists() or obj.atoms.exists()):
            return ["text"]
        return []


@admin.register(models.Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["id", "question", "annotator", "submitted_at", "active_seconds"]
    list_select_related = ["question", "annotator"]
    raw_id_fields = ["question", "annotator"]


@admin.register(models.Atom)
class AtomAdmin(admin.ModelAdmin):
    list_display = ["id", "answer", "position", "origin", "text"]
    list_filter = ["origin"]
    list_select_related = ["answer"]
    raw_id_fields = ["answer", "run"]


@admin.register(models.KnowledgeSource)
class KnowledgeSourceAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "created_at"]
    list_select_related = ["project"]
    raw_id_fields = ["project"]


@admin.register(models.Passage)
class PassageAdmin(admin.ModelAdmin):
    list_display = ["id", "source", "title", "url"]
    list_select_related = ["source"]
    raw_id_fields = ["source"]
    search_fields = ["title", "external_id"]


@admin.register(models.AtomContext)
class AtomContextAdmin(admin.ModelAdmin):
    list_display = ["id", "atom", "passage", "rank", "score", "run"]
    list_select_related = ["atom", "passage", "run"]
    raw_id_fields = ["atom", "passage", "run"]


@admin.register(models.ErrorSpan)
class ErrorSpanAdmin(admin.ModelAdmin):
    list_display = ["id", "category", "source", "annotator", "run", "question", "answer", "start", "end"]
    list_filter = ["category", "source", "location"]
    list_select_related = ["annotator", "run", "question", "answer"]
    raw_id_fields = ["question", "answer", "annotator", "run"]


@admin.register(models.Preference)
class PreferenceAdmin(admin.ModelAdmin):
    list_display = ["id", "question", "annotator", "preferred_answer"]
    list_select_related = ["question", "annotator", "preferred_answer"]
    raw_id_fields = ["question", "annotator", "preferred_answer"]


@admin.register(models.Verdict)
class VerdictAdmin(admin.ModelAdmin):
    list_display = ["id", "atom", "target", "source", "annotator", "run", "label", "valid"]
    list_filter = ["source", "label", "valid"]
    list_select_related = ["atom", "target", "annotator", "run"]
    raw_id_fields = ["atom", "target", "passage", "annotator", "run"]


@admin.register(models.Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["id", "project", "kind", "method", "variant", "model_name", "status", "created_at"]
    list_filter = ["kind", "status"]
    list_select_related = ["project", "created_by"]
    raw_id_fields = ["project", "created_by"]


@admin.register(models.LLMCall)
class LLMCallAdmin(admin.ModelAdmin):
    list_display = ["key", "model_name", "status", "prompt_tokens", "completion_tokens", "latency_ms"]
    list_select_related = ["run"]
    raw_id_fields = ["run"]


@admin.register(models.AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["created_at", "actor", "action", "object_type", "object_id", "project"]
    list_filter = ["action", "object_type"]
    list_select_related = ["actor", "project"]
    raw_id_fields = ["actor", "project"]


@admin.register(models.LLMEndpoint)
class LLMEndpointAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "model_name", "base_url", "max_concurrency", "requests_per_minute"]
    list_select_related = ["project"]
    raw_id_fields = ["project"]
