"""A saved graph is data, never code: every op type, with hostile attr names and values, loads as a
LoadError (or as data that runs as data) and nothing from the file ever reaches the executor's source.

The marker file: every hostile string tries to create ``MARKER`` in the working directory; each test
checks that it never appears.
"""
import ast
import json
import os

import pytest

import runtime as rt
from runtime.backends.executor import generated_source, make_callable
from runtime.backends.graph_codec import decode_graph, encode_graph
from runtime.core.context import graph_scope
from runtime.core.errors import LoadError
from runtime.core.graph import FuncGraph
from runtime.saving.serialize import GRAPH_FILE

from op_samples import record_eager_runs

MARKER = "i_was_executed"
PAYLOAD = f"__import__('os').system('touch {MARKER}')"
HOSTILE_KEYS = [f"reverse={PAYLOAD}==0,zz", f"x=0);{PAYLOAD}#", "__class__", "axis\n" + PAYLOAD, "", "1abc",
                "exec", "k" * 10_000]
# JSON values as a file could hold them (the codec's tagged forms included)
HOSTILE_VALUES = [PAYLOAD, {"tuple": [PAYLOAD]}, {"list": [1, PAYLOAD]}, {"dict": {PAYLOAD: 1}}, 10 ** 40,
                  -(10 ** 40), {"float": "nan"}, 1.5, True, None, [], {}, {"dtype": "object"},
                  {"tuple": [{"tuple": [{"tuple": []}]}]}, {"variable": 0}, {"ndarray": "a0"}]


@pytest.fixture(autouse=True)
def in_tmp_dir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    yield
    assert not os.path.exists(MARKER), "a string from the file was executed"


def _samples():
    """op name -> (op_def, input specs, attrs) of its first eager run with attrs (else its first run)."""
    seen = {}

    def record(op_def, inputs, attrs, outputs):
        if op_def.name not in seen or (attrs and not seen[op_def.name][2]):
            # an eager list handle does not carry its elements' shape: the graph's handle has an unknown one
            specs = [(t.dtype, None if t.dtype == object else t.shape) for t in inputs]
            seen[op_def.name] = (op_def, specs, dict(attrs or {}))

    record_eager_runs(record)
    return seen


SAMPLES = _samples()


def _one_op_graph(op_def, specs, attrs) -> FuncGraph:
    graph = FuncGraph(f"one_{op_def.name}")
    with graph_scope(graph):
        inputs = [graph.add_placeholder(dtype, shape, name=f"in{i}") for i, (dtype, shape) in enumerate(specs)]
        op = graph.create_op(op_def, inputs, dict(attrs), name="op", site=None)
        graph.outputs = list(op.outputs)
        graph.inputs = inputs
    return graph


def _saved(name):
    """The one-op graph's JSON data, its arrays, and its variables (what decode_graph takes)."""
    op_def, specs, attrs = SAMPLES[name]
    store, variables = {}, []
    data = encode_graph(_one_op_graph(op_def, specs, attrs), store, variable_index=lambda v: variables.append(v) or 0)
    return json.loads(json.dumps(data)), store, variables[:1]


def test_every_op_with_a_kernel_has_a_sample_and_loads_from_its_sample():
    assert len(SAMPLES) >= 120
    for name in SAMPLES:
        data, store, variables = _saved(name)
        graph = decode_graph(data, store, variables)
        assert [op.type for op in graph.operations][-1] == name


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_hostile_attr_names_are_refused_at_load_for_every_op(name):
    for key in HOSTILE_KEYS:
        data, store, variables = _saved(name)
        data["ops"][-1]["attrs"][key] = False
        with pytest.raises(LoadError, match="unknown attr"):
            decode_graph(data, store, variables)


@pytest.mark.parametrize("name", sorted(name for name in SAMPLES if SAMPLES[name][2]))
def test_hostile_attr_values_load_only_as_checked_data_for_every_op(name):
    """Each declared attr of the op, replaced by each hostile value: a LoadError, or (a value of the attr's
    kind, e.g. a string where the attr is text) a graph that compiles without any of it in the source."""
    op_def = SAMPLES[name][0]
    for attr in SAMPLES[name][2]:
        for value in HOSTILE_VALUES:
            data, store, variables = _saved(name)
            data["ops"][-1]["attrs"][attr] = value
            try:
                graph = decode_graph(data, store, variables)
            except LoadError as error:
                assert attr in str(error) or "inconsistent" in str(error) or "outputs would be" in str(error)
                continue
            assert op_def.attrs[attr].test(graph.operations[-1].attrs[attr])
            source = generated_source(make_callable(graph))
            assert "__import__" not in source and MARKER not in source


