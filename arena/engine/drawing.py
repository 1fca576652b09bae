"""What the games' drawings (``Game.draw``) share: text made safe for SVG.

Written here rather than taken from ``xml.sax.saxutils``, whose import pulls in ``urllib`` and
the ``email`` package: about 10 ms that every process loading a game paid (the organiser, each
game worker, ``arena games``) for three replacements.
"""

from __future__ import annotations


def escape(text: str) -> str:
    """``text`` as SVG text or a double-quoted attribute's value: ``&``, ``<``, ``>`` and
    ``"`` replaced by their entities."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))
