"""A fake Telegram Bot API server on loopback, for end-to-end tests of the bot.

python-telegram-bot is pointed at it with ``base_url`` and talks real HTTP. The fake keeps
Telegram's semantics that shape the design (TELEGRAM.md): users who never pressed Start
cannot be messaged (403), no-op edits fail ("message is not modified"), ``web_app``
buttons are refused outside private chats, ``callback_data`` is 1–64 bytes, text/caption
limits, callback answers ≤ 200 characters and expiring, and about 20 messages a minute
per group (429 with ``retry_after`` beyond). Every call is recorded so tests can scan
what the bot sent where.

The driver half (``FakeUser``, ``FakeChat``) produces updates: messages, commands with
entities, ``/start`` payloads, button presses on recorded messages, inline queries and
forum topics. Updates are served by ``getUpdates`` (long poll) or POSTed to a webhook
with the secret header.

Membership: a group made with ``members=...`` knows who is in it (whoever writes or
presses a button there joins it; a non-member cannot press its buttons, they never see
its messages), and ``getChatMember`` answers ``left`` for anyone else; a group made with
``members_visible=False`` refuses ``getChatMember`` for other users, as Telegram may when
the bot is no admin. Without ``members``, everyone counts as a member (most tests).
Callback answers may carry a ``url``, which Telegram only accepts as a ``t.me`` link to
the bot itself (a game's URL aside).

Ephemeral messages (Bot API 10.2/10.4): a send with ``receiver_user_id`` and/or
``callback_query_id`` — top level, or inside one ``ephemeral_message_parameters`` object —
shows the message inside the group to that user only (``transcript(chat, viewer)`` is what
one member sees). ``callback_query_id`` alone names the presser and the chat (the query
must be fresh and from that chat). Sends and edits of ephemeral messages count against
the group's budget; ``editEphemeralMessageText/ReplyMarkup`` and ``deleteEphemeralMessage``
manage them; a press of a button on one arrives without ``message``. Switches:
``ephemeral_mode`` "on", "refuse" (400, as a chat where they are not allowed) or "legacy"
(an older server: the parameters are ignored, so the message is posted for everyone, and
the edit methods do not exist); ``ephemeral_forms`` which parameter forms the server reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

TOKEN = "123456:TEST-TOKEN"
BOT_ID = 123456
BOT_USERNAME = "SaboteurTestBot"

# Parameters python-telegram-bot sends as plain strings (everything else is JSON-encoded).
_STRING_FIELDS = {
    "text",
    "caption",
    "callback_query_id",
    "inline_query_id",
    "url",
    "secret_token",
    "parse_mode",
    "description",
    "short_description",
    "language_code",
    "next_offset",
    "switch_pm_text",
    "switch_pm_parameter",
    "action",
    "name",
    "emoji",
}
_MESSAGE_SENDING = {
    "sendMessage",
    "sendPhoto",
    "sendDocument",
    "sendAnimation",
    "sendMediaGroup",
    "editMessageText",
    "editMessageCaption",
    "editMessageMedia",
    "editMessageReplyMarkup",
    "sendSticker",
    "sendDice",
    "copyMessage",
    "forwardMessage",
    "pinChatMessage",
    "editEphemeralMessageText",
    "editEphemeralMessageReplyMarkup",
}
EPHEMERAL_FORMS = frozenset({"flat", "object"})
EPHEMERAL_REFUSED = "Bad Request: ephemeral messages can't be sent to this chat"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)


class ApiError(Exception):
    """An error answer of the Bot API."""

    def __init__(self, code: int, description: str, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.retry_after = retry_after


@dataclass
class Call:
    """One recorded Bot API call (successful or not)."""

    method: str
    params: dict[str, Any]
    chat_id: int | None
    at: float
    ok: bool = True
    error: str | None = None
    result: Any = None
    files: dict[str, bytes] = field(default_factory=dict)
    receiver: int | None = None  # an ephemeral message's only reader

    @property
    def ephemeral(self) -> bool:
        return self.receiver is not None

    @property
    def group(self) -> bool:
        return self.chat_id is not None and self.chat_id < 0

    def texts(self) -> list[str]:
        """Every human-visible string and every callback_data of this call."""
        out: list[str] = []
        for key in ("text", "caption", "message_text"):
            if isinstance(self.params.get(key), str):
                out.append(self.params[key])
        media = self.params.get("media")
        if isinstance(media, dict) and isinstance(media.get("caption"), str):
            out.append(media["caption"])
        out.extend(_markup_strings(self.params.get("reply_markup")))
        return out


def _markup_strings(markup: Any) -> list[str]:
    out: list[str] = []
    if isinstance(markup, dict):
        for row in markup.get("inline_keyboard", []):
            for b in row:
                out.extend(str(b.get(k)) for k in ("text", "callback_data", "url") if b.get(k))
                if b.get("web_app"):
                    out.append(str(b["web_app"].get("url")))
    return out


@dataclass
class FakeChat:
    id: int
    type: str  # "private" | "group" | "supergroup"
    title: str | None = None
    is_forum: bool = False
    admins: set[int] = field(default_factory=set)
    creator: int | None = None
    members: set[int] | None = None  # None: everyone is a member
    members_visible: bool = True  # False: getChatMember refuses other users

    def is_member(self, user_id: int) -> bool:
        if self.type == "private":
            return user_id == self.id
        known = self.members is None or user_id in self.members or user_id == BOT_ID
        return known or user_id in self.admins or user_id == self.creator

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "type": self.type}
        if self.title:
            d["title"] = self.title
        if self.is_forum:
            d["is_forum"] = True
        return d


class FakeBotAPI:
    """The server plus the record of everything the bot did."""

    def __init__(
        self,
        *,
        group_limit: int = 20,
        group_window: float = 60.0,
        query_ttl: float = 15.0,
        bot_rate: int | None = None,
    ) -> None:
        self.group_limit = group_limit
        # the whole bot's limit (Telegram: ~30 sends per second across all chats); None:
        # not enforced. Beyond it every send answers 429 with retry_after (bot-wide).
        self.bot_rate = bot_rate
        self._bot_sends: deque[float] = deque()
        self.send_times: list[float] = []  # every accepted send or edit, any chat
        self._forced_429: dict[int | None, int] = {}  # see force_429
        self.group_window = group_window
        self.query_ttl = query_ttl
        self.calls: list[Call] = []
        self.users: dict[int, FakeUser] = {}
        self.chats: dict[int, FakeChat] = {}
        self.messages: dict[tuple[int, int], dict[str, Any]] = {}
        self.callback_queries: dict[str, dict[str, Any]] = {}  # id -> {at, answered, answer}
        self.inline_queries: dict[str, dict[str, Any]] = {}
        self.prepared: dict[str, dict[str, Any]] = {}  # savePreparedInlineMessage, by id
        self.webhook_url: str | None = None
        self.webhook_secret: str | None = None
        self.rate_limited: list[Call] = []
        self.webhook_targets: list[str] = []
        # command lists by (scope key, language_code or ""), as setMyCommands leaves them
        self.command_lists: dict[tuple[tuple[Any, ...], str], list[dict[str, str]]] = {}
        self.ephemeral_mode = "on"  # "on" | "refuse" | "legacy"
        self.ephemeral_forms: set[str] = set(EPHEMERAL_FORMS)
        self.ephemeral: dict[tuple[int, int], dict[str, Any]] = {}
        self._ephemeral_ids = itertools.count(1)
        self._deliveries: set[asyncio.Task[int]] = set()
        self._updates: deque[dict[str, Any]] = deque()
        self._update_ids = itertools.count(1)
        self._message_ids: dict[int, itertools.count[int]] = defaultdict(lambda: itertools.count(1))
        self._query_ids = itertools.count(1)
        self._group_sends: dict[int, deque[float]] = defaultdict(deque)
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self.port = 0

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        app = web.Application(client_max_size=20 * 1024 * 1024)
        app.router.add_post("/bot{token}/{method}", self._handle)
        app.router.add_get("/bot{token}/{method}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self._session = aiohttp.ClientSession()

    async def stop(self) -> None:
        if self._session:
            await self._session.close()
        if self._runner:
            await self._runner.cleanup()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    # ------------------------------------------------------------------ driver side
    def user(
        self,
        user_id: int,
        first_name: str,
        *,
        language_code: str | None = "en",
        username: str | None = None,
    ) -> FakeUser:
        u = FakeUser(self, user_id, first_name, language_code, username)
        self.users[user_id] = u
        self.chats[user_id] = FakeChat(user_id, "private")
        return u

    def group(
        self,
        chat_id: int,
        title: str,
        *,
        admins: Iterable[int] = (),
        forum: bool = False,
        members: Iterable[int] | None = None,
        members_visible: bool = True,
    ) -> FakeChat:
        chat = FakeChat(chat_id, "supergroup", title, forum, set(admins))
        chat.members = None if members is None else set(members)
        chat.members_visible = members_visible
        self.chats[chat_id] = chat
        return chat

    def push_update(self, payload: dict[str, Any], update_id: int | None = None) -> int:
        """Queue an update for getUpdates — or, with ``webhook_targets``, POST it to the
        workers' webhooks in turn (as a load balancer in front of several workers would)."""
        uid = next(self._update_ids) if update_id is None else update_id
        update = {"update_id": uid, **payload}
        if self.webhook_targets:
            target = self.webhook_targets[uid % len(self.webhook_targets)]
            task = asyncio.get_running_loop().create_task(self.deliver_webhook(update, url=target))
            self._deliveries.add(task)
            task.add_done_callback(self._deliveries.discard)
        else:
            self._updates.append(update)
        self._notify()
        return uid

    async def deliver_webhook(
        self, update: dict[str, Any], *, secret: str | None = None, url: str | None = None
    ) -> int:
        """POST one update to the webhook (as Telegram does); returns the HTTP status."""
        assert self._session is not None
        target = url or self.webhook_url
        assert target, "no webhook set"
        headers = {}
        token = secret if secret is not None else self.webhook_secret
        if token:
            headers["X-Telegram-Bot-Api-Secret-Token"] = token
        async with self._session.post(target, json=update, headers=headers) as resp:
            return resp.status

    def take_update(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Build an update without queueing it (for webhook tests)."""
        return {"update_id": next(self._update_ids), **payload}

    def _notify(self) -> None:
        async def go() -> None:
            async with self._changed:
                self._changed.notify_all()

        asyncio.get_running_loop().create_task(go())

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Wait until ``predicate()`` is truthy (re-checked after every call/update)."""
        deadline = time.monotonic() + timeout
        async with self._changed:
            while True:
                value = predicate()
                if value:
                    return value
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("condition not met in time")
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), min(left, 0.25))

    # ------------------------------------------------------------------ record queries
    def calls_to(self, chat_id: int, *, ok: bool | None = True) -> list[Call]:
        return [c for c in self.calls if c.chat_id == chat_id and (ok is None or c.ok == ok)]

    def group_calls(self) -> list[Call]:
        return [c for c in self.calls if c.group and c.method in _MESSAGE_SENDING]

    def bot_messages(self, chat_id: int) -> list[dict[str, Any]]:
        return [
            m
            for (cid, _), m in sorted(self.messages.items())
            if cid == chat_id and m.get("from", {}).get("id") == BOT_ID
        ]

    def last_bot_message(
        self, chat_id: int, predicate: Callable[[dict[str, Any]], bool] = lambda m: True
    ) -> dict[str, Any] | None:
        found = [m for m in self.bot_messages(chat_id) if predicate(m)]
        return found[-1] if found else None

    def transcript(self, chat_id: int, viewer: int | None = None) -> list[dict[str, Any]]:
        """The bot's messages in a chat as ``viewer`` sees them: everyone's, plus the
        ephemeral ones addressed to ``viewer`` (None: a member who received none)."""
        mine = [
            m
            for (cid, _), m in sorted(self.ephemeral.items())
            if cid == chat_id and viewer is not None and m["receiver_user"]["id"] == viewer
        ]
        return self.bot_messages(chat_id) + mine

    def ephemeral_for(self, chat_id: int, viewer: int) -> list[dict[str, Any]]:
        return [
            m
            for (cid, _), m in sorted(self.ephemeral.items())
            if cid == chat_id and m["receiver_user"]["id"] == viewer
        ]

    def unanswered_queries(self) -> list[str]:
        return [q for q, info in self.callback_queries.items() if not info["answered"]]

    # ------------------------------------------------------------------ HTTP side
    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params, files = await self._read_params(request)
        chat_id = params.get("chat_id")
        if isinstance(chat_id, str) and chat_id.lstrip("-").isdigit():
            chat_id = int(chat_id)
            params["chat_id"] = chat_id
        call = Call(
            method,
            params,
            chat_id if isinstance(chat_id, int) else None,
            time.monotonic(),
            files=files,
        )
        if method in ("answerCallbackQuery",):
            q = self.callback_queries.get(str(params.get("callback_query_id")))
            call.chat_id = q["chat_id"] if q else None
        try:
            handler = getattr(self, f"_m_{method}", None)
            if handler is None:
                result: Any = True
            else:
                result = await handler(params, files)
            call.result = result
            if isinstance(result, dict) and isinstance(result.get("receiver_user"), dict):
                call.receiver = int(result["receiver_user"]["id"])
            elif method in ("editEphemeralMessageText", "editEphemeralMessageReplyMarkup"):
                call.receiver = int(params.get("receiver_user_id") or 0)
            if method != "getUpdates" or result:
                self.calls.append(call)
            self._notify()
            return web.json_response({"ok": True, "result": result})
        except ApiError as err:
            call.ok, call.error = False, err.description
            self.calls.append(call)
            if err.code == 429:
                self.rate_limited.append(call)
            self._notify()
            body: dict[str, Any] = {
                "ok": False,
                "error_code": err.code,
                "description": err.description,
            }
            if err.retry_after is not None:
                body["parameters"] = {"retry_after": err.retry_after}
            return web.json_response(body, status=err.code)

    async def _read_params(self, request: web.Request) -> tuple[dict[str, Any], dict[str, bytes]]:
        params: dict[str, Any] = {}
        files: dict[str, bytes] = {}
        if request.content_type == "application/json":
            params = await request.json()
        elif request.method == "POST":
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    files[key] = value.file.read()
                    params[key] = f"attach://{key}"
                elif key in _STRING_FIELDS:
                    params[key] = value
                else:
                    try:
                        params[key] = json.loads(value)
                    except (TypeError, ValueError):
                        params[key] = value
        params.update({k: v for k, v in request.query.items() if k not in params})
        return params, files

    # ------------------------------------------------------------------ checks
    def _check_chat_writable(self, chat_id: Any) -> FakeChat:
        chat = self.chats.get(chat_id) if isinstance(chat_id, int) else None
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        if chat.type == "private":
            user = self.users[chat.id]
            if user.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if not user.started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        return chat

    def _check_markup(self, chat: FakeChat, markup: Any) -> None:
        if markup is None:
            return
        if not isinstance(markup, dict):
            raise ApiError(400, "Bad Request: can't parse reply keyboard markup JSON object")
        for row in markup.get("inline_keyboard", []):
            for b in row:
                if "web_app" in b and chat.type != "private":
                    raise ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")
                if "callback_data" in b:
                    size = len(str(b["callback_data"]).encode())
                    if not 1 <= size <= 64:
                        raise ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
                if not b.get("text"):
                    raise ApiError(400, "Bad Request: text buttons are unallowed")

    def force_429(self, retry_after: int, chat_id: int | None = None) -> None:
        """The next send (to ``chat_id``, or to any chat) answers 429 with ``retry_after``,
        as Telegram does when it decides a bot or a chat is flooding."""
        self._forced_429[chat_id] = retry_after

    def _check_rate(self, chat: FakeChat) -> None:
        now = time.monotonic()
        for key in (chat.id, None):
            if key in self._forced_429:
                retry = self._forced_429.pop(key)
                raise ApiError(429, f"Too Many Requests: retry after {retry}", retry_after=retry)
        if self.bot_rate is not None:
            while self._bot_sends and now - self._bot_sends[0] >= 1.0:
                self._bot_sends.popleft()
            if len(self._bot_sends) >= self.bot_rate:
                raise ApiError(429, "Too Many Requests: retry after 1", retry_after=1)
        self._check_group_rate(chat, now)
        self._bot_sends.append(now)
        self.send_times.append(now)

    def _check_group_rate(self, chat: FakeChat, now: float) -> None:
        if chat.type == "private":
            return
        sent = self._group_sends[chat.id]
        while sent and now - sent[0] > self.group_window:
            sent.popleft()
        if len(sent) >= self.group_limit:
            retry = max(1, int(self.group_window - (now - sent[0])) + 1)
            raise ApiError(429, f"Too Many Requests: retry after {retry}", retry_after=retry)
        sent.append(now)

    @staticmethod
    def _check_text(text: Any, limit: int, what: str) -> None:
        if text is None:
            return
        if len(str(text)) > limit:
            raise ApiError(400, f"Bad Request: {what} is too long")

    def _new_message(self, chat: FakeChat, params: dict[str, Any], **content: Any) -> dict:
        mid = next(self._message_ids[chat.id])
        msg: dict[str, Any] = {
            "message_id": mid,
            "date": int(time.time()),
            "chat": chat.to_dict(),
            "from": {
                "id": BOT_ID,
                "is_bot": True,
                "first_name": "Saboteur",
                "username": BOT_USERNAME,
            },
            **{k: v for k, v in content.items() if v is not None},
        }
        if params.get("reply_markup"):
            msg["reply_markup"] = params["reply_markup"]
        thread = params.get("message_thread_id")
        if thread is not None and chat.is_forum:
            msg["message_thread_id"] = thread
            msg["is_topic_message"] = True
        self.messages[(chat.id, mid)] = msg
        return msg

    def _bot_message(self, params: dict[str, Any]) -> tuple[FakeChat, dict[str, Any]]:
        chat = self._check_chat_writable(params.get("chat_id"))
        msg = self.messages.get((chat.id, int(params.get("message_id", 0))))
        if msg is None:
            raise ApiError(400, "Bad Request: message to edit not found")
        if msg["from"]["id"] != BOT_ID:
            raise ApiError(400, "Bad Request: message can't be edited")
        return chat, msg

    # ------------------------------------------------------------------ ephemeral
    def _ephemeral_receiver(self, chat: FakeChat, p: dict[str, Any]) -> int | None:
        """Who alone sees this send (None: everyone), from either form of the parameters."""
        found: dict[str, Any] = {}
        if "flat" in self.ephemeral_forms:
            found.update({k: p[k] for k in ("receiver_user_id", "callback_query_id") if k in p})
        obj = p.get("ephemeral_message_parameters")
        if isinstance(obj, str):
            obj = json.loads(obj)
        if "object" in self.ephemeral_forms and isinstance(obj, dict):
            found.update(obj)
        if not found or self.ephemeral_mode == "legacy":
            return None  # an older server ignores what it does not know
        if self.ephemeral_mode == "refuse" or chat.type == "private":
            raise ApiError(400, EPHEMERAL_REFUSED)
        qid = found.get("callback_query_id")
        receiver = found.get("receiver_user_id")
        if qid is not None:
            q = self.callback_queries.get(str(qid))
            if q is None or time.monotonic() - q["at"] > self.query_ttl:
                raise ApiError(400, "Bad Request: query is too old or query ID is invalid")
            if q["chat_id"] != chat.id:
                raise ApiError(400, "Bad Request: the callback query is from another chat")
            if receiver is not None and int(receiver) != q["user"]:
                raise ApiError(400, "Bad Request: receiver is not the presser")
            receiver = q["user"]
        if receiver is None:
            raise ApiError(400, "Bad Request: receiver_user_id or callback_query_id required")
        if not chat.is_member(int(receiver)):
            raise ApiError(400, "Bad Request: the receiver is not a member of the chat")
        return int(receiver)

    def _new_ephemeral(
        self, chat: FakeChat, params: dict[str, Any], receiver: int, **content: Any
    ) -> dict:
        msg = self._new_message(chat, params, **content)
        del self.messages[(chat.id, msg["message_id"])]  # not in the group's own history
        eid = next(self._ephemeral_ids)
        user = self.users.get(receiver)
        msg.update(
            message_id=0,
            ephemeral_message_id=eid,
            receiver_user=user.to_dict() if user else {"id": receiver, "is_bot": False},
        )
        self.ephemeral[(chat.id, eid)] = msg
        return msg

    def _ephemeral_message(self, p: dict[str, Any]) -> tuple[FakeChat, dict[str, Any]]:
        if self.ephemeral_mode == "legacy":
            raise ApiError(404, "Not Found")  # the method does not exist there
        chat = self._check_chat_writable(p.get("chat_id"))
        msg = self.ephemeral.get((chat.id, int(p.get("ephemeral_message_id") or 0)))
        if msg is None or msg["receiver_user"]["id"] != int(p.get("receiver_user_id") or 0):
            raise ApiError(400, "Bad Request: ephemeral message not found")
        return chat, msg

    async def _m_editEphemeralMessageText(self, p: dict, f: dict) -> bool:
        chat, msg = self._ephemeral_message(p)
        if "text" not in msg:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        self._check_text(p.get("text"), 4096, "message")
        self._check_markup(chat, p.get("reply_markup"))
        if msg["text"] == p.get("text") and msg.get("reply_markup") == p.get("reply_markup"):
            raise ApiError(400, NOT_MODIFIED)
        self._check_rate(chat)
        msg["text"] = p.get("text")
        _set_markup(msg, p)
        return True

    async def _m_editEphemeralMessageReplyMarkup(self, p: dict, f: dict) -> bool:
        chat, msg = self._ephemeral_message(p)
        self._check_markup(chat, p.get("reply_markup"))
        if msg.get("reply_markup") == p.get("reply_markup"):
            raise ApiError(400, NOT_MODIFIED)
        self._check_rate(chat)
        _set_markup(msg, p)
        return True

    async def _m_deleteEphemeralMessage(self, p: dict, f: dict) -> bool:
        chat, _msg = self._ephemeral_message(p)
        del self.ephemeral[(chat.id, int(p["ephemeral_message_id"]))]
        return True

    # ------------------------------------------------------------------ methods
    async def _m_getMe(self, p: dict, f: dict) -> dict:
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Saboteur",
            "username": BOT_USERNAME,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": True,
        }

    async def _m_getUpdates(self, p: dict, f: dict) -> list:
        if self.webhook_url:
            raise ApiError(409, "Conflict: can't use getUpdates method while webhook is active")
        offset = int(p.get("offset") or 0)
        while self._updates and self._updates[0]["update_id"] < offset:
            self._updates.popleft()
        timeout = float(p.get("timeout") or 0)
        deadline = time.monotonic() + timeout
        while not self._updates and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        limit = int(p.get("limit") or 100)
        return list(itertools.islice(self._updates, limit))

    # ---- command menus (Bot API "Determining list of commands")
    def _scope_key(self, p: dict) -> tuple[Any, ...]:
        scope = p.get("scope") or {"type": "default"}
        if isinstance(scope, str):
            scope = json.loads(scope)
        kind = scope.get("type")
        if kind in ("default", "all_private_chats", "all_group_chats", "all_chat_administrators"):
            return (kind,)
        if kind in ("chat", "chat_administrators", "chat_member"):
            chat_id = scope.get("chat_id")
            if not isinstance(chat_id, int) or chat_id not in self.chats:
                raise ApiError(400, "Bad Request: chat not found")
            if kind != "chat" and self.chats[chat_id].type == "private":
                raise ApiError(400, "Bad Request: can't use this scope in private chats")
            if kind == "chat_member":
                return (kind, chat_id, int(scope.get("user_id") or 0))
            return (kind, chat_id)
        raise ApiError(400, f"Bad Request: unsupported bot command scope type {kind!r}")

    def _language(self, p: dict) -> str:
        code = p.get("language_code") or ""
        if code and not re.fullmatch(r"[a-z]{2}", code):
            raise ApiError(400, "Bad Request: invalid language code specified")
        return str(code)

    async def _m_setMyCommands(self, p: dict, f: dict) -> bool:
        commands = p.get("commands")
        if isinstance(commands, str):
            commands = json.loads(commands)
        if not isinstance(commands, list) or len(commands) > 100:
            raise ApiError(400, "Bad Request: too many commands")
        for c in commands:
            if not re.fullmatch(r"[a-z0-9_]{1,32}", str(c.get("command"))):
                raise ApiError(400, "Bad Request: BOT_COMMAND_INVALID")
            if not 1 <= len(str(c.get("description") or "")) <= 256:
                raise ApiError(400, "Bad Request: command description is empty or too long")
        key = (self._scope_key(p), self._language(p))
        if commands:
            self.command_lists[key] = [dict(c) for c in commands]
        else:
            self.command_lists.pop(key, None)
        return True

    async def _m_deleteMyCommands(self, p: dict, f: dict) -> bool:
        self.command_lists.pop((self._scope_key(p), self._language(p)), None)
        return True

    async def _m_getMyCommands(self, p: dict, f: dict) -> list:
        return self.command_lists.get((self._scope_key(p), self._language(p)), [])

    def menu_for(self, chat_id: int, user_id: int) -> list[str]:
        """The command descriptions this user sees in this chat's "/" menu: the first list
        set, in Telegram's documented order, with the user's two-letter language."""
        user = self.users[user_id]
        lang = (user.language_code or "")[:2].lower()
        chat = self.chats[chat_id]
        if chat.type == "private":
            order: list[tuple[Any, ...]] = [("chat", chat_id), ("all_private_chats",), ("default",)]
        else:
            admin = user_id in chat.admins
            order = [("chat_member", chat_id, user_id)]
            order += [("chat_administrators", chat_id)] if admin else []
            order += [("chat", chat_id)]
            order += [("all_chat_administrators",)] if admin else []
            order += [("all_group_chats",), ("default",)]
        for scope in order:
            for code in (lang, "") if lang else ("",):
                found = self.command_lists.get((scope, code))
                if found is not None:
                    return [c["description"] for c in found]
        return []

    async def _m_setWebhook(self, p: dict, f: dict) -> bool:
        self.webhook_url = p.get("url") or None
        self.webhook_secret = p.get("secret_token")
        return True

    async def _m_deleteWebhook(self, p: dict, f: dict) -> bool:
        self.webhook_url = None
        if p.get("drop_pending_updates"):
            self._updates.clear()
        return True

    async def _m_getWebhookInfo(self, p: dict, f: dict) -> dict:
        return {
            "url": self.webhook_url or "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

    async def _m_sendMessage(self, p: dict, f: dict) -> dict:
        chat = self._check_chat_writable(p.get("chat_id"))
        text = p.get("text")
        if not text:
            raise ApiError(400, "Bad Request: message text is empty")
        self._check_text(text, 4096, "message")
        self._check_markup(chat, p.get("reply_markup"))
        receiver = self._ephemeral_receiver(chat, p)
        self._check_rate(chat)
        if receiver is not None:
            return self._new_ephemeral(chat, p, receiver, text=text)
        return self._new_message(chat, p, text=text)

    async def _m_sendPhoto(self, p: dict, f: dict) -> dict:
        chat = self._check_chat_writable(p.get("chat_id"))
        self._check_text(p.get("caption"), 1024, "message caption")
        self._check_markup(chat, p.get("reply_markup"))
        data = f.get("photo")
        if data is not None and len(data) > 10 * 1024 * 1024:
            raise ApiError(400, "Bad Request: file is too big")
        receiver = self._ephemeral_receiver(chat, p)
        self._check_rate(chat)
        if receiver is not None:
            return self._new_ephemeral(
                chat, p, receiver, caption=p.get("caption"), photo=_photo(data)
            )
        return self._new_message(chat, p, caption=p.get("caption"), photo=_photo(data))

    async def _m_editMessageText(self, p: dict, f: dict) -> dict:
        chat, msg = self._bot_message(p)
        if "text" not in msg:
            raise ApiError(400, "Bad Request: there is no text in the message to edit")
        self._check_text(p.get("text"), 4096, "message")
        self._check_markup(chat, p.get("reply_markup"))
        if msg["text"] == p.get("text") and msg.get("reply_markup") == p.get("reply_markup"):
            raise ApiError(400, NOT_MODIFIED)
        self._check_rate(chat)
        msg["text"] = p.get("text")
        _set_markup(msg, p)
        return msg

    async def _m_editMessageCaption(self, p: dict, f: dict) -> dict:
        chat, msg = self._bot_message(p)
        if "photo" not in msg:
            raise ApiError(400, "Bad Request: there is no caption in the message to edit")
        self._check_text(p.get("caption"), 1024, "message caption")
        self._check_markup(chat, p.get("reply_markup"))
        if msg.get("caption") == p.get("caption") and msg.get("reply_markup") == p.get(
            "reply_markup"
        ):
            raise ApiError(400, NOT_MODIFIED)
        self._check_rate(chat)
        msg["caption"] = p.get("caption")
        _set_markup(msg, p)
        return msg

    async def _m_editMessageMedia(self, p: dict, f: dict) -> dict:
        chat, msg = self._bot_message(p)
        media = p.get("media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise ApiError(400, "Bad Request: media must be a photo here")
        self._check_text(media.get("caption"), 1024, "message caption")
        self._check_markup(chat, p.get("reply_markup"))
        ref = str(media.get("media", ""))
        data = f.get(ref.removeprefix("attach://")) if ref.startswith("attach://") else None
        self._check_rate(chat)
        msg["photo"] = _photo(data)
        msg["caption"] = media.get("caption")
        _set_markup(msg, p)
        return msg

    async def _m_editMessageReplyMarkup(self, p: dict, f: dict) -> dict:
        chat, msg = self._bot_message(p)
        self._check_markup(chat, p.get("reply_markup"))
        if msg.get("reply_markup") == p.get("reply_markup"):
            raise ApiError(400, NOT_MODIFIED)
        self._check_rate(chat)
        _set_markup(msg, p)
        return msg

    async def _m_deleteMessage(self, p: dict, f: dict) -> bool:
        chat = self._check_chat_writable(p.get("chat_id"))
        if self.messages.pop((chat.id, int(p.get("message_id", 0))), None) is None:
            raise ApiError(400, "Bad Request: message to delete not found")
        return True

    async def _m_answerCallbackQuery(self, p: dict, f: dict) -> bool:
        q = self.callback_queries.get(str(p.get("callback_query_id")))
        if q is None or q["answered"] or time.monotonic() - q["at"] > self.query_ttl:
            raise ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is invalid",
            )
        if len(str(p.get("text") or "")) > 200:
            raise ApiError(400, "Bad Request: MESSAGE_TOO_LONG")
        url = p.get("url")
        if url is not None and not str(url).startswith(f"https://t.me/{BOT_USERNAME}?start="):
            raise ApiError(400, "Bad Request: URL_INVALID")
        q["answered"] = True
        q["answer"] = p
        return True

    async def _m_answerInlineQuery(self, p: dict, f: dict) -> bool:
        q = self.inline_queries.get(str(p.get("inline_query_id")))
        if q is None or q["answered"] or time.monotonic() - q["at"] > self.query_ttl:
            raise ApiError(
                400,
                "Bad Request: query is too old and response timeout expired or query ID is invalid",
            )
        results = p.get("results") or []
        if len(results) > 50:
            raise ApiError(400, "Bad Request: RESULTS_TOO_MUCH")
        q["answered"] = True
        q["answer"] = p
        return True

    async def _m_savePreparedInlineMessage(self, p: dict, f: dict) -> dict:
        """Bot API 8.0: a message a Mini App's user may share (``shareMessage``)."""
        user_id = p.get("user_id")
        if not isinstance(user_id, int) or user_id not in self.users:
            raise ApiError(400, "Bad Request: user not found")
        result = p.get("result")
        if not isinstance(result, dict) or not result.get("id") or not result.get("type"):
            raise ApiError(400, "Bad Request: result is invalid")
        content = result.get("input_message_content") or {}
        if result["type"] == "article":
            self._check_text(content.get("message_text"), 4096, "message")
        kinds = ("allow_user_chats", "allow_bot_chats", "allow_group_chats", "allow_channel_chats")
        if not any(p.get(k) for k in kinds):
            raise ApiError(400, "Bad Request: at least one chat type must be allowed")
        prepared_id = f"prep{len(self.prepared) + 1}"
        expires = int(time.time()) + 24 * 3600
        self.prepared[prepared_id] = {**p, "expiration_date": expires}
        return {"id": prepared_id, "expiration_date": expires}

    async def _m_getChat(self, p: dict, f: dict) -> dict:
        chat = self.chats.get(p.get("chat_id"))  # type: ignore[arg-type]
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        return {**chat.to_dict(), "accent_color_id": 0, "max_reaction_count": 11}

    def _member(self, chat: FakeChat, user_id: int) -> dict:
        user = self.users.get(user_id)
        u = user.to_dict() if user else {"id": user_id, "is_bot": False, "first_name": "?"}
        if not chat.is_member(user_id):
            return {"status": "left", "user": u}
        if user_id == chat.creator:
            return {"status": "creator", "user": u, "is_anonymous": False}
        if user_id in chat.admins:
            return {
                "status": "administrator",
                "user": u,
                "can_be_edited": False,
                "is_anonymous": False,
                "can_manage_chat": True,
                "can_delete_messages": True,
                "can_manage_video_chats": True,
                "can_restrict_members": True,
                "can_promote_members": False,
                "can_change_info": True,
                "can_invite_users": True,
                "can_post_stories": False,
                "can_edit_stories": False,
                "can_delete_stories": False,
            }
        return {"status": "member", "user": u}

    async def _m_getChatMember(self, p: dict, f: dict) -> dict:
        chat = self.chats.get(p.get("chat_id"))  # type: ignore[arg-type]
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        user_id = int(p["user_id"])
        if not chat.members_visible and user_id != BOT_ID:
            raise ApiError(400, "Bad Request: member list is inaccessible")
        return self._member(chat, user_id)

    async def _m_getChatAdministrators(self, p: dict, f: dict) -> list:
        chat = self.chats.get(p.get("chat_id"))  # type: ignore[arg-type]
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        ids = sorted(chat.admins | ({chat.creator} if chat.creator else set()))
        return [self._member(chat, uid) for uid in ids]


def _photo(data: bytes | None) -> list[dict[str, Any]]:
    size = len(data) if data else 0
    return [
        {
            "file_id": f"photo{size}-{time.monotonic_ns()}",
            "file_unique_id": "u",
            "width": 800,
            "height": 600,
            "file_size": size,
        }
    ]


def _set_markup(msg: dict[str, Any], p: dict[str, Any]) -> None:
    if p.get("reply_markup"):
        msg["reply_markup"] = p["reply_markup"]
    else:
        msg.pop("reply_markup", None)


class FakeUser:
    """A simulated Telegram user producing updates."""

    def __init__(
        self,
        api: FakeBotAPI,
        user_id: int,
        first_name: str,
        language_code: str | None,
        username: str | None,
    ) -> None:
        self.api = api
        self.id = user_id
        self.first_name = first_name
        self.language_code = language_code
        self.username = username
        self.started = False
        self.blocked = False
        self._msg_ids = itertools.count(10_000)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        if self.language_code:
            d["language_code"] = self.language_code
        if self.username:
            d["username"] = self.username
        return d

    def message_update(
        self,
        chat_id: int,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: dict[str, Any] | None = None,
        mention: FakeUser | None = None,
    ) -> dict[str, Any]:
        chat = self.api.chats[chat_id]
        if mention is not None:  # a mention of a user picked from the list (no username)
            text = f"{text} {mention.first_name}"
        if chat.members is not None and chat.type != "private":
            chat.members.add(self.id)  # writing there: they are in the group
        msg: dict[str, Any] = {
            "message_id": next(self._msg_ids),
            "date": int(time.time()),
            "chat": chat.to_dict(),
            "from": self.to_dict(),
            "text": text,
        }
        if text.startswith("/"):
            length = len(text.split()[0])
            msg["entities"] = [{"type": "bot_command", "offset": 0, "length": length}]
        if mention is not None:
            offset = len(text) - len(mention.first_name)  # (names here are BMP characters)
            msg.setdefault("entities", []).append(
                {
                    "type": "text_mention",
                    "offset": offset,
                    "length": len(mention.first_name),
                    "user": mention.to_dict(),
                }
            )
        if thread_id is not None:
            msg["message_thread_id"] = thread_id
            msg["is_topic_message"] = True
        if reply_to is not None:
            msg["reply_to_message"] = reply_to
        return {"message": msg}

    def say(
        self,
        chat_id: int,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: dict[str, Any] | None = None,
        mention: FakeUser | None = None,
    ) -> int:
        """Send a message (a command when it starts with '/') in a chat; returns update_id.
        ``mention``: a text mention of that user at the end (``text_mention`` entity)."""
        if chat_id == self.id and text.startswith("/start"):
            self.started = True
        return self.api.push_update(
            self.message_update(
                chat_id, text, thread_id=thread_id, reply_to=reply_to, mention=mention
            )
        )

    def press_start(self, payload: str | None = None) -> int:
        """Open the private chat with the bot (the Start button), with a deep-link payload."""
        return self.say(self.id, "/start" + (f" {payload}" if payload else ""))

    def callback_update(self, message: dict[str, Any], data: str) -> dict[str, Any]:
        chat = self.api.chats.get(message["chat"]["id"])
        if chat is not None and not chat.is_member(self.id):
            raise AssertionError(f"{self.first_name} is not in {chat.title}: no button to press")
        receiver = (message.get("receiver_user") or {}).get("id")
        if receiver is not None and receiver != self.id:
            raise AssertionError(f"{self.first_name} cannot see another's ephemeral message")
        qid = f"q{next(self.api._query_ids)}"
        self.api.callback_queries[qid] = {
            "at": time.monotonic(),
            "answered": False,
            "answer": None,
            "chat_id": message["chat"]["id"],
            "user": self.id,
            "data": data,
        }
        query: dict[str, Any] = {
            "id": qid,
            "from": self.to_dict(),
            "chat_instance": f"ci{message['chat']['id']}",
            "message": message,
            "data": data,
        }
        if receiver is not None:  # a button on an ephemeral message: no ``message``
            del query["message"]
        return {"callback_query": query}

    def press(self, message: dict[str, Any], button: str | Callable[[dict], bool]) -> str:
        """Press an inline button of a recorded bot message; returns the callback query id.

        ``button`` is a substring of the button text or a predicate on the button dict.
        """
        data = find_button(message, button).get("callback_data")
        assert data, f"button {button!r} has no callback_data"
        update = self.callback_update(message, data)
        self.api.push_update(update)
        return str(update["callback_query"]["id"])

    def inline(self, query: str, *, chat_type: str = "supergroup") -> str:
        qid = f"i{next(self.api._query_ids)}"
        self.api.inline_queries[qid] = {
            "at": time.monotonic(),
            "answered": False,
            "answer": None,
            "user": self.id,
        }
        self.api.push_update(
            {
                "inline_query": {
                    "id": qid,
                    "from": self.to_dict(),
                    "query": query,
                    "offset": "",
                    "chat_type": chat_type,
                }
            }
        )
        return qid


def buttons(message: dict[str, Any]) -> list[dict[str, Any]]:
    markup = message.get("reply_markup") or {}
    return [b for row in markup.get("inline_keyboard", []) for b in row]


def find_button(message: dict[str, Any], button: str | Callable[[dict], bool]) -> dict:
    for b in buttons(message):
        if button(b) if callable(button) else button in b.get("text", ""):
            return b
    raise AssertionError(f"no button {button!r} in {[b.get('text') for b in buttons(message)]}")
