"""Small neural networks in numpy for the NFSP learners (Heinrich and Silver 2016;
Zhang et al., "Monte Carlo Neural Fictitious Self-Play", 2019).

A :class:`NeuralNetwork` is fully connected: ``sizes = (inputs, hidden..., outputs)``,
rectified linear units between layers and a linear output, He-initialised, in
float64 or (the learners') float32.  For Leduc, Heinrich and Silver ("Deep
Reinforcement Learning from Self-Play in Imperfect-Information Games", 2016,
their Leduc experiments) use one hidden layer of 64 rectified linear units;
the Chinese presentation of that paper we learnt it from says 63 neurons and
"linear activations" (线性激活), which we read as slips of translation.
Everything works on batches, one matrix product a layer; there is no
per-sample Python.  A batch is a matrix, or rows of a
:class:`OneHot` table (0/1 inputs with few ones, such as the features of
:mod:`ggp.solvers.features`), whose first layer is done in C on the positions of the
ones (:mod:`players.learning._onehot`; float32 networks).

Losses take the outputs of a batch and give (loss, gradient of the loss with
respect to those outputs):

- :func:`q_loss`: mean squared error of the outputs at the actions taken
  against targets (DQN, Mnih et al. 2015), halved;
- :func:`policy_loss`: cross-entropy of the softmax over each row's legal
  actions against the actions taken, or against distributions (the
  supervised average policy);
- :func:`policy_value_loss`: both, for a network whose last output is a
  value (MC-NFSP's best-response network, Zhang et al. 2019).

Optimisers: :class:`SGD` (Heinrich and Silver's choice) and :class:`Adam` (Kingma and Ba
2015).  Buffers: :class:`Circular` (the DQN replay memory M_RL) and
:class:`Reservoir` (M_SL, Vitter's algorithm R: every item offered so far is
kept with the same probability).
"""

from __future__ import annotations

import numpy as np

import players.learning._onehot as _onehot


class OneHot:
    """A table of 0/1 input rows kept as the positions of their ones;
    ``table[rows]`` (an index array or a slice) is a batch for :class:`NeuralNetwork`."""

    def __init__(self, matrix: np.ndarray):
        ones = np.asarray(matrix) != 0
        self.width = ones.shape[1]
        self.active = np.full(
            (len(ones), max(1, int(ones.sum(axis=1).max(initial=0)))), -1, np.int32
        )
        for r, row in enumerate(ones):
            slots = np.flatnonzero(row)
            self.active[r, : len(slots)] = slots
        self._all = np.arange(len(ones), dtype=np.int64)

    def __getitem__(self, rows) -> OneHotRows:
        return OneHotRows(self, np.ascontiguousarray(self._all[rows], dtype=np.int64))

    def dense(self) -> np.ndarray:
        """The table as a 0/1 float32 matrix."""
        return self[:].dense()


class OneHotRows:
    """Rows ``rows`` of a :class:`OneHot` table: a batch of inputs."""

    def __init__(self, table: OneHot, rows: np.ndarray):
        self.table, self.rows = table, rows

    def dense(self, dtype=np.float32) -> np.ndarray:
        """The rows as a 0/1 matrix."""
        active = self.table.active[self.rows]
        out = np.zeros((len(self.rows), self.table.width), dtype)
        rows, slots = np.nonzero(active >= 0)
        out[rows, active[rows, slots]] = 1.0
        return out

    def affine(self, w: np.ndarray, b: np.ndarray) -> np.ndarray:
        """``x @ w + b``."""
        return _onehot.affine(w, b, self.table.active, self.rows)

    def gradient(self, delta: np.ndarray) -> np.ndarray:
        """``x.T @ delta``."""
        return _onehot.weight_gradient(
            self.table.active, self.rows, np.ascontiguousarray(delta, np.float32), self.table.width
        )


