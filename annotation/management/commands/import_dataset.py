"""Import a dataset file into a project: python manage.py import_dataset --format F --project SLUG PATH."""

from __future__ import annotations

import os
import sys
from typing import IO, Any

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
        progress = None
        try:
            if options["path"] == "-":
                stream = sys.stdin
            else:
                try:
                    stream = open(options["path"], encoding="utf-8", newline="")  # noqa: SIM115
                except OSError as exc:
                    raise CommandError(f"Cannot read {options['path']}: {exc.strerror}") from None
                if sys.stderr.isatty():
                    progress = _ProgressBar(stream, os.fstat(stream.fileno()).st_size)
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


class _ProgressBar:
    """A one-line bar on the terminal: how much of the file has been read, and how many rows."""

    def __init__(self, stream: IO[str], size: int) -> None:
        self.stream = stream
        self.size = max(size, 1)

    def __call__(self, rows: int) -> None:
        done = min(self.stream.buffer.tell() / self.size, 1.0)
        bar = "#" * int(done * 30)
        sys.stderr.write(f"\r[{bar:<30}] {done:4.0%}  {rows} rows")
        sys.stderr.flush()
