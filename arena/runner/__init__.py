"""Running games: one refereed game (the referee and what it stands on), many games (tournaments:
schedules, the journal, ratings, stop rules, outputs) and the cluster. See the README's Layout."""
