"""The Revised Edition's base deck for card mode (decks A and B: 48 occupations, 48 minor
improvements) as data: each card's printed facts and its effect in the project's own words,
split into clauses by the moment each hooks into. :mod:`.deck` is the entry point."""
