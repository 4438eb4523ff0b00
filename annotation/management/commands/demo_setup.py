"""Create (once) the demo manager account and the demo project, and print how to log in."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from annotation import services
from annotation.choices import AnswerKind
from annotation.models import Answer, Assignment, Project, Question
from annotation.services.datasets import dataset_import

SAMPLE = Path(__file__).resolve().parents[2] / "demo" / "haluquestqa_sample.json"
FACTS_SAMPLE = Path(__file__).resolve().parents[2] / "demo" / "wikievalfacts_sample.csv"
KINDS = {"human_answer": AnswerKind.HUMAN, "model_answer": AnswerKind.MODEL}
GUIDELINES = """# Annotation guidelines (summary)

Read the question and both answers. Highlight every error and say why in the justification:

1. **Question misconception** (on the question): a false assumption or premise in the question.
2. **Factuality**: a statement that is wrong or unsupported.
3. **Relevance**: a part that does not help answer the question.
4. **Completeness**: a part that needs more explanation, or (a whole-answer span) missing information.
5. **References**: an example, analogy or link; say whether it is helpful.

Then choose the answer you prefer and explain why.
"""


class Command(BaseCommand):
    help = "Create the demo manager account and demo project if missing, and print the login."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="The URL to print.")
        parser.add_argument("--username", default="demo")

    def handle(self, *args: Any, **options: Any) -> None:
        login_file = Path(settings.VAR_DIR) / "demo_login.json"
        user, password = self._user(options["username"], login_file)
        project = self._project(user)
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(f"factapp is starting at {options['url']}"))
        self.stdout.write(f"  log in as:  {user.username}")
        self.stdout.write(f"  password:   {password}   (kept in {login_file})")
        self.stdout.write(f"  demo project: {options['url'].rstrip('/')}/projects/{project.slug}/")
        self.stdout.write("")

    def _user(self, username: str, login_file: Path) -> tuple[Any, str]:
        User = get_user_model()
        stored = json.loads(login_file.read_text()) if login_file.exists() else None
        user = User.objects.filter(username=username).first()
        if (
            user is not None
            and stored
            and stored.get("username") == username
            and user.check_password(stored["password"])
        ):
            return user, stored["password"]
        # New install, or the stored password no longer works: (re)generate it.
        password = secrets.token_urlsafe(12)
        if user is None:
            user = User.objects.create_user(username=username, password=password)
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        login_file.parent.mkdir(parents=True, exist_ok=True)
        login_file.write_text(json.dumps({"username": username, "password": password}))
        login_file.chmod(0o600)
        return user, password

    @transaction.atomic
    def _project(self, user: Any) -> Project:
        project = Project.objects.filter(slug="demo").first()
        if project is None:
            project = services.project_create(
                actor=user,
                name="Demo: HaluQuestQA sample",
                slug="demo",
                description="Four questions with a human and a model answer each, from HaluQuestQA "
                "(Sachdeva et al., 2024; UKP Lab, TU Darmstadt; CC BY-SA 4.0), and three of our own with "
                "reference facts to verify (WikiEvalFacts-shaped).",
                guidelines=GUIDELINES,
            )
        elif not project.memberships.filter(user=user).exists():
            services.membership_set(actor=None, project=project, user=user, role="manager")
        for row in json.loads(SAMPLE.read_text()):
            question, created = Question.objects.get_or_create(
                project=project,
                external_id=f"haluquestqa-dev-{row['row']}",
                defaults={
                    "text": row["question_text"],
                    "category": row["category"],
                    "source_file": row["source_file"],
                    "metadata": {"dataset": "HaluQuestQA", "licence": "CC BY-SA 4.0"},
                },
            )
            if created:
                for position in (1, 2):
                    Answer.objects.create(
                        question=question,
                        position=position,
                        text=row[f"ans{position}_text"],
                        kind=KINDS[row[f"ans{position}_label"]],
                    )
            Assignment.objects.get_or_create(question=question, annotator=user)
        # Questions with reference facts and human verdicts, for trying a FaaF run (imported once).
        with FACTS_SAMPLE.open(encoding="utf-8", newline="") as stream:
            dataset_import(format="wikievalfacts", project=project, stream=stream)
        services.project_progress_refresh(project_id=project.pk)
        return project
