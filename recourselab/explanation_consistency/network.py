"""The JAX kernels behind :class:`~recourselab.explanation_consistency.MLPClassifier` (internal).

A ReLU network's logit, its integrated gradients written as one batched backward pass, the paper's training
loss (BCE + λ_EO · soft equalized-odds gap + λ_CEC · mean squared CEC score) and one compiled training epoch.

Speed. The network's input gradient along the path is written out as a backward pass, so the training loss
contains no automatic derivative and is differentiated only once, and two exact rearrangements take the
input-dimension work out of the per-point cost: the first layer's pre-activation is affine in the path
position, :math:`W_1^\\top(b + \\alpha(x - b)) = W_1^\\top b + \\alpha W_1^\\top (x - b)`, and the last step of
the backward pass (multiplying by :math:`W_1`) commutes with the average over path points, so it runs once
per row. A training epoch is one compiled ``jax.lax.scan`` over minibatches, cached per configuration so
that repeated fits (cross-validation, ``ExponentiatedGradient``) do not recompile. Integrated gradients run
in one compiled call over blocks of rows x path points small enough to stay in the CPU cache.
``benchmarks/cec.py`` times all of this against naive loops.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ._inputs import EPS
from .quadrature import quadrature

try:  # the differentiable parts need the optional "cec" extra (jax, optax)
    import jax
    import jax.numpy as jnp
    import optax
except ImportError:  # pragma: no cover - exercised only without jax
    jax = jnp = optax = None

__all__: list[str] = []

IG_BLOCK_POINTS = 4096    # path points (rows x steps) per block of the IG computation: stays in cache
IG_MAX_BLOCKS = 256       # blocks per compiled call (rows beyond that go to further calls)


def require_jax():
    if jax is None:  # pragma: no cover
        raise ImportError("this part of recourselab.explanation_consistency needs jax and optax: "
                          "pip install 'recourselab[cec]'.")


def logits(params, Z, key=None, dropout: float = 0.0):
    """The network's logit; ``params`` = ((W, c) per hidden layer ..., (W_out (h, 1), c_out (1,)))."""
    h = Z
    train = key is not None and dropout > 0 and len(params) > 1
    if train:  # one random draw for the masks of all hidden layers (cheaper than one per layer)
        keep = 1.0 - dropout
        widths = [W.shape[1] for W, _ in params[:-1]]
        masks = jax.random.bernoulli(key, keep, Z.shape[:-1] + (sum(widths),))
        offsets = np.cumsum([0] + widths)
    for i, (W, c) in enumerate(params[:-1]):
        h = jax.nn.relu(h @ W + c)
        if train:
            h = jnp.where(masks[..., offsets[i]:offsets[i + 1]], h / keep, 0.0)
    W, c = params[-1]
    return h @ W[:, 0] + c[0]


def path_weights(steps: int, rule: str, dtype):
    alphas, weights = quadrature(steps, rule)
    return jnp.asarray(alphas, dtype=dtype), jnp.asarray(weights, dtype=dtype)


def ig_network(params, X, B, steps: int, rule: str = "riemann"):
    """Integrated gradients of the network's logit, all rows and path points at once.

    The input gradient is written out as a backward pass: with masks
    :math:`m_l = 1[u_l > 0]` along the path, :math:`\\nabla_x f = W_1 (m_1
    \\odot W_2 (m_2 \\odot \\dots w_{out}))`. Two exact rearrangements save the
    work that scales with the number of inputs d: the first pre-activation is
    :math:`P + \\alpha Q` with :math:`P = W_1^\\top b + c_1`,
    :math:`Q = W_1^\\top (x - b)` computed once per row, and the final
    multiplication by :math:`W_1` is applied once to the path average.
    """
    D = X - B
    if len(params) == 1:  # no hidden layer: the gradient is w everywhere, so IG = (x - b) * w exactly
        return D * params[0][0][:, 0]
    alphas, weights = path_weights(steps, rule, X.dtype)
    W1, c1 = params[0]
    P = B @ W1 + c1                                            # (n, h1)
    Q = D @ W1                                                 # (n, h1)
    U = P[None] + alphas[:, None, None] * Q[None]              # (T, n, h1)
    masks = [U > 0]
    H = jnp.maximum(U, 0.0)
    for W, c in params[1:-1]:
        U = H @ W + c
        masks.append(U > 0)
        H = jnp.maximum(U, 0.0)
    delta = jnp.where(masks[-1], params[-1][0][:, 0], 0.0)    # d logit / d u_L at every path point
    for (W, _), m in zip(reversed(params[1:-1]), reversed(masks[:-1]), strict=True):
        delta = jnp.where(m, delta @ W.T, 0.0)
    return D * (jnp.tensordot(weights, delta, axes=1) @ W1.T)


