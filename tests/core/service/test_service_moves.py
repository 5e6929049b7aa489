"""Moves at a version, timers, computer seats, takeover, archive and dedupe."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from core import engine
from core.service import ChatKey, GameService, ServiceConfig, TurnWarning, UserRef
from core.store import GameStore
from tests.core.service.service_clock import Clock

USERS = [UserRef(i, f"P{i}") for i in range(1, 7)]
CHAT = ChatKey(-500)


async def human_game(service: GameService, n: int = 3, **settings: Any) -> str:
    view = await service.create_lobby(chat=CHAT, creator=USERS[0], settings=settings or None)
    for user in USERS[1:n]:
        await service.join(view["game_id"], user)
    await service.start(view["game_id"], 1)
    return str(view["game_id"])


async def actor_user(service: GameService, game_id: str) -> int:
    view = await service.view(game_id, None)
    seats = await service.seats(game_id)
    user_id = seats[view["current_seat"]].user_id
    assert user_id is not None
    return user_id


async def test_submit_ok_stale_illegal_forbidden(service: GameService) -> None:
    game_id = await human_game(service)
    user = await actor_user(service, game_id)
    view = await service.view(game_id, user)
    version = view["version"]
    move = view["legal_moves"][0]
    other = next(u.user_id for u in USERS[:3] if u.user_id != user)

    wrong_turn = await service.submit(game_id, other, move, version)
    assert wrong_turn.status == "illegal" and wrong_turn.reason == "not_your_turn"
    assert (await service.submit(game_id, 99, move, version)).status == "forbidden"
    timeout = await service.submit(game_id, user, {"type": "timeout"}, version)
    assert timeout.status == "forbidden" and timeout.reason == "server_only"
    assert (await service.submit(game_id, user, "nope", version)).status == "invalid"
    assert (await service.submit(game_id, user, move, "1")).status == "invalid"
    malformed = await service.submit(game_id, user, {"type": "place_path"}, version)
    assert malformed.status in {"invalid", "illegal"}
    bad_card = await service.submit(game_id, user, {"type": "discard", "cards": ["zzzzz"]}, version)
    assert bad_card.status == "illegal" and bad_card.reason == "card_not_in_hand"
    assert (await service.view(game_id, user))["version"] == version  # nothing changed

    ok = await service.submit(game_id, user, move, version)
    assert ok.status == "ok" and ok.view is not None
    assert ok.view["version"] == version + 1
    assert ok.view["log"][-1]["version"] == version + 1 and "seq" not in ok.view["log"][-1]
    stale = await service.submit(game_id, user, move, version)
    assert stale.status == "stale" and stale.view is not None
    assert stale.view["version"] == version + 1
    log = await service.move_log(game_id)
    assert log == [{"seat": ok.view["you"]["seat"], "move": move, "v": version + 1}]
    assert [e["version"] for e in await service.log(game_id, version)] == [version + 1] * len(
        await service.log(game_id, version)
    )


async def test_timeouts_then_takeover_then_take_back(service: GameService, clock: Clock) -> None:
    game_id = await human_game(service, turn_time=30, takeover_after=2)
    view = await service.view(game_id, None)
    assert view["turn_deadline"] is not None and view["turn_deadline"].endswith("Z")
    first = view["current_seat"]
    seats = await service.seats(game_id)
    user = seats[first].user_id
    assert user is not None
    assert await service.fire_due() == 0  # nothing due yet
    # let every human time out twice: each times out, then the computer plays their seat
    for _ in range(6):
        clock.advance(31)
        await service.fire_due()
    seats = await service.seats(game_id)
    assert all(s.auto for s in seats)
    view = await service.view(game_id, user)
    assert view["legal_moves"] == [{"type": "take_seat_back"}]
    assert view["seats"][first]["computer"] and view["seats"][first]["away"]
    assert "computer_no" not in view["seats"][first]  # a human's seat keeps their name
    log = await service.move_log(game_id)
    assert sum(1 for e in log if e.get("timeout")) == 6
    # the computer plays the seats now, one think delay each (0 s here)
    before = view["version"]
    for _ in range(3):
        await service.fire_due()
    assert (await service.view(game_id, user))["version"] == before + 3
    back = await service.submit(game_id, user, {"type": "take_seat_back"}, 0)
    assert back.status == "ok" and back.view is not None
    assert not back.view["seats"][first]["away"]
    assert not (await service.seats(game_id))[first].auto


async def test_leave_mid_game_computer_takes_seat(service: GameService) -> None:
    game_id = await human_game(service)
    user = await actor_user(service, game_id)
    view = await service.leave(game_id, user)
    seat = view["you"]["seat"]
    assert view["seats"][seat]["computer"] and view["seats"][seat]["left"]
    assert view["turn_deadline"] is not None  # the computer's think delay
    assert await service.fire_due() == 1
    after = await service.view(game_id, None)
    assert after["version"] == view["version"] + 1 and after["current_seat"] != seat
    # log versions stay true after a service-only commit (the leave) in between
    assert after["log"][-1]["version"] == after["version"]
    assert [e["version"] for e in await service.log(game_id, view["version"])] == [
        after["version"]
    ] * len(await service.log(game_id, view["version"]))
    # the other humans leave too: nobody is left to play for, the game is cancelled
    for other in USERS[:3]:
        if other.user_id != user:
            view = await service.leave(game_id, other.user_id)
    assert view["status"] == "cancelled"
    assert await service.game_for_chat(CHAT) is None


async def test_computer_game_driven_by_timers_finishes(store: GameStore, clock: Clock) -> None:
    """Only run_timers acts: the human times out once and the computer plays every seat."""
    config = ServiceConfig(
        think_delay_s=0.0, bot_ready_delay_s=0.0, round_pause_s=0, timer_interval_s=0.01
    )
    service = GameService(store, config, clock=clock)
    view = await service.create_lobby(
        chat=CHAT,
        creator=USERS[0],
        seats=5,
        computers=4,
        settings={
            "think_delay": 0,
            "round_pause": 0,
            "turn_time": 5,
            "rounds": 2,
            "takeover_after": 1,
        },
    )
    game_id = view["game_id"]
    stop = asyncio.Event()
    task = asyncio.create_task(service.run_timers(stop))
    try:

        async def until_finished() -> dict[str, Any]:
            while True:
                current = await service.view(game_id, 1)
                if current["status"] == "finished":
                    return current
                clock.advance(6)  # time flies: the human's 5 s turns run out at once
                await asyncio.sleep(0.01)

        final = await asyncio.wait_for(until_finished(), 120)
    finally:
        stop.set()
        await task
    assert (await service.seats(game_id))[0].auto
    assert final["final"] is not None and final["legal_moves"] == []
    assert final["turn_deadline"] is None
    log = await service.move_log(game_id)
    assert [e["v"] for e in log] == list(range(log[0]["v"], log[0]["v"] + len(log)))
    record = await store.archived(game_id)
    assert record is not None and len(record["rounds"]) == 2
    assert all(r["winners"] and len(r["gold"]) == 5 for r in record["rounds"])
    assert [sum(g) for g in zip(*(r["gold"] for r in record["rounds"]), strict=True)] == (
        record["final"]
    )
    assert record["seats"][0]["user_id"] == 1 and record["final"] == final["final"]["gold"]
    stats = await service.stats_for_user(1)
    assert stats["games"] == 1 and stats["rounds"] == 2
    chat = await service.stats_for_chat(CHAT.chat_id)
    assert chat["games"] == 1 and chat["leaderboard"][0]["user_id"] == 1
    assert await service.game_for_chat(CHAT) is None
    assert await service.games_for_user(1) == []
    assert await service.delete_user_data(1) == 1
    assert await service.stats_for_user(1) == {
        "user_id": 1,
        "games": 0,
        "wins": 0,
        "gold": 0,
        "best": 0,
        "rounds": 0,
    }
    # the archived log replays to the final state
    loaded = await service.records.load(game_id)
    moves = [{k: v for k, v in e.items() if k != "v"} for e in log]
    replayed = engine.replay(loaded.state.config, loaded.meta.seed, moves)
    assert engine.state_to_json(replayed) == engine.state_to_json(loaded.state)


async def test_round_over_pause_and_turn_warning(service: GameService, clock: Clock) -> None:
    warnings: list[TurnWarning] = []

    async def on_warning(warning: TurnWarning) -> None:
        warnings.append(warning)

    service.on_turn_warning(on_warning)
    game_id = await human_game(service, turn_time=60)
    view = await service.view(game_id, None)
    user = await actor_user(service, game_id)
    clock.advance(30)  # warnings at 30 s and at 10 s left
    assert await service.fire_due() == 1
    assert [(w.game_id, w.user_id, w.version, w.seconds_left) for w in warnings] == [
        (game_id, user, view["version"], 30)
    ]
    assert await service.fire_due() == 0  # once
    clock.advance(20)
    assert await service.fire_due() == 1
    assert [w.seconds_left for w in warnings] == [30, 10]
    clock.advance(11)
    assert await service.fire_due() == 1  # the timeout
    assert (await service.view(game_id, None))["version"] == view["version"] + 1
    assert len(warnings) == 2


async def test_duplicate_update_ids_processed_once(service: GameService) -> None:
    seen = [await service.process_update_once(u) for u in [10, 11, 10, 12, 11, 10]]
    assert seen == [True, True, False, True, False, False]
    assert await service.claim_side_effect("board:g:5")
    assert not await service.claim_side_effect("board:g:5")


async def test_adapters_keep_their_data_through_the_service(service: GameService) -> None:
    """Preferences, per-game adapter data and the health check are service calls: the
    adapters never hold the store."""
    assert await service.ping()
    assert await service.get_pref("u:7") is None
    await service.set_pref("u:7", "zh_Hant")
    await service.set_pref("c:-100", "en")
    assert await service.get_pref("u:7") == "zh_Hant"
    assert await service.get_pref("c:-100") == "en"
    game_id = await human_game(service)
    assert await service.adapter_data(game_id) == {}
    await service.set_adapter_data(game_id, "board_msg", "42")
    await service.set_adapter_data(game_id, "lobby_msg", "41")
    assert await service.adapter_data(game_id) == {"board_msg": "42", "lobby_msg": "41"}
    await service.set_adapter_data("no-such-game", "board_msg", "1")  # gone: kept nowhere
    assert await service.adapter_data("no-such-game") == {}


async def test_views_hide_user_ids_and_seed(service: GameService) -> None:
    game_id = await human_game(service)
    for user in [*USERS[:3], None]:
        text = json.dumps(await service.view(game_id, user.user_id if user else None))
        assert "user_id" not in text and '"seed"' not in text


async def test_stale_timer_claim_does_nothing(service: GameService, clock: Clock) -> None:
    game_id = await human_game(service, turn_time=30)
    clock.advance(31)
    claims = [c for c in await service.store.claim_due(clock.ms) if c.kind == "t"]
    assert len(claims) == 1
    # the player moves before the claimer gets to it: the claim is now stale
    user = await actor_user(service, game_id)
    view = await service.view(game_id, user)
    result = await service.submit(game_id, user, view["legal_moves"][0], view["version"])
    assert result.status == "ok"
    await service.timers.fire(claims[0])
    assert (await service.view(game_id, None))["version"] == view["version"] + 1
    assert all(not e.get("timeout") for e in await service.move_log(game_id))


async def test_abandoned_lobby_expires(store: GameStore, clock: Clock) -> None:
    # the backstop: with no worker firing timers at all, the record's own TTL (idle time
    # plus a grace of at most the idle time) still frees the chat
    service = GameService(store, ServiceConfig(lobby_ttl_s=0.2), clock=clock)  # type: ignore[arg-type]
    view = await service.create_lobby(chat=CHAT, creator=USERS[0])
    await asyncio.sleep(0.5)
    assert await service.game_for_chat(CHAT) is None
    assert await service.games_for_user(1) == []
    fresh = await service.create_lobby(chat=CHAT, creator=USERS[1])
    assert fresh["game_id"] != view["game_id"]


async def test_concurrent_submits_in_one_process(service: GameService) -> None:
    game_id = await human_game(service)
    user = await actor_user(service, game_id)
    view = await service.view(game_id, user)
    results = await asyncio.gather(
        *(service.submit(game_id, user, m, view["version"]) for m in view["legal_moves"][:5])
    )
    assert sorted(r.status for r in results) == ["ok"] + ["stale"] * (len(results) - 1)
    assert not service.records.locks  # nothing left behind


async def test_move_decided_on_a_stale_cache_loses_to_another_worker(
    store: GameStore, clock: Clock
) -> None:
    """A worker decides a move on the record it last saw (no load); when another worker
    has committed meanwhile, the compare-and-set refuses it: 409 with the current view,
    nothing applied twice, and the next move at the right version works."""
    from tests.core.service.conftest import FAST

    here, there = GameService(store, FAST, clock=clock), GameService(store, FAST, clock=clock)
    game_id = await human_game(here)
    user = await actor_user(here, game_id)
    view = await here.view(game_id, user)  # `here` now holds this version
    version, move = view["version"], view["legal_moves"][0]
    assert (await there.submit(game_id, user, move, version)).status == "ok"
    late = await here.submit(game_id, user, move, version)
    assert late.status == "stale" and late.view is not None
    assert late.view["version"] == version + 1
    assert len(await here.move_log(game_id)) == 1
    nxt = await actor_user(here, game_id)
    fresh = await here.view(game_id, nxt)
    done = await here.submit(game_id, nxt, fresh["legal_moves"][0], version + 1)
    assert done.status == "ok" and done.view is not None and done.view["version"] == version + 2
    assert [e["v"] for e in await there.move_log(game_id)] == [version + 1, version + 2]
