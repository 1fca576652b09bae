"""The shared board of an Agricola game: action spaces in play, stage cards, accumulated goods,
occupied spaces, the majors not yet built, the Well's promised food, the round and the starting
player (ref A2 set-up and round structure, A3-A5 spaces, A4 stage cards, A8 the Well).

:class:`Board` is small and cheap to copy: ints and immutable tuples, shared by copies. Its
methods change it in place and check their move first (``ValueError``, nothing changed); the
module functions :func:`new_board`, :func:`prepare_round`, :func:`determinize` and
:func:`from_observation` build or advance one. Chance comes only from the injected
:class:`~arena.engine.chance.Chance` (set-up) or the caller's ``random.Random`` (determinizing).
Rulings are in ``RULES.md`` ("Rulings: the board").
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Final

from arena.engine.agricola.components import (
    BOARD_SPACES,
    FIREPLACES,
    GOODS,
    HARVEST_ROUNDS,
    MAJORS,
    NUM_PLAYERS_MAX,
    NUM_PLAYERS_MIN,
    NUM_ROUNDS,
    SPACES,
    STAGE_CARDS,
    STAGE_ROUNDS,
    accumulation,
    stage_of_round,
)
from arena.engine.chance import Chance

#: The first part of a stage shuffle's event key: ``("stage", s)`` for stage s = 1..6. Keyed by
#: stage only, never by seat, so every seat rotation of a seed deals the same card each round.
STAGE_EVENT: Final = "stage"
#: How many round spaces after the current one a Well puts food on (1 food each).
WELL_ROUNDS: Final = MAJORS[-1].well_food
NUM_SPACES: Final = len(SPACES)
ALL_MAJORS: Final = (1 << len(MAJORS)) - 1
FREE: Final = -1
DEAD: Final = tuple(s.dead for s in SPACES)
#: The stage (1..6) whose cards round r (index r) reveals; index 0 unused.
_ROUND_STAGE: Final = (0, *(stage_of_round(r) for r in range(1, NUM_ROUNDS + 1)))


def _pile_goods(players: int) -> tuple[int, ...]:
    """The good each space accumulates with ``players`` players (-1: none) and a check that no
    space accumulates two goods (a pile is one count)."""
    out = []
    for i in range(NUM_SPACES):
        acc = accumulation(i, players)
        if len(acc) > 1:  # pragma: no cover - the component tables have none
            raise ValueError(f"space {SPACES[i].key} accumulates two goods")
        out.append(acc[0][0] if acc else -1)
    return tuple(out)


def _pile_amounts(players: int) -> tuple[int, ...]:
    return tuple(a[0][1] if (a := accumulation(i, players)) else 0 for i in range(NUM_SPACES))


#: By player count (index 0 unused): the good each space piles up, and how many a round.
PILE_GOOD: Final = tuple(_pile_goods(n) if n else () for n in range(NUM_PLAYERS_MAX + 1))
PILE_ADD: Final = tuple(_pile_amounts(n) if n else () for n in range(NUM_PLAYERS_MAX + 1))


class Board:
    """The shared board. ``players``, ``round`` (0 before round 1's preparation, then 1..14)
    and ``start_player`` are plain attributes; the rest is read through methods."""

    __slots__ = ("_free", "_majors", "_occupants", "_order", "_piles", "_spaces", "_well",
                 "players", "round", "start_player")

    players: int
    round: int
    start_player: int
    _order: tuple[int, ...]  # the stage card of round r at index r - 1 (hidden beyond round)
    _spaces: tuple[int, ...]  # the printed spaces, then the revealed cards in round order
    _piles: tuple[int, ...]  # by space id: how many of the space's good lie on it
    _occupants: tuple[int, ...]  # by space id: the seat standing there this round, or FREE
    _free: int  # bit s: space s may take a person now (in play, not dead, nobody on it)
    _majors: int  # bit m: major m is on the board (not built, or a Fireplace given back)
    _well: tuple[tuple[int, ...], ...]  # by round 0..14: food promised per seat

    #: The tables of the game mode (card mode's board, :mod:`.cards.spaces`, replaces them):
    #: by player count, the good each space piles up and how many a round, and the printed
    #: spaces; by space, whether it is dead.
    PILE_GOOD: tuple[tuple[int, ...], ...] = PILE_GOOD
    PILE_ADD: tuple[tuple[int, ...], ...] = PILE_ADD
    PRINTED: tuple[tuple[int, ...], ...] = BOARD_SPACES
    DEAD: tuple[bool, ...] = DEAD

    def copy(self) -> Board:
        """An independent copy (every field is an int or an immutable tuple, so shared)."""
        cls = self.__class__
        b = cls.__new__(cls)
        b.players = self.players
        b.round = self.round
        b.start_player = self.start_player
        b._order = self._order
        b._spaces = self._spaces
        b._piles = self._piles
        b._occupants = self._occupants
        b._free = self._free
        b._majors = self._majors
        b._well = self._well
        return b

    def _key(self) -> tuple[Any, ...]:
        return (self.players, self.round, self.start_player, self._order, self._piles,
                self._occupants, self._majors, self._well)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Board({self.to_dict()!r})"

    # --- rounds -------------------------------------------------------------------------------

    @property
    def stage(self) -> int:
        """The current round's stage (1..6); 0 before round 1."""
        return _ROUND_STAGE[self.round]

    def harvest_due(self) -> bool:
        """Whether a harvest follows the current round (rounds 4, 7, 9, 11, 13, 14)."""
        return self.round in HARVEST_ROUNDS

    def last_round(self) -> bool:
        return self.round == NUM_ROUNDS

    # --- spaces -------------------------------------------------------------------------------

    def spaces(self) -> tuple[int, ...]:
        """Every space in play: the printed ones for the player count (Lessons included), then
        the revealed stage cards in round order."""
        return self._spaces

    def revealed(self) -> tuple[int, ...]:
        """The stage cards revealed so far; index r - 1 is round r's."""
        return self._order[: self.round]

    def card_of_round(self, rnd: int) -> int:
        """The stage card on round space ``rnd``, once revealed (ValueError before)."""
        if not 1 <= rnd <= self.round:
            raise ValueError(f"round {rnd}'s card is not revealed (round {self.round})")
        return self._order[rnd - 1]

    def hidden_cards(self) -> tuple[int, ...]:
        """The stage cards not revealed yet, sorted: which ones is public, not their order."""
        return tuple(sorted(self._order[self.round :]))

    def occupant(self, space: int) -> int:
        """The seat standing on ``space`` this round, or :data:`FREE`."""
        return self._occupants[space]

    def occupied(self) -> tuple[tuple[int, int], ...]:
        """(space, seat) for every occupied space, by space id."""
        return tuple((s, p) for s, p in enumerate(self._occupants) if p != FREE)

    def is_free(self, space: int) -> bool:
        """Whether a person may be placed on ``space``: in play, not dead, nobody on it."""
        return 0 <= space < NUM_SPACES and bool(self._free >> space & 1)

    def free_mask(self) -> int:
        """:meth:`free_spaces` as a mask of space ids (bit s: space s)."""
        return self._free

    def free_spaces(self) -> tuple[int, ...]:
        """The spaces a person may be placed on this round, in :meth:`spaces` order (whether the
        player can carry out one of its parts is the state's question)."""
        occ = self._occupants
        dead = self.DEAD
        return tuple([s for s in self._spaces if occ[s] == FREE and not dead[s]])

    def occupy(self, space: int, seat: int) -> None:
        """Put ``seat``'s person on ``space``; ValueError unless the space is free."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} in a {self.players}-player game")
        if not 0 <= space < NUM_SPACES or not self._free >> space & 1:  # not is_free(space)
            raise ValueError(f"space {space} is not free to use")
        occ = self._occupants
        self._occupants = (*occ[:space], seat, *occ[space + 1 :])
        self._free &= ~(1 << space)

    def clear_occupants(self) -> None:
        """Everyone goes home: every space is free again."""
        self._occupants = _NOBODY
        self._free = _playable(self._spaces, self.DEAD)

    # --- accumulation -------------------------------------------------------------------------

    def accumulated(self, space: int) -> tuple[tuple[int, int], ...]:
        """The goods piled on ``space`` as (good, amount) pairs; () for none."""
        n = self._piles[space]
        return ((self.PILE_GOOD[self.players][space], n),) if n else ()

    def piles(self) -> tuple[tuple[int, int, int], ...]:
        """(space, good, amount) for every accumulation space in play, empty ones included."""
        good = self.PILE_GOOD[self.players]
        return tuple((s, good[s], self._piles[s]) for s in self._spaces if good[s] >= 0)

    def take_accumulated(self, space: int) -> tuple[tuple[int, int], ...]:
        """Take every good piled on ``space`` (the pile is emptied); returns them as in
        :meth:`accumulated`. ValueError for a space that is not an accumulation space in play."""
        pile_good = self.PILE_GOOD[self.players]
        if not 0 <= space < NUM_SPACES or pile_good[space] < 0 \
                or space not in self._spaces:
            raise ValueError(f"space {space} is not an accumulation space in play")
        piles = self._piles
        n = piles[space]
        if not n:
            return ()  # nothing piled: nothing changes
        self._piles = (*piles[:space], 0, *piles[space + 1 :])
        return ((pile_good[space], n),)  # as accumulated(space)

    def _accumulate(self) -> None:
        add = self.PILE_ADD[self.players]
        piles = list(self._piles)
        for s in self._spaces:
            piles[s] += add[s]
        self._piles = tuple(piles)

    # --- majors -------------------------------------------------------------------------------

    def majors(self) -> tuple[int, ...]:
        """The major improvements on the board, by id."""
        return _MAJOR_LISTS[self._majors]

    def major_mask(self) -> int:
        """:meth:`majors` as a mask of ids (bit m: major m)."""
        return self._majors

    def major_available(self, major: int) -> bool:
        return 0 <= major < len(MAJORS) and bool(self._majors >> major & 1)

    def take_major(self, major: int) -> None:
        """A player builds ``major``: it leaves the board. ValueError if it is not there."""
        if not self.major_available(major):
            raise ValueError(f"major {major} is not on the board")
        self._majors &= ~(1 << major)

    def return_fireplace(self, major: int) -> None:
        """A Fireplace given back for a Cooking Hearth returns to the board (ref A8)."""
        if major not in FIREPLACES or self._majors >> major & 1:
            raise ValueError(f"major {major} is not a built Fireplace")
        self._majors |= 1 << major

    # --- the Well -----------------------------------------------------------------------------

    def promise(self, seat: int, after_round: int | None = None) -> int:
        """The Well built by ``seat`` in ``after_round`` (default: this round): 1 food on each of
        the next 5 round spaces; spaces past round 14 do not exist, so that food is lost.
        Returns how much food was placed."""
        if not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat} in a {self.players}-player game")
        start = self.round if after_round is None else after_round
        if start < self.round:
            raise ValueError(f"round {start} is over (round {self.round})")
        rounds = range(start + 1, min(start + WELL_ROUNDS, NUM_ROUNDS) + 1)
        well = [list(w) for w in self._well]
        for r in rounds:
            well[r][seat] += 1
        self._well = tuple(map(tuple, well))
        return len(rounds)

    def well_food(self, rnd: int) -> tuple[int, ...]:
        """The food promised on round space ``rnd``, per seat (paid out in its preparation)."""
        return self._well[rnd]

    def promises(self) -> tuple[tuple[int, int, int], ...]:
        """(round, seat, food) for every food still on a future round space."""
        return tuple((r, p, n) for r in range(self.round + 1, NUM_ROUNDS + 1)
                     for p, n in enumerate(self._well[r]) if n)

    # --- plain data ---------------------------------------------------------------------------

    def observation(self) -> dict[str, Any]:
        """Everything public, as plain data: all of the board but the order of the stage cards
        not yet revealed (their set is public: ``hidden_cards``)."""
        return {
            "players": self.players,
            "round": self.round,
            "start_player": self.start_player,
            "spaces": list(self._spaces),
            "revealed": list(self.revealed()),
            "hidden_cards": list(self.hidden_cards()),
            "accumulated": [[s, GOODS[g], n] for s, g, n in self.piles()],
            "occupants": [list(p) for p in self.occupied()],
            "majors": list(self.majors()),
            "well": [list(p) for p in self.promises()],
        }

    def to_dict(self) -> dict[str, Any]:
        """The observation plus the hidden order: ``order[r - 1]`` is round r's card."""
        d = self.observation()
        d["order"] = list(self._order)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Board:
        """The board :meth:`to_dict` described; ValueError for one the rules cannot reach."""
        try:
            return _from_dict(d, cls)
        except (KeyError, TypeError, IndexError) as e:
            raise ValueError(f"not an Agricola board: {e!r}") from e


_NOBODY: Final = (FREE,) * NUM_SPACES


def _playable(spaces: tuple[int, ...], dead: tuple[bool, ...] = DEAD) -> int:
    """The mask of the spaces of ``spaces`` that can take a person (all but the dead ones)."""
    out = 0
    for s in spaces:
        if not dead[s]:
            out |= 1 << s
    return out

#: The ids in each mask of majors.
_MAJOR_LISTS: Final = tuple(tuple(m for m in range(len(MAJORS)) if mask >> m & 1)
                            for mask in range(ALL_MAJORS + 1))
#: By player count: no food promised on any round space (index: round 0..14, then seat).
_NO_WELL: Final = tuple(((0,) * n,) * (NUM_ROUNDS + 1) for n in range(NUM_PLAYERS_MAX + 1))


def _blank(players: int, order: tuple[int, ...], cls: type[Board] = Board) -> Board:
    if type(players) is not int or not NUM_PLAYERS_MIN <= players <= NUM_PLAYERS_MAX:
        raise ValueError(f"Agricola is for 1-4 players, not {players!r}")
    _check_order(order)
    b = cls.__new__(cls)
    b.players = players
    b.round = 0
    b.start_player = 0
    b._order = order
    b._spaces = cls.PRINTED[players]
    b._piles = (0,) * NUM_SPACES
    b._occupants = _NOBODY
    b._free = _playable(b._spaces, cls.DEAD)
    b._majors = ALL_MAJORS
    b._well = _NO_WELL[players]
    return b


def _check_order(order: tuple[int, ...]) -> None:
    """ValueError unless ``order`` deals each stage's cards, in some order, to its rounds."""
    if len(order) != NUM_ROUNDS:
        raise ValueError(f"a stage order has {NUM_ROUNDS} cards, not {len(order)}")
    for cards, rounds in zip(STAGE_CARDS, STAGE_ROUNDS, strict=True):
        if sorted(order[r - 1] for r in rounds) != sorted(cards):
            raise ValueError(f"rounds {rounds} do not hold their stage's cards")


def new_board(players: int, chance: Chance, cls: type[Board] = Board) -> Board:
    """The board at set-up (round 0: nothing revealed, seat 0 starts): the stage cards shuffled
    within each stage by the event ``("stage", s)``; every major on the board."""
    order: list[int] = []
    for stage, cards in enumerate(STAGE_CARDS, 1):
        perm = chance.permutation((STAGE_EVENT, stage), len(cards))
        order.extend(cards[i] for i in perm)
    return _blank(players, tuple(order), cls)


def prepare_round(board: Board) -> tuple[int, ...]:
    """The next round's preparation phase, in place: reveal its stage card (its space joins the
    board), pay out the Well food on that round space, add every accumulation space's goods (a
    card revealed now gets its first), and send everyone home. Returns the food paid per seat."""
    if board.round >= NUM_ROUNDS:
        raise ValueError(f"there is no round after round {NUM_ROUNDS}")
    rnd = board.round + 1
    board.round = rnd
    board._spaces = (*board._spaces, board._order[rnd - 1])
    food = board._well[rnd]
    if any(food):
        well = list(board._well)
        well[rnd] = (0,) * board.players
        board._well = tuple(well)
    board._accumulate()
    board.clear_occupants()
    return food


def determinize(board: Board, rng: random.Random) -> Board:
    """A copy of ``board`` whose unrevealed stage cards are reshuffled within their stages with
    the caller's ``rng``: uniform over the orders consistent with everything public."""
    order = list(board._order)
    for rounds in STAGE_ROUNDS:
        hidden = [r - 1 for r in rounds if r > board.round]
        cards = [order[i] for i in hidden]
        rng.shuffle(cards)
        for i, c in zip(hidden, cards, strict=True):
            order[i] = c
    b = board.copy()
    b._order = tuple(order)
    return b


def from_observation(obs: Mapping[str, Any], rng: random.Random,
                     cls: type[Board] = Board) -> Board:
    """A full board consistent with :meth:`Board.observation` ``obs``, the unrevealed cards'
    order sampled with ``rng`` (each stage's hidden cards shuffled onto its hidden rounds)."""
    revealed = list(obs["revealed"])
    hidden = set(obs["hidden_cards"])
    order = list(revealed)
    for cards in STAGE_CARDS:
        left = [c for c in cards if c in hidden]
        rng.shuffle(left)
        order.extend(left)
    return cls.from_dict({**obs, "order": order})


def _from_dict(d: Mapping[str, Any], cls: type[Board]) -> Board:
    b = _blank(d["players"], tuple(d["order"]), cls)
    n = b.players
    rnd = d["round"]
    if type(rnd) is not int or not 0 <= rnd <= NUM_ROUNDS:
        raise ValueError(f"no round {rnd!r}")
    b.round = rnd
    b._spaces = cls.PRINTED[n] + b._order[:rnd]
    b._free = _playable(b._spaces, cls.DEAD)
    checks = [
        (list(d["revealed"]) != list(b.revealed()), "revealed cards disagree with the order"),
        (sorted(d["hidden_cards"]) != list(b.hidden_cards()), "hidden cards disagree"),
        (list(d["spaces"]) != list(b._spaces), "spaces in play disagree with the round"),
        (not 0 <= d["start_player"] < n, "no such starting player"),
    ]
    for bad, why in checks:
        if bad:
            raise ValueError(f"impossible board: {why}")
    b.start_player = d["start_player"]
    piles = [0] * NUM_SPACES
    for s, good, amount in d["accumulated"]:
        pile_good = cls.PILE_GOOD[n]
        if pile_good[s] < 0 or s not in b._spaces or GOODS[pile_good[s]] != good \
                or amount < 0:
            raise ValueError(f"impossible pile {good!r} × {amount} on space {s}")
        piles[s] = amount
    b._piles = tuple(piles)
    for s, seat in d["occupants"]:
        b.occupy(s, seat)
    majors = 0
    for m in d["majors"]:
        if not 0 <= m < len(MAJORS):
            raise ValueError(f"no major {m}")
        majors |= 1 << m
    b._majors = majors
    well = [[0] * n for _ in range(NUM_ROUNDS + 1)]
    for r, seat, food in d["well"]:
        if not rnd < r <= NUM_ROUNDS or not 0 <= seat < n or food <= 0:
            raise ValueError(f"impossible Well food {food} for seat {seat} in round {r}")
        well[r][seat] += food
    b._well = tuple(map(tuple, well))
    return b
