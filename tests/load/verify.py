"""After a run: is every game intact, and is every acknowledged move in its log?

Read straight from Redis (the checker is not a client): each game must load, its log must
be gap-free, and replaying the log from the seed (``core.engine.replay``) must give exactly
the stored state. Every move a client saw answered 200 must be in the log at the version
the answer carried, with the same seat and move.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from core import engine
from core.service import movelog
from core.service.meta import Meta
from core.store import RedisStore


def _decode_state(stored: str) -> Any:
    """The service's own decoder when it has one (it may compress large states)."""
    try:
        from core.service.records import decode_state
    except ImportError:
        return engine.state_from_json(json.loads(stored))
    return decode_state(stored)


@dataclass(frozen=True, slots=True)
class Ack:
    """A move the server answered 200 for: ``version`` is the version of that answer."""

    game_id: str
    version: int
    seat: int
    move: dict[str, Any]


@dataclass
class Verdict:
    games: int = 0
    lost: list[str] = field(default_factory=list)
    corrupted: dict[str, str] = field(default_factory=dict)
    acked: int = 0
    acked_lost: list[tuple[str, int]] = field(default_factory=list)
    log_entries: int = 0

    @property
    def ok(self) -> bool:
        return not (self.lost or self.corrupted or self.acked_lost)

    def summary(self) -> dict[str, Any]:
        return {
            "games_checked": self.games,
            "games_lost": len(self.lost),
            "games_corrupted": len(self.corrupted),
            "corrupted_examples": dict(list(self.corrupted.items())[:5]),
            "moves_acknowledged": self.acked,
            "acknowledged_then_lost": len(self.acked_lost),
            "acked_lost_examples": self.acked_lost[:5],
            "log_entries": self.log_entries,
        }


def check_game(raw_record: Any, raw_log: list[str]) -> tuple[str | None, dict[int, dict[str, Any]]]:
    """A problem description (None when intact) and the log entries by version."""
    meta = Meta.from_json(raw_record.meta)
    log = [movelog.decode(e) for e in raw_log]
    by_version = {e["v"]: e for e in log}
    if len(by_version) != len(log):
        return "duplicate versions in the log", by_version
    versions = [e["v"] for e in log]
    if versions != sorted(versions):
        return "log out of order", by_version
    if not raw_record.state:
        return (None if not meta.started else "started game without state"), by_version
    state = _decode_state(raw_record.state)
    if versions and versions[-1] > raw_record.version:
        return f"log ahead of the record ({versions[-1]} > {raw_record.version})", by_version
    if state.seq != len(log):
        return f"engine seq {state.seq} but {len(log)} logged moves", by_version
    moves = [{k: v for k, v in e.items() if k != "v"} for e in log]
    if meta.seed is None:
        return "started game without a seed", by_version
    try:
        replayed = engine.replay(state.config, meta.seed, moves)
    except Exception as exc:  # a log that does not replay is corruption
        return f"replay failed: {exc!r}", by_version
    if engine.state_to_json(replayed) != engine.state_to_json(state):
        return "replayed state differs from the stored state", by_version
    return None, by_version


async def snapshot(store: RedisStore, game_id: str) -> tuple[Any, list[str]]:
    """The record and its log as of one moment, though timers may still be committing.

    Every move commit appends one log entry, so a record read between two log reads of the
    same length belongs to that log.
    """
    for _ in range(20):
        before = await store.read_log(game_id) or await store.archived_log(game_id)
        record = await store.load(game_id)
        after = await store.read_log(game_id) or await store.archived_log(game_id)
        if len(before) == len(after):
            return record, after
    return record, after


async def verify(
    redis_url: str, prefix: str, game_ids: Iterable[str], acks: Iterable[Ack]
) -> Verdict:
    store = RedisStore.from_url(redis_url, prefix=prefix)
    verdict = Verdict()
    logs: dict[str, dict[int, dict[str, Any]]] = {}
    try:
        for game_id in game_ids:
            verdict.games += 1
            record, raw_log = await snapshot(store, game_id)
            if record is None:
                verdict.lost.append(game_id)
                continue
            verdict.log_entries += len(raw_log)
            try:
                problem, by_version = check_game(record, raw_log)
            except Exception as exc:  # unreadable record: corrupted, say how
                problem, by_version = (
                    f"unreadable: {exc!r}; state starts {record.state[:60]!r}",
                    {},
                )
            logs[game_id] = by_version
            if problem:
                verdict.corrupted[game_id] = problem
        for ack in acks:
            verdict.acked += 1
            entry = logs.get(ack.game_id, {}).get(ack.version)
            if entry is None or entry.get("seat") != ack.seat or entry.get("move") != ack.move:
                verdict.acked_lost.append((ack.game_id, ack.version))
    finally:
        await store.close()
    return verdict
