"""A greedy Agricola (Family game) policy: value every legal action by a heuristic estimate of
the final score, one decision ahead, with a small model of its own farm.

``choose(observation, legal_actions, components)`` returns the index of the legal action it
likes best; ``preferences`` orders every legal index, best first. Both read only their plain
arguments and use no randomness.

How an action is valued. The observation is read once into a :class:`Farm` (this seat's goods,
farmyard masks, majors, family) and a :class:`Ctx` (round, harvests to come, what is on the
board). :func:`value` turns a farm into "final points": the scoring table on the counts as they
stand (crops on the fields included), plus what the rest of the game should make of what is
held — people and empty rooms by the rounds left, building resources by what the farm still
needs of them, animals by breeding room, cooking and baking improvements by the harvests left —
and minus the food the family is short of at the next harvest, priced by how many of its own
actions are left to find it (3 points a food, a begging marker, when they cannot).

- A sub-decision (a room, a field, a pasture, a bake, what to keep, how to feed) is valued by
  applying it to a copy of the farm model: the value after it, against ``stop``.
- A placement is valued by playing the space on the model: its goods, or its parts carried out
  greedily with the same values (each sub-action while it raises the value, in the card's
  order), as the policy itself would at the following sub-decisions.

The farmyard's geometry (pasture shapes and their fences) comes from the engine's own table,
:mod:`arena.engine.agricola.pastures`, and the game's constants from its component tables:
greedy-py runs where Arena is installed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import agricola_cards as cards

from arena.engine.agricola import components as C
from arena.engine.agricola.cards.card import Count
from arena.engine.agricola.cards.spaces import (
    BUILD_ONE_MAJOR,
    CARD_SPACES,
    LESSONS_SPACES,
    lessons_cost,
)
from arena.engine.agricola.pastures import (
    NEIGHBOURS,
    SHAPE_BOUNDARY,
    pasture_moves,
    pastures_of,
)

WOOD, CLAY, REED, STONE, GRAIN, VEG, FOOD, SHEEP, BOAR, CATTLE = range(10)
GOOD_INDEX = {name: i for i, name in enumerate(C.GOODS)}
ANIMALS = (SHEEP, BOAR, CATTLE)
ALL_CELLS = (1 << 15) - 1
HARVESTS = C.HARVEST_ROUNDS
LAST_ROUND = C.NUM_ROUNDS
SPACE_ID = C.SPACE_ID
SIDE_JOB = SPACE_ID["side_job"]
MEETING_PLACE = SPACE_ID["meeting_place"]
MAJORS = C.MAJORS
ROOM_COST = C.ROOM_COST
ROWS = {
    "fields": C.FIELDS_ROW, "pastures": C.PASTURES_ROW, GRAIN: C.GRAIN_ROW,
    VEG: C.VEGETABLES_ROW, SHEEP: C.SHEEP_ROW, BOAR: C.BOAR_ROW, CATTLE: C.CATTLE_ROW,
}
COOKERS = frozenset(C.COOKERS)
HEARTHS = frozenset(C.COOKING_HEARTHS)
OVENS = frozenset(C.OVENS)
FIREPLACES_DEAREST_FIRST = tuple(sorted(C.FIREPLACES, key=lambda m: -MAJORS[m].cost[1]))

# --- the layout: spaces by preference for each kind of thing (rooms next to the house on the
# left, fields beside them, pastures and stables on the right), to break the model's ties.
ROOM_ORDER = (0, 11, 6, 1, 12, 7, 2, 13, 8, 3, 14, 9, 4)
FIELD_ORDER = (2, 1, 3, 7, 6, 8, 12, 11, 0, 13, 4, 9, 14)
STABLE_ORDER = (14, 9, 4, 13, 8, 3, 12, 7, 2, 11, 6, 1, 0)
#: By kind of action: how much each space is preferred (a tie-break far below any value).
TIE = {kind: tuple(1e-4 * (15 - order.index(c)) if c in order else 0.0 for c in range(15))
       for kind, order in (("build_room", ROOM_ORDER), ("plough", FIELD_ORDER),
                           ("build_stable", STABLE_ORDER), ("sow", FIELD_ORDER))}

# --- weights, in final points ------------------------------------------------------------------
ACTION = 1.4  # one person's action in a future round
GROWTH_ROOM = (0.85, 0.5)  # share of a person's value an empty room (first, second) is worth
FOOD_SHORT = 1.0  # a food the next harvest lacks, while actions are left to find it
BEG = 3.0  # a begging marker
FOOD_PRICE = 0.7  # a food later harvests lack: the actions it will take to find it
FOOD_SPARE = 0.05  # a food beyond every harvest's need
FOOD_REACH = 0.8  # share of the food spaces within reach that this seat will really get
PROJECT = 0.55  # share of a project's gain its resources are worth before it is built
COOKER_VALUE = 1.0  # a first Fireplace/Cooking Hearth beyond its points and harvests
COOKER_SAVES = 0.3  # food-price share of each person's meal a cooker is expected to save
WOOD_FENCE = 0.4  # a wood towards fences and stables
#: Building resources beyond every project: per unit.
RES_SPARE = (0.1, 0.25, 0.25, 0.35)
COOKER_HARVEST = 0.3  # owning a Fireplace/Cooking Hearth, per harvest left
HEARTH_HARVEST = 0.25  # a Cooking Hearth rather than a Fireplace, per harvest left
OVEN_HARVEST = 0.3
CRAFT_HARVEST = 0.2
BREEDING = 0.6  # share of the points a pair's future newborns would add
SEED = 0.4  # a crop in the supply that an empty field could take
START_TOKEN = 0.3
#: What a missing scoring category and an unused space cost in round 1, against 1 at the end.
MISSING_EARLY = 0.3
UNUSED_EARLY = 0.4


def _row(bounds: tuple[int, int, int, int], n: int) -> int:
    if n < bounds[0]:
        return -1
    if n >= bounds[3]:
        return 4
    if n >= bounds[2]:
        return 3
    return 2 if n >= bounds[1] else 1


@lru_cache(maxsize=64)
def _rates(majors: tuple[int, ...]) -> tuple[int, ...]:
    """Food per good (goods numbering) outside baking: crops raw or cooked, animals cooked."""
    rates = [0] * 10
    rates[GRAIN] = 1
    rates[VEG] = 1
    for m in majors:
        for good, food in MAJORS[m].cook:
            rates[good] = max(rates[good], food)
    return tuple(rates)


@lru_cache(maxsize=256)
def _bakes(majors: tuple[int, ...]) -> tuple[int, ...]:
    """Food of one Bake Bread action by grain baked (index = grain), best improvements first."""
    bakers = sorted((m for m in majors if MAJORS[m].bake_food),
                    key=lambda m: (-MAJORS[m].bake_food, m))
    out = [0]
    for total in range(1, 12):
        left, food = total, 0
        for m in bakers:
            n = min(left, MAJORS[m].bake_limit or left)
            food += n * MAJORS[m].bake_food
            left -= n
        if left:
            break
        out.append(food)
    return tuple(out)


def _pareto(points: set[tuple[int, int, int]]) -> set[tuple[int, int, int]]:
    return {p for p in points
            if not any(q != p and q[0] >= p[0] and q[1] >= p[1] and q[2] >= p[2]
                       for q in points)}


@lru_cache(maxsize=4096)
def _frontier(caps: tuple[int, ...]) -> tuple[tuple[int, int, int], ...]:
    """The Pareto-maximal (sheep, boar, cattle) pastures of these capacities can hold."""
    points = {(0, 0, 0)}
    for cap in caps:
        points = _pareto({q for s, b, c in points
                          for q in ((s + cap, b, c), (s, b + cap, c), (s, b, c + cap))})
    return tuple(sorted(points))


@lru_cache(maxsize=16384)
def _room_for(caps: tuple[int, ...], flex: int, herd: tuple[int, int, int]) -> tuple[int, ...]:
    """For each animal type, the most of it the farm holds with the other two types as in
    ``herd`` (-1 if even ``herd`` does not fit)."""
    best = [-1, -1, -1]
    for point in _frontier(caps):
        over = [max(0, n - p) for n, p in zip(herd, point, strict=True)]
        for t in range(3):
            spare = flex - (sum(over) - over[t])
            if spare >= 0:
                best[t] = max(best[t], point[t] + spare)
    return tuple(best)


@lru_cache(maxsize=8192)
def _moves(fences: int, pastures: tuple[int, ...], blocked: int, budget: int
           ) -> tuple[tuple[int, int], ...]:
    # The pastures follow from the fences; they stay in the key for the callers' sake.
    return tuple(pasture_moves(fences, blocked, budget))


_pastures_of = lru_cache(maxsize=8192)(pastures_of)


def _mask(cells: list[int]) -> int:
    out = 0
    for c in cells:
        out |= 1 << c
    return out


def _neighbours(mask: int) -> int:
    out = 0
    m = mask
    while m:
        low = m & -m
        out |= NEIGHBOURS[low.bit_length() - 1]
        m ^= low
    return out & ~mask


# --- the model of this seat's farm ---------------------------------------------------------------
class Farm:
    """This seat's holdings: goods (a list in the goods numbering), farmyard masks, the crops
    on each field (grain > 0, vegetables < 0), house material (0 wood, 1 clay, 2 stone),
    majors (sorted tuple), family and begging markers, and the food the Well still brings by
    round. Copied before every change."""

    __slots__ = ("begging", "cards", "fences", "fields", "g", "majors", "mat", "newborns",
                 "occupations", "pastures", "people", "rooms", "sown", "stables", "token", "well")

    g: list[int]
    rooms: int
    fields: int
    sown: tuple[int, ...]
    stables: int
    fences: int
    pastures: tuple[int, ...]
    mat: int
    majors: tuple[int, ...]
    people: int
    newborns: int
    begging: int
    well: tuple[int, ...]
    token: bool
    #: Card mode: the worth of the cards played on the model (not those played before), and
    #: how many occupations are in front of the player.
    cards: float
    occupations: int

    def copy(self) -> Farm:
        f = Farm.__new__(Farm)
        f.g = self.g[:]
        f.rooms = self.rooms
        f.fields = self.fields
        f.sown = self.sown
        f.stables = self.stables
        f.fences = self.fences
        f.pastures = self.pastures
        f.mat = self.mat
        f.majors = self.majors
        f.people = self.people
        f.newborns = self.newborns
        f.begging = self.begging
        f.well = self.well
        f.token = self.token
        f.cards = self.cards
        f.occupations = self.occupations
        return f

    def pastured(self) -> int:
        return _pens(self.pastures, self.stables)[0]

    def empty(self) -> int:
        return ALL_CELLS & ~(self.rooms | self.fields | self.stables | self.pastured())

    def caps(self) -> tuple[tuple[int, ...], int]:
        """Pasture capacities (sorted) and the places holding one animal of any type."""
        _, caps, flex, _ = _pens(self.pastures, self.stables)
        return caps, flex

    def herd(self) -> tuple[int, int, int]:
        g = self.g
        return g[SHEEP], g[BOAR], g[CATTLE]


def _farm_of(player: dict[str, Any], seat: int, board: dict[str, Any],
             cards_of: dict[str, Any] | None = None) -> Farm:
    f = Farm.__new__(Farm)
    goods = player["goods"]
    f.g = [goods[name] for name in C.GOODS]
    farm = player["farm"]
    f.rooms = _mask(farm["rooms"])
    sown = [0] * 15
    fields = 0
    for cell, crop, n in farm["fields"]:
        fields |= 1 << cell
        if crop == "grain":
            sown[cell] = n
        elif crop == "vegetable":
            sown[cell] = -n
    f.fields = fields
    f.sown = tuple(sown)
    f.stables = _mask(farm["stables"])
    f.fences = _mask(farm["fences"])
    f.pastures = tuple(sorted(_mask(p) for p in player["pastures"]))
    f.mat = C.HOUSE_MATERIALS.index(farm["house"])
    f.majors = tuple(sorted(player["majors"]))
    f.people = player["people"]
    f.newborns = player["newborns"]
    f.begging = player["begging"]
    well = [0] * (LAST_ROUND + 1)
    for rnd, who, food in board["well"]:
        if who == seat:
            well[rnd] += food
    f.well = tuple(well) if any(well) else NO_WELL
    f.token = board["start_player"] == seat
    f.cards = 0.0
    f.occupations = 0
    if cards_of is not None:
        f.occupations = len(cards_of["players"][seat]["occupations"])
    return f


# --- the position around the farm ----------------------------------------------------------------
#: Food spaces: what each gives now, by space id (the piles are read from the board).
FOOD_SPACES = {SPACE_ID["day_laborer"]: 2, SPACE_ID["grain_seeds"]: 1,
               SPACE_ID["resource_market_3p"]: 1, SPACE_ID["resource_market_4p"]: 1}
FOOD_PILES = (SPACE_ID["fishing"], SPACE_ID["meeting_place"], SPACE_ID["traveling_players"])
#: Food a family can expect from its 1st, 2nd... person sent for food in a round to come.
FUTURE_FOOD = (3.0, 2.0, 1.0, 1.0, 0.5)


class Ctx:
    """What the values need to know besides the farm: the round, the harvests to come, the food
    this seat's remaining actions could still find before the next harvest (``cover``), and the
    board (piles, majors on offer)."""

    __slots__ = ("breed_left", "cover", "eat", "fields_due", "future_cover", "hand_m",
                 "hand_o", "harvests_after", "missing", "next_h", "now_food", "on_fishing",
                 "person", "pile", "players", "rl", "round", "seat", "spaces", "spare_majors",
                 "tf", "to_place", "unused")

    def __init__(self, obs: dict[str, Any], to_place: int, phase: str) -> None:
        r = obs["round"]
        self.round = r
        self.seat = obs["seat"]
        self.players = obs["num_players"]
        me = obs["players"][self.seat]
        in_harvest = phase in ("feed", "breed")
        self.to_place = to_place
        self.rl = LAST_ROUND - r
        nxt = [h for h in HARVESTS if h > r or (h == r and not in_harvest)]
        self.next_h = nxt[0] if nxt else 0
        self.harvests_after = len(nxt) - 1 if nxt else 0
        self.fields_due = bool(nxt) and not in_harvest
        self.breed_left = sum(1 for h in HARVESTS if h > r or (h == r and phase != "breed"))
        self.tf = min(1.0, (self.rl + 0.5) / 3.0)
        # An adult eats 2 food at a harvest (3 in the solo game), a newborn 1.
        self.eat = C.FOOD_PER_PERSON_SOLO if self.players == 1 else C.FOOD_PER_PERSON
        late = 1.0 - self.rl / (LAST_ROUND - 1)
        self.missing = -(MISSING_EARLY + (1.0 - MISSING_EARLY) * late)
        self.unused = UNUSED_EARLY + (1.0 - UNUSED_EARLY) * late
        self.person = 0.0 if self.rl < 2 else max(
            0.0, 3 + ACTION * (self.rl - 1.5) - FOOD_PRICE * self.eat * self.harvests_after)
        board = obs["board"]
        self.pile = {s: (GOOD_INDEX[good], n) for s, good, n in board["accumulated"]}
        self.spare_majors = tuple(board["majors"])
        # Card mode: the spaces as card mode plays them, and the cards in hand.
        hands = obs.get("cards")
        self.spaces = CARD_SPACES if hands else C.SPACES
        self.hand_o = tuple(hands["hand_occupations"]) if hands else ()
        self.hand_m = tuple(hands["hand_minors"]) if hands else ()
        self.on_fishing = [SPACE_ID["fishing"], self.seat] in board["occupants"]
        # Food within reach before the next harvest: the free food spaces of this round for
        # the people still at home, and a typical round's food for the rounds in between.
        taken = {s for s, _ in board["occupants"]}
        now = []
        if not in_harvest:
            for s in board["spaces"]:
                if s in taken:
                    continue
                if s in FOOD_SPACES:
                    now.append((FOOD_SPACES[s], s))
                elif s in FOOD_PILES and s in self.pile:
                    now.append((self.pile[s][1], s))
            now.sort(reverse=True)
        self.now_food = now
        rounds = self.next_h - r if nxt else 0
        self.future_cover = rounds * sum(FUTURE_FOOD[:me["people"]]) * FOOD_REACH
        self.cover = self.cover_without(-1)

    def cover_without(self, space: int) -> float:
        """``cover`` when ``space`` is taken by this seat's person now (not free any more)."""
        left = self.to_place
        got = 0.0
        for food, s in self.now_food:
            if not left:
                break
            if s != space:
                got += food
                left -= 1
        return got * FOOD_REACH + self.future_cover


