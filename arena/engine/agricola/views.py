"""What a seat sees of an Agricola state, the saved form, and the result: everything is public
but the order of the stage cards not yet revealed (ruling B8), so an observation is the saved
state with the board's hidden order left out, and both are read back by one function."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self

from arena.engine.agricola.board import Board
from arena.engine.agricola.components import (
    BOAR,
    CATTLE,
    GOODS,
    MAJORS,
    MAX_PEOPLE,
    SHEEP,
    START_PEOPLE,
)
from arena.engine.agricola.farm import Farm
from arena.engine.agricola.food import (
    food_needed,
)
from arena.engine.agricola.scoring import final_ranks
from arena.engine.agricola.state_base import (
    ACT,
    BREED,
    FEED,
    OVER,
    PHASE_NAMES,
    PLACE,
    AgricolaStateBase,
)
from arena.engine.api import Game, GameResult

#: The phases of a decision.

class AgricolaViews(AgricolaStateBase):
    """The observation, the saved form and the result of a state."""

    __slots__ = ()

    def result(self) -> GameResult:
        if self._phase != OVER:
            raise RuntimeError("the game is not over")
        inputs = [self.score_input(p) for p in range(self._n)]
        breakdown = tuple(self.breakdown(p) for p in range(self._n))
        scores = tuple(sum(b.values()) for b in breakdown)
        tiebreak = tuple(s.building_resources for s in inputs)
        ranks = final_ranks(list(zip(scores, tiebreak, strict=True)))
        return GameResult(scores, ranks, breakdown, tiebreak)

    def breakdown_so_far(self) -> tuple[dict[str, int], ...]:
        """Every seat's score by category if the game ended now."""
        return tuple(self.breakdown(p) for p in range(self._n))

    # ------------------------------------------------------------------ views and saving

    def observation(self, seat: int) -> dict[str, Any]:
        if type(seat) is not int or not 0 <= seat < self._n:
            raise ValueError(f"seat {seat!r} is not in 0..{self._n - 1}")
        d = self._public()
        d["seat"] = seat
        d["board"] = self._board.observation()
        if self._game_options:  # a game without options (or none declared) shows none
            d["options"] = dict(self._game_options)
        return d

    def to_dict(self) -> dict[str, Any]:
        d = self._public()
        d["board"] = self._board.to_dict()
        changed = self._game.canonical_options(self._game_options)
        if changed:  # a game with the default options is saved as before options existed
            d["options"] = changed
        return d

    def _public(self) -> dict[str, Any]:
        players = []
        for p in range(self._n):
            g = self._goods[p]
            farm = self._farms[p]
            players.append({
                "seat": p,
                "goods": dict(zip(GOODS, g, strict=True)),
                "farm": farm.to_dict(),
                "pastures": [_cells(m) for m in farm.pastures],
                "majors": list(self._majors[p]),
                "people": self._people[p],
                "newborns": self._newborns[p],
                "people_to_place": self._home[p],
                "begging": self._begging[p],
                "score": sum(self.breakdown(p).values()),
            })
        return {
            "game": self._game.name,
            "rules_version": self._game.rules_version,
            "num_players": self._n,
            "round": self._board.round,
            "phase": PHASE_NAMES[self._phase],
            "round_start_player": self._round_start,
            "current_player": self.current_player,
            "decision": self._decision(),
            "players": players,
        }

    def _decision(self) -> dict[str, Any] | None:
        """The decision now asked for, as plain data (None when the game is over)."""
        phase = self._phase
        if phase == OVER:
            return None
        seat = self._cur
        if phase == PLACE:
            return {"kind": "place", "seat": seat}
        if phase == FEED:
            need = food_needed(self._people[seat], self._newborns[seat], self._n == 1)
            return {"kind": "feed", "seat": seat, "food_needed": need}
        if phase == BREED:
            return {"kind": "breed", "seat": seat}
        return {
            "kind": "action", "seat": seat, "space": self._space,
            "part": self._part if self._part >= 0 else None,
            "parts_started": [i for i in range(4) if self._started >> i & 1],
            "done": self._done, "acted": self._acted,
            "pasture_from": self._fence_from if self._fence_from >= 0 else None,
            "free_bake": self._free_bake, "keep": self._keep,
        }

    @classmethod
    def _underneath(cls, decision: Any) -> Any:
        """The decision of the flow of play in a saved ``decision`` (card mode: the one under
        a card decision); here the decision itself."""
        return decision

    @classmethod
    def _keeping(cls, d: Mapping[str, Any]) -> set[int]:
        """Seats a mode asks which animals to keep outside the decision (card mode: a card
        decision); none here."""
        return set()

    def _read_extra(self, d: Mapping[str, Any]) -> None:
        """Read what a mode adds to the saved form (card mode: the cards); nothing here."""

    @classmethod
    def from_data(cls, game: Game, d: Mapping[str, Any], board: Board) -> Self:
        """The state that :meth:`to_dict` (or an observation, with ``board`` sampled from it)
        describes. ValueError for data that is not one of this game's states."""
        try:
            return cls._from_data(game, d, board)
        except (KeyError, TypeError, IndexError, AttributeError) as e:
            raise ValueError(f"not an Agricola state: {e!r}") from e

    @classmethod
    def _from_data(cls, game: Game, d: Mapping[str, Any], board: Board) -> Self:
        n = d["num_players"]
        if n != board.players or len(d["players"]) != n or d["round"] != board.round:
            raise ValueError("the players or the round disagree with the board")
        s = cls.__new__(cls)
        s._game = game
        s._n = n
        s._game_options = game.validate_options(d.get("options"))
        s._board = board
        s._goods, s._farms, s._majors = [], [], []
        s._people, s._newborns, s._home, s._begging = [], [], [], []
        for p, pd in enumerate(d["players"]):
            goods = tuple(pd["goods"][name] for name in GOODS)
            if pd["seat"] != p or any(type(x) is not int or x < 0 for x in goods):
                raise ValueError(f"impossible goods for seat {p}: {goods}")
            s._goods.append(goods)
            s._farms.append(Farm.from_dict(pd["farm"]))
            s._majors.append(tuple(sorted(pd["majors"])))
            s._people.append(pd["people"])
            s._newborns.append(pd["newborns"])
            s._home.append(pd["people_to_place"])
            s._begging.append(pd["begging"])
        s._phase = PHASE_NAMES.index(d["phase"])
        s._round_start = d["round_start_player"]
        cur = d["current_player"]
        s._cur = -1 if cur is None else cur
        if not 0 <= s._round_start < n or not (cur is None or 0 <= cur < n):
            raise ValueError("no such seat as the starting or current player")
        s._clear_action()
        dec = cls._underneath(d["decision"])
        if s._phase == ACT:
            s._space = dec["space"]
            s._part = -1 if dec["part"] is None else dec["part"]
            s._started = sum(1 << i for i in dec["parts_started"])
            s._done = dec["done"]
            s._acted = bool(dec["acted"])
            s._fence_from = -1 if dec["pasture_from"] is None else dec["pasture_from"]
            s._free_bake = bool(dec["free_bake"])
            s._keep = bool(dec["keep"])
        s._read_extra(d)  # card mode's cards too: they may widen a farm (checked next)
        keeping = {dec["seat"]} if dec is not None and dec.get("keep") else set()
        _check_holdings(s, board, keeping | cls._keeping(d))
        s._moves, s._pays = s._options() if s._phase != OVER else ([], [])
        if s._phase != OVER and len(s._moves) < 2:
            raise ValueError("the state offers no real choice: not a settled position")
        return s


