"""A small fully convolutional policy network in numpy: its weights file and its forward pass.

The network scores every cell of a board of any size with one set of weights: `layers` 3x3
convolutions of `channels` channels (ReLU after each), then a 1x1 convolution that reads the last
layer's channels and the input planes themselves and gives each cell one logit. The input planes'
meaning is the caller's (solver/learned.py); this module only computes.

Weights are kept as torch lays them out (a convolution's weight is (out, in, 3, 3)), in an .npz
file with a JSON `meta` entry, so a trainer exports them without conversion and the player runs
them without torch. Boards are padded with zeros (a bounded grid: the net sees its edges) or
wrapped (a torus: every cell has eight neighbours).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._numba_cache import njit
from ..errors import PolicyFileError

FORMAT = 1


@dataclass
class PolicyNet:
    """`convs`: (weight (out, in, 3, 3), bias (out,)) per 3x3 layer; `head`: (weight (1, channels +
    planes, 1, 1), bias (1,)); `meta`: what the file says about itself (planes, training)."""

    convs: list
    head: tuple
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        self.convs = [(np.asarray(w, np.float32), np.asarray(b, np.float32)) for w, b in self.convs]
        self.head = (np.asarray(self.head[0], np.float32), np.asarray(self.head[1], np.float32))
        cin = self.planes
        for k, (w, b) in enumerate(self.convs):
            if w.ndim != 4 or w.shape[1:] != (cin, 3, 3) or b.shape != (w.shape[0],):
                raise PolicyFileError(f"layer {k}: weight {w.shape} and bias {b.shape} do not chain "
                                      f"from {cin} channels with a 3x3 kernel")
            cin = w.shape[0]
        hw, hb = self.head
        if hw.shape != (1, cin + self.planes, 1, 1) or hb.shape != (1,):
            raise PolicyFileError(f"head: weight {hw.shape} must be (1, {cin + self.planes}, 1, 1) and bias (1,)")
        # matrices for the forward pass: (dy, dx, in) rows, out columns
        self._mats = [(np.ascontiguousarray(w.transpose(2, 3, 1, 0).reshape(-1, w.shape[0])), b)
                      for w, b in self.convs]
        self._head = (hw[0, :cin, 0, 0].copy(), hw[0, cin:, 0, 0].copy(), np.float32(hb[0]))

    @property
    def planes(self) -> int:
        """Input planes the network reads."""
        return int(self.convs[0][0].shape[1]) if self.convs else int(self.head[0].shape[1])

    def logits(self, planes: np.ndarray, wrap: bool = False) -> np.ndarray:
        """Per-cell logits (..., h, w) of input planes (..., h, w, planes); `wrap` for a torus."""
        x = np.asarray(planes, np.float32)
        single = x.ndim == 3
        if single:
            x = x[None]
        if x.ndim != 4 or x.shape[-1] != self.planes:
            raise PolicyFileError(f"input planes must be (..., height, width, {self.planes}), got {x.shape}")
        x = np.ascontiguousarray(x)
        h = x
        for mat, bias in self._mats:
            h = conv3x3_relu(h, mat, bias, bool(wrap))
        out = head_logits(h, x, *self._head)
        return out[0] if single else out

    # --- the weights file -------------------------------------------------------------------
    def save(self, path) -> None:
        arrays: dict[str, Any] = {"meta": np.array(json.dumps({**self.meta, "format": FORMAT}))}
        for k, (w, b) in enumerate(self.convs):
            arrays[f"conv{k}.weight"], arrays[f"conv{k}.bias"] = w, b
        arrays["head.weight"], arrays["head.bias"] = self.head
        with open(path, "wb") as f:
            np.savez_compressed(f, **arrays)

    @classmethod
    def load(cls, path) -> PolicyNet:
        p = Path(path)
        try:
            with np.load(p, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError) as e:
            raise PolicyFileError(f"{p} is not a policy weights file (.npz): {e}") from None
        try:
            meta = json.loads(str(arrays.pop("meta")))
            layers = sum(1 for k in arrays if k.startswith("conv") and k.endswith(".weight"))
            convs = [(arrays[f"conv{k}.weight"], arrays[f"conv{k}.bias"]) for k in range(layers)]
            head = (arrays["head.weight"], arrays["head.bias"])
        except (KeyError, ValueError) as e:
            raise PolicyFileError(f"{p} lacks a policy network's entries ({e}); expected meta, conv0..convN "
                                  "weight and bias, head weight and bias") from None
        if meta.get("format") != FORMAT:
            raise PolicyFileError(f"{p} is in policy format {meta.get('format')!r}; this version reads {FORMAT}")
        return cls(convs, head, meta)


@njit
def conv3x3_relu(x, mat, bias, wrap):
    """A 3x3 convolution of x (batch, h, w, in) then ReLU: for each cell, the window's nonzero
    inputs (most are zero: one-hot planes, ReLU outputs) each add their row of `mat` (in * 9, out;
    rows in (dy, dx, in) order). One thread and a fixed order: the same sums on every machine."""
    b, h, w, c = x.shape
    k = mat.shape[1]
    out = np.empty((b, h, w, k), np.float32)
    acc = np.empty(k, np.float32)
    for n in range(b):
        for y in range(h):
            for z in range(w):
                for j in range(k):
                    acc[j] = bias[j]
                for dy in range(3):
                    yy = y + dy - 1
                    if wrap:
                        yy %= h
                    elif yy < 0 or yy >= h:
                        continue
                    for dx in range(3):
                        zz = z + dx - 1
                        if wrap:
                            zz %= w
                        elif zz < 0 or zz >= w:
                            continue
                        base = (dy * 3 + dx) * c
                        for i in range(c):
                            v = x[n, yy, zz, i]
                            if v != 0.0:
                                for j in range(k):  # (indexed, not sliced: numba vectorises this)
                                    acc[j] += v * mat[base + i, j]
                for j in range(k):
                    out[n, y, z, j] = acc[j] if acc[j] > 0.0 else 0.0
    return out


@njit
def head_logits(h, x, wh, wx, bias):
    """The 1x1 head: each cell's last-layer channels and input planes, weighed, plus the bias."""
    b, hh, ww, _ = h.shape
    out = np.empty((b, hh, ww), np.float32)
    for n in range(b):
        for y in range(hh):
            for z in range(ww):
                s = bias
                for i in range(h.shape[3]):
                    s += h[n, y, z, i] * wh[i]
                for i in range(x.shape[3]):
                    s += x[n, y, z, i] * wx[i]
                out[n, y, z] = s
    return out
