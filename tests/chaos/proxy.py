"""A TCP proxy between the workers and Redis that the chaos run can cut and restore.

``python -m tests.chaos.proxy LISTEN_PORT TARGET_PORT`` forwards 127.0.0.1:LISTEN_PORT to
127.0.0.1:TARGET_PORT. ``SIGUSR1`` cuts: every open connection is reset and new ones are
closed on arrival (Redis "gone" as the workers see it, though it keeps its data);
``SIGUSR2`` restores. It runs as its own process so that the forwarding is not slowed by
the load generator's event loop. It stops by itself after ``--max-seconds``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import socket
import struct
import subprocess
import sys
from dataclasses import dataclass, field

from tests.load.harness import HOST, _kill_group, free_port, wait_until


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    with contextlib.suppress(Exception):
        writer.close()


class Proxy:
    def __init__(self, target: int) -> None:
        self.target = target
        self.cut = False
        self.writers: set[asyncio.StreamWriter] = set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut:
            _reset(writer)
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(HOST, self.target)
        except OSError:
            _reset(writer)
            return
        self.writers |= {writer, up_writer}
        try:
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
        finally:
            self.writers -= {writer, up_writer}

    def do_cut(self) -> None:
        self.cut = True
        for writer in list(self.writers):
            _reset(writer)
        self.writers.clear()

    def restore(self) -> None:
        self.cut = False


def _can_connect(port: int) -> bool:
    with socket.create_connection((HOST, port), 1):
        return True


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with RST (SO_LINGER 0), as a dropped network path looks to the peer."""
    with contextlib.suppress(Exception):
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()


async def serve(listen: int, target: int, max_seconds: float) -> None:
    proxy = Proxy(target)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, proxy.do_cut)
    loop.add_signal_handler(signal.SIGUSR2, proxy.restore)
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    server = await asyncio.start_server(proxy.handle, HOST, listen, reuse_address=True)
    async with server:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), max_seconds)


@dataclass
class ProxyProcess:
    """The proxy as a child process (own process group), controlled by signals."""

    target: int
    port: int = 0
    max_seconds: float = 1800
    proc: subprocess.Popen[bytes] | None = None
    cuts: list[tuple[float, float]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def start(self) -> ProxyProcess:
        self.port = self.port or free_port()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.chaos.proxy",
                str(self.port),
                str(self.target),
                "--max-seconds",
                str(self.max_seconds),
            ],
            start_new_session=True,
        )
        wait_until(lambda: _can_connect(self.port), 15, "redis proxy")
        return self

    def cut(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGUSR1)

    def restore(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGUSR2)

    def close(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc, 3)
            self.proc = None


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("listen", type=int)
    p.add_argument("target", type=int)
    p.add_argument("--max-seconds", type=float, default=1800)
    args = p.parse_args()
    asyncio.run(serve(args.listen, args.target, args.max_seconds))


if __name__ == "__main__":
    main()
