"""``python -m tests.load.report REPORT.json``: Markdown tables of a load/chaos report.

``python -m tests.load.report --compare before=A.json after=B.json``: one table of the
steps of several runs (a before/after in one sitting); a file without ``LABEL=`` is
labelled by its name. A run with ``--hard-games`` shows its hard tables, their decisions
per second and the AI pool's CPU beside the API games' latency.

So the figures in docs/benchmarks/load.md are copied by a program, not by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _d(d: dict[str, Any] | None, *keys: str) -> str:
    if not d or not d.get("n"):
        return "—"
    return " / ".join(f"{d[k]:g}" for k in keys)


def steps_table(report: dict[str, Any]) -> str:
    rows = [
        "| offered moves/s | achieved moves/s | slots missed (all games busy) | errors | "
        "POST move, client p50 / p95 / p99 ms | POST move, server p50 / p95 / p99 ms | "
        "GET view, server p50 / p95 / p99 ms | worker CPU, cores (each process) | "
        "worker CPU ms per move | Redis CPU (cores) | load generator CPU (cores) | "
        "slot lateness p50 / p99 / max ms | hard tables: decisions/s, AI pool CPU (cores) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in report["steps"]:
        errors = s["errors"]
        if errors:
            errors = f"{errors} ({', '.join(f'{k}: {v}' for k, v in s['error_kinds'].items())})"
        rows.append(
            f"| {s['offered_moves_per_s']:g} | {s['achieved_moves_per_s']:g} | "
            f"{s['slots_missed_all_games_busy']} | {errors} | "
            f"{_d(s['post_move_ms'], 'p50', 'p95', 'p99')} | "
            f"{_d(s.get('server_post_move_ms'), 'p50', 'p95', 'p99')} | "
            f"{_d(s.get('server_get_view_ms'), 'p50', 'p95', 'p99')} | "
            f"{_cores(s)} | {s['worker_cpu_ms_per_move']} | "
            f"{s.get('redis_cpu_cores', '—')} | {s.get('load_generator_cpu_cores', '—')} | "
            f"{_lateness(s)} | {_hard(s)} |"
        )
    return "\n".join(rows)


def _hard(s: dict[str, Any]) -> str:
    """``N: d/s, pool c`` for a step beside hard tables; ``0`` without (— before the
    reports had them)."""
    hard = s.get("hard_tables")
    pool = s.get("ai_pool_cpu_cores")
    if not hard:
        return "—" if pool is None else f"0 (pool {pool:g})"
    errors = f", {hard['errors']} errors" if hard.get("errors") else ""
    return f"{hard['tables']}: {hard['decisions_per_s']:g}/s, pool {pool:g}{errors}"


def _cores(s: dict[str, Any]) -> str:
    """All workers' cores, then each process's share when the report has it."""
    each = s.get("worker_cpu_cores_each")
    if not each:
        return str(s["worker_cpu_cores"])
    if isinstance(each, dict):  # by process name (older reports: a bare list)
        parts = [f"{name.removeprefix('sab-')} {cores}" for name, cores in each.items()]
    else:
        parts = [str(c) for c in each]
    return f"{s['worker_cpu_cores']} ({' + '.join(parts)})"


def _lateness(s: dict[str, Any]) -> str:
    return _d(s.get("slot_lateness_ms"), "p50", "p99", "max")


def _gen_cpu_ms(s: dict[str, Any]) -> str:
    """The generator's CPU per move; older reports have only its cores."""
    if "load_generator_cpu_ms_per_move" in s:
        return f"{s['load_generator_cpu_ms_per_move']:g}"
    cores = s.get("load_generator_cpu_cores")
    if cores is None or not s.get("moves_ok"):
        return "—"
    return f"{cores * s['seconds'] * 1000 / s['moves_ok']:.3g}*"


