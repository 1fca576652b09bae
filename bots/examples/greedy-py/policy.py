"""A greedy Stone Age policy: score every legal action by a rough value estimate.

``choose(observation, legal_actions, components)`` returns the index of the legal action it likes
best. It reads only its plain-data arguments (exactly what the referee sends: the request and
the component tables of ``game_start``), uses no randomness, and looks one decision ahead at
most: no search, no simulation.

Everything is measured in "final points". A resource held is worth ``KEEP`` times its building
value (wood 3 .. gold 6), since it will probably end up in a building; a person sent gathering
brings about 3.5 pips, so ``PERSON`` points; food is worth ``FOOD`` points a unit.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import product
from math import ceil

RES = ("wood", "clay", "stone", "gold")
DIV = {"food": 2, "wood": 3, "clay": 4, "stone": 5, "gold": 6}
GOOD_OF = {"hunting": "food", "forest": "wood", "clay_pit": "clay", "quarry": "stone",
           "river": "gold"}
FACE_GOOD = {1: "wood", 2: "clay", 3: "stone", 4: "gold"}
#: COMPS[t]: every (wood, clay, stone, gold) with t resources in all.
COMPS = [[p for p in product(range(t + 1), repeat=4) if sum(p) == t] for t in range(8)]

DIE = 3.5  # expected pips of one die
KEEP = 0.6  # share of its building value a held resource is worth
PERSON = DIE * KEEP  # points a person brings by gathering
FOOD = 1.8  # points per food
NEED = 0.25  # extra share for a resource a visible building still lacks
TOOL_ROUND = 0.8  # points a +1 tool step brings per round left
HUT_ROUND = 1.0  # points one more person brings per round left
BUILD_RATE = 0.4  # buildings we expect to buy per round (for hut builders)
PENALTY = 10


class Ctx:
    """What every decision needs to know about the position, computed once per call."""

    def __init__(self, obs: dict) -> None:
        self.seat = seat = obs["seat"]
        self.me = me = obs["players"][seat]
        self.board = board = obs["board"]
        self.hold = tuple(me[r] for r in RES)
        piles = board["buildings"]
        low = min(b["remaining"] for b in piles)
        n = obs["num_players"]
        # Rounds expected after this one: a pile empties or the deck runs dry.
        cards_per_round = 1 + 0.4 * n
        self.future = 0.0 if low == 0 else max(
            0.0, min(low * 2.2, board["deck_size"] / cards_per_round) - 1)
        last = self.future < 0.5
        lack = dict.fromkeys(RES, 0)
        for b in piles:
            top = b["top"]
            if top and top["kind"] == "fixed":
                for r in RES:
                    lack[r] += max(0, top["cost"][r] - me[r])
        self.lack = lack
        self.hv = {r: 1.0 if last else DIV[r] * (KEEP + (NEED if lack[r] else 0)) for r in RES}
        self.hv["food"] = FOOD
        self.hv4 = tuple(self.hv[r] for r in RES)
        # Culture symbols and figures of the cards we own (our extra cards included).
        self.symbols = {k: v for k, v in me["culture"].items() if v}
        figs = me["figures"]
        self.s1 = len(self.symbols)
        self.s2 = sum(1 for v in self.symbols.values() if v >= 2)
        f = self.future
        tools = sum(me["tools"])
        self.tool_val = 0.0 if tools >= 12 else TOOL_ROUND * min(f, 10) + figs["tool_maker"]
        agri, people = me["agriculture"], me["people"]
        self.agri_val = 0.0 if agri >= 10 else (
            FOOD * f * (1.0 if agri < people else 0.5) + figs["farmer"])
        self.hut_val = 0.0 if people >= 10 else HUT_ROUND * f + figs["shaman"]
        self.mult = {
            "farmer": min(10, agri + f * 0.3),
            "tool_maker": min(12, tools + f * 0.4),
            "hut_builder": me["buildings"] + f * BUILD_RATE,
            "shaman": min(10, people + f * 0.25),
        }

    def cost(self, pay: tuple) -> float:
        h = self.hv4
        return pay[0] * h[0] + pay[1] * h[1] + pay[2] * h[2] + pay[3] * h[3]

    def card_value(self, card: dict) -> float:
        top, bottom = card["top"], card["bottom"]
        eff, amount = top["effect"], top.get("amount", 0)
        if eff in ("food", "resource"):
            v = amount * self.hv[top["good"]]
        elif eff == "roll_two_dice":
            d = DIV[top["good"]]
            v = (2 * DIE - (d - 1) / 2) / d * self.hv[top["good"]]
        elif eff == "points":
            v = amount
        elif eff == "tool":
            v = self.tool_val
        elif eff == "agriculture":
            v = self.agri_val
        elif eff == "one_use_tool":
            v = amount * 0.7
        elif eff == "any_two_resources":
            v = 2 * max(self.hv[r] for r in RES)
        else:  # extra_card, dice_for_everyone
            v = 3.0
        if "symbol" in bottom:
            held = self.symbols.get(bottom["symbol"], 0)
            v += 2 * self.s1 + 1 if held == 0 else (2 * self.s2 + 1 if held == 1 else 0)
        else:
            v += bottom["count"] * self.mult[bottom["figure"]]
        return v

    def payments(self, what: dict, hold: tuple) -> list[tuple]:
        """Every payment for a card (``{"cost": k}``) or building tile that ``hold`` covers."""
        if "cost" in what and "kind" not in what:
            shape: tuple = ("card", what["cost"])
        elif what["kind"] == "fixed":
            shape = ("fixed", *(what["cost"][r] for r in RES))
        elif what["kind"] == "variable":
            shape = ("variable", what["count"], what["kinds"])
        else:
            shape = ("any",)
        return _payments(shape, hold)

    def gain(self, what: dict, pay: tuple, card: dict | None) -> float:
        """Points won by paying ``pay`` for a card or building, minus what the payment is worth."""
        if card is not None:
            return self.card_value(card) - self.cost(pay)
        if what["kind"] == "fixed":
            points = what["points"]
        else:
            points = sum(DIV[r] * k for r, k in zip(RES, pay, strict=True))
        return points - self.cost(pay)

    def best_buy(self, what: dict, hold: tuple, card: dict | None) -> tuple[float, tuple | None]:
        best: tuple[float, tuple | None] = (0.0, None)
        worth = None if card is None else self.card_value(card)
        for p in self.payments(what, hold):
            g = self.gain(what, p, None) if worth is None else worth - self.cost(p)
            if g > best[0]:
                best = (g, p)
        return best


@lru_cache(maxsize=50_000)
def _payments(shape: tuple, hold: tuple) -> list[tuple]:
    """The payments of a price ``shape`` that ``hold`` covers (memoized: both repeat a lot;
    callers only read the list)."""
    if shape[0] == "card":
        cands = COMPS[shape[1]]
    elif shape[0] == "fixed":
        cands = [shape[1:]]
    elif shape[0] == "variable":
        cands = [p for p in COMPS[shape[1]] if sum(1 for x in p if x) == shape[2]]
    else:
        cands = [p for t in range(1, 8) for p in COMPS[t]]
    return [p for p in cands if all(x <= h for x, h in zip(p, hold, strict=True))]


def _pay_of(action: dict) -> tuple:
    return tuple(action[r] for r in RES)


def _minus(hold: tuple, pay: tuple) -> tuple:
    return tuple(h - p for h, p in zip(hold, pay, strict=True))


# ------------------------------------------------------------------------------- placement
def _spare(c: Ctx) -> tuple:
    """Holdings left after paying for the buildings and cards already claimed this round."""
    hold = c.hold
    for b in c.board["buildings"]:
        if b["people"][c.seat] and b["top"]:
            _, pay = c.best_buy(b["top"], hold, None)
            if pay:
                hold = _minus(hold, pay)
    for slot in c.board["cards"]:
        if slot["people"][c.seat] and slot["card"]:
            _, pay = c.best_buy({"cost": slot["cost"]}, hold, slot["card"])
            if pay:
                hold = _minus(hold, pay)
    return hold


def _hunters_needed(c: Ctx) -> int:
    me, here = c.me, c.board["people"]
    if here["hunting"][c.seat]:
        return 0
    eat = me["people"] + (1 if here["hut"][c.seat] else 0)
    short = eat - me["food"] - me["agriculture"]
    if short <= 0:
        return 0
    return ceil((short + 0.5) / (DIE / 2))


def _hunger(c: Ctx, a: dict, hunters: int) -> float:
    """What placing ``a`` costs the family's food when ``hunters`` people should hunt."""
    left = c.me["people_to_place"] - a["people"]
    if left < hunters:  # these people would have hunted: the family goes hungrier
        return PERSON * min(a["people"], hunters - left)
    return 0.0


