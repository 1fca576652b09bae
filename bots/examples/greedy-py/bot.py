"""The greedy bot: the policy of the game being played (policies.py) behind Arena's Python SDK."""

from __future__ import annotations

from typing import Any

from policies import policy_for

from arena.protocol.client import Bot, run


class GreedyBot(Bot):
    name = "greedy-py"
    version = "1.0"
    components: dict[str, Any]

    def on_game_start(self, info: dict[str, Any]) -> None:
        self.components = info["components"]
        self.policy = policy_for(info["game"])

    def choose(
        self, observation: dict[str, Any], legal_actions: list[dict[str, Any]], time_left_ms: int
    ) -> int:
        return int(self.policy.choose(observation, legal_actions, self.components))


if __name__ == "__main__":
    run(GreedyBot())
