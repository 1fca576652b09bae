"""docs/agricola.md stays true to the engine: every action type, decision kind and field that
random games offer is documented, every space, major, part kind, component field and breakdown
key is named, the tables' figures match ``components()``, and every JSON example parses and has
the keys the engine really uses.

Only what bots see is used (``get_game``, observations, legal actions, ``components()``,
``result()``, and the state's ``phase`` to look at fewer observations), so the test follows the
engine as bots see it. Card mode (section 14) is played through a game that declares card
mode's options, as the engine will once it offers them; its card table is the one
``arena.engine.agricola.cards.table`` makes from the card data.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from arena.engine import get_game
from arena.engine.agricola.cards.spaces import CARD_SPACES, CHANGED
from arena.engine.agricola.cards.table import CARDS, card_data, markdown_table
from arena.engine.agricola.components import SPACE_KEYS
from arena.engine.agricola.game import CARD_OPTIONS, AgricolaGame
from arena.engine.api import OptionSpec

DOC = Path(__file__).resolve().parents[1] / "docs" / "agricola.md"
#: Random games played to collect what the engine offers: seeds 0..GAMES-1 at 1-4 players.
#: The first 4 games (one at each player count) already offer every action type, field,
#: decision kind and breakdown key that 240 do; 40 keep a tenfold margin.
GAMES = 40
#: Observations looked at per decision kind (their fields do not vary within a kind).
OBSERVED = 300
#: Random card games: seeds 0..CARD_GAMES-1 at 1-4 players, dealt and drafted in turn.
CARD_GAMES = 160
#: Action types the engine defines but never offers to a bot (they are always the only choice,
#: so they are played at once); the page must still name them.
NEVER_OFFERED = ("take", "gain", "starting_player", "renovate", "family_growth")
#: The goods order of ``components()["goods"]``, for costs written "2 wood + 2 stone".
GOODS_ORDER = ("wood", "clay", "reed", "stone", "grain", "vegetable", "food", "sheep", "boar",
               "cattle")


# Session fixtures: a worker runs other modules' tests between this one's, and a module
# fixture would be made again after each such break (the random games take seconds).


@pytest.fixture(scope="session")
def page() -> str:
    return DOC.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def game() -> Any:
    return get_game("agricola")


@pytest.fixture(scope="session")
def components(game: Any) -> dict[str, Any]:
    return game.components()


@pytest.fixture(scope="session")
def played(game: Any) -> dict[str, Any]:
    """What random games at 1-4 players offered: action key sets by type, decision key sets by
    kind, one observation per phase, and every final breakdown key."""
    actions: dict[str, set[frozenset[str]]] = defaultdict(set)
    decisions: dict[str, set[frozenset[str]]] = defaultdict(set)
    observations: dict[str, dict[str, Any]] = {}
    breakdown: set[str] = set()
    looked: dict[str, int] = defaultdict(int)
    for seed in range(GAMES):
        state = game.new_state(seed % 4 + 1, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            legal = state.legal_actions()
            assert len(legal) >= 2
            if looked[state.phase] < OBSERVED:  # observations cost more than playing
                looked[state.phase] += 1
                obs = state.observation(state.current_player)
                kind = obs["decision"]["kind"]
                decisions[kind].add(frozenset(obs["decision"]))
                observations.setdefault(kind, obs)
            for action in legal:
                actions[action["type"]].add(frozenset(action))
            state.apply_index(rng.randrange(len(legal)))
        for b in state.result().breakdown:
            breakdown.update(b)
    return {"actions": actions, "decisions": decisions, "observations": observations,
            "breakdown": breakdown}


def _json_blocks(page: str) -> list[Any]:
    return [json.loads(m) for m in re.findall(r"```json\n(.*?)```", page, flags=re.DOTALL)]


def _row(page: str, start: str) -> list[str]:
    """The cells of the one table row that starts with ``start``."""
    rows = [line for line in page.splitlines() if line.startswith(start)]
    assert len(rows) == 1, f"expected one table row starting {start!r}, found {len(rows)}"
    return [cell.strip() for cell in rows[0].strip("|").split("|")]


def _amounts(goods: dict[str, int]) -> str:
    """A goods map as the page writes it: "3 clay + 1 stone"."""
    return " + ".join(f"{goods[g]} {g}" for g in GOODS_ORDER if g in goods)


def _span(low: int, high: int | None) -> str:
    if high is None:
        return f"{low}+"
    return str(low) if low == high else f"{low}–{high}"


def _score_row(bounds: list[int], missing: int) -> str:
    """A scoring row as the page writes it: "0–1: −1, 2: 1, 3: 2, 4: 3, 5+: 4"."""
    parts = [f"{_span(0, bounds[0] - 1)}: {str(missing).replace('-', '−')}"]
    for points, low in enumerate(bounds, 1):
        high = bounds[points] - 1 if points < len(bounds) else None
        parts.append(f"{_span(low, high)}: {points}")
    return ", ".join(parts)


def _ends(values: list[int]) -> tuple[int, int]:
    return values[0], values[-1]


def _players(counts: list[int]) -> str:
    """The player counts a printed space is in, as the page writes them: "1–4", "3"."""
    return _span(*_ends(sorted(counts)))


# --- what random games offer -------------------------------------------------------------------


def test_every_action_type_and_field_offered_is_documented(page: str, played: dict) -> None:
    assert {"place", "build_room", "build_stable", "plough", "sow", "bake", "pasture_from",
            "pasture", "build_major", "keep", "stop", "feed", "gain"} <= set(played["actions"])
    for typ, key_sets in played["actions"].items():
        assert f"`{typ}`" in page, f"action type {typ!r} is not documented"
        for field in set().union(*key_sets) - {"type"}:
            assert f"`{field}`" in page, f"field {field!r} of {typ!r} actions is not documented"
    for typ in NEVER_OFFERED:
        assert f"`{typ}`" in page


def test_the_protocol_summary_names_every_action_type_and_kind(played: dict) -> None:
    protocol = (DOC.parent / "protocol.md").read_text(encoding="utf-8")
    section = protocol.split("## Agricola", 1)[1].split("\n## ", 1)[0]
    assert "agricola.md" in section
    for typ in played["actions"]:
        assert f"| `{typ}` |" in section, f"action type {typ!r} missing from protocol.md"
    for kind in played["decisions"]:
        assert f"`{kind}`" in section, f"decision kind {kind!r} missing from protocol.md"


def test_every_decision_kind_and_field_is_documented(page: str, played: dict) -> None:
    assert set(played["decisions"]) == {"place", "action", "feed", "breed"}
    for kind, key_sets in played["decisions"].items():
        assert f"`{kind}`" in page, f"decision kind {kind!r} is not documented"
        for field in set().union(*key_sets):
            assert f"`{field}`" in page, f"decision field {field!r} ({kind}) is not documented"


def test_every_observation_field_is_documented(page: str, played: dict) -> None:
    obs = played["observations"]["action"]
    player = obs["players"][0]
    for field in [*obs, *player, *player["farm"], *obs["board"]]:
        assert f"`{field}`" in page, f"observation field {field!r} is not documented"
    for good in player["goods"]:
        assert f'"{good}"' in page


def test_every_breakdown_key_is_documented(page: str, played: dict) -> None:
    assert len(played["breakdown"]) == 15
    for key in played["breakdown"]:
        assert f"| `{key}` |" in page, f"breakdown key {key!r} has no row in the scoring table"


# --- the component tables ---------------------------------------------------------------------


def test_every_space_has_its_row_with_players_and_accumulation(page: str,
                                                                components: dict) -> None:
    counts = {int(n): set(ids) for n, ids in components["board_spaces"].items()}
    rounds = {card: st["rounds"] for st in components["stages"] for card in st["cards"]}
    for space in components["spaces"]:
        cells = _row(page, f"| {space['id']} | `{space['key']}` | {space['name']} |")
        acc = _amounts(space["accumulates"]) or "—"
        assert cells[-1].startswith(acc), f"{space['key']}: accumulates {acc}, page {cells[-1]}"
        if "accumulates_solo" in space:
            assert f"solo: {_amounts(space['accumulates_solo'])}" in cells[-1]
        if space["stage"] == 0:
            assert cells[3].startswith(_players([n for n in counts if space["id"] in counts[n]]))
        else:
            assert cells[3] == f"{space['stage']} ({_span(*_ends(rounds[space['id']]))})"
        if space["dead"]:
            assert "dead" in cells[4]


def test_every_major_has_its_row_with_cost_and_points(page: str, components: dict) -> None:
    for major in components["majors"]:
        cells = _row(page, f"| {major['id']} | `{major['key']}` | {major['name']} |")
        assert cells[3].startswith(_amounts(major["cost"])), major["key"]
        assert cells[4] == str(major["points"]), major["key"]
        what = cells[5]
        for good, food in major.get("cook", {}).items():
            assert f"{good} {food}" in what
        if "bake" in major:
            assert f"{major['bake']['food_per_grain']} food" in what or \
                f"at {major['bake']['food_per_grain']} food" in what
        if "craft" in major:
            craft = major["craft"]
            assert f"1 {craft['good']} into {craft['food']} food" in what
            steps = major["bonus"]
            assert "/".join(str(n) for n, _ in steps) in what
            assert "/".join(str(p) for _, p in steps) in what
        if "well_food_rounds" in major:
            assert f"next {major['well_food_rounds']} round spaces" in what


def _section(page: str, number: int) -> str:
    """Section ``number`` of the page (from its "## N." heading to the next heading)."""
    match = re.search(rf"^## {number}\. .*?(?=^## |\Z)", page, flags=re.DOTALL | re.MULTILINE)
    assert match, f"no section {number}"
    return match.group(0)


def test_scoring_rows_match_the_components(page: str, components: dict) -> None:
    scoring = components["scoring"]
    page = _section(page, 10)
    for key, bounds in scoring["rows"].items():
        cells = _row(page, f"| `{key}` |")
        assert cells[2] == _score_row(bounds, scoring["row_missing"]), key
    per_item = {"unused_spaces": "unused_space", "fenced_stables": "fenced_stable",
                "clay_rooms": "clay_room", "stone_rooms": "stone_room", "people": "person",
                "begging": "begging"}
    for key, name in per_item.items():
        points = scoring[name]
        text = f"+{points} each" if points > 0 else f"−{-points} each"
        assert _row(page, f"| `{key}` |")[2].startswith(text), key


def test_components_fields_and_part_kinds_are_documented(page: str, components: dict) -> None:
    for field in components:
        assert f"`{field}`" in page, f"components field {field!r} is not documented"
    fields = {k for s in components["spaces"] for k in s} | {
        k for m in components["majors"] for k in m}
    for field in fields:
        assert f"`{field}`" in page, f"space or major field {field!r} is not documented"
    kinds = {p["kind"] for s in components["spaces"] for p in s["parts"]}
    for kind in kinds:
        assert f"`{kind}`" in page, f"part kind {kind!r} is not documented"
    for combine in {s["combine"] for s in components["spaces"]}:
        assert f"`{combine}`" in page
    assert f"`{json.dumps(components['goods'])}`" in page
    assert f"`{json.dumps(components['harvest_rounds'])}`" in page


# --- the examples -------------------------------------------------------------------------------


def test_every_json_example_parses_and_matches_the_engine(page: str, played: dict,
                                                          card_played: dict,
                                                          components: dict) -> None:
    blocks = _json_blocks(page)
    assert len(blocks) >= 10
    action_keys = played["actions"]
    decision_keys = played["decisions"]
    real = played["observations"]["action"]
    seen = defaultdict(int)

    def check_action(action: dict) -> None:
        keys = action_keys.get(action["type"]) or card_played["actions"][action["type"]]
        assert frozenset(action) in keys, action
        seen["action"] += 1

    for block in blocks:
        items = block if isinstance(block, list) else [block]
        for item in items:
            assert isinstance(item, dict)
            if "clauses" in item:  # a card's data, as the table module prints it
                assert item == card_data(next(c for c in CARDS if c.id == item["id"]))
                seen["card"] += 1
            elif "game" in item:  # a whole observation
                assert item.keys() == real.keys()
                assert item["decision"].keys() == real["decision"].keys()
                for p in item["players"]:
                    assert p.keys() == real["players"][0].keys()
                    assert p["goods"].keys() == real["players"][0]["goods"].keys()
                    assert p["farm"].keys() == real["players"][0]["farm"].keys()
                assert item["board"].keys() == real["board"].keys()
                seen["observation"] += 1
            elif "kind" in item:
                kinds = card_played["decisions"] if item["kind"] == "card" else decision_keys
                assert frozenset(item) in kinds[item["kind"]], item
                seen["decision"] += 1
            elif "type" in item:
                check_action(item)
            elif "combine" in item:
                assert item == components["spaces"][item["id"]]
                seen["space"] += 1
            elif "points" in item:
                assert item == components["majors"][item["id"]]
                seen["major"] += 1
            elif "rows" in item:
                assert item == components["scoring"]
                seen["scoring"] += 1
            else:
                pytest.fail(f"unrecognised JSON example: {item}")
    assert seen.keys() == {"observation", "decision", "action", "space", "major", "scoring",
                           "card"}


def test_the_fence_edge_numbering_matches_the_farm(page: str, game: Any) -> None:
    """The documented formula gives the fences the engine reports round a one-space pasture."""
    state = game.new_state(2, seed=1)
    rng = random.Random(7)
    for _ in range(20000):
        if state.is_terminal:
            state = game.new_state(2, seed=rng.randrange(1000))
        for p in state.observation(0)["players"]:
            for pasture in p["pastures"]:
                if len(pasture) == 1:
                    r, c = divmod(pasture[0], 5)
                    edges = {5 * r + c, 5 * r + c + 5, 20 + 6 * r + c, 21 + 6 * r + c}
                    assert edges <= set(p["farm"]["fences"])
                    return
        state.apply_index(rng.randrange(state.num_legal()))
    pytest.fail("no one-space pasture in the games played")


# --- card mode (section 14) -------------------------------------------------------------------


class _CardGame(AgricolaGame):
    """Agricola declaring card mode's options, as it will once it offers them."""

    def options_schema(self) -> Mapping[str, OptionSpec]:
        return CARD_OPTIONS


