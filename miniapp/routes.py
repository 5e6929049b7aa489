"""The JSON API of ``../shared/design/API.md``: thin handlers over ``GameService``.

Handlers only check shapes and identity, call the service, and answer with the view it
returns; every rule lives in the engine, every write in the service.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime

from aiohttp import web

from core.service import lobby_settings
from core.service.jsoncodec import dumps_compact
from miniapp import keys
from miniapp.auth import AuthError, Session
from miniapp.errors import ApiError, bad_request, forbidden, not_found
from miniapp.middleware import require_session
from miniapp.service_adapter import EDITIONS, LEVELS, ServiceAdapter, translated, user_ref

log = logging.getLogger(__name__)
GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SUBMISSION_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")  # openapi.SUBMISSION_ID_PATTERN
SERVER_ONLY_MOVES = {"timeout", "apply_timeout"}


JSON_TYPE = "application/json; charset=utf-8"


def json_response(data: object, status: int = 200) -> web.Response:
    """The header as a string, not ``content_type=`` + ``charset=`` (aiohttp parses and
    rebuilds those per response: ~3 µs of the ~7 it takes to build one)."""
    return web.Response(
        status=status, body=dumps_compact(data), headers={"Content-Type": JSON_TYPE}
    )


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


async def read_json(request: web.Request, *, optional: bool = False) -> dict[str, object]:
    """The body as a JSON object; 400 for anything else (413 comes from client_max_size)."""
    raw = await request.read()
    if not raw.strip():
        if optional:
            return {}
        raise bad_request("a JSON body is required", "malformed_json")
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        # RecursionError: nesting deeper than the parser's stack, e.g. [[[[...]]]]
        raise bad_request("the body is not valid JSON", "malformed_json") from exc
    if not isinstance(body, dict):
        raise bad_request("the body must be a JSON object", "malformed_json")
    return body


def game_id_of(request: web.Request) -> str:
    game_id = request.match_info.get("game_id", "")
    if not GAME_ID.fullmatch(game_id):
        raise not_found()
    return game_id


def _int_field(body: dict[str, object], name: str, default: int | None = None) -> int:
    value = body.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise bad_request(f"'{name}' must be an integer", "bad_type")
    return value


def adapter(request: web.Request) -> ServiceAdapter:
    return ServiceAdapter(request.app[keys.SERVICE])


# --- session -------------------------------------------------------------------------


async def post_session(request: web.Request) -> web.Response:
    """initData or a still-valid token → a fresh token; local mode: one-time code → token."""
    body = await read_json(request, optional=True)
    signer = request.app[keys.SIGNER]
    session: Session | None = request[keys.REQ_SESSION]
    if session is None:
        code = body.get("code")
        if not isinstance(code, str) or not code:
            raise AuthError("unauthorized", "send Authorization: tma <initData>, or a code")
        user = request.app[keys.CODES].redeem(code)
        token, new = signer.issue(user.user_id, user.name, user.language, local=True)
    else:
        token, new = signer.issue(
            session.user_id,
            session.name,
            session.language,
            local=session.local,
            start_param=session.start_param,
            auth_at=session.auth_at,  # a refresh never outlives the sign-in (SESSION_MAX_AGE)
        )
    return json_response(
        {
            "token": token,
            "expires_at": iso(new.expires_at),
            "user_id": new.user_id,
            "name": new.name,
            "language": new.language,
            "local": new.local,
            "start_param": new.start_param,
            "can_share": not new.local and request.app[keys.SERVICE].sharing_available(),
        }
    )


# --- games ---------------------------------------------------------------------------


async def list_games(request: web.Request) -> web.Response:
    session = require_session(request)
    games = await adapter(request).games_for_user(session.user_id)
    return json_response({"games": games})


async def create_game(request: web.Request) -> web.Response:
    session = require_session(request)
    body = await read_json(request, optional=True)
    edition = body.get("edition", "classic")
    if edition not in EDITIONS:
        raise bad_request(f"'edition' must be one of {', '.join(EDITIONS)}", "bad_type")
    options = body.get("options", {})
    if not isinstance(options, dict):
        raise bad_request("'options' must be an object", "bad_type")
    seats = _int_field(body, "seats", 0) if "seats" in body else None
    computers = _int_field(body, "computer_seats", 0)
    level = body.get("level", "normal")
    if level not in LEVELS:
        raise bad_request(f"'level' must be one of {', '.join(LEVELS)}", "bad_type")
    settings = body.get("settings", {})  # any of the lobby settings (the service checks them)
    if not isinstance(settings, dict):
        raise bad_request("'settings' must be an object", "bad_type")
    view = await adapter(request).create(
        user_ref(session), str(edition), options, seats, computers, str(level), settings
    )
    return json_response({"game_id": view["game_id"], "version": view["version"]}, 201)


async def join_game(request: web.Request) -> web.Response:
    session = require_session(request)
    await read_json(request, optional=True)
    view = await adapter(request).join(game_id_of(request), user_ref(session))
    return json_response(view)


async def leave_game(request: web.Request) -> web.Response:
    session = require_session(request)
    await read_json(request, optional=True)
    view = await adapter(request).leave(game_id_of(request), session.user_id)
    return json_response(view)


async def start_game(request: web.Request) -> web.Response:
    session = require_session(request)
    await read_json(request, optional=True)
    view = await adapter(request).start(game_id_of(request), session.user_id)
    return json_response(view)


async def get_game(request: web.Request) -> web.Response:
    session = require_session(request)
    service = adapter(request)
    game_id = game_id_of(request)
    view = await service.view(game_id, session.user_id)
    if view.get("you", {}).get("seat") is not None:
        await service.touch(game_id, session.user_id)
    return json_response(view)


async def post_move(request: web.Request) -> web.Response:
    session = require_session(request)
    game_id = game_id_of(request)
    body = await read_json(request)
    version = _int_field(body, "version")
    move = body.get("move")
    if not isinstance(move, dict) or not isinstance(move.get("type"), str):
        raise bad_request("'move' must be an object with a string 'type'", "bad_type")
    if move["type"] in SERVER_ONLY_MOVES or move.get("timeout") is True:
        raise forbidden("timeouts are made by the server only", "server_only_move")
    submission_id = body.get("submission_id")  # optional: makes the client's retry safe
    if submission_id is not None and (
        not isinstance(submission_id, str) or not SUBMISSION_ID.fullmatch(submission_id)
    ):
        raise bad_request("'submission_id' must be 8-64 characters of A-Z a-z 0-9 _ -", "bad_type")
    result = await adapter(request).submit(
        game_id, session.user_id, move, version, submission_id=submission_id
    )
    status = result["status"]
    if status == "ok":
        return json_response(result["view"])
    if status == "stale":
        raise ApiError(
            409,
            "stale_version",
            "the game moved on; here is the current view",
            top={"view": result["view"]},
        )
    if status == "illegal":
        reason = result.get("reason") or "illegal"
        raise ApiError(
            422,
            "illegal_move",
            result.get("message") or f"illegal move: {reason}",
            reason=reason,
        )
    if status == "invalid":
        raise bad_request(result.get("message") or "malformed move", "malformed_move")
    reason = result.get("reason") or "not_a_player"
    raise forbidden(result.get("message") or "you may not move in this game", reason)


async def get_log(request: web.Request) -> web.Response:
    require_session(request)
    game_id = game_id_of(request)
    raw = request.query.get("since", "0")
    try:
        since = int(raw)
    except ValueError as exc:
        raise bad_request("'since' must be an integer", "bad_type") from exc
    if since < 0:
        raise bad_request("'since' must not be negative", "bad_type")
    entries = await adapter(request).log(game_id, since)
    return json_response({"game_id": game_id, "since": since, "entries": entries})


# --- play again ----------------------------------------------------------------------


async def post_rematch(request: web.Request) -> web.Response:
    """Play again from a finished game, as the group's final message offers: the new
    lobby for the same table (``GameService.rematch``, idempotent across presses), as the
    caller's view of it; the page then opens it."""
    session = require_session(request)
    game_id = game_id_of(request)
    await read_json(request, optional=True)
    with translated():
        view = await request.app[keys.SERVICE].rematch(game_id, session.user_id)
    return json_response(view)


