"""Start a verification run: python manage.py run_job --project SLUG --method faaf|prompt [--sync]."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation.choices import AnswerKind
from annotation.errors import ApplicationError
from annotation.models import Project
from annotation.services.runs import FACT_METHODS, METHODS, VARIANTS, run_report, run_start, run_sync


class Command(BaseCommand):
    help = "Verify the reference facts of a project's questions against their answers (FaaF recall set-up)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--project", required=True, help="The project's slug.")
        parser.add_argument(
            "--method",
            required=True,
            choices=sorted([*METHODS, *FACT_METHODS]),
            help="faaf / prompt: verify facts; atomize: atomic facts of answers (FActScore); "
            "facts: reference facts from reference answers (FaaF).",
        )
        parser.add_argument("--variant", default="tf", choices=sorted(VARIANTS))
        parser.add_argument(
            "--citation", action="store_true", help="FaaF: ask for a supporting excerpt per fact."
        )
        parser.add_argument(
            "--answers",
            nargs="+",
            choices=AnswerKind.values,
            metavar="KIND",
            help="Only answers of these kinds (default: all).",
        )
        parser.add_argument("--no-cache", action="store_true", help="Do not reuse cached LLM calls.")
        parser.add_argument(
            "--retry-na",
            action="store_true",
            help="FaaF: ask once more when a reply cannot be used (off in the paper).",
        )
        parser.add_argument(
            "--passage",
            metavar="FILE",
            help="Precision set-up: verify each answer's own atoms against this text file.",
        )
        parser.add_argument(
            "--endpoint",
            help="offline, default (LLM_BASE_URL) or a project endpoint's name "
            "(default: LLM_BASE_URL if set, else offline).",
        )
        parser.add_argument(
            "--revise",
            action="store_true",
            help="atomize: make each atom stand on its own (FactReasoner's reviser).",
        )
        parser.add_argument("--sync", action="store_true", help="Run here and now instead of on the workers.")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["project"]).first()
        if project is None:
            raise CommandError(f"No project with slug {options['project']!r}.")
        passage = ""
        if options["passage"]:
            try:
                with open(options["passage"], encoding="utf-8") as stream:
                    passage = stream.read()
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"Cannot read the passage {options['passage']}: {exc}") from None
            if not passage.strip():
                raise CommandError(f"The passage {options['passage']} is empty.")
        try:
            run = run_start(
                actor=None,
                project=project,
                method=options["method"],
                variant=options["variant"],
                citation=options["citation"],
                answer_kinds=options["answers"],
                use_cache=not options["no_cache"],
                retry_na=options["retry_na"],
                passage=passage,
                endpoint=options["endpoint"],
                revise_atoms=options["revise"],
                enqueue=not options["sync"],
            )
        except ApplicationError as exc:
            details = " ".join(m for ms in exc.extra.values() for m in ms) if exc.extra else ""
            raise CommandError(f"{exc.message} {details}".strip()) from None
        self.stdout.write(
            f"Run {run.pk}: {run.method} ({run.variant}) on {run.items_total} answers, "
            f"model {run.model_name}."
        )
        if not options["sync"]:
            self.stdout.write(f"Queued for the workers; follow it on the run page or /api/runs/{run.pk}/.")
            return
        run = run_sync(run=run)
        self.stdout.write(
            self.style.SUCCESS(
                f"{run.status}: {run.items_done} answers done, {run.items_failed} failed, "
                f"{run.items_na} N/A facts; "
                f"{run.llm_calls} calls ({run.cache_hits} from the cache), {run.prompt_tokens} prompt and "
                f"{run.completion_tokens} completion tokens."
            )
        )
        if run.kind == "verify":
            self.stdout.write(json.dumps(run_report(run=run)["kinds"], indent=2))
        else:
            self.stdout.write(f"{run.atoms.count()} facts made.")