def generator_table(labelled: list[tuple[str, dict[str, Any]]]) -> str:
    """The load generator's own cost and steadiness per step (reports since the
    2026-11-29 evening; ``*`` = CPU per move derived from cores × seconds / moves)."""
    rows = [
        "| run | offered moves/s | achieved moves/s | generator CPU (cores) | generator CPU ms "
        "per move | slot lateness p50 / p99 / max ms | generator loop lag p99 / max ms | "
        "loop stalls ≥ 5 ms: count (busy), ms | GC collections (pause total / max ms) | POSTs "
        "over 10 ms server-side | of them after a generator stall (all POSTs) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, report in labelled:
        for s in report["steps"]:
            g = s.get("load_generator") or {}
            lag = g.get("loop_lag_ms")
            al = g.get("server_tail_vs_generator_stalls") or {}
            stalls = (
                f"{g['loop_stalls_over_5ms']} ({g.get('loop_stalls_busy', '—')}), "
                f"{g['loop_stall_ms_total']:g}"
                if g
                else "—"
            )
            gcs = (
                f"{g['gc_collections']} ({g['gc_pause_ms_total']:g} / {g['gc_pause_ms_max']:g})"
                if g
                else "—"
            )
            share = (
                f"{al.get('tail_posts_following_a_stall_share')} "
                f"({al.get('posts_following_a_stall_share')})"
                if al
                else "—"
            )
            rows.append(
                f"| {label} | {s['offered_moves_per_s']:g} | {s['achieved_moves_per_s']:g} | "
                f"{s.get('load_generator_cpu_cores', '—')} | {_gen_cpu_ms(s)} | "
                f"{_lateness(s)} | {_d(lag, 'p99', 'max')} | {stalls} | {gcs} | "
                f"{al.get('tail_posts_over_10ms', '—')} | {share} |"
            )
    return "\n".join(rows)


def compare_table(labelled: list[tuple[str, dict[str, Any]]]) -> str:
    """One table of several runs' steps (e.g. before/after a change in one sitting)."""
    rows = [
        "| run | offered moves/s | achieved moves/s | slots missed | errors | "
        "POST move, server p50 / p95 / p99 ms | GET view, server p50 / p95 / p99 ms | "
        "worker CPU, cores (each process) | worker CPU ms per move | load generator CPU (cores) | "
        "load generator CPU ms per move | slot lateness p50 / p99 / max ms | "
        "Redis CPU (cores) | hard tables: decisions/s, AI pool CPU (cores) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, report in labelled:
        for s in report["steps"]:
            rows.append(
                f"| {label} | {s['offered_moves_per_s']:g} | {s['achieved_moves_per_s']:g} | "
                f"{s['slots_missed_all_games_busy']} | {s['errors']} | "
                f"{_d(s.get('server_post_move_ms'), 'p50', 'p95', 'p99')} | "
                f"{_d(s.get('server_get_view_ms'), 'p50', 'p95', 'p99')} | "
                f"{_cores(s)} | {s['worker_cpu_ms_per_move']} | "
                f"{s.get('load_generator_cpu_cores', '—')} | {_gen_cpu_ms(s)} | "
                f"{_lateness(s)} | {s.get('redis_cpu_cores', '—')} | {_hard(s)} |"
            )
    return "\n".join(rows)


def hard_table(labelled: list[tuple[str, dict[str, Any]]]) -> str:
    """The API games' latency beside the hard tables, one row per step: how many tables
    the timer process played, its decisions per second and the pool's CPU, so a run with
    and a run without them read in one table."""
    rows = [
        "| run | hard tables (think delay s) | hard decisions/s | AI pool CPU (cores) | "
        "pool CPU ms per decision | timer process CPU (cores) | offered / achieved moves/s | "
        "errors (API, hard) | POST move, server p50 / p99 ms | GET view, server p50 / p99 ms "
        "| POST move, client p50 / p99 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for label, report in labelled:
        whole = report.get("hard_tables") or {}
        for s in report["steps"]:
            hard = s.get("hard_tables") or {}
            each = s.get("worker_cpu_cores_each")
            timers = each.get("sab-timers", "—") if isinstance(each, dict) else "—"
            tables = hard.get("tables", 0)
            if tables and whole.get("think_delay_s") is not None:
                tables = f"{tables} ({whole['think_delay_s']:g})"
            pool = s.get("ai_pool_cpu_cores")
            per = (
                f"{pool * s['seconds'] * 1000 / hard['decisions']:.0f}"
                if pool is not None and hard.get("decisions")
                else "—"
            )
            rows.append(
                f"| {label} | {tables} | {hard.get('decisions_per_s', 0):g} | "
                f"{'—' if pool is None else pool} | {per} | {timers} | "
                f"{s['offered_moves_per_s']:g} / {s['achieved_moves_per_s']:g} | "
                f"{s['errors']}, {hard.get('errors', 0)} | "
                f"{_d(s.get('server_post_move_ms'), 'p50', 'p99')} | "
                f"{_d(s.get('server_get_view_ms'), 'p50', 'p99')} | "
                f"{_d(s.get('post_move_ms'), 'p50', 'p99')} |"
            )
    return "\n".join(rows)


def summary(report: dict[str, Any]) -> str:
    res, mem, timers, integ = (
        report["resources"],
        report["redis_memory"],
        report["timers"],
        report["integrity"],
    )
    late = timers["fire_delay_after_deadline_ms"]
    lines = [
        f"- load average before/after (1, 5, 15 min): {report.get('load_average_before')} / "
        f"{report.get('load_average_after')}",
        f"- setup: {report['setup_s']} s for {report['config']['games']} games",
        f"- integrity: {integ['games_checked']} games checked, {integ['games_lost']} lost, "
        f"{integ['games_corrupted']} corrupted; {integ['moves_acknowledged']} moves "
        f"acknowledged, {integ['acknowledged_then_lost']} of them lost",
        f"- WebSocket notices (POST sent → notice) p50 / p95 / p99 ms: "
        f"{_d(report.get('ws_push_ms'), 'p50', 'p95', 'p99')}; acknowledged versions never "
        f"announced: {report.get('ws_acked_versions_never_announced')} (still on their way "
        f"when the last step ended: {report.get('ws_in_flight_at_end', '—')})",
        f"- timers: {timers['timers_seen_firing']} seen firing, delay after deadline p50 / "
        f"p95 / p99 / max ms {_d(late, 'p50', 'p95', 'p99', 'max')}"
        f"; stuck games (pending > deadline + 2 s): {timers['stuck_games']}",
        f"- Redis: {mem.get('memory_usage_keys_per_game_kb')} KB per game (MEMORY USAGE of a "
        f"game's keys), {mem.get('all_keys_per_game_kb', '—')} KB per game counting every key "
        f"of the run, used_memory growth {mem['used_memory_growth_per_game_kb']} KB per game",
        f"- worker RSS: max {res['worker_rss_mb_max_each']} MB per worker, "
        f"{res['worker_rss_mb_total_max']} MB all workers",
        f"- server ERROR log lines: {report.get('server_error_log_lines')}",
    ]
    hard = report.get("hard_tables")
    if hard:
        lines.append(
            f"- hard tables: {hard['tables']} live (fewest after a poll: "
            f"{hard['tables_live_min']}), {hard['seats_per_table']} seats each, think delay "
            f"{hard['think_delay_s']} s; {hard['games_started']} games started, "
            f"{hard['games_finished']} finished; {hard['decisions']} hard decisions, "
            f"{hard['turns_timed_out']} turns timed out (the creators' hand-overs); longest "
            f"a table went without a move {hard['longest_gap_without_a_move_s']} s; "
            f"{hard['errors']} errors"
        )
    if report.get("chaos"):
        lines.append(f"- chaos: `{json.dumps(report['chaos'])}`")
    return "\n".join(lines)


def _label(arg: str) -> str:
    """``LABEL=FILE.json``'s label; a bare file's name without ``.json``."""
    if "=" in arg:
        return arg.rsplit("=", 1)[0]
    return Path(arg).name.removesuffix(".json")


def main(argv: list[str] | None = None) -> int:
    args = list(argv if argv is not None else sys.argv[1:])
    if args and args[0] == "--compare":  # --compare [LABEL=]FILE.json ...
        labelled = [
            (_label(a), json.loads(Path(a.rsplit("=", 1)[-1]).read_text())) for a in args[1:]
        ]
        print(hard_table(labelled) + "\n")
        print(compare_table(labelled) + "\n")
        print(generator_table(labelled))
        return 0
    for path in args:
        report = json.loads(Path(path).read_text())
        print(f"### {path}\n")
        if "steps" in report:
            print(steps_table(report) + "\n")
            if report.get("hard_tables"):
                print(hard_table([(path, report)]) + "\n")
            print(generator_table([(path, report)]) + "\n")
            print(summary(report) + "\n")
        else:
            print("```json\n" + json.dumps(report, indent=2)[:4000] + "\n```\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
