"""actgrad.ge.graph: Graph and Node views of a built graph, and Graph's dump/AIR methods validating their arguments
and delegating to graph/_dump.py and graph/_air.py (replaced here by recorders: those modules have their own tests)."""
import sys
import types

import pytest

import actgrad.ge.graph as ge_graph
from actgrad.ge.es import GraphBuilder
from actgrad.ge.es.actgrad import ActgradHardtanhGrad
from actgrad.ge.graph import DumpFormat, Graph, Node
from actgrad.ge.graph._ir import GraphIR


def built():
    b = GraphBuilder("g")
    z, dy = b.create_input(0, name="z", shape=[2]), b.create_input(1, name="dy", shape=[2])
    g1 = ActgradHardtanhGrad(z, dy, max_val=0.5)
    return b.build_and_reset([g1 * z])


def test_nodes_names_types_and_edges():
    graph = built()
    assert graph.name == "g"
    nodes = graph.get_all_nodes()
    assert [(n.name, n.type) for n in nodes] == [("z", "Data"), ("dy", "Data"),
                                                 ("ActgradHardtanhGrad_0", "ActgradHardtanhGrad"), ("Mul_0", "Mul")]
    assert [n.name for n in graph.get_direct_nodes()] == [n.name for n in nodes]
    ht = graph.find_node_by_name("ActgradHardtanhGrad_0")
    assert (ht.get_inputs_size(), ht.get_outputs_size()) == (2, 1)
    source, port = ht.get_in_data_nodes_and_port_indexes(1)
    assert (source.name, port) == ("dy", 0)
    z = graph.find_node_by_name("z")
    assert [(n.name, k) for n, k in z.get_out_data_nodes_and_port_indexes(0)] == [("ActgradHardtanhGrad_0", 0),
                                                                                 ("Mul_0", 1)]
    assert ht.has_attr("max_val") and not ht.has_attr("approximate")
    assert ht.get_attr("max_val") == 0.5 and ht.get_attr("min_val") == -1.0 and z.get_attr("index") == 0
    with pytest.raises(RuntimeError, match="Failed to get attribute 'nope' from Node"):
        ht.get_attr("nope")
    with pytest.raises(RuntimeError, match="Failed to get input data node for index 2"):
        ht.get_in_data_nodes_and_port_indexes(2)


def test_a_const_attribute_is_a_tensor():
    b = GraphBuilder()
    c = b.create_const_float([1.0, 2.0])
    node = b.build_and_reset([c]).find_node_by_name(c.name)
    assert node.type == "Const" and node.get_attr("value").get_data() == [1.0, 2.0]


def test_find_node_by_name_raises_when_absent_as_ge():
    with pytest.raises(RuntimeError, match="^Failed to find Node name nope$"):
        built().find_node_by_name("nope")
    with pytest.raises(TypeError, match="name must be a string"):
        built().find_node_by_name(1)


def test_construction_rules():
    assert Graph().name == "graph" and Graph("x").get_all_nodes() == []
    with pytest.raises(TypeError, match="Graph name must be a string"):
        Graph(3)
    with pytest.raises(RuntimeError, match="Node objects should not be created directly"):
        Node()


@pytest.fixture
def recorders(monkeypatch):
    """Fake _dump and _air modules recording how Graph calls them."""
    calls = []
    dump = types.SimpleNamespace(
        dump_to_file=lambda ir, fmt, suffix: calls.append(("file", ir, fmt, suffix)) or "path",
        dump_to_stream=lambda ir, fmt: calls.append(("stream", ir, fmt)) or "text")
    loaded = GraphIR("from_air")
    air = types.SimpleNamespace(save_to_air=lambda ir, path: calls.append(("save", ir, path)),
                                load_from_air=lambda path: calls.append(("load", path)) or loaded)
    for name, module in (("_dump", dump), ("_air", air)):
        monkeypatch.setitem(sys.modules, f"actgrad.ge.graph.{name}", module)
        monkeypatch.setattr(ge_graph, name, module, raising=False)
    return calls, loaded


def test_dump_and_air_methods_validate_and_delegate(recorders):
    calls, loaded = recorders
    graph = built()
    ir = graph._ir
    assert graph.dump_to_file(DumpFormat.kOnnx, suffix="s") is None
    assert graph.dump_to_file() is None
    assert graph.dump_to_stream(DumpFormat.kTxt) == "text" and str(graph) == "text"
    graph.save_to_air("g.air")
    assert calls == [("file", ir, DumpFormat.kOnnx, "s"), ("file", ir, DumpFormat.kReadable, ""),
                     ("stream", ir, DumpFormat.kTxt), ("stream", ir, DumpFormat.kReadable), ("save", ir, "g.air")]
    with pytest.raises(TypeError, match="Format must be in"):
        graph.dump_to_file("kOnnx")
    with pytest.raises(TypeError, match="Suffix must be a string"):
        graph.dump_to_file(DumpFormat.kOnnx, suffix=1)
    with pytest.raises(TypeError, match="Format must be in"):
        graph.dump_to_stream(2)
    with pytest.raises(TypeError, match="file_path must be a string"):
        graph.save_to_air(None)
    target = Graph("empty")
    target.load_from_air("g.air")
    assert target._ir is loaded and target.name == "from_air" and calls[-1] == ("load", "g.air")
    with pytest.raises(TypeError, match="file_path must be a string"):
        target.load_from_air(b"g.air")
