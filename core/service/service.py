"""GameService: the one object the adapters call (CONTRACTS.md §3), a facade over the
service's parts, each with its own state:

- ``Records``: load, commit at the expected version, the per-game lock and the one cache
  of decoded records (``core.service.records``);
- ``Timing``: which deadline a commit arms (``core.service.timing``);
- ``Lobbies``, ``Moves``, ``GameFlow``: the decisions (lobby, moves, pause/rematch);
- ``Timers``: the timer loop; ``Queries``: reads, once-only claims, adapter data;
- ``Guards``: caps and admission.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from core.service.agents import Chooser
from core.service.flow import GameFlow
from core.service.guards import Guards, Membership
from core.service.lobbies import Lobbies
from core.service.models import ChatKey, SeatInfo, ServiceConfig, SubmitResult, UserRef
from core.service.moves import Moves
from core.service.queries import Queries
from core.service.records import Records, WarningHandler
from core.service.timers import Timers
from core.service.timing import Timing
from core.store import Change, GameStore


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


class GameService:
    """The API of CONTRACTS.md §3; each method is its part's (see the module docstring)."""

    def __init__(
        self,
        store: GameStore,
        config: ServiceConfig | None = None,
        *,
        clock: Callable[[], int] | None = None,
        ai: Chooser | None = None,
    ) -> None:
        self.store = store
        self.config = config or ServiceConfig()
        self.records = Records(store, self.config, clock or _wall_clock_ms)
        self.timing = Timing(self.config, self.records.now_ms)
        self.queries = Queries(self.records)
        self.guards = Guards(self.records)
        self.moves = Moves(self.records, self.timing, self.queries)
        self.lobbies = Lobbies(self.records, self.timing, self.queries, self.moves, self.guards)
        self.flow = GameFlow(self.records, self.timing, self.queries, self.moves)
        self.timers = Timers(self.records, self.timing, self.moves, ai)

    def now_ms(self) -> int:
        return self.records.now_ms()

    # counters (tests, metrics)
    @property
    def fired(self) -> int:
        """Timers this process fired."""
        return self.timers.fired

    @property
    def fallback_fired(self) -> int:
        """Turn deadlines this process took over as the fallback."""
        return self.timers.fallback_fired

    @property
    def commit_retries(self) -> int:
        """Commits sent again with their submission id."""
        return self.records.commit_retries

    @property
    def commit_duplicates(self) -> int:
        """Retried commits whose first try had been applied."""
        return self.records.commit_duplicates

    # ================================================================= lobby
    async def create_lobby(
        self,
        *,
        chat: ChatKey | None,
        creator: UserRef,
        edition: str | None = None,
        options: dict[str, Any] | None = None,
        seats: int | None = None,
        computers: int = 0,
        level: str | None = None,
        settings: dict[str, Any] | None = None,
        autostart: bool = True,
        title: str | None = None,
    ) -> dict[str, Any]:
        return await self.lobbies.create_lobby(
            chat=chat,
            creator=creator,
            edition=edition,
            options=options,
            seats=seats,
            computers=computers,
            level=level,
            settings=settings,
            autostart=autostart,
            title=title,
        )

    async def join(self, game_id: str, user: UserRef) -> dict[str, Any]:
        return await self.lobbies.join(game_id, user)

    async def leave(self, game_id: str, user_id: int) -> dict[str, Any]:
        return await self.lobbies.leave(game_id, user_id)

    async def kick(
        self, game_id: str, by_user: int, user_id: int, *, force: bool = False
    ) -> dict[str, Any]:
        return await self.lobbies.kick(game_id, by_user, user_id, force=force)

    async def configure(
        self, game_id: str, user_id: int, *, force: bool = False, **settings: object
    ) -> dict[str, Any]:
        return await self.lobbies.configure(game_id, user_id, force=force, **settings)

    async def add_computer(
        self, game_id: str, user_id: int, level: str | None = None, *, force: bool = False
    ) -> dict[str, Any]:
        return await self.lobbies.add_computer(game_id, user_id, level, force=force)

    async def remove_computer(
        self, game_id: str, user_id: int, seat: int | None = None, *, force: bool = False
    ) -> dict[str, Any]:
        return await self.lobbies.remove_computer(game_id, user_id, seat, force=force)

    async def start(self, game_id: str, user_id: int, *, force: bool = False) -> dict[str, Any]:
        return await self.lobbies.start(game_id, user_id, force=force)

    async def extend(self, game_id: str, user_id: int, seconds: int = 60) -> dict[str, Any]:
        return await self.lobbies.extend(game_id, user_id, seconds)

    async def cancel(self, game_id: str, user_id: int, *, force: bool = False) -> dict[str, Any]:
        return await self.lobbies.cancel(game_id, user_id, force=force)

    def use_membership(self, membership: Membership | None) -> None:
        self.guards.use_membership(membership)

    async def grant_join_pass(self, game_id: str, user_id: int) -> None:
        await self.guards.grant_join_pass(game_id, user_id)

    # ================================================================= moves
    async def submit(
        self,
        game_id: str,
        user_id: int,
        move: object,
        expected_version: object,
        *,
        submission_id: str | None = None,
    ) -> SubmitResult:
        return await self.moves.submit(
            game_id, user_id, move, expected_version, submission_id=submission_id
        )

    async def take_seat_back(self, game_id: str, user_id: int) -> dict[str, Any]:
        return await self.moves.take_seat_back(game_id, user_id)

    # ============================================================ game flow
    async def pause(self, game_id: str, user_id: int, *, force: bool = False) -> dict[str, Any]:
        return await self.flow.pause(game_id, user_id, force=force)

    async def resume(self, game_id: str, user_id: int, *, force: bool = False) -> dict[str, Any]:
        return await self.flow.resume(game_id, user_id, force=force)

    async def prompt_delivered(self, game_id: str, version: int) -> None:
        await self.flow.prompt_delivered(game_id, version)

    async def rematch(self, game_id: str, user_id: int) -> dict[str, Any]:
        return await self.flow.rematch(game_id, user_id)

    # ================================================================ timers
    def on_turn_warning(self, handler: WarningHandler) -> None:
        self.timers.on_turn_warning(handler)

    async def run_timers(
        self, stop: asyncio.Event | None = None, on_pass: Callable[[], None] | None = None
    ) -> None:
        await self.timers.run_timers(stop, on_pass)

    async def fire_due(self, limit: int = 50, *, wait: bool = True) -> int:
        return await self.timers.fire_due(limit, wait=wait)

    # ================================================================= reads
    async def view(self, game_id: str, user_id: int | None) -> dict[str, Any]:
        return await self.queries.view(game_id, user_id)

    async def version(self, game_id: str) -> int:
        return await self.queries.version(game_id)

    async def log(self, game_id: str, since_version: int = 0) -> list[dict[str, Any]]:
        return await self.queries.log(game_id, since_version)

    async def move_log(self, game_id: str) -> list[dict[str, Any]]:
        return await self.queries.move_log(game_id)

    async def seats(self, game_id: str) -> list[SeatInfo]:
        return await self.queries.seats(game_id)

    async def chat_of(self, game_id: str) -> ChatKey | None:
        return await self.queries.chat_of(game_id)

    async def game_for_chat(self, chat: ChatKey) -> str | None:
        return await self.queries.game_for_chat(chat)

    async def games_for_user(self, user_id: int) -> list[str]:
        return await self.queries.games_for_user(user_id)

    async def touch(self, game_id: str, user_id: int) -> None:
        await self.queries.touch(game_id, user_id)

    def listen(self, game_id: str) -> AsyncIterator[int]:
        return self.queries.listen(game_id)

    def listen_all(self) -> AsyncIterator[Change]:
        return self.queries.listen_all()

    async def stats_for_user(self, user_id: int, limit: int = 100) -> dict[str, Any]:
        return await self.queries.stats_for_user(user_id, limit)

    async def stats_for_chat(self, chat_id: int, limit: int = 100) -> dict[str, Any]:
        return await self.queries.stats_for_chat(chat_id, limit)

    async def delete_user_data(self, user_id: int) -> int:
        return await self.queries.delete_user_data(user_id)

    # ====================================================== side effects once
    async def process_update_once(self, update_id: int) -> bool:
        return await self.queries.process_update_once(update_id)

    async def claim_side_effect(self, key: str, ttl_s: float = 3600) -> bool:
        return await self.queries.claim_side_effect(key, ttl_s)

    async def take_group_token(
        self, chat_id: int, capacity: int = 20, per_seconds: float = 60.0
    ) -> tuple[bool, float]:
        return await self.queries.take_group_token(chat_id, capacity, per_seconds)

    # ============================================================ adapter data
    async def get_pref(self, key: str) -> str | None:
        return await self.queries.get_pref(key)

    async def set_pref(self, key: str, value: str) -> None:
        await self.queries.set_pref(key, value)

    async def adapter_data(self, game_id: str) -> dict[str, str]:
        return await self.queries.adapter_data(game_id)

    async def set_adapter_data(self, game_id: str, name: str, value: str) -> None:
        await self.queries.set_adapter_data(game_id, name, value)

    async def ping(self) -> bool:
        return await self.queries.ping()
