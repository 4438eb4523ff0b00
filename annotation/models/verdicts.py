"""Verdicts: whether an atom is supported, by whom (an expert or a run)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.choices import Source, VerdictLabel


class Verdict(models.Model):
    """The judgement that an atom is supported by a target answer (or by evidence, when no target)."""

    atom = models.ForeignKey("annotation.Atom", on_delete=models.CASCADE, related_name="verdicts")
    target = models.ForeignKey(
        "annotation.Answer",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="verdicts",
        help_text="The answer the atom is checked against; empty when checked against evidence.",
    )
    passage = models.ForeignKey(
        "annotation.Passage", null=True, blank=True, on_delete=models.SET_NULL, related_name="verdicts"
    )
    source = models.CharField(max_length=10, choices=Source.choices)
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="verdicts"
    )
    run = models.ForeignKey(
        "annotation.Run", null=True, blank=True, on_delete=models.CASCADE, related_name="verdicts"
    )
    # NULL, not "", marks N/A: the output could not be parsed, so there is no label at all.
    label = models.CharField(max_length=20, choices=VerdictLabel.choices, null=True, blank=True)  # noqa: DJ001
    raw_value = models.TextField(blank=True, help_text='As the method returned it, e.g. "not clear ...".')
    probability = models.FloatField(null=True, blank=True)
    evidence_quote = models.TextField(blank=True)
    evidence_start = models.PositiveIntegerField(null=True, blank=True)
    evidence_end = models.PositiveIntegerField(null=True, blank=True)
    rationale = models.TextField(blank=True)
    valid = models.BooleanField(default=True, help_text="False when the output could not be parsed (N/A).")
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(source=Source.HUMAN, annotator__isnull=False, run__isnull=True)
                | Q(source=Source.MODEL, run__isnull=False, annotator__isnull=True),
                name="verdict_source_matches_author",
            ),
            models.CheckConstraint(
                condition=Q(valid=False, label__isnull=True) | Q(valid=True, label__in=VerdictLabel.values),
                name="verdict_valid_has_label",
            ),
            models.CheckConstraint(
                condition=Q(probability__isnull=True) | Q(probability__gte=0, probability__lte=1),
                name="verdict_probability_in_range",
            ),
            # One verdict per (run, atom, target) and per (annotator, atom, target): retries never duplicate.
            models.UniqueConstraint(
                fields=["run", "atom", "target"],
                condition=Q(run__isnull=False, target__isnull=False),
                name="verdict_one_per_run_atom_target",
            ),
            models.UniqueConstraint(
                fields=["run", "atom"],
                condition=Q(run__isnull=False, target__isnull=True),
                name="verdict_one_per_run_atom_evidence",
            ),
            models.UniqueConstraint(
                fields=["annotator", "atom", "target"],
                condition=Q(annotator__isnull=False, target__isnull=False),
                name="verdict_one_per_annotator_atom_target",
            ),
            models.UniqueConstraint(
                fields=["annotator", "atom"],
                condition=Q(annotator__isnull=False, target__isnull=True),
                name="verdict_one_per_annotator_atom_evidence",
            ),
        ]
        indexes = [
            models.Index(fields=["atom", "source"], name="verdict_atom_source"),
            models.Index(fields=["target", "source"], name="verdict_target_source"),
        ]

    def __str__(self) -> str:
        return f"{self.source} verdict #{self.pk}: {self.label or 'N/A'}"
