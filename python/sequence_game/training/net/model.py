"""The policy-value network in PyTorch (the trainer's side; the core evaluates the exported file).

The architecture is the one the weights file describes (:mod:`sequence_game.netfile`): two ReLU
layers over the observation tensor divided by ``OBSERVATION_SCALE``, a linear policy head over the
5,253 actions (only the legal ones are ever read) and a value head of 3 logits (one per relative
team; the third is masked out in a two-team game).
"""

from __future__ import annotations

from typing import Dict, Tuple

import numpy as np
import torch
from torch import nn

from ...actions import ACTION_COUNT
from ...netfile import VALUE_OUTPUTS
from ...observation import LAYOUT, OBSERVATION_SCALE, OBSERVATION_SIZE

__all__ = ["PolicyValueNet", "masked_value_logits"]

_TEAMS_OFFSET = LAYOUT["teams"][0]


def masked_value_logits(value_logits: torch.Tensor, obs: torch.Tensor) -> torch.Tensor:
    """The value logits with the third team's logit at -inf where the game has two teams (R8)."""
    two = obs[:, _TEAMS_OFFSET] < 2.5
    masked = value_logits.clone()
    masked[:, 2] = torch.where(two, torch.full_like(masked[:, 2], -1e9), masked[:, 2])
    return masked


class PolicyValueNet(nn.Module):
    inv_scale: torch.Tensor  # 1 / OBSERVATION_SCALE, a buffer (saved with the state dict)

    def __init__(self, hidden1: int = 256, hidden2: int = 128) -> None:
        super().__init__()
        self.hidden1 = hidden1
        self.hidden2 = hidden2
        self.l1 = nn.Linear(OBSERVATION_SIZE, hidden1)
        self.l2 = nn.Linear(hidden1, hidden2)
        self.policy = nn.Linear(hidden2, ACTION_COUNT)
        self.value = nn.Linear(hidden2, VALUE_OUTPUTS)
        self.register_buffer("inv_scale", torch.from_numpy((1.0 / OBSERVATION_SCALE).astype(np.float32)))

    def trunk(self, obs: torch.Tensor) -> torch.Tensor:
        x = obs * self.inv_scale
        return torch.relu(self.l2(torch.relu(self.l1(x))))

    def forward(self, obs: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """``(policy logits (N, 5253), masked value logits (N, 3))`` for raw observations."""
        h = self.trunk(obs)
        return self.policy(h), masked_value_logits(self.value(h), obs)

    @classmethod
    def from_arrays(cls, arrays: Dict[str, np.ndarray]) -> PolicyValueNet:
        """The network of a weights file's arrays (``netfile.read_weights``): the inverse of
        :meth:`export_arrays`, to fine-tune a shipped network."""
        model = cls(int(arrays["b1"].shape[0]), int(arrays["b2"].shape[0]))
        scale = torch.from_numpy(OBSERVATION_SCALE.astype(np.float32))
        with torch.no_grad():
            model.l1.weight.copy_(torch.from_numpy(arrays["W1T"]).t() * scale[None, :])
            model.l1.bias.copy_(torch.from_numpy(arrays["b1"]))
            model.l2.weight.copy_(torch.from_numpy(arrays["W2"]))
            model.l2.bias.copy_(torch.from_numpy(arrays["b2"]))
            model.policy.weight.copy_(torch.from_numpy(arrays["Wp"]))
            model.policy.bias.copy_(torch.from_numpy(arrays["bp"]))
            model.value.weight.copy_(torch.from_numpy(arrays["Wv"]))
            model.value.bias.copy_(torch.from_numpy(arrays["bv"]))
        return model

    def export_arrays(self) -> Dict[str, np.ndarray]:
        """The weights file's arrays (netfile.ARRAYS), the observation scale folded into W1."""
        with torch.no_grad():
            w1 = (self.l1.weight * self.inv_scale[None, :]).t().contiguous()
            parts = {"W1T": w1, "b1": self.l1.bias, "W2": self.l2.weight, "b2": self.l2.bias,
                     "Wp": self.policy.weight, "bp": self.policy.bias, "Wv": self.value.weight,
                     "bv": self.value.bias}
            return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in parts.items()}
