"""Shared pytest configuration: the --run-slow flag for long property runs, the engine's test
game (Dice Race), which is not installed as a plugin and is registered only for the tests that
ask for it, and the ``game`` fixture that runs a game-agnostic test on Stone Age and on Dice
Race; and a fixed seed key for every test (see :func:`pytest_configure`)."""

from __future__ import annotations

import compileall
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import arena
from arena.engine import Game, get_game, register, unregister
from arena.engine.testing import DICE_RACE, DiceRaceGame
from arena.protocol.wire import ZmtpTransport
from arena.seeds import KEY_FILE_ENV, seed_key_to_text

#: The seed key of the tests' games: fixed, so that a test whose assertions depend on what
#: seeded bots do (a seed with which a bot wins, a resumed run equal to another run) holds on
#: every run and every machine, and no test reads or writes the user's own key file.
TEST_SEED_KEY = bytes(range(32))


def pytest_configure(config: pytest.Config) -> None:
    if not hasattr(config, "workerinput"):  # once, before any worker starts
        cache_bytecode()
    interruptible()
    # In the environment, so subprocesses (the arena command, tournament workers) use it too.
    folder = Path(tempfile.mkdtemp(prefix="arena-test-key-"))
    path = folder / "seed-key"
    path.write_text(seed_key_to_text(TEST_SEED_KEY) + "\n", encoding="ascii")
    os.environ[KEY_FILE_ENV] = str(path)
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def interruptible() -> None:
    """Give SIGINT and SIGQUIT their usual actions in this process if they are ignored, as in a
    command a shell without job control starts in the background (``./test &``, ``nohup``):
    an ignored signal stays ignored in every process started from here, and the tests that
    stop a run or a game with Ctrl-C would wait for it to end on its own."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN:
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)


#: The package and the example bots, whose modules every process the tests start imports.
BYTECODE_TREES = (Path(arena.__file__).resolve().parent,
                  Path(__file__).resolve().parent.parent / "bots" / "examples")


def cache_bytecode() -> None:
    """Write the bytecode of :data:`BYTECODE_TREES` beside the sources (``__pycache__``, as
    Python does by default). The tests start hundreds of ``arena`` commands, game workers and
    bots; where writing bytecode is off (``PYTHONDONTWRITEBYTECODE``, and always inside a
    bot's sandbox), each of them would otherwise compile every module it imports from
    source, a quarter of a second of CPU for a command. Reading bytecode stays on there."""
    for tree in BYTECODE_TREES:
        compileall.compile_dir(tree, quiet=2, workers=1)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--run-slow", action="store_true", default=False,
        help="also run the long property and soak tests marked slow",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="long run: give --run-slow to include it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def transport() -> Iterator[ZmtpTransport]:
    """The referee's real wire transport (doors are unix sockets), closed after the test."""
    t = ZmtpTransport()
    try:
        yield t
    finally:
        t.close()


@pytest.fixture
def dicerace() -> Iterator[DiceRaceGame]:
    """Dice Race, registered under its name for the duration of one test."""
    register(DICE_RACE)
    try:
        yield DICE_RACE
    finally:
        unregister(DICE_RACE)


@pytest.fixture(params=["stoneage", "dicerace"])
def game(request: pytest.FixtureRequest) -> Game:
    """Each game the generic referee, tournament and CLI tests run on: Stone Age (installed)
    and Dice Race (registered for the test's duration by the ``dicerace`` fixture)."""
    if request.param == "dicerace":
        return request.getfixturevalue("dicerace")
    return get_game(request.param)
