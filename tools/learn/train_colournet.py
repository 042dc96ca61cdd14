"""Train the crop network of `vision.colournet` and export it to ONNX for OpenCV's DNN module.

    python -m tools.learn.train_colournet crops-train.npz [more.npz] --val crops-val.npz \
        -o vision/models/colournet.onnx

Needs PyTorch (`pip install -e '.[train]'`); runs on the CPU in minutes (a GPU is used when
there is one). Augmentation: mirror across the crop's axis (a pyramid is symmetric about it),
a quarter turn for standing pieces, the light's level and colour (added to the log ratios) and
the cloth's chromaticity. Prints the loss and the validation accuracy per epoch and checks that
OpenCV reads the exported network as PyTorch does.
"""
from __future__ import annotations

import sys

import numpy as np
import torch
from torch import nn

from tools.learn import batches, onnx_check

from vision.colournet import CHANNELS, COLOURS, NONE, SIZES


def model() -> nn.Module:
    def block(i, o):
        return [nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU()]

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(*block(CHANNELS, 24), *block(24, 24), nn.MaxPool2d(2),
                                      *block(24, 48), *block(48, 48), nn.MaxPool2d(2),
                                      *block(48, 64), nn.MaxPool2d(2), *block(64, 96),
                                      nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2))
            self.colour = nn.Linear(96, NONE + 1)
            self.size = nn.Linear(96, len(SIZES))

        def forward(self, x):
            h = self.body(x)
            return self.colour(h), self.size(h)

    return Net()


def load(paths: list[str]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    return batches.arrays(paths, "colour", "size")


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    n = len(x)
    x = batches.mirrored(x, g)
    level = torch.randn(n, 1, 1, 1, generator=g) * 0.08
    cast = torch.randn(n, 3, 1, 1, generator=g) * 0.04
    x[:, :3] += level + cast
    x[:, 3:] += torch.randn(n, 3, 1, 1, generator=g) * 0.05
    return x


def accuracy(net, x, colour, size) -> tuple[float, float]:
    net.eval()
    with torch.no_grad():
        pc, ps = net(x)
    piece = colour != NONE
    return (pc.argmax(1) == colour).float().mean().item(), (ps.argmax(1) == size)[piece].float().mean().item()


def export(net, path: str, sample: torch.Tensor) -> None:
    onnx_check.export(net, path, sample, ("crop", "colour", "size"),
                      {"crop": {0: "n"}, "colour": {0: "n"}, "size": {0: "n"}})


def main(argv=None) -> int:
    p = batches.parser(__doc__.splitlines()[0])
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    g = torch.Generator().manual_seed(args.seed)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x, colour, size = load(args.train)
    val = load([args.val]) if args.val else None
    print(f"{len(x)} training crops ({np.bincount(colour.numpy(), minlength=NONE + 1).tolist()} by colour, then none)")
    net = onnx_check.start_from(model(), args.start_from).to(device)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)

    def loss_of(idx):
        pc, ps = net(augment(x[idx], g).to(device))
        yc, ys = colour[idx].to(device), size[idx].to(device)
        piece = yc != NONE
        return loss_fn(pc, yc) + 0.5 * loss_fn(ps[piece], ys[piece])

    def report():
        c, s = accuracy(net, *(t.to(device) for t in val))
        return f", val colour {100 * c:.1f} %, size {100 * s:.1f} %"

    batches.fit(net, len(x), loss_of, args.epochs, g, report if val is not None else None, lr=args.lr)
    net = net.cpu()
    export(net, args.out, x[:8])
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
