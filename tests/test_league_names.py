"""Naming a league's bot versions on the command line: ``NAME`` alone stands for the one
version of it there is, and a name with several versions is answered with those versions only
(a real league journal, the commands run as a user runs them)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from test_league_ratings import _league, _play
from typer.testing import CliRunner, Result

from arena.cli.main import app

BOTS = ("random-py@1.0", "random-py@2.0", "greedy-py@1.0", "random-js@1.0")


def arena(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def test_a_name_with_several_versions_is_answered_with_its_versions_only(
        tmp_path: Path) -> None:
    _league(tmp_path, BOTS).close()
    folder = str(tmp_path / "league")
    for command in (["remove", "--yes"], ["retire"], ["enable"]):
        r = arena("league", *command, folder, "random-py")
        assert r.exit_code == 2, r.output
        assert ("random-py has 2 versions in the league: name one (random-py@1.0, "
                "random-py@2.0)") in r.stderr
        assert "greedy-py" not in r.stderr and "random-js" not in r.stderr
    r = arena("league", "retire", folder, "greedy-py")
    assert r.exit_code == 0 and "greedy-py@1.0 retired" in r.stdout, r.output


def test_compare_takes_a_bot_s_name_when_it_has_played_as_one_version(tmp_path: Path) -> None:
    journal = _league(tmp_path, BOTS)
    try:
        _play(journal, random.Random(5), 40, BOTS)
        outcomes = journal.outcomes()
    finally:
        journal.close()
    folder = str(tmp_path / "league")
    met = sum(set(o.bots) == {"greedy-py@1.0", "random-py@2.0"} for o in outcomes)
    assert met

    r = arena("compare", folder, "greedy-py", "random-py@2.0", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["games"] == met
    assert r.stderr.strip() == "greedy-py: greedy-py@1.0, the one version of it that has " \
                               "played here"
    r = arena("compare", folder, "random-py@2.0", "greedy-py")
    assert r.exit_code == 0 and "random-py@2.0 vs greedy-py@1.0" in r.stdout, r.output

    r = arena("compare", folder, "random-py", "greedy-py")
    assert r.exit_code == 2
    assert r.stderr.count("\n") == 1 and "random-py has played here as 2 versions: name one " \
                                          "(random-py@1.0, random-py@2.0)" in r.stderr
    r = arena("compare", folder, "mcts-py", "greedy-py")
    assert r.exit_code == 2 and "no bot named 'mcts-py' has played here" in r.stderr