def _special_base(c: Ctx, a: dict, spare: tuple) -> float | None:
    """Net points of a village, card or building placement, before the family's food is
    counted (see ``_hunger``); None if ``a`` is not one of those."""
    place = a["place"]
    if place == "tool_maker":
        v = c.tool_val - PERSON
    elif place == "field":
        v = c.agri_val - PERSON
    elif place == "hut":
        v = c.hut_val - 2 * PERSON
    elif place == "card":
        slot = c.board["cards"][a["slot"] - 1]
        v = c.best_buy({"cost": slot["cost"]}, spare, slot["card"])[0] - PERSON
        if v <= -PERSON:
            return None
    elif place == "building":
        top = c.board["buildings"][a["pile"]]["top"]
        v = c.best_buy(top, spare, None)[0] - PERSON
        if v <= -PERSON:
            return None
    else:
        return None
    return v


def _gather_value(c: Ctx, good: str, k: int, tools: int) -> float:
    d = DIV[good]
    units = max(0.0, (DIE * k + tools - (d - 1) / 2) / d)
    v = units * c.hv[good]
    if good != "food":
        v += min(units, c.lack[good]) * d * NEED
    return v


def _place_scores(c: Ctx, legal: list[dict]) -> list[tuple[int, float]]:
    """A score per placement, (tier, value): the greedy choice has the highest (the first, on a
    tie). Tier 2: a village, card or building place worth more than its people's gathering;
    tier 1: gathering (hunting for the family first); tier 0: the rest."""
    spare = _spare(c)
    hunters = _hunters_needed(c)
    avail = c.me["people_to_place"]
    extra = avail - hunters
    # The tools help the first resource place we go to.
    gathering = any(c.board["people"][p][c.seat] for p in GOOD_OF if p != "hunting")
    tools = 0 if gathering else sum(c.me["tools"])
    scores = []
    for a in legal:
        base = _special_base(c, a, spare)
        if base is not None and (s := base - _hunger(c, a, hunters)) > 0:
            scores.append((2, s))
            continue
        good = GOOD_OF.get(a["place"])
        v = -1.0
        if good == "food":
            # Hunt what the family needs (everyone, when nobody is left for anything else).
            if hunters:
                cap = hunters if extra > 0 else avail
                v = 100.0 + a["people"] if a["people"] <= cap else -1.0
            else:
                v = 0.5 * _gather_value(c, "food", a["people"], 0)
        elif good is not None and a["people"] <= extra:
            v = _gather_value(c, good, a["people"], tools) + 0.01 * a["people"]
        if v > -1.0:
            scores.append((1, v))
            continue
        # Nowhere to gather: the least bad special place.
        scores.append((0, -1e9 if base is None else base))
    return scores


