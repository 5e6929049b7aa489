"""Architecture guard: the arrows point one way (adapters -> service -> engine).

Checked on the source with ``ast`` (nothing is imported):

- ``core/engine`` (and ``core/rules`` if it appears) is pure: standard library only, and
  of ``core`` only itself. ``core/ai`` likewise, and may also read ``core.engine``.
  Neither imports the modules that bring clocks, threads, sockets, processes, logging,
  the environment and the file system (``os``: packaged data is read with
  ``importlib.resources``) or OS entropy (``FORBIDDEN_IN_PURE``), nor uses the
  process-global ``random`` generator: ``random.Random(seed)`` is the only thing they may
  take from ``random``.
- ``core`` never imports ``telegram_bot`` or ``miniapp``; ``miniapp`` never imports
  ``telegram_bot``.
- Only ``core/store`` imports ``redis`` (or ``hiredis``): the rest of the tree names a
  store that cannot be reached by ``core.store.STORE_UNAVAILABLE``.
- The adapters (``telegram_bot``, ``miniapp``) reach the store only through the service:
  they neither import ``core.store`` nor read a ``.store`` attribute. The process entry
  point (``telegram_bot.main``), which builds the store and the service, is the exception.

The packages may still be empty or absent: the guard then checks nothing there, and the
self-tests below prove that the checker does catch each kind of violation.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

STDLIB = frozenset(sys.stdlib_module_names)
FORBIDDEN_IN_PURE = frozenset(
    {
        "_thread",
        "asyncio",
        "concurrent",
        "datetime",
        "ftplib",
        "http",
        "logging",
        "multiprocessing",
        "os",
        "sched",
        "secrets",
        "selectors",
        "shutil",
        "signal",
        "smtplib",
        "socket",
        "socketserver",
        "sqlite3",
        "ssl",
        "subprocess",
        "tempfile",
        "threading",
        "time",
        "urllib",
        "zoneinfo",
    }
)
# package (as a module path) -> the first-party modules it may import
PURE_PACKAGES: dict[str, tuple[str, ...]] = {
    "core.engine": ("core.engine",),
    "core.rules": ("core.rules",),
    "core.ai": ("core.ai", "core.engine"),
}
# package -> first-party packages it must never import
LAYER_BANS: dict[str, tuple[str, ...]] = {
    "core": ("telegram_bot", "miniapp"),
    "miniapp": ("telegram_bot",),
}
RANDOM_ALLOWED = frozenset({"Random"})
STORE_PACKAGE = "core.store"
STORE_CLIENTS = frozenset({"redis", "hiredis"})  # importable only inside STORE_PACKAGE
ADAPTERS = ("telegram_bot", "miniapp")
ENTRY_POINTS = frozenset({"telegram_bot.main"})  # builds the store it hands the service


@dataclass(frozen=True, slots=True)
class Violation:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _imports(tree: ast.AST, module: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """Every module a file imports, relative imports resolved, with its line number.

    ``from a import b`` yields both ``a`` and ``a.b`` (``b`` may be a submodule).
    """
    parts = module.split(".")
    package = parts if is_package else parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package[: len(package) - (node.level - 1)]
                if node.level - 1 > len(package):
                    base_parts = []
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if node.module:
                yield node.lineno, base
            for alias in node.names:
                if alias.name != "*":
                    yield node.lineno, f"{base}.{alias.name}" if base else alias.name


def _global_random_uses(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Uses of the process-wide ``random`` generator (anything but ``random.Random``)."""
    module_names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "random":
                    module_names.add(alias.asname or "random")
        elif isinstance(node, ast.ImportFrom) and node.module == "random" and not node.level:
            for alias in node.names:
                if alias.name not in RANDOM_ALLOWED:
                    yield node.lineno, f"from random import {alias.name}"
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in module_names
            and node.attr not in RANDOM_ALLOWED
        ):
            yield node.lineno, f"{node.value.id}.{node.attr}"


