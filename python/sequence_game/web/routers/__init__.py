"""The app's routes, one router per concern: ``pages`` (the HTML pages and the board picture),
``tables`` (create, list, read, join, rematch), ``play`` (moves, undo), ``ai`` (presets, hint,
analysis), ``records`` (a finished game's record and replay), ``review``, ``events`` (the event
stream), ``socket`` (the table websocket), ``seeks`` (the lobby), ``accounts``, ``players``,
``people`` and ``tournaments``. A router imports no other router: what two share lives in a
domain or a helper of the web package (``deps.py``, ``http.py``, ``frames.py``, ``pages.py``)."""
