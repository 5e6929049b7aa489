"""Records the commands this process sends to Redis (the store's Cluster-readiness check)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from redis.crc import key_slot

SCRIPT_COMMANDS = {"EVALSHA", "EVAL", "EVALSHA_RO", "EVAL_RO", "FCALL", "FCALL_RO"}
# commands whose arguments are all keys (UNLINK is left out: the shared test cleanup uses it
# across slots on this single Redis, and the store never sends it)
ALL_KEYS_COMMANDS = {"DEL", "EXISTS", "TOUCH", "MGET", "WATCH"}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass
class CommandLog:
    """Commands sent by this process during one test: ``(name, keys of a script call)``."""

    # (script sha or command name, keys) of script calls and multi-key commands
    scripts: list[tuple[str, list[str]]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    def record(self, args: tuple[Any, ...]) -> None:
        if not args:
            return
        name = _text(args[0]).upper()
        self.names.append(name)
        if name in SCRIPT_COMMANDS:
            numkeys = int(_text(args[2]))
            self.scripts.append((_text(args[1]), [_text(k) for k in args[3 : 3 + numkeys]]))
        elif name in ALL_KEYS_COMMANDS and len(args) > 2:
            self.scripts.append((name, [_text(k) for k in args[1:]]))

    def cross_slot(self) -> list[tuple[str, list[str]]]:
        """Script calls and multi-key commands whose keys are not all in one slot
        (invalid on Redis Cluster)."""
        return [
            (sha, keys)
            for sha, keys in self.scripts
            if len({key_slot(k.encode()) for k in keys}) > 1
        ]
