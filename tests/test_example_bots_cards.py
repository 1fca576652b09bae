"""The example bots play Agricola's card mode (options ``cards=base``, ``draft``) through the
referee: real processes, real sockets, one 2-player game each. random-py and random-js pick
random legal actions whatever their shape; greedy-py answers every card decision; the search
bot (mcts-py) builds its worlds from card observations with ``determinize``. A seat that sent
an illegal answer, crashed or timed out would not end "ok"."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from test_tournament_e2e import example

from arena.engine import get_game
from arena.runner.game.manifest import BotManifest
from arena.runner.game.record import verify
from arena.runner.game.referee import play_game

GAME = get_game("agricola")


def _play(bots: list[BotManifest], draft: str, tmp_path: Path) -> None:
    options = {"cards": "base", "draft": draft}
    record = play_game(GAME, 5, bots, log_dir=tmp_path, options=options)
    assert [t["reason"] for t in record.terminations] == ["ok", "ok"], record.terminations
    assert all(d[3] == "bot" for d in record.decisions)
    assert verify(record).ok
    # The record keeps the options that differ from the defaults.
    assert record.options == {k: v for k, v in options.items() if v != "deal"}


@pytest.mark.parametrize("draft", ["deal", "app"])
def test_random_py_and_random_js_play_a_card_game(draft: str, tmp_path: Path) -> None:
    bots = [BotManifest.load(example("random-py")), BotManifest.load(example("random-js"))]
    _play(bots, draft, tmp_path)


@pytest.mark.slow  # the search is slow to play out a card game; it is searched in-process in
# test_mcts_bot_cards, and the random bots' card games through the referee stay on
def test_greedy_py_and_the_search_bot_play_a_drafted_card_game(tmp_path: Path) -> None:
    mcts = BotManifest.load(example("mcts-py"))
    fixed = replace(mcts, command=("{python}", "bot.py", "--iterations", "2"))
    _play([fixed, BotManifest.load(example("greedy-py"))], "app", tmp_path)
