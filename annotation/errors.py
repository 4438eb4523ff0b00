"""The one application error type. The API turns it into ``{"message", "code", "extra"}``."""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    status = 400
    default_code = "error"

    def __init__(self, message: str, *, code: str | None = None, extra: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.extra = extra or {}


class ValidationFailed(ApplicationError):
    """Input that does not fit the data; ``extra`` maps each field to its messages."""

    default_code = "invalid"

    @classmethod
    def from_fields(cls, errors: dict[str, list[str]]) -> ValidationFailed:
        names = ", ".join(sorted(errors))
        return cls(f"Invalid input: {names}.", extra=errors)


class Conflict(ApplicationError):
    """A write based on stale data; ``extra`` carries the current state, which was kept."""

    status = 409
    default_code = "conflict"


class NotFound(ApplicationError):
    status = 404
    default_code = "not_found"


class Forbidden(ApplicationError):
    status = 403
    default_code = "permission_denied"
