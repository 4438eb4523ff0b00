"""The vocabulary of the papers, as TextChoices."""

from django.db import models


class Role(models.TextChoices):
    ANNOTATOR = "annotator", "Annotator"
    REVIEWER = "reviewer", "Reviewer"
    MANAGER = "manager", "Manager"


class ErrorCategory(models.TextChoices):
    """HaluQuestQA's five error categories (Sachdeva et al., 2024, §3)."""

    QUESTION_MISCONCEPTION = "question_misconception", "Question misconception"
    FACTUALITY = "factuality", "Factuality"
    RELEVANCE = "relevance", "Relevance"
    COMPLETENESS = "completeness", "Completeness"
    REFERENCES = "references", "References"


#: Categories that point at the question; every other category points at an answer.
QUESTION_CATEGORIES = frozenset({ErrorCategory.QUESTION_MISCONCEPTION})


class AnswerKind(models.TextChoices):
    HUMAN = "human", "Human"
    MODEL = "model", "Model"
    REFERENCE = "reference", "Reference"
    UNGROUNDED = "ungrounded", "Ungrounded"
    POOR = "poor", "Poor"
    REFINED = "refined", "Refined"
    OTHER = "other", "Other"


class Source(models.TextChoices):
    """Who said it: an expert or a model run. Never mixed up."""

    HUMAN = "human", "Human"
    MODEL = "model", "Model"


class SpanLocation(models.TextChoices):
    """How a span's offsets were found: given or located exactly, located loosely, or not at all."""

    EXACT = "exact", "Exact"
    LOOSE = "loose", "Loose (case/whitespace-insensitive)"
    UNLOCATED = "unlocated", "Unlocated"


class VerdictLabel(models.TextChoices):
    """FActScore's labels: Supported, Not-supported, Irrelevant."""

    SUPPORTED = "supported", "Supported"
    NOT_SUPPORTED = "not_supported", "Not supported"
    IRRELEVANT = "irrelevant", "Irrelevant"


class AtomOrigin(models.TextChoices):
    EXTRACTED = "extracted", "Extracted from the answer"
    REFERENCE = "reference", "Reference fact generated from a reference answer"


class RunKind(models.TextChoices):
    ATOMIZE = "atomize", "Atomic facts"
    REFERENCE_FACTS = "reference_facts", "Reference facts"
    VERIFY = "verify", "Verification"
    REASON = "reason", "FactReasoner"
    FEEDBACK = "feedback", "Completeness feedback"
    REFINE = "refine", "Refinement"
    IMPORT = "import", "Import"


class RunStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


FINISHED_RUN_STATUSES = frozenset({RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED})