def check_source(
    source: str, module: str, path: str = "", *, is_package: bool = False
) -> list[Violation]:
    """The violations of one file, given its source and its dotted module name."""
    where = path or module
    tree = ast.parse(source, filename=where)
    found: list[Violation] = []
    pure = next((pkg for pkg in PURE_PACKAGES if _within(module, pkg)), None)
    adapter = module not in ENTRY_POINTS and any(_within(module, a) for a in ADAPTERS)
    for line, imported in _imports(tree, module, is_package):
        top = imported.split(".")[0]
        for package, banned in LAYER_BANS.items():
            if _within(module, package) and top in banned:
                found.append(Violation(where, line, f"{package} must not import {imported}"))
        if top in STORE_CLIENTS and not _within(module, STORE_PACKAGE):
            found.append(Violation(where, line, f"only core.store may import {imported}"))
        if adapter and _within(imported, STORE_PACKAGE):
            found.append(Violation(where, line, f"adapters call the service, not {imported}"))
        if pure is None:
            continue
        if top in STDLIB:
            if top in FORBIDDEN_IN_PURE:
                found.append(Violation(where, line, f"pure {pure} must not import {imported}"))
        elif top == "core":
            allowed = PURE_PACKAGES[pure]
            # `from core import engine` yields "core" then "core.engine": judge the latter
            if imported != "core" and not any(_within(imported, a) for a in allowed):
                found.append(Violation(where, line, f"pure {pure} must not import {imported}"))
        else:
            found.append(
                Violation(where, line, f"pure {pure} imports {imported}, not the standard library")
            )
    if adapter:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "store":
                found.append(
                    Violation(where, node.lineno, "adapters call the service, not its .store")
                )
    if pure is not None:
        for line, use in _global_random_uses(tree):
            found.append(
                Violation(
                    where,
                    line,
                    f"pure {pure} uses the global random generator: {use}"
                    " (use a seeded random.Random)",
                )
            )
    return found


def check_tree(root: Path) -> list[Violation]:
    found: list[Violation] = []
    for top in ("core", "miniapp", "telegram_bot"):
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root)
            is_package = path.name == "__init__.py"
            parts = rel.with_suffix("").parts
            module = ".".join(parts[:-1] if is_package else parts)
            found.extend(
                check_source(
                    path.read_text(encoding="utf-8"), module, str(rel), is_package=is_package
                )
            )
    return found


def test_the_repository_keeps_the_layers_apart() -> None:
    violations = check_tree(ROOT)
    assert not violations, "architecture violations:\n" + "\n".join(map(str, violations))


# ----------------------------------------------------------------- self-tests of the checker


def messages(source: str, module: str, *, is_package: bool = False) -> list[str]:
    return [v.message for v in check_source(source, module, is_package=is_package)]


@pytest.mark.parametrize(
    "source",
    [
        "import dataclasses\nfrom enum import StrEnum\nimport json, itertools",
        "from importlib import resources\nfrom collections.abc import Mapping",
        "from random import Random\nimport random\nrng = random.Random(7)\nrng.shuffle([1])",
        "from . import board\nfrom .cards import CATALOGUE\nfrom core.engine.game import x",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from core.engine import a",
    ],
)
def test_clean_engine_sources_pass(source: str) -> None:
    assert messages(source, "core.engine.game") == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import asyncio", "must not import asyncio"),
        ("import time", "must not import time"),
        ("from datetime import datetime", "must not import datetime"),
        ("import socket", "must not import socket"),
        ("from threading import Lock", "must not import threading"),
        ("import subprocess", "must not import subprocess"),
        ("import logging", "must not import logging"),
        ("import secrets", "must not import secrets"),
        ("import os.path", "must not import os.path"),
        ("from os import environ", "must not import os"),
        ("import concurrent.futures", "must not import concurrent.futures"),
        ("import redis", "imports redis, not the standard library"),
        ("from telegram import Bot", "imports telegram, not the standard library"),
        ("import aiohttp.web", "imports aiohttp.web, not the standard library"),
        ("from PIL import Image", "imports PIL, not the standard library"),
        ("from core.store import RedisStore", "must not import core.store"),
        ("from core import service", "must not import core.service"),
        ("from .. import settings", "must not import core.settings"),
        ("from ..service.api import x", "must not import core.service.api"),
        ("import random\nrandom.shuffle(xs)", "global random generator: random.shuffle"),
        ("import random\nx = random.choice(xs)", "global random generator: random.choice"),
        ("import random\nx = random.random()", "global random generator: random.random"),
        ("import random\nx = random.randint(1, 6)", "global random generator: random.randint"),
        ("import random as r\nr.seed(1)", "global random generator: r.seed"),
        ("import random\nf = random.shuffle", "global random generator: random.shuffle"),
        ("import random\nr = random.SystemRandom()", "random.SystemRandom"),
        ("from random import shuffle", "from random import shuffle"),
        ("def f():\n    import asyncio", "must not import asyncio"),
    ],
)
def test_engine_violations_are_caught(source: str, expected: str) -> None:
    found = messages(source, "core.engine.game")
    assert any(expected in m for m in found), found


