"""``arena bench league`` at scale: what a league of many bot versions costs to run.

- **Table choice**: :func:`~arena.league.matchmaking.choose_table` among ``bots`` synthetic
  entrants (a settled field with a tenth of it new), screened (as the league chooses) and
  computed in full (as it chose before the screening), on the same entrants and seeds; each
  pair of choices is checked to be the same table.
- **The league runner**: a real :class:`~arena.league.runner.League` over a real journal
  (``bots`` versions entered, ``tables`` duplicate sets issued by its own matchmaking and their
  results committed and rated as the ring does), played by the synthetic model
  (:func:`~arena.stats.synthetic.play_table`) instead of bot processes. It runs in a fresh
  interpreter, so that its peak memory (resident set) is the runner's alone; the journal's
  size is read at the end.
- **The league runner's start** (:func:`start_in_fresh_process`): a real
  :class:`~arena.league.runner.League` started on a copy of a league's folder (one
  :func:`write_journal` wrote), each way in a fresh interpreter: from the rating checkpoint
  and history, without and with the floor watch of ``--until-sigma``, and by rating every
  game again (:meth:`~arena.league.state.RunState.replayed`, what it did before).
- **A long journal** (:func:`write_journal`): a league's journal of ``games`` games, written
  with the journal's own methods as a run writes it (entrants added, tables issued, results
  committed and rated, the rating checkpoint and history kept), to time the commands that
  read one. Its tables are uniformly random, and it is written :data:`JOURNAL_BATCH` games a
  transaction (:meth:`~arena.runner.play.journal.Journal.record_results`: what one result a
  transaction leaves, without a commit a game). Durability is not needed for a simulated
  journal, so the writer's connection does not wait for the disk at each commit. At the end,
  as a league run that stops, the report's columns are kept beside it (timed apart).
"""

from __future__ import annotations

import dataclasses
import json
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.league.matchmaking import Entrant, choose_table
from arena.results import GameOutcome, Pairing
from arena.runner.play.standings import TRUESKILL_MU, TRUESKILL_SIGMA
from arena.stats.synthetic import play_table, synthetic_bots

if TYPE_CHECKING:
    from arena.league.config import LeagueConfig
    from arena.league.store import LeagueJournal

#: The games a long journal's writer issues, then records, in one transaction each.
JOURNAL_BATCH = 50_000
#: The target a table choice at 1,000 entrants is held to, in milliseconds.
CHOICE_TARGET_MS = 10.0
#: The game the simulated leagues are of (its rules are never played: the results are
#: synthetic), and the synthetic game's seat edge and luck (as the settling benchmark's).
GAME = "stoneage"
SEAT_ADVANTAGE = 0.2
LUCK = 0.5


def synthetic_field(bots: int, seed: int) -> list[Entrant]:
    """``bots`` entrants: nine in ten settled (mu by their log-strength, sigma 0.9 to 3, up
    to 400 games, some pending) and one in ten new, seeded."""
    rng = random.Random(f"field-{seed}")
    field = []
    for i, theta in enumerate(synthetic_bots(bots, seed).values()):
        if i % 10 == 9:
            field.append(Entrant(f"bot-{i:04d}", TRUESKILL_MU, TRUESKILL_SIGMA, 0,
                                 rng.randrange(2)))
        else:
            field.append(Entrant(f"bot-{i:04d}", TRUESKILL_MU + 4 * theta,
                                 rng.uniform(0.9, 3.0), rng.randrange(20, 400),
                                 rng.randrange(3)))
    return field


