"""The OpenAPI 3.1 description of the game API (served at ``GET /api/openapi.json``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from core import engine

# the engine's move types (their declarations, in stored order) and the service's own
MOVE_TYPES = [str(spec.type) for spec in engine.MOVE_SPECS] + ["take_seat_back"]


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: Mapping[str, object], description: str) -> dict[str, object]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_NAMES = {"type": "object", "additionalProperties": {"type": "string"}}
# /api/catalogue: what the page draws and names cards with (miniapp.catalogue)
CATALOGUE: dict[str, object] = {
    "type": "object",
    "required": ["cards", "look", "names"],
    "properties": {
        "cards": {
            "description": "every card by catalogue id, as in cards.json (edges, groups…)",
            "type": "object",
            "additionalProperties": {"type": "object"},
        },
        "look": {
            "description": "the shared drawing geometry (core.look)",
            "type": ["object", "null"],
        },
        "names": {
            "description": "by the page's language code (en, zh-hans, zh-hant): the names "
            "of cards and roles, the bot's own",
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["cards", "roles"],
                "properties": {"cards": _NAMES, "roles": _NAMES},
            },
        },
    },
}


def _err(description: str) -> dict[str, object]:
    return _json(_ref("Error"), description)


ERRORS = {
    "400": _err("malformed JSON or wrong types"),
    "401": _err("missing, invalid or expired credentials"),
    "413": _err("body too large"),
    "429": {
        **_err("too many requests"),
        "headers": {"Retry-After": {"schema": {"type": "integer"}}},
    },
    "503": {
        **_err("the game store is briefly unavailable (store_unavailable); retry"),
        "headers": {"Retry-After": {"schema": {"type": "integer"}}},
    },
}
SUBMISSION_ID_PATTERN = "^[A-Za-z0-9_-]{8,64}$"
GAME_ID = {
    "name": "game_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"},
}


def _op(
    summary: str,
    ok: Mapping[str, object],
    *,
    body: Mapping[str, object] | None = None,
    params: Sequence[Mapping[str, object]] | None = None,
    extra: Mapping[str, object] | None = None,
    secure: bool = True,
) -> dict[str, object]:
    op: dict[str, object] = {
        "summary": summary,
        "responses": {"200": ok, **ERRORS, **(extra or {})},
    }
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    if params:
        op["parameters"] = params
    if not secure:
        op["security"] = []
    return op


def _schemas() -> dict[str, object]:
    nullable_int = {"type": ["integer", "null"]}
    return {
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {
                "error": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {
                        "code": {"type": "string"},
                        "message": {"type": "string"},
                        "reason": {"type": "string"},
                        "retry_after": {"type": "integer"},
                    },
                },
                "view": _ref("View"),
            },
        },
        "Session": {
            "type": "object",
            "required": ["token", "expires_at", "user_id"],
            "properties": {
                "token": {"type": "string"},
                "expires_at": {"type": "string", "format": "date-time"},
                "user_id": {"type": "integer"},
                "name": {"type": "string"},
                "language": {"type": ["string", "null"]},
                "local": {"type": "boolean"},
                "start_param": {"type": ["string", "null"]},
                "can_share": {
                    "type": "boolean",
                    "description": "a bot prepares shared results (never in local mode)",
                },
            },
        },
        "Move": {
            "type": "object",
            "required": ["type"],
            "properties": {
                "type": {"enum": MOVE_TYPES},
                "card": {"type": "string"},
                "cards": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "maxItems": 3,
                },
                "x": {"type": "integer"},
                "y": {"type": "integer"},
                "rotated": {"type": "boolean"},
                "target_seat": nullable_int,
                "tool": {"enum": ["pickaxe", "lantern", "cart"]},
                "goal": {"enum": [0, 1, 2]},
                "remove": {"type": "string"},
            },
        },
        "HandCard": {
            "type": "object",
            "required": ["id", "card"],
            "properties": {"id": {"type": "string"}, "card": {"type": "string"}},
        },
        "Seat": {
            "type": "object",
            "required": ["seat", "hand_size", "in_front"],
            "properties": {
                "seat": {"type": "integer"},
                "name": {"type": "string"},
                "hand_size": {"type": "integer"},
                "in_front": {"type": "array", "items": {"type": "string"}},
                "online": {"type": "boolean"},
                "computer": {"type": "boolean"},
                "has_gold": {"type": ["boolean", "null"]},
                "role": {"type": ["string", "null"]},
                "gold": nullable_int,
            },
        },
        "View": {
            "type": "object",
            "required": [
                "game_id",
                "version",
                "status",
                "edition",
                "seats",
                "board",
                "legal_moves",
            ],
            "properties": {
                "game_id": {"type": "string"},
                "version": {"type": "integer"},
                "status": {
                    "enum": ["lobby", "playing", "stealing", "round_over", "finished", "cancelled"]
                },
                "autostart_at": {
                    "type": ["string", "null"],
                    "description": "lobby: when the countdown starts the game (ISO 8601)",
                },
                "archived": {
                    "type": "boolean",
                    "description": "a finished game served from the archive (its live record "
                    "is gone): read-only, no live updates",
                },
                "settings": {
                    "type": "object",
                    "description": "lobby settings (turn_time, countdown, language, ...)",
                },
                "edition": {"enum": ["classic", "expansion"]},
                "options": {"type": "object"},
                "round": {"type": "integer"},
                "rounds": {"type": "integer"},
                "you": {
                    "type": "object",
                    "properties": {
                        "seat": nullable_int,
                        "role": {"type": ["string", "null"]},
                        "hand": {"type": "array", "items": _ref("HandCard")},
                        "gold": nullable_int,
                        "known_goals": {"type": "array", "items": {"type": "object"}},
                        "known_roles": {"type": "array", "items": {"type": "object"}},
                    },
                },
                "seats": {"type": "array", "items": _ref("Seat")},
                "board": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "x": {"type": "integer"},
                            "y": {"type": "integer"},
                            "card": {"type": "string"},
                            "rotated": {"type": "boolean"},
                        },
                    },
                },
                "goals": {"type": "array", "items": {"type": "object"}},
                "deck_size": {"type": "integer"},
                "discard_size": {"type": "integer"},
                "current_seat": nullable_int,
                "turn_deadline": {"type": ["string", "null"], "format": "date-time"},
                "log": {"type": "array", "items": _ref("LogEntry")},
                "round_result": {"type": ["object", "null"]},
                "legal_moves": {"type": "array", "items": _ref("Move")},
            },
        },
        "LogEntry": {
            "type": "object",
            "required": ["version", "code"],
            "properties": {
                "version": {"type": "integer"},
                "seat": nullable_int,
                "code": {"type": "string"},
            },
        },
        "Created": {
            "type": "object",
            "required": ["game_id", "version"],
            "properties": {"game_id": {"type": "string"}, "version": {"type": "integer"}},
        },
    }


@cache
def document() -> dict[str, object]:
    view = _json(_ref("View"), "the caller's view of the game")
    lobby = {
        "404": _err("no such game"),
        "403": _err("not allowed"),
        "409": _err("not possible in this phase"),
    }
    paths = {
        "/api/session": {
            "post": _op(
                "exchange initData (Authorization: tma …), a token (Bearer) or a local code",
                _json(_ref("Session"), "a session token"),
                body={"type": "object", "properties": {"code": {"type": "string"}}},
            )
        },
        "/api/games": {
            "get": _op(
                "the caller's games",
                _json(
                    {
                        "type": "object",
                        "properties": {"games": {"type": "array", "items": {"type": "string"}}},
                    },
                    "game ids",
                ),
            ),
            "post": _op(
                "create a lobby (or a ready game against computers)",
                _json(_ref("Created"), "created"),
                body={
                    "type": "object",
                    "properties": {
                        "edition": {"enum": ["classic", "expansion"]},
                        "options": {"type": "object"},
                        "seats": {"type": "integer", "minimum": 2, "maximum": 12},
                        "computer_seats": {"type": "integer", "minimum": 0},
                        "level": {"enum": ["easy", "normal", "hard"]},
                        "settings": {
                            "type": "object",
                            "description": "any lobby settings by name (GET "
                            "/api/settings/schema), e.g. turn_time",
                        },
                    },
                },
                extra={
                    "201": _json(_ref("Created"), "created"),
                    "422": _err("invalid configuration"),
                },
            ),
        },
        "/api/games/{game_id}": {
            "get": _op(
                "the caller's view (spectator if not seated)",
                view,
                params=[GAME_ID],
                extra={"404": _err("no such game")},
            )
        },
        "/api/games/{game_id}/join": {
            "post": _op("take a seat", view, params=[GAME_ID], extra=lobby)
        },
        "/api/games/{game_id}/leave": {
            "post": _op("leave the lobby or game", view, params=[GAME_ID], extra=lobby)
        },
        "/api/games/{game_id}/start": {
            "post": _op("start (creator only)", view, params=[GAME_ID], extra=lobby)
        },
        "/api/games/{game_id}/moves": {
            "post": _op(
                "make a move against the version you saw",
                _json(_ref("View"), "the new view"),
                params=[GAME_ID],
                body={
                    "type": "object",
                    "required": ["version", "move"],
                    "properties": {
                        "version": {"type": "integer"},
                        "move": _ref("Move"),
                        "submission_id": {
                            "type": "string",
                            "pattern": SUBMISSION_ID_PATTERN,
                            "description": "Optional: the client's id of this move, the "
                            "same on every retry of it (a UUID, say). A retry after a lost "
                            "response (a timeout, a 502/503, a dropped connection) then "
                            "answers 200 with the current view (its `version` that of the "
                            "first answer, or later if the game moved on since) instead of "
                            "409, and the move is made once. Remembered for the game's last "
                            "8 changes; scoped to the signed-in user.",
                        },
                    },
                },
                extra={
                    "403": _err("not a seated player, or a server-only move"),
                    "404": _err("no such game"),
                    "409": _err("stale_version: the body's `view` is the current view"),
                    "422": _err("illegal_move: `reason` is the engine's reason code"),
                    "503": {
                        **_err(
                            "store_unavailable, or busy (the store waits for a replica and "
                            "none confirmed the move: it is made but not yet durable); retry "
                            "with the same submission_id"
                        ),
                        "headers": {"Retry-After": {"schema": {"type": "integer"}}},
                    },
                },
            )
        },
        "/api/games/{game_id}/log": {
            "get": _op(
                "public log entries after version `since`",
                _json(
                    {
                        "type": "object",
                        "properties": {
                            "game_id": {"type": "string"},
                            "since": {"type": "integer"},
                            "entries": {"type": "array", "items": _ref("LogEntry")},
                        },
                    },
                    "entries",
                ),
                params=[
                    GAME_ID,
                    {"name": "since", "in": "query", "schema": {"type": "integer", "minimum": 0}},
                ],
            )
        },
        "/api/games/{game_id}/ws": {
            "get": {
                "summary": 'WebSocket: send {"auth": token} first (5 s, else close 4401); '
                'then receives {"game_id", "version"} on every change. '
                "The Origin must be this server's own.",
                "parameters": [GAME_ID],
                "security": [],
                "responses": {
                    "101": {"description": "switching protocols"},
                    "403": _err("foreign Origin"),
                },
            }
        },
        # play again: a finished game's rematch lobby (routes.post_rematch)
        "/api/games/{game_id}/rematch": {
            "post": _op(
                "play again: the new lobby for a finished game's table (any of its players; "
                "every press enters the same lobby)",
                _json(_ref("View"), "the caller's view of the new lobby"),
                params=[GAME_ID],
                extra={
                    "404": _err("no such game"),
                    "403": _err("not a player of that game (not_seated)"),
                    "409": _err(
                        "another game is open in the chat (chat_busy) or the new "
                        "game started without the caller (already_started)"
                    ),
                    "422": _err("the game is not finished (not_finished)"),
                },
            )
        },
        # share a result: Telegram.WebApp.shareMessage of it (routes.post_share)
        "/api/games/{game_id}/share": {
            "post": _op(
                "a finished game's result as a message the bot prepared, for shareMessage",
                _json(
                    {
                        "type": "object",
                        "required": ["game_id", "prepared_message_id"],
                        "properties": {
                            "game_id": {"type": "string"},
                            "prepared_message_id": {"type": "string"},
                        },
                    },
                    "the prepared message's id",
                ),
                params=[GAME_ID],
                extra={
                    "404": _err("no such game"),
                    "409": _err("the game is still being played (game_in_progress)"),
                    "503": _err("no bot prepares shared messages here (sharing_unavailable)"),
                },
            )
        },
        "/api/catalogue": {
            "get": _op(
                "card catalogue, drawing geometry and the names of cards and roles",
                _json(CATALOGUE, "catalogue"),
                secure=False,
            )
        },
        "/api/openapi.json": {
            "get": _op("this document", _json({"type": "object"}, "OpenAPI"), secure=False)
        },
        "/healthz": {
            "get": _op(
                "the store answers",
                _json({"type": "object"}, "ok"),
                secure=False,
                extra={"503": _err("store unreachable")},
            )
        },
    }
    paths.update(_lobby_and_history_paths(view, lobby))
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Saboteur game API",
            "version": "1.0.0",
            "description": "Play Saboteur: views, moves, live updates. "
            'See API.md; errors are {"error": {code, message}}.',
        },
        "servers": [{"url": "/"}],
        "paths": paths,
        "components": {
            "schemas": _schemas(),
            "securitySchemes": {
                "tma": {
                    "type": "apiKey",
                    "in": "header",
                    "name": "Authorization",
                    "description": "`tma <Telegram.WebApp.initData>`",
                },
                "bearer": {"type": "http", "scheme": "bearer"},
            },
        },
        "security": [{"tma": []}, {"bearer": []}],
    }


# --- lobby settings, replays, "My games" (core.service.lobby_api, core.service.history) ---

SETTING = {
    "type": "object",
    "description": "one setting of core.service.lobby_settings.SCHEMA",
    "required": ["name", "kind", "where", "default", "choices", "editions", "offered"],
    "properties": {
        "name": {"type": "string"},
        "kind": {"enum": ["choice", "flag", "number"]},
        "where": {
            "enum": ["game", "option", "setting"],
            "description": "where a view holds its value: view[name], view.options[name] "
            "or view.settings[name]",
        },
        "default": {},
        "choices": {"type": "array"},
        "choices_when": {"type": "object", "additionalProperties": {"type": "array"}},
        "nullable": {"type": "boolean"},
        "editions": {"type": "array", "items": {"enum": ["classic", "expansion"]}},
        "offered": {"type": "boolean", "description": "shown by the lobby front ends"},
        "minimum": {"type": "number"},
        "maximum": {"type": "number"},
        "integer": {"type": "boolean"},
    },
}
SCHEMA_DOC = {
    "type": "object",
    "required": ["context", "settings", "players"],
    "properties": {
        "context": {"enum": ["group", "private"]},
        "settings": {"type": "array", "items": SETTING},
        "players": {
            "type": "object",
            "description": "each edition's [fewest, most] players",
            "additionalProperties": {"type": "array", "items": {"type": "integer"}},
        },
    },
}
SNAPSHOT = {
    "type": "object",
    "description": "the maze as everyone saw it (at a round's start, or its end with the "
    "goals turned and the round's result)",
    "properties": {
        "board": {"type": "array", "items": {"type": "object"}},
        "goals": {"type": "array", "items": {"type": "object"}},
        "round_result": {"type": ["object", "null"]},
    },
}
REPLAY = {
    "type": "object",
    "required": ["game_id", "edition", "finished", "seats", "rounds", "final"],
    "properties": {
        "game_id": {"type": "string"},
        "edition": {"enum": ["classic", "expansion"]},
        "finished": {"type": "boolean"},
        "seats": {"type": "array", "items": {"type": "object"}},
        "rounds": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["round", "start", "end", "entries"],
                "properties": {
                    "round": {"type": "integer"},
                    "start": SNAPSHOT,
                    "end": {"oneOf": [SNAPSHOT, {"type": "null"}]},
                    "entries": {"type": "array", "items": _ref("LogEntry")},
                },
            },
        },
        "final": {"type": ["object", "null"]},
    },
}
HISTORY_ENTRY = {
    "type": "object",
    "required": ["game_id", "finished_at", "edition", "seat", "gold", "result"],
    "properties": {
        "game_id": {"type": "string"},
        "finished_at": {"type": "integer", "description": "ms since the epoch"},
        "title": {"type": ["string", "null"], "description": "the group's title"},
        "edition": {"enum": ["classic", "expansion"]},
        "players": {"type": "integer"},
        "rounds": {"type": "integer"},
        "seat": {"type": "integer"},
        "gold": {"type": "integer"},
        "result": {"enum": ["won", "lost"]},
        "replayable": {"type": "boolean"},
    },
}


def _lobby_and_history_paths(
    view: Mapping[str, object], lobby: Mapping[str, object]
) -> dict[str, object]:
    settings_sheet = {
        "type": "object",
        "required": ["game_id", "context", "schema", "values", "computers", "editable"],
        "properties": {
            "game_id": {"type": "string"},
            "context": {"enum": ["group", "private"]},
            "schema": SCHEMA_DOC,
            "values": {"type": "object", "description": "every setting's value by name"},
            "computers": {"type": "integer"},
            "max_computers": {"type": "integer"},
            "editable": {"type": "boolean", "description": "the caller may change them"},
        },
    }
    return {
        "/api/settings/schema": {
            "get": _op(
                "the lobby settings schema where a lobby opens",
                _json(SCHEMA_DOC, "the schema"),
                params=[
                    {
                        "name": "context",
                        "in": "query",
                        "schema": {"enum": ["private", "group"], "default": "private"},
                    }
                ],
                secure=False,
            )
        },
        "/api/games/{game_id}/settings": {
            "get": _op(
                "a lobby's settings: schema, values, computer seats",
                _json(settings_sheet, "the lobby's settings"),
                params=[GAME_ID],
                extra={"404": _err("no such game")},
            ),
            "patch": _op(
                "set the lobby's settings and computer seats (creator only, one change); "
                "the service checks every value (bad_setting, invalid_config…)",
                view,
                params=[GAME_ID],
                body={
                    "type": "object",
                    "properties": {
                        "settings": {
                            "type": "object",
                            "description": "by setting name; variants by name or in `options`",
                        },
                        "computers": {"type": "integer", "minimum": 0},
                    },
                },
                extra={**lobby, "422": _err("bad_setting or invalid_config")},
            ),
        },
        "/api/games/{game_id}/replay": {
            "get": _op(
                "every round of a game, live or archived, step by step (public facts only)",
                _json(REPLAY, "the rounds"),
                params=[GAME_ID],
                extra={
                    "404": _err("no such game"),
                    "409": _err("not_started: no moves yet"),
                },
            )
        },
        "/api/history": {
            "get": _op(
                "the caller's finished games, newest first (the archive's retention)",
                _json(
                    {
                        "type": "object",
                        "properties": {"games": {"type": "array", "items": HISTORY_ENTRY}},
                    },
                    "My games",
                ),
            )
        },
    }