# --- the value of a farm ------------------------------------------------------------------------
def value(f: Farm, x: Ctx) -> float:
    """The farm's worth in final points (see the module docstring)."""
    g = f.g
    pastured, caps, flex, fenced = _pens(f.pastures, f.stables)
    used = f.rooms | f.fields | f.stables | pastured
    rooms = f.rooms.bit_count()
    nfields = f.fields.bit_count()
    grain_f, veg_f, sown_g, sown_v = _crops(f.sown)
    points, rates, hearth, baker, food_h, crafts_of = _majors(f.majors)
    people = f.people
    rl = x.rl
    tf = x.tf

    # The scoring table on the counts as they stand, except that a category still missing, and
    # a space still unused, cost less early on: later actions will mend some of them.
    missing = x.missing
    # A lone field scores nothing yet, but it is half of the two the row asks for.
    pts = 0.0 if nfields == 1 and rl else _row(C.FIELDS_ROW, nfields) if nfields else missing
    pts += _row(C.PASTURES_ROW, len(f.pastures)) if f.pastures else missing
    n = g[GRAIN] + grain_f
    pts += _row(C.GRAIN_ROW, n) if n else missing
    n = g[VEG] + veg_f
    pts += _row(C.VEGETABLES_ROW, n) if n else missing
    pts -= (15 - used.bit_count()) * x.unused
    pts += fenced + rooms * f.mat  # fenced stables; clay rooms 1, stone rooms 2
    pts += 3 * people - 3 * f.begging + points
    if crafts_of and tf < 1.0:
        bonus = 0
        for m, good, _ in crafts_of:
            bonus += C.craft_bonus(m, g[good])
        pts += bonus * (1.0 - tf)

    # Animals: the table, plus what pairs with room to spare will breed.
    herd = (g[SHEEP], g[BOAR], g[CATTLE])
    breed = x.breed_left
    room = _room_for(caps, flex, herd) if breed and (
        herd[0] >= 2 or herd[1] >= 2 or herd[2] >= 2) else None
    for i in range(3):
        n = herd[i]
        if not n:
            pts += missing
            continue
        bounds = ANIMAL_ROWS[i]
        base = _row(bounds, n)
        pts += base
        if room is not None and n >= 2:
            extra = min(breed, room[i] - n)
            if extra > 0:
                pts += BREEDING * (_row(bounds, n + extra) - base)

    # The family: future actions of everyone, and the growth empty rooms allow.
    pts += ACTION * rl * people
    person = x.person if people < 5 else 0.0
    if person:
        empty = min(rooms - people, 5 - people)
        if empty >= 1:
            pts += GROWTH_ROOM[0] * person
            if empty >= 2:
                pts += GROWTH_ROOM[1] * person

    # Food: what the next harvest lacks, then what the later ones will lack once the fields,
    # the breeding pairs, the crafts and the Well have given what they can.
    cooker = rates[SHEEP] > 0
    fe = g[FOOD] + g[GRAIN] + g[VEG] * rates[VEG]
    if cooker:
        for t in ANIMALS:
            if g[t] > 2:
                fe += (g[t] - 2) * rates[t]
    h = 0
    if x.next_h:
        crafts = 0
        for _, good, food in crafts_of:
            if g[good]:
                crafts += food
        fe += crafts
        due = x.fields_due and x.next_h == x.round
        if due:
            fe += sown_g + sown_v * rates[VEG]
        well = f.well
        if well is not NO_WELL:
            fe += sum(well[x.round + 1:x.next_h + 1])
        # Newborns of this round eat 1 at its harvest, 2 at later ones.
        eat = x.eat
        need = eat * people - ((eat - 1) * f.newborns if x.next_h == x.round else 0)
        short = need - fe
        if short > 0:
            cover = x.cover
            pts -= BEG * max(0.0, short - cover) + FOOD_SHORT * min(short, cover)
        after = x.harvests_after
        if after:
            supply = max(0, -short) + crafts * after
            if well is not NO_WELL:
                supply += sum(well[x.next_h + 1:])
            supply += (grain_f - (sown_g if due else 0)) * (2 if baker else 1)
            supply += (veg_f - (sown_v if due else 0)) * rates[VEG]
            if cooker and room is not None:
                for i in range(3):
                    if herd[i] >= 2:
                        supply += min(after, room[i] - herd[i]) * rates[SHEEP + i]
            lack = eat * people * after - supply
            pts -= FOOD_PRICE * lack if lack > 0 else FOOD_SPARE * lack
        h = 1 + after
        # Improvements that turn goods into food at every harvest left.
        if cooker:
            pts += _cooker(people, h)
            if hearth:
                pts += HEARTH_HARVEST * h
        pts += food_h[0] * h + food_h[1] * (h - 1)

    # Seeds an empty field could take.
    empty_fields = nfields - sown_g - sown_v
    if empty_fields and rl:
        pts += SEED * min(empty_fields, g[GRAIN] + g[VEG]) * tf

    # Building resources: steps towards what they could build, at a discount (an action is
    # still needed), the scarcest resource of each project carrying it.
    if tf > 0:
        pts += tf * _resources(f, x, rooms, people, person, cooker, h)

    if f.token and rl:
        pts += START_TOKEN
    return pts + f.cards