# --- lobby settings, replays, history (the one schema: core.service.lobby_settings) ----


async def settings_schema(request: web.Request) -> web.Response:
    """The lobby settings schema where a lobby opens (``?context=private|group``)."""
    context = request.query.get("context", "private")
    if context not in lobby_settings.CONTEXTS:
        raise bad_request("'context' must be 'private' or 'group'", "bad_type")
    response = json_response(lobby_settings.describe(context))
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


async def get_settings(request: web.Request) -> web.Response:
    session = require_session(request)
    return json_response(
        await adapter(request).lobby_settings(game_id_of(request), session.user_id)
    )


async def patch_settings(request: web.Request) -> web.Response:
    """The creator sets any of the schema's settings and the number of computer seats;
    only the body's shape is checked here, every value by the service."""
    session = require_session(request)
    game_id = game_id_of(request)
    body = await read_json(request)
    settings = body.get("settings", {})
    if not isinstance(settings, dict):
        raise bad_request("'settings' must be an object", "bad_type")
    computers = body.get("computers")
    view = await adapter(request).set_lobby(game_id, session.user_id, settings, computers)
    return json_response(view)


async def get_replay(request: web.Request) -> web.Response:
    require_session(request)
    return json_response(await adapter(request).replay(game_id_of(request)))


