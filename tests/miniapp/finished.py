"""A finished game, played quickly through the service: for the game-over screens."""

from __future__ import annotations

import random

from core.service import GameService, UserRef

PLAYERS = [(101, "Ann"), (102, "Bob"), (103, "Carl")]


async def play_to_the_end(service: GameService, game_id: str, seed: int = 1) -> dict:
    """Every seated human plays a random legal move (not a discard when another move is
    possible) until the game is over; the public view at the end."""
    rnd = random.Random(seed)
    for _ in range(2000):
        view = await service.view(game_id, None)
        if view["status"] == "finished":
            return view
        for seat in view["seats"]:
            if seat.get("computer"):
                continue
            uid = seat.get("user_id") or PLAYERS[seat["seat"]][0]
            mine = await service.view(game_id, uid)
            moves = mine["legal_moves"]
            if moves:
                pick = [m for m in moves if m["type"] != "discard"] or moves
                await service.submit(game_id, uid, rnd.choice(pick), mine["version"])
                break
    raise AssertionError("the game did not finish")


async def finished_game(service: GameService, rounds: int = 1, seed: int = 1) -> str:
    """A 3-player classic game (Ann, Bob, Carl), played to its end."""
    lobby = await service.create_lobby(
        chat=None, creator=UserRef(*PLAYERS[0]), options={"rounds": rounds}
    )
    game_id = str(lobby["game_id"])
    for uid, name in PLAYERS[1:]:
        await service.join(game_id, UserRef(uid, name))
    await service.start(game_id, PLAYERS[0][0])
    await play_to_the_end(service, game_id, seed)
    return game_id
