"""The one schema of lobby settings (core.service.lobby_settings) and the service's use of it."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

import pytest

from core.engine import GameConfig
from core.engine.config import CLASSIC_ONLY, OPTION_NAMES, PLAYERS
from core.service import ChatKey, GameService, ServiceError, UserRef
from core.service import lobby_settings as ls

ANN, BO = UserRef(1, "Ann"), UserRef(2, "Bo")


def test_every_engine_option_is_a_setting_of_its_editions() -> None:
    """The rule variants a lobby can switch are the engine's, each for the editions that
    accept it (RULES §5: the Board Game Arena variants are classic only)."""
    flags = {s.name: s for s in ls.OPTION_SETTINGS}
    assert set(flags) == set(OPTION_NAMES) - {"rounds"}
    assert set(ls.options_for("classic")) == set(flags)
    assert ls.options_for("expansion") == ("bounded_board",)
    for name, spec in flags.items():
        assert spec.editions == (("classic",) if name in CLASSIC_ONLY else ("classic", "expansion"))
        for edition in spec.editions:  # the engine accepts each flag where the schema offers it
            lo, _ = PLAYERS[edition]
            players = 5 if name == "tournament" else lo
            GameConfig.from_options(edition, players, {name: True})
    assert {f.name for f in fields(GameConfig)} - {"edition", "players"} == {
        *flags,
        "rounds",
    }


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        ("edition", ["classic", "expansion"], ["chess", None, 1]),
        ("rounds", [1, 2, 3], [0, 4, True, "2", None]),
        ("turn_time", [None, 5, 90, 86400], [4, 86401, 1.5, True, "60"]),
        ("computer_level", ["easy", "normal", "hard"], ["expert", None, 3]),
        ("language", [None, "en", "zh-hans", "zh-hant"], ["xx", "zh"]),
        ("gold_per_digger", [True, False], [1, 0, None, "yes"]),
        ("think_delay", [0, 0.5, 30], [-1, 31, None, True]),
        ("countdown", [None, 1, 180], [0, 86401]),
        ("takeover_after", [1, 10], [0, 11, 2.5]),
    ],
)
def test_each_value_is_checked_by_its_setting(name: str, good: list[Any], bad: list[Any]) -> None:
    spec = ls.setting(name)
    for value in good:
        assert spec.check(value) == value
    for value in bad:
        with pytest.raises(ServiceError) as err:
            spec.check(value)
        assert err.value.code == "bad_setting" and name in err.value.message


def test_an_unknown_setting_is_refused() -> None:
    with pytest.raises(ServiceError) as err:
        ls.setting("colour")
    assert err.value.code == "bad_setting"


def test_cycling_buttons_step_through_the_choices() -> None:
    assert ls.next_choice("rounds", 3) == 1 and ls.next_choice("rounds", 1) == 2
    assert ls.next_choice("turn_time", 300) is None and ls.next_choice("turn_time", None) == 30
    assert ls.next_choice("turn_time", 45) == 30  # not a choice: the first one
    assert ls.next_choice("computer_level", "hard") == "easy"
    # True == 1 in Python: a flag and a number are never confused
    assert ls.next_choice("gold_per_digger", True) is False
    assert ls.next_choice("rounds", True) == 1


def test_defaults_depend_on_where_the_lobby_opens() -> None:
    group, private = ls.defaults("group"), ls.defaults("private")
    assert group["countdown"] == 180 and private["countdown"] is None
    assert group["edition"] == private["edition"] == "classic" and group["rounds"] == 3


def test_the_description_for_clients_is_json_and_complete() -> None:
    doc = ls.describe("group")
    json.dumps(doc)
    names = [s["name"] for s in doc["settings"]]
    assert names == [s.name for s in ls.SCHEMA] and len(set(names)) == len(names)
    assert doc["players"] == {"classic": [3, 10], "expansion": [2, 12]}
    for entry in doc["settings"]:
        if entry["offered"]:  # a front end can draw a control for it
            assert entry["choices"], entry["name"]
            assert all(ls.setting(entry["name"]).check(c) == c for c in entry["choices"]), entry[
                "name"
            ]


async def test_the_service_takes_settings_by_name_and_as_options(service: GameService) -> None:
    view = await service.create_lobby(chat=None, creator=ANN, options={"rounds": 1})
    assert view["rounds"] == 1  # the caller's options win over the defaults
    assert view["settings"]["countdown"] is None  # not a group: no auto-start countdown
    game_id = view["game_id"]
    view = await service.configure(game_id, 1, gold_per_digger=True)  # a flag by name
    assert view["options"]["gold_per_digger"] is True and view["rounds"] == 1
    view = await service.configure(game_id, 1, options={"gold_per_digger": False}, old_mine=True)
    assert view["options"]["gold_per_digger"] is False and view["options"]["old_mine"] is True
    with pytest.raises(ServiceError) as err:
        await service.configure(game_id, 1, gold_per_digger="yes")
    assert err.value.code == "bad_setting"
    with pytest.raises(ServiceError) as err:  # a classic variant in Saboteur 2: the engine
        await service.configure(game_id, 1, edition="expansion", old_mine=True)
    assert err.value.code == "invalid_config"
    group = await service.create_lobby(chat=ChatKey(-5), creator=BO)
    assert group["settings"]["countdown"] == 180
