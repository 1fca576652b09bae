"""A seed thief: tries to work out the game seed, and so the whole deck, the building piles and
every die, from what a bot is given, then plays random legal moves.

What it tries, on its first decision of each game (round 1: the cards on display and the tops
of the building piles are still those the game seed dealt):

- its ``bot_seed`` read as the old unkeyed derivation, ``game seed * 10 + seat``;
- the tournament's master seed, guessed: ``attack.json`` beside this file says what the
  attacker knows of the tournament (its format, bots, table size, rounds; the public part of
  the tournament file) and how many master seeds to try, from 0 up; each guess gives the first
  round's game seeds, exactly as the runner derives them;
- every candidate game seed is dealt with the real engine and compared with what it sees.

Log line: ``hostile[seed-thief]: recovered game seed S (how)`` or
``hostile[seed-thief]: not recovered (N candidates tried)``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from arena.engine import get_game
from arena.protocol.client import run
from arena.protocol.reference_bot import RandomBot
from arena.runner.schedule import make_scheduler

ATTACK = Path(__file__).resolve().parent / "attack.json"


def fingerprint(observation: dict[str, Any]) -> tuple[Any, ...]:
    board = observation["board"]
    return (tuple(c["card"] for c in board["cards"]),
            tuple(b["top"] for b in board["buildings"]))


def candidates(bot_seed: int, seat: int) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    if bot_seed % 10 == seat:
        found.append((bot_seed // 10, "bot_seed = game seed * 10 + seat"))
    knowledge = json.loads(ATTACK.read_text()) if ATTACK.exists() else {}
    if knowledge:
        for master in range(knowledge.get("guesses", 256)):
            scheduler = make_scheduler(knowledge["format"], knowledge["bots"],
                                       knowledge["players"], master, knowledge.get("rounds", 1))
            for pairing in scheduler.next_round([]) or []:
                found.append((pairing.seed, f"master seed {master}, game {pairing.game_id}"))
    return found


class SeedThief(RandomBot):
    def on_game_start(self, info: dict[str, Any]) -> None:
        super().on_game_start(info)
        self.info = info
        self.tried = False

    def choose(self, observation: dict[str, Any], legal_actions: list[dict[str, Any]],
               time_left_ms: int) -> int:
        if not self.tried:
            self.tried = True
            self.steal(observation)
        return super().choose(observation, legal_actions, time_left_ms)

    def steal(self, observation: dict[str, Any]) -> None:
        seat, bot_seed = self.info["seat"], self.info["bot_seed"]
        game = get_game(observation["game"])
        seen = fingerprint(observation)
        tried = candidates(bot_seed, seat)
        for game_seed, how in tried:
            state = game.new_state(observation["num_players"], seed=game_seed)
            if fingerprint(state.observation(seat)) == seen:
                print(f"hostile[seed-thief]: recovered game seed {game_seed} ({how})",
                      file=sys.stderr, flush=True)
                return
        print(f"hostile[seed-thief]: not recovered ({len(tried)} candidates tried)",
              file=sys.stderr, flush=True)


if __name__ == "__main__":
    run(SeedThief("hostile-seed-thief", "1.0"))