def test_ai_may_read_the_engine_but_the_engine_not_the_ai() -> None:
    assert messages("from core.engine import legal_moves", "core.ai.agent") == []
    assert messages("from ..engine.board import Board", "core.ai.agent") == []
    assert messages("import core.ai.belief", "core.ai.agent") == []
    assert messages("from core.ai import choose_move", "core.engine.game")
    assert messages("import time", "core.ai.agent")
    assert messages("import random\nrandom.random()", "core.ai.agent")


def test_relative_imports_resolve_from_a_package_init() -> None:
    assert messages("from .board import Board", "core.engine", is_package=True) == []
    assert messages("from ..store import x", "core.engine", is_package=True) == [
        "pure core.engine must not import core.store",
        "pure core.engine must not import core.store.x",
    ]


def test_layers_outside_the_pure_packages() -> None:
    assert messages("import telegram_bot.main", "miniapp.routes") == [
        "miniapp must not import telegram_bot.main"
    ]
    assert messages("from telegram_bot import i18n", "miniapp.routes")
    assert messages("from miniapp import routes", "core.service.game")
    assert messages("import telegram_bot", "core.store.redis")
    # the non-pure parts of core may use the network, the clock and the engine
    assert messages("import asyncio, time, redis\nfrom core.engine import x", "core.store") == []
    assert messages("import random\nrandom.shuffle(x)", "core.service.timers") == []
    # the adapters may import core
    assert messages("from core.service import GameService", "miniapp.routes") == []


def test_only_the_store_imports_redis() -> None:
    assert messages("import redis.asyncio as redis", "core.store.redis_store") == []
    assert messages("from redis.exceptions import RedisError", "core.store") == []
    assert messages("from redis.exceptions import TimeoutError", "core.service.timers") == [
        "only core.store may import redis.exceptions",
        "only core.store may import redis.exceptions.TimeoutError",
    ]
    assert messages("import hiredis", "miniapp.middleware") == [
        "only core.store may import hiredis"
    ]
    assert messages("import redis", "telegram_bot.main") == ["only core.store may import redis"]
    assert messages("from core.store import STORE_UNAVAILABLE", "core.service.timers") == []


def test_adapters_reach_the_store_only_through_the_service() -> None:
    assert messages("from core.service import GameService", "telegram_bot.port") == []
    assert messages("x = service.ping()", "miniapp.service_adapter") == []
    assert messages("from core.store import MemoryStore", "miniapp.routes") == [
        "adapters call the service, not core.store",
        "adapters call the service, not core.store.MemoryStore",
    ]
    assert messages("import core.store.keys", "telegram_bot.commands") == [
        "adapters call the service, not core.store.keys"
    ]
    assert messages("ok = await service.store.ping()", "miniapp.service_adapter") == [
        "adapters call the service, not its .store"
    ]
    assert messages("s = getattr(x, 'y').store", "telegram_bot.app") == [
        "adapters call the service, not its .store"
    ]
    # the entry point builds the store; the service itself of course uses it
    assert messages("from core.store import open_store", "telegram_bot.main") == []
    assert messages("await self.store.ping()", "core.service.queries") == []


def test_check_tree_reads_files_and_names_them(tmp_path: Path) -> None:
    engine = tmp_path / "core" / "engine"
    engine.mkdir(parents=True)
    (engine / "__init__.py").write_text("from .game import new_game\n", encoding="utf-8")
    (engine / "game.py").write_text("import json\n\nimport time\n", encoding="utf-8")
    (tmp_path / "miniapp").mkdir()
    (tmp_path / "miniapp" / "app.py").write_text("import telegram_bot\n", encoding="utf-8")
    (tmp_path / "telegram_bot").mkdir()
    (tmp_path / "telegram_bot" / "port.py").write_text("import redis\n", encoding="utf-8")
    found = sorted(map(str, check_tree(tmp_path)))
    assert found == [
        "core/engine/game.py:3: pure core.engine must not import time",
        "miniapp/app.py:1: miniapp must not import telegram_bot",
        "telegram_bot/port.py:1: only core.store may import redis",
    ]


def test_absent_packages_are_fine(tmp_path: Path) -> None:
    assert check_tree(tmp_path) == []