def choice_figures(bots: int, players: int, seed: int, choices: int) -> dict[str, Any]:
    """Milliseconds a table choice takes among ``bots`` entrants, screened and in full (the
    median of ``choices`` each, the same seeds, taken in turn), and full ÷ screened; and the
    processor time of each (on a busy machine, the wall time also counts the time others
    held the processor). Raises AssertionError if the two ever choose differently."""
    field = synthetic_field(bots, seed)
    wall: dict[bool, list[float]] = {False: [], True: []}
    cpu: dict[bool, list[float]] = {False: [], True: []}
    for k in range(choices):
        made = {}
        for exhaustive in (False, True):
            rng = random.Random(f"choice-{seed}-{k}")
            start, start_cpu = time.perf_counter(), time.process_time()
            made[exhaustive] = choose_table(field, players, rng, 0.0, exhaustive=exhaustive)
            wall[exhaustive].append((time.perf_counter() - start) * 1000)
            cpu[exhaustive].append((time.process_time() - start_cpu) * 1000)
        assert made[False] == made[True], made
    fast, full = (statistics.median(wall[x]) for x in (False, True))
    fast_cpu, full_cpu = (statistics.median(cpu[x]) for x in (False, True))
    return {"entrants": bots, "players": players, "choices": choices,
            "screened_ms": fast, "full_ms": full, "speedup": full / fast,
            "screened_cpu_ms": fast_cpu, "full_cpu_ms": full_cpu,
            "target_ms": CHOICE_TARGET_MS, "met": fast <= CHOICE_TARGET_MS}


def _league_folder(folder: Path, bots: int,
                   players: int) -> tuple[LeagueConfig, LeagueJournal, dict[str, float]]:
    """A league of ``bots`` synthetic versions in ``folder`` (its journal and config), and
    each version's log-strength by its key."""
    from arena.league.config import league_toml, load_league, parse_league
    from arena.league.store import LeagueJournal

    folder.mkdir(parents=True, exist_ok=True)
    draft = parse_league({"game": GAME, "players": players, "sandbox": "none",
                          "concurrency": 1}, folder)
    (folder / "league.toml").write_text(league_toml(draft), encoding="utf-8")
    config = load_league(folder)
    journal = LeagueJournal(config)
    journal.db.execute("PRAGMA synchronous = OFF")  # entering them is not what is timed
    theta = {}
    for i, strength in enumerate(synthetic_bots(bots, 0).values()):
        name = f"synthetic-{i:04d}"
        entrant = journal.add_entrant(name, "1", f"{i:064x}", f"bots/{name}")
        theta[entrant.key] = strength
    return config, journal, theta


def _results(theta: dict[str, float], pairings: list[Pairing],
             rng: random.Random) -> list[GameOutcome]:
    """The synthetic results of one issued duplicate set, as the league's games."""
    games = play_table(theta, pairings[0].bots, rng, pairings[0].table, pairings[0].index,
                       SEAT_ADVANTAGE, LUCK)
    return [dataclasses.replace(g, game_id=p.game_id, index=p.index, round=p.round,
                                table=p.table, seed=p.seed)
            for g, p in zip(games, pairings, strict=True)]


def journal_bytes(folder: Path) -> int:
    """The journal's size on disk: its file and its write-ahead log."""
    return sum(f.stat().st_size for f in folder.glob("journal.sqlite*"))


