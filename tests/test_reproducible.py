"""Results anyone can reproduce: a tournament's master seed decides its games, the bots' seeds
included, so whoever runs the file (on another machine, with another key file of their own)
gets the same games and the same standings files byte for byte; a tournament that drew its
seed in secret publishes it at its end, and that seed plays it again. Real `arena run`
processes, real bots, real journals."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from test_tournament_e2e import Runs, deterministic_bots, read_journal, runs, write_tournament

from arena.runner.play.journal import SECRET_SEED
from arena.seeds import KEY_FILE_ENV, seed_key_to_text

__all__ = ["runs"]  # the fixture, shared with the tournament's end-to-end tests

STANDINGS = ("standings.json", "standings.csv", "standings.md")
#: Time enough that no bot of these runs times out on a busy machine: a timeout would be a
#: difference of the machine's, not of the seed's.
UNHURRIED = {"decision_ms": 10_000, "bank_ms": 120_000}


def key_files(tmp_path: Path) -> list[dict[str, str]]:
    """Two users' environments, each naming a key file of its own with another key in it."""
    envs = []
    for n in (1, 2):
        path = tmp_path / f"user{n}" / "seed-key"
        path.parent.mkdir()
        path.write_text(seed_key_to_text(bytes([n]) * 32) + "\n", encoding="ascii")
        envs.append({KEY_FILE_ENV: str(path)})
    return envs


def tournament(tmp_path: Path, folder: str, **fields: Any) -> Path:
    """A round-robin of the three seeded example bots at two-player tables, both seat orders
    of each table (6 games), written into its own fresh folder ``folder``."""
    (tmp_path / folder).mkdir()
    return write_tournament(tmp_path / folder, "t.toml", name="again",
                            output=tmp_path / folder / "out", bots=deterministic_bots(),
                            seat_rotation=True, time_control=UNHURRIED, **fields)


def standings_files(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in STANDINGS}


def games(out: Path) -> dict[str, Any]:
    """Every game record but for what the machine decides: the times taken (each decision's
    and the game's) and the bots' hellos. A bot says hello when its process starts, and a
    worker keeps bot processes between games, so which games start one depends on which
    worker each game went to, and in what order the hellos came on how the processes ran."""
    played = {}
    for path in sorted((out / "games").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        record.pop("duration_s")
        record["events"] = sorted(e for e in record["events"] if ": hello from " not in e)
        record["decisions"] = [[seat, index, by, action]
                               for seat, index, _, by, action in record["decisions"]]
        played[path.name] = record
    return played


def results(out: Path) -> list[tuple[Any, ...]]:
    """The journal's results, but for when each game finished and how long it took."""
    return [(gid, r["idx"], r["scores"], r["ranks"], r["terminations"], r["details"])
            for gid, r in read_journal(out).results.items()]


def differences(first: dict[str, Any], second: dict[str, Any]) -> list[str]:
    """Which field of which record differs, with both values, so that a failure says what."""
    return [f"{name}: {key}: {value!r:.400} != {second[name].get(key)!r:.400}"
            for name, record in first.items() if name in second
            for key, value in record.items() if value != second[name].get(key)]


def assert_same_tournament(first: Path, second: Path) -> None:
    assert standings_files(first) == standings_files(second)
    played, again = games(first), games(second)
    assert len(played) == 6 and played == again, differences(played, again)
    assert results(first) == results(second)


def test_a_seeded_tournament_run_afresh_in_two_folders_gives_the_same_files_byte_for_byte(
    tmp_path: Path, runs: Runs
) -> None:
    """Two users, each with a key file of their own, run the same seeded file from scratch in
    two folders at once: the same games, move for move, the same journal results, and the
    same standings files byte for byte."""
    env1, env2 = key_files(tmp_path)
    first, second = (tournament(tmp_path, name, seed=2026) for name in ("one", "two"))
    run1, run2 = runs.start(first, env=env1), runs.start(second, env=env2)
    runs.finish(run1, run2, timeout=120)
    assert run1.rc == 0 and run2.rc == 0, run1.text + run2.text
    assert "drawn at random" not in run1.stdout + run2.stdout
    assert_same_tournament(first.parent / "out", second.parent / "out")


def test_an_unseeded_tournament_publishes_its_seed_at_the_end_and_the_seed_plays_it_again(
    tmp_path: Path, runs: Runs
) -> None:
    env1, env2 = key_files(tmp_path)
    secret = tournament(tmp_path, "secret")
    lines = secret.read_text(encoding="utf-8").splitlines()
    secret.write_text("\n".join(x for x in lines if not x.startswith("seed =")) + "\n")
    run = runs.complete(secret, env=env1, timeout=120)
    assert run.rc == 0, run.text
    said = re.search(r"^seed (\d+) was drawn at random: --seed \1 plays this tournament again$",
                     run.stdout, re.MULTILINE)
    assert said, run.stdout
    seed = int(said.group(1))
    out = secret.parent / "out"
    assert json.loads((out / "standings.json").read_text())["meta"]["seed"] == seed
    assert read_journal(out).meta[SECRET_SEED] == seed and seed > 2**32
    # Anyone, with their own key file, plays it again from the published seed alone.
    again = tmp_path / "again"
    run = runs.complete(secret, "--seed", str(seed), "--output", str(again), env=env2,
                        timeout=120)
    assert run.rc == 0 and "drawn at random" not in run.stdout, run.text
    assert_same_tournament(out, again)