class NeuralNetwork:
    """A fully connected network with ReLU hidden layers and a linear output."""

    def __init__(self, sizes, rng: np.random.Generator, dtype=np.float64):
        self.sizes = tuple(int(s) for s in sizes)
        self.params = []
        for n_in, n_out in zip(self.sizes, self.sizes[1:]):
            self.params.append(rng.normal(0.0, np.sqrt(2.0 / n_in), (n_in, n_out)).astype(dtype))
            self.params.append(np.zeros(n_out, dtype))

    def forward(self, x: np.ndarray) -> np.ndarray:
        """The outputs of a batch ``x`` (rows are samples)."""
        return self._forward(x)[-1]

    def _forward(self, x):
        layers = [x]
        last = len(self.params) // 2 - 1
        for i in range(0, len(self.params), 2):
            if isinstance(x, OneHotRows):
                x = x.affine(self.params[i], self.params[i + 1])
            else:
                x = x @ self.params[i] + self.params[i + 1]
            if i // 2 < last:
                x = np.maximum(x, 0.0)
            layers.append(x)
        return layers

    def gradients(self, x: np.ndarray, loss) -> tuple:
        """(loss value, gradients of ``params``) for the batch ``x``, where
        ``loss(outputs)`` gives (value, d value / d outputs)."""
        layers = self._forward(x)
        value, delta = loss(layers[-1])
        grads: list[np.ndarray | None] = [None] * len(self.params)
        for i in range(len(self.params) - 2, -1, -2):
            below = layers[i // 2]
            grads[i] = below.gradient(delta) if isinstance(below, OneHotRows) else below.T @ delta
            grads[i + 1] = delta.sum(axis=0)
            if i > 0:
                delta = (delta @ self.params[i].T) * (below > 0)
        return value, grads

    def copy_from(self, other: NeuralNetwork) -> None:
        for mine, theirs in zip(self.params, other.params):
            mine[...] = theirs

    def widen(self, inputs: int) -> None:
        """``inputs`` inputs instead of fewer: the new ones get zero weights,
        so every output stays what it was (the first layer's array is
        replaced in ``params``; :meth:`SGD.fit`, :meth:`Adam.fit` follow it)."""
        w = self.params[0]
        if inputs < len(w):
            raise ValueError(f"a network cannot narrow from {len(w)} inputs to {inputs}")
        self.params[0] = np.concatenate([w, np.zeros((inputs - len(w), w.shape[1]), w.dtype)])
        self.sizes = (inputs, *self.sizes[1:])


def q_loss(actions: np.ndarray, targets: np.ndarray):
    """Half the mean squared error of the outputs at ``actions`` against ``targets``."""
    rows = np.arange(len(actions))

    def loss(out):
        error = out[rows, actions] - targets.astype(out.dtype)
        grad = np.zeros_like(out)
        grad[rows, actions] = error / len(actions)
        return 0.5 * float(np.mean(error**2)), grad

    return loss


def masked_softmax(out: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """Row-wise softmax of ``out`` over the entries where ``legal`` is true (0 elsewhere)."""
    z = np.where(legal, out, -np.inf)
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


def policy_loss(targets: np.ndarray, legal: np.ndarray):
    """Mean cross-entropy of the legal softmax of the outputs against
    ``targets``: the actions taken (ints, one a row) or distributions over the
    actions (a row each, such as a search's visit counts normalised)."""
    rows = np.arange(len(targets))

    def loss(out):
        p = masked_softmax(out, legal)
        tiny = np.finfo(p.dtype).tiny
        if targets.ndim == 1:
            value = -float(np.mean(np.log(np.maximum(p[rows, targets], tiny))))
            grad = p
            grad[rows, targets] -= 1.0
        else:
            value = -float(np.mean(np.sum(targets * np.log(np.maximum(p, tiny)), axis=1)))
            grad = p - targets.astype(p.dtype)
        return value, grad / len(targets)

    return loss


def policy_value_loss(targets: np.ndarray, legal: np.ndarray, values: np.ndarray):
    """For outputs whose last column is a value and the others a policy's
    logits: :func:`policy_loss` of the logits against ``targets`` plus half
    the mean squared error of the value against ``values`` (AlphaGo Zero's
    loss without its L2 term; Zhang et al.'s l1)."""
    rows, policy = np.arange(len(targets)), policy_loss(targets, legal)

    def loss(out):
        value, grad_logits = policy(out[:, :-1])
        error = out[:, -1] - values.astype(out.dtype)
        grad = np.empty_like(out)
        grad[:, :-1] = grad_logits
        grad[:, -1] = error / len(rows)
        return value + 0.5 * float(np.mean(error**2)), grad

    return loss


class SGD:
    """Plain stochastic gradient descent with learning rate ``lr``."""

    def __init__(self, params, lr: float):
        self.params, self.lr = params, lr

    def step(self, grads) -> None:
        for p, g in zip(self.params, grads):
            p -= self.lr * g

    def state(self) -> list:
        return []

    def load(self, arrays) -> None:
        """Nothing to restore."""

    def fit(self) -> None:
        """Nothing to follow: the steps read the parameters as they are."""


class Adam:
    """Adam (Kingma and Ba, ICLR 2015, Algorithm 1) with learning rate ``lr``."""

    def __init__(self, params, lr: float, beta1=0.9, beta2=0.999, eps=1e-8):
        self.params, self.lr = params, lr
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = np.zeros(1)
        self._scratch = [np.empty_like(p) for p in params]

    def step(self, grads) -> None:
        """One step, in place and in the parameters' own precision (a
        float32 network's step in float32 temporaries, not float64: 65
        against 89 us a step of a 200 x 64 x 4 network here)."""
        self.t += 1
        b1, b2, eps = self.beta1, self.beta2, self.eps
        scale = float(self.lr * np.sqrt(1 - b2 ** self.t[0]) / (1 - b1 ** self.t[0]))
        for p, g, m, v, tmp in zip(self.params, grads, self.m, self.v, self._scratch):
            m *= b1
            np.multiply(g, 1 - b1, out=tmp)
            m += tmp
            v *= b2
            np.multiply(g, g, out=tmp)
            tmp *= 1 - b2
            v += tmp
            np.sqrt(v, out=tmp)
            tmp += eps
            np.divide(m, tmp, out=tmp)
            tmp *= scale
            p -= tmp

    def state(self) -> list:
        return [self.t, *self.m, *self.v]

    def fit(self) -> None:
        """After a parameter grew along its first axis
        (:meth:`NeuralNetwork.widen`): its moments grow with it, zero in
        the new entries, as if those had had zero gradients so far."""
        for k, p in enumerate(self.params):
            for moments in (self.m, self.v):
                old = moments[k]
                if old.shape != p.shape:
                    grown = np.zeros_like(p)
                    grown[: len(old)] = old
                    moments[k] = grown
            if self._scratch[k].shape != p.shape:
                self._scratch[k] = np.empty_like(p)

    def load(self, arrays) -> None:
        n = len(self.m)
        self.t[...] = arrays[0]
        for mine, saved in zip(self.m + self.v, arrays[1 : 1 + 2 * n]):
            mine[...] = saved


class Circular:
    """A replay memory of ``capacity`` rows of int and float columns (a
    column is a dtype, or (dtype, width) for a vector a row); the oldest row
    is overwritten when full."""

    def __init__(self, capacity: int, columns: dict):
        self.capacity, self.size, self.next = capacity, 0, 0
        self.columns = {
            name: np.zeros((capacity, *kind[1:]), kind[0])
            if isinstance(kind, tuple)
            else np.zeros(capacity, kind)
            for name, kind in columns.items()
        }

    def add(self, **row) -> None:
        for name, value in row.items():
            self.columns[name][self.next] = value
        self.next = (self.next + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sample(self, n: int, rng: np.random.Generator) -> dict:
        picks = rng.integers(0, self.size, n)
        return {name: column[picks] for name, column in self.columns.items()}


class Reservoir(Circular):
    """A reservoir of ``capacity`` rows: after k offers each offered row is
    kept with probability min(1, capacity / k) (Vitter 1985, algorithm R)."""

    def __init__(self, capacity: int, columns: dict, rng: np.random.Generator):
        super().__init__(capacity, columns)
        self.offered, self.rng = 0, rng

    def add(self, **row) -> None:
        self.offered += 1
        if self.size < self.capacity:
            slot = self.size
            self.size += 1
        else:
            slot = int(self.rng.integers(0, self.offered))
            if slot >= self.capacity:
                return
        for name, value in row.items():
            self.columns[name][slot] = value
