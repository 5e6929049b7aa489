"""Telegram output for game changes: each side effect once, the group within budget.

The service publishes "game G is at version V" (principle 6). Every worker hears it; each
effect is claimed (``claim_once``) under a key naming what it is — the deal of round r,
the prompt of version V, the reveal of round r, the final scores — so it happens once
whatever the number of workers, and a missed intermediate version loses nothing (the
next view still shows the latest state). The group's one board message is redrawn by a
per-game loop that coalesces changes (latest version wins) and waits for the chat's token
bucket, so a game never exceeds the group limit (principles 8, 9).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

from telegram import Bot, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter, TelegramError

from core.engine.shapes import ViewDict
from core.service import Change, TurnWarning
from telegram_bot import keyboards as kb
from telegram_bot import texts
from telegram_bot.deps import BotDeps
from telegram_bot.i18n import Translator
from telegram_bot.panels import hand_key, redraw_open_hand, render_panel, send_panel, send_private
from telegram_bot.port import SeatInfo

log = logging.getLogger(__name__)
# adapter data: the spectator view of the game's latest change, as its one claimer read it,
# so a worker whose board draw finds the game moved on needs no second read of its own
SHARED_VIEW = "view"
SHARED_VIEW_WAIT_S = 1.0  # how long a draw waits for the claimer to share what it read


class Notifier:
    def __init__(self, bot: Bot, deps: BotDeps, *, warn_before_s: int = 15) -> None:
        self.bot = bot
        self.deps = deps
        self.warn_before_s = warn_before_s
        self._pending: dict[str, int] = {}  # game -> highest version heard
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._latest: dict[str, ViewDict] = {}  # game -> newest view this worker read
        self._board_dirty: set[str] = set()
        self._board_tasks: dict[str, asyncio.Task[None]] = {}
        self._warn_tasks: dict[str, asyncio.Task[None]] = {}
        self._tick_tasks: dict[str, asyncio.Task[None]] = {}
        self._panel_tasks: dict[str, asyncio.Task[None]] = {}
        self._panels_latest: dict[str, tuple[ViewDict, list[SeatInfo]]] = {}
        self._picture_key: dict[str, str] = {}
        self._sent: dict[str, tuple[str, str]] = {}  # last caption/text and markup per game
        self._tasks: list[asyncio.Task[None]] = []
        self._watch: dict[str, asyncio.Task[None]] = {}
        self._has_feed = False
        self._lobby_msgs: dict[str, tuple[int, int]] = {}  # last resort, see _close_lobby
        # what this worker did, for tests and benchmarks: changes claimed, spectator views
        # read (per change, for a board drawn after the game moved, for a countdown tick),
        # pictures rendered and sent
        self.stats: Counter[str] = Counter()

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        self._has_feed = True
        self._tasks.append(asyncio.create_task(self._consume(self.deps.port.changes())))
        self.deps.port.service.on_turn_warning(self._service_warning)
        self.warn_before_s = -1  # the service warns; no local timers

    async def stop(self) -> None:
        tasks = [
            *self._tasks,
            *self._workers.values(),
            *self._board_tasks.values(),
            *self._warn_tasks.values(),
            *self._tick_tasks.values(),
            *self._panel_tasks.values(),
            *self._watch.values(),
        ]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _consume(self, feed: AsyncIterator[Change]) -> None:
        async for change in feed:
            self.on_change(str(change.game_id), int(change.version))

    def watch(self, game_id: str) -> None:
        """Follow one game when the service offers no global change feed."""
        if self._has_feed or game_id in self._watch:
            return
        listen = self.deps.port.service.listen

        async def follow() -> None:
            async for version in listen(game_id):
                self.on_change(game_id, int(version))

        self._watch[game_id] = asyncio.create_task(follow())

    def poke(self, game_id: str) -> None:
        """A handler changed the game. Its change is claimed like any other (the current
        version's claim), so the change feed and the poke process it once between them,
        and a change that is no commit of a move (a new lobby) is not missed."""
        self.on_change(game_id, 0)

    def redraw(self, game_id: str) -> None:
        """Something that is no commit changed the group's message (the lobby's settings
        page was opened or closed): redraw it here, from a fresh view."""
        self._latest.pop(game_id, None)
        self.request_board(game_id)

    def on_change(self, game_id: str, version: int) -> None:
        """Game ``game_id`` is at ``version``: process it (coalesced, one task per game)."""
        self._pending[game_id] = max(version, self._pending.get(game_id, 0))
        task = self._workers.get(game_id)
        if task is None or task.done():
            self._workers[game_id] = asyncio.create_task(self._work(game_id))

    async def _work(self, game_id: str) -> None:
        while game_id in self._pending:
            version = self._pending.pop(game_id)
            try:
                sv = await self._claim_and_read(game_id, version)
                if sv is not None:
                    await self._process(game_id, sv)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("notifier failed for game %s", game_id)

    async def _claim_and_read(self, game_id: str, version: int) -> ViewDict | None:
        """Claim first, read once (principle 9): the change is claimed across workers
        before anything is read; only its one claimer reads the spectator view. A worker
        that heard an older version claims the current one instead, so no change is read
        twice and none is left unclaimed."""
        current = await self.deps.port.version(game_id)
        if current is None:
            await self._close_lobby(game_id, started=False)
            return None
        version = max(version, current)
        if not await self.deps.runtime.claim(f"chg:{game_id}:{version}", 3600):
            return None
        self.stats["changes"] += 1
        sv = await self._read(game_id, "change")
        if sv is None:
            await self._close_lobby(game_id, started=False)
            return None
        await self.deps.runtime.set_game_data(
            game_id, SHARED_VIEW, json.dumps(sv, separators=(",", ":"), ensure_ascii=False)
        )
        return sv

    async def _read(self, game_id: str, why: str) -> ViewDict | None:
        """The spectator view, counted by why it was read."""
        self.stats["views"] += 1
        self.stats["views_" + why] += 1
        sv = await self.deps.port.view(game_id, None)
        if sv is not None:
            known = self._latest.get(game_id)
            if known is None or int(known.get("version", 0)) <= int(sv.get("version", 0)):
                self._latest[game_id] = sv
        return sv

    # ------------------------------------------------------------------ processing
    async def _process(self, game_id: str, sv: ViewDict) -> None:
        port = self.deps.port
        status = sv.get("status")
        self.request_board(game_id)
        if status in ("lobby", "cancelled"):
            # the lobby's countdown and expiry are the service's timer; the board loop
            # draws the countdown from the view, or closes the lobby message (cancelled or
            # expired: a commit every worker hears, the claim picks one)
            return
        seats = await port.seats(game_id)
        humans = [s for s in seats if s.user_id is not None and not s.computer]
        version = int(sv.get("version", 0))
        rnd = int(sv.get("round", 1))
        runtime = self.deps.runtime
        if status in ("playing", "stealing", "round_over") and await runtime.claim(
            f"deal:{game_id}:{rnd}"
        ):
            # The actor's deal is also their turn prompt: claim it first, and leave the
            # actor out if another worker's prompt got there before (one panel per version).
            acting = sv.get("current_seat") if status in ("playing", "stealing") else None
            prompt_ours = acting is not None and await runtime.claim(f"prompt:{game_id}:{version}")
            for s in humans:
                if s.auto or (s.seat == acting and not prompt_ours):
                    continue
                title = "🎲 " + (await self._tr(s)).gettext("Round {r} begins.", r=rnd)
                await send_panel(
                    self.bot, self.deps, game_id, int(s.user_id or 0), title=title, name=s.name
                )
                await self._panel_shown(game_id, s, sv)
        await self._timeouts(game_id, sv, seats)
        await self._takeovers(game_id, seats)
        await self._role_changes(game_id, sv, seats)
        current = sv.get("current_seat")
        if status in ("playing", "stealing") and current is not None:
            actor = next((s for s in humans if s.seat == current and not s.auto), None)
            if actor is not None:
                if await runtime.claim(f"prompt:{game_id}:{version}"):
                    await send_panel(
                        self.bot, self.deps, game_id, int(actor.user_id or 0), name=actor.name
                    )
                self._arm_warning(game_id, version, sv, actor)
        if status in ("playing", "stealing", "round_over"):
            self._panels_latest[game_id] = (sv, humans)
            task = self._panel_tasks.get(game_id)
            if task is None or task.done():
                self._panel_tasks[game_id] = asyncio.create_task(self._panels_loop(game_id))
        if (
            status == "round_over"
            and sv.get("round_result")
            and await runtime.claim(f"reveal:{game_id}:{rnd}")
        ):
            for s in humans:  # private first: the group may have to wait for its budget
                if not s.auto:
                    await send_panel(self.bot, self.deps, game_id, int(s.user_id or 0), name=s.name)
                    await self._panel_shown(game_id, s, sv)
            await self._send_group(game_id, lambda t: texts.round_result_text(t, sv), sv)
        if status == "finished" and await runtime.claim(f"final:{game_id}"):
            # the last round's reveal and the final scores in one group message
            await self._send_group(
                game_id,
                lambda t: "\n\n".join(
                    filter(
                        None,
                        [
                            texts.round_result_text(t, sv) if sv.get("round_result") else "",
                            texts.final_text(t, sv),
                        ],
                    )
                ),
                sv,
                markup=lambda t: kb.history_keyboard(  # the game's replay, "My games"
                    t,
                    self.deps.bot_username,
                    self.deps.settings.miniapp_short_name,
                    game_id=game_id,
                ),
            )
            for s in humans:
                t = await self._tr(s)
                await send_private(
                    self.bot, self.deps, int(s.user_id or 0), texts.final_text(t, sv)
                )

    # ------------------------------------------------------------------ waiting panels
    async def _panels_loop(self, game_id: str) -> None:
        while game_id in self._panels_latest:
            sv, humans = self._panels_latest.pop(game_id)
            try:
                await self._refresh_panels(game_id, sv, humans)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("panel refresh failed for %s", game_id)

    async def _panel_shown(self, game_id: str, s: SeatInfo, sv: ViewDict) -> None:
        """A fresh panel went to this player: it shows this state (see _refresh_panels)."""
        shown = f"{sv.get('status')}:{sv.get('current_seat')}:{sv.get('round')}"
        await self.deps.runtime.set_game_data(game_id, f"shown:{int(s.user_id or 0)}", shown)

    async def _refresh_panels(self, game_id: str, sv: ViewDict, humans: list[SeatInfo]) -> None:
        """Keep the private panels of the players who wait current: a panel that says
        "Waiting for X" is redrawn once the turn moved on (bulk sends: prompts first, and
        a newer change replaces this one while it waits). The actor got a fresh prompt;
        the player whose move made this change had their panel redrawn by their press."""
        status, current = sv.get("status"), sv.get("current_seat")
        shown = f"{status}:{current}:{sv.get('round')}"  # what "Waiting for X" depends on
        last = (sv.get("log") or [{}])[-1]
        mover = last.get("seat") if not last.get("timeout") else None
        data = await self.deps.runtime.get_game_data(game_id)
        version = int(sv.get("version", 0))
        await self._redraw_hand(game_id, version, status, current, mover, humans, data)
        for s in humans:
            uid = int(s.user_id or 0)
            if s.auto or f"panel:{uid}" not in data or data.get(f"shown:{uid}") == shown:
                continue
            if (status != "round_over" and s.seat == current) or s.seat == mover:
                await self.deps.runtime.set_game_data(game_id, f"shown:{uid}", shown)
                continue
            if game_id in self._panels_latest:
                return  # the game moved on again: the newer change redraws them
            if not await self.deps.runtime.claim(f"panel:{game_id}:{uid}:{version}", 600):
                continue
            view = await self.deps.port.view(game_id, uid)
            if view is None:
                return
            t = await self._tr(s)
            text, markup = render_panel(t, self.deps, view)
            await self.deps.runtime.acquire_private(bulk=True)
            with contextlib.suppress(TelegramError):
                await self.bot.edit_message_text(
                    text,
                    uid,
                    int(data[f"panel:{uid}"]),
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    disable_web_page_preview=True,
                )
                self.stats["panels_refreshed"] += 1
            await self.deps.runtime.set_game_data(game_id, f"shown:{uid}", shown)

    async def _redraw_hand(
        self,
        game_id: str,
        version: int,
        status: object,
        current: object,
        mover: object,
        humans: list[SeatInfo],
        data: dict[str, str],
    ) -> None:
        """The new actor's hand, when they keep it open in the group, shows their turn
        (once across workers; the mover's own press redrew theirs). The others' open hands
        wait for a press: redrawing every one at every turn would spend the group's budget."""
        if status not in ("playing", "stealing") or current is None or current == mover:
            return
        actor = next((s for s in humans if s.seat == current and not s.auto), None)
        if actor is None or not data.get(hand_key(int(actor.user_id or 0))):
            return
        uid = int(actor.user_id or 0)
        if not await self.deps.runtime.claim(f"hand:{game_id}:{uid}:{version}", 600):
            return
        if await redraw_open_hand(self.bot, self.deps, game_id, uid, await self._tr(actor)):
            self.stats["hands_redrawn"] += 1

    async def _tr(self, s: SeatInfo) -> Translator:
        """The player's language: their /lang choice, else the language they joined with
        (in the game's seats), else the last client language seen (store preferences)."""
        return Translator(await self.deps.user_language_by_id(int(s.user_id or 0), s.language))

    async def _timeouts(self, game_id: str, sv: ViewDict, seats: list[SeatInfo]) -> None:
        version = int(sv.get("version", 0))
        for entry in sv.get("log") or []:
            if not entry.get("timeout"):
                continue
            v = int(entry.get("version", entry.get("seq", 0)) or 0)
            if v < version - 5:
                continue
            seat = next((s for s in seats if s.seat == entry.get("seat")), None)
            if seat is None or seat.user_id is None or seat.computer:
                continue
            if await self.deps.runtime.claim(f"timeout:{game_id}:{v}:{seat.seat}"):
                t = await self._tr(seat)
                text = (
                    t.gettext("Your time ran out: I stole from the richest player for you.")
                    if entry.get("code") == "stole"
                    else t.gettext("Your time ran out: I played for you (a card was discarded).")
                )
                await send_private(self.bot, self.deps, seat.user_id, "⌛ " + text)

    async def _takeovers(self, game_id: str, seats: list[SeatInfo]) -> None:
        data = await self.deps.runtime.get_game_data(game_id)
        before = set(json.loads(data.get("auto", "[]")))
        now = {s.seat for s in seats if s.auto and not s.computer}
        if now == before:
            return
        await self.deps.runtime.set_game_data(game_id, "auto", json.dumps(sorted(now)))
        for s in seats:
            if (
                s.seat in now - before
                and s.user_id is not None
                and await self.deps.runtime.claim(
                    f"auto:{game_id}:{s.seat}:{len(before)}:{sorted(now)}"
                )
            ):
                t = await self._tr(s)
                await send_panel(
                    self.bot,
                    self.deps,
                    game_id,
                    s.user_id,
                    name=s.name,
                    title="🤖 "
                    + t.gettext(
                        "The computer plays your seat now. Press “Take my seat back” to play again."
                    ),
                )
                name = texts.esc(s.name or str(s.user_id))
                await self._send_group(
                    game_id,
                    lambda g, name=name: (
                        "🤖 " + g.gettext("The computer plays {name}'s seat now.", name=name)
                    ),
                )

    async def _role_changes(self, game_id: str, sv: ViewDict, seats: list[SeatInfo]) -> None:
        """ "Swap your hats" (Saboteur 2) gave a player a new role: tell them at once, in
        their private panel (which shows the role), not at their next prompt."""
        version = int(sv.get("version", 0))
        for entry in sv.get("log") or []:
            if entry.get("code") != "hats_swapped":
                continue
            v = int(entry.get("version", entry.get("seq", 0)) or 0)
            if v < version - 5:
                continue
            seat = next((s for s in seats if s.seat == entry.get("target_seat")), None)
            if seat is None or seat.user_id is None or seat.computer:
                continue
            if await self.deps.runtime.claim(f"hats:{game_id}:{v}:{seat.seat}"):
                t = await self._tr(seat)
                await send_panel(
                    self.bot,
                    self.deps,
                    game_id,
                    seat.user_id,
                    name=seat.name,
                    title="🎩 " + t.gettext("Your hat was swapped: your role changed."),
                )

    # ------------------------------------------------------------------ warnings
    def _arm_warning(self, game_id: str, version: int, sv: ViewDict, actor: SeatInfo) -> None:
        deadline = sv.get("turn_deadline")
        if not deadline or self.warn_before_s < 0:
            return
        at = _parse_deadline(deadline)
        if at is None:
            return
        old = self._warn_tasks.pop(game_id, None)
        if old is not None:
            old.cancel()
        left = at - time.time()
        warn_at = max(left / 2, left - self.warn_before_s)
        if left <= 1:
            return

        async def fire() -> None:
            await asyncio.sleep(warn_at)
            now = await self.deps.port.view(game_id, None)
            if now is None or int(now.get("version", 0)) != version:
                return
            await self._warn(game_id, version, int(actor.user_id or 0), int(left - warn_at))

        self._warn_tasks[game_id] = asyncio.create_task(fire())

    async def _service_warning(self, warning: TurnWarning) -> None:
        left = max(1, int(warning.deadline_ms / 1000 - time.time()))
        await self._warn(warning.game_id, warning.version, warning.user_id, left)

    async def _warn(self, game_id: str, version: int, user_id: int, left: int) -> None:
        if not await self.deps.runtime.claim(f"warn:{game_id}:{version}"):
            return
        t = Translator(await self.deps.user_language_by_id(user_id))
        await send_private(
            self.bot,
            self.deps,
            user_id,
            "⏳ " + t.gettext("Hurry: {s} s left for your move.", s=left),
        )

    # ------------------------------------------------------------------ group output
    async def _send_group(
        self, game_id: str, render: Any, view: ViewDict | None = None, markup: Any = None
    ) -> None:
        """``markup``: the message's keyboard from the group's translator, or None."""
        chat = await self.deps.port.chat_of(game_id)
        if chat is None:
            return
        t = await self.deps.tr_game(chat.chat_id, game_id, view)
        await self.deps.runtime.acquire(chat.chat_id)
        try:
            await self.bot.send_message(
                chat.chat_id,
                render(t),
                parse_mode=ParseMode.HTML,
                message_thread_id=chat.topic_id,
                reply_markup=markup(t) if markup else None,
            )
        except TelegramError:
            log.exception("group message for %s failed", game_id)

    def request_board(self, game_id: str) -> None:
        """Redraw the group's message for this game soon (coalesced, budgeted)."""
        self._board_dirty.add(game_id)
        task = self._board_tasks.get(game_id)
        if task is None or task.done():
            self._board_tasks[game_id] = asyncio.create_task(self._board_loop(game_id))

    async def _board_loop(self, game_id: str) -> None:
        chat = await self.deps.port.chat_of(game_id)
        if chat is None:
            self._board_dirty.discard(game_id)
            return
        while game_id in self._board_dirty:
            self._board_dirty.discard(game_id)
            try:
                await self._draw(game_id, chat.chat_id, chat.topic_id)
            except RetryAfter as exc:
                self._board_dirty.add(game_id)
                await asyncio.sleep(float(_seconds(exc.retry_after)))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("board update failed for %s", game_id)

    async def _view_for_draw(self, game_id: str) -> ViewDict | None:
        """The newest view this worker read or, when the game moved on, the one the claimer
        of the current version shared (a group message always shows the server's latest
        state); a read of its own only when that one does not come in time."""
        sv = self._latest.get(game_id)
        current = await self.deps.port.version(game_id)
        if current is None:
            return None
        if sv is None or int(sv.get("version", 0)) < current:
            sv = await self._shared_view(game_id, current) or await self._read(game_id, "draw")
        return sv

    async def _shared_view(self, game_id: str, current: int) -> ViewDict | None:
        """The current version's view as its claimer shared it; it may still be reading."""
        deadline = time.monotonic() + SHARED_VIEW_WAIT_S
        while True:
            raw = await self.deps.runtime.get_game_value(game_id, SHARED_VIEW)
            sv: ViewDict | None = json.loads(raw) if raw else None  # as its claimer wrote it
            if isinstance(sv, dict) and int(sv.get("version", 0)) >= current:
                self.stats["views_shared"] += 1
                known = self._latest.get(game_id)
                if known is None or int(known.get("version", 0)) <= int(sv["version"]):
                    self._latest[game_id] = sv
                return sv
            if time.monotonic() >= deadline:
                return None
            await asyncio.sleep(0.05)

    async def _draw(self, game_id: str, chat_id: int, topic_id: int | None) -> None:
        """Lobby changes go first (an urgent send); a board picture is a bulk send, drawn
        only once its token is in hand, from the latest view, so each picture rendered is
        sent and a burst of moves costs one picture (latest version wins)."""
        sv = await self._view_for_draw(game_id)
        if sv is None:
            await self._close_lobby(game_id, started=False)
            return
        data = await self.deps.runtime.get_game_data(game_id)
        if sv.get("status") == "cancelled" and "board_msg" not in data:
            await self._close_lobby(game_id, started=False)
            return
        if sv.get("status") == "lobby":
            out = await self._lobby_out(game_id, chat_id, sv, data)
            if out is None:
                return
            await self.deps.runtime.acquire(chat_id)
            fresh = await self._view_for_draw(game_id)  # presses made while we waited
            if fresh is not None and fresh.get("version") != sv.get("version"):
                if fresh.get("status") != "lobby":
                    self._board_dirty.add(game_id)  # started meanwhile: draw the board
                    return
                out = await self._lobby_out(game_id, chat_id, fresh, data) or out
            await self._send_lobby(game_id, chat_id, topic_id, out)
            self._arm_tick(game_id, fresh or sv)
            return
        if "lobby_msg" in data and "board_msg" not in data:
            await self._close_lobby(game_id, started=True)  # Join buttons go first
        key = _picture_key(sv, await self.deps.tr_chat(chat_id, sv))
        caption_before = self._sent.get(game_id)
        t = await self.deps.tr_chat(chat_id, sv)
        caption = texts.board_caption(t, sv)
        markup = kb.board_keyboard(
            t, game_id, self.deps.bot_username, self.deps.settings.miniapp_short_name
        )
        if (
            "board_msg" in data
            and caption_before == (caption, markup.to_json())
            and self._picture_key.get(game_id) == key
        ):
            return  # nothing visible changed: spend no group call
        await self.deps.runtime.acquire(chat_id, bulk=True)
        fresh = await self._view_for_draw(game_id)
        if fresh is not None and fresh.get("version") != sv.get("version"):
            sv = fresh
            t = await self.deps.tr_chat(chat_id, sv)
            caption = texts.board_caption(t, sv)
            key = _picture_key(sv, t)
        await self._send_board(game_id, chat_id, topic_id, sv, t, caption, markup, key, data)

    async def _lobby_out(
        self, game_id: str, chat_id: int, sv: ViewDict, data: dict[str, str]
    ) -> dict[str, Any] | None:
        t = await self.deps.tr_chat(chat_id, sv)
        turn_time = (sv.get("settings") or {}).get("turn_time")
        at = _parse_deadline(sv.get("autostart_at"))
        text = texts.lobby_text(
            t, sv, autostart_in=None if at is None else int(at - time.time()), turn_time=turn_time
        )
        if data.get("lobby_mode") == "settings":
            markup = kb.settings_keyboard(t, sv, turn_time, t.language)
        else:
            markup = kb.lobby_keyboard(t, game_id, self.deps.bot_username)
        if "lobby_msg" in data and self._sent.get(game_id) == (text, markup.to_json()):
            return None
        return {"text": text, "markup": markup, "data": data, "version": sv.get("version")}

    async def _send_lobby(
        self, game_id: str, chat_id: int, topic_id: int | None, out: dict[str, Any]
    ) -> None:
        data: dict[str, str] = out["data"]
        text, markup = out["text"], out["markup"]
        try:
            if "lobby_msg" not in data:
                if not await self.deps.runtime.claim(f"lobbymsg:{game_id}", 3600):
                    self.deps.runtime.take_prepaid()  # the token goes unused
                    return
                msg = await self.bot.send_message(
                    chat_id,
                    text,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    message_thread_id=topic_id,
                )
                await self.deps.runtime.set_game_data(game_id, "lobby_msg", str(msg.message_id))
                self._lobby_msgs[game_id] = (chat_id, msg.message_id)
            else:
                self._lobby_msgs[game_id] = (chat_id, int(data["lobby_msg"]))
                await self.bot.edit_message_text(
                    text,
                    chat_id,
                    int(data["lobby_msg"]),
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                )
            self._sent[game_id] = (text, markup.to_json())
        except BadRequest as exc:
            if "not modified" not in str(exc).lower():
                raise
            self._sent[game_id] = (text, markup.to_json())

    async def _send_board(
        self,
        game_id: str,
        chat_id: int,
        topic_id: int | None,
        sv: ViewDict,
        t: Translator,
        caption: str,
        markup: Any,
        key: str,
        data: dict[str, str],
    ) -> None:
        picture_changed = self._picture_key.get(game_id) != key
        try:
            if "board_msg" not in data:
                if not await self.deps.runtime.claim(f"boardmsg:{game_id}", 3600):
                    self.deps.runtime.take_prepaid()
                    return
                picture = await self._picture(sv, t)
                msg = await self.bot.send_photo(
                    chat_id,
                    picture[0],
                    caption=caption,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    message_thread_id=topic_id,
                )
                self.stats["pictures_sent"] += 1
                await self.deps.runtime.set_game_data(game_id, "board_msg", str(msg.message_id))
            elif not picture_changed:
                await self.bot.edit_message_caption(
                    chat_id,
                    int(data["board_msg"]),
                    caption=caption,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                )
            else:
                picture = await self._picture(sv, t)
                await self.bot.edit_message_media(
                    InputMediaPhoto(picture[0], caption=caption, parse_mode=ParseMode.HTML),
                    chat_id,
                    int(data["board_msg"]),
                    reply_markup=markup,
                )
                self.stats["pictures_sent"] += 1
            self._picture_key[game_id] = key
            self._sent[game_id] = (caption, markup.to_json())
        except BadRequest as exc:
            if "not modified" not in str(exc).lower():
                raise

    # ------------------------------------------------------------------ lobby countdown
    def _arm_tick(self, game_id: str, sv: ViewDict) -> None:
        """The lobby's "Starts by itself in N min" counts down: a redraw when the shown
        figure changes (each minute, then at 30 s and 10 s), once across workers (a claim),
        as a bulk send so that presses go first."""
        at = _parse_deadline(sv.get("autostart_at"))
        old = self._tick_tasks.pop(game_id, None)
        if old is not None and old is not asyncio.current_task():
            old.cancel()
        if at is None or sv.get("status") != "lobby":
            return
        left = at - time.time()
        marks = [m for m in (*range(60 * int(left // 60), 59, -60), 30, 10) if 0 < m < left]
        if not marks:
            return

        async def tick() -> None:
            mark = marks[0]
            await asyncio.sleep(max(0.0, left - mark - (time.time() - now)) + 0.05)
            if await self.deps.runtime.claim(f"tick:{game_id}:{int(at)}:{mark}", 600):
                self.stats["ticks"] += 1
                self.redraw(game_id)

        now = time.time()
        self._tick_tasks[game_id] = asyncio.create_task(tick())

    async def _picture(self, sv: ViewDict, t: Translator) -> tuple[bytes, str]:
        from telegram_bot.board_picture import render_board_async

        self.stats["pictures_rendered"] += 1
        result: tuple[bytes, str] = await render_board_async(
            sv, font_path=self.deps.settings.board_font, labels=texts.picture_labels(t)
        )
        return result

    async def _close_lobby(self, game_id: str, *, started: bool) -> None:
        """Mark the lobby message closed, once (the claim) whichever worker gets here.

        Cancelled and expired lobbies arrive as a ``cancelled`` commit (the service's lobby
        timer expires an idle lobby), with the message id still in the adapter data. Only
        when the record itself is gone (no worker ran timers for the grace period) is the
        id taken from this process's memory, as a last resort."""
        data = await self.deps.runtime.get_game_data(game_id)
        if "board_msg" in data:
            return
        chat = await self.deps.port.chat_of(game_id)
        known = self._lobby_msgs.get(game_id)
        chat_id = chat.chat_id if chat is not None else (known[0] if known else None)
        msg_id = int(data["lobby_msg"]) if "lobby_msg" in data else (known[1] if known else None)
        if chat_id is None or msg_id is None:
            return
        if not await self.deps.runtime.claim(f"lobbyclosed:{game_id}"):
            return
        self._lobby_msgs.pop(game_id, None)
        t = await self.deps.tr_game(chat_id, game_id)
        await self.deps.runtime.acquire(chat_id)
        with contextlib.suppress(TelegramError):
            await self.bot.edit_message_text(texts.lobby_closed_text(t, started), chat_id, msg_id)


def _seconds(value: Any) -> float:
    return float(value.total_seconds()) if hasattr(value, "total_seconds") else float(value)


def _parse_deadline(value: Any) -> float | None:
    """turn_deadline / autostart_at as epoch seconds (ISO string or milliseconds)."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float):
        return float(value) / (1000.0 if value > 1e11 else 1.0)
    try:
        from datetime import datetime

        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


PICTURE_FIELDS = ("board", "goals", "seats", "current_seat", "round", "rounds", "deck_size")


def _picture_key(sv: ViewDict, t: Translator) -> str:
    """What the board picture shows, without drawing it: the same key, the same picture."""
    shown = {k: sv.get(k) for k in PICTURE_FIELDS}
    shown["status"] = sv.get("status")
    shown["route"] = (sv.get("round_result") or {}).get("route")
    shown["labels"] = t.language
    raw = json.dumps(shown, sort_keys=True, default=str).encode()
    return hashlib.sha1(raw).hexdigest()