def ig_network_autodiff(params, X, B, steps: int, rule: str = "riemann"):
    """The straightforward version (autodiff of the logit at every path point); a reference for tests."""
    alphas, weights = path_weights(steps, rule, X.dtype)
    Z = B[None] + alphas[:, None, None] * (X - B)[None]
    grads = jax.grad(lambda Z: logits(params, Z).sum())(Z)
    return (X - B) * jnp.tensordot(weights, grads, axes=1)


def safe_normalise(G):
    """G / (||G||_2 + eps) row-wise, with a zero (not NaN) derivative at G = 0."""
    sq = (G * G).sum(axis=-1, keepdims=True)
    positive = sq > 0
    norm = jnp.where(positive, jnp.sqrt(jnp.where(positive, sq, 1.0)), 0.0)
    return G / (norm + EPS)


def cec_term(params, X, X_cf, B, weight, steps: int, rule: str = "riemann", reference: bool = False):
    """Mean squared CEC score over the rows with weight 1 (the paper's L_CEC on a minibatch).

    Factual and counterfactual rows go through one batched IG computation with
    the factual's baseline for both; the network is the deterministic one (no
    dropout), so the explanation being regularised is the one that is audited.
    """
    m = X.shape[0]
    ig = ig_network_autodiff if reference else ig_network
    G = ig(params, jnp.concatenate([X, X_cf]), jnp.concatenate([B, B]), steps, rule)
    diff = safe_normalise(G[:m]) - safe_normalise(G[m:])
    score_sq = 0.25 * (diff * diff).sum(axis=1)
    return (weight * score_sq).sum() / jnp.maximum(weight.sum(), 1.0)


def eo_term(prob, y, a, valid):
    """Soft equalized-odds gap: (TPR_0 - TPR_1)^2 + (FPR_0 - FPR_1)^2 from mean sigmoid outputs.

    A (label, group) cell with no rows in the batch makes that label's term 0
    (masks, not branches, so the compiled step has one shape).
    """
    total = 0.0
    for label in (0.0, 1.0):
        rates, present = [], []
        for g in (0.0, 1.0):
            cell = valid * (y == label) * (a == g)
            count = cell.sum()
            rates.append((cell * prob).sum() / jnp.maximum(count, 1.0))
            present.append(count > 0)
        total = total + jnp.where(present[0] & present[1], (rates[0] - rates[1]) ** 2, 0.0)
    return total


@dataclass(frozen=True)
class TrainConfig:
    sizes: tuple            # (d, h1, ..., 1)
    batch_size: int
    n_batches: int
    dropout: float
    learning_rate: float
    use_cec: bool           # the expensive term is compiled only when needed; the EO term always is (cheap)
    ig_steps: int
    reference_ig: bool = False   # benchmarks only: the straightforward autodiff IG inside the loss
    ig_rule: str = "riemann"
    cec_pairs: int | None = None  # rows of each batch (its first ones; batches are shuffled) in the CEC term


def batch_loss(params, batch, key, lambdas, cfg: TrainConfig):
    """The paper's loss on one minibatch and its three parts (total, BCE, EO, CEC)."""
    out = logits(params, batch["X"], key, cfg.dropout)
    n_valid = jnp.maximum(batch["valid"].sum(), 1.0)
    bce = (batch["w"] * optax.sigmoid_binary_cross_entropy(out, batch["y"])).sum() / n_valid
    eo = eo_term(jax.nn.sigmoid(out), batch["y"], batch["a"], batch["valid"])
    cec = 0.0
    if cfg.use_cec:
        k = cfg.batch_size if cfg.cec_pairs is None else min(cfg.cec_pairs, cfg.batch_size)
        cec = cec_term(params, batch["X"][:k], batch["X_cf"][:k], batch["B"][:k],
                       (batch["valid"] * batch["matched"])[:k], cfg.ig_steps, cfg.ig_rule, cfg.reference_ig)
    total = bce + lambdas[0] * eo + lambdas[1] * cec
    return total, jnp.stack([total, bce, eo, jnp.asarray(cec, bce.dtype)])