ANIMAL_ROWS = (C.SHEEP_ROW, C.BOAR_ROW, C.CATTLE_ROW)
#: By craft major: (good, food) once per harvest.
CRAFT = {m: major.craft for m, major in enumerate(MAJORS) if major.craft is not None}
NO_WELL = (0,) * (LAST_ROUND + 1)


@lru_cache(maxsize=4096)
def _crops(sown: tuple[int, ...]) -> tuple[int, int, int, int]:
    """Grain and vegetables on the fields, and how many fields hold each."""
    grain = veg = ng = nv = 0
    for v in sown:
        if v > 0:
            grain += v
            ng += 1
        elif v < 0:
            veg -= v
            nv += 1
    return grain, veg, ng, nv


@lru_cache(maxsize=4096)
def _pens(pastures: tuple[int, ...], stables: int) -> tuple[int, tuple[int, ...], int, int]:
    """Spaces in pastures, pasture capacities (sorted), places for one animal of any type
    (unfenced stables and the house), and fenced stables."""
    pastured = 0
    for p in pastures:
        pastured |= p
    caps = tuple(sorted(2 * p.bit_count() << (p & stables).bit_count() for p in pastures))
    flex = (stables & ~pastured).bit_count() + 1
    return pastured, caps, flex, (stables & pastured).bit_count()


