"""Train the segmentation network of `vision.segnet` and export it to ONNX for OpenCV's DNN module.

    python -m tools.learn.train_segnet masks-train.npz [more.npz] --val masks-val.npz \
        -o vision/models/segnet.onnx

Needs PyTorch (`pip install -e '.[train]'`); a GPU is used when there is one, the CPU otherwise
(far slower: hours). Each step takes random PATCH x PATCH windows of the frames (made by
`tools.learn.masks`), mirrored and turned, with the light's level and colour shifted (added to
the log ratios) and sensor noise; each training file is drawn equally often (photoreal frames
and the more numerous fast-renderer frames alike). Prints the loss and, per class, the
validation recall and precision of each epoch, and checks that OpenCV reads the exported
network as PyTorch does.
"""
from __future__ import annotations

import sys
import time

import numpy as np
import torch
from torch import nn

from tools.learn import batches, onnx_check

from vision.segnet import CLASSES, STRIDE

PATCH = 96           # px at NET_MM: 192 mm, wider than a piece and its shadow
IGNORE = 255
WEIGHTS = (1.0, 3.0, 1.0)    # class weights: a piece's pixels are few and matter most


def model() -> nn.Module:
    def conv(i, o):
        return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU()]

    def block(i, o, n=2):
        return nn.Sequential(*conv(i, o), *(conv(o, o) if n > 1 else []))

    class Net(nn.Module):
        """A small U-Net: three halvings (STRIDE 8), skip connections, nearest upsampling; one
        convolution at full size each way (they cost the most)."""

        def __init__(self):
            super().__init__()
            self.e1, self.e2, self.e3, self.e4 = block(3, 8, 1), block(8, 16), block(16, 24), block(24, 32)
            self.d3, self.d2, self.d1 = block(32 + 24, 24), block(24 + 16, 16, 1), block(16 + 8, 8, 1)
            self.pool, self.up = nn.MaxPool2d(2), nn.Upsample(scale_factor=2, mode="nearest")
            self.head = nn.Conv2d(8, len(CLASSES), 1)

        def forward(self, x):
            a = self.e1(x)
            b = self.e2(self.pool(a))
            c = self.e3(self.pool(b))
            d = self.e4(self.pool(c))
            c = self.d3(torch.cat([self.up(d), c], 1))
            b = self.d2(torch.cat([self.up(c), b], 1))
            return self.head(self.d1(torch.cat([self.up(b), a], 1)))

    return Net()


def load(path: str) -> list[tuple[np.ndarray, np.ndarray, str]]:
    d = np.load(path)
    return [(d[f"x{k}"].astype(np.float32), d[f"y{k}"], str(name)) for k, name in enumerate(d["names"])]


def pool(rng: np.random.Generator, size: int, level: float) -> np.ndarray:
    """(3, size, size) log-ratio offsets of a light pool the cloth model does not cancel (a
    lamp's, a patch of sun): a Gaussian of random place and width, its level ~ N(0, `level`)
    and each channel's tint ~ N(0, `level` / 2)."""
    yy, xx = np.mgrid[0:size, 0:size] / size
    (cx, cy), r = rng.uniform(-0.5, 1.5, 2), rng.uniform(0.3, 1.5)
    field = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
    return (field[None] * (rng.normal(0, level) + rng.normal(0, level / 2, (3, 1, 1)))).astype(np.float32)


def batch(sets, n: int, rng: np.random.Generator, pools: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """`n` random augmented windows of the frames, each training file drawn equally often;
    with `pools`, each window under a light pool of that level (`pool`)."""
    xs, ys = [], []
    for _ in range(n):
        frames = sets[rng.integers(len(sets))]
        x, y, _ = frames[rng.integers(len(frames))]
        h, w = y.shape
        i, j = rng.integers(0, max(1, h - PATCH + 1)), rng.integers(0, max(1, w - PATCH + 1))
        px, py = x[:, i:i + PATCH, j:j + PATCH], y[i:i + PATCH, j:j + PATCH]
        k = int(rng.integers(4))
        px, py = np.rot90(px, k, (1, 2)), np.rot90(py, k)
        if rng.random() < 0.5:
            px, py = px[:, :, ::-1], py[:, ::-1]
        px = px + rng.normal(0, 0.08) + rng.normal(0, 0.04, (3, 1, 1)) + rng.normal(0, 0.02, px.shape)
        if pools:
            px = px + pool(rng, PATCH, pools)
        xs.append(np.ascontiguousarray(px, np.float32))
        ys.append(np.ascontiguousarray(py, np.int64))
    return torch.from_numpy(np.stack(xs)), torch.from_numpy(np.stack(ys))


def scores(net, frames, device) -> list[tuple[float, float]]:
    """Per class, (recall, precision) over whole validation frames."""
    net.eval()
    hit = np.zeros((len(CLASSES), len(CLASSES)))
    with torch.no_grad():
        for x, y, _ in frames:
            pred = net(torch.from_numpy(x[None]).to(device)).argmax(1)[0].cpu().numpy()
            keep = y != IGNORE
            np.add.at(hit, (y[keep], pred[keep]), 1)
    return [(hit[c, c] / max(1, hit[c].sum()), hit[c, c] / max(1, hit[:, c].sum())) for c in range(len(CLASSES))]


def export(net, path: str, sample: np.ndarray) -> None:
    axes = {2: "h", 3: "w"}
    onnx_check.export(net, path, torch.from_numpy(sample[None]), ("features", "classes"),
                      {"features": axes, "classes": axes})


def main(argv=None) -> int:
    p = batches.parser(__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=100, help="batches per epoch")
    p.add_argument("--batch", type=int, default=24)
    p.add_argument("--pools", type=float, default=0.0, help="level of the light pools added (0: none)")
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    sets = [load(path) for path in args.train]
    val = load(args.val) if args.val else []
    print(f"{[len(s) for s in sets]} training frames, {len(val)} validation frames, on {device}")
    net = onnx_check.start_from(model(), args.start_from).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.epochs * args.steps)
    loss_fn = nn.CrossEntropyLoss(weight=torch.tensor(WEIGHTS, device=device), ignore_index=IGNORE)
    for epoch in range(args.epochs):
        net.train()
        start, total = time.time(), 0.0
        for _ in range(args.steps):
            xb, yb = batch(sets, args.batch, rng, args.pools)
            loss = loss_fn(net(xb.to(device)), yb.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        line = f"epoch {epoch + 1}: loss {total / args.steps:.3f} ({time.time() - start:.0f} s)"
        if val:
            line += ", val recall/precision " + ", ".join(
                f"{c} {100 * r:.1f}/{100 * q:.1f}" for c, (r, q) in zip(CLASSES, scores(net, val, device)))
        print(line, flush=True)
    net = net.cpu()
    x0 = sets[0][0][0][:, :STRIDE * 16, :STRIDE * 20]
    export(net, args.out, np.ascontiguousarray(x0))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
