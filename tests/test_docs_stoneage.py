"""docs/stoneage.md stays true to the engine: every action type, decision kind and field that
random games offer is documented where it belongs, every card, building and breakdown key has
its row with the engine's figures, the pips per good agree with what the engine gathers and
charges, ids are positions in the ``components`` lists, and every JSON example parses and has
the keys the engine really uses.

Only what bots see is used (``get_game``, observations, legal actions, ``components()`` and
``result()``), so the test follows the engine as bots see it.
"""

from __future__ import annotations

import json
import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from arena.engine import get_game

DOCS = Path(__file__).resolve().parents[1] / "docs"
DOC = DOCS / "stoneage.md"
#: Random games played to collect what the engine offers: seeds 0..GAMES-1 at 2-4 players.
GAMES = 150
#: The decision kinds, and the fields each has beside ``kind`` and ``seat``.
KINDS = {
    "place": set(), "resolve": set(), "use_tools": {"good", "dice", "sum"},
    "buy_card": {"slot", "cost", "card"}, "buy_building": {"pile", "building"},
    "pick_die": {"dice", "buyer"}, "feed": {"deficit"},
}
RESOURCES = ("wood", "clay", "stone", "gold")


# Session fixtures: a worker runs other modules' tests between this one's, and a module
# fixture would be made again after each such break (the random games take seconds).


@pytest.fixture(scope="session")
def page() -> str:
    return DOC.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def game() -> Any:
    return get_game("stoneage")


@pytest.fixture(scope="session")
def components(game: Any) -> dict[str, Any]:
    return game.components()


