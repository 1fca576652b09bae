"""Time control arithmetic: limits, the per-game bank, the increment and the transport margin.

All values are integer milliseconds except measured times, which are floats of milliseconds.
The rules (``docs/protocol.md``, Time): a bot is told ``min(decision limit, bank)`` for a
decision; an answer is in time if it arrives within that plus the margin; the time used is taken
from the bank (not below zero) and the increment is added after each answer in time.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class TimeControl:
    """The time rules of a game. Every field is in milliseconds."""

    handshake_ms: int = 10_000
    decision_ms: int = 5_000
    bank_ms: int = 120_000
    increment_ms: int = 200
    margin_ms: int = 50

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if type(value) is not int or value < 0:
                raise ValueError(
                    f"time control {f.name} must be a whole number >= 0, not {value!r}"
                )
        if self.decision_ms == 0 or self.handshake_ms == 0:
            raise ValueError("time control decision_ms and handshake_ms must be positive")

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TimeControl:
        """Build from a mapping; unknown keys are an error naming them."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown time control field(s): {', '.join(unknown)}")
        return cls(**data)


class Clock:
    """One seat's clock for one game."""

    __slots__ = ("bank_ms", "control")

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank_ms: float = float(control.bank_ms)

    def allowance_ms(self) -> int:
        """What the bot is told it has for the next decision: min(decision limit, bank)."""
        return int(min(self.control.decision_ms, self.bank_ms))

    def deadline_ms(self) -> float:
        """How long the referee waits for the answer: the allowance plus the margin."""
        return self.allowance_ms() + self.control.margin_ms

    def charge(self, used_ms: float) -> bool:
        """Account for a decision that took ``used_ms``. Returns False if it was too late.

        In time: the bank loses ``used_ms`` (never below zero) and gains the increment. Too
        late: the bank is left as it was (the seat is out of the game anyway). In a game the
        connection enforces :meth:`deadline_ms` (:meth:`arena.protocol.server.Connection.ask`)
        and hands over only answers in time; the check here keeps a bank from ever paying
        for a late one.
        """
        if used_ms > self.deadline_ms():
            return False
        self.bank_ms = max(0.0, self.bank_ms - used_ms) + self.control.increment_ms
        return True
