"""``PolicyAgent``: a trained policy as an agent, from a callable or a saved model.

A policy maps what its player may see to an action: ``policy(observation, legal_mask) -> action``,
``observation`` the player's ``observation_tensor`` (docs/observation.md), ``legal_mask`` the bool
mask of docs/action-space.md. The agent reads nothing else (R9: no other hand, no draw pile), and
turns the action (with the follow-up declare actions of a placement that has a choice of
sequences, R7) into a move.

>>> import numpy as np
>>> from sequence_game import Game
>>> first_legal = PolicyAgent(lambda obs, mask: int(np.flatnonzero(mask)[0]))
>>> g = Game(players=2, seed=1)
>>> first_legal.select_move(g) in g.legal_moves()
True

Saved models (``PolicyAgent.load(path)``, the agent spec ``policy:path``):

- ``.npz``: a numpy multilayer perceptron, no framework needed: arrays ``w0, b0, w1, b1, ...``
  (``w{i}`` of shape ``(inputs, outputs)``), ``tanh`` between layers, the last layer's outputs the
  5253 action logits; an optional ``normalize`` entry (1: the observation is divided by
  ``sequence_game.observation.OBSERVATION_SCALE`` first). ``examples/cleanrl_ppo.py`` writes one.
- ``.zip``: a Stable-Baselines3 model (``MaskablePPO`` of sb3-contrib, ``PPO`` or ``A2C``; the
  ``[train]`` extra). Its observation space says whether it was trained on normalised
  observations. Loading one unpickles it: load only files you trust.
- ``.onnx``: a model with one input (a batch of observations) and one output (the action logits)
  run by ``onnxruntime`` (installed separately); ``normalize=True`` if it was trained on
  normalised observations.

The action is the legal one of highest logit, or with ``sample=True`` drawn from the legal
actions' softmax with the agent's seeded generator.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Callable, List, Optional, Tuple, Union

import numpy as np

from .._args import check_seed
from ..actions import ACTION_COUNT, describe_action, move_from_id
from ..errors import short_repr
from ..move import Move
from ..observation import OBSERVATION_HIGH, OBSERVATION_SCALE, OBSERVATION_SIZE
from .base import no_legal_move

__all__ = ["PolicyAgent", "load_policy"]

Policy = Callable[[np.ndarray, np.ndarray], Any]


def _choose(logits: np.ndarray, mask: np.ndarray, rng: Optional[np.random.Generator]) -> int:
    masked = np.where(mask, logits.astype(np.float64), -np.inf)
    if rng is None:
        return int(np.argmax(masked))
    p = np.exp(masked - masked.max())
    return int(rng.choice(ACTION_COUNT, p=p / p.sum()))


class _LogitPolicy:
    """A policy from a function giving action logits, normalising the observation if asked."""

    def __init__(self, logits: Callable[[np.ndarray], np.ndarray], normalize: bool) -> None:
        self.logits = logits
        self.normalize = normalize
        self.rng: Optional[np.random.Generator] = None

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        obs = observation / OBSERVATION_SCALE if self.normalize else observation
        return _choose(np.asarray(self.logits(obs.astype(np.float32))).reshape(-1), mask, self.rng)


Logits = Callable[[np.ndarray], np.ndarray]


def _numpy_logits(path: str) -> Tuple[Logits, bool]:
    with np.load(path) as data:
        layers = []
        i = 0
        while f"w{i}" in data:
            layers.append((np.asarray(data[f"w{i}"], dtype=np.float32), np.asarray(data[f"b{i}"], dtype=np.float32)))
            i += 1
        normalize = bool(data["normalize"]) if "normalize" in data else False
    if not layers or layers[0][0].shape[0] != OBSERVATION_SIZE or layers[-1][0].shape[1] != ACTION_COUNT:
        raise ValueError(f"{path}: a numpy policy holds w0, b0, w1, b1, ... from {OBSERVATION_SIZE} observation "
                         f"values to {ACTION_COUNT} action logits")

    def logits(obs: np.ndarray) -> np.ndarray:
        x = obs
        for k, (w, b) in enumerate(layers):
            x = x @ w + b
            if k < len(layers) - 1:
                x = np.tanh(x)
        return x

    return logits, normalize


def _sb3_logits(path: str) -> Tuple[Logits, bool]:
    try:
        import torch
        from stable_baselines3 import A2C, PPO
    except ImportError as e:
        raise ImportError(f"{path}: a Stable-Baselines3 model needs the 'train' extra: "
                          "pip install 'sequence-game[train]'") from e
    classes: List[Any] = []
    try:
        from sb3_contrib import MaskablePPO

        classes.append(MaskablePPO)
    except ImportError:  # pragma: no cover - sb3-contrib comes with the extra
        pass
    classes += [PPO, A2C]
    model, errors = None, []
    for cls in classes:
        try:
            model = cls.load(path, device="cpu")
            break
        except (ValueError, KeyError, TypeError, AssertionError, RuntimeError, AttributeError) as e:
            errors.append(f"{cls.__name__}: {e}")
    if model is None:
        raise ValueError(f"{path}: not a MaskablePPO, PPO or A2C model ({'; '.join(errors)})")
    # Trained on obs / OBSERVATION_SCALE: the environments then declare the scaled bounds.
    scaled = (OBSERVATION_HIGH / OBSERVATION_SCALE).astype(np.float32)
    normalize = bool(np.array_equal(np.asarray(model.observation_space.high, dtype=np.float32), scaled))
    policy = model.policy

    def logits(obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            tensor = torch.as_tensor(obs[None, :])
            dist = policy.get_distribution(tensor).distribution
            return dist.logits[0].numpy()  # type: ignore[no-any-return]

    return logits, normalize


def _onnx_logits(path: str, normalize: bool) -> Tuple[Logits, bool]:
    try:
        import onnxruntime
    except ImportError as e:
        raise ImportError(f"{path}: an ONNX model needs onnxruntime: pip install onnxruntime") from e
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name

    def logits(obs: np.ndarray) -> np.ndarray:
        return np.asarray(session.run(None, {name: obs[None, :]})[0])

    return logits, normalize


# Loaded models by (path, size, modification time, normalize): the arena builds a fresh agent for
# every seat of every game, and loading a Stable-Baselines3 model takes far longer than a game.
# The models are only read (the sampling generator lives in each agent's own _LogitPolicy).
@functools.lru_cache(maxsize=16)
def _cached_logits(path: str, size: int, mtime: int, ext: str, normalize: bool) -> Tuple[Logits, bool]:
    if ext == ".npz":
        return _numpy_logits(path)
    if ext == ".zip":
        return _sb3_logits(path)
    return _onnx_logits(path, normalize)


def load_policy(path: Union[str, os.PathLike[str]], normalize: bool = False) -> Policy:
    """The policy saved at ``path`` (``.npz``, ``.zip`` or ``.onnx``; see the module doc).
    ``normalize`` is read by ONNX models only (the others record it)."""
    text = os.fspath(path)
    if not os.path.isfile(text):
        raise ValueError(f"no model file at {short_repr(text)} (a .npz, .zip or .onnx policy)")
    ext = os.path.splitext(text)[1].lower()
    if ext not in (".npz", ".zip", ".onnx"):
        raise ValueError(f"{short_repr(text)}: a policy file is .npz (numpy), .zip (Stable-Baselines3) or .onnx, "
                         f"not {short_repr(ext or 'no extension')}")
    stat = os.stat(text)
    logits, trained_normalized = _cached_logits(os.path.abspath(text), stat.st_size, stat.st_mtime_ns, ext, normalize)
    return _LogitPolicy(logits, trained_normalized)


class PolicyAgent:
    """An agent that plays ``policy(observation, legal_mask) -> action`` for its player.

    ``policy``: a callable, or the path of a saved model (``load_policy``). ``sample``: draw
    saved models' actions from the legal actions' softmax (seeded by ``seed``) instead of taking
    the highest logit. ``normalize``: ONNX models trained on normalised observations. ``name``:
    the display name (default ``policy:<file>`` or ``policy``).

    The policy sees ``game.observation_tensor(player)`` and ``game.legal_mask()`` only. A policy
    that returns a non-int raises ``TypeError``, an action that is not legal ``ValueError``, each
    naming it.
    """

    def __init__(self, policy: Union[Policy, str, os.PathLike[str]], sample: bool = False,
                 seed: Optional[int] = None, normalize: bool = False, name: Optional[str] = None) -> None:
        self.seed = check_seed(seed)
        if isinstance(policy, (str, os.PathLike)):
            self.path: Optional[str] = os.fspath(policy)
            self.policy: Policy = load_policy(self.path, normalize=normalize)
            default = f"policy:{self.path}"
        elif callable(policy):
            self.path, self.policy, default = None, policy, "policy"
        else:
            raise TypeError(f"policy is a callable (observation, legal_mask) -> action or a model path, "
                            f"not {type(policy).__name__}")
        if not isinstance(sample, bool):
            raise TypeError(f"sample must be True or False, not {sample!r}")
        self.sample = sample
        if isinstance(self.policy, _LogitPolicy) and sample:
            self.policy.rng = np.random.default_rng(self.seed)
        self.name = name or default

    @classmethod
    def load(cls, path: Union[str, os.PathLike[str]], **options: Any) -> PolicyAgent:
        """A ``PolicyAgent`` over the model saved at ``path``."""
        return cls(os.fspath(path), **options)

    def __repr__(self) -> str:
        return f"PolicyAgent({self.path or self.policy!r})"

    def _act(self, game: Any, player: int) -> int:
        obs = game.observation_tensor(player)
        mask = game.legal_mask()
        action = self.policy(obs, mask)
        if isinstance(action, np.ndarray) and action.size == 1:
            action = action.reshape(()).item()
        if isinstance(action, np.integer):
            action = int(action)
        if isinstance(action, bool) or not isinstance(action, int):
            raise TypeError(f"{self.name}: the policy returned {short_repr(action)}, not an action (an int)")
        if not (0 <= action < ACTION_COUNT and mask[action]):
            what = describe_action(action) if 0 <= action < ACTION_COUNT else f"out of range 0..{ACTION_COUNT - 1}"
            raise ValueError(f"{self.name}: the policy chose action {action} ({what}), which is not legal "
                             "(docs/action-space.md: choose among the legal_mask's True entries)")
        return action

    def select_move(self, game: Any) -> Move:
        if game.is_over:
            raise no_legal_move(game)
        player = game.current_player
        current = game
        while True:
            resolved = current._resolve_action(self._act(current, player))
            assert resolved is not None  # the action is in the legal mask
            kind, value = resolved
            if kind == "move":
                return move_from_id(value)
            if current is game:  # a placement with a choice of sequences (R7): declare on a copy
                current = game.copy()
            current._pending = value
