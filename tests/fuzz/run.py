"""The fuzz run: hostile requests, garbage WebSocket frames and schemathesis, then checks.

Pass criteria: no 5xx at all; every forged credential answered exactly 401; games still
load and replay from their logs afterwards; the server logged no unexpected error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp

from tests.fuzz import hostile
from tests.load.client import Api, Reply
from tests.load.driver import Driver, Game
from tests.load.harness import RedisServer, ServerGroup
from tests.load.verify import verify


class Tally:
    def __init__(self) -> None:
        self.requests = 0
        self.statuses: Counter[int] = Counter()
        self.kinds: Counter[str] = Counter()
        self.server_errors: list[str] = []
        self.forgery_not_401: list[str] = []
        self.unexpected: list[str] = []
        self.accepted_mutations = 0

    def record(self, kind: str, reply: Reply, expect: str) -> None:
        self.requests += 1
        self.statuses[reply.status] += 1
        self.kinds[kind.split(":")[0]] += 1
        if reply.status >= 500:
            self.server_errors.append(f"{kind}: {reply.status} {str(reply.body)[:160]}")
        if expect == "401" and reply.status != 401:
            self.forgery_not_401.append(f"{kind}: {reply.status}")
        elif expect == "4xx" and not 400 <= reply.status < 500:
            self.unexpected.append(f"{kind}: {reply.status} {str(reply.body)[:120]}")

    @property
    def hostile(self) -> int:
        return self.requests - self.kinds["view"]

    def summary(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "hostile_requests": self.hostile,
            "by_kind": dict(self.kinds),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "5xx": len(self.server_errors),
            "5xx_examples": self.server_errors[:8],
            "forgeries_not_401": len(self.forgery_not_401),
            "forgery_examples": self.forgery_not_401[:8],
            "expected_4xx_but_not": len(self.unexpected),
            "unexpected_examples": self.unexpected[:8],
            "mutated_moves_accepted": self.accepted_mutations,
        }


class Fuzzer:
    def __init__(self, api: Api, driver: Driver, rng: random.Random, tally: Tally) -> None:
        self.api, self.driver, self.rng, self.tally = api, driver, rng, tally
        self.gate = asyncio.Semaphore(8)
        self.stranger = ""  # a signed-in user seated nowhere
        self.seen: dict[str, dict[int, dict[str, Any]]] = {}  # game id -> views by seat

    async def send(
        self,
        kind: str,
        method: str,
        path: str,
        *,
        headers: dict[str, str],
        raw: bytes | None,
        expect: str,
    ) -> Reply | None:
        async with self.gate:
            try:
                reply = await self.api.call(method, path, headers=headers, raw=raw)
            except (aiohttp.ClientError, TimeoutError) as exc:
                self.tally.requests += 1
                self.tally.unexpected.append(f"{kind}: {type(exc).__name__}")
                return None
        self.tally.record(kind, reply, expect)
        return reply

    def game(self) -> Game:
        return self.rng.choice(self.driver.games)

    async def forgeries(self, rounds: int) -> None:
        """Each forged credential from a client address of its own, as the proxy (the fuzzer
        here, a trusted proxy) reports it: every one must be checked and answered 401. From
        a single address they would soon be answered 429 before any check (the limiter),
        which tests/security shows; here the check itself is fuzzed."""
        jobs = []
        for _ in range(rounds):
            cases = hostile.forgery_cases(self.rng, self.rng.randrange(1, 2**40))
            cases += hostile.surrogate_cases(self.rng.randrange(1, 2**40))
            for case in cases:
                path = case.path.replace("{game}", self.game().game_id)
                r = self.rng.randrange
                forwarded = {"X-Forwarded-For": f"10.{r(256)}.{r(256)}.{r(1, 255)}"}
                jobs.append(
                    self.send(
                        case.kind,
                        case.method,
                        path,
                        headers={**case.headers, **forwarded},
                        raw=case.raw,
                        expect=case.expect,
                    )
                )
        await asyncio.gather(*jobs)

    async def bodies(self, rounds: int, skip: frozenset[str] = frozenset()) -> None:
        jobs = []
        for _ in range(rounds):
            for kind, path, raw, expect in hostile.body_cases(self.rng):
                if kind in skip:
                    continue
                game = self.game()
                token = self.rng.choice(list(game.tokens.values()))
                headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
                jobs.append(
                    self.send(
                        f"body:{kind}",
                        "POST",
                        path.replace("{game}", game.game_id),
                        headers=headers,
                        raw=raw,
                        expect=expect,
                    )
                )
        await asyncio.gather(*jobs)

    async def _views(self, game: Game) -> dict[int, dict[str, Any]]:
        views = {}
        for seat, token in game.tokens.items():
            reply = await self.api.view(token, game.game_id)
            self.tally.record("view", reply, "not5xx")
            if reply.status == 200:
                views[seat] = reply.body
        return views

    async def semantic(self, game: Game) -> None:
        """Other players' cards, moves out of turn, stale versions, timeouts, strangers."""
        views = await self._views(game)
        actor = next((s for s, v in views.items() if v.get("legal_moves")), None)
        if actor is None:
            return
        view = views[actor]
        move = self.rng.choice(view["legal_moves"])
        token = game.tokens[actor]
        h = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        path = f"/api/games/{game.game_id}/moves"

        def body(m: Any, version: Any = view["version"]) -> bytes:
            return json.dumps({"version": version, "move": m}).encode()

        for seat, other in views.items():
            if seat == actor:
                continue
            stolen = [c["id"] for c in other["you"].get("hand", [])]
            if stolen and "card" in move:
                await self.send(
                    "semantic:others_card",
                    "POST",
                    path,
                    headers=h,
                    raw=body({**move, "card": self.rng.choice(stolen)}),
                    expect="4xx",
                )
            if "cards" in move and stolen:
                await self.send(
                    "semantic:others_cards",
                    "POST",
                    path,
                    headers=h,
                    raw=body({**move, "cards": stolen[:1]}),
                    expect="4xx",
                )
            oh = {
                "Authorization": f"Bearer {game.tokens[seat]}",
                "Content-Type": "application/json",
            }
            await self.send(
                "semantic:out_of_turn", "POST", path, headers=oh, raw=body(move), expect="4xx"
            )
        await self.send(
            "semantic:stale_version",
            "POST",
            path,
            headers=h,
            raw=body(move, view["version"] - 1),
            expect="4xx",
        )
        await self.send(
            "semantic:future_version",
            "POST",
            path,
            headers=h,
            raw=body(move, view["version"] + 5),
            expect="4xx",
        )
        await self.send(
            "semantic:timeout", "POST", path, headers=h, raw=body({"type": "timeout"}), expect="4xx"
        )
        sh = {"Authorization": f"Bearer {self.stranger}", "Content-Type": "application/json"}
        await self.send(
            "semantic:stranger_move", "POST", path, headers=sh, raw=body(move), expect="4xx"
        )
        await self.send(
            "semantic:stranger_start",
            "POST",
            f"/api/games/{game.game_id}/start",
            headers=sh,
            raw=b"{}",
            expect="4xx",
        )

    async def mutations(self, count: int) -> None:
        """Legal moves with fields broken; every tenth a clean move keeps games moving."""
        for i in range(count):
            game = self.game()
            views = self.seen.get(game.game_id)
            if views is None or i % 4 == 0:
                views = self.seen[game.game_id] = await self._views(game)
            actor = next((s for s, v in views.items() if v.get("legal_moves")), None)
            if actor is None:
                continue
            view = views[actor]
            move = self.rng.choice(view["legal_moves"])
            h = {
                "Authorization": f"Bearer {game.tokens[actor]}",
                "Content-Type": "application/json",
            }
            clean = i % 10 == 0
            sent = move if clean else hostile.mutate_move(self.rng, move)
            version: Any = view["version"] if self.rng.random() < 0.8 else hostile.junk(self.rng)
            try:
                raw = json.dumps({"version": version, "move": sent}).encode()
            except ValueError:
                continue
            reply = await self.send(
                "mutation",
                "POST",
                f"/api/games/{game.game_id}/moves",
                headers=h,
                raw=raw,
                expect="not5xx",
            )
            if reply is not None and reply.status == 200:
                self.seen[game.game_id] = await self._views(game)
                if not clean:
                    self.tally.accepted_mutations += 1

    async def paths(self, count: int) -> None:
        jobs = []
        h = {"Authorization": f"Bearer {self.stranger}"}
        for _ in range(count):
            junk_id = self.rng.choice(
                [
                    "..%2F..%2Fetc",
                    "x" * 65,
                    "a b",
                    "%00",
                    "ÿ",
                    "-",
                    "AAAAAAAAAAAA",
                    "_" * 64,
                    "%2e%2e",
                ]
            )
            since = self.rng.choice(["-1", "abc", "1e9", str(10**30), "", "0x10"])
            jobs.append(
                self.send(
                    "path:game", "GET", f"/api/games/{junk_id}", headers=h, raw=None, expect="4xx"
                )
            )
            jobs.append(
                self.send(
                    "path:log",
                    "GET",
                    f"/api/games/{self.game().game_id}/log?since={since}",
                    headers=h,
                    raw=None,
                    expect="not5xx",
                )
            )
        await asyncio.gather(*jobs)


