"""Train the standing-piece network of `vision.piecepack.standnet` and export it to ONNX for
OpenCV's DNN module.

    python -m tools.learn.train_standnet ppcrops-train.npz [more.npz] --val ppcrops-val.npz \
        -o vision/models/standnet.onnx [--init earlier.pt]

Needs PyTorch (`pip install -e '.[train]'`); runs on the CPU in minutes. Augmentation: a mirror
across the lean's axis (a standing piece is symmetric about it; its shadow and light are not
bound to it), the light's level, colour and contrast (on the log ratios); never a change of
scale, which is what tells the letters apart. Prints the loss and the validation accuracy per
epoch (all crops, and the pyramids' letters) and checks that OpenCV reads the export as
PyTorch computes it. The weights are also saved beside the export (`.pt`), from which `--init`
goes on training (on more crops, say).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch
from torch import nn

from referee.dimensions import PP_LETTERS
from tools.learn import batches, onnx_check
from vision.piecepack.standnet import CLASSES


def model() -> nn.Module:
    layers, width = [], 3
    for out in (16, 32, 48, 64):
        layers += [nn.Conv2d(width, out, 3, padding=1), nn.BatchNorm2d(out), nn.ReLU(), nn.MaxPool2d(2)]
        width = out
    layers += [nn.Conv2d(width, 96, 3, padding=1), nn.BatchNorm2d(96), nn.ReLU()]
    width = 96
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(width, len(CLASSES))]
    return nn.Sequential(*layers)


def augment(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    n = len(x)
    contrast = 1.0 + torch.randn(n, 1, 1, 1, generator=g) * 0.1
    return (batches.mirrored(x, g) * contrast + torch.randn(n, 1, 1, 1, generator=g) * 0.1
            + torch.randn(n, 3, 1, 1, generator=g) * 0.05)


def accuracy(net, x, label) -> tuple[float, float]:
    """(share of crops read right, share of pyramid crops whose letter is read right)."""
    net.eval()
    with torch.no_grad():
        read = torch.cat([net(x[i:i + 256]) for i in range(0, len(x), 256)]).argmax(1)
    pyramid = label < len(PP_LETTERS)      # CLASSES begin with the letters
    return (read == label).float().mean().item(), (read == label)[pyramid].float().mean().item()


def main(argv=None) -> int:
    p = batches.parser(__doc__.splitlines()[0])
    p.add_argument("--init", help="weights (.pt) to start from")
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    g = torch.Generator().manual_seed(args.seed)
    x, label = batches.arrays(args.train, "label")
    val = batches.arrays([args.val], "label") if args.val else None
    print(f"{len(x)} training crops, by class {dict(zip(CLASSES, np.bincount(label.numpy(), minlength=len(CLASSES)).tolist()))}")
    net = onnx_check.start_from(model(), args.start_from)
    if args.init:
        net.load_state_dict(torch.load(args.init))
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)

    def report():
        every, letters = accuracy(net, *val)
        return f", val {100 * every:.1f} %, letters {100 * letters:.1f} %"

    batches.fit(net, len(x), lambda idx: loss_fn(net(augment(x[idx], g)), label[idx]), args.epochs, g,
                report if val is not None else None, lr=args.lr)
    torch.save(net.state_dict(), Path(args.out).with_suffix(".pt"))
    onnx_check.export(net, args.out, x[:8], ("crop", "class"), {"crop": {0: "n"}, "class": {0: "n"}})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