def _check_holdings(s: AgricolaViews, board: Board, keeping: set[int]) -> None:
    """ValueError unless every seat's holding is one the rules can reach: 2 to 5 people, at
    most 3 of them newborn, no more at home than adults, no negative begging, animals that fit
    (but for ``keeping``, the seats choosing which to keep), and each major in exactly one
    place (one owner, or the board)."""
    owners: list[int] = []
    for p in range(s._n):
        people, newborns = s._people[p], s._newborns[p]
        counts = (people, newborns, s._home[p], s._begging[p])
        if any(type(x) is not int for x in counts) \
                or not START_PEOPLE <= people <= MAX_PEOPLE \
                or not 0 <= newborns <= people - START_PEOPLE \
                or not 0 <= s._home[p] <= people - newborns or s._begging[p] < 0:
            raise ValueError(f"impossible family for seat {p}: people, newborns, at home, "
                             f"begging {counts}")
        g = s._goods[p]
        if p not in keeping and not s._farms[p].fits(g[SHEEP], g[BOAR], g[CATTLE]):
            raise ValueError(f"seat {p}'s animals do not fit on its farm")
        owners += s._majors[p]
    everywhere = sorted([*owners, *board.majors()])
    if everywhere != list(range(len(MAJORS))):
        raise ValueError("each major improvement is owned by one player or on the board")


def _cells(mask: int) -> list[int]:
    return [c for c in range(15) if mask >> c & 1]


__all__ = ["AgricolaViews"]
