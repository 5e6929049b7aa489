"""Exactly once across failures, through the service (issue 20): a commit whose reply was
lost is sent again with its submission id and answers as the first try would have; a
client's ``submission_id`` makes its own retry safe too; a game renumbered by a new
master (an epoch) still takes the move its player decided on that very state."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError

from core import engine
from core.service import GameService, ServiceConfig, ServiceError, UserRef
from core.store import GameStore, MemoryStore, RedisStore, lua
from core.store.base import CommitResult, Deadline, Keep

FAST = ServiceConfig(think_delay_s=0.0, bot_ready_delay_s=0.0, commit_retry_s=5.0)


class LossyStore:
    """A store whose next commits fail as a cut connection would: ``after`` = the commit
    reached Redis and only the reply was lost; ``before`` = it never got there."""

    def __init__(self, inner: GameStore) -> None:
        self.inner = inner
        self.failures: list[str] = []  # "after" | "before", used up in order
        self.commits = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def commit(
        self,
        game_id: str,
        expected_version: int,
        state: str,
        meta: str,
        log_entries: Sequence[str],
        deadline: Deadline | Keep | None,
        **kwargs: Any,
    ) -> CommitResult:
        self.commits += 1
        failure = self.failures.pop(0) if self.failures else None
        if failure == "before":
            raise RedisConnectionError("Connection reset by peer (before)")
        result = await self.inner.commit(
            game_id, expected_version, state, meta, log_entries, deadline, **kwargs
        )
        if failure == "after":
            raise RedisConnectionError("Connection reset by peer (reply lost)")
        return result


@pytest.fixture(params=["memory", "redis"])
async def backend(
    request: pytest.FixtureRequest, redis_url: str, redis_prefix: str, redis_client: object
) -> AsyncIterator[GameStore]:
    store: GameStore = (
        MemoryStore()
        if request.param == "memory"
        else RedisStore.from_url(redis_url, prefix=redis_prefix)
    )
    try:
        yield store
    finally:
        await store.close()


async def three_humans(service: GameService) -> tuple[str, dict[str, Any]]:
    users = [UserRef(i, f"P{i}") for i in (1, 2, 3)]
    view = await service.create_lobby(chat=None, creator=users[0])
    for user in users[1:]:
        await service.join(view["game_id"], user)
    view = await service.start(view["game_id"], 1)
    return view["game_id"], view


async def actor_move(service: GameService, game_id: str) -> tuple[int, dict[str, Any], int]:
    """(user id, a legal move, version) of whoever acts now."""
    loaded = await service.records.load(game_id)
    seat = engine.actor(loaded.state)
    assert seat is not None
    user_id = loaded.meta.seats[seat].user_id
    assert user_id is not None
    return user_id, engine.legal_moves(loaded.state, seat)[0], loaded.version


@pytest.mark.parametrize("failure", ["after", "before"])
async def test_a_commit_whose_reply_was_lost_is_applied_once(
    backend: GameStore, failure: str
) -> None:
    store = LossyStore(backend)
    service = GameService(store, FAST)  # type: ignore[arg-type]
    game_id, _ = await three_humans(service)
    user_id, move, version = await actor_move(service, game_id)
    store.failures, store.commits = [failure], 0
    result = await service.submit(game_id, user_id, move, version)
    assert result.status == "ok", result
    assert result.view is not None and result.view["version"] == version + 1
    assert [e["v"] for e in await service.move_log(game_id)] == [version + 1]
    assert service.commit_retries == 1
    assert service.commit_duplicates == (1 if failure == "after" else 0)
    assert store.commits == 2


async def test_lost_replies_of_lobby_changes_are_not_done_twice(backend: GameStore) -> None:
    """Every commit carries an id, not only moves: adding a computer whose reply was lost
    adds one computer."""
    store = LossyStore(backend)
    service = GameService(store, FAST)  # type: ignore[arg-type]
    view = await service.create_lobby(chat=None, creator=UserRef(1, "Ann"))
    store.failures = ["after", "after"]
    view = await service.add_computer(view["game_id"], 1)
    assert sum(1 for s in view["seats"] if s["computer"]) == 1
    assert service.commit_duplicates == 1


async def test_the_store_down_for_good_fails_after_the_retry_time(backend: GameStore) -> None:
    store = LossyStore(backend)
    service = GameService(store, ServiceConfig(commit_retry_s=0.3))  # type: ignore[arg-type]
    game_id, _ = await three_humans(service)
    user_id, move, version = await actor_move(service, game_id)
    store.failures, store.commits = ["before"] * 100, 0
    with pytest.raises(RedisConnectionError):
        await service.submit(game_id, user_id, move, version)
    assert 3 <= store.commits <= 8  # 0.05, 0.1, 0.2 s apart
    assert await service.move_log(game_id) == []


async def test_a_client_retry_with_its_submission_id_answers_ok_again(
    backend: GameStore,
) -> None:
    service = GameService(backend, FAST)
    game_id, _ = await three_humans(service)
    user_id, move, version = await actor_move(service, game_id)
    first = await service.submit(game_id, user_id, move, version, submission_id="move-0001")
    assert first.status == "ok" and first.view is not None
    again = await service.submit(game_id, user_id, move, version, submission_id="move-0001")
    assert again.status == "ok" and again.view == first.view  # nothing happened since
    assert len(await service.move_log(game_id)) == 1
    other = await service.submit(game_id, user_id, move, version, submission_id="move-0002")
    assert other.status == "stale"
    plain = await service.submit(game_id, user_id, move, version)
    assert plain.status == "stale"
    # an id is the user's own: somebody else's "move-0001" is not this move
    seated = [s["seat"] for s in first.view["seats"]]
    someone = next(u for u in (1, 2, 3) if u != user_id)
    assert seated
    theirs = await service.submit(game_id, someone, move, version, submission_id="move-0001")
    assert theirs.status in ("stale", "forbidden")
    bad = await service.submit(game_id, user_id, move, version, submission_id=7)  # type: ignore[arg-type]
    assert (bad.status, bad.reason) == ("invalid", "bad_move")


async def test_two_workers_racing_with_the_same_submission_id_apply_it_once(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """A client that retried on another worker while its first try was still running:
    one commit, and both answers say ok."""
    stores = [RedisStore.from_url(redis_url, prefix=redis_prefix) for _ in range(2)]
    try:
        services = [GameService(s, FAST) for s in stores]
        game_id, _ = await three_humans(services[0])
        user_id, move, version = await actor_move(services[0], game_id)
        await services[1].view(game_id, user_id)  # both have the game at that version
        results = await asyncio.gather(
            *(
                s.submit(game_id, user_id, move, version, submission_id="same-id-1")
                for s in services
            )
        )
        assert [r.status for r in results] == ["ok", "ok"]
        assert len(await services[0].move_log(game_id)) == 1
    finally:
        for s in stores:
            await s.close()


async def test_a_renumbered_game_takes_the_move_decided_on_the_same_state(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """A new master renumbered the record (the same state) between the view and the
    move: the move is committed in the new numbering, logged with its new version, and
    the views' log versions follow."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        service = GameService(store, FAST)
        game_id, _ = await three_humans(service)
        user_id, move, version = await actor_move(service, game_id)
        first = await service.submit(game_id, user_id, move, version)
        assert first.ok
        user_id, move, version = await actor_move(service, game_id)
        await store.redis.hset(store.keys.game(game_id), "ri", "0ld0ld00")  # a failover
        gap = lua.EPOCH_GAP
        assert await service.version(game_id) == version + gap  # (as a socket's resync)
        seen = await service.view(game_id, None)
        assert seen["version"] == version + gap
        assert seen["log"][-1]["version"] == version + gap  # (the move that made it)
        result = await service.submit(game_id, user_id, move, version)  # decided before
        assert result.status == "ok", result
        assert result.view is not None and result.view["version"] == version + gap + 1
        assert result.view["log"][-1]["version"] == version + gap + 1
        assert [e["v"] for e in await service.move_log(game_id)] == [version, version + gap + 1]
        since = await service.log(game_id, version + gap)
        assert [e["version"] for e in since] == [version + gap + 1]
        # a move decided on a number the old master handed out and the new one never had
        stale = await service.submit(game_id, user_id, move, version + 1)
        assert stale.status == "stale"
    finally:
        await store.close()


