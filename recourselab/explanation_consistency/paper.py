"""Popoola and Sheppard's algorithms written literally :cite:p:`popoola2026cec`: plain loops, the paper's notation.

For a student to read beside the paper; the engines of this package compute the same numbers fast, and
``tests/explanation_consistency/test_paper.py`` checks on random small instances that they agree. Every
step cites the line of Algorithm 1 or 2, the definition or the equation it implements.

* :func:`label_stratified_matching`: Algorithm 1 (Definition 2), the counterfactual partner of each person;
* :func:`label_group_mean`: the baseline :math:`b_{y,a}` of Principle 1;
* :func:`integrated_gradients_row`: integrated gradients of one row as a midpoint Riemann sum;
* :func:`cec_score`: Definition 3, the CEC score of a pair;
* :func:`regime`: Table 1, the regime A-D of a pair;
* :func:`cec_loss` and :func:`soft_equalized_odds`: the two penalties of Algorithm 2 on one minibatch.
"""

import math

import numpy as np


def label_stratified_matching(x_F, y, a, tau=0.0, queries=None):
    """Algorithm 1 (label-stratified counterfactual generation): each person's nearest partner of the
    other group with the same label, on the standardised financial features :math:`\\mathcal F`.

    Under our reading: a constant financial feature is left unscaled (σ = 1); distances equal up to
    rounding (relative 1e-9) are ties, won by the lowest position in the training data (the paper's
    KD-tree leaves ties unspecified).

    Parameters
    ----------
    x_F : ndarray of shape (n, ``|F|``)
        The training data's financial features.
    y, a : sequences of length n
        Labels and groups (0/1) of the training data.
    tau : float, default 0.0
        Distance threshold; 0 means none (the paper's "if τ > 0").
    queries : (x_F, y, a), optional
        The people to find partners for; default the training data itself.

    Returns
    -------
    C : list of int or None
        :math:`\\mathcal C[i]`: the position :math:`j^*` of person i's partner in the training data;
        None when unmatched.
    d : list of float or None
        :math:`d^*`: the distance to that nearest candidate (None when the stratum is empty).

    Examples
    --------
    >>> x_F = np.array([[1.0], [2.0], [1.1], [2.2]])
    >>> label_stratified_matching(x_F, y=[1, 1, 1, 1], a=[0, 0, 1, 1])[0]
    [2, 3, 0, 1]
    """
    n = len(x_F)
    x_q, y_q, a_q = (x_F, y, a) if queries is None else queries
    mu, sigma = x_F.mean(axis=0), x_F.std(axis=0)                 # line 2: μ_F, σ_F from the training data
    sigma = np.where(sigma == 0, 1.0, sigma)
    D = {}                                                          # lines 3-9: partition by (y, a)
    for j in range(n):
        D.setdefault((y[j], a[j]), []).append(j)                    # line 4: D_{y,a}, positions in order
    C, distances = [], []
    for i in range(len(x_q)):                                       # line 11: for each instance
        a_bar = 1 - a_q[i]                                          # line 12: the opposite group
        candidates = D.get((y_q[i], a_bar), [])
        if not candidates:                                          # lines 13-14: no one to match with
            C.append(None)
            distances.append(None)
            continue
        z_i = (x_q[i] - mu) / sigma                                 # (x_i)_F^std
        d = []
        for j in candidates:                                        # line 16: the query, by brute force
            z_j = (x_F[j] - mu) / sigma
            total = 0.0
            for k in range(len(z_i)):
                total += (z_i[k] - z_j[k]) * (z_i[k] - z_j[k])
            d.append(math.sqrt(total))
        d_min = min(d)
        best = next(t for t in range(len(d)) if d[t] <= d_min * (1 + 1e-9) + 1e-12)   # ties: lowest position
        j_star, d_star = candidates[best], d[best]
        if tau > 0 and d_star > tau:                                # lines 17-18: a poor-quality match
            C.append(None)
        else:
            C.append(j_star)                                        # line 20: C[i] <- x_{j*}
        distances.append(d_star)
    return C, distances


def label_group_mean(x, y, a, label, group):
    """The baseline of Principle 1: :math:`b_{y,a} = \\frac{1}{|\\{i: y_i = y, a_i = a\\}|}
    \\sum_{i: y_i = y, a_i = a} x_i`, the mean row of the factual's (label, group) cell.

    Examples
    --------
    >>> label_group_mean(np.array([[0.0], [2.0], [4.0]]), [1, 1, 1], [0, 0, 1], label=1, group=0)
    array([1.])
    """
    total, count = np.zeros(len(x[0])), 0
    for i in range(len(x)):
        if y[i] == label and a[i] == group:
            total = total + x[i]
            count += 1
    return total / count


