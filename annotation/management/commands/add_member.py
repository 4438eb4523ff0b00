"""Add a user to a project in a role (creating the account if asked)."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation import services
from annotation.choices import Role
from annotation.errors import ApplicationError
from annotation.models import Project


class Command(BaseCommand):
    help = "Add USER to project SLUG as annotator, reviewer or manager."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--project", required=True, help="The project's slug.")
        parser.add_argument("--role", default=Role.ANNOTATOR, choices=Role.values)
        parser.add_argument("--create", action="store_true", help="Create the account with a new password.")
        parser.add_argument(
            "--no-items", action="store_true", help="Do not give an annotator the project's items."
        )
        parser.add_argument("username")

    def handle(self, *args: Any, **options: Any) -> None:
        project = Project.objects.filter(slug=options["project"]).first()
        if project is None:
            raise CommandError(f"No project with slug {options['project']!r}.")
        User = get_user_model()
        user = User.objects.filter(username=options["username"]).first()
        if user is None:
            if not options["create"]:
                raise CommandError(f"No user {options['username']!r}; add --create to make the account.")
            password = secrets.token_urlsafe(12)
            user = User.objects.create_user(username=options["username"], password=password)
            self.stdout.write(f"Created user {user.username} with password {password}")
        try:
            services.membership_set(actor=None, project=project, user=user, role=options["role"])
        except ApplicationError as exc:
            raise CommandError(f"{exc.message} {exc.extra or ''}".strip()) from exc
        self.stdout.write(self.style.SUCCESS(f"{user.username} is now {options['role']} in {project.slug}."))
        if options["role"] != Role.REVIEWER and not options["no_items"]:
            added = services.assignments_create(actor=None, project=project, user=user)
            self.stdout.write(f"Assigned {added} items to {user.username}.")
