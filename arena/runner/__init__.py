"""Running games: local in-process play now; the referee and tournaments build on it."""
