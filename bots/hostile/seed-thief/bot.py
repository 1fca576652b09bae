"""A seed thief: tries to work out the game seed, and so the whole deck, the building piles and
every die, from what a bot is given, then plays random legal moves.

What it tries, from its first decision of each game (round 1: the cards on display and the
tops of the building piles are still those the game seed dealt):

- every number in the game's id (a single game named by its seed, ``stoneage-42``, would
  give it away);
- its ``bot_seed`` read as the old unkeyed derivation, ``game seed * 10 + seat``;
- the tournament's master seed, guessed: ``attack.json`` beside this file says what the
  attacker knows of the tournament (its format, bots, table size, rounds; the public part of
  the tournament file) and how many master seeds to try, from 0 up; each guess gives the first
  round's game seeds, exactly as the runner derives them;
- every small game seed, 0 to ``small_seeds`` (``attack.json``; 100000 by default): a single
  game (``arena play``, ``arena check-bot``, a league's validation) whose user gave no seed
  once played 0 or 1, and a seed a person picks is mostly small.

A candidate is first dealt with the engine's own chance (the deck's shuffle, whose first four
cards are the display: about 10 µs each) and, if the display matches, dealt in full with the
engine and compared with the cards and building tops it sees. The search goes on at each
decision for at most half the time the bot is given, so it answers every request in time.

Log line: ``hostile[seed-thief]: recovered game seed S (how)``, or
``hostile[seed-thief]: not recovered (N candidates tried)`` once every candidate was tried
(``... before the game ended`` if it ended first).
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.engine import get_game
from arena.engine.chance import SeededChance
from arena.engine.stoneage.components import CARDS
from arena.engine.stoneage.dice import DECK_SHUFFLE
from arena.protocol.client import run
from arena.protocol.reference_bot import RandomBot
from arena.runner.play.schedule import make_scheduler

ATTACK = Path(__file__).resolve().parent / "attack.json"
SMALL_SEEDS = 100_000
#: The most of each decision's time spent searching.
SHARE = 0.5


def fingerprint(observation: dict[str, Any]) -> tuple[Any, ...]:
    board = observation["board"]
    return (tuple(c["card"] for c in board["cards"]),
            tuple(b["top"] for b in board["buildings"]))


def display_of(game_seed: int) -> tuple[int, ...]:
    """The four cards on display at the start of the game ``game_seed`` deals."""
    return tuple(SeededChance(game_seed).permutation(DECK_SHUFFLE, len(CARDS))[:4])


def candidates(info: dict[str, Any]) -> Iterator[tuple[int, str]]:
    """Game seeds worth trying, cheapest guesses first, each with how it was guessed."""
    seat, bot_seed = info["seat"], info["bot_seed"]
    for number in re.findall(r"\d+", str(info.get("game_id", ""))):
        yield int(number), f"a number in the game id {info['game_id']}"
    if bot_seed % 10 == seat:
        yield bot_seed // 10, "bot_seed = game seed * 10 + seat"
    knowledge = json.loads(ATTACK.read_text()) if ATTACK.exists() else {}
    if "format" in knowledge:
        for master in range(knowledge.get("guesses", 256)):
            scheduler = make_scheduler(knowledge["format"], knowledge["bots"],
                                       knowledge["players"], master, knowledge.get("rounds", 1))
            for pairing in scheduler.next_round([]) or []:
                yield pairing.seed, f"master seed {master}, game {pairing.game_id}"
    for game_seed in range(knowledge.get("small_seeds", SMALL_SEEDS) + 1):
        yield game_seed, "a small game seed, tried one by one"


class SeedThief(RandomBot):
    def on_game_start(self, info: dict[str, Any]) -> None:
        super().on_game_start(info)
        self.info = info
        self.search: Iterator[tuple[int, str]] | None = None
        self.seen: tuple[Any, ...] = ()
        self.tried = 0

    def choose(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]],
               time_left_ms: int) -> int:
        if self.search is None and not self.seen:
            self.search = candidates(self.info)
            self.seen = fingerprint(observation)
            self.game = get_game(observation["game"])
            self.players = observation["num_players"]
        if self.search is not None:
            self.steal(time.monotonic() + time_left_ms * SHARE / 1000)
        return super().choose(observation, legal_actions, time_left_ms)

    def steal(self, until: float) -> None:
        """Try candidates until one deals what was seen, they run out, or ``until``."""
        assert self.search is not None
        seat = self.info["seat"]
        while time.monotonic() < until:
            batch = list(itertools.islice(self.search, 256))
            for game_seed, how in batch:
                self.tried += 1
                if display_of(game_seed) != self.seen[0]:
                    continue
                state = self.game.new_state(self.players, seed=game_seed)
                if fingerprint(state.observation(seat)) == self.seen:
                    self.say(f"recovered game seed {game_seed} ({how})")
                    return
            if not batch:
                self.say(f"not recovered ({self.tried} candidates tried)")
                return

    def say(self, text: str) -> None:
        self.search = None
        print(f"hostile[seed-thief]: {text}", file=sys.stderr, flush=True)

    def on_game_end(self, result: dict[str, Any]) -> None:
        if self.search is not None:
            self.say(f"not recovered ({self.tried} candidates tried before the game ended)")


if __name__ == "__main__":
    run(SeedThief("hostile-seed-thief", "1.0"))
