"""``python -m tests.load.waitcost``: what the replica wait (REDIS_REPLICA_WAIT_MS) costs.

A private master and one replica on loopback (``--replicaof``); ``--n`` sequential
commits of a real-sized record through ``RedisStore.commit``, with the wait off and on,
interleaved in blocks so that both see the same machine load. Prints the latency
(p50/p99), the round trips per commit and how many commits a replica confirmed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from typing import Any

from core.store import Deadline, RedisStore
from core.store.roundtrips import count_round_trips
from tests.load.harness import HOST, RedisServer, wait_until
from tests.load.stats import dist

STATE, META = "s" * 1500, "m" * 700


async def run(n: int, wait_ms: int) -> dict[str, Any]:
    with RedisServer() as master, RedisServer() as replica:
        client = replica.client()
        client.execute_command("REPLICAOF", HOST, str(master.port))
        wait_until(
            lambda: client.info("replication").get("master_link_status") == "up",
            30,
            "the replica's first sync",
        )
        client.close()
        prefix = f"wait{uuid.uuid4().hex[:6]}:"
        stores = {
            "no wait": RedisStore.from_url(master.url, prefix=prefix),
            f"wait {wait_ms} ms": RedisStore.from_url(
                master.url, prefix=prefix, replica_wait_ms=wait_ms
            ),
        }
        samples: dict[str, list[float]] = {name: [] for name in stores}
        trips: dict[str, list[int]] = {name: [] for name in stores}
        confirmed = dict.fromkeys(stores, 0)
        try:
            for name, store in stores.items():
                assert await store.create(name.replace(" ", "_"), STATE, META, ttl_s=600)
            versions = dict.fromkeys(stores, 1)
            for block in range(n // 50):
                for name, store in stores.items():
                    game_id = name.replace(" ", "_")
                    for i in range(50):
                        at = Deadline(10**13 + block * 50 + i)
                        with count_round_trips() as counter:
                            began = time.perf_counter()
                            result = await store.commit(
                                game_id, versions[name], STATE, META, ["{}"], at, ttl_s=600
                            )
                            samples[name].append((time.perf_counter() - began) * 1000)
                        assert result.ok and result.version is not None
                        versions[name] = result.version
                        trips[name].append(counter.count)
                        confirmed[name] += result.confirmed
        finally:
            for store in stores.values():
                await store.close()
    return {
        name: {
            "commit_ms": dist(samples[name][50:]),  # (the first block warms up)
            "round_trips_per_commit": max(trips[name][50:]),
            "confirmed": confirmed[name],
            "commits": len(samples[name]),
        }
        for name in stores
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.load.waitcost", description=__doc__)
    p.add_argument("--n", type=int, default=2000)
    p.add_argument("--wait-ms", type=int, default=500)
    args = p.parse_args(argv)
    print(json.dumps(asyncio.run(run(args.n, args.wait_ms)), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