@lru_cache(maxsize=1024)
def _majors(majors: tuple[int, ...]) -> tuple[
        int, tuple[int, ...], bool, bool, tuple[float, float], tuple[tuple[int, int, int], ...]]:
    """What the value reads of the majors owned: their points, food rates, whether a Cooking
    Hearth and a baking improvement are among them, the per-harvest worth of ovens (by
    harvests) and crafts (by harvests after the next), and each craft as (major, good, food)."""
    points = sum(MAJORS[m].points for m in majors)
    crafts = tuple((m, MAJORS[m].craft[0], MAJORS[m].craft[1])  # type: ignore[index]
                   for m in majors if MAJORS[m].craft is not None)
    ovens = sum(1 for m in majors if m in OVENS)
    return (points, _rates(majors), any(m in HEARTHS for m in majors),
            any(MAJORS[m].bake_food for m in majors),
            (OVEN_HARVEST * ovens, CRAFT_HARVEST * len(crafts)), crafts)


def _cooker(people: int, harvests: int) -> float:
    """What owning a Fireplace or Cooking Hearth is worth beyond the food it turns the goods
    held into now: the animals and vegetables still to come, by mouths and harvests."""
    return COOKER_VALUE + (COOKER_HARVEST + COOKER_SAVES * people) * harvests