async def websocket_garbage(
    api: Api, driver: Driver, rng: random.Random, wait_auth_timeout: bool
) -> dict[str, Any]:
    """Each hostile socket must be closed with the documented code (or refused).

    Every socket comes from a client address of its own (the fuzzer stands where the proxy
    would): the hostile first frames spend their address's budget, and a later socket from
    the same address would be answered 429 before its valid token is looked at."""
    game = driver.games[0]

    def own_address() -> dict[str, str]:
        r = rng.randrange
        return {"X-Forwarded-For": f"10.{r(256)}.{r(256)}.{r(1, 255)}"}

    token = next(iter(game.tokens.values()))
    url = api.ws_url(game.game_id)
    results: dict[str, Any] = {}

    async def first_frame(
        name: str, send: Any, origin: str | None = api.base, target: str = url
    ) -> None:
        try:
            ws = await api.http.ws_connect(
                target, origin=origin, heartbeat=None, headers=own_address()
            )
        except aiohttp.WSServerHandshakeError as exc:
            results[name] = f"refused {exc.status}"
            return
        try:
            if send is not None:
                await send(ws)
            msg = await ws.receive(timeout=8)
            results[name] = (
                f"close {ws.close_code}"
                if msg.type
                in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
                else f"message {str(msg.data)[:40]}"
            )
        finally:
            await ws.close()

    await first_frame("bad_origin", None, origin="https://evil.example")
    await first_frame("binary_first", lambda ws: ws.send_bytes(rng.randbytes(64)))
    await first_frame("not_json_first", lambda ws: ws.send_str("{{{{"))
    await first_frame("auth_not_string", lambda ws: ws.send_str('{"auth": 123}'))
    await first_frame("forged_token", lambda ws: ws.send_str('{"auth": "abc.def"}'))
    await first_frame("oversized_frame", lambda ws: ws.send_str("x" * 20000))
    await first_frame(
        "no_such_game",
        lambda ws: ws.send_str(json.dumps({"auth": token})),
        target=api.ws_url("NoSuchGame00"),
    )
    if wait_auth_timeout:
        await first_frame("silent", None)
    # the fuzzer's requests as this player may have spent the player's budget: a socket
    # closed 4429 is opened again after a pause, as the page does
    for _ in range(20):
        ws = await api.http.ws_connect(url, origin=api.base, heartbeat=None, headers=own_address())
        await ws.send_str(json.dumps({"auth": token}))
        hello = await ws.receive(timeout=5)
        if hello.type == aiohttp.WSMsgType.TEXT:
            break
        await ws.close()
        await asyncio.sleep(1.0)
    try:
        for _ in range(200):
            if rng.random() < 0.5:
                await ws.send_bytes(rng.randbytes(rng.randint(0, 3000)))
            else:
                await ws.send_str("".join(chr(rng.randint(32, 0x2FFF)) for _ in range(50)))
        await ws.send_str("ping")
        reply = None
        while True:
            msg = await ws.receive(timeout=5)
            if msg.type != aiohttp.WSMsgType.TEXT or msg.data == "pong":
                reply = msg.data if msg.type == aiohttp.WSMsgType.TEXT else f"{msg.type}"
                break
        results["garbage_after_auth"] = {"hello": str(hello.data)[:60], "after_200": reply}
    finally:
        await ws.close()
    return results