def _string_constants(source):
    return {node.value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_executor_source_holds_no_string_of_the_graph_for_every_op(name):
    """Whatever the attrs hold, the generated source's only string literal is the executor's own."""
    op_def, arrays, attrs = SAMPLES[name]
    source = generated_source(make_callable(_one_op_graph(op_def, arrays, attrs)))
    assert _string_constants(source) <= {"unsafe"}


@pytest.mark.parametrize("name", sorted(name for name in SAMPLES if SAMPLES[name][2]))
def test_the_executor_refuses_an_undeclared_attr_name_even_past_the_loader(name):
    op_def, arrays, attrs = SAMPLES[name]
    graph = _one_op_graph(op_def, arrays, attrs)
    op = graph.operations[-1]
    key = next(iter(attrs))
    op.attrs[f"{key}={PAYLOAD}==0,zz"] = op.attrs.pop(key)
    with pytest.raises(ValueError, match="does not declare an attr"):
        make_callable(graph)


@pytest.mark.parametrize("name", sorted(name for name in SAMPLES if SAMPLES[name][2]))
def test_attr_values_past_the_loader_are_bound_never_written_into_the_source(name):
    op_def, arrays, attrs = SAMPLES[name]
    for key in attrs:
        graph = _one_op_graph(op_def, arrays, attrs)
        graph.operations[-1].attrs[key] = PAYLOAD
        try:
            source = generated_source(make_callable(graph))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            continue  # refused while compiling: nothing ran
        assert PAYLOAD not in source and MARKER not in source


def test_the_issue_repro_an_attr_key_with_code_is_a_load_error(tmp_path):
    f = rt.Function(lambda x: rt.cumsum(x, reverse=True))
    x = rt.constant([1.0, 2.0, 3.0])
    f(x)
    rt.save(f, tmp_path / "saved")
    path = tmp_path / "saved" / GRAPH_FILE
    document = json.loads(path.read_text())
    op = next(op for op in document["concrete_functions"][0]["graph"]["ops"] if op["type"] == "Cumsum")
    op["attrs"][f"reverse={PAYLOAD}==0,zz"] = False
    del op["attrs"]["reverse"]
    path.write_text(json.dumps(document))
    with pytest.raises(LoadError, match=r"op 'Cumsum': unknown attr .*; Cumsum takes attrs 'axis', "
                                        r"'exclusive', 'reverse'"):
        rt.load(tmp_path / "saved")


def test_a_missing_declared_attr_is_a_load_error_naming_it(tmp_path):
    data, store, _ = _saved("Cumsum")
    del data["ops"][-1]["attrs"]["exclusive"]
    with pytest.raises(LoadError, match="attr 'exclusive' is missing"):
        decode_graph(data, store, [])


def test_a_wrong_input_count_is_a_load_error():
    data, store, _ = _saved("AddV2")
    data["ops"][-1]["inputs"].append(data["ops"][-1]["inputs"][0])
    with pytest.raises(LoadError, match="AddV2 takes 2 input"):
        decode_graph(data, store, [])


def test_a_list_op_rewired_to_read_a_number_as_its_handle_is_a_load_error():
    """Found by the fuzz test: the kernel took an int32 for a tensor list and failed inside (AttributeError)."""
    data, store, variables = _saved("TensorListLength")
    placeholder = data["ops"][0]
    placeholder["attrs"]["dtype"] = {"dtype": "int32"}
    placeholder["outputs"] = [["int32", placeholder["outputs"][0][1]]]
    with pytest.raises(LoadError, match=r"input 0 \(handle\) must be a tensor list handle, got a int32 tensor"):
        decode_graph(data, store, variables)


def test_graph_inputs_edited_to_name_one_placeholder_twice_are_a_load_error():
    """Found by the fuzz test: the executor then found a placeholder nothing feeds (ValueError at the call)."""
    data, store, variables = _saved("AddV2")
    data["inputs"] = [data["inputs"][0], data["inputs"][0]]
    with pytest.raises(LoadError, match="its inputs must be each of its Placeholders once"):
        decode_graph(data, store, variables)


@pytest.mark.parametrize("name,position", [("SumToShape", 1), ("Reshape", 1), ("Tile", 1), ("StridedSlice", 1),
                                           ("GatherV2", 1)])
def test_a_size_or_index_input_rewired_to_a_float_tensor_is_a_load_error(name, position):
    """Found by the fuzz test: a static attr stood in for the input at load, and the kernel then failed on the
    float (TypeError), or would truncate it."""
    data, store, variables = _saved(name)
    if position >= len(data["inputs"]):
        pytest.skip(f"the {name} sample has no input {position}")
    placeholder = data["ops"][position]
    placeholder["attrs"]["dtype"] = {"dtype": "float32"}
    placeholder["outputs"] = [["float32", placeholder["outputs"][0][1]]]
    with pytest.raises(LoadError, match=rf"input {position} \(\w+\) must be an integer tensor, got a float32"):
        decode_graph(data, store, variables)
