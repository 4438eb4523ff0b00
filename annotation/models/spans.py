"""Error spans and answer preferences."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from annotation.choices import ErrorCategory, Source, SpanLocation


class ErrorSpan(models.Model):
    """A highlighted error on a question or an answer (exactly one), in code points into its text."""

    question = models.ForeignKey(
        "annotation.Question", null=True, blank=True, on_delete=models.CASCADE, related_name="spans"
    )
    answer = models.ForeignKey(
        "annotation.Answer", null=True, blank=True, on_delete=models.CASCADE, related_name="spans"
    )
    start = models.PositiveIntegerField(null=True, blank=True)
    end = models.PositiveIntegerField(null=True, blank=True)
    quote = models.TextField(blank=True, help_text="text[start:end] of the target; as given when unlocated.")
    location = models.CharField(max_length=20, choices=SpanLocation.choices, default=SpanLocation.EXACT)
    category = models.CharField(max_length=30, choices=ErrorCategory.choices)
    justification = models.TextField()
    references = models.JSONField(default=list, blank=True, help_text="URLs the annotator cites.")
    helpful = models.BooleanField(null=True, blank=True, help_text="References spans only.")
    whole_answer = models.BooleanField(
        default=False, help_text="Completeness: information is missing from the answer as a whole."
    )
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.HUMAN)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="spans"
    )
    run = models.ForeignKey(
        "annotation.Run", null=True, blank=True, on_delete=models.CASCADE, related_name="spans"
    )
    confidence = models.FloatField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(question__isnull=False, answer__isnull=True)
                | Q(question__isnull=True, answer__isnull=False),
                name="span_exactly_one_target",
            ),
            models.CheckConstraint(
                condition=Q(start__isnull=True, end__isnull=True) | Q(start__gte=0, end__gt=F("start")),
                name="span_ordered",
            ),
            models.CheckConstraint(
                condition=Q(start__isnull=False) | Q(whole_answer=True) | Q(location=SpanLocation.UNLOCATED),
                name="span_located_or_whole_or_flagged",
            ),
            models.CheckConstraint(
                condition=Q(whole_answer=False)
                | Q(answer__isnull=False, start__isnull=True, category=ErrorCategory.COMPLETENESS),
                name="span_whole_answer_is_completeness",
            ),
            models.CheckConstraint(
                condition=Q(helpful__isnull=True) | Q(category=ErrorCategory.REFERENCES),
                name="span_helpful_only_on_references",
            ),
            models.CheckConstraint(
                condition=Q(category__in=ErrorCategory.values), name="span_category_valid"
            ),
            models.CheckConstraint(
                condition=Q(source=Source.HUMAN, annotator__isnull=False, run__isnull=True)
                | Q(source=Source.MODEL, run__isnull=False),
                name="span_source_matches_author",
            ),
            models.CheckConstraint(condition=~Q(justification=""), name="span_justification_required"),
        ]
        indexes = [
            models.Index(fields=["answer", "category"], name="span_answer_category"),
            models.Index(fields=["question", "category"], name="span_question_category"),
            models.Index(fields=["annotator", "created_at"], name="span_annotator_created"),
            models.Index(fields=["run"], name="span_run"),
        ]

    def __str__(self) -> str:
        return f"{self.category} span #{self.pk}"

    @property
    def target_text(self) -> str:
        return self.question.text if self.question_id else self.answer.text


class Preference(models.Model):
    """Which answer of a question an annotator prefers, and why."""

    question = models.ForeignKey("annotation.Question", on_delete=models.CASCADE, related_name="preferences")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preferences"
    )
    preferred_answer = models.ForeignKey(
        "annotation.Answer", on_delete=models.CASCADE, related_name="preferred_by"
    )
    reason = models.TextField()
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["question", "annotator"], name="preference_one_per_annotator"),
            models.CheckConstraint(condition=~Q(reason=""), name="preference_reason_required"),
        ]

    def __str__(self) -> str:
        return f"preference of user #{self.annotator_id} on question #{self.question_id}"
