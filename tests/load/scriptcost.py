"""``python -m tests.load.scriptcost``: Redis's own CPU per store script call.

What one Redis core sustains depends on what each move costs *Redis* (the workers' CPU
is measured by ``python -m tests.load``). This starts a private redis-server, runs each
hot script (the commit, the load, the version read) ``--calls`` times in pipelines on a
game record of a real size (1.5 KB state, 0.7 KB meta) and reads Redis's own time per
call (``INFO commandstats``), ``--rounds`` times; the minimum of the rounds is the
figure least disturbed by other load on a shared machine. ``--against REV`` measures the
scripts of another revision too (``git show REV:core/store/lua.py``), for a before/after.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

from core.store import lua
from tests.load.harness import ROOT, RedisServer

STATE, META = "s" * 1500, "m" * 700


def scripts_of(revision: str | None) -> types.ModuleType:
    """``core.store.lua`` as it is, or as it was at ``revision``."""
    if revision is None:
        return lua
    text = subprocess.run(
        ["git", "show", f"{revision}:core/store/lua.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    module = types.ModuleType(f"lua_{revision}")
    exec(compile(text, f"{revision}:core/store/lua.py", "exec"), module.__dict__)
    return module


def _commit_args(scripts: types.ModuleType, version: int, i: int) -> list[Any]:
    args: list[Any] = [version, STATE, META, 600_000, "set", 10**13 + i, "", "ch", "g", 1]
    args += ["p:7", 1]
    if "ARGV[13]" in scripts.COMMIT:  # this release: submission id, publish flag
        args += [f"sub{i:08d}", 1]
    return [*args, '{"seat":1,"move":{"type":"discard"}}']


def measure(
    server: RedisServer, scripts: types.ModuleType, calls: int, tag: str
) -> dict[str, float]:
    client = server.client()
    out: dict[str, float] = {}
    try:
        key, log, ad = (f"{{g:{tag}}}:rec", f"{{g:{tag}}}:log", f"{{g:{tag}}}:ad")
        client.delete(key, log, ad)
        client.hset(key, mapping={"v": 1, "s": STATE, "m": META})
        plans: dict[str, tuple[str, list[list[Any]]]] = {
            "commit": (
                scripts.COMMIT,
                [[3, key, log, ad, *_commit_args(scripts, 1 + i, i)] for i in range(calls)],
            ),
            "load": (scripts.LOAD_CACHED, [[1, key, "", -2, -2] for _ in range(calls)]),
        }
        if hasattr(scripts, "VERSION"):
            plans["version"] = (scripts.VERSION, [[1, key] for _ in range(calls)])
        for name, (text, calls_args) in plans.items():
            sha = client.script_load(text)
            client.config_resetstat()
            for start in range(0, len(calls_args), 500):
                pipe = client.pipeline(transaction=False)
                for args in calls_args[start : start + 500]:
                    pipe.evalsha(sha, *args)
                pipe.execute()
            stats = client.info("commandstats")["cmdstat_evalsha"]
            out[name] = float(stats["usec_per_call"])
    finally:
        client.close()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.load.scriptcost", description=__doc__)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--against", default=None, help="a git revision to compare with")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    versions: dict[str, types.ModuleType] = {"this tree": scripts_of(None)}
    if args.against:
        versions[args.against] = scripts_of(args.against)
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in versions}
    with RedisServer() as server:
        for r in range(args.rounds):
            for name, scripts in versions.items():  # interleaved: the same machine load
                rounds[name].append(measure(server, scripts, args.calls, f"{r}{len(name)}"))
    report = {
        name: {
            "us_per_call_min": {k: min(x[k] for x in runs) for k in runs[0]},
            "us_per_call_median": {k: sorted(x[k] for x in runs)[len(runs) // 2] for k in runs[0]},
        }
        for name, runs in rounds.items()
    }
    text = json.dumps({"calls": args.calls, "rounds": args.rounds, **report}, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
