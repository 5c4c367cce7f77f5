"""NFSP's network arithmetic in numpy against PyTorch (``nfsp:backend=...``):
the milliseconds of one DQN update (a minibatch's forward and backward pass
and an SGD step, each on one thread, as NFSP runs) at a game's sizes, the two
back ends alternating in rounds in one process so that both see the same
machine.  A row a hidden size: each back end's fastest and slowest round.
PyTorch is the optional extra (``pip install -e '.[torch]'``).
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.harness import Suite, markdown
from ggp import load_game
from ggp.solvers.efg import build_tree
from ggp.solvers.features import Encoding
from players.learning.neural import SGD, NeuralNetwork, OneHot, q_loss


class NfspBackends(Suite):
    about = "NFSP's network arithmetic in numpy against PyTorch: milliseconds a DQN update"
    duration = "1 minute"

    def options(self, parser):
        parser.add_argument("--game", default="leduc")
        parser.add_argument("--hidden", default="64,1024", help="hidden layer sizes, a row each")
        parser.add_argument("--batch", type=int, default=128)
        parser.add_argument("--updates", type=int, default=300)
        parser.add_argument("--rounds", type=int, default=5)

    def jobs(self, args):
        return [
            {
                "game": args.game,
                "hidden": int(hidden),
                "batch": args.batch,
                "updates": args.updates,
                "rounds": args.rounds,
            }
            for hidden in args.hidden.split(",")
        ]

    def measure(self, job, args):
        from threadpoolctl import threadpool_limits

        from players.learning.neural_torch import TorchNetwork

        encoding = Encoding(build_tree(load_game(job["game"])), 0)
        times: dict = {"numpy": [], "torch": []}
        with threadpool_limits(limits=1, user_api="blas"):  # as NFSP runs; torch on one too
            for _ in range(job["rounds"]):
                for name, cls in (("numpy", NeuralNetwork), ("torch", TorchNetwork)):
                    try:
                        times[name].append(
                            update_ms(cls, encoding, job["hidden"], job["batch"], job["updates"])
                        )
                    except ValueError as exc:  # PyTorch is not installed
                        raise SystemExit(f"nfsp_backends: {exc}") from None
        return [{f"{name}_ms": [min(t), max(t)] for name, t in times.items()}]

    def table(self, rows):
        return markdown(
            rows,
            [
                ("game", "{game}"),
                ("hidden", "{hidden}"),
                ("numpy: ms an update", lambda r: "{:.3f}-{:.3f}".format(*r["numpy_ms"])),
                ("torch: ms an update", lambda r: "{:.3f}-{:.3f}".format(*r["torch_ms"])),
            ],
        )


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


SUITE = NfspBackends()
