"""The deployment files: docker-compose.yml, deploy/ (Dockerfile, Caddyfile, redis.conf,
.env.example), .dockerignore and the README's configuration table.

Docker cannot run on the development machines, so the compose file is parsed and checked
for what the deployment relies on. The Caddyfile is checked with Caddy itself when a
``caddy`` binary is there (``./dev test`` puts Debian's into ``.venv/bin``): validated, then
run on loopback in front of a small aiohttp app to prove its routes — the webhook, the
API, a WebSocket and static files — really reach the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import yaml
from aiohttp import web
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from core.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
SETTINGS_VARS = sorted(f.name.upper() for f in dataclasses.fields(Settings))
# read by docker-compose.yml from .env, never by the app
COMPOSE_ONLY_VARS = ["REDIS_PASSWORD"]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def service(compose: dict[str, Any], name: str) -> dict[str, Any]:
    services = compose["services"]
    assert name in services, f"docker-compose.yml has no service {name!r}"
    result: dict[str, Any] = services[name]
    return result


def healthcheck_command(svc: dict[str, Any]) -> str:
    test = svc["healthcheck"]["test"]
    assert test[0] in {"CMD", "CMD-SHELL"}, test
    return " ".join(test[1:])


# ------------------------------------------------------------------------ docker-compose


def test_compose_has_the_three_services(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"app", "redis", "proxy"}


def test_every_service_has_a_health_check(compose: dict[str, Any]) -> None:
    for name, svc in compose["services"].items():
        check = svc.get("healthcheck")
        assert check and check.get("test"), f"{name} has no health check"
        assert not check.get("disable"), name
        for key in ("interval", "timeout", "retries"):
            assert key in check, f"{name}: healthcheck.{key}"
    assert "/healthz" in healthcheck_command(service(compose, "app"))
    assert "redis-cli ping" in healthcheck_command(service(compose, "redis"))
    assert "2019" in healthcheck_command(service(compose, "proxy"))


def test_services_start_in_order_of_health(compose: dict[str, Any]) -> None:
    assert service(compose, "app")["depends_on"] == {"redis": {"condition": "service_healthy"}}
    assert service(compose, "proxy")["depends_on"] == {"app": {"condition": "service_healthy"}}


def test_environment_comes_from_dotenv(compose: dict[str, Any]) -> None:
    env_file = service(compose, "app")["env_file"]
    assert env_file == ".env" or env_file == [".env"]
    # the proxy gets PUBLIC_URL alone (substituted from .env), never the bot token
    proxy = service(compose, "proxy")
    assert "env_file" not in proxy
    assert set(proxy["environment"]) == {"PUBLIC_URL"}
    assert proxy["environment"]["PUBLIC_URL"].startswith("${PUBLIC_URL:?")  # required
    app_env = service(compose, "app")["environment"]
    assert app_env["REDIS_URL"] == (
        "redis://:${REDIS_PASSWORD:?set REDIS_PASSWORD in .env}@redis:6379/0"
    )
    assert app_env["HOST"] == "0.0.0.0"
    assert str(app_env["PORT"]) == "8080"


def test_app_is_built_from_the_deploy_dockerfile(compose: dict[str, Any]) -> None:
    build = service(compose, "app")["build"]
    assert build["context"] == "."
    assert (ROOT / build["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    assert "ports" not in service(compose, "app"), "only the proxy is published"
    assert "ports" not in service(compose, "redis"), "Redis stays on the compose network"


def test_volumes_keep_redis_and_caddy_data(compose: dict[str, Any]) -> None:
    assert {"redis-data", "caddy-data", "caddy-config"} <= set(compose["volumes"])
    redis_mounts = service(compose, "redis")["volumes"]
    assert "redis-data:/data" in redis_mounts
    assert "./deploy/redis.conf:/usr/local/etc/redis/redis.conf:ro" in redis_mounts
    assert "/usr/local/etc/redis/redis.conf" in " ".join(service(compose, "redis")["command"])
    proxy_mounts = service(compose, "proxy")["volumes"]
    assert "caddy-data:/data" in proxy_mounts
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy_mounts
    for mount in redis_mounts + proxy_mounts:
        source = mount.split(":")[0]
        if source.startswith("./"):
            assert (ROOT / source).is_file(), mount


def test_proxy_publishes_http_and_https(compose: dict[str, Any]) -> None:
    ports = [str(p) for p in service(compose, "proxy")["ports"]]
    assert "80:80" in ports and "443:443" in ports


# ----------------------------------------------------------------------------- Dockerfile


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ")
    result = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            result.append((word.upper(), rest.strip()))
    return result


def test_dockerfile_is_slim_non_root_and_healthchecked() -> None:
    instructions = dockerfile_instructions()
    words = [w for w, _ in instructions]
    assert instructions[0] == ("FROM", "python:3.11-slim")
    users = [arg for word, arg in instructions if word == "USER"]
    assert users and users[-1] not in {"root", "0"}, "the image must run as a non-root user"
    assert words.index("USER") < words.index("CMD")
    healthchecks = [arg for word, arg in instructions if word == "HEALTHCHECK"]
    assert len(healthchecks) == 1 and "/healthz" in healthchecks[0]
    cmd = json.loads(dict(instructions)["CMD"])
    assert cmd == ["python", "-m", "telegram_bot"]
    runs = " ".join(arg for word, arg in instructions if word == "RUN")
    assert "fonts-noto-cjk" in runs
    assert re.search(r"pip install -c constraints\.txt \.(\s|$)", runs)


def test_dockerfile_copies_what_exists_and_dockerignore_keeps_secrets_out() -> None:
    for word, arg in dockerfile_instructions():
        if word == "COPY":
            for source in arg.split()[:-1]:
                assert (ROOT / source).exists(), source
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    for entry in (".env", ".venv", ".git", "tests"):
        assert entry in ignored


# ------------------------------------------------------------------------------ redis.conf


def test_redis_persists_and_never_evicts() -> None:
    directives: dict[str, str] = {}
    for line in (DEPLOY / "redis.conf").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition(" ")
            directives[key.lower()] = value.strip()
    assert directives["appendonly"] == "yes"
    assert directives["maxmemory-policy"] == "noeviction"
    assert directives["dir"] == "/data"
    # with the password from compose (--requirepass) protected mode refuses nobody; it
    # would refuse other hosts if this file ever ran without one
    assert directives["protected-mode"] == "yes"


# ------------------------------------------------------------------------------- Caddyfile


def test_caddyfile_routes_webhook_api_and_the_rest_to_the_app() -> None:
    text = (DEPLOY / "Caddyfile").read_text(encoding="utf-8")
    assert re.search(r"^\{\$PUBLIC_URL\} \{$", text, re.M), "site address from PUBLIC_URL"
    assert "header X-Telegram-Bot-Api-Secret-Token *" in text
    assert re.search(r"^\thandle /api/\* \{$", text, re.M)
    assert re.search(r"^\thandle \{$", text, re.M), "a catch-all route for static files"
    assert text.count("reverse_proxy {$APP_UPSTREAM:app:8080}") == 2
    assert "health_uri /healthz" in text


# --------------------------------------------------------------- .env.example and README


def env_example() -> dict[str, str]:
    values: dict[str, str] = {}
    for line in (DEPLOY / ".env.example").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, sep, value = line.partition("=")
            assert sep, f"not KEY=value: {line!r}"
            assert key not in values, f"{key} twice"
            values[key.strip()] = value
    return values


def test_env_example_lists_every_setting_and_nothing_else() -> None:
    values = env_example()
    assert sorted(values) == sorted(SETTINGS_VARS + COMPOSE_ONLY_VARS)
    settings = Settings.from_env(values)  # the example itself is a valid configuration
    assert settings.workers >= 1


def test_readme_documents_every_setting() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", readme, re.M))
    assert documented == set(SETTINGS_VARS + COMPOSE_ONLY_VARS)


# ---------------------------------------------------------------- Caddy itself, on loopback


def caddy_binary() -> str:
    for candidate in (Path(sys.executable).parent / "caddy", shutil.which("caddy")):
        if candidate and os.access(candidate, os.X_OK):
            return str(candidate)
    pytest.skip("no caddy binary (./dev test puts Debian's caddy into .venv/bin)")


def caddy_json(caddy: str, public_url: str, upstream: str) -> dict[str, Any]:
    env = {**os.environ, "PUBLIC_URL": public_url, "APP_UPSTREAM": upstream}
    done = subprocess.run(
        [caddy, "adapt", "--config", str(DEPLOY / "Caddyfile"), "--adapter", "caddyfile"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    config: dict[str, Any] = json.loads(done.stdout)
    return config


def test_caddyfile_adapts_for_the_public_url() -> None:
    config = caddy_json(caddy_binary(), "https://saboteur.example.com", "app:8080")
    (server,) = config["apps"]["http"]["servers"].values()
    assert server["listen"] == [":443"]
    assert server["routes"][0]["match"] == [{"host": ["saboteur.example.com"]}]
    dials = set(re.findall(r'"dial": "([^"]+)"', json.dumps(config)))
    assert dials == {"app:8080"}


async def backend_app(received: list[int]) -> web.Application:
    async def webhook(request: web.Request) -> web.Response:
        body = await request.read()
        received.append(len(body))
        secret = request.headers.get("X-Telegram-Bot-Api-Secret-Token")
        return web.json_response({"secret": secret, "size": len(body), "path": request.path})

    async def api(request: web.Request) -> web.Response:
        return web.json_response(
            {"host": request.host, "forwarded_for": request.headers.get("X-Forwarded-For")}
        )

    async def socket(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for message in ws:
            await ws.send_str(f"echo {message.data}")
        return ws

    async def static(request: web.Request) -> web.Response:
        return web.Response(text="const board = 1;\n" * 500, content_type="text/javascript")

    async def healthz(request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    app = web.Application()
    app.router.add_post("/telegram/webhook", webhook)
    app.router.add_get("/api/ping", api)
    app.router.add_get("/api/games/g1/ws", socket)
    app.router.add_get("/static/app.js", static)
    app.router.add_get("/healthz", healthz)
    return app


@contextlib.asynccontextmanager
async def running_caddy(config: dict[str, Any], home: Path, port: int) -> AsyncIterator[None]:
    config_path = home / "caddy.json"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
    }
    log = (home / "caddy.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        caddy_binary(), "run", "--config", str(config_path), env=env, stdout=log, stderr=log
    )
    try:
        for _ in range(100):
            if process.returncode is not None:
                break
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            writer.close()
            await writer.wait_closed()
            break
        else:
            pytest.fail("caddy did not listen within 10 s")
        if process.returncode is not None:
            pytest.fail("caddy exited:\n" + (home / "caddy.log").read_text(errors="replace"))
        yield
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
                await process.wait()
        log.close()


async def test_caddy_proxies_webhook_api_websocket_and_static(
    aiohttp_server: Callable[[web.Application], Awaitable[Any]],
    unused_tcp_port: int,
    tmp_path: Path,
) -> None:
    received: list[int] = []
    backend = await aiohttp_server(await backend_app(received))
    public = f"http://127.0.0.1:{unused_tcp_port}"
    config = caddy_json(caddy_binary(), public, f"127.0.0.1:{backend.port}")
    config["admin"] = {"disabled": True}
    for server in config["apps"]["http"]["servers"].values():
        server["listen"] = [f"127.0.0.1:{unused_tcp_port}"]
        server["automatic_https"] = {"disable": True}

    async with running_caddy(config, tmp_path, unused_tcp_port), aiohttp.ClientSession() as http:
        secret = {"X-Telegram-Bot-Api-Secret-Token": "s3cret"}
        async with http.post(f"{public}/telegram/webhook", data=b"{}", headers=secret) as r:
            assert r.status == 200
            assert await r.json() == {"secret": "s3cret", "size": 2, "path": "/telegram/webhook"}
        too_big = b"x" * 2_000_000
        async with http.post(f"{public}/telegram/webhook", data=too_big, headers=secret) as r:
            # 413 from current Caddy; Debian's 2.6 answers 502. Either way the app never
            # got the oversized update.
            assert r.status in {413, 502}
        assert received == [2]

        async with http.get(f"{public}/api/ping") as r:
            assert r.status == 200
            answer = await r.json()
            assert answer["host"] == f"127.0.0.1:{unused_tcp_port}"  # Host passes through
            assert answer["forwarded_for"] == "127.0.0.1"

        async with http.ws_connect(f"{public}/api/games/g1/ws") as ws:
            await ws.send_str("矮人")
            assert await ws.receive_str(timeout=5) == "echo 矮人"

        async with http.get(f"{public}/static/app.js", headers={"Accept-Encoding": "gzip"}) as r:
            assert r.status == 200
            assert r.headers["Content-Encoding"] == "gzip"
            assert (await r.text()).startswith("const board = 1;")

        async with http.get(f"{public}/healthz") as r:
            assert r.status == 200


# ------------------------------------------------------------------------------- the wheel


def test_the_wheel_ships_every_file_of_the_packages(tmp_path: Path) -> None:
    """What the Dockerfile's `pip install .` installs: every module and data file
    (Markdown notes excepted).

    Built from a copy made as the Dockerfile's COPY lines make it, so that the build
    leaves nothing in the working tree.
    """
    source = tmp_path / "src"
    for word, arg in dockerfile_instructions():
        if word == "COPY":
            *names, _ = arg.split()
            for name in names:
                origin = ROOT / name
                if origin.is_dir():
                    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
                    shutil.copytree(origin, source / name, ignore=ignore)
                else:
                    source.mkdir(exist_ok=True)
                    shutil.copy2(origin, source / name)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (tmp_path / "dist").glob("saboteur_telegram-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    expected = {
        path.relative_to(ROOT).as_posix()
        for package in ("core", "telegram_bot", "miniapp")
        for path in (ROOT / package).rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and path.suffix not in {".pyc", ".md"}  # notes for developers need not ship
    }
    assert "telegram_bot/__main__.py" in expected
    assert expected - shipped == set()
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in shipped), "no LICENSE"


# ------------------------------------------------------------------------ dependencies


def _constraints() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt pins exact versions only: {line!r}"
            pins[canonicalize_name(name)] = version
    return pins


def test_the_lock_pins_every_dependency_within_its_bounds() -> None:
    """constraints.txt (what ./dev, CI and the image install with) holds an exact version
    of every requirement in pyproject.toml, each inside the bounds pyproject.toml states,
    ruff and mypy included (so the house rules do not change under a fresh CI)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pins = _constraints()
    requirements = [Requirement(r) for r in project["dependencies"]]
    requirements += [Requirement(r) for r in project["optional-dependencies"]["test"]]
    for req in requirements:
        name = canonicalize_name(req.name)
        assert name in pins, f"{req.name} is not pinned in constraints.txt"
        assert req.specifier.contains(pins[name]), f"{req.name}=={pins[name]} breaks {req}"
        for extra in req.extras:  # redis[hiredis], python-telegram-bot[rate-limiter]
            assert extra in {"hiredis", "rate-limiter"}
    assert {"ruff", "mypy", "hiredis", "aiolimiter"} <= set(pins)


def test_the_environment_is_the_lock() -> None:
    """The packages this suite runs with are the locked versions (./dev installs them)."""
    wrong = {}
    for name, version in _constraints().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # platform-specific (uvloop elsewhere) or not needed here
        if canonicalize_name(installed) != canonicalize_name(version):
            wrong[name] = (installed, version)
    assert wrong == {}, f"installed != constraints.txt: {wrong}"


def test_the_license_file_exists() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
