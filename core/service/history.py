"""Replays and "My games": a game rebuilt from its seed and move log, live or archived.

Why a rebuild: the live record of a finished game is dropped an hour after its end, its
archived record and move log stay ``ARCHIVE_RETENTION_DAYS``. The archive keeps what the
engine needs to deal the same game again (``replay_facts``); everything a client gets from
here is cut from the engine's views, so a field a reader may not know is never present.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict

from core import engine
from core.engine.shapes import EventDict, ViewDict
from core.service import movelog
from core.service.meta import Meta, Seat
from core.service.models import ServiceError
from core.service.views import game_view, rewrite_entry
from core.store import GameStore

if TYPE_CHECKING:
    from core.service.records import Loaded


class HistoryEntry(TypedDict):
    """One line of "My games"."""

    game_id: str | None  # (None only in a record archived without one)
    finished_at: int | None  # ms since the epoch
    title: str | None
    edition: str | None
    players: int
    rounds: int
    seat: int
    gold: int
    result: str  # "won" | "lost"
    replayable: bool


class RoundSnapshot(TypedDict, total=False):
    """One round of a replay: the maze at its start and, once over, at its end (each cut
    from the spectator's view: the maze, never a hand), and its public log entries."""

    round: int
    start: ViewDict
    end: ViewDict | None
    entries: list[EventDict]


def replay_facts(meta: Meta, state: engine.GameState, version: int) -> dict[str, object]:
    """What a replay needs, archived with the game's record at close-out."""
    return {
        "edition": state.config.edition,
        "seed": meta.seed,
        "catalogue": state.catalogue.version,
        "players": state.config.players,
        "options": state.config.options(),
        "base": meta.base,
        "bumps": list(meta.bumps),
        "version": version,
    }


def rebuild(
    facts: dict[str, Any], raw_log: list[str]
) -> tuple[engine.GameState, list[RoundSnapshot]]:
    """The final state and each round's snapshots ({"round", "start", "end"}) of a game
    replayed from its archived facts and stored move log."""
    try:
        config = engine.GameConfig.from_options(
            facts["edition"], facts["players"], facts["options"]
        )
        catalogue = engine.resolve_catalogue(facts["catalogue"])
        state = engine.new_game(config, facts["seed"], catalogue)
    except (KeyError, TypeError, engine.ConfigError, engine.CatalogueError) as exc:
        raise ServiceError("not_found", "this game was archived without its deal") from exc
    rounds: list[RoundSnapshot] = [{"round": state.round, "start": _snapshot(state), "end": None}]
    for raw in raw_log:
        entry = movelog.decode(raw)
        before = state.phase
        if entry.get("timeout"):
            state, _ = engine.apply_timeout(state)
        else:
            seat, move = entry["seat"], entry["move"]
            if not isinstance(seat, int) or not isinstance(move, dict):
                raise ServiceError("not_found", "this game's archived log cannot be read")
            state, _ = engine.apply_move(state, seat, move)
        if state.round != rounds[-1]["round"]:
            rounds.append({"round": state.round, "start": _snapshot(state), "end": None})
        elif state.phase != before and state.phase in ("round_over", "finished"):
            rounds[-1]["end"] = _snapshot(state, ended=True)
    return state, rounds


def _snapshot(state: engine.GameState, *, ended: bool = False) -> ViewDict:
    view = engine.view_for(state, None, log_limit=0)
    out: ViewDict = {"board": view["board"], "goals": view["goals"]}
    if ended:
        out["round_result"] = view.get("round_result")
    return out


def meta_of_record(record: dict[str, Any]) -> Meta:
    """A read-only Meta from an archived record: seats, names and the version mapping
    (what views and log entries need); no user id other than the seats' owners."""
    facts = record.get("replay") or {}
    meta = Meta(
        game_id=record["game_id"],
        creator=0,
        edition=record.get("edition") or "classic",
        options=dict(record.get("options") or {}),
        title=record.get("title"),
        started=True,
        seed=facts.get("seed"),
        base=int(facts.get("base") or 0),
        bumps=list(facts.get("bumps") or []),
        finished_ms=record.get("finished_ms"),
        started_ms=record.get("started_ms"),
    )
    for seat in record.get("seats", []):
        meta.seats.append(
            Seat(
                seat.get("user_id"),
                seat.get("name") or "",
                computer=bool(seat.get("computer")),
                left=bool(seat.get("left")),
            )
        )
    return meta


def archived_view(record: dict[str, Any], state: engine.GameState, viewer: int | None) -> ViewDict:
    """The finished game as ``viewer`` saw it at its end (the spectator's if not seated)."""
    meta = meta_of_record(record)
    view = game_view(
        meta,
        state,
        version=int((record.get("replay") or {}).get("version") or 0),
        viewer=viewer,
        presence={},
        deadline_ms=None,
        now_ms=0,
        window_ms=0,
    )
    view["archived"] = True
    view["legal_moves"] = []
    seats = view.get("seats")
    for seat in seats if isinstance(seats, list) else []:
        seat.pop("online", None)  # nobody is at an archived table: no presence to show
    return view


def replay_document(
    game_id: str, meta: Meta, state: engine.GameState, rounds: list[RoundSnapshot]
) -> dict[str, object]:
    """Every round of the game: its starting maze, its public log entries (with game
    versions) and, once over, its end (the maze with the goals turned, the result)."""
    by_round: dict[int, list[EventDict]] = {}
    current = 1
    for entry in engine.public_log(state):
        if entry.get("code") == engine.EventCode.ROUND_STARTED:
            number = entry.get("round")
            current = number if isinstance(number, int) and number > 0 else current
        by_round.setdefault(current, []).append(rewrite_entry(meta, entry))
    done = state.phase == "finished"
    return {
        "game_id": game_id,
        "edition": meta.edition,
        "finished": done,
        "seats": [
            {
                "seat": i,
                "name": s.name,
                "computer": s.computer,
                **({"computer_no": s.computer_no} if s.computer_no is not None else {}),
            }
            for i, s in enumerate(meta.seats)
        ],
        "rounds": [
            {**r, "entries": by_round.get(r["round"], [])} for r in rounds if r["round"] >= 1
        ],
        "final": {"gold": list(engine.scores(state))} if done else None,
    }


def history_entry(record: dict[str, Any], user_id: int) -> HistoryEntry | None:
    """One line of "My games" for ``user_id``: None when they had no seat in it."""
    seat = next((s["seat"] for s in record.get("seats", []) if s.get("user_id") == user_id), None)
    if seat is None:
        return None
    final = record.get("final") or []
    winners = record.get("winners") or []
    entry: HistoryEntry = {
        "game_id": record.get("game_id"),
        "finished_at": record.get("finished_ms"),
        "title": record.get("title"),
        "edition": record.get("edition"),
        "players": len(record.get("seats", [])),
        "rounds": len(record.get("rounds") or []),
        "seat": seat,
        "gold": final[seat] if seat < len(final) else 0,
        "result": "won" if seat in winners else "lost",
        "replayable": bool(record.get("replay")),
    }
    return entry


async def replay_of(store: GameStore, game_id: str, loaded: Loaded | None) -> dict[str, object]:
    """The replay document of a live game (``loaded``) or, when its record is gone
    (``loaded`` None), of its archive; ServiceError ``not_found`` / ``not_started``."""
    if loaded is not None:
        if loaded.state is None or loaded.meta.cancelled:
            raise ServiceError("not_started", "the game has no moves to replay")
        facts = replay_facts(loaded.meta, loaded.state, loaded.version)
        meta = loaded.meta
        raw = await store.read_log(game_id)
    else:
        record = await archived_record(store, game_id)
        facts, meta = record["replay"], meta_of_record(record)
        raw = await store.archived_log(game_id)
    state, rounds = rebuild(facts, raw)
    return replay_document(game_id, meta, state, rounds)


async def archived_record(store: GameStore, game_id: str) -> dict[str, Any]:
    """An archived record that can be rebuilt (ServiceError ``not_found`` otherwise: a
    game archived before its deal was kept is a game that cannot be shown)."""
    record = await store.archived(game_id)
    if not record or not isinstance(record.get("replay"), dict):
        raise ServiceError("not_found", "no such game")
    return dict(record)


async def finished_view(store: GameStore, game_id: str, viewer: int | None) -> ViewDict:
    record = await archived_record(store, game_id)
    state, _ = rebuild(record["replay"], await store.archived_log(game_id))
    return archived_view(record, state, viewer)


async def finished_log(store: GameStore, game_id: str, since: int) -> list[EventDict]:
    record = await archived_record(store, game_id)
    state, _ = rebuild(record["replay"], await store.archived_log(game_id))
    meta = meta_of_record(record)
    entries = (rewrite_entry(meta, e) for e in engine.public_log(state))
    return [e for e in entries if e.get("version", 0) > since]
