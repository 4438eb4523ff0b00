"""Export a project as a dataset file (streamed; a failed export never leaves half a file)."""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from annotation.errors import ApplicationError
from annotation.models import Project, Run
from annotation.services.datasets import EXPORTERS, FRAMING_CHUNKS, dataset_export


class Command(BaseCommand):
    help = "Export a project in a dataset format, streamed ('-' writes to standard output)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--format", required=True, choices=sorted(EXPORTERS))
        parser.add_argument("--project", required=True, help="The project's slug.")
        parser.add_argument("--output", required=True, help="The file to write, or '-' for standard output.")
        parser.add_argument(
            "--run", type=int, help="Add this run's verdicts (formats that have a place for them)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["project"]).first()
        if project is None:
            raise CommandError(f"No project with slug {options['project']!r}.")
        run = None
        if options["run"] is not None:
            run = Run.objects.filter(pk=options["run"], project=project).first()
            if run is None:
                raise CommandError(f"No run {options['run']} in project {project.slug}.")
        try:
            chunks = dataset_export(format=options["format"], project=project, run=run)
            if options["output"] == "-":
                try:
                    for chunk in chunks:
                        self.stdout.write(chunk, ending="")
                    self.stdout.flush()
                except BrokenPipeError:  # e.g. piped into head: the reader has all it wanted
                    sys.stderr.close()
                return
            # Write next to the target and rename at the end: a failed export never leaves half a file.
            target = os.path.abspath(options["output"])
            directory = os.path.dirname(target)
            if not os.path.isdir(directory):
                raise CommandError(f"No directory {directory}.")
            fd, partial = tempfile.mkstemp(dir=directory, prefix=".export-", suffix=".partial")
            chunks_written = 0
            try:
                with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
                    for chunk in chunks:
                        out.write(chunk)
                        chunks_written += 1
                os.replace(partial, target)
            except BaseException:
                os.unlink(partial)
                raise
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        rows = chunks_written - FRAMING_CHUNKS.get(options["format"], 0)
        self.stdout.write(self.style.SUCCESS(f"Wrote {rows} {options['format']} records to {target}."))
