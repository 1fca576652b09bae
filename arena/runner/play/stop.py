"""Stopping rules: a tournament file's ``[stop]`` says when enough is known to stop playing.

    [stop]
    sprt = { elo0 = 0, elo1 = 10, alpha = 0.05, beta = 0.05, model = "logistic" }
    # or, at tables of any size:
    intervals = { confidence = 0.99, min_games = 40 }

**SPRT** (two-player tables with seat rotation): in a round-robin of two bots, the first named
against the second; in a gauntlet, each candidate against the whole field, its game pairs
against every field bot pooled. The rule decides once every such test has accepted H0 or H1
(:func:`arena.stats.match.sprt`, over complete game pairs only, as ``arena compare`` counts
them). A test ends at its decision, as a test of its own would: a gauntlet candidate whose
test decided plays on while others have not, and those games count in the standings, not in
its test.

**Intervals** (any table size): every pair that matters, a gauntlet's candidates against each
field bot or else every pair of bots, has played at least ``min_games`` games together and the
Wilson interval at ``confidence`` of how often the first finished ahead of the second (level
finishes left out, :mod:`arena.stats.tables`) excludes one half. The interval is looked at
after every game, and each look is a chance for luck to carry it past one half: the chance
that some look errs is well above the nominal level, which is why the default confidence is
99%, not 95%, and why ``min_games`` keeps the first, noisiest looks from deciding.

There is no cap of the rule's own: the schedule's size (``rounds``, ``max_games``) is the cap,
and a tournament whose schedule ends before the rule decides records that it did.

The state is kept up to date one game at a time (:class:`StopWatch`): an interval is computed
again only for the pairs of the game's table, an SPRT only when a game completes a pair and
its pairs grew by a hundredth (:data:`LOOK_EVERY`) since its last look, at least one: after
every pair up to 200 pairs, then every second, third... (as Fishtest looks at batches of
games). A look costs about 0.3 ms (logistic) or 1-2 ms (normalised Elo). Looking less often
only makes the test more cautious (it may decide a little later); the figures recorded are
those of the last look.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from statistics import NormalDist
from typing import Any

from arena.results import GameOutcome
from arena.stats.common import set_key, wilson
from arena.stats.match import Model, Sprt, match, sprt
from arena.stats.tables import head_to_head

SPRT_MODELS: tuple[Model, ...] = ("logistic", "normalized")
#: An SPRT is looked at again once its pairs grew by their number over this since its last
#: look (at least one pair).
LOOK_EVERY = 100
_KNOWN = {"sprt", "intervals"}
_SPRT_KNOWN = {"elo0", "elo1", "alpha", "beta", "model"}
_INTERVALS_KNOWN = {"confidence", "min_games"}


@dataclass(frozen=True)
class SprtRule:
    """Stop once the SPRT of H1 (better by ``elo1``) against H0 (by ``elo0``) decides; the
    defaults are ``arena compare``'s."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "logistic"

    def test(self, counts: Sequence[float]) -> Sprt:
        return sprt(counts, self.elo0, self.elo1, self.alpha, self.beta, self.model)

    def hypotheses(self) -> str:
        """``H0 elo≤0 H1 elo≥10`` (nElo for the normalised model)."""
        unit = "elo" if self.model == "logistic" else "nElo"
        return f"H0 {unit}≤{self.elo0:g} H1 {unit}≥{self.elo1:g}"


@dataclass(frozen=True)
class IntervalsRule:
    """Stop once every pair's head-to-head interval at ``confidence`` excludes parity, each
    after at least ``min_games`` games together."""

    confidence: float = 0.99
    min_games: int = 40

    @property
    def z(self) -> float:
        """The two-sided normal quantile of the confidence."""
        return NormalDist().inv_cdf((1 + self.confidence) / 2)


@dataclass(frozen=True)
class StopRule:
    """A validated ``[stop]`` section: exactly one of the two rules."""

    sprt: SprtRule | None = None
    intervals: IntervalsRule | None = None

    @property
    def name(self) -> str:
        return "sprt" if self.sprt is not None else "intervals"

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the tournament's identity."""
        if self.sprt is not None:
            s = self.sprt
            return {"sprt": {"elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha,
                             "beta": s.beta, "model": s.model}}
        assert self.intervals is not None
        return {"intervals": {"confidence": self.intervals.confidence,
                              "min_games": self.intervals.min_games}}


Fail = Callable[[str, str], Exception]


