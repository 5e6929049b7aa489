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

import time
from collections.abc import Callable

from core.service.agents import Chooser
from core.service.flow import GameFlow
from core.service.guards import Guards
from core.service.lobbies import Lobbies
from core.service.models import ServiceConfig
from core.service.moves import Moves
from core.service.queries import Queries
from core.service.records import Records
from core.service.sharing import Share
from core.service.timers import Timers
from core.service.timing import Timing
from core.store import GameStore


def _wall_clock_ms() -> int:
    return int(time.time() * 1000)


class GameService:
    """The API of CONTRACTS.md §3: each of its methods is one of its parts' methods."""

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
        self.share = Share(self.queries)
        # The API, each method its part's (their docstrings say what it does).
        lobbies, moves, flow, timers, queries, guards = (
            self.lobbies,
            self.moves,
            self.flow,
            self.timers,
            self.queries,
            self.guards,
        )
        # lobby
        self.create_lobby = lobbies.create_lobby
        self.join = lobbies.join
        self.leave = lobbies.leave
        self.kick = lobbies.kick
        self.configure = lobbies.configure
        self.describe_lobby = lobbies.describe_lobby
        self.set_lobby = lobbies.set_lobby
        self.add_computer = lobbies.add_computer
        self.remove_computer = lobbies.remove_computer
        self.start = lobbies.start
        self.extend = lobbies.extend
        self.cancel = lobbies.cancel
        self.use_membership = guards.use_membership
        self.grant_join_pass = guards.grant_join_pass
        # sharing a result (the bot's port; none: unavailable)
        self.use_sharing = self.share.use_sharing
        self.sharing_available = self.share.sharing_available
        self.share_result = self.share.share_result
        # moves and the table's flow
        self.submit = moves.submit
        self.take_seat_back = moves.take_seat_back
        self.pause = flow.pause
        self.resume = flow.resume
        self.prompt_delivered = flow.prompt_delivered
        self.rematch = flow.rematch
        # timers
        self.on_turn_warning = timers.on_turn_warning
        self.run_timers = timers.run_timers
        self.fire_due = timers.fire_due
        # reads
        self.view = queries.view
        self.version = queries.version
        self.log = queries.log
        self.move_log = queries.move_log
        self.seats = queries.seats
        self.chat_of = queries.chat_of
        self.game_for_chat = queries.game_for_chat
        self.games_for_user = queries.games_for_user
        self.touch = queries.touch
        self.listen = queries.listen
        self.listen_all = queries.listen_all
        self.stats_for_user = queries.stats_for_user
        self.finished_view = queries.finished_view
        self.finished_log = queries.finished_log
        self.replay = queries.replay
        self.history = queries.history
        self.stats_for_chat = queries.stats_for_chat
        self.delete_user_data = queries.delete_user_data
        # side effects once, adapter data, health
        self.process_update_once = queries.process_update_once
        self.claim_side_effect = queries.claim_side_effect
        self.take_send_token = queries.take_send_token
        self.hold_sends = queries.hold_sends
        self.get_pref = queries.get_pref
        self.set_pref = queries.set_pref
        self.adapter_data = queries.adapter_data
        self.adapter_value = queries.adapter_value
        self.set_adapter_data = queries.set_adapter_data
        self.ping = queries.ping

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