@pytest.fixture(scope="session")
def played(game: Any) -> dict[str, Any]:
    """What random games at 2-4 players offered: action key sets by type, decision key sets by
    kind, one observation per kind, the phases seen, every final breakdown key, and the tool
    choices offered at gathering rolls."""
    actions: dict[str, set[frozenset[str]]] = defaultdict(set)
    decisions: dict[str, set[frozenset[str]]] = defaultdict(set)
    observations: dict[str, dict[str, Any]] = {}
    phases: dict[str, set[str]] = defaultdict(set)
    breakdown: set[str] = set()
    rolls: list[tuple[str, int, list[int], list[dict[str, Any]]]] = []
    for seed in range(GAMES):
        state = game.new_state(seed % 3 + 2, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            legal = state.legal_actions()
            assert len(legal) >= 2
            obs = state.observation(state.current_player)
            decision = obs["decision"]
            kind = decision["kind"]
            decisions[kind].add(frozenset(decision))
            observations.setdefault(kind, obs)
            phases[kind].add(obs["phase"])
            assert decision["seat"] == obs["current_player"] == obs["seat"]
            if kind == "use_tools":
                me = obs["players"][obs["seat"]]
                rolls.append((decision["good"], decision["sum"], me["tools_unused"], legal))
            for action in legal:
                actions[action["type"]].add(frozenset(action))
            state.apply_index(rng.randrange(len(legal)))
        for b in state.result().breakdown:
            breakdown.update(b)
    return {"actions": actions, "decisions": decisions, "observations": observations,
            "phases": phases, "breakdown": breakdown, "rolls": rolls}


def _json_blocks(page: str) -> list[Any]:
    return [json.loads(m) for m in re.findall(r"```json\n(.*?)```", page, flags=re.DOTALL)]


def _cells(line: str) -> list[str]:
    """The cells of a table row (a pipe escaped as ``\\|`` stays inside its cell)."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def _body_rows(text: str) -> list[list[str]]:
    """The cells of every table row in ``text`` below a header (header and rule rows left
    out)."""
    lines = text.splitlines()
    rows: list[list[str]] = []
    for i, line in enumerate(lines):
        if not line.startswith("|") or line.startswith("|---"):
            continue
        if i + 1 < len(lines) and lines[i + 1].startswith("|---"):
            continue  # a header
        rows.append(_cells(line))
    return rows


def _first_cells(text: str) -> set[str]:
    """The first cell of every table row in ``text`` below a header."""
    return {cells[0] for cells in _body_rows(text)}


def _row(text: str, start: str) -> list[str]:
    """The cells of the one table row that starts with ``start``."""
    rows = [line for line in text.splitlines() if line.startswith(start)]
    assert len(rows) == 1, f"expected one table row starting {start!r}, found {len(rows)}"
    return _cells(rows[0])


def _section(page: str, heading: str) -> str:
    """From the heading line that starts with ``heading`` to the next heading of its level or
    above."""
    level = len(heading) - len(heading.lstrip("#"))
    match = re.search(rf"^{re.escape(heading)}.*?(?=^#{{1,{level}}} |\Z)", page,
                      flags=re.DOTALL | re.MULTILINE)
    assert match, f"no section {heading!r}"
    return match.group(0)


def _amounts(goods: dict[str, int]) -> str:
    """A cost as the page writes it: "1 wood + 2 stone"."""
    return " + ".join(f"{goods[g]} {g}" for g in RESOURCES if goods.get(g))


# --- what random games offer -------------------------------------------------------------------


def test_every_action_type_and_field_offered_is_documented(page: str, played: dict) -> None:
    glance = _section(page, "### Every action type at a glance")
    assert _first_cells(glance) == {f"`{typ}`" for typ in played["actions"]}
    for typ, key_sets in played["actions"].items():
        cells = _row(glance, f"| `{typ}` |")
        for field in set().union(*key_sets) - {"type"}:
            assert f"`{field}`" in cells[2], f"field {field!r} of {typ!r} is not in its row"


def test_every_decision_kind_and_field_is_documented(page: str, played: dict) -> None:
    assert set(played["decisions"]) == set(KINDS)
    section = _section(page, "## 12. Decisions and actions")
    assert "Every decision has `kind` and `seat`" in section
    for kind, key_sets in played["decisions"].items():
        fields = set().union(*key_sets)
        assert fields == KINDS[kind] | {"kind", "seat"}, f"{kind}: the engine has {fields}"
        table_row = _row(section.split("\n### ", 1)[0], f"| `{kind}` |")
        assert table_row[1] in {p for p in played["phases"][kind]}, kind
        described = _section(section, f"### `{kind}`")
        for field in KINDS[kind]:
            assert f"`{field}`" in table_row[2], f"{kind}: {field!r} missing from the table"
            assert f"`{field}`" in described, f"{kind}: {field!r} missing from its section"


def test_purchases_say_what_claim_and_decline_mean(page: str, played: dict) -> None:
    """The issue that asked for this page: claims inside a purchase, decline, and the buyer."""
    assert "claim_two_resources" in played["actions"]
    for kind in ("buy_card", "buy_building", "feed"):
        assert "`claim_two_resources`" in _section(page, f"### `{kind}`")
    card = " ".join(_section(page, "### `buy_card`").split())
    assert '{"type": "decline"}' in card and "does not end the decision" in card
    assert "`buyer`" in _section(page, "### `pick_die`")


def test_every_observation_field_is_documented(page: str, played: dict) -> None:
    section = _section(page, "## 11. The observation")
    obs = played["observations"]["buy_card"]
    own = obs["players"][obs["seat"]]
    other = obs["players"][1 - obs["seat"]] if obs["seat"] < 2 else obs["players"][0]
    board = obs["board"]
    fields = [*obs, *board, *board["cards"][0], *board["buildings"][0], *own, *other,
              *board["people"]]
    for field in fields:
        assert f"`{field}`" in section, f"observation field {field!r} is not documented"
    assert set(own) - set(other) == {"hidden_card_list"}
    for phases in played["phases"].values():
        for phase in phases:
            assert f'`"{phase}"`' in section


def test_every_breakdown_key_is_documented(page: str, played: dict) -> None:
    scoring = _section(page, "## 10. Final scoring")
    assert _first_cells(scoring) == {f"`{key}`" for key in played["breakdown"]}
    assert len(played["breakdown"]) == 9


# --- the component tables ---------------------------------------------------------------------


def test_ids_are_positions_in_the_components_lists(page: str, components: dict) -> None:
    assert set(components) == {"cards", "buildings"}
    for table in ("cards", "buildings"):
        assert [entry["id"] for entry in components[table]] == list(range(len(components[table])))
    assert "**An id is a\nposition in its list**" in page


def _top_text(top: dict[str, Any]) -> str:
    """What the cards table says a top gives."""
    effect, amount, good = top["effect"], top.get("amount"), top.get("good")
    return {
        "dice_for_everyone": "dice for everyone",
        "food": f"{amount} food",
        "resource": f"{amount} {good}",
        "roll_two_dice": f"roll 2 dice for {good}",
        "points": f"{amount} points",
        "tool": f"{amount} tool step",
        "agriculture": f"{amount} agriculture",
        "extra_card": "the deck's top card (its bottom only)",
        "one_use_tool": f"one-use tool of value {amount}",
        "any_two_resources": f"any {amount} resources",
    }[effect]


def test_every_card_has_its_row(page: str, components: dict) -> None:
    section = _section(page, "### Every card")
    assert len(components["cards"]) == 36
    for card in components["cards"]:
        cells = _row(section, f"| {card['id']} | ")
        assert cells[1] == f"`{card['top']['effect']}`", card
        assert cells[2] == _top_text(card["top"]), card
        bottom = card["bottom"]
        expected = (f"`{bottom['symbol']}`" if "symbol" in bottom
                    else f"{bottom['count']} × `{bottom['figure']}`")
        assert cells[3] == expected, card
    effects = {card["top"]["effect"] for card in components["cards"]}
    tops = _section(page, "### Tops: the immediate effects")
    named = {cell for cell in _first_cells(tops) if cell.startswith("`")}  # not the faces table
    assert named == {f"`{effect}`" for effect in effects}


def test_bottoms_add_up_as_the_page_says(page: str, components: dict) -> None:
    figures: dict[str, int] = defaultdict(int)
    symbols: dict[str, int] = defaultdict(int)
    for card in components["cards"]:
        bottom = card["bottom"]
        if "symbol" in bottom:
            symbols[bottom["symbol"]] += 1
        else:
            figures[bottom["figure"]] += bottom["count"]
    bottoms = " ".join(_section(page, "### Bottoms").split())
    assert set(symbols.values()) == {2} and len(symbols) == 8
    assert f"Culture** (green, {sum(symbols.values())} cards): one of {len(symbols)} symbols" in \
        bottoms
    for symbol in symbols:
        assert f"`{symbol}`" in bottoms
    assert (f"There are {figures['farmer']} farmers in all, {figures['tool_maker']} tool makers, "
            f"{figures['hut_builder']} hut builders and {figures['shaman']} shamans") in bottoms
    table = _section(page, "### Bottoms")
    assert _first_cells(table) == {f"`{figure}`" for figure in figures}


def test_every_building_has_its_row(page: str, components: dict) -> None:
    section = _section(page, "## 7. Buildings")
    assert len(components["buildings"]) == 28
    for b in components["buildings"]:
        cells = _row(section, f"| {b['id']} | ")
        assert cells[1] == f"`{b['kind']}`", b
        if b["kind"] == "fixed":
            assert cells[2] == _amounts(b["cost"]), b
            assert cells[3] == str(b["points"]), b
        elif b["kind"] == "variable":
            kinds = "kind" if b["kinds"] == 1 else "kinds"
            assert cells[2] == f"{b['count']} resources of exactly {b['kinds']} {kinds}", b
            assert cells[3] == "what is paid"
        else:
            assert (b["min"], b["max"]) == (1, 7)
            assert cells[2] == "1 to 7 resources of any kinds", b
            assert cells[3] == "what is paid"


def _pips(page: str) -> dict[str, int]:
    """The pips-per-good table: good -> divisor."""
    section = _section(page, "## 4. The places")
    return {good: int(_row(section, f"| {good} | ")[2])
            for good in ("food", *RESOURCES)}


def test_pips_per_good_are_the_engines(page: str, components: dict, played: dict) -> None:
    pips = _pips(page)
    assert pips == {"food": 2, "wood": 3, "clay": 4, "stone": 5, "gold": 6}
    # A fixed building scores the value of its cost: the pips of each resource.
    for b in components["buildings"]:
        if b["kind"] == "fixed":
            assert b["points"] == sum(n * pips[g] for g, n in b["cost"].items()), b
    # A single permanent tool is offered exactly when it raises the yield at that divisor.
    seen: set[str] = set()
    for good, total, unused, legal in played["rolls"]:
        d = pips[good]
        singles = {a["tools"][0] for a in legal if len(a["tools"]) == 1 and not a["one_use_tools"]}
        for value in set(unused):
            assert (value in singles) == ((total + value) // d > total // d), (good, total, value)
        seen.add(good)
    assert seen == set(pips)
    places = _section(page, "## 4. The places")
    for place, good in (("hunting", "food"), ("forest", "wood"), ("clay_pit", "clay"),
                        ("quarry", "stone"), ("river", "gold")):
        cells = _row(places, f"| `{place}` |")
        assert f"divided by **{pips[good]}**" in cells[2] and f"**{good}**" in cells[2]


# --- the examples -------------------------------------------------------------------------------


def test_every_json_example_parses_and_matches_the_engine(page: str, played: dict,
                                                          components: dict) -> None:
    blocks = _json_blocks(page)
    assert len(blocks) >= 15
    real = played["observations"]["buy_card"]
    own_keys = real["players"][real["seat"]].keys()
    other_keys = next(p for p in real["players"] if p["seat"] != real["seat"]).keys()
    seen: dict[str, int] = defaultdict(int)
    for block in blocks:
        for item in block if isinstance(block, list) else [block]:
            assert isinstance(item, dict)
            if "game" in item:  # a whole observation
                assert item.keys() == real.keys()
                assert frozenset(item["decision"]) in played["decisions"][item["decision"]["kind"]]
                for p in item["players"]:
                    assert p.keys() == (own_keys if p["seat"] == item["seat"] else other_keys)
                assert item["board"].keys() == real["board"].keys()
                assert item["board"]["people"].keys() == real["board"]["people"].keys()
                for slot in item["board"]["cards"]:
                    assert slot.keys() == real["board"]["cards"][0].keys()
                for pile in item["board"]["buildings"]:
                    assert pile.keys() == real["board"]["buildings"][0].keys()
                seen["observation"] += 1
            elif "kind" in item and "seat" in item:
                assert frozenset(item) in played["decisions"][item["kind"]], item
                seen["decision"] += 1
            elif "type" in item:
                assert frozenset(item) in played["actions"][item["type"]], item
                seen["action"] += 1
            elif "top" in item:
                assert item == components["cards"][item["id"]]
                seen["card"] += 1
            elif "kind" in item:
                assert item == components["buildings"][item["id"]]
                seen["building"] += 1
            elif set(item) == played["breakdown"]:
                seen["breakdown"] += 1
            else:
                pytest.fail(f"unrecognised JSON example: {item}")
    assert seen.keys() == {"observation", "decision", "action", "card", "building", "breakdown"}


def test_the_page_stands_alone(page: str) -> None:
    """A bot author never needs the source tree."""
    assert "arena/engine" not in page and "RULES.md" not in page
    assert "(protocol.md)" in page