def parse_stop(raw: Any, fail: Fail, fmt: str, players: int, bots: Sequence[str],
               rotation: bool | None) -> StopRule:
    """The ``[stop]`` table of a tournament of this shape; ``fail(field, problem)`` makes the
    error."""
    if not isinstance(raw, dict):
        raise fail("stop", "must be a table")
    if "max_games" in raw:
        raise fail("stop.max_games", "is not a stop field: the schedule's size is the cap "
                                     "(set 'max_games' or 'rounds' at the top of the file)")
    unknown = sorted(set(raw) - _KNOWN)
    if unknown:
        raise fail("stop", f"has unknown field(s): {', '.join(unknown)} "
                           f"(known: {', '.join(sorted(_KNOWN))})")
    if len(raw) != 1:
        raise fail("stop", "must give one rule: sprt = { ... } (two players) or "
                           "intervals = { ... }")
    if fmt == "swiss":
        raise fail("stop", "does not apply to a swiss tournament: it pairs bots by their "
                           "results, so the pairs a rule looks at need not meet")
    if "sprt" in raw:
        return StopRule(sprt=_parse_sprt(raw["sprt"], fail, fmt, players, bots, rotation))
    return StopRule(intervals=_parse_intervals(raw["intervals"], fail))


def _table(raw: Any, field: str, known: set[str], fail: Fail) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise fail(field, "must be a table, e.g. { " + ", ".join(
            f"{k} = ..." for k in sorted(known)) + " }")
    unknown = sorted(set(raw) - known)
    if unknown:
        raise fail(field, f"has unknown field(s): {', '.join(unknown)} "
                          f"(known: {', '.join(sorted(known))})")
    return raw


def _number(raw: dict[str, Any], key: str, default: float, field: str, fail: Fail) -> float:
    value = raw.get(key, default)
    if type(value) not in (int, float) or not math.isfinite(value):
        raise fail(f"{field}.{key}", f"must be a number, got {value!r}")
    return float(value)


def _parse_sprt(raw: Any, fail: Fail, fmt: str, players: int, bots: Sequence[str],
                rotation: bool | None) -> SprtRule:
    field = "stop.sprt"
    table = _table(raw, field, _SPRT_KNOWN, fail)
    if players != 2:
        raise fail(field, f"needs two-player tables (players = 2), not {players}")
    if fmt == "round-robin" and len(bots) != 2:
        raise fail(field, f"needs a round-robin of exactly two bots (the first named is tested "
                          f"against the second) or a gauntlet; this one has {len(bots)}")
    if rotation is False:
        raise fail(field, "needs seat_rotation = true: it counts game pairs, the two seats of "
                          "one table")
    d = SprtRule()
    elo0 = _number(table, "elo0", d.elo0, field, fail)
    elo1 = _number(table, "elo1", d.elo1, field, fail)
    if not elo0 < elo1:
        raise fail(field, f"elo0 must be below elo1, got {elo0:g} and {elo1:g}")
    alpha = _number(table, "alpha", d.alpha, field, fail)
    beta = _number(table, "beta", d.beta, field, fail)
    for key, value in (("alpha", alpha), ("beta", beta)):
        if not 0 < value < 0.5:
            raise fail(f"{field}.{key}", f"must be between 0 and 0.5, got {value:g}")
    model = table.get("model", d.model)
    if model not in SPRT_MODELS:
        raise fail(f"{field}.model", f"must be one of {', '.join(SPRT_MODELS)}, got {model!r}")
    rule = SprtRule(elo0, elo1, alpha, beta, model)
    try:  # bounds whose likelihood ratio cannot be computed fail here, not mid-run
        for counts in ((1, 1, 1, 1, 1), (0, 0, 0, 0, 1), (1, 0, 0, 0, 0)):
            rule.test(counts)
    except (ArithmeticError, ValueError):
        raise fail(field, f"cannot compute the {model} likelihood ratio of elo0 {elo0:g} "
                          f"against elo1 {elo1:g}: choose bounds nearer zero") from None
    return rule


def _parse_intervals(raw: Any, fail: Fail) -> IntervalsRule:
    field = "stop.intervals"
    table = _table(raw, field, _INTERVALS_KNOWN, fail)
    d = IntervalsRule()
    confidence = _number(table, "confidence", d.confidence, field, fail)
    if not 0.5 < confidence < 1:
        raise fail(f"{field}.confidence", f"must be between 0.5 and 1, got {confidence:g}")
    min_games = table.get("min_games", d.min_games)
    if type(min_games) is not int or min_games < 1:
        raise fail(f"{field}.min_games", f"must be a whole number >= 1, got {min_games!r}")
    return IntervalsRule(confidence, min_games)


# ---------------------------------------------------------------------------- the state


@dataclass(frozen=True)
class _Tested:
    """One SPRT: ``bot`` against ``field`` pooled."""

    bot: str
    field: tuple[str, ...]


