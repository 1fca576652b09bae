"""Game records: everything needed to replay and verify a refereed game, as JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from arena.engine import IllegalActionError, get_game
from arena.protocol.messages import Termination
from arena.results import SeatResult
from arena.runner.game.disk import write_atomic

RECORD_FORMAT = "arena-game-record"
RECORD_VERSION = 1
#: Who made a decision: the seat's bot, or the seeded random fallback (a seat whose bot failed,
#: or a built-in player).
BY_BOT = "bot"
BY_FALLBACK = "fallback"


class Decision(NamedTuple):
    """One decision of a game: the ``seat`` that acted, its ``choice`` (an index into the
    legal actions), the milliseconds its bot took (``ms``, 0 for a fallback), who chose (``by``:
    :data:`BY_BOT` or :data:`BY_FALLBACK`) and the ``action`` itself. A record keeps it on disk
    as a JSON list in this order, which a tuple writes as it is."""

    seat: int
    choice: int
    ms: float
    by: str
    action: dict[str, Any]

    @classmethod
    def from_list(cls, k: int, entry: Any) -> Decision:
        """Decision number ``k`` as a record on disk holds it; ValueError if it is not a list
        of five."""
        if not isinstance(entry, list) or len(entry) != len(cls._fields):
            raise ValueError(f"game record decision {k} is not a list of "
                             f"{', '.join(cls._fields)}")
        return cls(*entry)


def final_ranks(engine_ranks: list[int] | tuple[int, ...], failed: list[bool]) -> list[int]:
    """Ranks after forfeits: seats that failed share last place; the others keep the order of
    the game's result among themselves (ties still shared)."""
    n = len(engine_ranks)
    ok = [s for s in range(n) if not failed[s]]
    ranks = [0] * n
    for s in ok:
        ranks[s] = 1 + sum(1 for o in ok if engine_ranks[o] < engine_ranks[s])
    for s in range(n):
        if failed[s]:
            ranks[s] = len(ok) + 1
    return ranks


@dataclass
class GameRecord:
    """A refereed game: every :class:`Decision` in the order they were made, how each seat's
    part ended, and the result."""

    game_id: str
    game: str
    rules_version: str
    seed: int
    num_players: int
    time_control: dict[str, int]
    seats: list[dict[str, Any]]
    decisions: list[Decision] = field(default_factory=list)
    terminations: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    ranks: list[int] = field(default_factory=list)
    rounds: int | None = None
    events: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    #: Each seat's result as the referee judged it, seat 0 first. It is not written as such:
    #: ``seats``, ``result``, ``ranks`` and ``terminations`` hold it on disk, and a record read
    #: back has it from them (empty if they do not make one result per seat).
    seat_results: tuple[SeatResult, ...] = ()
    #: The game's options that differ from its defaults (Game.canonical_options); written
    #: only when there are some, so a game played with the defaults is recorded as before
    options: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = {
            "format": RECORD_FORMAT,
            "format_version": RECORD_VERSION,
            "game_id": self.game_id,
            "game": self.game,
            "rules_version": self.rules_version,
            "seed": self.seed,
            "num_players": self.num_players,
            "time_control": self.time_control,
            "seats": self.seats,
            "decisions": self.decisions,
            "terminations": self.terminations,
            "result": self.result,
            "ranks": self.ranks,
            "rounds": self.rounds,
            "events": self.events,
            "duration_s": self.duration_s,
        }
        if self.options:
            data["options"] = dict(self.options)
        return data

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        if d.get("format") != RECORD_FORMAT:
            raise ValueError("not an Arena game record (format field missing or different)")
        if d.get("format_version") != RECORD_VERSION:
            raise ValueError(f"game record version {d.get('format_version')!r} is not supported")
        try:
            seats, result, ranks, ends = d["seats"], d["result"], d["ranks"], d["terminations"]
            return cls(
                game_id=d["game_id"], game=d["game"], rules_version=d["rules_version"],
                seed=d["seed"], num_players=d["num_players"], time_control=d["time_control"],
                seats=seats,
                decisions=[Decision.from_list(k, x) for k, x in enumerate(d["decisions"])],
                terminations=ends, result=result, ranks=ranks, rounds=d.get("rounds"),
                events=d.get("events", []), duration_s=d.get("duration_s", 0.0),
                seat_results=_seat_results(seats, result, ranks, ends),
                options=_options(d.get("options", {})),
            )
        except KeyError as exc:
            raise ValueError(f"game record is missing the field {exc.args[0]!r}") from None

    def to_json(self) -> str:
        """The record as its file holds it: compact JSON."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def save(self, path: str | Path) -> None:
        """Write the record as JSON (see :func:`save_record`)."""
        save_record(path, self.to_json())

    @classmethod
    def load(cls, path: str | Path) -> GameRecord:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not JSON: {exc}") from None
        return cls.from_dict(data)


def save_record(path: str | Path, text: str) -> None:
    """Write a record's JSON ``text`` to ``path``, making its folder if need be, atomically:
    the file is complete or absent (written aside, then renamed)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(p, text)


