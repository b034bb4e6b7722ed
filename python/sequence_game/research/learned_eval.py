"""The learned evaluation's model file: the weights of ``MCTSAgent(options={"evaluation": "learned"})``,
a research build's option (docs/research/learned-evaluation.md).

The search scores a playout leaf with a linear score per team over the features of
``cpp/include/sequence/search/features.hpp`` (``_core.EVAL_FEATURES``: open windows by chip
count, threats, sequences, jacks and dead cards in hand, card counting from the discards, tempo),
turned into a reward per team by a softmax (two teams: the logistic of the difference). The weights
are fitted on self-play positions labelled with the game's result by
``sequence-game fit-eval`` (:mod:`sequence_game.training.fit_eval`), which
writes this JSON file::

    {"format": "sequence-game-eval/1",
     "weights": {"sequences": 1.9, "open1": 0.01, ...},     # one per feature, all of them
     "training": {"command": "...", "games": ..., "positions": ..., "seed": ...,
                  "validation": {"log_loss": ..., "accuracy": ..., "handset_log_loss": ...}}}

The package ships one (``research/data/learned_eval.json``, :data:`DEFAULT_MODEL_PATH`), read once
and validated: a bad file raises ``ValueError`` naming the field.

>>> model = load_eval_model()
>>> sorted(model.weights) == sorted(_core.EVAL_FEATURES)
True
>>> abs(model.learned_weights().sequences - model.weights["sequences"]) < 1e-6  # float32 in the core
True
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Union

from .. import _core

__all__ = ["DEFAULT_MODEL_PATH", "MODEL_FORMAT", "EvalModel", "load_eval_model", "parse_eval_model"]

MODEL_FORMAT = "sequence-game-eval/1"
#: The fitted model that ships in the package.
DEFAULT_MODEL_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "learned_eval.json")
#: The largest model file read; larger files are refused unread.
MAX_MODEL_BYTES = 1 << 20
_MAX_WEIGHT = 1e6  # OptionLimits::kMaxWeight (cpp/include/sequence/search/options.hpp)


@dataclass(frozen=True)
class EvalModel:
    """A validated model: ``weights`` (feature name -> weight, every name of
    ``_core.EVAL_FEATURES``) and ``training`` (how it was made: command, data size, seeds,
    validation loss; free-form, kept as read)."""

    weights: Mapping[str, float]
    training: Mapping[str, Any] = field(default_factory=dict)

    def learned_weights(self) -> Any:
        """The weights as the core's ``_core.LearnedWeights`` (for ``SearchOptions``)."""
        return _core.LearnedWeights(**dict(self.weights))

    def to_json(self) -> Dict[str, Any]:
        """The file's contents (features in the core's order)."""
        return {"format": MODEL_FORMAT, "weights": {k: float(self.weights[k]) for k in _core.EVAL_FEATURES},
                "training": dict(self.training)}


def parse_eval_model(data: Any, source: str = "the model") -> EvalModel:
    """An :class:`EvalModel` from a model file's parsed JSON; ``ValueError`` naming the field
    (``format``, ``weights``, ``weights.<feature>``, ``training``) and ``source`` when it is not
    a valid model for this core.

    >>> parse_eval_model({"format": MODEL_FORMAT, "weights": {}})
    Traceback (most recent call last):
    ...
    ValueError: the model: weights: missing features sequences, open1, open2, ... (the core's features are _core.EVAL_FEATURES)
    """
    if not isinstance(data, dict):
        raise ValueError(f"{source}: a model is a JSON object with format, weights and training, not {type(data).__name__}")
    if data.get("format") != MODEL_FORMAT:
        raise ValueError(f"{source}: format must be {MODEL_FORMAT!r}, not {data.get('format')!r:.60}")
    weights = data.get("weights")
    if not isinstance(weights, dict):
        raise ValueError(f"{source}: weights must be an object of feature name -> number, not {type(weights).__name__}")
    names = list(_core.EVAL_FEATURES)
    missing = [n for n in names if n not in weights]
    if missing:
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise ValueError(f"{source}: weights: missing features {shown} (the core's features are _core.EVAL_FEATURES)")
    unknown = sorted(str(k) for k in weights if k not in names)
    if unknown:
        raise ValueError(f"{source}: weights: unknown features {', '.join(unknown[:3])} "
                         "(a model for another version of the core?)")
    checked: Dict[str, float] = {}
    for n in names:
        w = weights[n]
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or abs(w) > _MAX_WEIGHT:
            raise ValueError(f"{source}: weights.{n} must be a finite number from -{_MAX_WEIGHT:g} to {_MAX_WEIGHT:g}, "
                             f"not {w!r:.40}")
        checked[n] = float(w)
    training = data.get("training", {})
    if not isinstance(training, dict):
        raise ValueError(f"{source}: training must be an object (how the model was made), not {type(training).__name__}")
    return EvalModel(checked, training)


_DEFAULT: Optional[EvalModel] = None


def load_eval_model(path: Optional[Union[str, os.PathLike[str]]] = None) -> EvalModel:
    """The model in the JSON file ``path`` (None: the packaged one, read once); ``ValueError``
    naming the file and the field when it is not valid, ``OSError`` when it cannot be read."""
    global _DEFAULT
    if path is None and _DEFAULT is not None:
        return _DEFAULT
    file = os.fspath(path) if path is not None else DEFAULT_MODEL_PATH
    with open(file, "rb") as f:
        raw = f.read(MAX_MODEL_BYTES + 1)
    if len(raw) > MAX_MODEL_BYTES:
        raise ValueError(f"{file}: larger than {MAX_MODEL_BYTES >> 10} KiB, not a model (one is about 2 KiB)")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise ValueError(f"{file}: not JSON ({e})") from None
    except UnicodeDecodeError as e:
        raise ValueError(f"{file}: not JSON text ({e.reason} at byte {e.start})") from None
    except RecursionError:
        raise ValueError(f"{file}: JSON nested too deeply to be a model") from None
    model = parse_eval_model(data, file)
    if path is None:
        _DEFAULT = model
    return model
