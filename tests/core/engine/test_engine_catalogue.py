"""A stored game keeps the cards it was dealt, whatever cards.json becomes.

The stored state (schema 2) names its catalogue's version and holds the round's card table,
numbering cards by its own catalogue; a kept catalogue deals that game's next rounds.
States written before (schema 1) load and play on as they would have.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from core.engine import (
    GameConfig,
    GameState,
    apply_move,
    apply_timeout,
    legal_moves,
    new_game,
    replay,
    state_from_json,
    state_to_json,
)
from core.engine import catalogue as catalogue_module
from core.engine.cards import CARD_LIST, RAW
from core.engine.catalogue import (
    CURRENT,
    TABLE_CHARS,
    Catalogue,
    fingerprint,
    resolve,
)
from core.engine.codec import SCHEMA1_CATALOGUE
from core.engine.reasons import CatalogueError, StateError
from core.sim import card_accounting, check_state

DATA = Path(__file__).parent / "data"

# Every catalogue version ever shipped: each must stay resolvable, since games dealt from
# it may be stored.  Append, never remove.
SHIPPED = ("697b065de483",)


def roundtrip(state: GameState) -> GameState:
    return state_from_json(json.loads(json.dumps(state_to_json(state))))


def test_every_shipped_catalogue_still_resolves() -> None:
    assert CURRENT.version in SHIPPED, (
        f"cards.json is now catalogue {CURRENT.version}: games dealt from the previous one"
        " must keep it. Keep the previous file as"
        " core/engine/data/catalogues/<its version>.json (git show HEAD:core/engine/data/"
        "cards.json > ...) and add the new version to SHIPPED."
    )
    assert SCHEMA1_CATALOGUE in SHIPPED
    for version in SHIPPED:
        assert resolve(version).version == version
    folder = resources.files("core.engine").joinpath("data/catalogues")
    kept = [p.name.removesuffix(".json") for p in folder.iterdir()] if folder.is_dir() else []
    for version in kept:
        assert version in SHIPPED, version
        assert fingerprint(catalogue_module.kept(version) or {}) == version


def test_the_version_covers_what_the_engine_reads_and_nothing_else() -> None:
    raw = copy.deepcopy(RAW)
    raw["saboteur1"]["path_cards"][4]["sources"] = "a corrected note"
    raw["conventions"]["rotation"] = "reworded"
    assert fingerprint(raw) == CURRENT.version
    for change in (
        lambda r: r["saboteur1"]["path_cards"][4].update(count=4),
        lambda r: r["saboteur1"]["path_cards"].reverse(),
        lambda r: r["saboteur1"]["hand_size"].update({"6": 6}),
        lambda r: r["saboteur2"]["setup"].update(discard_face_down_each_round=9),
    ):
        other = copy.deepcopy(RAW)
        change(other)
        assert fingerprint(other) != CURRENT.version


# ------------------------------------------------------------------ schema 1


def test_a_game_stored_before_schema_2_loads_and_plays_on_as_before() -> None:
    """data/schema1_games.json: mid-game states written by the engine before schema 2
    (seq 120 of a classic game, 70 of a Saboteur 2 game), the moves that followed and the
    final state it then wrote."""
    games = json.loads((DATA / "schema1_games.json").read_text())["games"]
    for g in games:
        cfg = GameConfig.from_options(g["edition"], g["players"], g["options"])
        assert g["state"]["schema"] == 1 and "table" not in g["state"]["round"]
        state = state_from_json(g["state"])
        dealt_from = resolve(SCHEMA1_CATALOGUE)
        assert state == replay(cfg, g["seed"], g["moves_before"], dealt_from)
        assert state.catalogue.version == SCHEMA1_CATALOGUE
        assert check_state(state) == []
        for entry in g["moves_after"]:
            if entry.get("timeout"):
                state, _ = apply_timeout(state)
            else:
                state, _ = apply_move(state, entry["seat"], entry["move"])
            state = roundtrip(state)
        assert state.phase == "finished"
        assert state == state_from_json(g["final_state"])
        assert state == replay(cfg, g["seed"], g["moves_before"] + g["moves_after"], dealt_from)


# ------------------------------------------------------------------ a kept catalogue


def other_raw() -> dict[str, Any]:
    """A catalogue that is not the current one: the classic tunnels and the actions in
    reverse order, two crosses and a map fewer, a Saboteur 2 hand of 5."""
    raw = copy.deepcopy(RAW)
    s1 = raw["saboteur1"]
    start_and_goals, tunnels = s1["path_cards"][:4], s1["path_cards"][4:]
    s1["path_cards"] = start_and_goals + tunnels[::-1]
    s1["action_cards"].reverse()
    for c in s1["path_cards"] + s1["action_cards"]:
        if c["id"] == "S1_CROSS":
            c["count"] -= 2
        if c["id"] == "MAP":
            c["count"] -= 1
    raw["saboteur2"]["setup"]["hand_size"] = 5
    return raw


@pytest.fixture
def other(monkeypatch: pytest.MonkeyPatch) -> Catalogue:
    cat = Catalogue(other_raw())
    assert cat.version != CURRENT.version and not cat.identity
    monkeypatch.setattr(
        catalogue_module, "kept", lambda v: other_raw() if v == cat.version else None
    )
    monkeypatch.setattr(catalogue_module, "_KNOWN", {CURRENT.version: CURRENT})
    return cat


def play(state: GameState, rng: random.Random, moves: int) -> GameState:
    for _ in range(moves):
        if state.phase == "finished":
            break
        if state.phase == "round_over":
            seat = min(set(range(state.n)) - state.ready)
        else:
            seat = state.rs.current  # type: ignore[assignment]
        state, _ = apply_move(state, seat, rng.choice(legal_moves(state, seat)))
    return state


@pytest.mark.parametrize(("edition", "players"), [("classic", 5), ("expansion", 6)])
def test_a_game_dealt_from_a_kept_catalogue_plays_exactly_as_dealt(
    other: Catalogue, edition: str, players: int
) -> None:
    cfg = GameConfig.from_options(edition, players, {"rounds": 2})
    live = new_game(cfg, 31, other)
    stored = live
    rng_live, rng_stored = random.Random(5), random.Random(5)
    seen_round_2 = False
    while live.phase != "finished":
        live = play(live, rng_live, 7)
        stored = roundtrip(play(stored, rng_stored, 7))
        assert stored == live and stored.catalogue == other
        want = Counter(other.decks[edition])
        assert card_accounting(stored) == want
        seen_round_2 = seen_round_2 or stored.round == 2
    assert seen_round_2
    assert len(other.decks[edition]) == len(CURRENT.decks[edition]) - 3
    assert all(len(h) == 0 for h in stored.rs.hands)


def test_stored_numbers_are_the_games_own_catalogue_numbers(other: Catalogue) -> None:
    cfg = GameConfig.from_options("classic", 4, {})
    state = play(new_game(cfg, 8, other), random.Random(2), 30)
    d = state_to_json(state)
    assert d["catalogue"] == other.version
    rs = d["round"]
    # one character per position: the card's number in the game's catalogue
    table = [other.ids[TABLE_CHARS.index(ch)] for ch in rs["table"]]
    assert table == [CARD_LIST[i].id for i in state.rs.table.cards]
    # the stored discard and maze name, in the game's catalogue, the cards in play
    assert [other.ids[n] for n in rs["discard"]] == [CARD_LIST[i].id for i in state.rs.discard]
    stored_cells = sorted(other.ids[o >> 1] for o in rs["cells"][1::2])
    assert stored_cells == sorted(CARD_LIST[o >> 1].id for o in state.rs.board.cells.values())
    # read with the current catalogue's numbers they would mean other cards
    assert [CARD_LIST[n].id for n in rs["discard"]] != [CARD_LIST[i].id for i in state.rs.discard]


def test_a_state_from_an_unknown_catalogue_is_refused(other: Catalogue) -> None:
    cfg = GameConfig.from_options("classic", 4, {})
    state = play(new_game(cfg, 8, other), random.Random(2), 5)
    d = state_to_json(state)
    for version, why in (
        ("0123456789ab", "unknown to this engine"),
        ("../cards", "is not a version"),
        (None, "is not a version"),
    ):
        with pytest.raises(CatalogueError, match=why):
            state_from_json({**d, "catalogue": version})
    catalogue_module._KNOWN.pop(other.version, None)
    with (
        pytest.raises(CatalogueError, match="holds another catalogue"),
        pytest.MonkeyPatch.context() as m,
    ):
        m.setattr(catalogue_module, "kept", lambda v: copy.deepcopy(RAW))
        state_from_json(d)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda r: r["saboteur1"]["path_cards"].append({**r["saboteur1"]["path_cards"][4],
                                                        "id": "S1_NEW_CROSS"}),
         "S1_NEW_CROSS is not one this engine knows"),
        (lambda r: r["saboteur1"]["path_cards"][4].update(edges="NES", groups=["NES"]),
         "S1_CROSS has another connectivity"),
        (lambda r: r["saboteur1"]["action_cards"][-1].update(effect="map"),
         "has another connectivity or effect"),
        (lambda r: r["saboteur2"]["path_cards"][3].update(ladder=False),
         "another connectivity"),
        (lambda r: r["saboteur1"].pop("hand_size"), "is not readable"),
    ],
)  # fmt: skip
def test_a_catalogue_with_cards_this_engine_does_not_know_is_refused(change: Any, why: str) -> None:
    raw = copy.deepcopy(RAW)
    change(raw)
    with pytest.raises(CatalogueError, match=why):
        Catalogue(raw)


def test_a_state_holding_cards_its_catalogue_does_not_have_is_refused() -> None:
    state = play(new_game(GameConfig.from_options("expansion", 4, {}), 3), random.Random(1), 20)
    d = json.loads(json.dumps(state_to_json(state)))
    assert state_from_json(d) == state

    def broken(edit: Any) -> dict[str, Any]:
        bad = copy.deepcopy(d)
        edit(bad)
        return bad

    cases = [
        (lambda b: b["round"].update(table=b["round"]["table"][:-1] + "~"), CatalogueError),
        (lambda b: b["round"].update(table=7), StateError),
        (lambda b: b["round"]["cells"].extend([1, 2 * len(CARD_LIST)]), StateError),
        (lambda b: b["round"]["discard"].append(-1), StateError),
        (lambda b: b["round"].update(goals=[1, 1, 2]), StateError),
        (lambda b: b["round"]["front"][0].append("BREAK_EVERYTHING"), StateError),
        (lambda b: b["round"]["hands"][0].append(500), StateError),
        (lambda b: b["round"].pop("hands"), StateError),
        (lambda b: b.update(config={"edition": "chess", "players": 2}), StateError),
        (lambda b: b.update(schema=3), StateError),
    ]
    for edit, error in cases:
        with pytest.raises(error):
            state_from_json(broken(edit))
    with pytest.raises(StateError):
        state_from_json([1, 2])  # type: ignore[arg-type]
    assert issubclass(StateError, ValueError) and issubclass(CatalogueError, StateError)


def test_card_ids_derive_from_the_seed_and_the_table_length_only() -> None:
    """A stored table gets back the ids it was dealt with (they are not stored)."""
    from core.engine.deal import dealt_table, stored_table

    for edition in ("classic", "expansion"):
        dealt = dealt_table(CURRENT, 99, 2, edition)
        again = stored_table(CURRENT, 99, 2, dealt.code)
        assert again == dealt and again.iids == dealt.iids
        assert stored_table(CURRENT, 99, 2, dealt.code[::-1]).iids == dealt.iids