def terminations_of(results: Sequence[SeatResult]) -> list[dict[str, Any]]:
    """How each seat's part ended, as a record and a bot's ``game_end`` message say it."""
    return [{"seat": s, "reason": r.termination, "detail": r.detail}
            for s, r in enumerate(results)]


def _options(raw: Any) -> dict[str, str]:
    if not isinstance(raw, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise ValueError("game record options must be a map of strings to strings")
    return dict(raw)


def _seat_results(seats: Any, result: Any, ranks: Any, ends: Any) -> tuple[SeatResult, ...]:
    """Each seat's result, from the fields of a record on disk; empty if they do not give one
    per seat (:func:`verify` says what is wrong with such a record)."""
    try:
        scores = result["scores"]
        if not len(seats) == len(scores) == len(ranks) == len(ends):
            return ()
        return tuple(SeatResult(seat["bot"], score, rank, Termination(end["reason"]),
                                end["detail"])
                     for seat, score, rank, end in zip(seats, scores, ranks, ends, strict=True))
    except (KeyError, TypeError, ValueError):
        return ()


def record_summary(record: GameRecord) -> dict[str, Any]:
    """The outcome of a game as plain data: game, rules version, seed, rounds, decisions, the
    options that differ from the game's defaults (when some do), and per seat: player, score,
    rank (after forfeits), termination reason and score breakdown."""
    return {
        "game": record.game,
        "rules_version": record.rules_version,
        "seed": record.seed,
        "rounds": record.rounds,
        "decisions": len(record.decisions),
        "game_id": record.game_id,
        **({"options": dict(record.options)} if record.options else {}),
        "players": [
            {
                "seat": s,
                "player": record.seats[s]["bot"],
                "version": record.seats[s]["version"],
                "score": record.result["scores"][s],
                "rank": record.ranks[s],
                "termination": record.terminations[s]["reason"],
                "detail": record.terminations[s]["detail"],
                "breakdown": record.result["breakdown"][s],
            }
            for s in range(record.num_players)
        ],
    }


@dataclass(frozen=True)
class ReplayReport:
    ok: bool
    problems: list[str]
    decisions: int


def verify(record: GameRecord) -> ReplayReport:
    """Re-run ``record`` through the engine, with its options, and compare everything it
    claims.

    Checks the rules version, the options, that each decision was asked of the recorded seat
    and is a legal index naming the recorded action, that the game ends exactly after the last
    decision, and that scores, engine ranks, breakdown and final ranks are what the record
    says.
    """
    problems: list[str] = []
    game = get_game(record.game)
    if record.rules_version != game.rules_version:
        return ReplayReport(False, [
            f"recorded under rules {record.rules_version!r}, this engine is {game.rules_version!r}"
        ], 0)
    try:
        state = game.new_state(record.num_players, seed=record.seed, options=record.options)
    except ValueError as exc:
        return ReplayReport(False, [f"the record's options: {exc}"], 0)
    for k, (seat, index, _ms, _by, action) in enumerate(record.decisions):
        if state.is_terminal:
            problems.append(f"decision {k}: the game was already over")
            break
        if state.current_player != seat:
            problems.append(f"decision {k}: seat {state.current_player} to act, record says {seat}")
            break
        keys = state.legal_keys()
        if type(index) is int and 0 <= index < len(keys) and state.action_of(keys[index]) != action:
            problems.append(f"decision {k}: index {index} is {state.action_of(keys[index])}, "
                            f"record says {action}")
            break
        try:
            state.apply_index(index)
        except IllegalActionError as exc:
            problems.append(f"decision {k}: {exc}")
            break
    else:
        if not state.is_terminal:
            problems.append("the record ends before the game does")
        else:
            result = state.result().to_dict()
            for key in ("scores", "ranks", "breakdown"):
                if result[key] != record.result.get(key):
                    problems.append(f"{key}: replay gives {result[key]}, record says "
                                    f"{record.result.get(key)}")
            failed = [t["reason"] != Termination.OK for t in record.terminations]
            if len(failed) == record.num_players:
                expect = final_ranks(result["ranks"], failed)
                if expect != record.ranks:
                    problems.append(f"final ranks: replay gives {expect}, record says "
                                    f"{record.ranks}")
            else:
                problems.append("terminations do not list every seat")
    return ReplayReport(not problems, problems, len(record.decisions))
