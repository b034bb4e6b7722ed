"""The policy-value network's weights file (``.sqnet``): written by the trainer
(:mod:`sequence_game.training.net`), read by the core (``cpp/src/net.cpp``) and by
:func:`read_weights` here; numpy only.

The network (docs/research/learned-player.md) reads the raw observation tensor of the seat to move
(docs/observation.md, 890 floats: R9 by construction) and computes::

    h1 = relu(W1 @ obs + b1)            # W1 has the observation scale folded in
    h2 = relu(W2 @ h1 + b2)
    logit[a] = Wp[a] @ h2 + bp[a]       # only for the legal actions a (docs/action-space.md)
    value = softmax((Wv @ h2 + bv)[:teams])   # win probability per relative team

Layout, little-endian: a 64-byte header, then the float32 arrays in this order, each row-major:
``W1T`` (890 x H1, the transpose of W1: one row per input), ``b1`` (H1), ``W2`` (H2 x H1), ``b2``
(H2), ``Wp`` (5253 x H2), ``bp`` (5253), ``Wv`` (3 x H2), ``bv`` (3); then the CRC-32 (zlib) of
everything before it, as a uint32.

Header: magic ``b"SQNET\\x00\\r\\n"`` (8 bytes), then uint32 fields: version (1), inputs (890),
H1, H2, actions (5253), value outputs (3), then 9 reserved uint32 fields (0) up to 64 bytes.
The core refuses any file whose magic, version, shapes, size or checksum disagree, or that holds a
non-finite number, with one line saying what is wrong.
"""

from __future__ import annotations

import os
import struct
import zlib
from typing import Dict, Mapping, Tuple

import numpy as np

from .actions import ACTION_COUNT
from .observation import OBSERVATION_SIZE

__all__ = ["ARRAYS", "HEADER_SIZE", "MAGIC", "VERSION", "read_weights", "weights_bytes", "write_weights"]

MAGIC = b"SQNET\x00\r\n"
VERSION = 1
HEADER_SIZE = 64
VALUE_OUTPUTS = 3
#: The arrays of the file in order, with their shapes in terms of the hidden sizes.
ARRAYS = ("W1T", "b1", "W2", "b2", "Wp", "bp", "Wv", "bv")
MAX_HIDDEN = 4096


def _shapes(h1: int, h2: int) -> Dict[str, Tuple[int, ...]]:
    return {"W1T": (OBSERVATION_SIZE, h1), "b1": (h1,), "W2": (h2, h1), "b2": (h2,),
            "Wp": (ACTION_COUNT, h2), "bp": (ACTION_COUNT,), "Wv": (VALUE_OUTPUTS, h2), "bv": (VALUE_OUTPUTS,)}


def weights_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    """The file's bytes for the arrays named in :data:`ARRAYS` (shapes checked)."""
    if "b1" not in arrays or "b2" not in arrays:
        raise ValueError("weights need the arrays " + ", ".join(ARRAYS))
    h1, h2 = int(np.shape(arrays["b1"])[0]), int(np.shape(arrays["b2"])[0])
    if not (1 <= h1 <= MAX_HIDDEN and 1 <= h2 <= MAX_HIDDEN):
        raise ValueError(f"hidden sizes must be in 1..{MAX_HIDDEN}, not {h1} and {h2}")
    shapes = _shapes(h1, h2)
    body = [MAGIC, struct.pack("<6I", VERSION, OBSERVATION_SIZE, h1, h2, ACTION_COUNT, VALUE_OUTPUTS),
            bytes(HEADER_SIZE - 8 - 24)]
    for name in ARRAYS:
        a = np.asarray(arrays[name], dtype="<f4")
        if a.shape != shapes[name]:
            raise ValueError(f"weights array {name} must have shape {shapes[name]}, not {a.shape}")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"weights array {name} holds a non-finite number")
        body.append(np.ascontiguousarray(a).tobytes())
    data = b"".join(body)
    return data + struct.pack("<I", zlib.crc32(data) & 0xFFFFFFFF)


def write_weights(path: str, arrays: Mapping[str, np.ndarray]) -> None:
    """Write a weights file atomically (a temporary file renamed over ``path``)."""
    data = weights_bytes(arrays)
    tmp = f"{path}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def read_weights(path: str) -> Dict[str, np.ndarray]:
    """The arrays of a weights file; ``ValueError`` saying what is wrong with a damaged one. The
    header and the file's size are checked before the rest is read: a wrong file of any size is
    refused after its first 68 bytes."""
    with open(path, "rb") as f:
        head = f.read(HEADER_SIZE + 4)
        if len(head) < HEADER_SIZE + 4 or head[:8] != MAGIC:
            raise ValueError(f"{path}: not a sequence-game network weights file (bad magic or too short)")
        version, inputs, h1, h2, actions, outs = struct.unpack_from("<6I", head, 8)
        if version != VERSION:
            raise ValueError(f"{path}: weights format version {version}, this package reads version {VERSION}")
        if (inputs, actions, outs) != (OBSERVATION_SIZE, ACTION_COUNT, VALUE_OUTPUTS):
            raise ValueError(f"{path}: shapes {inputs}/{actions}/{outs} do not match the observation and action spaces")
        if not (1 <= h1 <= MAX_HIDDEN and 1 <= h2 <= MAX_HIDDEN):
            raise ValueError(f"{path}: hidden sizes {h1} and {h2} out of range 1..{MAX_HIDDEN}")
        shapes = _shapes(h1, h2)
        need = HEADER_SIZE + 4 * sum(int(np.prod(s)) for s in shapes.values()) + 4
        size = os.fstat(f.fileno()).st_size
        if size != need:
            raise ValueError(f"{path}: {size} bytes, the header's shapes need {need}")
        data = head + f.read(need - len(head))
    if len(data) != need:
        raise ValueError(f"{path}: the file changed while it was read")
    (crc,) = struct.unpack_from("<I", data, len(data) - 4)
    if zlib.crc32(data[:-4]) & 0xFFFFFFFF != crc:
        raise ValueError(f"{path}: checksum mismatch (the file is damaged)")
    out: Dict[str, np.ndarray] = {}
    pos = HEADER_SIZE
    for name in ARRAYS:
        n = int(np.prod(shapes[name]))
        out[name] = np.frombuffer(data, dtype="<f4", count=n, offset=pos).reshape(shapes[name]).astype(np.float32)
        if not np.all(np.isfinite(out[name])):
            raise ValueError(f"{path}: weights array {name} holds a non-finite number")
        pos += 4 * n
    return out
