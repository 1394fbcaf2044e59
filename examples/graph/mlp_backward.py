"""The backward of an MLP block, composed as a GE graph with GE's Python ES API, dumped and run.

Forward (for reference): a = gelu_tanh(h); z = a * mask / (1 - p) (dropout, p = 0.1, mask of 0/1);
out = hardtanh(z, -1, 1). Backward graph, inputs dy, z, mask, h:
    g1 = ActgradHardtanhGrad(z, dy);  g2 = g1 * mask;  g3 = g2 * (1 / (1 - p));
    dh = ActgradGeluBackward(h, g3, mode="gelu_tanh")      -> graph output 0

    python examples/graph/mlp_backward.py          # on the CPU twin (GE's Python API as actgrad.ge)
    python examples/graph/mlp_backward.py --cann   # with CANN's own GE and the actgrad package's ES plugin

Only the imports differ between the two. The dumps go to $DUMP_GRAPH_PATH, or to a new temporary directory.
"""
import argparse
import os
import tempfile

import torch


def use_cann():
    parser = argparse.ArgumentParser(description="The backward of an MLP block as a GE graph, dumped and run.")
    parser.add_argument("--cann", action="store_true",
                        help="use CANN's GE (the ge package) instead of the CPU twin's (actgrad.ge)")
    return parser.parse_args().cann


if __name__ == "__main__" and use_cann():
    from ge.es import GraphBuilder
    from ge.es.actgrad import ActgradGeluBackward, ActgradHardtanhGrad
    from ge.ge_global import GeApi
    from ge.graph import DumpFormat, Tensor
    from ge.graph.types import DataType, Format
    from ge.session import Session
else:
    from actgrad.ge.es import GraphBuilder
    from actgrad.ge.es.actgrad import ActgradGeluBackward, ActgradHardtanhGrad
    from actgrad.ge.ge_global import GeApi
    from actgrad.ge.graph import DumpFormat, Tensor
    from actgrad.ge.graph.types import DataType, Format
    from actgrad.ge.session import Session

P = 0.1
SHAPE = [8, 64]
INPUTS = ["dy", "z", "mask", "h"]


def build_backward_graph():
    builder = GraphBuilder("MlpBlockBackward")
    dy, z, mask, h = (builder.create_input(i, name=name, data_type=DataType.DT_FLOAT, shape=SHAPE)
                      for i, name in enumerate(INPUTS))
    g1 = ActgradHardtanhGrad(z, dy)
    g2 = g1 * mask
    g3 = g2 * (1 / (1 - P))
    dh = ActgradGeluBackward(h, g3, mode="gelu_tanh")
    builder.set_graph_output(dh, 0)
    return builder.build_and_reset()


def dump_graph(graph):
    if not os.environ.get("DUMP_GRAPH_PATH"):
        os.environ["DUMP_GRAPH_PATH"] = tempfile.mkdtemp(prefix="mlp_backward_")
    directory = os.environ["DUMP_GRAPH_PATH"]
    before = files_under(directory)
    graph.dump_to_file(format=DumpFormat.kReadable, suffix="mlp_backward")
    graph.dump_to_file(format=DumpFormat.kOnnx, suffix="mlp_backward")
    return directory, sorted(files_under(directory) - before)


def files_under(directory):
    """Every file below `directory`, relative to it (GE dumps into a pid_<pid>_deviceid_<id> folder there)."""
    return {os.path.relpath(os.path.join(folder, name), directory)
            for folder, _, names in os.walk(directory) for name in names}


def forward_and_reference():
    """The forward's tensors and dh by torch autograd (torch's own GELU and hardtanh)."""
    torch.manual_seed(0)
    h = torch.randn(SHAPE, requires_grad=True)
    mask = torch.bernoulli(torch.full(SHAPE, 1 - P))
    a = torch.nn.functional.gelu(h, approximate="tanh")
    z = a * mask * (1 / (1 - P))
    out = torch.nn.functional.hardtanh(z, -1.0, 1.0)
    dy = torch.randn(SHAPE)
    out.backward(dy)
    return {"dy": dy, "z": z.detach(), "mask": mask, "h": h.detach()}, h.grad


def run_graph(graph, feeds):
    ge_api = GeApi()
    ret = ge_api.ge_initialize({"ge.exec.deviceId": "0", "ge.graphRunMode": "0"})
    if ret != 0:
        raise RuntimeError(f"ge_initialize returned {ret}")
    try:
        session = Session()
        graph_id = 1
        ret = session.add_graph(graph_id, graph)
        if ret != 0:
            raise RuntimeError(f"add_graph returned {ret}")
        inputs = [Tensor(feeds[name].flatten().tolist(), None, DataType.DT_FLOAT, Format.FORMAT_ND, SHAPE)
                  for name in INPUTS]
        dh, = session.run_graph(graph_id, inputs)
        return torch.tensor(dh.get_data(), dtype=torch.float32)
    finally:
        ge_api.ge_finalize()


def main():
    graph = build_backward_graph()
    print(f"graph {graph.name}:")
    for node in graph.get_all_nodes():
        print(f"  {node.name}: {node.type}")
    directory, files = dump_graph(graph)
    print(f"dumped to {directory}: {', '.join(files)}")
    feeds, reference = forward_and_reference()
    dh = run_graph(graph, feeds)
    print(f"dh {list(dh.shape)}: max |dh - torch autograd| = {(dh - reference).abs().max().item():.3g}")


if __name__ == "__main__":
    main()
