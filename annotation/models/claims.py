"""Atomic facts and the evidence retrieved for them."""

from django.db import models
from django.db.models import F, Q

from annotation.choices import AtomOrigin


class Atom(models.Model):
    """One atomic fact: extracted from an answer, or a reference fact generated from a reference answer."""

    answer = models.ForeignKey("annotation.Answer", on_delete=models.CASCADE, related_name="atoms")
    run = models.ForeignKey(
        "annotation.Run", null=True, blank=True, on_delete=models.CASCADE, related_name="atoms"
    )
    position = models.PositiveIntegerField()
    text = models.TextField()
    original_text = models.TextField(blank=True, help_text="The text before revision (decontextualisation).")
    start = models.PositiveIntegerField(null=True, blank=True, help_text="Code points into the answer.")
    end = models.PositiveIntegerField(null=True, blank=True)
    origin = models.CharField(max_length=20, choices=AtomOrigin.choices, default=AtomOrigin.EXTRACTED)
    external_id = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["answer_id", "position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(start__isnull=True, end__isnull=True) | Q(start__gte=0, end__gt=F("start")),
                name="atom_offsets_ordered",
            ),
            models.CheckConstraint(condition=Q(origin__in=AtomOrigin.values), name="atom_origin_valid"),
            # Retried jobs never duplicate atoms: one per position per (answer, origin[, run]).
            models.UniqueConstraint(
                fields=["answer", "origin", "position"],
                condition=Q(run__isnull=True),
                name="atom_position_unique_without_run",
            ),
            models.UniqueConstraint(
                fields=["run", "answer", "origin", "position"],
                condition=Q(run__isnull=False),
                name="atom_position_unique_in_run",
            ),
        ]

    def __str__(self) -> str:
        return self.text[:80]


class AtomContext(models.Model):
    """A passage retrieved as evidence for an atom, in rank order."""

    atom = models.ForeignKey(Atom, on_delete=models.CASCADE, related_name="contexts")
    passage = models.ForeignKey("annotation.Passage", on_delete=models.CASCADE, related_name="atom_contexts")
    run = models.ForeignKey(
        "annotation.Run", null=True, blank=True, on_delete=models.CASCADE, related_name="atom_contexts"
    )
    rank = models.PositiveIntegerField()
    score = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["atom_id", "rank"]
        constraints = [
            models.UniqueConstraint(
                fields=["atom", "passage"],
                condition=Q(run__isnull=True),
                name="atom_context_unique_without_run",
            ),
            models.UniqueConstraint(
                fields=["run", "atom", "passage"],
                condition=Q(run__isnull=False),
                name="atom_context_unique_in_run",
            ),
        ]

    def __str__(self) -> str:
        return f"context {self.rank} of atom #{self.atom_id}"
