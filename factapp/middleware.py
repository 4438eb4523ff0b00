"""Every page needs login; the API authenticates itself (session or token) and answers 401."""

from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequired


class LoginRequiredMiddleware(DjangoLoginRequired):
    """Django's login-required default, leaving ``/api/`` to DRF so tokens work and errors are JSON."""

    def process_view(self, request, view_func, view_args, view_kwargs):  # noqa: ANN001, ANN201
        if request.path_info.startswith("/api/"):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