async def test_without_a_replica_a_waiting_commit_is_refused_busy(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """The replica wait on and no replica answering: the move is applied on the master
    but not confirmed, so the answer is ``busy`` (503, retry with the same submission
    id) — applied once, however often it is retried."""
    info = await store_info(redis_url)
    if int(info["connected_slaves"]):
        pytest.skip("this Redis has replicas")
    store = RedisStore.from_url(redis_url, prefix=redis_prefix, replica_wait_ms=20)
    try:
        service = GameService(store, ServiceConfig(commit_retry_s=0.4))
        view = await service.create_lobby(chat=None, creator=UserRef(1, "Ann"), seats=3)
        game_id = view["game_id"]
        with pytest.raises(ServiceError) as refused:
            await service.join(game_id, UserRef(2, "Bo"))
        assert refused.value.code == "busy"
        assert service.commit_retries >= 1
        record = await store.load(game_id)
        assert record is not None and record.version == 2  # applied once, on the master
    finally:
        await store.close()


async def store_info(url: str) -> dict[str, Any]:
    import redis.asyncio as aioredis

    client = aioredis.Redis.from_url(url, decode_responses=True)
    try:
        return dict(await client.info("replication"))
    finally:
        await client.aclose()


async def test_a_move_decided_before_any_renumbering_is_made_in_the_new_epoch(
    redis_url: str, redis_prefix: str, redis_client: object
) -> None:
    """The load does not renumber (only commits, claims and version reads do): a view
    read right after the failover shows the old number, and the move decided on it is
    committed in the new epoch."""
    store = RedisStore.from_url(redis_url, prefix=redis_prefix)
    try:
        service = GameService(store, FAST)
        game_id, _ = await three_humans(service)
        await store.redis.hset(store.keys.game(game_id), "ri", "0ld0ld00")
        user_id, move, version = await actor_move(service, game_id)  # a load: old number
        assert version < lua.EPOCH_GAP
        result = await service.submit(game_id, user_id, move, version)
        assert result.status == "ok", result
        assert result.view is not None and result.view["version"] == version + lua.EPOCH_GAP + 1
        log = await service.move_log(game_id)
        assert [e["v"] for e in log] == [version + lua.EPOCH_GAP + 1]
    finally:
        await store.close()
