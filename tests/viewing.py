"""Game records for the replay page's tests: real ones from the committed leaderboards, and
seeded random games played here through the engine, with a seat that fails if asked."""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

from arena.engine import get_game
from arena.report.view import view_page
from arena.runner.game.clock import TimeControl
from arena.runner.game.record import BY_BOT, BY_FALLBACK, Decision, GameRecord

LEADERBOARDS = Path(__file__).resolve().parent.parent / "leaderboards"
STONE_AGE_4P = LEADERBOARDS / "search-4p" / "games" / "r004-t0001-s3.json"
AGRICOLA_2P = LEADERBOARDS / "agricola-2p" / "games" / "r001-t0001-s0.json"


def played(name: str, players: int, seed: int, options: dict[str, Any] | None = None,
           failing: int | None = None, fail_at: int = 10) -> GameRecord:
    """A seeded random game of ``name``; seat ``failing`` (if any) times out at its
    ``fail_at``-th decision and the fallback plays for it from then on."""
    game = get_game(name)
    state = game.new_state(players, seed=seed, options=options)
    rng = random.Random(seed)
    decisions, made = [], [0] * players
    while not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        index = rng.randrange(state.num_legal())
        action = state.legal_actions()[index]
        fallback = seat == failing and made[seat] >= fail_at
        decisions.append(Decision(seat, index, 0.0 if fallback else round(rng.uniform(1, 900), 3),
                                  BY_FALLBACK if fallback else BY_BOT, action))
        made[seat] += 1
        state.apply_index(index)
    result = state.result()
    ends = [{"seat": s, "reason": "timeout" if s == failing else "ok",
             "detail": "no answer in 5050 ms" if s == failing else ""} for s in range(players)]
    return GameRecord(
        game_id=f"{name}-{seed}", game=name, rules_version=game.rules_version, seed=seed,
        num_players=players, time_control=TimeControl().to_dict(),
        seats=[{"seat": s, "bot": f"bot-{s}", "version": "1", "language": "python"}
               for s in range(players)],
        decisions=decisions, terminations=ends, result=result.to_dict(),
        ranks=list(result.ranks), rounds=state.progress,
        options=game.canonical_options(options))


@functools.cache
def page_of(path: Path) -> str:
    """The replay page of the committed record at ``path``, made once per test process (a
    4-player Stone Age page takes seconds to draw, and several tests open it)."""
    return view_page(GameRecord.load(path))
