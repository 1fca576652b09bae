"""Dice Race: a tiny game that proves the engine contract is not Stone Age's alone.

Rules. 2-4 players race along a track from 0 to :data:`GOAL`. A shuffled deck of
:data:`NUM_CARDS` cards (card ``c`` is worth ``c % 6 + 1``) deals each seat :data:`HAND` cards
face down (the option ``hand``: 1, 2 or 3 cards, 2 by default): a hand is seen by its owner
only. Seats take turns in order from seat 0. A turn
starts with one public die roll; then the seat either *moves* by the die, *plays* a card from
its hand to move by the card's value instead (the card is discarded face up), or *draws* the top
card of the deck without moving (only while the deck has cards and the hand holds fewer than
:data:`MAX_HAND`). With no card in hand and no card to draw, moving is the only action and is
applied at once. The first seat to reach the goal ends the game. Score: the position, capped at
the goal; ties are broken by the cards still in hand (more is better).

Chance: the deck is the shuffle ``("deck",)`` and the k-th roll of seat ``s`` is the event
``("dice", s, k)``, so a seed replayed with the seats rotated gives each seat the same dice
(duplicate play).

The option is what tests of game options play with: it reaches the engine through
``new_state(..., options)``, shows in each observation (``options``, complete) and in a saved
state (``options``, the values that differ from the defaults, only when there are some).

The game is not installed as a plugin: tests register it (see ``tests/conftest.py``).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Mapping
from typing import Any

from arena.engine.api import Game, GameResult, OptionSpec, State, competition_ranks
from arena.engine.chance import Chance, SeededChance, chance_from_dict

GOAL = 20
NUM_CARDS = 18
HAND = 2
MAX_HAND = 3
#: The game's options: ``hand``, the cards dealt to each seat.
OPTIONS = {"hand": OptionSpec(("1", "2", "3"), str(HAND), "cards dealt to each seat")}

Key = tuple[Any, ...]
MOVE: Key = ("move",)
DRAW: Key = ("draw",)
PLAY_KEYS: tuple[Key, ...] = tuple(("play", c) for c in range(NUM_CARDS))


def card_value(card: int) -> int:
    """How far card ``card`` moves its player."""
    return card % 6 + 1


class DiceRaceState(State):
    """A Dice Race position. Create one with ``DICE_RACE.new_state(players, seed=...)``."""

    __slots__ = (
        "_chance", "_cur", "_deck", "_deck_pos", "_die", "_discards", "_hands",
        "_moves", "_over", "_pos", "_turns",
    )

    _game: DiceRaceGame
    _chance: Chance
    _pos: list[int]
    _hands: list[tuple[int, ...]]
    _deck: tuple[int, ...]
    _deck_pos: int
    _discards: tuple[int, ...]
    _cur: int
    _die: int
    _turns: list[int]  # rolls made by each seat: the k of its next dice event
    _over: bool
    _moves: list[Key]

    @classmethod
    def new(cls, game: DiceRaceGame, n: int, chance: Chance,
            options: dict[str, str]) -> DiceRaceState:
        """The first position of a game for ``n`` seats, with the complete ``options``."""
        s = cls.__new__(cls)
        s._game = game
        s._n = n
        s._game_options = options
        s._chance = chance
        s._deck = tuple(chance.permutation(("deck",), NUM_CARDS))
        hand = int(options["hand"])
        s._hands = [tuple(sorted(s._deck[p * hand : (p + 1) * hand])) for p in range(n)]
        s._deck_pos = n * hand
        s._discards = ()
        s._pos = [0] * n
        s._turns = [0] * n
        s._over = False
        s._begin_turn(0)
        s._settle()
        return s

    # ------------------------------------------------------------------ contract
    @property
    def current_player(self) -> int | None:
        return None if self._over else self._cur

    @property
    def progress(self) -> int:
        """The round: 1 while seat 0's first turn runs, and one more each time it comes round
        again; the last round played once the game is over."""
        return self._turns[0]

    def legal_keys(self) -> list[Key]:
        return self._moves

    def action_of(self, key: Hashable) -> dict[str, Any]:
        assert isinstance(key, tuple)
        if key[0] == "play":
            return {"type": "play", "card": key[1]}
        return {"type": key[0]}

    def _apply_key(self, key: Hashable) -> None:
        self._do(key)  # type: ignore[arg-type]
        self._settle()

    def clone(self) -> DiceRaceState:
        c = DiceRaceState.__new__(DiceRaceState)
        c._game = self._game
        c._n = self._n
        c._game_options = self._game_options  # never changed in place
        c._chance = self._chance
        c._pos = self._pos[:]
        c._hands = self._hands[:]
        c._deck = self._deck
        c._deck_pos = self._deck_pos
        c._discards = self._discards
        c._cur = self._cur
        c._die = self._die
        c._turns = self._turns[:]
        c._over = self._over
        c._moves = self._moves  # replaced, never changed in place
        return c

    # ------------------------------------------------------------------ rules
    def _begin_turn(self, p: int) -> None:
        k = self._turns[p]
        self._turns[p] = k + 1
        self._cur = p
        self._die = self._chance.integers(("dice", p, k), 1, 1, 6)[0]
        self._moves = self._options()

    def _options(self) -> list[Key]:
        if self._over:
            return []
        hand = self._hands[self._cur]
        moves = [MOVE, *(PLAY_KEYS[c] for c in hand)]
        if self._deck_pos < NUM_CARDS and len(hand) < MAX_HAND:
            moves.append(DRAW)
        return moves

    def _settle(self) -> None:
        # A seat with nothing to choose is not asked: its only action is applied at once.
        while len(self._moves) == 1:
            self._do(self._moves[0])

    def _do(self, key: Key) -> None:
        p = self._cur
        op = key[0]
        if op == "move":
            self._pos[p] += self._die
        elif op == "play":
            card = key[1]
            hand = list(self._hands[p])
            hand.remove(card)
            self._hands[p] = tuple(hand)
            self._discards = (*self._discards, card)
            self._pos[p] += card_value(card)
        else:
            self._hands[p] = tuple(sorted((*self._hands[p], self._deck[self._deck_pos])))
            self._deck_pos += 1
        if self._pos[p] >= GOAL:
            self._over = True
            self._moves = []
        else:
            self._begin_turn((p + 1) % self._n)

    # ------------------------------------------------------------------ outcome and views
    def result(self) -> GameResult:
        if not self._over:
            raise RuntimeError("the game is not over yet")
        scores = tuple(min(pos, GOAL) for pos in self._pos)
        tiebreak = tuple(len(h) for h in self._hands)
        ranks = competition_ranks(list(zip(scores, tiebreak, strict=True)))
        breakdown = tuple({"track": s} for s in scores)
        return GameResult(scores, ranks, breakdown, tiebreak)

    def observation(self, seat: int) -> dict[str, Any]:
        """All public facts, plus ``seat``'s own hand; other hands only by their size."""
        if type(seat) is not int or not 0 <= seat < self._n:
            raise ValueError(f"seat {seat!r} is not in 0..{self._n - 1}")
        return {
            "game": self._game.name,
            "rules_version": self._game.rules_version,
            "seat": seat,
            "num_players": self._n,
            "round": self.progress,
            "current_player": self.current_player,
            "die": None if self._over else self._die,
            "positions": list(self._pos),
            "hand": list(self._hands[seat]),
            "hand_sizes": [len(h) for h in self._hands],
            "discards": list(self._discards),
            "deck_size": NUM_CARDS - self._deck_pos,
            "turns": list(self._turns),
            "options": dict(self._game_options),
        }

    def to_dict(self) -> dict[str, Any]:
        data = {
            "game": self._game.name,
            "rules_version": self._game.rules_version,
            "num_players": self._n,
            "chance": self._chance.to_dict(),
            "positions": list(self._pos),
            "hands": [list(h) for h in self._hands],
            "deck": list(self._deck),
            "deck_pos": self._deck_pos,
            "discards": list(self._discards),
            "current": self._cur,
            "die": self._die,
            "turns": list(self._turns),
            "over": self._over,
        }
        changed = self._game.canonical_options(self._game_options)
        if changed:  # a game with the default options is saved as before options existed
            data["options"] = changed
        return data

    @classmethod
    def from_dict(cls, game: DiceRaceGame, data: Mapping[str, Any]) -> DiceRaceState:
        """Rebuild a state saved by :meth:`to_dict`; ValueError if it is not one."""
        if data.get("game") != game.name or data.get("rules_version") != game.rules_version:
            raise ValueError(f"not a {game.name} {game.rules_version} state")
        try:
            s = cls.__new__(cls)
            s._game = game
            s._n = int(data["num_players"])
            s._game_options = game.validate_options(data.get("options"))
            s._chance = chance_from_dict(data["chance"])
            s._pos = [int(v) for v in data["positions"]]
            s._hands = [tuple(int(c) for c in h) for h in data["hands"]]
            s._deck = tuple(int(c) for c in data["deck"])
            s._deck_pos = int(data["deck_pos"])
            s._discards = tuple(int(c) for c in data["discards"])
            s._cur = int(data["current"])
            s._die = int(data["die"])
            s._turns = [int(v) for v in data["turns"]]
            s._over = bool(data["over"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"malformed {game.name} state: {exc!r}") from exc
        s._moves = s._options()
        return s

    def __repr__(self) -> str:
        return f"<DiceRaceState {self._n}p positions {self._pos} seat {self.current_player}>"


class DiceRaceGame(Game):
    """Dice Race, 2-4 players: see the module's docstring for the rules."""

    name = "dicerace"
    title = "Dice Race (engine test game)"
    rules_version = "dicerace-1"
    min_players = 2
    max_players = 4

    def max_decisions(self, num_players: int) -> int:
        # A draw uses up a deck card; any other turn moves its seat at least one step, and
        # each seat has at most GOAL - 1 such turns before someone must reach the goal.
        return num_players * (GOAL - 1) + 1 + NUM_CARDS

    def options_schema(self) -> dict[str, OptionSpec]:
        return OPTIONS

    def _new_state(self, num_players: int, chance: Chance,
                   options: dict[str, str]) -> DiceRaceState:
        return DiceRaceState.new(self, num_players, chance, options)

    def state_from_dict(self, data: Mapping[str, Any]) -> DiceRaceState:
        return DiceRaceState.from_dict(self, data)

    def determinize(self, observation: Mapping[str, Any], rng: random.Random) -> DiceRaceState:
        """Other hands and the deck order are dealt at random from the cards ``observation``'s
        seat has not seen; future dice come from a seed drawn from ``rng``."""
        obs = observation
        if obs.get("game") != self.name or obs.get("rules_version") != self.rules_version:
            raise ValueError(f"not a {self.name} {self.rules_version} observation")
        if obs["current_player"] is None:
            raise ValueError("the game is over: there is nothing left to decide")
        seat, n = obs["seat"], obs["num_players"]
        seen = set(obs["hand"]) | set(obs["discards"])
        unseen = [c for c in range(NUM_CARDS) if c not in seen]
        rng.shuffle(unseen)
        hands: list[list[int]] = []
        for p, size in enumerate(obs["hand_sizes"]):
            if p == seat:
                hands.append(list(obs["hand"]))
            else:
                hands.append(sorted(unseen[:size]))
                del unseen[:size]
        if len(unseen) != obs["deck_size"]:
            raise ValueError("the observation's cards do not add up")
        return self.state_from_dict({
            "game": self.name,
            "rules_version": self.rules_version,
            "num_players": n,
            "chance": SeededChance(rng.getrandbits(63)).to_dict(),
            "positions": obs["positions"],
            "hands": hands,
            # Cards leave the deck from the front: the cards out of it (in hands or discarded)
            # fill the first deck_pos places, in an order that no longer matters.
            "deck": [*sorted(c for h in hands for c in h), *obs["discards"], *unseen],
            "deck_pos": NUM_CARDS - obs["deck_size"],
            "discards": obs["discards"],
            "current": obs["current_player"],
            "die": obs["die"],
            "turns": obs["turns"],
            "over": False,
            "options": self.canonical_options(obs.get("options")),
        })

    def components(self, options: Mapping[str, str] | None = None) -> dict[str, Any]:
        self.validate_options(options)
        return {"cards": [{"id": c, "value": card_value(c)} for c in range(NUM_CARDS)]}


#: The Dice Race game.
DICE_RACE = DiceRaceGame()
