"""A malformed HTTP request is the client's fault: answered 400 and logged as one INFO line,
never an ERROR traceback a stranger can fill the error log with (found by schemathesis:
a NUL byte in a header value)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from tests.miniapp.conftest import ClientMaker


async def test_malformed_request_is_a_400_and_no_error_line(
    make_client: ClientMaker, memory_service: Any, caplog: pytest.LogCaptureFixture
) -> None:
    client = await make_client(memory_service)
    host, port = client.server.host, client.server.port
    with caplog.at_level(logging.DEBUG, logger="aiohttp.server"):
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Probe: \x00\r\n\r\n")
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 5)
        writer.close()
        await asyncio.sleep(0.05)  # the log record is written after the answer
    assert status_line.split()[1] == b"400"
    records = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert records, "aiohttp should still note the bad request"
    assert all(r.levelno == logging.INFO and r.exc_info is None for r in records)
    assert "answered 400" in records[0].getMessage()


def test_real_server_errors_stay_errors() -> None:
    from miniapp.logfilter import ClientErrorFilter

    try:
        raise RuntimeError("a bug of ours")
    except RuntimeError as exc:
        record = logging.LogRecord(
            "aiohttp.server",
            logging.ERROR,
            __file__,
            1,
            "Error handling request",
            (),
            (type(exc), exc, exc.__traceback__),
        )
    assert ClientErrorFilter().filter(record)
    assert record.levelno == logging.ERROR and record.exc_info is not None
