"""The learned player's trainer (PyTorch, the ``[train]`` extra): the policy-value network
(:mod:`.model`) and the resumable self-play training run (:mod:`.trainer`, ``sequence-game train``).
The package plays without torch: the core evaluates the exported weights file
(:mod:`sequence_game.netfile`)."""
