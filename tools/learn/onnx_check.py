"""Export a trained network to ONNX and check that OpenCV's DNN module reads it as PyTorch
computes it; start a network from an exported one."""
from __future__ import annotations

import cv2
import numpy as np
import torch
from torch import nn


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


def start_from(net: nn.Module, path: str | None) -> nn.Module:
    """`net` with the weights of the network exported to `path`, to train on from there
    (`net` as it is when `path` is None).

    The export folds each batch normalisation into its convolution, so `net`'s batch
    normalisations become identities and its convolutions and linear layers take the exported
    weights in the order the graph runs them. SystemExit naming `path` when the shapes differ."""
    if path is None:
        return net
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(path).graph
    weights = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    exported = [[weights[name] for name in node.input[1:] if name in weights]
                for node in graph.node if node.op_type in ("Conv", "Gemm")]
    for parent in list(net.modules()):
        for name, child in parent.named_children():
            if isinstance(child, nn.BatchNorm2d):
                setattr(parent, name, nn.Identity())
    layers = [m for m in net.modules() if isinstance(m, (nn.Conv2d, nn.Linear))]
    if [w[0].shape for w in exported] != [tuple(m.weight.shape) for m in layers]:
        raise SystemExit(f"{path}: its layers are not those of this network")
    with torch.no_grad():
        for m, (w, b) in zip(layers, exported):
            m.weight.copy_(torch.from_numpy(w.copy()))
            m.bias = nn.Parameter(torch.from_numpy(b.copy()))
    return net