def _resources(f: Farm, x: Ctx, rooms: int, people: int, person: float, cooker: bool,
               harvests: int) -> float:
    w, c, r, s = float(f.g[0]), float(f.g[1]), float(f.g[2]), float(f.g[3])
    out = 0.0
    # Rooms: the next two, each worth the growth it allows, its space and its material.
    if rooms < 5 and x.rl >= 1:
        cw, cc, cr, cs = ROOM_COST[f.mat]
        steps = min(w / cw if cw else 9.0, c / cc if cc else 9.0, s / cs if cs else 9.0,
                    r / cr, 2.0, 5 - rooms)
        for k in range(2):
            part = min(1.0, steps - k)
            if part <= 0:
                break
            empty = rooms + k + 1 - people
            gain = 1.0 + f.mat
            if people < 5 and empty in (1, 2):
                gain += GROWTH_ROOM[empty - 1] * person
            out += PROJECT * gain * part
        w -= cw * steps
        c -= cc * steps
        r -= cr * steps
        s -= cs * steps
    # A first cooking improvement: the cheapest on offer.
    if not cooker and harvests:
        offer = [MAJORS[m].cost[CLAY] for m in x.spare_majors if m in COOKERS]
        if offer:
            need = min(offer)
            part = min(1.0, c / need)
            out += PROJECT * (1 + _cooker(people, harvests)) * part
            c -= need * part
    # Renovation: a point a room (clay), or one more a room (stone).
    if f.mat < 2 and x.rl >= 1:
        good = CLAY if f.mat == 0 else STONE
        have = c if good == CLAY else s
        part = min(1.0, have / rooms, r)
        out += PROJECT * rooms * part
        if good == CLAY:
            c -= rooms * part
        else:
            s -= rooms * part
        r -= part
    # The rest, one by one: wood for fences and stables, the others for majors and more.
    fences_left = C.MAX_FENCES - f.fences.bit_count() + 2 * (4 - f.stables.bit_count())
    out += WOOD_FENCE * min(w, fences_left) + RES_SPARE[WOOD] * max(0.0, w - fences_left)
    out += RES_SPARE[CLAY] * c + RES_SPARE[REED] * r + RES_SPARE[STONE] * s
    return out


# --- changing the model -------------------------------------------------------------------------
def _pay(f: Farm, cost: tuple[int, int, int, int]) -> bool:
    g = f.g
    if g[0] < cost[0] or g[1] < cost[1] or g[2] < cost[2] or g[3] < cost[3]:
        return False
    g[0] -= cost[0]
    g[1] -= cost[1]
    g[2] -= cost[2]
    g[3] -= cost[3]
    return True


def _fit_animals(f: Farm) -> None:
    """Keep what fits of the herd, the dearest types first; cook the rest if possible."""
    caps, flex = f.caps()
    herd = list(f.herd())
    if _room_for(caps, flex, tuple(herd))[0] >= 0:
        return
    rates = _rates(f.majors)
    g = f.g
    for t in (SHEEP, BOAR, CATTLE):
        while herd[t - SHEEP] > 0 and _room_for(caps, flex, tuple(herd))[0] < 0:
            herd[t - SHEEP] -= 1
            g[t] -= 1
            g[FOOD] += rates[t]


def _build_pasture(f: Farm, mask: int) -> None:
    bnd = SHAPE_BOUNDARY[mask]
    f.g[WOOD] -= (bnd & ~f.fences).bit_count()
    f.fences |= bnd
    f.pastures = _pastures_of(f.fences)


def _build_major(f: Farm, x: Ctx, major: int, how: str) -> None:
    owned = set(f.majors)
    if how == "fireplace":
        back = next(m for m in FIREPLACES_DEAREST_FIRST if m in owned)
        owned.discard(back)
    else:
        _pay(f, MAJORS[major].cost)
    owned.add(major)
    f.majors = tuple(sorted(owned))
    if MAJORS[major].well_food:
        well = list(f.well)
        for rnd in range(x.round + 1, min(x.round + MAJORS[major].well_food, LAST_ROUND) + 1):
            well[rnd] += 1
        f.well = tuple(well)


def _bake(f: Farm, grain: int) -> None:
    f.g[GRAIN] -= grain
    f.g[FOOD] += _bakes(f.majors)[grain]


def _best_bake(f: Farm, x: Ctx) -> tuple[float, Farm]:
    """The best of not baking and each Bake Bread option."""
    best, best_f = value(f, x), f
    table = _bakes(f.majors)
    for n in range(1, min(f.g[GRAIN], len(table) - 1) + 1):
        h = f.copy()
        _bake(h, n)
        v = value(h, x)
        if v > best:
            best, best_f = v, h
    return best, best_f


def after(f: Farm, x: Ctx, action: dict[str, Any], space: int) -> Farm:
    """The farm after one sub-action (an engine action dict) of ``space``'s action."""
    typ = action["type"]
    h = f.copy()
    g = h.g
    if typ == "build_room":
        _pay(h, ROOM_COST[h.mat])
        h.rooms |= 1 << action["cell"]
    elif typ == "build_stable":
        g[WOOD] -= 1 if space == SIDE_JOB else 2
        h.stables |= 1 << action["cell"]
    elif typ == "plough":
        h.fields |= 1 << action["cell"]
    elif typ == "sow":
        sown = list(h.sown)
        if action["crop"] == "grain":
            g[GRAIN] -= 1
            sown[action["cell"]] = C.SOWN_GRAIN
        else:
            g[VEG] -= 1
            sown[action["cell"]] = -C.SOWN_VEGETABLE
        h.sown = tuple(sown)
    elif typ == "bake":
        _bake(h, action["grain"])
    elif typ == "pasture":
        _build_pasture(h, _mask(action["shape"]))
    elif typ == "build_major":
        _build_major(h, x, action["major"], action["pay"])
    elif typ == "renovate":
        _pay(h, C.renovation_cost(h.mat, h.rooms.bit_count()))
        h.mat += 1
    elif typ == "family_growth":
        h.people += 1
        h.newborns += 1
    elif typ == "keep":
        rates = _rates(h.majors)
        for t, name in zip(ANIMALS, ("sheep", "boar", "cattle"), strict=True):
            gone = g[t] - action[name]
            if gone > 0:
                g[FOOD] += gone * rates[t]
            g[t] = action[name]
    elif typ == "gain" and "good" in action:
        g[GOOD_INDEX[action["good"]]] += 1
    return h


