"""NFSP's network arithmetic in numpy against PyTorch (``nfsp:backend=...``):
the milliseconds of one DQN update (a minibatch's forward and backward pass
and an SGD step, each on one thread, as NFSP runs) at a game's sizes, the two
back ends alternating in rounds in one process so that both see the same
machine:

    python benchmarks/backends.py --game leduc --hidden 64,1024 --rounds 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from ggp import load_game
from ggp.solvers.efg import build_tree
from ggp.solvers.features import Encoding
from players.learning.neural import SGD, NeuralNetwork, OneHot, q_loss
from players.learning.neural_torch import TorchNetwork


def update_ms(cls, encoding, hidden: int, batch: int, updates: int) -> float:
    """Milliseconds a DQN update of a network of class ``cls``."""
    rng = np.random.default_rng(0)
    x = OneHot(encoding.matrix)
    net = cls((encoding.size, hidden, len(encoding.moves)), rng, np.float32)
    opt = SGD(net.params, 0.01)
    rows = rng.integers(0, len(encoding.infosets), (updates, batch))
    actions = rng.integers(0, len(encoding.moves), (updates, batch))
    targets = rng.uniform(-1, 1, (updates, batch))
    start = time.perf_counter()
    for k in range(updates):
        _, grads = net.gradients(x[rows[k]], q_loss(actions[k], targets[k]))
        opt.step(grads)
    return 1000 * (time.perf_counter() - start) / updates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc")
    parser.add_argument("--hidden", default="64,1024")
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--updates", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    encoding = Encoding(build_tree(load_game(args.game)), 0)
    with threadpool_limits(limits=1, user_api="blas"):  # as NFSP runs; torch on one too
        measure(args, encoding)


def measure(args, encoding) -> None:
    for hidden in (int(h) for h in args.hidden.split(",")):
        times = {"numpy": [], "torch": []}
        for _ in range(args.rounds):
            for name, cls in (("numpy", NeuralNetwork), ("torch", TorchNetwork)):
                times[name].append(update_ms(cls, encoding, hidden, args.batch, args.updates))
        print(
            f"{args.game} hidden {hidden}: ms an update, numpy "
            f"{min(times['numpy']):.3f}-{max(times['numpy']):.3f}, torch "
            f"{min(times['torch']):.3f}-{max(times['torch']):.3f}"
        )


if __name__ == "__main__":
    main()
