"""Feeding: at the end of each round every player feeds their people, or decides how to cover
what is missing."""

from __future__ import annotations

from arena.engine.stoneage.moves import (
    FEED,
    PENALTY_KEY,
)
from arena.engine.stoneage.phases import PD_FEED, Key
from arena.engine.stoneage.state_base import StoneAgeStateBase


class FeedingRules(StoneAgeStateBase):
    """Feeding each player in turn, and the choices of a player short of food."""

    __slots__ = ()

    def _next_feeder(self) -> None:
        n = self._n
        goods = self._goods
        while self._turn < n:
            p = (self._start + self._turn) % n
            food = goods[p * 5] + self._agri[p]
            need = self._people[p]
            if food >= need:
                goods[p * 5] = food - need
                self._turn += 1
                continue
            goods[p * 5] = 0
            self._cur = p
            self._pend = (PD_FEED, need - food)
            self._moves = self._feed_options(p, need - food)
            return
        self._end_round()

    def _feed_options(self, p: int, deficit: int) -> list[Key]:
        # Table n of the payment tables holds every way to pay n resources.
        return self._choices(FEED, deficit, p, PENALTY_KEY)
