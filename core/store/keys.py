"""Every Redis key name the project uses, in one module.

Why one module: key names are a storage format. Scattering f-strings over the code makes
renames unsafe and hides which keys a Lua script touches. Every key of one game shares the
hash tag ``{g:<id>}`` so the commit script touches a single Cluster slot; the archive keys
of a game share the same tag (under their own ``arch:`` prefix) so archiving is one script
too. Indexes (timers, chats, users, stats) are global keys in their own slots, written by
plain commands or pipelines, never inside a script or a MULTI with a game's keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GAME_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def check_game_id(game_id: str) -> str:
    """Reject ids that could break key names or the timer member format."""
    if not GAME_ID_RE.match(game_id):
        raise ValueError(f"bad game id {game_id!r}")
    return game_id


@dataclass(frozen=True, slots=True)
class Keys:
    """Key names under a configurable prefix (default ``sab:``)."""

    prefix: str = "sab:"

    # --- one live game (one slot) ---------------------------------------------------
    def tag(self, game_id: str) -> str:
        return "{g:" + check_game_id(game_id) + "}"

    def game(self, game_id: str) -> str:
        """Hash: ``v`` version, ``s`` state json, ``m`` meta json, ``dl`` deadline ms,
        ``wl`` warning ms, ``tv`` version the timers were armed for, ``p:<who>`` presence."""
        return f"{self.prefix}{self.tag(game_id)}:rec"

    def log(self, game_id: str) -> str:
        """List: the move log, one JSON entry per committed move."""
        return f"{self.prefix}{self.tag(game_id)}:log"

    def adapter(self, game_id: str) -> str:
        """Hash: adapter data (e.g. the group's board message id)."""
        return f"{self.prefix}{self.tag(game_id)}:ad"

    def game_keys(self, game_id: str) -> list[str]:
        return [self.game(game_id), self.log(game_id), self.adapter(game_id)]

    def game_pattern(self) -> str:
        """SCAN pattern matching every live game's record (the timer sweeper)."""
        return _glob_escape(self.prefix) + "{g:*}:rec"

    def game_id_of(self, record_key: str) -> str | None:
        """The game id of a record key (``game(id)``), None for anything else."""
        head, tail = self.prefix + "{g:", "}:rec"
        if not (record_key.startswith(head) and record_key.endswith(tail)):
            return None
        game_id = record_key[len(head) : -len(tail)]
        return game_id if GAME_ID_RE.match(game_id) else None

    # --- archive of a finished game (same slot as the live game, own prefix) ----------
    def archive(self, game_id: str) -> str:
        """String: the compact JSON record of a finished game (no TTL)."""
        return f"{self.prefix}arch:{self.tag(game_id)}"

    def archive_log(self, game_id: str) -> str:
        """List: the move log of a finished game (no TTL)."""
        return f"{self.prefix}arch:{self.tag(game_id)}:log"

    def archive_index(self) -> str:
        """Sorted set: archived game id -> finished ms (retention sweeps)."""
        return f"{self.prefix}arch:index"

    def user_stats(self, user_id: int) -> str:
        """Sorted set: archived game ids a user played -> finished ms."""
        return f"{self.prefix}arch:user:{int(user_id)}"

    def chat_stats(self, chat_id: int) -> str:
        """Sorted set: archived game ids of a chat -> finished ms."""
        return f"{self.prefix}arch:chat:{int(chat_id)}"

    # --- global indexes -----------------------------------------------------------------
    def timers(self) -> str:
        """Sorted set of timer hints: member ``<game_id>|<kind>`` → when to look at the game.

        Only a hint: the deadline itself is in the game's record (``dl``/``wl``/``tv``), see
        ``core/store/lua.py``. Members ``<game_id>|<version>|<kind>`` are the format of the
        previous release and are still understood."""
        return f"{self.prefix}timers"

    def chat(self, chat_id: int, topic_id: int | None) -> str:
        """String: the open lobby/game of a chat or forum topic."""
        return f"{self.prefix}chat:{int(chat_id)}:{'' if topic_id is None else int(topic_id)}"

    def user_games(self, user_id: int) -> str:
        """Sorted set: live game ids of a user -> last change ms."""
        return f"{self.prefix}user:{int(user_id)}:games"

    def once(self, name: str) -> str:
        """String: a dedupe marker (Telegram update ids, outbox side effects)."""
        return f"{self.prefix}once:{name}"

    def pref(self, key: str) -> str:
        """String: a preference without expiry (e.g. a group's language), see ``pref_owner``."""
        return f"{self.prefix}pref:{key}"

    def user_prefs(self, user_id: int) -> str:
        """Hash: one user's preferences (field = pref key), deleted with the user's data."""
        return f"{self.prefix}pref:user:{int(user_id)}"

    # --- the bot's send budget: one slot (hash tag ``{send}``) for its one script -------
    def send_bucket(self, chat_id: int | None = None) -> str:
        """Hash: the bot-wide send bucket, or a group's (``chat_id``) in the same slot."""
        return f"{self.prefix}{{send}}:" + ("bot" if chat_id is None else f"c:{int(chat_id)}")

    def send_hold(self, chat_id: int | None = None) -> str:
        """String with a TTL: no sends (bot-wide, or to one chat) until it expires (429)."""
        return f"{self.prefix}{{send}}:" + ("hold" if chat_id is None else f"h:{int(chat_id)}")

    def channel(self) -> str:
        """Pub/sub channel carrying ``{"game_id", "version"}`` for every commit."""
        return f"{self.prefix}changed"


def timer_member(game_id: str, kind: str) -> str:
    """The timer index member of a game's turn deadline (``t``) or warning (``w``)."""
    return f"{game_id}|{kind}"


def parse_timer_member(member: str) -> tuple[str, str, bool]:
    """``(game_id, kind, legacy)``; legacy members (``<id>|<version>|<kind>``) come from
    the previous release, which keyed hints by version."""
    parts = member.split("|")
    return parts[0], parts[-1], len(parts) != 2


PREF_KEY_RE = re.compile(r"^([A-Za-z0-9_.-]{1,32}):(-?[0-9]{1,20})$")


def pref_owner(key: str) -> int | None:
    """The user a preference belongs to: keys ``<name>:<n>`` with ``n`` > 0 are user ``n``'s.

    Why a naming rule: Telegram user ids are positive and group ids negative, so
    ``u:42`` (a user's language) and ``c:-1001`` (a group's) need no extra argument, and a
    user's preferences live in one hash that ``delete_user_data`` removes in one step.
    """
    match = PREF_KEY_RE.match(key)
    if match is None:
        return None
    n = int(match.group(2))
    return n if n > 0 else None


def _glob_escape(text: str) -> str:
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
