"""Export a trained network to ONNX and check that OpenCV's DNN module reads it as PyTorch
computes it."""
from __future__ import annotations

import cv2
import numpy as np
import torch


def export(net, path: str, x: torch.Tensor, names: tuple[str, ...], dynamic: dict) -> None:
    """Write `net` (input `x`; `names`: the input's, then the outputs') to `path`;
    SystemExit naming `path` when OpenCV's first output for `x` differs from PyTorch's by more
    than 1e-3."""
    net.eval()
    torch.onnx.export(net, x, path, input_names=[names[0]], output_names=list(names[1:]),
                      dynamic_axes=dynamic, opset_version=13, dynamo=False)
    cv_net = cv2.dnn.readNetFromONNX(path)
    cv_net.setInput(x.numpy())
    got = cv_net.forward(names[1])
    with torch.no_grad():
        want = net(x)
    want = (want[0] if isinstance(want, tuple) else want).numpy()
    if not np.allclose(got, want, atol=1e-3):
        raise SystemExit(f"{path}: OpenCV reads the network otherwise than PyTorch (max diff "
                         f"{np.abs(got - want).max():.4f})")
