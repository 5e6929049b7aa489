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
from collections.abc import AsyncIterator
from typing import Any

from telegram import Bot, InputMediaPhoto
from telegram.constants import ParseMode
from telegram.error import BadRequest, RetryAfter, TelegramError

from core.service import Change, TurnWarning
from telegram_bot import keyboards as kb
from telegram_bot import texts
from telegram_bot.deps import BotDeps
from telegram_bot.i18n import Translator
from telegram_bot.panels import send_panel, send_private
from telegram_bot.port import SeatInfo

log = logging.getLogger(__name__)


class Notifier:
    def __init__(self, bot: Bot, deps: BotDeps, *, warn_before_s: int = 15) -> None:
        self.bot = bot
        self.deps = deps
        self.warn_before_s = warn_before_s
        self._dirty: set[str] = set()
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._board_dirty: set[str] = set()
        self._board_tasks: dict[str, asyncio.Task[None]] = {}
        self._warn_tasks: dict[str, asyncio.Task[None]] = {}
        self._picture_hash: dict[str, str] = {}
        self._sent: dict[str, tuple[str, str]] = {}  # last caption/text and markup per game
        self._tasks: list[asyncio.Task[None]] = []
        self._watch: dict[str, asyncio.Task[None]] = {}
        self._has_feed = False
        self._lobby_msgs: dict[str, tuple[int, int]] = {}  # last resort, see _close_lobby

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
            *self._watch.values(),
        ]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _consume(self, feed: AsyncIterator[Change]) -> None:
        async for change in feed:
            self.poke(str(change.game_id))

    def watch(self, game_id: str) -> None:
        """Follow one game when the service offers no global change feed."""
        if self._has_feed or game_id in self._watch:
            return
        listen = self.deps.port.service.listen

        async def follow() -> None:
            async for _ in listen(game_id):
                self.poke(game_id)

        self._watch[game_id] = asyncio.create_task(follow())

    def poke(self, game_id: str) -> None:
        """Something changed in this game: process it (coalesced, one worker per game)."""
        self._dirty.add(game_id)
        task = self._workers.get(game_id)
        if task is None or task.done():
            self._workers[game_id] = asyncio.create_task(self._work(game_id))

    async def _work(self, game_id: str) -> None:
        while game_id in self._dirty:
            self._dirty.discard(game_id)
            try:
                await self._process(game_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("notifier failed for game %s", game_id)

    # ------------------------------------------------------------------ processing
    async def _process(self, game_id: str) -> None:
        port = self.deps.port
        sv = await port.view(game_id, None)
        if sv is None:
            await self._close_lobby(game_id, started=False)
            return
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
        await self._timeouts(game_id, sv, seats)
        await self._takeovers(game_id, seats)
        current = sv.get("current_seat")
        if status in ("playing", "stealing") and current is not None:
            actor = next((s for s in humans if s.seat == current and not s.auto), None)
            if actor is not None:
                if await runtime.claim(f"prompt:{game_id}:{version}"):
                    await send_panel(
                        self.bot, self.deps, game_id, int(actor.user_id or 0), name=actor.name
                    )
                self._arm_warning(game_id, version, sv, actor)
        if (
            status == "round_over"
            and sv.get("round_result")
            and await runtime.claim(f"reveal:{game_id}:{rnd}")
        ):
            for s in humans:  # private first: the group may have to wait for its budget
                if not s.auto:
                    await send_panel(self.bot, self.deps, game_id, int(s.user_id or 0), name=s.name)
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

    async def _tr(self, s: SeatInfo) -> Translator:
        """The player's language: their /lang choice, else the language they joined with
        (in the game's seats), else the last client language seen (store preferences)."""
        return Translator(await self.deps.user_language_by_id(int(s.user_id or 0), s.language))

    async def _timeouts(self, game_id: str, sv: dict, seats: list[SeatInfo]) -> None:
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

    # ------------------------------------------------------------------ warnings
    def _arm_warning(self, game_id: str, version: int, sv: dict, actor: SeatInfo) -> None:
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
        self, game_id: str, render: Any, view: dict | None = None, markup: Any = None
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

    async def _draw(self, game_id: str, chat_id: int, topic_id: int | None) -> None:
        """Render the latest view; spend a group token only when something visible changed,
        and re-render after waiting for it if the game moved meanwhile (latest wins)."""
        out = await self._render(game_id, chat_id)
        if out is None:
            return
        await self.deps.runtime.acquire(chat_id)
        latest = await self.deps.port.view(game_id, None)
        moved = latest is not None and latest.get("version") != out.get("version")
        if game_id in self._board_dirty or moved:
            # the game moved while we waited (here or on another worker): show the latest
            self._board_dirty.discard(game_id)
            fresh = await self._render(game_id, chat_id)
            if fresh is None:
                return  # already showing it
            out = fresh
        await self._send(game_id, chat_id, topic_id, out)

    async def _render(self, game_id: str, chat_id: int) -> dict[str, Any] | None:
        sv = await self.deps.port.view(game_id, None)
        data = await self.deps.runtime.get_game_data(game_id)
        if sv is None or (sv.get("status") == "cancelled" and "board_msg" not in data):
            await self._close_lobby(game_id, started=False)
            return None
        t = await self.deps.tr_chat(chat_id, sv)
        if sv.get("status") == "lobby":
            turn_time = (sv.get("settings") or {}).get("turn_time")
            at = _parse_deadline(sv.get("autostart_at"))
            text = texts.lobby_text(
                t,
                sv,
                autostart_in=None if at is None else int(at - time.time()),
                turn_time=turn_time,
            )
            if data.get("lobby_mode") == "settings":
                markup = kb.settings_keyboard(t, sv, turn_time, t.language)
            else:
                markup = kb.lobby_keyboard(t, game_id, self.deps.bot_username)
            if "lobby_msg" in data and self._sent.get(game_id) == (text, markup.to_json()):
                return None
            return {
                "kind": "lobby",
                "text": text,
                "markup": markup,
                "data": data,
                "t": t,
                "version": sv.get("version"),
            }
        caption = texts.board_caption(t, sv)
        markup = kb.board_keyboard(
            t, game_id, self.deps.bot_username, self.deps.settings.miniapp_short_name
        )
        picture, _mime = await self._picture(sv, t)
        digest = hashlib.sha1(picture).hexdigest()
        if (
            "board_msg" in data
            and self._sent.get(game_id) == (caption, markup.to_json())
            and self._picture_hash.get(game_id) == digest
        ):
            return None  # nothing visible changed: spend no group call
        return {
            "kind": "board",
            "caption": caption,
            "markup": markup,
            "picture": picture,
            "digest": digest,
            "data": data,
            "t": t,
            "version": sv.get("version"),
        }

    async def _send(
        self, game_id: str, chat_id: int, topic_id: int | None, out: dict[str, Any]
    ) -> None:
        data: dict[str, str] = out["data"]
        markup = out["markup"]
        body = out.get("text") or (out.get("caption", "") + out.get("digest", ""))
        stamp = f"{out.get('version')}|{data.get('lobby_mode_at', '')}|{body}"
        mark = hashlib.sha1((stamp + markup.to_json()).encode()).hexdigest()[:16]
        if not await self.deps.runtime.claim(f"draw:{game_id}:{mark}", 600):
            self._sent[game_id] = (out.get("text") or out.get("caption", ""), markup.to_json())
            return  # another worker already showed exactly this
        try:
            if out["kind"] == "lobby":
                text = out["text"]
                self._sent[game_id] = (text, markup.to_json())
                if "lobby_msg" not in data:
                    if not await self.deps.runtime.claim(f"lobbymsg:{game_id}", 3600):
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
                    return
                self._lobby_msgs[game_id] = (chat_id, int(data["lobby_msg"]))
                await self.bot.edit_message_text(
                    text,
                    chat_id,
                    int(data["lobby_msg"]),
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                )
                return
            caption, picture, digest = out["caption"], out["picture"], out["digest"]
            if "board_msg" not in data:
                if not await self.deps.runtime.claim(f"boardmsg:{game_id}", 3600):
                    return
                msg = await self.bot.send_photo(
                    chat_id,
                    picture,
                    caption=caption,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    message_thread_id=topic_id,
                )
                await self.deps.runtime.set_game_data(game_id, "board_msg", str(msg.message_id))
                self._picture_hash[game_id] = digest
                self._sent[game_id] = (caption, markup.to_json())
                if "lobby_msg" in data and await self.deps.runtime.claim(f"lobbyclosed:{game_id}"):
                    await self.deps.runtime.acquire(chat_id)
                    with contextlib.suppress(TelegramError):
                        await self.bot.edit_message_text(
                            texts.lobby_closed_text(out["t"], True), chat_id, int(data["lobby_msg"])
                        )
                return
            if self._picture_hash.get(game_id) == digest:
                await self.bot.edit_message_caption(
                    chat_id,
                    int(data["board_msg"]),
                    caption=caption,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                )
            else:
                await self.bot.edit_message_media(
                    InputMediaPhoto(picture, caption=caption, parse_mode=ParseMode.HTML),
                    chat_id,
                    int(data["board_msg"]),
                    reply_markup=markup,
                )
            self._picture_hash[game_id] = digest
            self._sent[game_id] = (caption, markup.to_json())
        except BadRequest as exc:
            if "not modified" not in str(exc).lower():
                raise

    async def _picture(self, sv: dict, t: Translator) -> tuple[bytes, str]:
        from telegram_bot.board_picture import render_board_async

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
