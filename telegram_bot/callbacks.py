"""callback_data strings: short, public, and free of private information.

Every group member's client receives the callback_data of a group message, and Telegram
caps it at 64 bytes. So a button carries only a kind, the game's id, the version it
was drawn for and small indexes into the presser's own view (which the server rebuilds
when the button is pressed) — never a card, a role or a goal.
"""

from __future__ import annotations

from dataclasses import dataclass

# A game id is 12 characters (core.service.records.new_game_id); a button carries it
# whole, and no more than this many characters of it.
GAME_ID_LEN = 16
MAX_BYTES = 64

# kinds
CARD = "c"  # private: a hand slot chosen -> list its legal moves (arg: slot, page)
MOVE = "m"  # private: submit legal_moves[index]
HAND = "h"  # private: back to the hand
REFRESH = "r"  # private: redraw the panel for the current version
LOBBY = "L"  # group: lobby action (arg: action[, value])
SECRETS = "S"  # group: "my secrets" alert
AGAIN = "A"  # group: play again (a finished game's full id: it is no longer the chat's)
KICK = "K"  # group: remove a player (arg: seat, a short hash of their name)
NOOP = "x"  # a label button
MY_CARDS = "Y"  # group: show the presser's hand in the group, to them alone (ephemeral)
PREVIEW = "p"  # private: ask to confirm legal_moves[index] (a mis-press can go back)
DISCARD = "d"  # private: pass by discarding the selected hand slots (arg: bit mask)
CLOSE = "z"  # private: close an ephemeral panel


@dataclass(frozen=True, slots=True)
class Callback:
    kind: str
    game: str  # the game's id (resolved against the chat's or the user's games)
    version: int
    args: tuple[str, ...] = ()

    def arg(self, i: int, default: str = "") -> str:
        return self.args[i] if i < len(self.args) else default

    def int_arg(self, i: int, default: int = 0) -> int:
        try:
            return int(self.arg(i))
        except ValueError:
            return default


def encode(kind: str, game_id: str, version: int = 0, *args: object) -> str:
    data = ":".join([kind, game_id[:GAME_ID_LEN], str(version), *map(str, args)])
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback_data too long: {data!r}")
    return data


def decode(data: str | None) -> Callback | None:
    """Parse a callback string; None for anything malformed (answered, then ignored)."""
    if not data:
        return None
    parts = data.split(":")
    if len(parts) < 3 or not parts[0] or not parts[1]:
        return None
    try:
        version = int(parts[2])
    except ValueError:
        return None
    return Callback(parts[0], parts[1], version, tuple(parts[3:]))


def matches(game_id: str, carried: str) -> bool:
    """True when ``carried``, a button's game id, names ``game_id``."""
    return game_id[:GAME_ID_LEN] == carried