# --- playing a whole space on the model ---------------------------------------------------------
def _part_options(f: Farm, x: Ctx, part: C.Part, space: int, done: int) -> list[Farm]:
    """The farms after each legal sub-action of ``part`` (an approximation of the engine's
    options, good enough to value a placement)."""
    kind = part.kind
    g = f.g
    out: list[Farm] = []
    if kind == C.BUILD_ROOMS:
        if not _pay(f.copy(), ROOM_COST[f.mat]):
            return out
        cell = _first(ROOM_ORDER, _neighbours(f.rooms) & f.empty())
        if cell >= 0:  # every room space is alike to the model: the layout's choice
            h = f.copy()
            _pay(h, ROOM_COST[h.mat])
            h.rooms |= 1 << cell
            out.append(h)
    elif kind == C.BUILD_STABLES:
        if (part.limit and done >= part.limit) or g[WOOD] < part.cost[0] \
                or f.stables.bit_count() >= C.MAX_STABLES:
            return out
        # One space outside the pastures, and one in each pasture: the rest are alike.
        spots = [_first(STABLE_ORDER, f.empty())]
        spots += [_first(STABLE_ORDER, p & ~f.stables) for p in f.pastures]
        for cell in spots:
            if cell < 0:
                continue
            h = f.copy()
            h.g[WOOD] -= part.cost[0]
            h.stables |= 1 << cell
            out.append(h)
    elif kind == C.PLOUGH:
        if done >= 1:
            return out
        ploughable = f.empty() if not f.fields else _neighbours(f.fields) & f.empty()
        cell = _first(FIELD_ORDER, ploughable)
        if cell >= 0:
            h = f.copy()
            h.fields |= 1 << cell
            out.append(h)
    elif kind == C.SOW:
        for cell in _cells(f.fields):
            if f.sown[cell]:
                continue
            for good, crop in ((GRAIN, "grain"), (VEG, "vegetable")):
                if g[good]:
                    out.append(after(f, x, {"type": "sow", "cell": cell, "crop": crop}, space))
            break  # every empty field is alike to the model
    elif kind == C.BAKE:
        if done >= 1:
            return out
        for n in range(1, min(g[GRAIN], len(_bakes(f.majors)) - 1) + 1):
            h = f.copy()
            _bake(h, n)
            out.append(h)
    elif kind == C.BUILD_FENCES:
        budget = min(g[WOOD], C.MAX_FENCES - f.fences.bit_count())
        moves = _moves(f.fences, f.pastures, f.rooms | f.fields, budget) if budget > 0 else ()
        for mask in _shortlist(f, moves):
            h = f.copy()
            _build_pasture(h, mask)
            _fit_animals(h)
            out.append(h)
    elif kind == C.BUILD_MAJOR:
        if done >= 1:
            return out
        fireplace = any(m in f.majors for m in C.FIREPLACES)
        for m in x.spare_majors:
            if m in f.majors:
                continue
            ways = []
            cost = MAJORS[m].cost
            if g[0] >= cost[0] and g[1] >= cost[1] and g[2] >= cost[2] and g[3] >= cost[3]:
                ways.append("goods")
            if MAJORS[m].or_return_fireplace and fireplace:
                ways.append("fireplace")
            for how in ways:
                h = f.copy()
                _build_major(h, x, m, how)
                if MAJORS[m].free_bake:
                    h = _best_bake(h, x)[1]
                out.append(h)
    elif kind == C.RENOVATE:
        if done or f.mat >= 2:
            return out
        h = f.copy()
        if _pay(h, C.renovation_cost(h.mat, h.rooms.bit_count())):
            h.mat += 1
            out.append(h)
    elif kind in (C.FAMILY_GROWTH, C.FAMILY_GROWTH_WITHOUT_ROOM):
        if done or f.people >= 5 or (kind == C.FAMILY_GROWTH and f.rooms.bit_count() <= f.people):
            return out
        h = f.copy()
        h.people += 1
        h.newborns += 1
        out.append(h)
    elif kind == C.TAKE_ALL:
        if done:
            return out
        h = f.copy()
        good, n = x.pile.get(space, (FOOD, 0))
        h.g[good] += n
        if good in ANIMALS:
            _fit_animals(h)
        out.append(h)
    elif kind == C.GAIN:
        if done:
            return out
        h = f.copy()
        for good, n in part.goods:
            h.g[good] += n
        out.append(h)
    elif kind == C.GAIN_ONE_OF:
        if done:
            return out
        for good, n in part.goods:
            h = f.copy()
            h.g[good] += n
            out.append(h)
    elif kind == C.STARTING_PLAYER:
        if done:
            return out
        h = f.copy()
        h.token = True
        out.append(h)
    elif kind in CARD_PARTS:
        if done:
            return out
        if kind == C.MAJOR_OR_MINOR:
            out += _part_options(f, x, BUILD_ONE_MAJOR, space, done)
        hand = x.hand_o if kind == C.OCCUPATION else x.hand_m
        for card in hand:
            h = _played(f, x, card, space)
            if h is not None:
                out.append(h)
    return out


def _first(order: tuple[int, ...], mask: int) -> int:
    """The first space of ``order`` in ``mask``, or -1."""
    for cell in order:
        if mask >> cell & 1:
            return cell
    return -1


