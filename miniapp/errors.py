"""JSON errors: every failure a client sees is ``{"error": {"code", "message", ...}}``.

Handlers raise :class:`ApiError`; the middleware in :mod:`miniapp.middleware` turns it, any
aiohttp ``HTTPException`` and any unexpected exception into that shape, so a client never
gets an HTML page or a stack trace.
"""

from __future__ import annotations

import json

from aiohttp import web

from core.service.jsoncodec import dumps_compact

# aiohttp's own exceptions carry a reason phrase; this maps the status to a stable code.
STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "unprocessable",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


class ApiError(Exception):
    """An answer other than 2xx, with a machine-readable code."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        headers: dict[str, str] | None = None,
        top: dict[str, object] | None = None,
        **extra: object,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra
        self.top = top or {}
        self.headers = headers or {}

    def response(self) -> web.Response:
        body: dict[str, object] = {
            "error": {"code": self.code, "message": self.message, **self.extra},
            **self.top,
        }
        try:
            payload = dumps_compact(body)
        except ValueError:  # a lone surrogate echoed from the request: \u escapes instead
            payload = json.dumps(body, separators=(",", ":")).encode()
        return web.Response(
            status=self.status,
            body=payload,
            content_type="application/json",
            charset="utf-8",
            headers=self.headers,
        )


def bad_request(message: str, code: str = "bad_request") -> ApiError:
    return ApiError(400, code, message)


def unauthorized(message: str, code: str = "unauthorized") -> ApiError:
    return ApiError(401, code, message, headers={"WWW-Authenticate": "Bearer"})


def forbidden(message: str, code: str = "forbidden") -> ApiError:
    return ApiError(403, code, message)


def not_found(message: str = "no such game", code: str = "not_found") -> ApiError:
    return ApiError(404, code, message)


def from_http_exception(exc: web.HTTPException) -> ApiError:
    status = exc.status
    code = STATUS_CODES.get(status, "error" if status >= 400 else "redirect")
    message = exc.reason or code
    if status == 413:
        message = "request body too large"
    headers = {k: v for k, v in exc.headers.items() if k.lower() in ("allow", "retry-after")}
    return ApiError(status, code, message, headers=headers)
