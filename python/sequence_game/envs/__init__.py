"""Environments for learning code (the ``[rl]`` extra): ``sequence_game.envs.vector`` (a Gymnasium
``VectorEnv`` over the core's ``VectorGame``)."""
