"""Food and the harvest as pure functions: cooking rates, baking, crafts, feeding, the field
phase and breeding (ref A7 "Food conversion", "Bake Bread"; ref A8 majors, "Harvest"; seed 収穫,
食料関係の説明).

Inputs are plain values: a player's goods are a 10-tuple in the numbering of
:mod:`~arena.engine.agricola.components` (WOOD..CATTLE), the majors owned any collection of
major ids (a tuple or frozenset), and the farm a :class:`~arena.engine.agricola.farm.Farm`,
never changed in place. Every function returns new tuples; the option lists are deterministic
in content and order. Rulings are in ``RULES.md`` ("Rulings: food and harvest").
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from functools import lru_cache
from itertools import combinations, product
from typing import Any, Final, NamedTuple

from arena.engine.agricola.components import (
    ANIMALS,
    BAKERS,
    BOAR,
    CATTLE,
    CRAFTS,
    FOOD,
    FOOD_PER_NEWBORN,
    FOOD_PER_NEWBORN_SOLO,
    FOOD_PER_PERSON,
    FOOD_PER_PERSON_SOLO,
    GOODS,
    GRAIN,
    MAJORS,
    MAX_PEOPLE,
    RAW_FOOD,
    SHEEP,
    VEGETABLE,
)
from arena.engine.agricola.farm import Farm

Goods = tuple[int, ...]
NUM_GOODS: Final = len(GOODS)

#: The goods that feeding may turn into food, in the order the options list them.
FEED_SOURCES: Final = (GRAIN, VEGETABLE, SHEEP, BOAR, CATTLE)
#: What a begging option may hold back of each of :data:`FEED_SOURCES` short of all of it: one
#: crop to sow again, a pair of animals to breed (ruling F4).
RESERVE: Final = (1, 1, 2, 2, 2)


def _check_goods(goods: Goods) -> None:
    if len(goods) != NUM_GOODS or any(n < 0 for n in goods):
        raise ValueError(f"goods must be {NUM_GOODS} counts >= 0, not {goods}")


def _check_majors(majors: Collection[int]) -> None:
    if any(not 0 <= m < len(MAJORS) for m in majors):
        raise ValueError(f"unknown major in {sorted(majors)}")


def _add(goods: Goods, good: int, amount: int) -> Goods:
    out = list(goods)
    out[good] += amount
    return tuple(out)


# --- cooking ------------------------------------------------------------------------------------


def can_cook(majors: Collection[int]) -> bool:
    """Whether the player owns a Fireplace or a Cooking Hearth (animals can become food)."""
    return any(MAJORS[m].cook for m in majors)


def food_values(majors: Collection[int]) -> Goods:
    """Food per unit of each good, by goods index, at the best rate the majors allow outside
    baking: grain 1 and vegetables 1 raw (or 2/3 cooked), sheep/boar/cattle by the best
    Fireplace or Cooking Hearth owned, 0 for what cannot become food that way. Kept per
    tuple of majors (the rates are read at every payment and harvest)."""
    known = _VALUES.get(majors) if type(majors) is tuple else None
    if known is not None:
        return known
    _check_majors(majors)
    values = [0] * NUM_GOODS
    for good, food in RAW_FOOD:
        values[good] = food
    for m in majors:
        for good, food in MAJORS[m].cook:
            values[good] = max(values[good], food)
    out = tuple(values)
    if type(majors) is tuple and len(_VALUES) < _MAX_VALUES:
        _VALUES[majors] = out
    return out


#: :func:`food_values` by tuple of majors, and how many it keeps at most (a tuple of the
#: majors a player owns: a few hundred at the very most).
_VALUES: dict[tuple[int, ...], Goods] = {}
_MAX_VALUES: Final = 4096


# --- baking -------------------------------------------------------------------------------------


class BakeOption(NamedTuple):
    """One way to use a Bake Bread action: ``uses`` as (major, grain) pairs, best rate first;
    ``grain`` baked in all and the ``food`` it gives."""

    uses: tuple[tuple[int, int], ...]
    grain: int
    food: int

    def action(self) -> dict[str, Any]:
        return {"type": "bake", "grain": self.grain,
                "uses": [[m, n] for m, n in self.uses]}


def bake_options(grain: int, majors: Collection[int]) -> list[BakeOption]:
    """The non-dominated ways to use one Bake Bread action with ``grain`` in the supply: one
    per number of grain baked (1, 2, ...), each through the best improvements (ruling F1).

    Each baking improvement fires at most once: a Fireplace or Cooking Hearth any number of
    grain (2 or 3 food each), the Clay Oven exactly 1 (5 food), the Stone Oven up to 2 (4 food
    each). Baking more grain always gives more food, so no option dominates another; the list
    is at most ``grain`` long. Empty when nothing can be baked (not baking is the caller's
    ``stop``)."""
    _check_majors(majors)
    if grain < 0:
        raise ValueError("grain must be >= 0")
    # Best rate first; identical improvements (two Fireplaces) by lowest id.
    bakers = sorted((m for m in set(majors) if m in BAKERS),
                    key=lambda m: (-MAJORS[m].bake_food, m))
    out: list[BakeOption] = []
    for total in range(1, grain + 1):
        left, uses, food = total, [], 0
        for m in bakers:
            limit = MAJORS[m].bake_limit or left
            n = min(left, limit)
            if n:
                uses.append((m, n))
                food += n * MAJORS[m].bake_food
                left -= n
        if left:
            break  # the improvements owned cannot take this much grain
        out.append(BakeOption(tuple(uses), total, food))
    return out


def bake(goods: Goods, option: BakeOption) -> Goods:
    """The goods after ``option``: its grain spent, its food gained."""
    _check_goods(goods)
    if goods[GRAIN] < option.grain:
        raise ValueError("not enough grain to bake")
    return _add(_add(goods, GRAIN, -option.grain), FOOD, option.food)


# --- crafts -------------------------------------------------------------------------------------


def craft_conversions(goods: Goods, majors: Collection[int]) -> tuple[tuple[int, int, int], ...]:
    """The harvest crafts the player can use now, as (major, good, food), by major id: Joinery
    1 wood → 2, Pottery 1 clay → 2, Basketmaker's Workshop 1 reed → 3; each once per harvest,
    only with at least one of its good."""
    _check_majors(majors)
    out = []
    for m in sorted(set(majors)):
        craft = MAJORS[m].craft
        if m in CRAFTS and craft is not None and goods[craft[0]] >= 1:
            out.append((m, craft[0], craft[1]))
    return tuple(out)


# --- feeding ------------------------------------------------------------------------------------


def food_needed(people: int, newborns: int = 0, solo: bool = False) -> int:
    """Food the family eats at a harvest: 2 per person (3 in the solo game), 1 per newborn
    (a person born in this round). ``people`` counts everyone, newborns included."""
    if not 0 <= newborns <= people <= MAX_PEOPLE:
        raise ValueError(f"impossible family: {people} people, {newborns} newborns")
    adult = FOOD_PER_PERSON_SOLO if solo else FOOD_PER_PERSON
    child = FOOD_PER_NEWBORN_SOLO if solo else FOOD_PER_NEWBORN
    return adult * (people - newborns) + child * newborns


class FeedOption(NamedTuple):
    """One way to feed the family: ``convert`` the amount of each of :data:`FEED_SOURCES`
    turned into food (vegetables cooked when the player can cook), ``crafts`` the crafts
    used, ``begging`` markers taken, ``goods`` what is left (food over the need included)."""

    convert: tuple[int, int, int, int, int]
    crafts: tuple[int, ...]
    begging: int
    goods: Goods
    cooked_vegetables: bool

    def action(self) -> dict[str, Any]:
        return {k: list(v) if k == "crafts" else v for k, v in self.key()}

    def key(self) -> tuple[tuple[str, Any], ...]:
        """The action's hashable key, its (name, value) pairs in order with the crafts as a
        tuple: what freezing :meth:`action` gives, built directly (every harvest lists
        several)."""
        g, v, s, b, c = self.convert
        cooked = self.cooked_vegetables
        return (("type", "feed"), ("grain", g), ("vegetable", 0 if cooked else v),
                ("cook_vegetable", v if cooked else 0), ("sheep", s), ("boar", b),
                ("cattle", c), ("crafts", self.crafts), ("begging", self.begging))


def _covers(avail: tuple[int, ...], rates: tuple[int, ...], need: int,
            i: int = 0) -> Iterator[tuple[int, ...]]:
    """Every minimal way to raise at least ``need`` food from ``avail`` at ``rates``: taking
    any one unit away would leave less than ``need`` (ruling F2)."""
    if need <= 0:
        yield (0,) * (len(avail) - i)
        return
    if i == len(avail):
        return
    rate = rates[i]
    top = min(avail[i], -(-need // rate)) if rate else 0
    for n in range(top + 1):
        for rest in _covers(avail, rates, need - n * rate, i + 1):
            yield (n, *rest)


def _minimal(x: tuple[int, ...], rates: tuple[int, ...], need: int) -> bool:
    value = sum(n * r for n, r in zip(x, rates, strict=True))
    smallest = min((r for n, r in zip(x, rates, strict=True) if n), default=0)
    return value >= need and ((need <= 0 and not any(x)) or value - smallest < need)


def _protections(avail: tuple[int, ...], rates: tuple[int, ...]
                 ) -> list[tuple[tuple[int, ...], int]]:
    """What a begging option may hold back of each source (nothing, the reserve, or all), with
    the food the rest would give, as (rest, food) pairs."""
    levels = [sorted({0, a, min(a, r)}) for r, a in zip(RESERVE, avail, strict=True)]
    out = []
    for keep in product(*levels):
        rest = tuple(a - k for a, k in zip(avail, keep, strict=True))
        out.append((rest, sum(n * r for n, r in zip(rest, rates, strict=True))))
    return out


def feeding_options(goods: Goods, majors: Collection[int], need: int) -> list[FeedOption]:
    """The ways to pay ``need`` food at a harvest (rulings F2–F5).

    Food in the supply pays first. The rest comes from grain (1 each), vegetables (1 raw, or
    2/3 cooked with a Fireplace/Hearth: cooked whenever possible, which dominates), cooked
    animals, the crafts (each once, used or not at the player's choice) and begging markers
    for what is still missing. Offered: every craft subset with every *minimal* conversion of
    the rest (nothing converted beyond the need), and begging options that hold back whole
    goods or a reserve (1 crop, 2 animals) and convert the rest. Sorted by begging, then
    crafts, then amounts converted; no two options convert the same goods."""
    _check_goods(goods)
    if need < 0:
        raise ValueError("need must be >= 0")
    values = food_values(majors)
    cooked = can_cook(majors)
    rates = tuple(values[t] for t in FEED_SOURCES)
    avail = tuple(goods[t] if values[t] else 0 for t in FEED_SOURCES)
    short = max(0, need - goods[FOOD])
    crafts = craft_conversions(goods, majors)
    out: list[FeedOption] = []
    for k in range(len(crafts) + 1):
        for used in combinations(crafts, k):
            ids = tuple(m for m, _, _ in used)
            raised = goods[FOOD]  # the food in supply and from the crafts used
            after = list(goods)
            for _, good, food in used:
                after[good] -= 1
                raised += food
            rem = short - (raised - goods[FOOD])
            for x, value in _conversions(avail, rates, rem):
                left = after[:]
                for t, n in zip(FEED_SOURCES, x, strict=True):
                    left[t] -= n
                left[FOOD] = max(0, raised + value - need)
                out.append(FeedOption((x[0], x[1], x[2], x[3], x[4]), ids, max(0, rem - value),
                                      tuple(left), cooked and x[1] > 0))
    return sorted(out, key=lambda o: (o.begging, o.crafts, o.convert))


@lru_cache(maxsize=1 << 12)
def _conversions(avail: tuple[int, ...], rates: tuple[int, ...], rem: int
                 ) -> tuple[tuple[tuple[int, ...], int], ...]:
    """The amounts of :data:`FEED_SOURCES` offered for converting when ``rem`` food is still
    missing after the supply and the crafts, each once, with the food they give: everything
    when that is not enough, else every minimal cover; and while food is missing, the begging
    options that hold goods back (:func:`_protections`). Kept for reuse (the same goods recur
    at every harvest); the answer is shared, so it is a tuple."""
    found: dict[tuple[int, ...], int] = {}
    total = sum(a * r for a, r in zip(avail, rates, strict=True))
    if total < rem:
        found[avail] = total  # not enough: convert everything, beg the rest
    else:
        for x in _covers(avail, rates, rem):
            if _minimal(x, rates, rem):
                found[x] = sum(n * r for n, r in zip(x, rates, strict=True))
    if rem > 0:
        for rest, food in _protections(avail, rates):
            if food < rem:
                found.setdefault(rest, food)
    return tuple(found.items())


def food_covers(goods: Goods, majors: Collection[int], need: int
                ) -> list[tuple[tuple[int, ...], Goods]]:
    """Card mode's ways to raise ``need`` food for a payment (ruling C5): the food in the
    supply pays first; what is missing comes from the any-time conversions alone (raw grain,
    vegetables raw or cooked, cooked animals; no baking, no crafts), each a *minimal* cover of
    :data:`FEED_SOURCES` amounts as feeding's ruling F2 gives them, and no begging. Returns
    (amounts converted, goods after paying), amounts () when the supply pays; [] when even
    converting everything falls short."""
    short = need - goods[FOOD]
    if short <= 0:
        return [((), _add(goods, FOOD, -need))]
    values = food_values(majors)
    rates = tuple(values[t] for t in FEED_SOURCES)
    avail = tuple(goods[t] if values[t] else 0 for t in FEED_SOURCES)
    out = []
    for x, food in _conversions(avail, rates, short):
        if food >= short:
            left = list(goods)
            for t, n in zip(FEED_SOURCES, x, strict=True):
                left[t] -= n
            left[FOOD] = goods[FOOD] + food - need
            out.append((x, tuple(left)))
    return sorted(out)


def food_value(goods: Goods, majors: Collection[int]) -> int:
    """The food ``goods`` could give at once: the supply and every any-time conversion."""
    v = food_values(majors)
    return (goods[FOOD] + goods[GRAIN] * v[GRAIN] + goods[VEGETABLE] * v[VEGETABLE]
            + goods[SHEEP] * v[SHEEP] + goods[BOAR] * v[BOAR] + goods[CATTLE] * v[CATTLE])


def feed(goods: Goods, majors: Collection[int], need: int,
         action: dict[str, Any]) -> tuple[Goods, int]:
    """Apply a feeding action (the dict of :meth:`FeedOption.action`): the goods left and the
    begging markers taken. Raises ValueError unless the action is one of
    :func:`feeding_options`."""
    for option in feeding_options(goods, majors, need):
        if option.action() == action:
            return option.goods, option.begging
    raise ValueError(f"not a legal way to feed: {action}")


# --- the harvest: fields and breeding -----------------------------------------------------------


def field_phase(farm: Farm, goods: Goods) -> tuple[Farm, Goods]:
    """The harvest's field phase: exactly one crop from every sown field into the supply.
    Returns a new farm and the new goods; ``farm`` is not changed."""
    _check_goods(goods)
    after = farm.copy()
    grain, veg = after.harvest()
    return after, _add(_add(goods, GRAIN, grain), VEGETABLE, veg)


def births(goods: Goods) -> tuple[int, int, int]:
    """The newborn (sheep, boar, cattle) of the breeding phase: one of each type the player
    has at least two of (not one per pair)."""
    s, b, c = (1 if goods[t] >= 2 else 0 for t in ANIMALS)
    return s, b, c


class BreedOption(NamedTuple):
    """One outcome of the breeding phase: ``keep`` the (sheep, boar, cattle) on the farm after
    it, ``cooked`` the animals cooked just before breeding to make room (ruling F7), ``food``
    they gave, ``released`` the animals (newborns or parents) let go, ``goods`` the result."""

    keep: tuple[int, int, int]
    cooked: tuple[int, int, int]
    food: int
    released: tuple[int, int, int]
    goods: Goods

    def action(self) -> dict[str, Any]:
        s, b, c = self.keep
        return {"type": "keep", "sheep": s, "boar": b, "cattle": c}


def breeding_options(goods: Goods, majors: Collection[int], farm: Farm) -> list[BreedOption]:
    """The outcomes of the breeding phase (rulings F6, F7): a single option when every newborn
    can be housed; otherwise one per maximal (sheep, boar, cattle) the farm can hold with the
    newborns (``Farm.keep_options``), sorted. A parent or newborn that is not kept is cooked
    just before breeding where that leaves the same herd (with a Fireplace/Hearth), else
    released. The animals before breeding must fit."""
    _check_goods(goods)
    herd = tuple(goods[t] for t in ANIMALS)
    if not farm.fits(*herd):
        raise ValueError(f"the animals {herd} do not fit before breeding")
    born = births(goods)
    values = food_values(majors)
    total = tuple(n + b for n, b in zip(herd, born, strict=True))
    if farm.fits(*total):  # every newborn has room: one outcome, nothing cooked or released
        after = list(goods)
        for t, n in zip(ANIMALS, total, strict=True):
            after[t] = n
        return [BreedOption((total[0], total[1], total[2]), (0, 0, 0), 0, (0, 0, 0),
                            tuple(after))]
    out = []
    for keep in farm.keep_options(*total):
        cooked = []
        for n, b, f, t in zip(herd, born, keep, ANIMALS, strict=True):
            # With the newborn: cook parents down to keep - 1 (still a pair, so it breeds).
            k = n + b - f if b and f >= 3 else max(0, n - f)
            cooked.append(k if values[t] else 0)
        food = sum(k * values[t] for k, t in zip(cooked, ANIMALS, strict=True))
        released = tuple(n + b - f - k for n, b, f, k in zip(herd, born, keep, cooked,
                                                                strict=True))
        after = list(goods)
        for t, f in zip(ANIMALS, keep, strict=True):
            after[t] = f
        after[FOOD] += food
        out.append(BreedOption(
            keep, (cooked[0], cooked[1], cooked[2]), food,
            (released[0], released[1], released[2]), tuple(after)))
    return out


__all__ = [
    "FEED_SOURCES", "RESERVE", "BakeOption", "BreedOption",
    "FeedOption", "bake", "bake_options", "births", "breeding_options", "can_cook",
    "craft_conversions", "feed", "feeding_options", "field_phase", "food_needed",
    "food_values",
]