#: The card decision types: each names the card that asks.
CARD_DECISIONS = ("use_card", "card_choice", "decline")


@pytest.fixture(scope="session")
def card_played() -> dict[str, Any]:
    """What random card games at 1-4 players offered: action key sets by type, decision key
    sets by kind, the fields of ``cards`` seen (top level, per player, the draft's), the tags
    each card asked with (``cards.pending``), and every final breakdown key."""
    game = _CardGame()
    actions: dict[str, set[frozenset[str]]] = defaultdict(set)
    decisions: dict[str, set[frozenset[str]]] = defaultdict(set)
    fields: dict[str, set[str]] = defaultdict(set)
    tags: dict[str, set[str]] = defaultdict(set)
    breakdown: set[str] = set()
    for seed in range(CARD_GAMES):
        draft = ("deal", "app")[seed // 4 % 2]
        state = game.new_state(seed % 4 + 1, seed=seed, options={"cards": "base",
                                                                 "draft": draft})
        rng = random.Random(seed)
        while not state.is_terminal:
            legal = state.legal_actions()
            assert len(legal) >= 2
            obs = state.observation(state.current_player)
            decisions[obs["decision"]["kind"]].add(frozenset(obs["decision"]))
            cards = obs["cards"]
            fields["observation"].update(obs)
            fields["cards"].update(cards)
            for p in cards["players"]:
                fields["players"].update(p)
            if "drafting" in cards:
                fields["drafting"].update(cards["drafting"])
                for entry in cards["drafting"]["seen"]:
                    fields["seen"].update(entry)
            for action in legal:
                actions[action["type"]].add(frozenset(action))
            assert obs["decision"]["seat"] == state.current_player
            if cards["pending"]:
                seat, card, tag, data = cards["pending"][0]
                assert seat == state.current_player == obs["seat"]
                assert obs["decision"] == {"kind": "card", "seat": seat, "card": card or None,
                                           "tag": tag, "data": data,
                                           "under": obs["decision"]["under"]}
                under = obs["decision"]["under"]
                assert under is None or under["seat"] == cards["turn"]
                tags[card].add(tag)
            for action in legal:
                if action["type"] in CARD_DECISIONS and not (
                        cards["pending"] and cards["pending"][0][1] == action["card"]):
                    tags[action["card"]].add("any time")
            state.apply_index(rng.randrange(len(legal)))
        for b in state.result().breakdown:
            breakdown.update(b)
    return {"actions": actions, "decisions": decisions, "fields": fields, "tags": tags,
            "breakdown": breakdown}


@pytest.fixture(scope="session")
def cards_section(page: str) -> str:
    return _section(page, 14)


def test_every_card_mode_action_type_and_field_is_documented(page: str, cards_section: str,
                                                            card_played: dict) -> None:
    """Card mode's action types and their fields in section 14 (the Family game's types may
    carry a field only card mode gives, such as Beanfield's ``card`` on ``sow``)."""
    assert {"draft", "play_occupation", "play_minor", *CARD_DECISIONS, "keep"} <= set(
        card_played["actions"])
    assert {"card", "convert"} <= set().union(*card_played["actions"]["play_minor"])
    glance = cards_section.split("### Every card mode action type at a glance", 1)[1]
    for typ, key_sets in card_played["actions"].items():
        family = typ in _FAMILY_TYPES
        for field in set().union(*key_sets) - {"type"}:
            assert f"`{field}`" in (page if family else cards_section), \
                f"field {field!r} of {typ!r} actions is not documented"
        if not family:
            assert f"| `{typ}` |" in glance, f"card action type {typ!r} is not documented"


#: The Family game's action types (section 6 documents them); card mode adds the others.
_FAMILY_TYPES = frozenset({"place", "build_room", "build_stable", "plough", "sow", "bake",
                           "pasture_from", "pasture", "build_major", "gain", "keep", "stop",
                           "feed", *NEVER_OFFERED})


def test_the_protocol_summary_names_card_mode(card_played: dict) -> None:
    protocol = (DOC.parent / "protocol.md").read_text(encoding="utf-8")
    section = protocol.split("## Agricola", 1)[1].split("\n## ", 1)[0]
    section = section.split("### Card mode", 1)[1]
    for typ in set(card_played["actions"]) - _FAMILY_TYPES:
        assert f"| `{typ}` |" in section, f"action type {typ!r} missing from protocol.md"
    assert "`draft`" in section
    for field in card_played["fields"]["cards"]:
        assert field in section, f"cards.{field} missing from protocol.md"


def test_every_card_mode_decision_kind_and_field_is_documented(cards_section: str,
                                                               card_played: dict) -> None:
    assert set(card_played["decisions"]) == {"draft", "card", "place", "action", "feed",
                                             "breed"}
    for kind in ("draft", "card"):
        for field in set().union(*card_played["decisions"][kind]):
            assert f"`{field}`" in cards_section or f'"{field}"' in cards_section, field
    assert '"kind": "draft"' in cards_section and '`phase` `"draft"`' in cards_section
    assert '"kind": "card"' in cards_section


def test_every_card_mode_observation_field_is_documented(cards_section: str,
                                                         card_played: dict) -> None:
    fields = card_played["fields"]
    assert {"cards", "options"} <= fields["observation"]
    assert {"drafting", "pending", "marks", "promised", "used", "hold"} <= fields["cards"]
    for field in fields["cards"]:
        assert f"`cards.{field}`" in cards_section or f"`cards.{field}[" in cards_section, \
            f"cards.{field} is not documented"
    for group in ("players", "drafting", "seen"):
        for field in fields[group]:
            assert f"`{field}`" in cards_section, f"{group} field {field!r} is not documented"
    assert "`options`" in cards_section


def test_every_card_that_asks_has_its_row_with_its_tags(cards_section: str,
                                                        card_played: dict) -> None:
    """The table of card decisions names every card that asked, on a row with its tag."""
    tags = card_played["tags"]
    assert len(tags) >= 25  # nearly every card that asks is played in the games
    for card, asked in tags.items():
        if not card:  # the engine's own question: animals a card gave that do not fit
            assert asked == {"keep"} and '`[seat, "", "keep", []]`' in cards_section
            continue
        rows = [line for line in cards_section.splitlines()  # not the card table's row
                if line.startswith("| ") and card in line.split("|")[1]
                and line.split("|")[1].strip() != card]
        assert len(rows) == 1, f"{card}: {len(rows)} rows in the table of card decisions"
        for tag in asked:
            cell = rows[0].split("|")[2]
            assert (tag == "any time" and "any time" in cell) or f"`{tag}`" in cell, (card, tag)


def test_the_cards_breakdown_key_and_the_options_are_documented(cards_section: str,
                                                                card_played: dict) -> None:
    assert card_played["breakdown"] - {"cards"} == set(_FAMILY_BREAKDOWN)
    assert '`"cards"`' in cards_section
    for name, spec in CARD_OPTIONS.items():
        assert f"`{name}`" in cards_section
        for value in spec.values:
            assert f'`"{value}"`' in cards_section, (name, value)


_FAMILY_BREAKDOWN = ("fields", "pastures", "grain", "vegetables", "sheep", "boar", "cattle",
                     "unused_spaces", "fenced_stables", "clay_rooms", "stone_rooms", "people",
                     "begging", "majors", "crafts")


def test_the_card_table_is_the_one_the_card_data_makes(cards_section: str) -> None:
    """Regenerate with ``python -m arena.engine.agricola.cards.table`` and paste it between
    the markers."""
    begin = cards_section.index("<!-- card table:")
    begin = cards_section.index("\n", begin) + 1
    end = cards_section.index("<!-- end of card table -->")
    assert cards_section[begin:end] == markdown_table() + "\n"
    assert len(CARDS) == 96 and len({c.id for c in CARDS}) == 96


def test_the_card_mode_components_differ_only_where_the_page_says(
        game: Any, components: dict, cards_section: str) -> None:
    """``components(options)`` in card mode: the Family tables but for the spaces card mode
    changes (and Side Job, out of every board), plus every card's data; the fields and part
    kinds it adds are documented."""
    family = game.components({"cards": "none", "draft": "app"})
    assert family == components == game.components(None)
    cards = game.components({"cards": "base", "draft": "app"})
    assert cards == game.components({"cards": "base"})
    assert {k for k in cards if cards[k] != family.get(k)} == {"spaces", "board_spaces", "cards"}
    assert [i for i, (a, b) in enumerate(zip(family["spaces"], cards["spaces"], strict=True))
            if a != b] == sorted(CHANGED)
    side_job = SPACE_KEYS.index("side_job")
    assert cards["board_spaces"] == {n: [s for s in ids if s != side_job]
                                     for n, ids in family["board_spaces"].items()}
    assert cards["cards"] == [card_data(c) for c in CARDS]
    section = cards_section.split("### The card-mode components", 1)[1].split("\n### ", 1)[0]
    for kind in {p["kind"] for s in cards["spaces"] for p in s["parts"]} - {
            p["kind"] for s in family["spaces"] for p in s["parts"]}:
        assert f"`{kind}`" in section, kind
    for field in {k for c in cards["cards"] for k in c}:
        assert f"`{field}`" in section, field
    for moment in {cl["moment"] for c in cards["cards"] for cl in c["clauses"]}:
        assert f"`{moment}`" in section, moment


def test_the_card_mode_parts_of_the_changed_spaces_are_documented(cards_section: str) -> None:
    """The five spaces card mode changes, with their parts and combination, as the engine has
    them (``components(options)`` in card mode has them too)."""
    for space in sorted(CHANGED):
        s = CARD_SPACES[space]
        cells = _row(cards_section, f"| {space} | ")
        assert cells[2] == f"`{s.combine}`", s.key
        for part in s.parts:
            assert f"`{part.kind}`" in cells[3], (s.key, part.kind)
