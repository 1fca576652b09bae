"""A recorded game as the replay page shows it: every position, step by step, as each viewer
saw it, replayed through the engine from the record's seed and decisions.

Step 0 is the opening position and step ``k`` the position after decision ``k - 1``, with
that decision (who made it, which of how many options, how long the bot took and what was left
in its bank), every seat's score so far and its breakdown, and any failure. Each step has a
picture per viewer (the referee, then each seat): the game's own drawing
(:meth:`arena.engine.api.Game.draw`) or, for a game that does not draw itself, its data.

Pictures repeat a great deal from one step to the next, so they are stored as *parts*: a
drawing is cut at its top-level elements, each distinct part is kept once, and each distinct
list of parts (a *frame*) once; a viewer's step names its frame. Nothing here knows a game's
rules.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from arena.engine import get_game
from arena.engine.api import Game, State
from arena.runner.game.clock import Clock, TimeControl
from arena.runner.game.record import BY_FALLBACK, Decision, GameRecord
from arena.runner.game.replay import states

#: A start or end tag, or an empty element.
_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_ROOT = re.compile(r"\s*<svg\b[^>]*>")


def split_svg(svg: str) -> list[str]:
    """``svg`` cut into its opening tag, each top-level child (with the text before it) and
    its closing tag, which join back to ``svg``; the whole text as one part if it is not one
    ``<svg>`` element with well-nested children."""
    root = _ROOT.match(svg)
    end = svg.rfind("</svg>")
    if root is None or end < root.end() or svg[end:].strip() != "</svg>":
        return [svg]
    body = svg[root.end():end]
    parts = [svg[:root.end()]]
    depth = start = 0
    for tag in _TAG.finditer(body):
        text = tag.group()
        if text[1] == "/":
            depth -= 1
            if depth < 0:
                return [svg]
        elif text[-2] != "/":
            depth += 1
            continue
        if depth == 0:
            parts.append(body[start:tag.end()])
            start = tag.end()
    if depth:
        return [svg]
    if start < len(body):
        parts.append(body[start:])
    parts.append(svg[end:])
    return parts


@dataclass
class Film:
    """What the page needs of one recorded game (see the module's description)."""

    record: GameRecord
    title: str
    drawn: bool  #: the game draws itself (else the pictures are JSON texts of the positions)
    viewers: list[str]  #: "Referee", then one label per seat
    steps: list[dict[str, Any]] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    frames: list[list[int]] = field(default_factory=list)
    #: ``shown[v][k]``: the frame viewer ``v`` sees at step ``k``.
    shown: list[list[int]] = field(default_factory=list)
    _part_ids: dict[str, int] = field(default_factory=dict, repr=False)
    _frame_ids: dict[tuple[int, ...], int] = field(default_factory=dict, repr=False)

    def add(self, viewer: int, picture: str | list[str]) -> None:
        """One more step's picture for ``viewer``: its text, or the pieces the game drew it
        in (:meth:`~arena.engine.api.Game.draw_parts`)."""
        if isinstance(picture, list):
            pieces = picture
        else:
            pieces = split_svg(picture) if self.drawn else [picture]
        ids = []
        for piece in pieces:
            part = self._part_ids.get(piece)
            if part is None:
                part = self._part_ids[piece] = len(self.parts)
                self.parts.append(piece)
            ids.append(part)
        key = tuple(ids)
        frame = self._frame_ids.get(key)
        if frame is None:
            frame = self._frame_ids[key] = len(self.frames)
            self.frames.append(ids)
        self.shown[viewer].append(frame)

    def to_data(self) -> dict[str, Any]:
        """The film as the page's script reads it (plain data)."""
        r = self.record
        return {
            "game": r.game, "title": self.title, "game_id": r.game_id, "seed": r.seed,
            "options": dict(r.options), "drawn": self.drawn, "viewers": self.viewers,
            "bots": [s.get("bot", "?") for s in r.seats],
            "result": r.result, "ranks": r.ranks,
            "terminations": r.terminations, "events": r.events,
            "steps": self.steps, "parts": self.parts, "frames": self.frames,
            "shown": self.shown,
        }


def _clocks(record: GameRecord) -> list[Clock] | None:
    try:
        control = TimeControl.from_dict(dict(record.time_control))
    except (TypeError, ValueError):
        return None
    return [Clock(control) for _ in range(record.num_players)]


def _failures(record: GameRecord) -> dict[int, list[str]]:
    """The steps at which a seat's failure shows: its first decision by the fallback, or the
    last step if the fallback never played for it."""
    notes: dict[int, list[str]] = {}
    last = len(record.decisions)
    for s, end in enumerate(record.terminations):
        reason = str(end.get("reason", "ok")) if isinstance(end, dict) else "ok"
        if reason == "ok":
            continue
        detail = str(end.get("detail", "")) if isinstance(end, dict) else ""
        step = next((k + 1 for k, d in enumerate(record.decisions)
                     if d.seat == s and d.by == BY_FALLBACK), last)
        bot = record.seats[s].get("bot", "?") if s < len(record.seats) else "?"
        tail = (" — the fallback plays for it from here" if step < last
                or (step == last and last and record.decisions[-1].by == BY_FALLBACK) else "")
        notes.setdefault(step, []).append(
            f"seat {s} ({bot}) failed: {reason}{': ' + detail if detail else ''}{tail}")
    return notes


def film(record: GameRecord) -> Film:
    """Replay ``record`` into a :class:`Film`; ValueError where the record and the engine part
    ways (another rules version, a decision the engine does not allow)."""
    game = get_game(record.game)
    n = record.num_players
    viewers = ["Referee", *(f"Seat {s}: {record.seats[s].get('bot', '?')}"
                            for s in range(n))]
    opening = game.new_state(n, seed=record.seed, options=record.options)
    out = Film(record, game.title, drawn=game.draw(opening.to_dict(), None) is not None,
               viewers=viewers, shown=[[] for _ in viewers])
    clocks = _clocks(record)
    failures = _failures(record)
    decisions = record.decisions
    options = 0
    state = opening
    # ``states`` moves one state along: the one it gave last is, once it is done, the end.
    for k, before in states(record):
        _step(out, game, before, k, decisions[k - 1] if k else None, options, clocks, failures)
        options = before.num_legal()
        state = before
    if decisions:
        _step(out, game, state, len(decisions), decisions[-1], options, clocks, failures)
    else:
        _step(out, game, opening, 0, None, 0, clocks, failures)
    return out


def _step(out: Film, game: Game, state: State, k: int, decision: Decision | None,
          options: int, clocks: list[Clock] | None, failures: dict[int, list[str]]) -> None:
    """Add step ``k``: ``state`` is the position after ``decision`` (None at step 0), which
    was one of ``options``."""
    step: dict[str, Any] = {"round": state.progress, "to_act": state.current_player}
    scores = state.scores_so_far()
    step["scores"] = list(scores) if scores is not None else None
    breakdown = state.breakdown_so_far()
    step["breakdown"] = [dict(b) for b in breakdown] if breakdown is not None else None
    if decision is not None:
        bank = None
        if clocks is not None:
            if decision.by != BY_FALLBACK:
                clocks[decision.seat].charge(float(decision.ms))
            bank = round(clocks[decision.seat].bank_ms)
        step["decision"] = {"seat": decision.seat, "choice": decision.choice,
                            "options": options, "ms": decision.ms, "by": decision.by,
                            "action": decision.action, "bank_ms": bank}
    if k in failures:
        step["failures"] = failures[k]
    out.steps.append(step)
    for v, seat in enumerate([None, *range(state.num_players)]):
        position = state.to_dict() if seat is None else state.observation(seat)
        picture: str | list[str] | None = None
        if out.drawn:
            picture = game.draw_parts(position, seat)
            if picture is None:
                picture = game.draw(position, seat)
        if picture is None:
            if out.drawn:
                raise ValueError(f"{game.name} drew some positions and not others")
            picture = json.dumps(position, sort_keys=True, separators=(",", ":"))
        out.add(v, picture)
