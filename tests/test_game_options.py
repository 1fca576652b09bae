"""Game options: the engine contract (validate_options, new_state with options, a state that
keeps them through clone, save and determinize), on Dice Race, whose option ``hand`` is the
number of cards dealt to each seat, and on Stone Age, which has none; then the options carried
through the runner: a tournament file's [game] options reaching real bots' game_start and the
engine, the records, the journal's identity, and the command line's --option."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import signal
import tomllib
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from arena.cli.main import app
from arena.engine import OptionSpec, get_game
from arena.engine.testing import DICE_RACE, DiceRaceGame
from arena.league.config import league_toml, load_league, parse_league
from arena.runner.game.record import GameRecord, verify
from arena.runner.play.config import load_config
from arena.runner.play.journal import JOURNAL, Journal
from arena.runner.play.settings import ConfigError, Overrides


def test_a_game_without_options_validates_to_nothing_and_refuses_any() -> None:
    stoneage = get_game("stoneage")
    assert stoneage.options_schema() == {}
    assert stoneage.validate_options(None) == {} == stoneage.validate_options({})
    with pytest.raises(ValueError, match="stoneage has no option 'cards': it has no options"):
        stoneage.validate_options({"cards": "base"})


def test_validate_options_fills_the_defaults_and_sorts_the_keys() -> None:
    assert DICE_RACE.validate_options(None) == {"hand": "2"}
    assert DICE_RACE.validate_options({"hand": "3"}) == {"hand": "3"}
    assert DICE_RACE.canonical_options({"hand": "2"}) == {}
    assert DICE_RACE.canonical_options({"hand": "1"}) == {"hand": "1"}


def test_whole_numbers_and_booleans_stand_for_their_text() -> None:
    assert DICE_RACE.validate_options({"hand": 3}) == {"hand": "3"}
    with pytest.raises(ValueError, match="'hand' must be one of 1, 2, 3, got True"):
        DICE_RACE.validate_options({"hand": True})


@pytest.mark.parametrize("raw, words", [
    ({"hands": "3"}, "dicerace has no option 'hands': its options are hand"),
    ({"hand": "4"}, "dicerace option 'hand' must be one of 1, 2, 3, got '4'"),
    ({"hand": 2.0}, "dicerace option 'hand' must be one of 1, 2, 3, got 2.0"),
    ({"hand": ""}, "must be one of 1, 2, 3, got ''"),
])
def test_a_bad_option_is_named_with_what_it_allows(raw: dict, words: str) -> None:
    with pytest.raises(ValueError, match=re.escape(words)):
        DICE_RACE.validate_options(raw)
    with pytest.raises(ValueError, match=r"must be one of|has no option"):
        DICE_RACE.new_state(2, seed=1, options=raw)


def test_an_option_spec_holds_its_default_among_its_values() -> None:
    with pytest.raises(ValueError, match="default"):
        OptionSpec(("1", "2"), "3")
    with pytest.raises(ValueError, match="non-empty"):
        OptionSpec((), "")


@pytest.mark.parametrize("hand", [1, 2, 3])
def test_the_option_reaches_the_engine_and_the_state_keeps_it(hand: int) -> None:
    state = DICE_RACE.new_state(3, seed=7, options={"hand": str(hand)})
    assert state.options == {"hand": str(hand)}
    obs = state.observation(0)
    assert obs["options"] == {"hand": str(hand)}
    assert obs["deck_size"] == 18 - 3 * hand
    assert len(obs["hand"]) == hand and obs["hand_sizes"] == [hand] * 3
    state.options["hand"] = "9"  # a copy: the state's own cannot be changed
    assert state.options == {"hand": str(hand)}
    saved = state.to_dict()
    # Saved with what differs from the defaults, and without the key when nothing does.
    assert saved.get("options", "absent") == ("absent" if hand == 2 else {"hand": str(hand)})
    back = DICE_RACE.state_from_dict(saved)
    assert back.options == state.options and back.to_dict() == saved
    assert state.clone().options == state.options
    if not state.is_terminal:
        seat = state.current_player
        assert seat is not None
        guess = DICE_RACE.determinize(state.observation(seat), random.Random(1))
        assert guess.options == state.options
        assert guess.observation(seat) == state.observation(seat)


def test_the_default_game_is_the_game_without_options() -> None:
    plain, given = DICE_RACE.new_state(2, seed=4), DICE_RACE.new_state(2, seed=4,
                                                                     options={"hand": "2"})
    assert plain.to_dict() == given.to_dict()
    assert "options" not in plain.to_dict()
    stoneage = get_game("stoneage").new_state(2, seed=4)
    assert stoneage.options == {} and "options" not in stoneage.to_dict()


def test_a_saved_state_with_a_bad_option_is_refused() -> None:
    saved = DICE_RACE.new_state(2, seed=4).to_dict()
    with pytest.raises(ValueError, match="malformed dicerace state"):
        DICE_RACE.state_from_dict({**saved, "options": {"hand": "7"}})


# ---------------------------------------------------------------- a tournament with options
# `arena run` in this process (Dice Race is registered here by the fixture; each game worker
# gets the game and its options in the job), with real bot processes, real sockets and the
# real journal. The spy bot plays at random and writes, to its output (which the runner keeps
# in the bots' logs), the options its game_start carried, and at its first request its hand
# (not played from yet, whichever its seat) and the deck's size (no seat can draw on its first
# turn with a full hand of 3, so 18 - 2 * 3 cards are left).

SPY = '''\
import json, sys
from arena.protocol.client import run
from arena.protocol.reference_bot import RandomBot

class Spy(RandomBot):
    def on_game_start(self, info):
        super().on_game_start(info)
        self.first = True
        print("game_start options " + json.dumps(info["options"]), file=sys.stderr, flush=True)

    def choose(self, observation, legal_actions, time_left_ms):
        if self.first:
            self.first = False
            print(f"first request: hand {len(observation['hand'])}, deck "
                  f"{observation['deck_size']}, options " + json.dumps(observation["options"]),
                  file=sys.stderr, flush=True)
        return super().choose(observation, legal_actions, time_left_ms)

run(Spy("spy", "1.0"))
'''
EXAMPLES = Path(__file__).resolve().parent.parent / "bots" / "examples"


def spy_bot(folder: Path) -> Path:
    bot = folder / "spy"
    bot.mkdir()
    (bot / "bot.py").write_text(SPY, encoding="utf-8")
    (bot / "bot.toml").write_text('name = "spy"\nversion = "1.0"\nlanguage = "python"\n'
                                  'command = ["{python}", "bot.py"]\n', encoding="utf-8")
    return bot


def tournament_file(folder: Path, game: str, bots: list[Path], **extra: str) -> Path:
    lines = ['name = "options"', 'format = "round-robin"', "players = 2", "rounds = 1",
             "seed = 5", "concurrency = 1", 'sandbox = "none"',
             f'output = "{folder / "out"}"', *(f"{k} = {v}" for k, v in extra.items()),
             game]
    for bot in bots:
        lines += ["[[bots]]", f'path = "{bot}"']
    file = folder / "options.toml"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return file


def arena(*args: str) -> Result:
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        return CliRunner().invoke(app, list(args))
    finally:  # `arena run` installs its own handlers: keep pytest's
        for s, handler in saved.items():
            signal.signal(s, handler)


def test_a_tournament_plays_its_games_with_the_options_of_its_file_and_keeps_them(
    tmp_path: Path, dicerace: DiceRaceGame,
) -> None:
    file = tournament_file(tmp_path, '[game]\nname = "dicerace"\noptions = { hand = 3 }',
                           [spy_bot(tmp_path), EXAMPLES / "random-py"])
    config = load_config(file)
    assert config.options == {"hand": "3"}
    assert config.identity()["game_options"] == {"hand": "3"}
    r = arena("run", str(file), "--plain")
    assert r.exit_code == 0, r.output
    out = tmp_path / "out"
    records = sorted((out / "games").glob("*.json"))
    assert len(records) == 2
    for path in records:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["options"] == {"hand": "3"}
        record = GameRecord.load(path)
        assert verify(record).ok
        assert arena("replay", str(path)).exit_code == 0
        # The same decisions under the default hand are not the game that was played.
        assert not verify(dataclasses.replace(record, options={})).ok
    said = "".join(p.read_text(encoding="utf-8", errors="replace")
                   for p in (out / "logs").rglob("*") if p.is_file())
    assert said.count('game_start options {"hand": "3"}') == 2
    assert said.count('first request: hand 3, deck 12, options {"hand": "3"}') == 2
    # The identity the journal holds has the options, and a resume with others is refused.
    journal = Journal(out / JOURNAL, readonly=True)
    try:
        assert journal.meta()["identity"]["game_options"] == {"hand": "3"}
    finally:
        journal.close()
    again = arena("run", str(file), "--plain", "--option", "hand=1")
    assert again.exit_code == 2
    assert "differs in: game_options" in " ".join(again.output.split())
    assert arena("run", str(file), "--plain").exit_code == 0  # the same options resume


def test_a_tournament_without_options_keeps_the_identity_it_had(
    tmp_path: Path, dicerace: DiceRaceGame,
) -> None:
    bots = [EXAMPLES / "random-py", EXAMPLES / "random-js"]
    plain = load_config(tournament_file(tmp_path, 'game = "dicerace"', bots))
    named = load_config(tournament_file(
        tmp_path, '[game]\nname = "dicerace"\noptions = { hand = "2" }', bots))
    assert plain.options == named.options == {"hand": "2"}
    assert plain.identity() == named.identity()
    assert "game_options" not in plain.identity()
    assert "game_options" not in load_config(
        tournament_file(tmp_path, 'game = "stoneage"', bots)).identity()
    # --option puts its value over the file's.
    over = load_config(tournament_file(tmp_path, 'game = "dicerace"', bots),
                       Overrides(options=(("hand", "1"),)))
    assert over.options == {"hand": "1"}


@pytest.mark.parametrize("game, words", [
    ('[game]\nname = "dicerace"\noptions = { hand = "5" }',
     "'game.options' dicerace option 'hand' must be one of 1, 2, 3, got '5'"),
    ('[game]\nname = "dicerace"\noptions = { size = "1" }',
     "'game.options' dicerace has no option 'size': its options are hand"),
    ('[game]\nname = "stoneage"\noptions = { cards = "base" }',
     "'game.options' stoneage has no option 'cards': it has no options"),
    ('[game]\nname = "dicerace"\noptions = "hand=3"', "'game.options' must be a table"),
    ('[game]\nname = "dicerace"\nvariant = "x"', "'game' has unknown field(s): variant"),
])
def test_a_bad_option_in_the_file_is_one_line_naming_the_file(
    tmp_path: Path, dicerace: DiceRaceGame, game: str, words: str,
) -> None:
    file = tournament_file(tmp_path, game, [EXAMPLES / "random-py", EXAMPLES / "random-js"])
    with pytest.raises(ConfigError) as caught:
        load_config(file)
    assert str(caught.value).startswith(f"{file}: ") and words in str(caught.value)
    r = arena("run", str(file), "--plain")
    assert r.exit_code == 2 and words in " ".join(r.output.split())
    assert "Traceback" not in r.output


@pytest.mark.parametrize("args, words", [
    (["play", "dicerace", "--option", "hand=4"],
     "dicerace option 'hand' must be one of 1, 2, 3, got '4' (--option)"),
    (["play", "dicerace", "--option", "hand"], "--option 'hand' is not NAME=VALUE"),
    (["play", "dicerace", "--option", "hand=1", "--option", "hand=3"],
     "--option hand is given twice"),
    (["play", "stoneage", "--option", "cards=base"], "stoneage has no option 'cards'"),
])
def test_a_bad_option_on_the_command_line_is_one_line_and_exit_2(
    dicerace: DiceRaceGame, args: list[str], words: str,
) -> None:
    r = arena(*args)
    assert r.exit_code == 2 and words in " ".join(r.output.split())
    assert len(r.output.strip().splitlines()) == 1


def test_arena_play_plays_with_the_option_and_lists_it(
    tmp_path: Path, dicerace: DiceRaceGame,
) -> None:
    record = tmp_path / "game.json"
    r = arena("play", "dicerace", "--seed", "3", "--option", "hand=1", "--json",
              "--record", str(record))
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["options"] == {"hand": "1"}
    assert json.loads(record.read_text())["options"] == {"hand": "1"}
    at = arena("replay", str(record), "--at", "0")
    assert at.exit_code == 0 and json.loads(at.output)["observation"]["options"] == {"hand": "1"}
    plain = arena("play", "dicerace", "--seed", "3", "--json", "--option", "hand=2")
    assert "options" not in json.loads(plain.output)  # the defaults are the game as it was
    games = arena("games")
    assert "hand = 2 | 1 | 3" in games.output


def test_a_league_takes_the_game_options_as_a_tournament_does(
    tmp_path: Path, dicerace: DiceRaceGame,
) -> None:
    plain = parse_league({"game": "dicerace", "players": 2}, tmp_path)
    assert plain.options == {"hand": "2"} and "game_options" not in plain.identity()
    three = parse_league({"game": {"name": "dicerace", "options": {"hand": "3"}},
                          "players": 2}, tmp_path)
    assert three.options == {"hand": "3"}
    assert three.identity() == {**plain.identity(), "game_options": {"hand": "3"}}
    # What `arena league init` writes reads back as the same league.
    assert parse_league(tomllib.loads(league_toml(three)), tmp_path) == three
    assert 'game = "dicerace"' in league_toml(plain)
    with pytest.raises(ConfigError, match=r"'game\.options' dicerace option 'hand' must be"):
        parse_league({"game": {"name": "dicerace", "options": {"hand": "0"}},
                      "players": 2}, tmp_path)
    r = arena("league", "init", str(tmp_path / "lg"), "--game", "dicerace", "--option",
              "hand=1")
    assert r.exit_code == 0, r.output
    assert load_league(tmp_path / "lg").options == {"hand": "1"}


def test_an_agricola_card_tournament_plays_real_bots_and_its_records_replay(
    tmp_path: Path,
) -> None:
    """Card mode through the runner: two example bots (Python and JavaScript processes) play
    the full game with the base deck; the records keep the options and replay."""
    file = tournament_file(tmp_path, '[game]\nname = "agricola"\noptions = { cards = "base" }',
                           [EXAMPLES / "random-py", EXAMPLES / "random-js"])
    config = load_config(file)
    assert config.options == {"cards": "base", "draft": "deal"}
    assert config.identity()["game_options"] == {"cards": "base"}
    r = arena("run", str(file), "--plain")
    assert r.exit_code == 0, r.output
    records = sorted((tmp_path / "out" / "games").glob("*.json"))
    assert len(records) == 2
    for path in records:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["options"] == {"cards": "base"}
        assert data["rules_version"] == get_game("agricola").rules_version
        record = GameRecord.load(path)
        assert verify(record).ok
        assert not verify(dataclasses.replace(record, options={})).ok  # not the Family game
