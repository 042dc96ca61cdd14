"""What the training scripts share: loading crop sets, the mirror, the loop, the command line."""
from __future__ import annotations

import argparse
import time

import numpy as np
import torch


def arrays(paths: list[str], *labels: str) -> tuple[torch.Tensor, ...]:
    """The crops (`x`, float32) of the .npz sets in `paths`, joined, then each of `labels` (int64)."""
    parts = [np.load(p) for p in paths]
    x = torch.from_numpy(np.concatenate([d["x"] for d in parts]).astype(np.float32))
    return (x, *(torch.from_numpy(np.concatenate([d[k] for d in parts]).astype(np.int64)) for k in labels))


def mirrored(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """A copy of the crops with about half mirrored across their x axis (rows reversed)."""
    x = x.clone()
    flip = torch.rand(len(x), generator=g) < 0.5
    x[flip] = x[flip].flip(2)
    return x


def fit(net, n: int, loss_of, epochs: int, g: torch.Generator, report=None, batch: int = 128,
        lr: float = 3e-3) -> None:
    """Train `net` over `n` crops in shuffled batches for `epochs` (AdamW, a one-cycle rate):
    `loss_of(indices)` is a batch's loss. Prints each epoch's mean loss and time, followed by
    what `report()` returns (the validation figures)."""
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * ((n + batch - 1) // batch))
    for epoch in range(epochs):
        net.train()
        order, start, total = torch.randperm(n, generator=g), time.time(), 0.0
        for i in range(0, n, batch):
            idx = order[i:i + batch]
            loss = loss_of(idx)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch + 1}: loss {total / n:.3f} ({time.time() - start:.0f} s)" + (report() if report else ""),
              flush=True)


def parser(description: str) -> argparse.ArgumentParser:
    """The training scripts' command line: training sets, a validation set, epochs, seed, the
    learning rate, a network to start from, output."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("train", nargs="+")
    p.add_argument("--val")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    p.add_argument("--start-from", metavar="NET.onnx", help="an exported network to train on from")
    p.add_argument("-o", "--out", required=True)
    return p
