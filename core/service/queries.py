"""Reads and once-only side effects of the service (views, logs, indexes, stats, dedupe),
and the adapters' data kept with a game."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

from core import engine
from core.engine.shapes import EventDict, ViewDict
from core.service import history, movelog
from core.service.archive import chat_stats, user_stats
from core.service.models import ChatKey, SeatInfo, ServiceError
from core.service.records import TOUCH_EVERY_MS, Loaded, Records
from core.service.views import game_view, lobby_view, rewrite_entry
from core.store import STORE_UNAVAILABLE, Change, SendBudget

log = logging.getLogger(__name__)


class Queries:
    """Reads: every view leaves through ``render``; presence writes are rationed here."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.store = records.store
        self.config = records.config
        self._touched: dict[tuple[str, int], int] = {}  # (game, user) -> last presence seen

    def render(self, loaded: Loaded, user_id: int | None) -> ViewDict:
        """The view of ``loaded`` for ``user_id`` (a player's, or the spectators')."""
        window = self.config.online_window_s * 1000
        now = self.records.now_ms()
        if loaded.state is None:
            return lobby_view(
                loaded.meta,
                version=loaded.version,
                viewer=user_id,
                presence=loaded.presence,
                now_ms=now,
                window_ms=window,
            )
        # an idle game's deadline is its expiry, not anyone's turn running out
        turn_deadline = None if loaded.meta.idle_until is not None else loaded.deadline_ms
        return game_view(
            loaded.meta,
            loaded.state,
            version=loaded.version,
            viewer=user_id,
            presence=loaded.presence,
            deadline_ms=turn_deadline,
            now_ms=now,
            window_ms=window,
        )

    # ================================================================= reads
    async def view(self, game_id: str, user_id: int | None) -> ViewDict:
        """The player's view, or the spectator view for anyone not seated."""
        loaded = await self.records.load(game_id, read_only=True)  # views never change the meta
        if user_id is not None:  # presence as stored: a touch right after may be skipped
            seen = loaded.presence.get(str(user_id))
            if seen is not None and seen > self._touched.get((game_id, user_id), 0):
                self._remember_touch(game_id, user_id, seen)
        return self.render(loaded, user_id)

    async def version(self, game_id: str) -> int:
        """The current version only (one small read; websocket resyncs)."""
        version = await self.store.version(game_id)
        if version is None:
            raise ServiceError("not_found", "no such game")
        return version

    async def log(self, game_id: str, since_version: int = 0) -> list[EventDict]:
        """Public log entries after ``since_version`` (API.md ``GET .../log?since=V``)."""
        loaded = await self.records.load(game_id)
        if loaded.state is None:
            return []
        entries = (rewrite_entry(loaded.meta, e) for e in engine.public_log(loaded.state))
        return [e for e in entries if e.get("version", 0) > since_version]

    async def move_log(self, game_id: str) -> list[dict[str, object]]:
        """The committed moves (server-side: replays, checks), live or archived."""
        raw = await self.store.read_log(game_id) or await self.store.archived_log(game_id)
        return [movelog.decode(e) for e in raw]

    async def seats(self, game_id: str) -> list[SeatInfo]:
        """Seat owners for adapters (e.g. whom to message); never put these in a view."""
        loaded = await self.records.load(game_id)
        return [s.info(i) for i, s in enumerate(loaded.meta.seats)]

    async def chat_of(self, game_id: str) -> ChatKey | None:
        return (await self.records.load(game_id)).meta.chat_key

    async def game_for_chat(self, chat: ChatKey) -> str | None:
        """The open lobby or game of a chat/topic (finished or expired ones are unbound)."""
        game_id = await self.store.chat_game(chat.chat_id, chat.topic_id)
        if game_id is None:
            return None
        try:
            loaded = await self.records.load(game_id)
        except ServiceError:
            loaded = None
        over = (
            loaded is None
            or loaded.meta.cancelled
            or (loaded.state is not None and engine.phase(loaded.state) == "finished")
        )
        if over:
            await self.store.unbind_chat(chat.chat_id, chat.topic_id, game_id)
            return None
        return game_id

    async def games_for_user(self, user_id: int) -> list[str]:
        """Live games a user is seated in (newest first); expired ones are dropped."""
        live = []
        for game_id in await self.store.user_games(user_id):
            try:
                loaded = await self.records.load(game_id)
            except ServiceError:
                await self.store.remove_user_game(user_id, game_id)
                continue
            if loaded.meta.seat_of(user_id) is not None and not loaded.meta.cancelled:
                live.append(game_id)
        return live

    async def touch(self, game_id: str, user_id: int) -> None:
        """Mark a user present (the ``online`` flag); no version change, no notice.

        A client re-reads its view after every notice: writing presence each time would be
        a Redis round trip per GET for a flag with a 2-minute window, so the write is
        skipped when the stored presence (as this worker last saw or wrote it) is less than
        TOUCH_EVERY_MS old: ``online`` then lasts 1.5–2 minutes after the last request."""
        now = self.records.now_ms()
        last = self._touched.get((game_id, user_id))
        if last is not None and 0 <= now - last < TOUCH_EVERY_MS:
            return
        await self.store.touch(game_id, str(user_id), now)
        self._remember_touch(game_id, user_id, now)

    def _remember_touch(self, game_id: str, user_id: int, ms: int) -> None:
        if len(self._touched) >= 50_000:
            self._touched.clear()
        self._touched[(game_id, user_id)] = ms

    def listen(self, game_id: str) -> AsyncIterator[int]:
        """Versions of one game as they are committed (any worker), via pub/sub."""
        return self.store.listen(game_id)

    def listen_all(self) -> AsyncIterator[Change]:
        """Every game's changes (the bot's board updater claims each with claim_once)."""
        return self.store.listen_all()

    async def stats_for_user(self, user_id: int, limit: int = 100) -> dict[str, object]:
        return user_stats(user_id, await self.store.archived_for_user(user_id, limit))

    async def stats_for_chat(self, chat_id: int, limit: int = 100) -> dict[str, object]:
        return chat_stats(chat_id, await self.store.archived_for_chat(chat_id, limit))

    async def delete_user_data(self, user_id: int) -> int:
        return await self.store.delete_user_data(user_id)

    # ====================================================== side effects once
    async def process_update_once(self, update_id: int) -> bool:
        """True the first time an update id is seen (Telegram redelivers webhooks)."""
        return await self.store.claim_once(f"upd:{int(update_id)}", self.config.update_dedupe_ttl_s)

    async def claim_side_effect(self, key: str, ttl_s: float = 3600) -> bool:
        """Outbox: True for exactly one worker per key for ``ttl_s``; the caller namespaces
        its keys (the bot's start with ``tg:``, e.g. ``tg:final:<game>``).

        Raises one of ``STORE_UNAVAILABLE`` when the store cannot be reached: a claim no
        worker can see is no claim, so the caller retries rather than sends twice."""
        return await self.store.claim_once(key, ttl_s)

    # ======================================================= the bot's send budget
    async def take_send_token(
        self, chat_id: int | None, budget: SendBudget, *, bulk: bool = False
    ) -> tuple[bool, float]:
        """The whole bot's budget (every worker and host), and a group's when ``chat_id``
        is one: (allowed, seconds to wait). ``bulk`` sends (board pictures) wait while
        urgent ones (turn prompts, lobby changes) use the reserve."""
        result = await self.store.take_send_token(chat_id, budget, bulk=bulk)
        return result.allowed, result.wait_s

    async def hold_sends(self, chat_id: int | None, seconds: float) -> None:
        """Telegram said "retry after": no worker sends (to that chat, or at all) meanwhile."""
        await self.store.hold_sends(chat_id, seconds)

    # ============================================================ adapter data
    async def get_pref(self, key: str) -> str | None:
        """A preference without expiry (``u:<user>``, ``c:<chat>``...; CONTRACTS.md §2)."""
        return await self.store.get_pref(key)

    async def set_pref(self, key: str, value: str) -> None:
        await self.store.set_pref(key, value)

    async def adapter_data(self, game_id: str) -> dict[str, str]:
        """What an adapter keeps about one game (message ids...); it lives as long as the
        game's record, and is empty for a game that is gone."""
        return await self.store.get_adapter(game_id)

    async def adapter_value(self, game_id: str, name: str) -> str | None:
        """One field of the adapter's data (a large one need not travel with the rest)."""
        return await self.store.get_adapter_value(game_id, name)

    async def set_adapter_data(self, game_id: str, name: str, value: str) -> None:
        """Keep one value about a live game (no effect once the game is gone)."""
        await self.store.set_adapter(game_id, name, value)

    # ================================================================ health
    async def ping(self) -> bool:
        """True when the store answers (the health check)."""
        try:
            return await self.store.ping()
        except STORE_UNAVAILABLE:
            return False

    # ========================================================= history
    async def finished_view(self, game_id: str, user_id: int | None) -> ViewDict:
        """A finished game's view from its archive, once its live record is gone."""
        return await history.finished_view(self.store, game_id, user_id)

    async def finished_log(self, game_id: str, since_version: int = 0) -> list[EventDict]:
        return await history.finished_log(self.store, game_id, since_version)

    async def replay(self, game_id: str) -> dict[str, object]:
        """Every round of a game, live or archived (``core.service.history``)."""
        loaded: Loaded | None
        try:
            loaded = await self.records.load(game_id, read_only=True)
        except ServiceError as exc:
            if exc.code != "not_found":
                raise
            loaded = None
        return await history.replay_of(self.store, game_id, loaded)

    async def history(self, user_id: int, limit: int = 50) -> list[history.HistoryEntry]:
        """The user's "My games": their archived games, newest first."""
        records = await self.store.archived_for_user(user_id, limit)
        return [e for r in records if (e := history.history_entry(r, user_id)) is not None]
