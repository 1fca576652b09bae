"""`arena replay`: the move list and the position before any decision, from a real record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine import get_game
from arena.runner.game.record import BY_BOT, Decision, GameRecord
from arena.runner.game.replay import moves, position

cli = CliRunner()


def recorded(tmp_path: Path, game: str = "agricola", seed: int = 4) -> Path:
    path = tmp_path / "game.json"
    r = cli.invoke(app, ["play", game, "--players", "2", "--seed", str(seed),
                         "--record", str(path)])
    assert r.exit_code == 0, r.output
    return path


def test_the_move_list_has_every_decision_and_ends_on_the_final_scores(tmp_path: Path) -> None:
    record = GameRecord.load(recorded(tmp_path))
    listed = moves(record)
    assert [m.number for m in listed] == list(range(len(record.decisions)))
    assert [m.action for m in listed] == [d[4] for d in record.decisions]
    assert listed[-1].scores == tuple(record.result["scores"])
    assert listed[0].progress == 1 and listed[-1].progress == 14
    r = cli.invoke(app, ["replay", str(tmp_path / "game.json"), "--moves"],
                   env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert r.output.count('{"type":') == len(record.decisions)


def test_the_position_before_a_decision_is_what_the_bot_was_sent_and_loads_again(
    tmp_path: Path,
) -> None:
    path = recorded(tmp_path)
    record = GameRecord.load(path)
    n = len(record.decisions) // 2
    r = cli.invoke(app, ["replay", str(path), "--at", str(n)])
    assert r.exit_code == 0, r.output
    doc = json.loads(r.output)
    assert doc == position(record, n)
    assert doc["observation"]["current_player"] == doc["seat"] == record.decisions[n][0]
    assert doc["legal_actions"][doc["chosen"]["index"]] == doc["chosen"]["action"]
    state = get_game("agricola").state_from_dict(doc["state"])
    assert state.legal_actions() == doc["legal_actions"]
    bad = cli.invoke(app, ["replay", str(path), "--at", str(len(record.decisions))])
    assert bad.exit_code == 2 and "error:" in bad.output


def test_every_committed_game_record_reads_and_writes_back_byte_for_byte(
        tmp_path: Path) -> None:
    files = sorted(Path(__file__).parent.parent.glob("leaderboards/*/games/*.json"))
    assert files, "the committed leaderboards hold game records"
    for file in files:
        record = GameRecord.load(file)
        assert all(isinstance(d, Decision) for d in record.decisions), file
        assert record.to_json().encode() == file.read_bytes(), file
    # What save writes is that text (each save is a synced write, so one stands for all).
    record = GameRecord.load(files[0])
    record.save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == files[0].read_bytes()


def test_a_decision_is_written_as_a_list_in_its_fields_order_and_read_back_by_name() -> None:
    d = Decision(1, 3, 12.5, BY_BOT, {"type": "pass"})
    assert json.dumps(d) == '[1, 3, 12.5, "bot", {"type": "pass"}]'
    back = Decision.from_list(0, json.loads(json.dumps(d)))
    assert back == d and (back.seat, back.choice, back.ms, back.by) == (1, 3, 12.5, "bot")


def test_a_record_whose_decision_is_not_a_list_of_five_is_refused_naming_it(
        tmp_path: Path) -> None:
    data = json.loads(recorded(tmp_path).read_text())
    data["decisions"][2] = data["decisions"][2][:4]
    with pytest.raises(ValueError, match="decision 2 is not a list of seat, choice, ms, by, "
                                         "action"):
        GameRecord.from_dict(data)
