"""A league's standings read from its journal: what ``arena league standings`` prints and
``arena serve`` shows, from one reading."""

from __future__ import annotations

from typing import Any

from arena.league.config import LeagueConfig
from arena.league.state import LeagueRatings
from arena.league.store import Entrant, LeagueJournal
from arena.runner.play.standings import Standings


def read_standings(config: LeagueConfig, ratings: LeagueRatings | None = None,
                   ) -> tuple[Standings, int, dict[str, Entrant]]:
    """The ratings, the number of games and the bot versions (by key), from the journal,
    opened read-only. ``ratings``: a :class:`~arena.league.state.LeagueRatings` kept between
    the refreshes of a view, so each reads only the games added since (None: read them all).
    Raises :class:`~arena.runner.play.journal.JournalError` if the journal cannot be read."""
    ratings = LeagueRatings() if ratings is None else ratings
    journal = LeagueJournal(config, readonly=True)
    try:
        ratings.refresh(journal)
        entrants = {e.key: e for e in journal.entrants()}
    finally:
        journal.close()
    return ratings.tracker.standings(), ratings.games, entrants


def standings_data(config: LeagueConfig, ratings: LeagueRatings | None = None,
                   ) -> dict[str, Any]:
    """The league's standings as one JSON-ready object (``arena league standings --json``):
    its name, game, players, games, ``standings`` and every bot version with its status."""
    table, games, entrants = read_standings(config, ratings)
    return {
        "name": config.name, "game": config.game, "players": config.players, "games": games,
        "standings": table.to_dict(),
        "bots": [{"key": e.key, "name": e.name, "version": e.version, "digest": e.digest,
                  "status": e.status, "reason": e.reason} for e in entrants.values()],
    }
