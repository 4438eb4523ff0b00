"""Projects, who belongs to them, and the questions and answers they hold."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotation.choices import AnswerKind, Role


class Project(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text="Markdown shown to annotators.")
    blind = models.BooleanField(
        default=True,
        help_text="Annotators never see another annotator's spans, preferences or verdicts.",
    )
    # Refreshed by the project_progress_refresh task; a cache of counts, never the source of truth.
    progress = models.JSONField(default=dict, blank=True)
    progress_updated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.ANNOTATOR)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "project"], name="membership_one_per_user_project"),
            models.CheckConstraint(condition=Q(role__in=Role.values), name="membership_role_valid"),
        ]
        indexes = [models.Index(fields=["project", "role"], name="membership_project_role")]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} as {self.role}"


class Question(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="questions")
    external_id = models.CharField(max_length=200, blank=True, help_text="The dataset's id for this item.")
    text = models.TextField()
    category = models.CharField(max_length=100, blank=True)
    source_file = models.CharField(max_length=300, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "external_id"],
                condition=~Q(external_id=""),
                name="question_external_id_unique_in_project",
            )
        ]
        indexes = [models.Index(fields=["project", "category"], name="question_project_category")]

    def __str__(self) -> str:
        return self.text[:80]


class Answer(models.Model):
    """An answer to a question. Its text is immutable once spans or atoms point into it."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="answers")
    text = models.TextField()
    kind = models.CharField(max_length=20, choices=AnswerKind.choices, default=AnswerKind.OTHER)
    model_name = models.CharField(max_length=200, blank=True)
    position = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="1, 2, ... in the dataset's display order."
    )
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="refinements"
    )
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["question_id", F("position").asc(nulls_last=True), "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["question", "position"],
                condition=Q(position__isnull=False),
                name="answer_position_unique_in_question",
            ),
            models.CheckConstraint(condition=Q(kind__in=AnswerKind.values), name="answer_kind_valid"),
        ]
        indexes = [models.Index(fields=["question", "kind"], name="answer_question_kind")]

    def __str__(self) -> str:
        return f"{self.kind} answer #{self.pk}"


class Assignment(models.Model):
    """An item (question) given to an annotator; submitted when they are done with it."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="assignments"
    )
    submitted_at = models.DateTimeField(null=True, blank=True)
    active_seconds = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["question", "annotator"], name="assignment_one_per_annotator"),
        ]
        indexes = [models.Index(fields=["annotator", "submitted_at"], name="assignment_annotator_queue")]

    def __str__(self) -> str:
        return f"question #{self.question_id} for user #{self.annotator_id}"


class KnowledgeSource(models.Model):
    """A named collection of passages (an uploaded corpus, or a dataset's contexts)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="knowledge_sources")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="knowledge_source_name_unique"),
        ]

    def __str__(self) -> str:
        return self.name


class Passage(models.Model):
    """A piece of evidence: a document or a retrieved snippet with its full text."""

    source = models.ForeignKey(KnowledgeSource, on_delete=models.CASCADE, related_name="passages")
    external_id = models.CharField(max_length=200, blank=True)
    title = models.CharField(max_length=500, blank=True)
    url = models.URLField(max_length=2000, blank=True)
    snippet = models.TextField(blank=True)
    text = models.TextField()
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "external_id"],
                condition=~Q(external_id=""),
                name="passage_external_id_unique_in_source",
            )
        ]

    def __str__(self) -> str:
        return self.title or f"passage #{self.pk}"
