"""Import a dataset file into a project: python manage.py import_dataset --format F --project SLUG PATH."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation import services
from annotation.errors import ApplicationError
from annotation.models import Project
from annotation.services.datasets import IMPORTERS, dataset_import


class Command(BaseCommand):
    help = "Import a dataset file into a project. All or nothing unless --skip-bad-rows."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--format", required=True, choices=sorted(IMPORTERS))
        parser.add_argument("--project", required=True, help="The project's slug.")
        parser.add_argument("--create", action="store_true", help="Create the project if it does not exist.")
        parser.add_argument(
            "--skip-bad-rows", action="store_true", help="Import the good rows, report the bad."
        )
        parser.add_argument("path", help="The file to import ('-' for standard input).")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["project"]).first()
        if project is None:
            if not options["create"]:
                raise CommandError(f"No project with slug {options['project']!r}; add --create to make it.")
            project = services.project_create(actor=None, name=options["project"], slug=options["project"])
            self.stdout.write(f"Created project {project.slug}. Add people with: manage.py add_member")
        progress = self._progress if sys.stderr.isatty() else None
        try:
            if options["path"] == "-":
                report = dataset_import(
                    format=options["format"],
                    project=project,
                    stream=sys.stdin,
                    skip_bad_rows=options["skip_bad_rows"],
                    progress=progress,
                )
            else:
                try:
                    stream = open(options["path"], encoding="utf-8", newline="")  # noqa: SIM115
                except OSError as exc:
                    raise CommandError(f"Cannot read {options['path']}: {exc.strerror}") from None
                with stream:
                    report = dataset_import(
                        format=options["format"],
                        project=project,
                        stream=stream,
                        skip_bad_rows=options["skip_bad_rows"],
                        progress=progress,
                    )
        except UnicodeDecodeError as exc:
            raise CommandError(
                f"{options['path']} is not UTF-8 text (byte {exc.start}); nothing was imported."
            ) from None
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        finally:
            if progress:
                sys.stderr.write("\n")
        for skipped in report.skipped:
            self.stderr.write(
                f"skipped row {skipped['row']} (column {skipped['column']!r}): {skipped['message']}"
            )
        self.stdout.write(self.style.SUCCESS(report.summary()))

    def _progress(self, rows: int) -> None:
        sys.stderr.write(f"\r{rows} rows read")
        sys.stderr.flush()
