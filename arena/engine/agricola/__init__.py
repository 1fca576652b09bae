"""Agricola (Revised Edition, Family game): the engine, being built; not registered as a game yet."""
