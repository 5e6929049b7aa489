"""The compact record a finished game leaves behind, and /stats from those records.

ARCHITECTURE "What is kept after a game": config, seats' user ids, per-round outcome and
gold, final scores, and what a replay needs (seed, catalogue version, version mapping).
The move log is archived beside it by the store.
"""

from __future__ import annotations

from typing import Any

from core.engine.shapes import RoundResultDict
from core.service.meta import Meta


def round_record(
    round_no: int, result: RoundResultDict | None, gold_before: list[int], gold_after: list[int]
) -> dict[str, object]:
    return {
        "round": round_no,
        "winners": result.get("winners") if result else None,
        "roles": result.get("roles") if result else None,
        "gold": [after - before for before, after in zip(gold_before, gold_after, strict=False)],
    }


def game_record(
    meta: Meta, final: list[int], replay: dict[str, Any] | None = None
) -> dict[str, object]:
    """``replay``: what rebuilding the game needs (``history.replay_facts``): its seed,
    catalogue version, table and version mapping; the move log is archived beside it."""
    top = max(final, default=0)
    chat = meta.chat_key
    return {
        "game_id": meta.game_id,
        "chat_id": chat.chat_id if chat else None,
        "topic_id": chat.topic_id if chat else None,
        "title": meta.title,
        "edition": meta.edition,
        "options": meta.options,
        "started_ms": meta.started_ms,
        "finished_ms": meta.finished_ms,
        "seats": [
            {
                "seat": i,
                "user_id": None if s.computer else s.user_id,
                "name": s.name,
                "computer": s.computer,
                "left": s.left,
            }
            for i, s in enumerate(meta.seats)
        ],
        "rounds": meta.rounds_log,
        "final": final,
        "winners": [i for i, g in enumerate(final) if g == top] if final else [],
        **({"replay": replay} if replay is not None else {}),
    }


def user_stats(user_id: int, records: list[dict[str, Any]]) -> dict[str, Any]:
    games = wins = gold = best = rounds = 0
    for record in records:
        seats = [s["seat"] for s in record.get("seats", []) if s.get("user_id") == user_id]
        if not seats:
            continue
        seat = seats[0]
        final = record.get("final") or []
        games += 1
        wins += seat in record.get("winners", [])
        score = final[seat] if seat < len(final) else 0
        gold += score
        best = max(best, score)
        rounds += len(record.get("rounds", []))
    return {
        "user_id": user_id,
        "games": games,
        "wins": wins,
        "gold": gold,
        "best": best,
        "rounds": rounds,
    }


def chat_stats(chat_id: int, records: list[dict[str, Any]]) -> dict[str, Any]:
    players: dict[int, dict[str, Any]] = {}
    for record in records:
        final = record.get("final") or []
        for seat in record.get("seats", []):
            user_id = seat.get("user_id")
            if user_id is None:
                continue
            row = players.setdefault(
                user_id,
                {"user_id": user_id, "name": seat.get("name"), "games": 0, "wins": 0, "gold": 0},
            )
            row["games"] += 1
            row["wins"] += seat["seat"] in record.get("winners", [])
            row["gold"] += final[seat["seat"]] if seat["seat"] < len(final) else 0
    board = sorted(players.values(), key=lambda r: (-r["wins"], -r["gold"], r["games"]))
    return {"chat_id": chat_id, "games": len(records), "leaderboard": board}
