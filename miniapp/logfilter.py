"""aiohttp logs a malformed HTTP request (a NUL in a header, a broken request line) at
ERROR with a traceback, after answering it 400. That is the client's fault, not ours: any
stranger could fill the error log (and its alerts) with it. This filter turns such records
into one INFO line without the traceback; real server errors stay ERROR."""

from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError

SERVER_LOGGER = "aiohttp.server"


class ClientErrorFilter(logging.Filter):
    """Demote aiohttp's "Error handling request" records caused by the request itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError) and record.levelno >= logging.ERROR:
            reason = exc.message.splitlines()[0] if exc.message else ""
            record.args = (record.getMessage(), exc.code, reason)
            record.msg = "%s (answered %s: %s)"
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.exc_info = record.exc_text = None
        return True


def install() -> None:
    """Attach the filter to aiohttp's server logger (once)."""
    logger = logging.getLogger(SERVER_LOGGER)
    if not any(isinstance(f, ClientErrorFilter) for f in logger.filters):
        logger.addFilter(ClientErrorFilter())