async def get_history(request: web.Request) -> web.Response:
    session = require_session(request)
    return json_response({"games": await adapter(request).history(session.user_id)})


# --- sharing a result (Mini Apps 8.0 shareMessage; the bot's port prepares it) ------


async def post_share(request: web.Request) -> web.Response:
    """A finished game's result prepared for ``Telegram.WebApp.shareMessage``: the
    prepared message's id (409 while the game goes on, 503 with no bot to prepare it)."""
    session = require_session(request)
    game_id = game_id_of(request)
    await read_json(request, optional=True)
    prepared = await adapter(request).share_result(game_id, user_ref(session))
    return json_response({"game_id": game_id, "prepared_message_id": prepared})


# --- misc ----------------------------------------------------------------------------


async def healthz(request: web.Request) -> web.Response:
    ok = await adapter(request).healthy()
    if not ok:
        raise ApiError(503, "store_unreachable", "the game store does not answer")
    return json_response({"ok": True})


async def catalogue(request: web.Request) -> web.Response:
    response = web.Response(text=request.app[keys.CATALOGUE_JSON], content_type="application/json")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


async def openapi(request: web.Request) -> web.Response:
    from miniapp.openapi import document

    return json_response(document())


def setup_routes(app: web.Application) -> None:
    r = app.router
    r.add_post("/api/session", post_session)
    r.add_get("/api/games", list_games)
    r.add_post("/api/games", create_game)
    r.add_get("/api/games/{game_id}", get_game)
    r.add_post("/api/games/{game_id}/join", join_game)
    r.add_post("/api/games/{game_id}/leave", leave_game)
    r.add_post("/api/games/{game_id}/start", start_game)
    r.add_post("/api/games/{game_id}/moves", post_move)
    r.add_get("/api/games/{game_id}/log", get_log)
    r.add_post("/api/games/{game_id}/rematch", post_rematch)
    r.add_get("/api/settings/schema", settings_schema)
    r.add_get("/api/games/{game_id}/settings", get_settings)
    r.add_patch("/api/games/{game_id}/settings", patch_settings)
    r.add_get("/api/games/{game_id}/replay", get_replay)
    r.add_get("/api/history", get_history)
    r.add_post("/api/games/{game_id}/share", post_share)
    r.add_get("/api/catalogue", catalogue)
    r.add_get("/api/openapi.json", openapi)
    r.add_get("/healthz", healthz)