def _cells(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


SHORTLIST = 12


def _shortlist(f: Farm, moves: tuple[tuple[int, int], ...]) -> list[int]:
    """The pastures most worth valuing: spaces newly fenced in, pasture count and capacity,
    against the fences they cost."""
    if len(moves) <= SHORTLIST:
        return [m for m, _ in moves]
    pastured = f.pastured()
    scored = []
    for mask, cost in moves:
        new = (mask & ~pastured).bit_count()
        scored.append((2.0 * new + (1.5 if len(f.pastures) < 4 else 0.0) - 0.6 * cost, mask))
    scored.sort(key=lambda t: -t[0])
    return [m for _, m in scored[:SHORTLIST]]


def _run_part(f: Farm, v: float, x: Ctx, part: C.Part, space: int, first: bool
              ) -> tuple[float, Farm]:
    """Carry out ``part`` greedily from farm ``f`` of value ``v``: each sub-action while it
    raises the value (the first one even if not, when ``first``: the space needs it). Returns
    (value, farm)."""
    cur, cur_v = f, v
    done = 0
    started = False
    single = part.kind in SINGLE_PARTS
    while True:
        opts = _part_options(cur, x, part, space, done)
        if not opts:
            break
        best_v, best = -1e18, 0
        for i, h in enumerate(opts):
            hv = value(h, x)
            if hv > best_v:
                best_v, best = hv, i
        if best_v <= cur_v and (started or not first):
            break
        cur, cur_v = opts[best], best_v
        done += 1
        started = True
        if single:
            break
    return cur_v, cur


#: Parts carried out once per action.
SINGLE_PARTS = frozenset({C.TAKE_ALL, C.GAIN, C.GAIN_ONE_OF, C.STARTING_PLAYER, C.BAKE,
                          C.RENOVATE, C.FAMILY_GROWTH, C.FAMILY_GROWTH_WITHOUT_ROOM,
                          C.OCCUPATION, C.MINOR_IMPROVEMENT, C.MAJOR_OR_MINOR})
#: Card mode's parts that play a card (one card each).
CARD_PARTS = frozenset({C.OCCUPATION, C.MINOR_IMPROVEMENT, C.MAJOR_OR_MINOR})


def space_value(f: Farm, x: Ctx, space: int) -> float:
    """The value after placing a person on ``space`` and carrying its parts out greedily."""
    sp = x.spaces[space]
    parts = sp.parts
    v = value(f, x)
    if sp.combine in (C.ONE, C.ALL):
        cur = f
        for part in parts:
            v, cur = _run_part(cur, v, x, part, space, True)
        return v
    if sp.combine == C.AND_THEN:
        v, cur = _run_part(f, v, x, parts[0], space, True)
        for part in parts[1:]:
            v, cur = _run_part(cur, v, x, part, space, False)
        return v
    # "And/or": the card's order (rooms before stables, ploughing before sowing, sowing before
    # baking) is the better one for the model; each part only while it helps, and the first
    # part after all if neither does (a person placed must do something).
    v0 = v
    v1, cur = _run_part(f, v0, x, parts[0], space, False)
    v2, last = _run_part(cur, v1, x, parts[1], space, cur is f)
    if last is f:
        v2, _ = _run_part(f, v0, x, parts[0], space, True)
    return v2


# --- card mode ----------------------------------------------------------------------------------
# What a card is worth comes from agricola_cards.py; here it meets the farm model: a card
# played is its cost paid and its worth added (Farm.cards), so the value of playing it is
# comparable with every other choice of the decision.
def _counts(f: Farm, x: Ctx) -> dict[Count, int]:
    """What card prerequisites count, on the model."""
    _, _, grain_fields, veg_fields = _crops(f.sown)
    used = f.rooms | f.fields | f.stables | f.pastured()
    return {Count.OCCUPATIONS: f.occupations, Count.GRAIN_FIELDS: grain_fields,
            Count.VEGETABLE_FIELDS: veg_fields, Count.SHEEP: f.g[SHEEP], Count.CLAY: f.g[CLAY],
            Count.HOUSE_MATERIAL: f.mat, Count.UNUSED_SPACES: 15 - used.bit_count(),
            Count.PEOPLE_ON_FISHING: int(x.on_fishing)}


def _played(f: Farm, x: Ctx, card: str, space: int,
            convert: list[int] | None = None) -> Farm | None:
    """The farm after playing ``card`` on ``space`` (a Lessons space prices an occupation;
    elsewhere an occupation costs 1 food), raising missing food with ``convert``
    ([grain, vegetable, sheep, boar, cattle] as the engine's action says) or, without it, from
    raw crops. None when the model cannot pay or the prerequisite fails."""
    if not cards.prerequisite_met(card, _counts(f, x)):
        return None
    h = f.copy()
    g = h.g
    if cards.is_occupation(card):
        price = {"food": lessons_cost(space, f.occupations) if space in LESSONS_SPACES else 1}
        h.occupations += 1
    else:
        price = cards.cost(card, f.people)
    if convert:
        rates = _rates(h.majors)
        for good, n in zip((GRAIN, VEG, SHEEP, BOAR, CATTLE), convert, strict=True):
            g[good] -= n
            g[FOOD] += n * (1 if good == GRAIN else max(1, rates[good]))
    for name, n in price.items():
        good = GOOD_INDEX[name]
        if good == FOOD and convert is None:
            for crop in (GRAIN, VEG):  # raw crops pay a missing food, 1 each
                raised = min(g[crop], max(0, n - g[FOOD]))
                g[crop] -= raised
                g[FOOD] += raised
        if g[good] < n:
            return None
        g[good] -= n
    h.cards += cards.worth(card, x.rl)
    return h


def _used(f: Farm, x: Ctx, a: dict[str, Any], space: int) -> float:
    """The value of an optional card clause used (``use_card``) or a choice inside a card
    (``card_choice``): the goods it changes on the model, a field or a stable where the action
    names a cell, a good where the choice names one."""
    card = a["card"]
    if card in cards.ANYTIME:
        return -1e6  # any-time conversions: never
    h = f.copy()
    g = h.g
    extra = cards.USE_GAIN if card not in cards.USE else 0.0
    for name, n in cards.USE.get(card, {}).items():
        if name == "per_person":
            g[GOOD_INDEX[n]] += h.people
        elif name == "per_room":
            g[GOOD_INDEX[n]] += h.rooms.bit_count()
        elif name == "per_occupation":
            g[GOOD_INDEX[n]] += h.occupations
        else:
            g[GOOD_INDEX[name]] += n
    if min(g) < 0:
        return -1e6
    choice = a.get("choice", a.get("get"))
    if isinstance(choice, str) and choice in GOOD_INDEX:
        g[GOOD_INDEX[choice]] += 1
        if GOOD_INDEX[choice] in ANIMALS:
            _fit_animals(h)
    cell = a.get("cell", choice if isinstance(choice, int) else None)
    if isinstance(cell, int) and "to" not in a:
        if card in ("B016", "B089"):  # a stable
            h.stables |= 1 << cell
        else:  # a field
            h.fields |= 1 << cell
            extra += TIE["plough"][cell]
    return value(h, x) + extra


def _card_action_value(f: Farm, x: Ctx, a: dict[str, Any], space: int) -> float | None:
    """The value of a card-mode action, or None for an action that is not about a card."""
    typ = a["type"]
    if typ in ("play_occupation", "play_minor"):
        h = _played(f, x, a["card"], space, a.get("convert") or [])
        # Each good converted costs a little more: no conversion first, then the cheapest.
        return -1e6 if h is None else value(h, x) - 0.01 * sum(a.get("convert") or [])
    if typ in ("use_card", "card_choice"):
        return _used(f, x, a, space)
    if typ == "decline":
        return value(f, x)
    if typ == "draft":
        return cards.worth(a["card"], LAST_ROUND - 1) - 0.3 * sum(
            cards.cost(a["card"], 2).values())
    return None


# --- decisions ----------------------------------------------------------------------------------
def _scores(obs: dict[str, Any], legal: list[dict[str, Any]]) -> list[float]:
    """A value per legal action: the higher the better."""
    seat = obs["seat"]
    dec = obs["decision"]
    if dec["kind"] == "card":  # a card's question: valued in the position it interrupted
        dec = dec["under"] or {"kind": "breed"}
    kind = dec["kind"]
    me = obs["players"][seat]
    f = _farm_of(me, seat, obs["board"], obs.get("cards"))
    if kind == "draft":
        return [_card_action_value(f, Ctx(obs, 0, kind), a, -1) or 0.0 for a in legal]
    if kind == "place":
        x = Ctx(obs, me["people_to_place"] - 1, kind)
        out = []
        for a in legal:
            if a["type"] != "place":  # a card's decision before the placement
                out.append(_card_action_value(f, x, a, -1) or 0.0)
                continue
            space = a["space"]
            x.cover = x.cover_without(space)
            out.append(space_value(f, x, space))
        return out
    x = Ctx(obs, me["people_to_place"], kind)
    if kind in ("feed", "breed"):
        out = []
        for a in legal:
            card_value = _card_action_value(f, x, a, -1)
            if card_value is not None:
                out.append(card_value)
            elif kind == "feed":
                out.append(value(_fed(f, a, dec["food_needed"]), x))
            else:
                out.append(value(after(f, x, a, -1), x))
        return out
    space = dec["space"]
    out = []
    for a in legal:
        typ = a["type"]
        card_value = _card_action_value(f, x, a, space)
        if card_value is not None:
            out.append(card_value)
        elif typ == "stop":
            out.append(value(f, x))
        elif typ == "pasture_from":
            out.append(_fence_from_value(f, x, a["cell"]))
        elif typ == "build_major" and MAJORS[a["major"]].free_bake:
            out.append(_best_bake(after(f, x, a, space), x)[0])
        elif typ == "pasture":
            h = after(f, x, a, space)
            _fit_animals(h)
            out.append(value(h, x))
        else:
            v = value(after(f, x, a, space), x)
            tie = TIE.get(typ)
            out.append(v if tie is None else v + tie[a["cell"]])
    return out


def _fence_from_value(f: Farm, x: Ctx, cell: int) -> float:
    budget = min(f.g[WOOD], C.MAX_FENCES - f.fences.bit_count())
    low = 1 << cell
    moves = tuple((m, c) for m, c in _moves(f.fences, f.pastures, f.rooms | f.fields, budget)
                  if m & -m == low)
    best = -1e9
    for mask in _shortlist(f, moves):
        h = f.copy()
        _build_pasture(h, mask)
        _fit_animals(h)
        best = max(best, value(h, x))
    return best


def _fed(f: Farm, a: dict[str, Any], need: int) -> Farm:
    """The farm after a feeding option."""
    h = f.copy()
    g = h.g
    rates = _rates(h.majors)
    raised = g[FOOD] + a["grain"] + a["vegetable"] + a["cook_vegetable"] * rates[VEG]
    g[GRAIN] -= a["grain"]
    g[VEG] -= a["vegetable"] + a["cook_vegetable"]
    for t, name in zip(ANIMALS, ("sheep", "boar", "cattle"), strict=True):
        g[t] -= a[name]
        raised += a[name] * rates[t]
    for m in a["crafts"]:
        good, food = CRAFT[m]
        g[good] -= 1
        raised += food
    g[FOOD] = max(0, raised - need)
    h.begging += a["begging"]
    return h


def estimate(observation: dict) -> float:
    """The observing seat's final score as this policy expects it: the value of its farm (the
    rounds after this one included), the actions of the people it has still to place this
    round, and the cards it has played (their printed points and their ongoing effect by the
    rounds left). Not used by this bot; the search bot cuts long rollouts short with it."""
    seat = observation["seat"]
    me = observation["players"][seat]
    decision = observation["decision"] or {}
    hands = observation.get("cards")
    x = Ctx(observation, me["people_to_place"], decision.get("kind", "place"))
    pts = value(_farm_of(me, seat, observation["board"], hands), x)
    pts += ACTION * me["people_to_place"]
    if hands:
        played = hands["players"][seat]
        for card in (*played["occupations"], *played["minors"]):
            pts += cards.CARDS[card].points + cards.WORTH.get(card, cards.UNKNOWN)[1] * x.rl
    return pts


def preferences(observation: dict, legal_actions: list[dict], components: dict) -> list[int]:
    """Every legal index, best first by this policy's values; ``choose`` is the first."""
    scores = _scores(observation, legal_actions)
    return sorted(range(len(legal_actions)), key=lambda i: (-scores[i], i))


def choose(observation: dict, legal_actions: list[dict], components: dict) -> int:
    """The index of the chosen action in ``legal_actions`` (the best value; the first of
    equals). ``components`` is the game's static tables as ``game_start`` sends them; this
    policy reads the same tables from the engine it runs beside."""
    if len(legal_actions) == 1:
        return 0
    scores = _scores(observation, legal_actions)
    best = 0
    for i in range(1, len(scores)):
        if scores[i] > scores[best]:
            best = i
    return best