def _best(scores: list[tuple[int, float]]) -> int:
    return max(range(len(scores)), key=lambda i: (scores[i], -i))


# ------------------------------------------------------------------------------ resolution
#: The order in which this policy resolves its places (by the actions' "place" field).
RESOLVE_ORDER = ("tool_maker", "hunting", "forest", "clay_pit", "quarry", "river", "hut",
                 "field", "building", "card")


def _resolve(observation: dict, legal: list[dict], components: dict) -> int:
    """The place to resolve next: RESOLVE_ORDER, fixed buildings before the others, cheaper
    card slots first. It reads the observation itself (building ids looked up in the tables),
    not the view with its context, since the search bot asks this at a third of its decisions."""
    piles = observation["board"]["buildings"]
    buildings = components["buildings"]

    def rank(i: int) -> tuple:
        a = legal[i]
        sub = buildings[piles[a["pile"]]["top"]]["kind"] != "fixed" if "pile" in a else 0
        return (RESOLVE_ORDER.index(a["place"]), sub, a.get("slot", 0))

    return min(range(len(legal)), key=rank)


def _use_tools(c: Ctx, dec: dict, legal: list[dict]) -> int:
    good, total = dec["good"], dec["sum"]
    d = DIV[good]
    more = any(c.board["people"][p][c.seat] for p in GOOD_OF)
    best, best_i = 0.0, 0
    for i, a in enumerate(legal):
        added = sum(a["tools"]) + sum(a["one_use_tools"])
        gained = (total + added) // d - total // d
        v = gained * c.hv[good] - 0.5 * sum(a["one_use_tools"])
        if more:
            v -= 0.3 * sum(a["tools"])
        if v > best:
            best, best_i = v, i
    return best_i


