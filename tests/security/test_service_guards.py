"""Bounded per client, admitted by proof: the service's own guards (core.service.guards).

- one account opens at most ``max_open_lobbies`` lobbies and ``max_open_games`` games at
  a time, with a clear error naming the cap, and may open again once one ends;
- a group's lobby seats only users who show they are in the group: a join pass (their
  press of Join in the group), or the membership port saying so; "cannot tell" is no;
  the creator may open the lobby to anyone; lobbies outside groups admit link holders;
- names are stored cleaned (a lone surrogate no longer breaks every later answer);
- the move log keeps moves as the engine read them: unknown fields are never stored.
"""

from __future__ import annotations

import json

import pytest

from core.service import ChatKey, ServiceError, UserRef
from core.service.guards import Guards
from core.store import GameStore
from tests.core.service.service_clock import Clock
from tests.security.conftest import service_on

ANN, BO, CY = UserRef(1, "Ann"), UserRef(2, "Bo"), UserRef(3, "Cy")
GROUP = ChatKey(-4242)


class Members:
    """A membership port: these users are in the group; ``None`` = cannot tell."""

    def __init__(self, members: set[int] | None, *, fail: bool = False) -> None:
        self.members, self.fail = members, fail
        self.asked: list[tuple[int, int]] = []

    async def is_member(self, chat_id: int, user_id: int) -> bool | None:
        self.asked.append((chat_id, user_id))
        if self.fail:
            raise RuntimeError("Telegram is unreachable")
        return None if self.members is None else user_id in self.members


async def test_open_lobbies_are_capped_per_user(store: GameStore, clock: Clock) -> None:
    service = service_on(store, clock, max_open_lobbies=3, max_open_games=5)
    ids = [(await service.create_lobby(chat=None, creator=ANN))["game_id"] for _ in range(3)]
    with pytest.raises(ServiceError) as capped:
        await service.create_lobby(chat=None, creator=ANN)
    assert capped.value.code == "too_many_lobbies" and capped.value.details["limit"] == 3
    assert "start or cancel one" in capped.value.message
    await service.create_lobby(chat=None, creator=BO)  # another account is not affected
    await service.cancel(ids[0], ANN.user_id)
    await service.create_lobby(chat=None, creator=ANN)  # one ended: room for one more


async def test_open_games_are_capped_per_user(store: GameStore, clock: Clock) -> None:
    service = service_on(store, clock, max_open_lobbies=3, max_open_games=4)
    games = []
    for _ in range(4):  # games against the computer start at once: no lobby left open
        view = await service.create_lobby(chat=None, creator=ANN, seats=3, computers=2)
        assert view["status"] == "playing"
        games.append(view["game_id"])
    with pytest.raises(ServiceError) as capped:
        await service.create_lobby(chat=None, creator=ANN, seats=3, computers=2)
    assert capped.value.code == "too_many_games" and capped.value.details["limit"] == 4
    await service.leave(games[0], ANN.user_id)  # the last human leaves: the game ends
    await service.create_lobby(chat=None, creator=ANN, seats=3, computers=2)


async def test_no_caps_when_none(store: GameStore, clock: Clock) -> None:
    service = service_on(store, clock, max_open_lobbies=None, max_open_games=None)
    for _ in range(12):
        await service.create_lobby(chat=None, creator=ANN)


