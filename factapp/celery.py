"""The Celery app: configured from Django settings (CELERY_*), tasks autodiscovered from tasks.py."""

import os
from pathlib import Path

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "factapp.settings.base")

app = Celery("factapp")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def ensure_broker_folders() -> None:
    """The filesystem broker needs its folders before anyone sends or reads a message."""
    options = app.conf.broker_transport_options or {}
    for key in ("data_folder_in", "data_folder_out", "control_folder"):
        if options.get(key):
            Path(options[key]).mkdir(parents=True, exist_ok=True)


@app.on_after_configure.connect
def _on_configure(sender: Celery, **kwargs: object) -> None:
    ensure_broker_folders()
