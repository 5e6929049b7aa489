"""Moves: a player's move at the version they acted on, the engine step every move and
timeout goes through, and the deal of round 1."""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Mapping

from core import engine
from core.engine.shapes import ViewDict
from core.service import lobby
from core.service.archive import round_record
from core.service.meta import Meta
from core.service.models import ServiceError, SubmitResult
from core.service.queries import Queries
from core.service.records import Loaded, Plan, Records, bump
from core.service.timing import Timing
from core.store import EPOCH_GAP


def client_submission_id(user_id: int, submission_id: str) -> str:
    """The store's id for a client's ``submission_id``: scoped to the user (another
    user's id never matches) and of a fixed size whatever the client sent."""
    digest = hashlib.blake2b(f"{user_id}:{submission_id}".encode(), digest_size=9).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")


class Moves:
    """Decides and commits moves; the one place the service calls ``engine.apply_*``."""

    def __init__(self, records: Records, timing: Timing, queries: Queries) -> None:
        self.records = records
        self.timing = timing
        self.queries = queries

    def start_plan(self, loaded: Loaded) -> Plan:
        """Deal round 1 (raises ServiceError when the lobby cannot start)."""
        meta = loaded.meta
        lobby.require_lobby(meta)
        config = lobby.start_config(meta)
        now = self.timing.now_ms()
        meta.seed = secrets.randbits(62)
        meta.started = True
        meta.started_ms = now
        meta.autostart_at = meta.idle_until = None
        meta.base = loaded.version + 1
        state = engine.new_game(config, meta.seed)
        return Plan(meta, state, [], self.timing.deadline(meta, state, now, loaded.version + 1))

    def step(
        self, loaded: Loaded, meta: Meta, seat: int | None, move: Mapping[str, object] | None
    ) -> Plan:
        """Apply one engine move (or the timeout when ``move`` is None); raises IllegalMove."""
        state = loaded.state
        assert state is not None
        now = self.timing.now_ms()
        old_phase = engine.phase(state)
        if move is None:
            new_state, _ = engine.apply_timeout(state)
            entry: dict[str, object] = {"timeout": True}
        else:
            assert seat is not None
            # the one shape check; the log keeps the move as the engine parsed it: fields it
            # does not know are dropped, never stored (a client's junk would live in the
            # archive for months)
            move = engine.parse_move(move)
            new_state, _ = engine.apply_move(state, seat, move)
            entry = {"seat": seat, "move": move}
        entry["v"] = loaded.version + 1
        new_phase = engine.phase(new_state)
        if new_phase in ("round_over", "finished") and old_phase != new_phase:
            _record_round(meta, new_state)
        if new_phase == "round_over":
            if old_phase != "round_over":
                meta.pause_until = now + meta.round_pause_s * 1000
        else:
            meta.pause_until = None
        if new_phase == "finished":
            meta.finished_ms = now
        deadline = self.timing.deadline(meta, new_state, now, loaded.version + 1)
        return Plan(meta, new_state, [entry], deadline)

    async def take_seat_back(self, game_id: str, user_id: int) -> ViewDict:
        """A player whose seat the computer plays takes it back."""

        def decide(loaded: Loaded) -> Plan | None:
            meta = loaded.meta
            seat = meta.seat_of(user_id)
            if seat is None:
                raise ServiceError("not_seated", "you have no seat in this game")
            record = meta.seats[seat]
            if record.kicked:
                raise ServiceError("kicked", "you were removed from this game")
            if not record.auto or meta.cancelled or loaded.state is None:
                return None
            record.auto = record.left = False
            record.timeouts = 0
            deadline = self.timing.keep_or_recompute(loaded, meta, seat)
            bump(loaded, meta)
            return Plan(meta, loaded.state, [], deadline, state_changed=False)

        return self.queries.render(await self.records.mutate(game_id, decide, user_id), user_id)

    async def submit(
        self,
        game_id: str,
        user_id: int,
        move: object,
        expected_version: object,
        *,
        submission_id: str | None = None,
    ) -> SubmitResult:
        """A player's move at the version they acted on (API.md ``POST .../moves``).

        ``submission_id``: the client's id of this submission (one per move it means to
        make, the same on every retry). A retry after a lost answer finds the move it
        made and answers ``ok`` again (with the current view) instead of ``stale``, while
        the move is among the game's last few commits. Without one, the commit still
        carries an id of its own (``Records.commit``)."""
        if (
            not isinstance(move, dict)
            or not isinstance(move.get("type"), str)
            or isinstance(expected_version, bool)
            or not isinstance(expected_version, int)
            or not (submission_id is None or isinstance(submission_id, str))
        ):
            return SubmitResult(
                "invalid",
                None,
                "bad_move",
                "move must be an object with a type, version an integer "
                "(and submission_id a string)",
            )
        sid = None if submission_id is None else client_submission_id(user_id, submission_id)
        if move["type"] == "take_seat_back":
            try:
                return SubmitResult("ok", await self.take_seat_back(game_id, user_id))
            except ServiceError as exc:
                if exc.code not in ("not_seated", "kicked"):
                    raise
                view = await self.queries.view(game_id, user_id)
                return SubmitResult("forbidden", view, exc.code)
        records, render = self.records, self.queries.render
        async with records.lock(game_id):
            recent = records.recent_at(game_id, expected_version)
            if recent is not None:  # the usual case: no load, straight to the commit
                result = await self._submit_at(recent, user_id, move, expected_version, sid)
                if result is not None and result.status == "ok":
                    return result
            # anything else is answered from a fresh load
            loaded = await records.load(game_id)
            done = await self._submit_at(loaded, user_id, move, expected_version, sid)
            if done is not None and done.reason == "stale_version":
                store = records.store
                if sid is not None and await store.submitted(game_id, sid) is not None:
                    return SubmitResult("ok", render(loaded, user_id))  # made already
                newer_epoch = expected_version // EPOCH_GAP < loaded.version // EPOCH_GAP
                if newer_epoch and await store.renumbered_from(game_id) == expected_version:
                    # a new master renumbered the very state the player saw (an epoch)
                    done = await self._submit_at(loaded, user_id, move, loaded.version, sid)
            if done is None:
                loaded = await records.load(game_id)
                done = SubmitResult("stale", render(loaded, user_id), "stale_version")
            return done

    async def _submit_at(
        self,
        loaded: Loaded,
        user_id: int,
        move: dict[str, object],
        expected_version: int,
        submission: str | None = None,
    ) -> SubmitResult | None:
        """Decide and commit a move on ``loaded``; None when the commit lost the race."""
        meta = loaded.meta
        seat = meta.seat_of(user_id)
        render = self.queries.render
        if move["type"] == "timeout":
            return SubmitResult("forbidden", render(loaded, user_id), "server_only")
        if seat is None:
            return SubmitResult("forbidden", render(loaded, user_id), "not_seated")
        if loaded.version != expected_version:
            return SubmitResult("stale", render(loaded, user_id), "stale_version")
        if loaded.state is None or meta.cancelled:
            return SubmitResult("illegal", render(loaded, user_id), "wrong_phase")
        if meta.paused:
            return SubmitResult("illegal", render(loaded, user_id), "game_paused")
        if meta.seats[seat].auto:
            return SubmitResult("forbidden", render(loaded, user_id), "seat_taken_over")
        try:
            change = self.step(loaded, meta, seat, move)
        except engine.IllegalMove as exc:
            return SubmitResult("illegal", render(loaded, user_id), str(exc.reason), exc.message)
        except engine.MoveFormatError as exc:
            return SubmitResult("invalid", render(loaded, user_id), "bad_move", str(exc))
        meta.seats[seat].timeouts = 0
        change.present = user_id
        new = await self.records.commit(loaded, change, submission)
        if new is None:
            return None
        return SubmitResult("ok", render(new, user_id))


def _record_round(meta: Meta, new_state: engine.GameState) -> None:
    """Keep the round's result in the meta (once per round), for the game's record."""
    round_no = new_state.round
    if any(r.get("round") == round_no for r in meta.rounds_log):
        return
    before = [0] * len(meta.seats)
    for r in meta.rounds_log:
        before = [b + g for b, g in zip(before, r.get("gold", []), strict=False)]
    result = engine.view_for(new_state, None).get("round_result")
    meta.rounds_log.append(round_record(round_no, result, before, list(engine.scores(new_state))))
