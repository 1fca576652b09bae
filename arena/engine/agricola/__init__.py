"""Agricola (Revised Edition, Family game): the engine, being built.

Not registered as a game yet: its rules notes (RULES.md) say what it will play.
"""
