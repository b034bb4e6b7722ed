"""Training the search's learned evaluation from self-play (numpy only):
:mod:`sequence_game.training.fit_eval` (``python -m sequence_game.training.fit_eval``); tuning the
search's options by matches: :mod:`sequence_game.training.tune` (``python -m
sequence_game.training.tune screen|spsa``)."""
