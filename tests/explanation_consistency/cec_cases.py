"""Small problems and random networks shared by the explanation-consistency tests."""

import jax.numpy as jnp
import numpy as np

# one small network configuration for most fits, so that its compiled epoch is shared across the tests
TINY = dict(hidden_layer_sizes=(16, 8), epochs=30, learning_rate=1e-2, batch_size=64, ig_steps=8, dropout=0.0)


def small_problem(n=256, seed=0):
    """A problem where group-dependent reasoning is possible: the proxy x1 counts +1 in group 0, -1 in group 1."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    x0, x1 = rng.normal(size=n), rng.normal(size=n)
    y = (x0 + np.where(a == 1, -1.0, 1.0) * x1 > 0).astype(int)
    X = np.column_stack([x0, x1, a])
    return X, y, a


def random_params(seed, sizes, dtype=np.float64):
    """Random network parameters in the engine's layout (He-like scale, non-zero biases)."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        W = rng.normal(size=(fan_in, fan_out)) * np.sqrt(2.0 / fan_in)
        c = rng.normal(size=fan_out) * 0.3
        params.append((jnp.asarray(W, dtype), jnp.asarray(c, dtype)))
    return tuple(params)
