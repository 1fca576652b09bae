"""The HTML report of a tournament or league folder (``arena report``)."""
