"""Reading a game record move by move: the list of decisions with the score after each, and
the position before any one of them, so a bot's author can see where a game turned and debug a
bot from that exact position (``arena replay FILE --moves`` / ``--at N``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.engine import get_game
from arena.engine.api import State
from arena.runner.game.record import GameRecord


@dataclass(frozen=True)
class Move:
    """Decision ``number`` (from 0) of a recorded game: who acted, what, how fast, whether a
    bot or the fallback chose, and every seat's score after it (None for a game without
    running scores)."""

    number: int
    progress: int | None
    seat: int
    player: str
    action: dict[str, Any]
    ms: float
    by: str
    scores: tuple[int, ...] | None


def states(record: GameRecord) -> Iterator[tuple[int, State]]:
    """(k, the state before decision k) for every recorded decision, replayed through the
    engine; ValueError where the record and the engine part ways."""
    state = get_game(record.game).new_state(record.num_players, seed=record.seed,
                                            options=record.options)
    for k, (seat, index, _ms, _by, _action) in enumerate(record.decisions):
        if state.is_terminal or state.current_player != seat:
            raise ValueError(f"decision {k}: the record and the engine disagree (seat "
                             f"{state.current_player} to act, the record says {seat})")
        yield k, state
        state.apply_index(index)


def moves(record: GameRecord) -> list[Move]:
    """Every decision of the record as a :class:`Move`."""
    out = []
    for k, state in states(record):
        seat, index, ms, by, action = record.decisions[k]
        progress = state.progress
        after = state.clone()
        after.apply_index(index)
        out.append(Move(k, progress, seat, record.seats[seat]["bot"], action, ms, by,
                        after.scores_so_far()))
    return out


def position(record: GameRecord, number: int) -> dict[str, Any]:
    """The position before decision ``number``: the seat to act, its observation and legal
    actions (what its bot was sent), what it chose, and the full state (``to_dict``)."""
    if not 0 <= number < len(record.decisions):
        raise ValueError(f"the record has decisions 0..{len(record.decisions) - 1}, "
                         f"not {number}")
    for k, state in states(record):
        if k == number:
            seat, index, ms, by, action = record.decisions[k]
            return {
                "game_id": record.game_id, "game": record.game, "seed": record.seed,
                **({"options": dict(record.options)} if record.options else {}),
                "decision": k, "seat": seat, "player": record.seats[seat]["bot"],
                "observation": state.observation(seat),
                "legal_actions": state.legal_actions(),
                "chosen": {"index": index, "action": action, "ms": ms, "by": by},
                "state": state.to_dict(),
            }
    raise AssertionError("unreachable")  # pragma: no cover
