"""Ephemeral messages: a message inside the group that one member alone sees.

Bot API 10.2 added them (10.4: a ``callback_query_id`` alone names the receiver);
python-telegram-bot 22.8 speaks Bot API 10.0, so every call goes through this module and
nowhere else: sends with ``api_kwargs`` (the parameters it does not know), the newer
methods with ``Bot.do_api_request``. Clients document the send parameters in two
forms, top level (``receiver_user_id``, ``callback_query_id``) or one
``ephemeral_message_parameters`` object: the first form that works is remembered.

Privacy before speed: a server that does not know the parameters posts the message for
everyone. So until a server has once answered with an ephemeral message, the first send
carries a neutral placeholder, which is deleted at once when it came back public, and the
private text follows by ``editEphemeralMessageText`` only once the message is known to be
ephemeral (a verified process sends the text at once; should a send still come back
public, it is deleted and the process probes again). Any refusal raises
``EphemeralUnavailable``: the caller falls back to the private chat, which stays the
reliable record.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from telegram import Bot, CallbackQuery, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

log = logging.getLogger(__name__)

FLAT = "flat"  # receiver_user_id / callback_query_id as top-level parameters
OBJECT = "object"  # one ephemeral_message_parameters object
PLACEHOLDER = "🂠"  # the neutral first text while a server is not yet known to hide it
REFUSED_FOR_S = 600.0  # a chat that refused is not asked again for this long


class Budget(Protocol):
    """Takes one group write for a chat (``bulk``: after urgent sends), or says no."""

    async def __call__(self, chat_id: int, bulk: bool = False) -> bool: ...


async def _no_budget(chat_id: int, bulk: bool = False) -> bool:
    return True


class EphemeralUnavailable(Exception):
    """The server or the chat does not show ephemeral messages (fall back to private)."""


@dataclass(frozen=True, slots=True)
class EphemeralRef:
    """Enough to edit or delete one ephemeral message later (any worker may)."""

    chat_id: int
    receiver_user_id: int
    message_id: int

    def encode(self) -> str:
        return f"{self.chat_id}:{self.receiver_user_id}:{self.message_id}"

    @classmethod
    def decode(cls, text: str | None) -> EphemeralRef | None:
        try:
            chat, user, mid = (int(p) for p in str(text or "").split(":"))
        except ValueError:
            return None
        return cls(chat, user, mid)


def _params(form: str, receiver: int | None, query_id: str | None) -> dict[str, object]:
    """Top level: the press alone names chat and receiver (10.4), the receiver only when
    there is no press. The object: as its clients document it, the receiver always."""
    if form == FLAT:
        return {"callback_query_id": query_id} if query_id else {"receiver_user_id": receiver}
    found: dict[str, object] = {"receiver_user_id": receiver}
    if query_id is not None:
        found["callback_query_id"] = query_id
    return {"ephemeral_message_parameters": {k: v for k, v in found.items() if v is not None}}


def _ephemeral_id(result: object) -> int | None:
    if isinstance(result, Mapping) and result.get("ephemeral_message_id") is not None:
        return int(result["ephemeral_message_id"])
    return None


@dataclass
class EphemeralChannel:
    """The adapter, with what it learnt of the server (per process: a worker relearns)."""

    budget: Budget = _no_budget  # every send and edit is one of the group's writes
    verified_form: str | None = None
    refused: dict[int, float] = field(default_factory=dict)  # chat id -> when

    async def pay(self, chat_id: int, bulk: bool = False) -> None:
        """Take the group write an edit will cost, before building it (``edit(paid=True)``
        then): a redraw the budget refuses reads nothing."""
        if not await self.budget(chat_id, bulk):
            raise EphemeralUnavailable("the group's budget is spent")

    def available(self, chat_id: int) -> bool:
        at = self.refused.get(chat_id)
        return at is None or time.monotonic() - at > REFUSED_FOR_S

    async def send(
        self,
        bot: Bot,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        callback_query_id: str | None = None,
        receiver_user_id: int | None = None,
        thread_id: int | None = None,
    ) -> EphemeralRef:
        """Show ``text`` in the group to the presser of ``callback_query_id`` alone (or to
        ``receiver_user_id``); raises ``EphemeralUnavailable`` when that cannot be done."""
        if not self.available(chat_id):
            raise EphemeralUnavailable("refused recently")
        forms = [self.verified_form] if self.verified_form else [FLAT, OBJECT]
        for form in forms:
            probe = self.verified_form is None
            await self.pay(chat_id)
            try:
                sent = await bot.send_message(
                    chat_id,
                    PLACEHOLDER if probe else text,
                    parse_mode=None if probe else ParseMode.HTML,
                    reply_markup=None if probe else markup,
                    message_thread_id=thread_id,
                    disable_web_page_preview=True,
                    api_kwargs=_json(_params(form, receiver_user_id, callback_query_id)),
                )
            except (BadRequest, Forbidden) as exc:
                log.info("ephemeral send refused in %s (%s form): %s", chat_id, form, exc)
                continue
            except TelegramError as exc:  # flood control, network: not a refusal
                raise EphemeralUnavailable(str(exc)) from exc
            extra = sent.api_kwargs
            message_id = _ephemeral_id(extra)
            if message_id is None:  # posted for everyone: this server ignores the form
                with contextlib.suppress(TelegramError):
                    await bot.delete_message(chat_id, sent.message_id)
                if not probe:  # the server changed under us: probe again from now on
                    log.warning("ephemeral message came back public in %s; deleted", chat_id)
                    self.verified_form = None
                continue
            receiver = (extra.get("receiver_user") or {}).get("id") or receiver_user_id or 0
            ref = EphemeralRef(chat_id, int(receiver), message_id)
            if probe:
                self.verified_form = form
                try:
                    await self.edit(bot, ref, text, markup)
                except EphemeralUnavailable:
                    await self.delete(bot, ref)  # no bare placeholder left behind
                    raise
            return ref
        self.refused[chat_id] = time.monotonic()
        raise EphemeralUnavailable(f"chat {chat_id}")

    async def edit(
        self,
        bot: Bot,
        ref: EphemeralRef,
        text: str,
        markup: InlineKeyboardMarkup | None,
        *,
        bulk: bool = False,
        paid: bool = False,
    ) -> None:
        """Replace an ephemeral message's text and buttons; an unchanged one is fine.
        ``bulk``: a redraw nobody pressed for, which waits behind urgent sends; ``paid``:
        its group write was taken already (``pay``)."""
        body: dict[str, object] = {
            "chat_id": ref.chat_id,
            "receiver_user_id": ref.receiver_user_id,
            "ephemeral_message_id": ref.message_id,
            "text": text,
            "parse_mode": ParseMode.HTML,
        }
        if markup is not None:
            body["reply_markup"] = markup.to_json()
        if not paid:
            await self.pay(ref.chat_id, bulk)
        try:
            await bot.do_api_request("editEphemeralMessageText", api_kwargs=_json(body))
        except BadRequest as exc:
            if "not modified" not in str(exc).lower():
                raise EphemeralUnavailable(str(exc)) from exc
        except TelegramError as exc:
            raise EphemeralUnavailable(str(exc)) from exc

    async def delete(self, bot: Bot, ref: EphemeralRef) -> bool:
        body = {
            "chat_id": ref.chat_id,
            "receiver_user_id": ref.receiver_user_id,
            "ephemeral_message_id": ref.message_id,
        }
        try:
            await bot.do_api_request("deleteEphemeralMessage", api_kwargs=body)
        except TelegramError as exc:
            log.info("ephemeral delete failed: %s", exc)
            return False
        return True


def _json(body: dict[str, object]) -> dict[str, object]:
    """Objects as JSON text, as python-telegram-bot sends its own parameters."""
    return {k: json.dumps(v) if isinstance(v, dict) else v for k, v in body.items()}


def from_ephemeral(query: CallbackQuery) -> int | None:
    """The ephemeral message id a press came from, when the update says so (some clients
    put it on the query, some on a message without ``message_id``); None otherwise."""
    for source in (query.api_kwargs, getattr(query.message, "api_kwargs", None) or {}):
        value = source.get("ephemeral_message_id")
        if isinstance(value, int):
            return value
    return None


class _Payer(Protocol):
    async def try_acquire(self, chat_id: int, *, max_wait_s: float, bulk: bool = False) -> bool: ...


def group_budget(runtime: _Payer, max_wait_s: float = 2.0) -> Budget:
    """The group's share of the bot's send budget (the one every other group send pays),
    waited on briefly: a press must be answered within seconds, so a busy group gets the
    private chat instead of a late message. The send that follows is paid for."""

    async def take(chat_id: int, bulk: bool = False) -> bool:
        return await runtime.try_acquire(chat_id, max_wait_s=max_wait_s, bulk=bulk)

    return take


def channel_of(extra: dict[str, object], runtime: _Payer) -> EphemeralChannel:
    """The process's channel (kept in the bot's shared ``extra``), budgeted by ``runtime``."""
    channel = extra.get("ephemeral")
    if not isinstance(channel, EphemeralChannel):
        channel = extra["ephemeral"] = EphemeralChannel(budget=group_budget(runtime))
    return channel