def run_schemathesis(
    base: str, token: str, examples: int, seed: int, max_time: float
) -> dict[str, Any]:
    """The schemathesis CLI against /api/openapi.json; counts its requests from its report."""
    with tempfile.TemporaryDirectory(prefix="sab-st-") as tmp:
        report = Path(tmp) / "events.ndjson"
        cmd = [
            sys.executable,
            "-m",
            "schemathesis.cli",
            "run",
            f"{base}/api/openapi.json",
            "-H",
            f"Authorization: Bearer {token}",
            "--checks",
            "not_a_server_error",
            "--max-examples",
            str(examples),
            "--seed",
            str(seed),
            "--workers",
            "2",
            "--phases",
            "examples,coverage,fuzzing",
            "--suppress-health-check",
            "all",
            "--request-timeout",
            "10",
            "--max-time",
            str(int(max_time)),
            "--no-color",
            "--report",
            "ndjson",
            "--report-ndjson-path",
            str(report),
            "--generation-database",
            "none",
            "--exclude-path",
            "/api/games/{game_id}/ws",
            # the API allows one user ~15 requests/s per worker; stay under it so that
            # schemathesis tests the handlers rather than the rate limiter
            "--rate-limit",
            "25/s",
        ]
        began = time.monotonic()
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=max_time + 120, check=False
        )
        statuses: Counter[str] = Counter()
        if report.exists():
            for line in report.read_text().splitlines():
                _count_statuses(json.loads(line), statuses)
        tail = "\n".join(proc.stdout.splitlines()[-25:])
    return {
        "exit_code": proc.returncode,
        "seconds": round(time.monotonic() - began, 1),
        "requests": sum(statuses.values()),
        "statuses": dict(statuses),
        "5xx": sum(v for k, v in statuses.items() if k.startswith("5")),
        "output_tail": tail,
    }


