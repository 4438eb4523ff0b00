"""One error shape for the whole API: ``{"message", "code", "extra"}``, field errors under ``extra``."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from annotation.errors import ApplicationError


def _flatten(detail: Any) -> Any:
    if isinstance(detail, dict):
        return {key: _flatten(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [_flatten(item) for item in detail]
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        return Response({"message": exc.message, "code": exc.code, "extra": exc.extra}, status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        extra = _flatten(exc.detail)
        if isinstance(extra, list):
            extra = {"non_field_errors": extra}
        names = ", ".join(sorted(extra))
        response.data = {"message": f"Invalid input: {names}.", "code": "invalid", "extra": extra}
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        response.data = {
            "message": _flatten(exc.detail) if not isinstance(exc.detail, dict | list) else str(exc),
            "code": codes if isinstance(codes, str) else "error",
            "extra": {},
        }
    if response.status_code == status.HTTP_405_METHOD_NOT_ALLOWED:
        response.data["code"] = "method_not_allowed"
    return response
