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
  observations. Stable-Baselines3 pickles some of a model's settings (its spaces, policy class,
  schedules), and its own loader would run whatever they name: here they are unpickled first with
  an allow-list of the classes that build such data (:data:`_SB3_GLOBALS`), and a model whose
  settings name anything else (a function to call: code) is refused in one line, nothing of it
  run; the schedules, which only training reads, are replaced unread. Its ``.pth`` members are
  read by PyTorch with ``weights_only=True``.
- ``.onnx``: a model with one input (a batch of observations) and one output (the action logits)
  run by ``onnxruntime`` (installed separately); ``normalize=True`` if it was trained on
  normalised observations.

An ``.npz`` or ``.onnx`` file is untrusted bytes: it is checked (the arrays' shapes, types and
sizes from their headers before any is read; the ONNX model's input, output and a trial run) and a
damaged or wrong file is one ``ValueError`` line naming the file and what is wrong.

The action is the legal one of highest logit, or with ``sample=True`` drawn from the legal
actions' softmax with the agent's seeded generator.
"""

from __future__ import annotations

import functools
import math
import os
import pickle
import re
import tokenize
import zipfile
import zlib
from typing import TYPE_CHECKING, Any, Callable, Dict, List, NamedTuple, Optional, Tuple, Union

import numpy as np

from .._args import check_seed
from ..actions import ACTION_COUNT, describe_action, move_from_id
from ..errors import short_repr
from ..move import Move
from ..observation import OBSERVATION_HIGH, OBSERVATION_SCALE, OBSERVATION_SIZE
from .base import no_legal_move
from .control import check_game

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["PolicyAgent", "load_policy"]

Policy = Callable[[np.ndarray, np.ndarray], Any]


def _choose(logits: np.ndarray, mask: np.ndarray, rng: Optional[np.random.Generator]) -> int:
    masked = np.where(mask, logits.astype(np.float64), -np.inf)
    if rng is None:
        return int(np.argmax(masked))
    p = np.exp(masked - masked.max())
    return int(rng.choice(ACTION_COUNT, p=p / p.sum()))


def _choose_rows(logits: np.ndarray, masks: np.ndarray, rng: Optional[np.random.Generator]) -> np.ndarray:
    """``_choose`` for every row: the legal action of highest logit (ties to the lowest, as
    ``_choose``), or one drawn from the legal actions' softmax, one ``rng.random()`` a row."""
    masked = np.where(masks, logits.astype(np.float64), -np.inf)
    if rng is None:
        return np.asarray(np.argmax(masked, axis=1), dtype=np.int64)
    p = np.exp(masked - masked.max(axis=1, keepdims=True))
    cum = np.cumsum(p, axis=1)
    u = rng.random(len(p)) * cum[:, -1]
    chosen = (cum <= u[:, None]).sum(axis=1)
    # Rounding can leave u at the very top: the last legal action, never an illegal one.
    last = ACTION_COUNT - 1 - np.argmax(masks[:, ::-1], axis=1)
    return np.asarray(np.minimum(chosen, last), dtype=np.int64)


#: Rows a saved policy evaluates at once on a batch (bounds the logits' memory: 1,024 x 5,253 floats).
_BATCH_ROWS = 1024


class _LogitPolicy:
    """A policy from a function giving action logits for a batch of observations, normalising the
    observations first if its model was trained on normalised ones.

    Called with one observation and mask it returns one action (``PolicyAgent``); with a batch,
    ``float32 (n, OBSERVATION_SIZE)`` and ``bool (n, ACTION_COUNT)``, it returns ``int64 (n,)``, one
    forward pass per 1,024 rows: the batched opponent ``f(observations, masks)`` of ``VectorGame``
    and the batched environments. Either way it takes raw observations (docs/observation.md) and
    scales them itself, once (``raw_observations``: the environments hand it raw ones even with
    ``normalize=True``)."""

    #: Takes raw observations whatever its model learned on (see the class doc).
    raw_observations = True

    def __init__(self, logits: Callable[[np.ndarray], np.ndarray], normalize: bool) -> None:
        self.logits = logits
        self.normalize = normalize
        self.rng: Optional[np.random.Generator] = None

    def _scaled(self, observations: np.ndarray) -> np.ndarray:
        obs = observations / OBSERVATION_SCALE if self.normalize else observations
        return np.asarray(obs, dtype=np.float32)

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> Any:
        obs = np.asarray(observation)
        if obs.ndim == 2:
            return self.batch(obs, mask)
        return _choose(np.asarray(self.logits(self._scaled(obs)[None, :])).reshape(-1), mask, self.rng)

    def batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row (see the class doc)."""
        obs = np.asarray(observations)
        legal = np.asarray(masks)
        if obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE or legal.shape != (len(obs), ACTION_COUNT):
            raise ValueError(f"a batch is observations ({len(obs)}, {OBSERVATION_SIZE}) and masks "
                             f"({len(obs)}, {ACTION_COUNT}), not {obs.shape} and {legal.shape}")
        legal = legal.astype(bool, copy=False)
        out = np.empty(len(obs), dtype=np.int64)
        for start in range(0, len(obs), _BATCH_ROWS):
            rows = slice(start, start + _BATCH_ROWS)
            logits = np.asarray(self.logits(self._scaled(obs[rows]))).reshape(-1, ACTION_COUNT)
            out[rows] = _choose_rows(logits, legal[rows], self.rng)
        return out


#: Action logits ``(n, ACTION_COUNT)`` of a batch of observations ``float32 (n, OBSERVATION_SIZE)``.
Logits = Callable[[np.ndarray], np.ndarray]


#: The most weights and biases a ``.npz`` policy may hold (256 MiB as float32), checked from the
#: arrays' headers before any is read.
MAX_POLICY_VALUES = 1 << 26
_LAYER = re.compile(r"([wb])(0|[1-9][0-9]{0,5})")


class _Header(NamedTuple):
    shape: Tuple[int, ...]
    dtype: np.dtype[Any]
    info: zipfile.ZipInfo


def _npy_header(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> _Header:
    """The shape and dtype an ``.npy`` member says it holds, read from its header alone, checked
    against the member's size: nothing the header claims is allocated."""
    with archive.open(info) as f:
        try:
            version = np.lib.format.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, _, dtype = np.lib.format.read_array_header_2_0(f)
            else:
                raise ValueError(f"it is in .npy format {version[0]}.{version[1]} (1.0 and 2.0 are read)")
        except (ValueError, TypeError, SyntaxError, tokenize.TokenError) as e:
            # numpy parses the header's Python-literal text: damaged text fails in its tokenizer too
            raise ValueError(f"{name} is not a readable numpy array: {str(e).splitlines()[0] if str(e) else e!r}") \
                from None
        start = f.tell()
    if any(n < 0 for n in shape):
        raise ValueError(f"{name} says it has a negative dimension {tuple(shape)}")
    if dtype.kind not in "biuf" or dtype.hasobject or dtype.fields is not None:
        raise ValueError(f"{name} holds {dtype} values, not numbers")
    count = math.prod(shape)
    if count * dtype.itemsize > info.file_size - start:
        raise ValueError(f"{name} says it is a {'x'.join(map(str, shape)) or 'scalar'} {dtype} array "
                         f"({count * dtype.itemsize} bytes) but holds {max(info.file_size - start, 0)} bytes")
    return _Header(tuple(shape), dtype, info)


def _npz_layers(path: str) -> Tuple[List[Tuple[np.ndarray, np.ndarray]], bool]:
    """The layers and the ``normalize`` flag of a numpy policy, every shape, type and size checked
    from the arrays' headers before any array is read (the file is untrusted: a header may claim
    any size); ``ValueError`` saying what is wrong (the caller names the file)."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError):
        raise ValueError("not a .npz file (a zip of numpy arrays, as numpy.savez writes)") from None
    with archive:
        headers: Dict[str, _Header] = {}
        for info in archive.infolist():
            key = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
            if _LAYER.fullmatch(key) or key == "normalize":
                if key in headers:
                    raise ValueError(f"holds {key} twice")
                headers[key] = _npy_header(archive, info, key)
        depth = 0
        while f"w{depth}" in headers:
            depth += 1
        if depth == 0:
            raise ValueError(f"holds no w0: a numpy policy holds w0, b0, w1, b1, ... from {OBSERVATION_SIZE} "
                             f"observation values to {ACTION_COUNT} action logits")
        stray = sorted((k for k in headers if k != "normalize" and int(k[1:]) >= depth),
                       key=lambda k: (int(k[1:]), k[0] != "w"))
        if stray:
            raise ValueError(f"holds {stray[0]} but no w{depth}: the layers are w0, b0, w1, b1, ... without gaps")
        inputs = OBSERVATION_SIZE
        for i in range(depth):
            w = headers[f"w{i}"].shape
            if f"b{i}" not in headers:
                raise ValueError(f"holds w{i} but no bias b{i}")
            b = headers[f"b{i}"].shape
            if len(w) != 2 or w[0] != inputs:
                raise ValueError(f"w{i} must be a 2-D array of shape ({inputs}, outputs), not {_shape(w)}"
                                 + (" (w0's rows are the observation's values)" if i == 0 else ""))
            if len(b) != 1 or b[0] != w[1]:
                raise ValueError(f"b{i} must be a 1-D array of {w[1]} values (w{i}'s columns), not {_shape(b)}")
            inputs = w[1]
        if inputs != ACTION_COUNT:
            raise ValueError(f"the last layer w{depth - 1} gives {inputs} values, not the {ACTION_COUNT} action logits")
        total = sum(math.prod(h.shape) for h in headers.values())
        if total > MAX_POLICY_VALUES:
            raise ValueError(f"holds {total} values, more than the {MAX_POLICY_VALUES} a numpy policy may have")
        flag = headers.get("normalize")
        if flag is not None and math.prod(flag.shape) != 1:
            raise ValueError(f"normalize must be one value (0 or 1), not an array of shape {_shape(flag.shape)}")

        def read(key: str) -> np.ndarray:
            with archive.open(headers[key].info) as f:
                array = np.lib.format.read_array(f, allow_pickle=False)
            if not np.isfinite(array).all():
                raise ValueError(f"{key} holds NaN or infinite values")
            return np.asarray(array, dtype=np.float32)

        layers = [(read(f"w{i}"), read(f"b{i}")) for i in range(depth)]
        normalize = bool(read("normalize").reshape(())) if flag is not None else False
    return layers, normalize


def _shape(shape: Tuple[int, ...]) -> str:
    return f"shape {shape}" if shape else "a scalar"


def _numpy_logits(path: str) -> Tuple[Logits, bool]:
    try:
        layers, normalize = _npz_layers(path)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error, NotImplementedError, RuntimeError,
            OSError) as e:  # a damaged zip: a bad checksum, a cut-off or encrypted member, an unknown method
        raise ValueError(f"{path}: not a readable .npz file ({type(e).__name__}: {e})") from None

    def logits(obs: np.ndarray) -> np.ndarray:
        x = obs
        for k, (w, b) in enumerate(layers):
            x = x @ w + b
            if k < len(layers) - 1:
                x = np.tanh(x)
        return x

    return logits, normalize


# What a Stable-Baselines3 model's pickled settings may name (its spaces, policy and buffer classes,
# schedules, numpy arrays and generators, the usual activations and optimisers): classes and
# constructors that build data. Anything else (a function to call, code) is refused unrun.
_SB3_GLOBALS = frozenset({
    ("numpy", "dtype"), ("numpy", "ndarray"), ("collections", "deque"), ("collections", "OrderedDict"),
    *((m, n) for m in ("numpy.core.numeric", "numpy._core.numeric") for n in ("_frombuffer",)),
    *((m, n) for m in ("numpy.core.multiarray", "numpy._core.multiarray") for n in ("_reconstruct", "scalar")),
    *(("numpy.random._pickle", n) for n in ("__generator_ctor", "__bit_generator_ctor", "__randomstate_ctor")),
    ("numpy.random.bit_generator", "__pyx_unpickle_SeedSequence"), ("numpy.random.bit_generator", "SeedSequence"),
    ("numpy.random._pcg64", "PCG64"),
    ("numpy.random._pcg64", "PCG64DXSM"), ("numpy.random._mt19937", "MT19937"), ("numpy.random._philox", "Philox"),
    ("numpy.random._sfc64", "SFC64"),
    ("gymnasium.spaces.box", "Box"), ("gymnasium.spaces.discrete", "Discrete"),
    ("stable_baselines3.common.policies", "ActorCriticPolicy"),
    ("sb3_contrib.common.maskable.policies", "MaskableActorCriticPolicy"),
    ("stable_baselines3.common.buffers", "RolloutBuffer"),
    ("sb3_contrib.common.maskable.buffers", "MaskableRolloutBuffer"),
    ("stable_baselines3.common.torch_layers", "FlattenExtractor"),
    *(("stable_baselines3.common.utils", n) for n in ("ConstantSchedule", "FloatSchedule", "LinearSchedule")),
    *(("torch.nn.modules.activation", n) for n in ("ReLU", "Tanh", "ELU", "LeakyReLU", "GELU", "SiLU", "Sigmoid")),
    *(("torch.optim." + m, c) for m, c in (("adam", "Adam"), ("adamw", "AdamW"), ("rmsprop", "RMSprop"), ("sgd", "SGD"))),
})
# Settings only training reads: a model saved by another version may pickle them as functions
# (code), so they are replaced, as Stable-Baselines3's own custom_objects advice does.
_SB3_TRAINING_ONLY = ("lr_schedule", "clip_range", "clip_range_vf", "learning_rate")


class _SB3Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _SB3_GLOBALS:
            raise pickle.UnpicklingError(f"it would load {module}.{name}")
        return super().find_class(module, name)


def _sb3_settings(path: str) -> Dict[str, Any]:
    """The pickled entries of a Stable-Baselines3 ``.zip``'s settings, unpickled with nothing but
    :data:`_SB3_GLOBALS` (Stable-Baselines3 itself would run whatever they name); passed to its
    loader as ``custom_objects`` so that it unpickles nothing. ``ValueError`` for any other."""
    import base64
    import io
    import json

    with zipfile.ZipFile(path) as archive:
        if "data" not in archive.namelist():
            return {}
        info = archive.getinfo("data")
        if info.file_size > 1 << 28:
            raise ValueError(f"its settings are {info.file_size} bytes, more than a policy's")
        data = json.loads(archive.read(info))
    if not isinstance(data, dict):
        raise ValueError("its settings are not a JSON object")
    objects: Dict[str, Any] = {}
    for key, value in data.items():
        if not (isinstance(value, dict) and isinstance(value.get(":serialized:"), str)):
            continue
        if key in _SB3_TRAINING_ONLY:
            objects[key] = _no_training
            continue
        try:
            objects[key] = _SB3Unpickler(io.BytesIO(base64.b64decode(value[":serialized:"]))).load()
        except pickle.UnpicklingError as e:
            raise ValueError(f"refused: its setting {key!r} is not plain data ({e}); nothing of it was run") from None
        except (ValueError, TypeError, EOFError, AttributeError, IndexError, KeyError, ImportError) as e:
            raise ValueError(f"its setting {key!r} does not load ({type(e).__name__}: {e})") from None
    return objects


def _no_training(progress: float) -> float:  # pragma: no cover - a loaded policy is never trained here
    return 0.0


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
    import stable_baselines3

    version = tuple(int(p) for p in re.findall(r"\d+", stable_baselines3.__version__)[:2])
    if version < (2, 8):  # before 2.8 its loader read the model's .pth members with weights_only=False
        raise ImportError(f"{path}: a Stable-Baselines3 model needs stable-baselines3 2.8 or later, which reads "
                          f"its weights as data only (this is {stable_baselines3.__version__}): "
                          "pip install 'sequence-game[train]'")
    try:
        settings = _sb3_settings(path)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error, OSError, RuntimeError,
            NotImplementedError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not a readable Stable-Baselines3 model ({type(e).__name__}: {e})") from None
    model, errors = None, []
    for cls in classes:
        try:
            model = cls.load(path, device="cpu", custom_objects=settings)
            break
        except (ValueError, KeyError, TypeError, AssertionError, RuntimeError, AttributeError, EOFError, OSError,
                zipfile.BadZipFile, pickle.UnpicklingError) as e:  # a damaged or foreign .zip
            first = str(e).strip().splitlines()
            errors.append(f"{cls.__name__}: {first[0][:200] if first else type(e).__name__}")
    if model is None:
        raise ValueError(f"{path}: not a MaskablePPO, PPO or A2C model ({'; '.join(errors)})")
    # Trained on obs / OBSERVATION_SCALE: the environments then declare the scaled bounds.
    scaled = (OBSERVATION_HIGH / OBSERVATION_SCALE).astype(np.float32)
    normalize = bool(np.array_equal(np.asarray(model.observation_space.high, dtype=np.float32), scaled))
    policy = model.policy

    def logits(obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            dist = policy.get_distribution(torch.as_tensor(obs)).distribution
            return dist.logits.numpy()  # type: ignore[no-any-return]

    return logits, normalize


def _onnx_error(e: Exception) -> str:
    """onnxruntime's message on one line without its prefix (``[ONNXRuntimeError] : 7 : ... failed:``)."""
    lines = str(e).strip().splitlines()
    text = lines[0] if lines else type(e).__name__
    text = text.rsplit("failed:", 1)[-1].strip() or text
    return text if len(text) <= 200 else text[:200] + "..."


def _dims(shape: Any) -> str:
    return "[" + ", ".join("batch" if not isinstance(d, int) else str(d) for d in shape) + "]"


def _onnx_logits(path: str, normalize: bool) -> Tuple[Logits, bool]:
    try:
        import onnxruntime
    except ImportError as e:
        raise ImportError(f"{path}: an ONNX model needs onnxruntime: pip install onnxruntime") from e
    expected = f"one input, a float32 batch of observations [batch, {OBSERVATION_SIZE}]"
    # onnxruntime's own error classes (InvalidProtobuf, Fail, InvalidArgument, ...) derive from Exception
    state = getattr(getattr(onnxruntime, "capi", None), "onnxruntime_pybind11_state", None)
    errors = tuple(v for v in vars(state).values() if isinstance(v, type) and issubclass(v, Exception)) \
        if state is not None else ()
    errors += (RuntimeError, ValueError, TypeError)
    try:
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    except errors as e:
        raise ValueError(f"{path}: not a valid ONNX model: {_onnx_error(e)}") from None
    inputs, outputs = session.get_inputs(), session.get_outputs()
    if len(inputs) != 1:
        raise ValueError(f"{path}: the model has {len(inputs)} inputs; a policy has {expected}")
    shape = list(inputs[0].shape or [])
    if inputs[0].type != "tensor(float)":
        raise ValueError(f"{path}: the model's input {inputs[0].name!r} is {inputs[0].type}, not tensor(float): "
                         f"a policy has {expected}")
    fixed = [d if isinstance(d, int) else None for d in shape]  # None: a named (dynamic) dimension
    if len(fixed) != 2 or fixed[0] not in (1, None) or fixed[1] not in (OBSERVATION_SIZE, None):
        raise ValueError(f"{path}: the model's input {inputs[0].name!r} has shape {_dims(shape)}; a policy has "
                         f"{expected}")
    if not outputs or outputs[0].type not in ("tensor(float)", "tensor(double)", "tensor(float16)"):
        raise ValueError(f"{path}: the model's first output must be the {ACTION_COUNT} action logits (float), not "
                         + (outputs[0].type if outputs else "missing"))
    name = inputs[0].name
    one_row = fixed[0] == 1  # a model exported for a batch of one: a batch is run row by row

    def logits(obs: np.ndarray) -> np.ndarray:
        if one_row and len(obs) != 1:
            return np.concatenate([np.asarray(session.run(None, {name: obs[i:i + 1]})[0]).reshape(1, -1)
                                   for i in range(len(obs))])
        return np.asarray(session.run(None, {name: obs})[0])

    try:  # one trial run: a model that fails or gives the wrong number of logits is refused now
        trial = logits(np.zeros((1, OBSERVATION_SIZE), np.float32))
    except errors as e:
        raise ValueError(f"{path}: the model fails on an observation: {_onnx_error(e)}") from None
    if trial.size != ACTION_COUNT or not np.issubdtype(trial.dtype, np.floating):
        raise ValueError(f"{path}: the model gives {trial.size} {trial.dtype} values for an observation, "
                         f"not the {ACTION_COUNT} action logits")
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
    """The policy saved at ``path`` (``.npz``, ``.zip`` or ``.onnx``; see the module doc): a callable
    ``policy(observation, mask) -> action`` that also takes a batch, ``(n, OBSERVATION_SIZE)``
    observations and ``(n, ACTION_COUNT)`` masks, and returns ``n`` actions in one forward pass: the
    batched opponent of ``VectorGame`` and the batched environments (``opponents=load_policy(p)``
    or the spec ``"policy:p"``). It takes raw observations and scales them itself if its model
    learned on normalised ones, so an environment's ``normalize=True`` does not scale them twice.
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

    def _act(self, game: GameBase, player: int) -> int:
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

    def select_move(self, game: GameBase) -> Move:
        check_game(game, "select_move")
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
