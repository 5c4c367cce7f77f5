"""A PyTorch back end for :class:`players.learning.neural.NeuralNetwork` (``nfsp:backend=torch``,
installed with ``pip install -e '.[torch]'``).

At the sizes NFSP uses on Kuhn and Leduc numpy is faster, so it stays the
default; PyTorch pays for larger networks (the figures, and the nfsp_backends
suite of the benchmarks that measures them: docs/learning.md).  :class:`TorchNetwork` is
a :class:`~players.learning.neural.NeuralNetwork` whose parameters stay numpy arrays (so the
optimisers, saving and loading are the same) and are shared with PyTorch
without copies (``torch.from_numpy``); the forward pass and the gradients are
PyTorch's, the losses the same numpy functions (their gradient with respect
to the outputs is passed to ``backward``).  Tested against the numpy network
on the same batch (``tests/test_nfsp.py``).
"""

from __future__ import annotations

import numpy as np

from players.learning.neural import NeuralNetwork, OneHotRows


def _pytorch():
    """PyTorch, imported when the first network is made, not with this module
    (the registry imports every module, and PyTorch takes seconds to import);
    ValueError when the optional extra is not installed."""
    try:
        import torch
    except ImportError:
        raise ValueError("backend=torch needs PyTorch: pip install -e '.[torch]'") from None
    return torch


class TorchNetwork(NeuralNetwork):
    """:class:`NeuralNetwork` computed by PyTorch on one thread (the same
    initialisation draws, so the same ``rng`` gives the same weights)."""

    def __init__(self, sizes, rng: np.random.Generator, dtype=np.float64):
        _pytorch().set_num_threads(1)
        super().__init__(sizes, rng, dtype)

    def _inputs(self, x):
        if isinstance(x, OneHotRows):
            x = x.dense(self.params[0].dtype)
        return _pytorch().from_numpy(np.ascontiguousarray(x, dtype=self.params[0].dtype))

    def _run(self, x, weights):
        torch = _pytorch()
        last = len(weights) // 2 - 1
        for i in range(0, len(weights), 2):
            x = x @ weights[i] + weights[i + 1]
            if i // 2 < last:
                x = torch.relu(x)
        return x

    def forward(self, x) -> np.ndarray:
        torch = _pytorch()
        with torch.no_grad():
            return self._run(self._inputs(x), [torch.from_numpy(p) for p in self.params]).numpy()

    def gradients(self, x, loss) -> tuple:
        torch = _pytorch()
        weights = [torch.from_numpy(p).requires_grad_() for p in self.params]
        out = self._run(self._inputs(x), weights)
        value, delta = loss(out.detach().numpy().copy())
        out.backward(torch.from_numpy(np.ascontiguousarray(delta, dtype=self.params[0].dtype)))
        return value, [w.grad.numpy() for w in weights]
