"""The Python bot SDK: a bot is one class (or one function), the SDK does the protocol.

    from arena.protocol.client import Bot, run

    class MyBot(Bot):
        name = "my-bot"
        version = "1.0"

        def choose(self, observation, legal_actions, time_left_ms):
            return 0  # an index into legal_actions

    if __name__ == "__main__":
        run(MyBot())

The SDK connects to the referee named by ``ARENA_ENDPOINT``, says hello with ``ARENA_TOKEN``,
answers pings, calls :meth:`Bot.choose` for every request, and exits cleanly on shutdown.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any

from arena import __version__
from arena.protocol.dealer import ConnectionLost, Dealer
from arena.protocol.messages import REFEREE_MESSAGES, ProtocolError, decode, encode

Choose = Callable[[dict[str, Any], list[dict[str, Any]], int], int]


class Bot:
    """Subclass and implement :meth:`choose`. ``name`` and ``version`` go in the hello."""

    name: str = "python-bot"
    version: str = "0.0"

    def on_game_start(self, info: dict[str, Any]) -> None:
        """Called with the ``game_start`` message (game, seat, num_players, time_control, and
        the game's ``options``, complete: every option of the game with its value)."""

    def choose(
        self, observation: dict[str, Any], legal_actions: list[dict[str, Any]], time_left_ms: int
    ) -> int:
        """Return the index of the chosen action in ``legal_actions``.

        ``time_left_ms`` is the time available for this decision (``decision_ms`` of the
        request); the bank is in ``self.time_bank_ms``.
        """
        raise NotImplementedError

    def on_game_end(self, result: dict[str, Any]) -> None:
        """Called with the ``game_end`` message (scores, ranks, terminations)."""

    time_bank_ms: int = 0


class FunctionBot(Bot):
    """A bot made from a function ``choose(observation, legal_actions, time_left_ms)``."""

    def __init__(self, choose: Choose, name: str, version: str = "1.0") -> None:
        self._choose = choose
        self.name = name
        self.version = version

    def choose(
        self, observation: dict[str, Any], legal_actions: list[dict[str, Any]], time_left_ms: int
    ) -> int:
        return self._choose(observation, legal_actions, time_left_ms)


class RefereeRefused(RuntimeError):
    """The referee answered the hello with an error (bad token, protocol mismatch)."""


def serve(bot: Bot, endpoint: str, token: str) -> None:
    """Speak the protocol for ``bot`` until the referee says shutdown.

    Raises :class:`RefereeRefused` if the hello is refused, :class:`ProtocolError` if the
    referee sends something that is not protocol, and :class:`ConnectionLost` if the connection
    ends before a shutdown.
    """
    sock = Dealer(endpoint)
    try:
        sock.send(encode({"type": "hello", "token": token, "name": bot.name,
                          "version": bot.version}))
        welcomed = False
        while True:
            msg = decode(sock.recv(), REFEREE_MESSAGES)
            mtype = msg["type"]
            if mtype == "request":
                bot.time_bank_ms = msg["time_left_ms"]
                index = bot.choose(msg["observation"], msg["legal_actions"], msg["decision_ms"])
                sock.send(encode({"type": "action", "request_id": msg["request_id"],
                                  "index": int(index)}))
            elif mtype == "ping":
                sock.send(encode({"type": "pong", "nonce": msg["nonce"]}))
            elif mtype == "welcome":
                welcomed = True
            elif mtype == "error":
                if not welcomed:
                    raise RefereeRefused(f"{msg['code']}: {msg['message']}")
                print(f"referee error {msg['code']}: {msg['message']}", file=sys.stderr)
            elif mtype == "game_start":
                bot.on_game_start(msg)
            elif mtype == "game_end":
                bot.on_game_end(msg)
            elif mtype == "shutdown":
                return
    finally:
        sock.close()


def run(bot: Bot | Choose, name: str | None = None, version: str = "1.0") -> None:
    """Run a bot as a program: read the environment, serve, exit with a status.

    Exit 0 after a shutdown; 2 if the environment is missing; 3 if the referee refused us; 4 if
    it sent what is not protocol; 5 if it could not be reached or closed the connection.
    """
    if not isinstance(bot, Bot):
        bot = FunctionBot(bot, name or str(getattr(bot, "__name__", "python-bot")), version)
    endpoint = os.environ.get("ARENA_ENDPOINT")
    token = os.environ.get("ARENA_TOKEN")
    if not endpoint or token is None:
        print(
            f"{bot.name}: ARENA_ENDPOINT and ARENA_TOKEN must be set; bots are started by "
            "Arena (try `arena check-bot PATH`)",
            file=sys.stderr,
        )
        sys.exit(2)
    try:
        serve(bot, endpoint, token)
    except RefereeRefused as exc:
        print(f"{bot.name}: refused by the referee: {exc}", file=sys.stderr)
        sys.exit(3)
    except ProtocolError as exc:
        print(f"{bot.name}: protocol error from the referee: {exc}", file=sys.stderr)
        sys.exit(4)
    except OSError as exc:  # ConnectionLost, or no referee at the endpoint
        print(f"{bot.name}: no connection to the referee at {endpoint}: {exc}", file=sys.stderr)
        sys.exit(5)
    sys.exit(0)


__all__ = ["Bot", "ConnectionLost", "FunctionBot", "RefereeRefused", "__version__", "run", "serve"]