class StopWatch:
    """A rule's state over a tournament's finished games, one game at a time (in any order).

    ``bots`` in the file's order; ``candidates`` a gauntlet's (empty otherwise).
    """

    def __init__(self, rule: StopRule, bots: Sequence[str],
                 candidates: Sequence[str] = ()) -> None:
        self.rule = rule
        self.games = 0
        field = tuple(b for b in bots if b not in candidates)
        if candidates:
            self.tested = [_Tested(c, field) for c in candidates]
            pairs = [(c, f) for c in candidates for f in field]
        else:
            self.tested = [_Tested(bots[0], tuple(bots[1:2]))]
            pairs = list(combinations(bots, 2))
        # SPRT: each test's pentanomial counts, the sets not yet complete, and the counts and
        # the result (None if not computable) of its last look.
        self._penta = {t.bot: [0] * 5 for t in self.tested}
        self._open: dict[tuple[int, int, int, frozenset[str]], list[GameOutcome]] = {}
        self._looked: dict[str, tuple[tuple[int, ...], Sprt | None]] = {}
        # Intervals: each pair's ahead/behind/level, oriented as listed, and which decided.
        self._order = [*candidates, *field] if candidates else list(bots)
        self._h2h = {p: [0, 0, 0] for p in pairs}
        self._decided: set[tuple[str, str]] = set()

    # ------------------------------------------------------------------ feeding
    def add(self, outcome: GameOutcome) -> None:
        self.games += 1
        if self.rule.sprt is not None:
            self._add_to_sprt(outcome)
        else:
            self._add_to_intervals(outcome)

    def _add_to_sprt(self, o: GameOutcome) -> None:
        test = next((t for t in self.tested if t.bot in o.bots), None)
        if test is None or len(o.bots) != 2 or self._test_decided(test.bot):
            return
        opponent = o.bots[1 - o.bots.index(test.bot)]
        if opponent not in test.field:
            return
        key = set_key(o)
        games = self._open.setdefault(key, [])
        games.append(o)
        if len(games) < 2:
            return  # half a pair counts for nothing yet
        del self._open[key]  # a two-player set is a pair: complete, it never changes again
        counts = self._penta[test.bot]
        for i, n in enumerate(match(games, test.bot, opponent).pentanomial):
            counts[i] += n
        pairs = sum(counts)
        last = sum(self._looked[test.bot][0]) if test.bot in self._looked else 0
        if pairs - last >= max(1, pairs // LOOK_EVERY):
            self._look(test.bot)

    def _look(self, bot: str) -> None:
        rule = self.rule.sprt
        assert rule is not None
        counts = tuple(self._penta[bot])
        try:
            self._looked[bot] = (counts, rule.test(counts))
        except (ArithmeticError, ValueError):
            self._looked[bot] = (counts, None)  # not computable for these counts: undecided

    def _sprt(self, bot: str) -> Sprt | None:
        """The test's result at its last look (None before any, or if not computable)."""
        return self._looked[bot][1] if bot in self._looked else None

    def _test_decided(self, bot: str) -> bool:
        s = self._sprt(bot)
        return s is not None and s.verdict != "continue"

    def flush(self) -> None:
        """Look at every SPRT whose last look missed pairs (at the schedule's end)."""
        for t in self.tested:
            looked = self._looked.get(t.bot)
            if sum(self._penta[t.bot]) and (looked is None
                                            or list(looked[0]) != self._penta[t.bot]):
                self._look(t.bot)

    def _add_to_intervals(self, o: GameOutcome) -> None:
        rule = self.rule.intervals
        assert rule is not None
        for h in head_to_head([o], self._order):
            counts = self._h2h.get((h.a, h.b))
            if counts is None:
                continue  # two field bots of a gauntlet: not a pair the rule looks at
            counts[0] += h.ahead
            counts[1] += h.behind
            counts[2] += h.level
            if self._pair_decided(counts, rule):
                self._decided.add((h.a, h.b))
            else:
                self._decided.discard((h.a, h.b))

    @staticmethod
    def _pair_decided(counts: list[int], rule: IntervalsRule) -> bool:
        ahead, behind, level = counts
        return (ahead + behind + level >= rule.min_games
                and wilson(ahead, ahead + behind, rule.z).excludes(0.5))

    # ------------------------------------------------------------------ reading
    def decided(self) -> bool:
        """Whether the rule has decided over the games added so far."""
        if self.rule.sprt is not None:
            return all(self._test_decided(t.bot) for t in self.tested)
        return len(self._decided) == len(self._h2h)

    def decision(self) -> dict[str, Any] | None:
        """The record of the rule's decision (what the journal keeps as ``stopped_by``), or
        None while it has not decided."""
        return self.record(schedule_ended=False) if self.decided() else None

    def record(self, schedule_ended: bool) -> dict[str, Any]:
        """Why the tournament stopped, with the figures at this point, as plain data:
        the rule's decision, or (``schedule_ended``) that the schedule ended first."""
        out: dict[str, Any] = {"rule": self.rule.name}
        if schedule_ended:
            verdict = f"undecided: the schedule ended before the {self._rule_label()} decided"
        elif self.rule.sprt is not None:
            tests = [s for t in self.tested if (s := self._sprt(t.bot)) is not None]
            verdict = (f"{tests[0].verdict} accepted" if len(tests) == 1
                       else "every candidate's SPRT decided")
        else:
            verdict = "every interval excludes parity"
        out["verdict"] = verdict
        out["schedule_ended"] = schedule_ended
        out["games"] = self.games
        out.update(self._figures())
        out["summary"] = self._summary(verdict, schedule_ended)
        return out

    def _rule_label(self) -> str:
        return "SPRT" if self.rule.sprt is not None else "intervals"

    def _figures(self) -> dict[str, Any]:
        if self.rule.sprt is not None:
            tests = []
            for t in self.tested:
                counts, s = self._looked.get(t.bot, ((0, 0, 0, 0, 0), None))
                tests.append({"bot": t.bot, "against": list(t.field),
                              "pairs": sum(counts), "pentanomial": list(counts),
                              **(s.to_dict() if s is not None else
                                 {"verdict": "continue", "llr": None})})
            return {"sprt": tests}
        rule = self.rule.intervals
        assert rule is not None
        undecided = []
        for (a, b), (ahead, behind, level) in self._h2h.items():
            if (a, b) not in self._decided:
                ci = wilson(ahead, ahead + behind, rule.z)
                undecided.append({"a": a, "b": b, "games": ahead + behind + level,
                                  "ahead": ahead, "behind": behind, "level": level,
                                  "interval": ci.to_list()})
        return {"confidence": rule.confidence, "min_games": rule.min_games,
                "pairs": len(self._h2h), "decided": len(self._decided),
                "undecided": undecided}

    def _summary(self, verdict: str, schedule_ended: bool) -> str:
        """One line for people: the verdict, when, and the figures."""
        if schedule_ended:
            head = f"the schedule ended ({self.games} games) before the {self._rule_label()} " \
                   "decided"
        else:
            head = f"{'SPRT ' if self.rule.sprt is not None else ''}{verdict} after " \
                   f"{self.games} games"
        if self.rule.sprt is not None:
            return f"{head}: " + "; ".join(self._sprt_text(t) for t in self.tested)
        rule = self.rule.intervals
        assert rule is not None
        return (f"{head}: {len(self._decided)} of {len(self._h2h)} pairs decided "
                f"({rule.confidence:.0%} Wilson, at least {rule.min_games} games a pair)")

    def _sprt_text(self, t: _Tested) -> str:
        s, rule = self._sprt(t.bot), self.rule.sprt
        assert rule is not None
        against = t.field[0] if len(t.field) == 1 else "the field"
        head = f"{t.bot} vs {against}"
        if s is None:
            return f"{head} no pair yet"
        verdict = "" if len(self.tested) == 1 else f": {s.verdict}"  # one: the summary's
        return (f"{head} LLR {s.llr:.2f} ({s.lower:.2f}, {s.upper:.2f}) {rule.hypotheses()}"
                f"{verdict}")

    def status(self) -> str:
        """The rule's state in one short line for the live view."""
        if self.rule.sprt is not None:
            return self._sprt_status()
        rule = self.rule.intervals
        assert rule is not None
        return (f"intervals: {len(self._decided)} of {len(self._h2h)} pairs decided "
                f"({rule.confidence:.0%}, min {rule.min_games} games)")

    def _sprt_status(self) -> str:
        rule = self.rule.sprt
        assert rule is not None
        open_tests = [t for t in self.tested if not self._test_decided(t.bot)]
        shown = open_tests[0] if open_tests else self.tested[0]
        s = self._sprt(shown.bot)
        pairs = sum(self._penta[shown.bot])
        if s is None:
            figure = f"LLR - {rule.hypotheses()}"
        else:
            figure = f"LLR {s.llr:.2f} ({s.lower:.2f}, {s.upper:.2f}) {gauge(s)} " \
                     f"{rule.hypotheses()}"
        if len(self.tested) == 1:
            return f"SPRT {figure} · {pairs} pairs"
        done = len(self.tested) - len(open_tests)
        return f"SPRT {done} of {len(self.tested)} decided · {shown.bot} {figure}"


GAUGE_WIDTH = 9


def gauge(s: Sprt) -> str:
    """Where the LLR is between its bounds: ``[···|·····]``, H0's bound on the left."""
    share = (s.llr - s.lower) / (s.upper - s.lower)
    at = min(GAUGE_WIDTH - 1, max(0, int(share * GAUGE_WIDTH)))
    return "[" + "·" * at + "|" + "·" * (GAUGE_WIDTH - 1 - at) + "]"
