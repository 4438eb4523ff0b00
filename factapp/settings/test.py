"""Settings for the test suite: the same as base, with a fixed key and a fast password hasher."""

import os

os.environ.setdefault("DJANGO_SECRET_KEY", "test-" + "k3y-for-tests-only-" * 4)

from .base import *  # noqa: E402,F403
from .base import DATABASES, VAR_DIR  # noqa: E402

DEBUG = False
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
SECURE_HSTS_SECONDS = 0
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not :memory:, so that a real worker process can open the test database.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
LOGGING = {"version": 1, "disable_existing_loggers": False}
