"""Training the search's learned evaluation from self-play (numpy only; a research build's, as
that evaluation is): :mod:`sequence_game.training.fit_eval` (``sequence-game fit-eval``); tuning
the search's options by matches: :mod:`sequence_game.training.tune` (``sequence-game tune
screen|spsa``)."""