@functools.lru_cache(maxsize=64)
def epoch_function(cfg: TrainConfig):
    """One compiled training epoch per static configuration (cached for repeated fits)."""
    optimizer = optax.adam(cfg.learning_rate)
    grad_fn = jax.value_and_grad(batch_loss, has_aux=True)

    def epoch(params, opt_state, key, data, lambdas):
        shuffle_key, dropout_key = jax.random.split(key)
        u = jnp.where(data["valid"] > 0, jax.random.uniform(shuffle_key, data["valid"].shape), 2.0)
        order = jnp.argsort(u).reshape(cfg.n_batches, cfg.batch_size)  # padding rows land in the last batch

        def step(carry, inputs):
            params, opt_state = carry
            b, idx = inputs
            batch = {k: v[idx] for k, v in data.items()}
            (_, parts), grads = grad_fn(params, batch, jax.random.fold_in(dropout_key, b), lambdas, cfg)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), parts

        (params, opt_state), parts = jax.lax.scan(step, (params, opt_state), (jnp.arange(cfg.n_batches), order))
        return params, opt_state, parts.mean(axis=0)

    return optimizer, jax.jit(epoch)


def init_params(key, sizes):
    """He normal weights for hidden layers, Glorot normal for the output, zero biases (float32)."""
    params = []
    n_layers = len(sizes) - 1
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        key, sub = jax.random.split(key)
        last = i == n_layers - 1
        std = math.sqrt(2.0 / (fan_in + fan_out)) if last else math.sqrt(2.0 / fan_in)  # Glorot / He
        params.append((jax.random.normal(sub, (fan_in, fan_out), jnp.float32) * std,
                       jnp.zeros((fan_out,), jnp.float32)))
    return tuple(params)


@functools.lru_cache(maxsize=None)
def logit_function():
    return jax.jit(logits)


@functools.lru_cache(maxsize=None)
def ig_function(steps: int, rule: str = "riemann"):
    """Compiled IG over blocks of rows (``jax.lax.map``): each block's path points fit in the CPU cache,
    which is several times faster than one huge batch; returns the function and its block size in rows."""
    rows = max(1, IG_BLOCK_POINTS // steps)

    def ig(params, X, B):
        n, d = X.shape
        blocks = jax.lax.map(lambda xb: ig_network(params, xb[0], xb[1], steps, rule),
                             (X.reshape(n // rows, rows, d), B.reshape(n // rows, rows, d)))
        return blocks.reshape(n, d)

    return jax.jit(ig), rows


def bucket(n: int, cap: int, multiple: int = 1) -> int:
    """Rows per call: ``multiple`` times a power of two (at least 16 rows, at most ``cap``), so few shapes compile."""
    size = multiple * max(1, -(-16 // multiple))
    while size < n and size < cap:
        size *= 2
    return min(size, max(cap, multiple))


def chunked(fn, arrays, cap: int, multiple: int = 1, tail: tuple | None = None):
    """Apply a compiled row-wise function in zero-padded calls; returns a float64 numpy result.

    ``tail`` is the shape of one row of the output (default: that of the first
    input); it fixes the shape of the result for zero rows, when ``fn`` is never called.
    """
    n = len(arrays[0])
    size = bucket(n, cap, multiple)
    out = []
    for start in range(0, n, size):
        parts = [arr[start:start + size] for arr in arrays]
        m = len(parts[0])
        if m < size:
            parts = [np.concatenate([p, np.zeros((size - m,) + p.shape[1:], p.dtype)]) for p in parts]
        out.append(np.asarray(fn(*[jnp.asarray(p) for p in parts]), dtype=float)[:m])
    if not out:
        return np.zeros((0,) + (tuple(np.shape(arrays[0])[1:]) if tail is None else tuple(tail)))
    return np.concatenate(out)
