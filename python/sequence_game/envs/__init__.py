"""Research environments over the compiled core (docs/environments.md):

- ``sequence_game.envs.pettingzoo``: a PettingZoo ``AECEnv`` for 2-12 players (``env()``, ``raw_env()``)
  and a ``ParallelEnv`` (``parallel_env()``);
- ``sequence_game.envs.gymnasium``: one seat against fixed opponents, ``sequence_game/Sequence-v0``;
- ``sequence_game.envs.vector``: a Gymnasium ``VectorEnv`` over the core's batched ``VectorGame``;
- ``sequence_game.envs.async_vector``: the batched games with EnvPool's ``send``/``recv``;
- ``sequence_game.envs.pool``: ``PolicyPool``, the last snapshots of a run as a batched opponent
  (self-play leagues);
- ``sequence_game.envs.openspiel``: the game registered with OpenSpiel as ``python_sequence``.

All use the observation tensor of docs/observation.md and the action space of
docs/action-space.md. Each needs its extra (``pip install 'sequence-game[rl]'`` for PettingZoo and
Gymnasium, ``'sequence-game[openspiel]'`` for OpenSpiel); importing one without it raises an
``ImportError`` that names the extra. This package itself imports nothing heavy.
"""
