"""Training the search's learned evaluation from self-play (numpy only):
:mod:`sequence_game.training.fit_eval` (``python -m sequence_game.training.fit_eval``)."""