async def test_a_groups_lobby_needs_proof_of_membership(
    store: GameStore, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = service_on(store, clock)
    game_id = (await service.create_lobby(chat=GROUP, creator=ANN))["game_id"]
    # no port (the API alone), a port that cannot tell, one that fails: all refuse
    for port in (None, Members(None), Members(set(), fail=True)):
        service.use_membership(port)
        with pytest.raises(ServiceError) as refused:
            await service.join(game_id, BO)
        assert refused.value.code == "membership_required"
        assert "press Join" in refused.value.message
    # the port knows Bo is not in the group: refused; that Cy is: seated
    members = Members({CY.user_id})
    service.use_membership(members)
    with pytest.raises(ServiceError):
        await service.join(game_id, BO)
    view = await service.join(game_id, CY)
    assert [s["name"] for s in view["seats"]] == ["Ann", "Cy"]
    assert (GROUP.chat_id, CY.user_id) in members.asked
    # a press of Join in the group leaves a pass: Bo is seated without the port
    service.use_membership(Members(None))
    await service.grant_join_pass(game_id, BO.user_id)
    view = await service.join(game_id, BO)
    assert len(view["seats"]) == 3
    assert (await service.join(game_id, BO))["version"] == view["version"]  # idempotent


async def test_a_join_pass_expires(store: GameStore, clock: Clock) -> None:
    service = service_on(store, clock, join_pass_s=60)
    game_id = (await service.create_lobby(chat=GROUP, creator=ANN))["game_id"]
    await service.grant_join_pass(game_id, BO.user_id)
    clock.advance(61)
    with pytest.raises(ServiceError) as late:
        await service.join(game_id, BO)
    assert late.value.code == "membership_required"
    # a pass is for one lobby: another lobby of another group is not opened by it
    other = (await service.create_lobby(chat=ChatKey(-7), creator=CY))["game_id"]
    await service.grant_join_pass(game_id, BO.user_id)
    with pytest.raises(ServiceError):
        await service.join(other, BO)
    await service.join(game_id, BO)


async def test_the_creator_may_open_a_groups_lobby_to_anyone(
    store: GameStore, clock: Clock
) -> None:
    service = service_on(store, clock)
    game_id = (await service.create_lobby(chat=GROUP, creator=ANN))["game_id"]
    with pytest.raises(ServiceError) as not_creator:
        await service.configure(game_id, BO.user_id, open_join=True)
    assert not_creator.value.code == "not_creator"
    view = await service.configure(game_id, ANN.user_id, open_join=True)
    assert view["settings"]["open_join"] is True
    await service.join(game_id, BO)  # no proof needed now
    await service.configure(game_id, ANN.user_id, open_join=False)
    with pytest.raises(ServiceError):
        await service.join(game_id, CY)


async def test_lobbies_outside_groups_admit_whoever_holds_the_link(
    store: GameStore, clock: Clock
) -> None:
    service = service_on(store, clock)
    game_id = (await service.create_lobby(chat=None, creator=ANN))["game_id"]
    assert len((await service.join(game_id, BO))["seats"]) == 2


def test_open_join_is_a_lobby_setting() -> None:
    from core.service.lobby_settings import BY_NAME, describe

    spec = BY_NAME["open_join"]
    assert spec.kind == "flag" and spec.default is False and spec.offered
    assert any(s["name"] == "open_join" for s in describe("group")["settings"])
    assert Guards._membership is None  # closed by default: no port, no admission


async def test_names_are_stored_clean(store: GameStore, clock: Clock) -> None:
    service = service_on(store, clock)
    view = await service.create_lobby(chat=None, creator=UserRef(1, "An\ud800n\n", "e\udc00n"))
    game_id = view["game_id"]
    view = await service.join(game_id, UserRef(2, "\x00\ud83d"))
    names = [s["name"] for s in view["seats"]]
    assert names == ["An\ufffdn", "\ufffd"]
    json.dumps(view, ensure_ascii=False).encode()  # encodable: no surrogate left
    assert [s.language for s in await service.seats(game_id)] == ["e\ufffdn", None]


async def test_moves_are_logged_as_the_engine_read_them(store: GameStore, clock: Clock) -> None:
    service = service_on(store, clock)
    game_id = (await service.create_lobby(chat=None, creator=ANN))["game_id"]
    for user in (BO, CY):
        await service.join(game_id, user)
    await service.start(game_id, ANN.user_id)
    for user in (ANN, BO, CY):
        view = await service.view(game_id, user.user_id)
        if view["legal_moves"]:
            break
    move = {**view["legal_moves"][0], "junk": "x" * 15_000, "nested": {"a": [1, 2]}}
    result = await service.submit(game_id, user.user_id, move, view["version"])
    assert result.status == "ok", result
    (logged,) = await service.move_log(game_id)
    assert logged["move"] == view["legal_moves"][0]  # exactly the move, nothing else
    assert len(json.dumps(logged)) < 200
