"""The load report's count of versions never announced waits for notices on their way."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from tests.load.driver import Driver, Game


def _driver(*games: Game) -> Driver:
    driver = Driver(cast(Any, None), seed=1)
    driver.games.extend(games)
    return driver


def test_a_notice_arriving_after_the_last_step_is_not_counted_lost() -> None:
    late = Game("late", {0: "t"}, sent_at={1: 0.0, 2: 0.0}, pushed=1)
    done = Game("done", {0: "t"}, sent_at={1: 0.0}, pushed=1)
    driver = _driver(late, done)

    async def main() -> int:
        async def arrive() -> None:
            await asyncio.sleep(0.2)
            late.pushed = 2

        arriving = asyncio.create_task(arrive())
        waited = await driver.announced(5.0)
        await arriving
        return waited

    assert asyncio.run(main()) == 1  # one version was on its way when the wait began
    _, missed, examples = driver.push_figures()
    assert (missed, examples) == (0, [])


def test_a_notice_that_never_comes_is_still_counted_after_the_grace() -> None:
    lost = Game("lost", {0: "t"}, sent_at={1: 0.0, 2: 0.0, 3: 0.0}, pushed=1)
    driver = _driver(lost)
    assert asyncio.run(driver.announced(0.2)) == 2
    _, missed, examples = driver.push_figures()
    assert missed == 2
    assert examples == [("lost", 2, 1), ("lost", 3, 1)]
