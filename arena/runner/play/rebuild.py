"""Rebuilding a tournament's journal from its game records, after the journal was damaged or
lost: ``arena rebuild FILE``.

The schedule follows from the tournament file and the master seed, so the pairings are issued
again exactly as the first run issued them, round by round (a fixed schedule's repeats as far
as there are records), and every game whose record is there, names the same seed and seats,
and replays to the result it claims is entered as finished. The rest stay to be played: a
normal ``arena run`` of the same file then resumes. A damaged journal is kept beside the new
one, renamed, never deleted.

A tournament with a stopping rule: the restored games are shown to the rule in schedule
order, and if it decides, its decision is recorded as the run records it (``stopped_by``, the
games not played withdrawn), at the game after which it decided. A run commits results as
games finish, which with several workers is not always schedule order, so the count of games
the decision names can differ by a game or two from the lost journal's; the verdict and the
games played cannot.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.results import GameOutcome, Pairing
from arena.runner.game.disk import FolderLock
from arena.runner.game.record import GameRecord, verify
from arena.runner.play.config import TournamentConfig
from arena.runner.play.journal import (
    GAMES_TOTAL,
    JOURNAL,
    RECORDS,
    SECRET_SEED,
    Journal,
    JournalError,
)
from arena.runner.play.stop import StopWatch
from arena.runner.play.tournament import make_tournament_scheduler
from arena.seeds import tournament_key


@dataclass
class RebuildReport:
    """What a rebuild did: games entered from their records, records it could not use (with
    why), games left to play, and where the old journal went (None if there was none)."""

    restored: int = 0
    skipped: list[str] = field(default_factory=list)
    to_play: int = 0
    kept_as: Path | None = None


def rebuild_journal(config: TournamentConfig) -> RebuildReport:
    """Write a new journal for ``config``'s tournament from the records in its output folder.
    The games still to play get the key of the bots' seeds that the master seed gives, as the
    lost journal's did (unless it was made with a random key, which is lost with it). Raises
    JournalError when it cannot (a secret master seed that no standings file kept),
    FolderBusyError while a run holds the folder."""
    folder = config.output
    lock = FolderLock(folder)
    try:
        seed = config.seed if config.seed is not None else _published_seed(folder)
        report = RebuildReport(kept_as=_move_aside(folder / JOURNAL))
        records = _load_records(folder / RECORDS, report)
        scheduler = make_tournament_scheduler(config, seed)
        journal = Journal(folder / JOURNAL, rebuild=True)
        try:
            extra: dict[str, object] = {SECRET_SEED: seed} if config.seed is None else {}
            if scheduler.fixed_total is not None:
                extra[GAMES_TOTAL] = scheduler.fixed_total
            journal.bind(config.identity(), scheduler.describe(), extra)
            journal.seed_key(default=tournament_key(seed))
            outcomes: list[GameOutcome] = []
            fixed = scheduler.fixed_total
            while (pairings := scheduler.next_round(outcomes, journal.pairing_count())):
                journal.add_pairings(pairings)
                restored = [_restore(journal, p, records.pop(p.game_id, None), report)
                            for p in pairings]
                outcomes.extend(o for o in restored if o is not None)
                if fixed is not None and not records:
                    break  # the run issues the later parts of a fixed schedule
                if fixed is None and None in restored:
                    break  # a game of this round is still to play: later rounds wait for it
            stopped_by = _decision(config, outcomes)
            if stopped_by is not None:
                journal.stop_issuing(stopped_by)
            report.to_play = (len(journal.pairings("scheduled"))
                              if fixed is None or stopped_by is not None
                              else fixed - report.restored)
        finally:
            journal.close()
        report.skipped += [f"{gid}: not a game of this tournament's schedule"
                           for gid in sorted(records)]
        return report
    finally:
        lock.release()


def _decision(config: TournamentConfig, outcomes: list[GameOutcome]) -> dict[str, Any] | None:
    """The stopping rule's decision over the restored games in schedule order, as the run
    records it (None without a rule, or if it has not decided)."""
    if config.stop is None:
        return None
    watch = StopWatch(config.stop, config.bot_names, config.candidates)
    for outcome in sorted(outcomes, key=lambda o: o.index):
        watch.add(outcome)
        if watch.decided():
            return watch.record(schedule_ended=False)
    return None


def _published_seed(folder: Path) -> int:
    """The secret master seed as the standings file published it when a run ended."""
    try:
        seed = json.loads((folder / "standings.json").read_text(encoding="utf-8"))["meta"]["seed"]
    except (OSError, ValueError, KeyError, TypeError):
        seed = None
    if type(seed) is not int:
        raise JournalError(
            f"the tournament file gives no seed, and the master seed it drew was kept only in "
            f"the journal ({folder / 'standings.json'} does not name it): the schedule cannot "
            "be rebuilt. Move the folder away to start the tournament afresh"
        )
    return seed


def _move_aside(path: Path) -> Path | None:
    """Rename a journal (and its SQLite side files) out of the way; returns its new name."""
    if not path.exists():
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        side = Path(f"{path}{suffix}")
        if side.exists():
            side.rename(f"{kept}{suffix}")
    return kept


def _load_records(folder: Path, report: RebuildReport) -> dict[str, tuple[GameRecord, Path]]:
    out: dict[str, tuple[GameRecord, Path]] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            record = GameRecord.load(path)
        except (OSError, ValueError) as exc:
            report.skipped.append(f"{path.name}: unreadable ({exc})")
            continue
        out[record.game_id] = (record, path)
    return out


def _restore(journal: Journal, p: Pairing, found: tuple[GameRecord, Path] | None,
             report: RebuildReport) -> GameOutcome | None:
    """Enter ``p`` as finished from its record, if the record is that game; else None."""
    if found is None:
        return None
    record, path = found
    why = None
    if record.seed != p.seed or [s["bot"] for s in record.seats] != list(p.bots):
        why = "its seed or seats are not those the schedule gives this game"
    else:
        check = verify(record)
        if not check.ok:
            why = f"it does not replay: {check.problems[0]}"
    if why is not None:
        report.skipped.append(f"{path.name}: {why}; the game will be played again")
        return None
    outcome = GameOutcome.of(p, record.seat_results)
    journal.mark_started(p.game_id)
    journal.record_result(outcome, str(path.relative_to(journal.path.parent)), record.duration_s)
    report.restored += 1
    return outcome
