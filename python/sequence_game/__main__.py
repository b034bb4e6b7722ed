"""``python -m sequence_game``: the same as the ``sequence-game`` command."""

from .cli import main

raise SystemExit(main())