def runner_figures(folder: Path, bots: int, players: int, tables: int,
                   seed: int) -> dict[str, Any]:
    """Run a league of ``bots`` synthetic versions for ``tables`` duplicate sets in
    ``folder`` (see the module's doc): the median and largest time the runner took to issue
    a table (its choice, the ratings read, the journal written and synchronised), the median
    time of the choice alone, the games, the journal's size and this process's peak
    resident set."""
    from arena.league import matchmaking
    from arena.league.runner import League
    from arena.runner.play.job import record_file

    config, journal, theta = _league_folder(folder, bots, players)
    journal.close()
    league = League(config)
    league.begin()
    rng = random.Random(f"runner-{seed}")
    issue_ms: list[float] = []
    choice_ms: list[float] = []
    choose = matchmaking.choose_table

    choice_cpu_ms: list[float] = []

    def timed(*args: Any, **kwargs: Any) -> matchmaking.Choice:
        began, began_cpu = time.perf_counter(), time.process_time()
        choice = choose(*args, **kwargs)
        choice_ms.append((time.perf_counter() - began) * 1000)
        choice_cpu_ms.append((time.process_time() - began_cpu) * 1000)
        return choice

    matchmaking.choose_table = timed  # this process is the benchmark's own
    start = time.perf_counter()
    for _ in range(tables):
        began = time.perf_counter()
        league.plan(1, [])
        issue_ms.append((time.perf_counter() - began) * 1000)
        pairings, league.queue = league.queue, []
        for outcome in _results(theta, pairings, rng):
            record = str(record_file(league.folder, outcome.game_id).relative_to(league.folder))
            league.journal.record_result(outcome, record, 0.0)
            league.record(outcome)
    seconds = time.perf_counter() - start
    games = league.journal.pairing_count("done")
    league.journal.close()
    league.lock.release()
    return {"entrants": bots, "players": players, "tables": tables, "games": games,
            "issue_ms_median": statistics.median(issue_ms), "issue_ms_max": max(issue_ms),
            "choice_ms_median": statistics.median(choice_ms),
            "choice_cpu_ms_median": statistics.median(choice_cpu_ms),
            "seconds": seconds, "journal_bytes": journal_bytes(folder),
            "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def runner_in_fresh_process(bots: int, players: int, tables: int,
                            seed: int) -> dict[str, Any]:
    """:func:`runner_figures` in a fresh interpreter, in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="arena-league-bench-") as tmp:
        code = ("import json, sys; from pathlib import Path; "
                "from arena.bench.leaguescale import runner_figures; "
                "print(json.dumps(runner_figures(Path(sys.argv[1]), *map(int, sys.argv[2:]))))")
        done = subprocess.run([sys.executable, "-c", code, str(Path(tmp) / "league"),
                               str(bots), str(players), str(tables), str(seed)],
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"the league runner's benchmark failed:\n{done.stderr}")
        figures: dict[str, Any] = json.loads(done.stdout)
        return figures


#: The ways a league runner's start is timed: (name, until_sigma), None: every game rated again.
START_WAYS: tuple[tuple[str, float | None], ...] = (
    ("checkpoint", None), ("checkpoint_floors", 1.0), ("replay", None))
#: Duplicate sets the runner started from the checkpoint plays after its start, so that its
#: peak memory is a playing runner's on that journal, not only a starting one's.
PLAYED_AFTER_START = 20


def start_figures(folder: Path, way: str, tables: int = 0) -> dict[str, Any]:
    """The seconds a league runner takes to start on the league in ``folder`` (ready to issue
    its first table), one of :data:`START_WAYS`, wall and processor (on a busy machine, the
    wall time also counts the time others held the processor), and this process's peak
    resident set; then, with ``tables``, the peak once it has played that many duplicate sets
    more (its own matchmaking, results from the synthetic model, every bot of equal strength:
    only the memory is asked of them)."""
    from arena.league.config import load_league
    from arena.league.runner import League
    from arena.league.state import RunState

    config = load_league(folder)
    target = dict(START_WAYS)[way]
    if way == "replay":  # as the runner started before: every game rated, the floor watch fed
        def replayed(journal: LeagueJournal, window: int, floors: bool) -> RunState:
            return RunState.replayed(journal, window, floors=True)

        RunState.started = replayed  # type: ignore[method-assign]  # this process is the bench's
    began, began_cpu = time.perf_counter(), time.process_time()
    league = League(config, until_sigma=target)
    league.begin()
    seconds, cpu = time.perf_counter() - began, time.process_time() - began_cpu
    games = league.state.rated
    figures = {"way": way, "seconds": seconds, "cpu_seconds": cpu, "games": games,
               "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
    if tables:
        figures.update(_play(league, tables))
    league.journal.close()
    league.lock.release()
    return figures


def _play(league: Any, tables: int) -> dict[str, Any]:
    """Have the started ``league`` runner play ``tables`` duplicate sets as the runner
    benchmark does: the games played and the process's peak resident set after them."""
    from collections import defaultdict

    from arena.runner.play.job import record_file

    theta: dict[str, float] = defaultdict(float)
    rng = random.Random("played-after-start")
    played = 0
    for _ in range(tables):
        league.plan(1, [])
        pairings, league.queue = league.queue, []
        for outcome in _results(theta, pairings, rng):
            record = str(record_file(league.folder, outcome.game_id).relative_to(league.folder))
            league.journal.record_result(outcome, record, 0.0)
            league.record(outcome)
            played += 1
    return {"played_games": played, "played_peak_rss_bytes":
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


def start_in_fresh_process(league: Path, replay: bool) -> dict[str, Any]:
    """:func:`start_figures` each way (``replay``: also by rating every game again), each in a
    fresh interpreter, on a copy of the league's journal and configuration (a runner writes
    its lock beside them); and last, one more from the checkpoint that then plays
    :data:`PLAYED_AFTER_START` duplicate sets (``played``). With the journal's size."""
    figures: dict[str, Any] = {"folder": str(league), "journal_bytes": journal_bytes(league)}
    with tempfile.TemporaryDirectory(prefix="arena-league-start-") as tmp:
        copy = Path(tmp) / "league"
        copy.mkdir()
        for f in [league / "league.toml", *league.glob("journal.sqlite*")]:
            shutil.copyfile(f, copy / f.name)
        code = ("import json, sys; from pathlib import Path; "
                "from arena.bench.leaguescale import start_figures; "
                "print(json.dumps(start_figures(Path(sys.argv[1]), sys.argv[2], "
                "int(sys.argv[3]))))")
        # Last, as it writes the games it plays into the copy: from the checkpoint, playing.
        runs = [(way, way, 0) for way, _ in START_WAYS if way != "replay" or replay]
        for name, way, tables in [*runs, ("played", "checkpoint", PLAYED_AFTER_START)]:
            done = subprocess.run([sys.executable, "-c", code, str(copy), way, str(tables)],
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"the league runner's start failed:\n{done.stderr}")
            figures[name] = json.loads(done.stdout)
    return figures


def write_journal(folder: Path, bots: int, players: int, games: int, seed: int,
                  progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Write a league of ``bots`` synthetic versions and about ``games`` games (whole
    duplicate sets) into ``folder``, which must not hold a journal yet (see the module's
    doc); ``progress`` is told the games written now and then. Returns the games, the
    seconds it took and the journal's size."""
    from arena.league.runner import league_table_pairings
    from arena.runner.play.column_cache import keep_columns
    from arena.runner.play.job import record_file
    from arena.seeds import derive_seed

    if (folder / "journal.sqlite").exists():
        raise FileExistsError(f"{folder} holds a journal already: give a new folder")
    _, journal, theta = _league_folder(folder, bots, players)
    journal.db.execute("PRAGMA synchronous = OFF")
    keys = sorted(theta)
    rng = random.Random(f"journal-{seed}")
    written = 0
    start = time.perf_counter()
    table, index = journal.next_table()
    while written + players <= games:
        issued: list[Pairing] = []
        results: list[tuple[GameOutcome, str, float]] = []
        while written + players <= games and len(issued) < JOURNAL_BATCH:
            bots_at = tuple(sorted(rng.sample(keys, players)))
            pairings = league_table_pairings(table, index, bots_at, derive_seed(seed, table))
            issued += pairings
            for outcome in _results(theta, pairings, rng):
                record = str(record_file(folder, outcome.game_id).relative_to(folder))
                results.append((outcome, record, 0.0))
            table, index = table + 1, index + len(pairings)
            written += len(pairings)
        journal.issue(issued)
        journal.record_results(results)
        if progress is not None:
            progress(written)
    seconds = time.perf_counter() - start
    journal.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    # As a league run that stops: the report's columns kept beside the journal.
    wall, cpu = time.perf_counter(), time.process_time()
    keep_columns(journal, folder)
    kept = {"columns_seconds": time.perf_counter() - wall,
            "columns_cpu_seconds": time.process_time() - cpu}
    journal.close()
    return {"entrants": bots, "players": players, "games": written, "seconds": seconds,
            "journal_bytes": journal_bytes(folder), "folder": str(folder), **kept}