def _count_statuses(node: Any, statuses: Counter[str]) -> None:
    """Walk a schemathesis event and count every recorded HTTP response status."""
    if isinstance(node, dict):
        response = node.get("response")
        if isinstance(response, dict) and isinstance(response.get("status_code"), int):
            statuses[str(response["status_code"])] += 1
        for value in node.values():
            if value is not response:
                _count_statuses(value, statuses)
    elif isinstance(node, list):
        for value in node:
            _count_statuses(value, statuses)


async def run_fuzz(
    *,
    requests: int = 10_000,
    games: int = 20,
    workers: int = 2,
    seed: int = 1,
    schemathesis_examples: int = 100,
    schemathesis_time: float = 180,
    wait_auth_timeout: bool = True,
    skip: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """``skip``: body case kinds to leave out (known bugs tested on their own)."""
    rng = random.Random(seed)
    tally = Tally()
    out: dict[str, Any] = {"seed": seed}
    with (
        RedisServer() as redis_server,
        # the fuzzer stands where the proxy would (its X-Forwarded-For names the client)
        ServerGroup(
            redis_server.url,
            workers=workers,
            prefix="fuzz:",
            extra_env={"TRUSTED_PROXIES": "127.0.0.1"},
        ) as server,
    ):
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as http:
            api = Api(server.base_url, http)
            driver = Driver(api, seed=seed)
            await driver.setup(games)
            began = time.monotonic()
            fuzzer = Fuzzer(api, driver, rng, tally)
            fuzzer.stranger = await api.login(driver._user(), "Stranger")
            await fuzzer.forgeries(max(1, requests // 1200))
            await fuzzer.bodies(max(1, requests // 500), skip)
            for game in driver.games:
                with contextlib.suppress(Exception):
                    await fuzzer.semantic(game)
            await fuzzer.paths(max(10, requests // 40))
            while tally.hostile < requests:
                await fuzzer.mutations(min(500, requests - tally.hostile))
            out["hand_made"] = tally.summary()
            out["hand_made_seconds"] = round(time.monotonic() - began, 1)
            out["websocket"] = await websocket_garbage(api, driver, rng, wait_auth_timeout)
            if schemathesis_examples:
                token = next(iter(driver.games[0].tokens.values()))
                out["schemathesis"] = await asyncio.to_thread(
                    run_schemathesis,
                    server.base_url,
                    token,
                    schemathesis_examples,
                    seed,
                    schemathesis_time,
                )
            healthy = await api.call("GET", "/healthz")
            out["healthy_after"] = healthy.status == 200
        verdict = await verify(redis_server.url, "fuzz:", [g.game_id for g in driver.games], [])
        out["integrity"] = verdict.summary()
        out["server_error_log_lines"] = len(server.log_errors())
        out["server_error_examples"] = server.log_errors()[:6]
    st = out.get("schemathesis", {})
    hm = out["hand_made"]
    out["total_requests"] = hm["requests"] + st.get("requests", 0)
    out["total_hostile_and_generated"] = hm["hostile_requests"] + st.get("requests", 0)
    out["pass"] = bool(
        hm["5xx"] == 0
        and hm["forgeries_not_401"] == 0
        and st.get("5xx", 0) == 0
        and out["healthy_after"]
        and verdict.ok
    )
    return out
