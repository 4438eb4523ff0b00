"""Background runs and the cache of LLM calls they make."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.choices import RunKind, RunStatus


class Run(models.Model):
    """One background job: what it does, with which model, and how far it got."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="runs")
    kind = models.CharField(max_length=30, choices=RunKind.choices)
    method = models.CharField(max_length=50, blank=True)
    variant = models.CharField(max_length=50, blank=True)
    endpoint = models.CharField(max_length=200, blank=True, help_text="Endpoint name, or 'offline'.")
    model_name = models.CharField(max_length=200, blank=True)
    prompt_version = models.CharField(max_length=50, blank=True)
    parameters = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=20, choices=RunStatus.choices, default=RunStatus.PENDING)
    items_total = models.PositiveIntegerField(default=0)
    items_done = models.PositiveIntegerField(default=0)
    items_failed = models.PositiveIntegerField(default=0)
    items_na = models.PositiveIntegerField(default=0)
    llm_calls = models.PositiveIntegerField(default=0)
    cache_hits = models.PositiveIntegerField(default=0)
    prompt_tokens = models.PositiveBigIntegerField(default=0)
    completion_tokens = models.PositiveBigIntegerField(default=0)
    error = models.TextField(blank=True)
    result = models.JSONField(
        default=dict, blank=True, help_text="What the run produced, e.g. an import report."
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=RunKind.values), name="run_kind_valid"),
            models.CheckConstraint(condition=Q(status__in=RunStatus.values), name="run_status_valid"),
        ]
        indexes = [models.Index(fields=["project", "status"], name="run_project_status")]

    def __str__(self) -> str:
        return f"{self.kind} run #{self.pk} ({self.method or '-'}, {self.model_name or '-'})"


class LLMCall(models.Model):
    """A content-addressed record of one LLM request and its response (the call cache)."""

    key = models.CharField(max_length=64, unique=True, help_text="sha256 of model + parameters + messages.")
    run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="calls", help_text="First run."
    )
    endpoint = models.CharField(max_length=200, blank=True)
    model_name = models.CharField(max_length=200, blank=True)
    request = models.JSONField()
    response = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=20, default="ok")
    error = models.TextField(blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["run", "created_at"], name="llmcall_run_created")]

    def __str__(self) -> str:
        return f"{self.model_name} call {self.key[:12]}"


class LLMEndpoint(models.Model):
    """An OpenAI-compatible endpoint a manager names for a project. The key is never stored: only the name
    of the environment variable that holds it."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="endpoints")
    name = models.SlugField(max_length=50)
    # A CharField: intranet hosts without a dot ("http://gpu-host:8000/v1") are fine; the service checks it.
    base_url = models.CharField(max_length=500)
    model_name = models.CharField(max_length=200)
    api_key_env = models.CharField(max_length=100, blank=True, help_text="Environment variable with the key.")
    max_concurrency = models.PositiveSmallIntegerField(default=4)
    requests_per_minute = models.PositiveIntegerField(default=0, help_text="0: no limit.")
    timeout = models.PositiveIntegerField(default=60, help_text="Seconds per request.")
    supports_tools = models.BooleanField(default=True)
    price_prompt_per_1k = models.FloatField(default=0.0)
    price_completion_per_1k = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="endpoint_name_unique_in_project"),
            models.CheckConstraint(
                condition=~Q(name__in=["offline", "default"]), name="endpoint_name_not_reserved"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.model_name})"