def _buy(c: Ctx, dec: dict, legal: list[dict]) -> int:
    card = dec.get("card")
    what = {"cost": dec["cost"]} if card is not None else dec["building"]
    best, best_i = 0.0, None
    decline = 0
    for i, a in enumerate(legal):
        if a["type"] == "pay":
            g = c.gain(what, _pay_of(a), card)
            if g > best:
                best, best_i = g, i
        elif a["type"] == "decline":
            decline = i
    if best_i is not None:
        return best_i
    # Nothing worth paying: would the "any 2 resources" card make it worth it?
    best = 0.0
    for i, a in enumerate(legal):
        if a["type"] == "claim_two_resources":
            hold = tuple(h + k for h, k in zip(c.hold, _pay_of(a), strict=True))
            g = c.best_buy(what, hold, card)[0]
            if g > best:
                best, best_i = g, i
    return decline if best_i is None else best_i


def _pick_die(c: Ctx, legal: list[dict]) -> int:
    def value(a: dict) -> float:
        face = a["face"]
        if face in FACE_GOOD:
            return c.hv[FACE_GOOD[face]]
        return c.tool_val if face == 5 else c.agri_val

    return max(range(len(legal)), key=lambda i: value(legal[i]))


def _feed(c: Ctx, dec: dict, legal: list[dict]) -> int:
    best, best_i = float(PENALTY), None
    penalty = claim = None
    for i, a in enumerate(legal):
        if a["type"] == "feed_with_resources":
            cost = c.cost(_pay_of(a))  # resources are worth 1 point each in the last round
            if cost < best:
                best, best_i = cost, i
        elif a["type"] == "take_penalty":
            penalty = i
        elif a["type"] == "claim_two_resources" and a["gold"] == 2:
            claim = i
    if best_i is not None:
        return best_i
    if claim is not None and sum(c.hold) + 2 >= dec["deficit"]:
        return claim
    return penalty if penalty is not None else 0


def _with_tables(obs: dict, components: dict) -> dict:
    """A view of ``obs`` with card and building ids replaced by their table entries (from
    ``game_start.components``) and every culture and figure count present. ``obs`` itself is
    left unchanged."""
    cards, buildings = components["cards"], components["buildings"]
    board = obs["board"]
    view = {**obs, "board": {
        **board,
        "cards": [{**s, "card": None if s["card"] is None else cards[s["card"]]}
                  for s in board["cards"]],
        "buildings": [{**b, "top": None if b["top"] is None else buildings[b["top"]]}
                      for b in board["buildings"]],
    }}
    dec = obs["decision"]
    if dec["kind"] == "buy_card":
        view["decision"] = {**dec, "card": cards[dec["card"]]}
    elif dec["kind"] == "buy_building":
        view["decision"] = {**dec, "building": buildings[dec["building"]]}
    view["players"] = [
        {**p, "figures": {**dict.fromkeys(("farmer", "tool_maker", "hut_builder", "shaman"), 0),
                          **p["figures"]}}
        for p in obs["players"]
    ]
    return view


def preferences(observation: dict, legal_actions: list[dict], components: dict) -> list[int]:
    """Every legal index, best first by this policy: ``choose`` is the first. Placements are
    ordered by their scores; for other decisions the rest follow in the given order."""
    if observation["decision"]["kind"] == "place":
        scores = _place_scores(Ctx(_with_tables(observation, components)), legal_actions)
        return sorted(range(len(legal_actions)), key=lambda i: (-scores[i][0], -scores[i][1], i))
    first = choose(observation, legal_actions, components)
    return [first] + [i for i in range(len(legal_actions)) if i != first]


def choose(observation: dict, legal_actions: list[dict], components: dict) -> int:
    """The index of the chosen action in ``legal_actions``. ``components`` is the game's
    static table of cards and buildings, as ``game_start`` sends it."""
    if observation["decision"]["kind"] == "resolve":
        return _resolve(observation, legal_actions, components)
    return _choose(_with_tables(observation, components), legal_actions)


def _choose(view: dict, legal_actions: list[dict]) -> int:
    c = Ctx(view)
    dec = view["decision"]
    kind = dec["kind"]
    if kind == "place":
        return _best(_place_scores(c, legal_actions))
    if kind == "use_tools":
        return _use_tools(c, dec, legal_actions)
    if kind in ("buy_card", "buy_building"):
        return _buy(c, dec, legal_actions)
    if kind == "pick_die":
        return _pick_die(c, legal_actions)
    return _feed(c, dec, legal_actions)