def integrated_gradients_row(grad_f, x, b, T=32):
    """Integrated gradients of one row,
    :math:`\\mathrm{IG}_j(x; b) = (x_j - b_j) \\int_0^1 \\partial_j f(b + \\alpha (x - b))\\, d\\alpha`,
    as the midpoint Riemann sum with T points (under our reading: the paper gives the integral and T).

    Parameters
    ----------
    grad_f : callable
        :math:`z \\mapsto \\nabla f(z)`, the gradient of the logit (e.g. ``jax.grad`` of the model).
    x, b : ndarray of shape (d,)
        The row and its baseline.
    T : int, default 32
        Path points.

    Examples
    --------
    >>> w = np.array([2.0, -1.0])
    >>> integrated_gradients_row(lambda z: w, np.array([1.0, 1.0]), np.array([0.0, 0.0]), T=4)
    array([ 2., -1.])
    """
    d = len(x)
    total = np.zeros(d)
    for k in range(1, T + 1):
        alpha = (k - 0.5) / T                                       # the k-th midpoint of [0, 1]
        z = b + alpha * (x - b)                                     # a point on the straight path
        g = grad_f(z)
        for j in range(d):
            total[j] += g[j]
    return np.array([(x[j] - b[j]) * total[j] / T for j in range(d)])


def cec_score(g, g_tilde, eps=1e-8):
    """Definition 3: :math:`\\Delta_{CEC}(x, \\tilde x) = \\tfrac12 \\lVert \\mathrm{IG}_{norm}(x; b) -
    \\mathrm{IG}_{norm}(\\tilde x; b) \\rVert_2` with
    :math:`\\mathrm{IG}_{norm} = g / (\\lVert g \\rVert_2 + \\epsilon)`, for the attributions
    :math:`g, \\tilde g` of a factual and its partner against the same baseline (Principle 1).

    Examples
    --------
    >>> round(cec_score([1.0, 0.0], [-1.0, 0.0]), 6)     # opposite explanations
    1.0
    """
    norm = math.sqrt(sum(v * v for v in g))
    norm_tilde = math.sqrt(sum(v * v for v in g_tilde))
    g_hat = [v / (norm + eps) for v in g]                           # normalisation, epsilon = 1e-8
    g_tilde_hat = [v / (norm_tilde + eps) for v in g_tilde]
    delta_raw = math.sqrt(sum((g_hat[j] - g_tilde_hat[j]) ** 2 for j in range(len(g))))   # in [0, 2]
    return delta_raw / 2                                            # Definition 3: in [0, 1]


def regime(score, y_hat, y_hat_tilde, t=0.25):
    """Table 1: the regime of a pair from "same prediction?" and "same reasoning?" (score <= t;
    the paper gives no threshold, t = 0.25 under our reading, explanations within about 29 degrees).

    Examples
    --------
    >>> regime(0.6, y_hat=1, y_hat_tilde=1)    # same decision, different reasoning: hidden bias
    'B'
    """
    same_prediction = y_hat == y_hat_tilde
    same_reasoning = score <= t
    if same_prediction:
        return "A" if same_reasoning else "B"
    return "C" if same_reasoning else "D"


def cec_loss(grad_f, x, x_tilde, b, T=32):
    """Algorithm 2, lines 10-17: the CEC penalty of one minibatch,
    :math:`\\mathcal L_{CEC} = \\frac1m \\sum_i \\Delta_{CEC}(x_i, \\tilde x_i)^2`.

    Examples
    --------
    >>> w = np.array([1.0, 1.0])
    >>> round(cec_loss(lambda z: w, [np.array([1.0, 0.0])], [np.array([0.0, 1.0])], [np.zeros(2)], T=2), 6)
    0.5
    """
    L = 0.0                                                          # line 10
    for i in range(len(x)):                                          # line 11
        g = integrated_gradients_row(grad_f, x[i], b[i], T)          # line 12
        g_tilde = integrated_gradients_row(grad_f, x_tilde[i], b[i], T)   # line 13: the same b
        L += cec_score(g, g_tilde) ** 2                              # lines 14-15
    return L / len(x)                                                # line 17


def soft_equalized_odds(p, y, a):
    """Algorithm 2, line 9: :math:`\\mathcal L_{EO} = (\\widehat{TPR}_0 - \\widehat{TPR}_1)^2 +
    (\\widehat{FPR}_0 - \\widehat{FPR}_1)^2`, with each rate the mean sigmoid output :math:`p_i` of a
    (label, group) cell. Under our reading, a label whose cell is empty in one group adds 0.

    Examples
    --------
    >>> soft_equalized_odds([0.9, 0.5, 0.2, 0.2], y=[1, 1, 0, 0], a=[0, 1, 0, 1])
    0.16000000000000003
    """
    L = 0.0
    for label in (1, 0):                                             # TPR (y = 1), then FPR (y = 0)
        rates = []
        for g in (0, 1):
            cell = [p[i] for i in range(len(p)) if y[i] == label and a[i] == g]
            rates.append(sum(cell) / len(cell) if cell else None)
        if rates[0] is not None and rates[1] is not None:
            L += (rates[0] - rates[1]) ** 2
    return L
