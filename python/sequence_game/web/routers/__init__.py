"""The app's routes, one router per concern: ``pages`` (the HTML pages and the board picture),
``tables`` (create, list, read), ``play`` (moves, undo), ``ai`` (presets, hint, analysis),
``records`` (a finished game's record and replay) and ``socket`` (the table websocket)."""
