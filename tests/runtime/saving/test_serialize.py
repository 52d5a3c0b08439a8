"""rt.save / rt.load: round trips, a fresh process without the user's module, variables, and bad files."""
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import autograph_lite as ag
import runtime as rt
from runtime.core.errors import LoadError, SaveError
from runtime.saving.serialize import CONSTANTS_FILE, GRAPH_FILE, LoadedFunction


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


@ag.function
def my_relu(x):
    return rt.maximum(0., x)


def traced_relu():
    f = ag.function(my_relu.python_function)
    f(rt.constant(5.5))
    f([1, -1])
    f(rt.constant([3., -3.]))
    return f


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


# --- round trips -----------------------------------------------------------------------------------
def test_function_with_three_signatures_round_trips(tmp_path):
    f = traced_relu()
    rt.save(f, tmp_path)
    loaded = rt.load(tmp_path)
    assert isinstance(loaded, LoadedFunction)
    assert loaded.pretty_printed_concrete_signatures() == f.pretty_printed_concrete_signatures()
    for args in ([rt.constant(-2.5)], [[1, -1]], [rt.constant([-1., 1.])]):
        assert same(loaded(*args), f(*args))
    assert f.experimental_get_tracing_count() == 3  # the calls above reused the traces


def test_files_are_json_and_npz_without_pickle(tmp_path):
    rt.save(traced_relu(), tmp_path)
    assert sorted(os.listdir(tmp_path)) == [CONSTANTS_FILE, GRAPH_FILE]
    document = json.loads((tmp_path / GRAPH_FILE).read_text())
    assert document["format_version"] == 1 and document["name"] == "my_relu"
    assert [p["name"] for p in document["parameters"]] == ["x"]
    ops = document["concrete_functions"][0]["graph"]["ops"]
    assert [op["type"] for op in ops] == ["Placeholder", "Const", "Maximum"]
    with np.load(tmp_path / CONSTANTS_FILE, allow_pickle=False) as archive:
        assert all(archive[name].dtype != object for name in archive.files)


def test_if_and_while_round_trip(tmp_path):
    f = ag.function(collatz_steps)
    expected = [f(rt.constant(n)) for n in (1, 6, 27)]
    rt.save(f, tmp_path)
    loaded = rt.load(tmp_path)
    assert [loaded(rt.constant(n)).numpy() for n in (1, 6, 27)] == [e.numpy() for e in expected] == [0, 8, 111]
    graph = loaded.concrete_functions[0].unoptimized_graph
    assert "While" in [op.type for op in graph.operations]


def test_nested_outputs_and_python_arguments(tmp_path):
    @ag.function
    def stats(x, scale, mode="sum"):
        total = rt.reduce_sum(x) * scale
        return {"total": total, "pair": (x, total if mode == "sum" else -total)}

    x = rt.constant([1.0, 2.0])
    originals = {args: stats(x, *args) for args in [(2.0,), (3.0, "neg")]}
    rt.save(stats, tmp_path)
    loaded = rt.load(tmp_path)
    for args, expected in originals.items():
        result = loaded(x, *args)
        assert set(result) == {"total", "pair"} and isinstance(result["pair"], tuple)
        assert same(result["total"], expected["total"]) and same(result["pair"][1], expected["pair"][1])
    assert same(loaded(x, scale=2.0, mode="sum")["total"], originals[(2.0,)]["total"])
    with pytest.raises(TypeError, match=r"stats: no saved signature matches \(x=float32 Tensor, shape=\(2,\), "
                                        r"scale=4.0, mode='sum'\)"):
        loaded(x, 4.0)


def test_input_signature_with_unknown_dims(tmp_path):
    f = ag.function(lambda v: rt.reduce_sum(v * v), input_signature=[rt.TensorSpec([None], rt.float32)])
    f(rt.constant([1.0]))
    rt.save(f, tmp_path)
    loaded = rt.load(tmp_path)
    assert loaded(rt.constant([1.0, 2.0, 3.0])).numpy() == 14.0
    assert loaded(np.array([2.0], np.float32)).numpy() == 4.0


def test_a_reshape_with_an_inferred_size_of_a_tensor_of_unknown_length_round_trips(tmp_path):
    # Its static_shape attr holds the -1 ((2, -1)): the loader refused every such graph ("must be ... ints >= 0")
    f = ag.function(lambda v: rt.reshape(v, [2, -1]) * 2.0, input_signature=[rt.TensorSpec([None], rt.float32)])
    f.get_concrete_function()
    rt.save(f, tmp_path)
    loaded = rt.load(tmp_path)
    assert loaded(np.arange(6, dtype=np.float32)).numpy().tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    graph = json.loads((tmp_path / GRAPH_FILE).read_text())
    text = json.dumps(graph)
    for edited in (text.replace("[2, -1]", "[-1, -1]"), text.replace("[2, -1]", "[2, -2]")):
        assert edited != text
        (tmp_path / GRAPH_FILE).write_text(edited)
        with pytest.raises(LoadError, match=r"attr 'static_shape' must be None or a tuple of sizes \(ints >= 0 or "
                                            r"None, and at most one -1\)"):
            rt.load(tmp_path)


def test_concrete_function_round_trips_as_concrete_function(tmp_path):
    concrete = my_relu.get_concrete_function(rt.TensorSpec([None], rt.float32))
    rt.save(concrete, tmp_path)
    loaded = rt.load(tmp_path)
    assert isinstance(loaded, rt.ConcreteFunction)
    assert loaded.structured_input_signature == concrete.structured_input_signature
    assert same(loaded(rt.constant([-1.0, 4.0])), np.array([0.0, 4.0], np.float32))


def test_variables_keep_values_and_stay_mutable(tmp_path):
    counter = rt.Variable(10, name="counter")

    @ag.function
    def bump(step):
        counter.assign_add(step)
        return counter.read_value() * 2

    bump(rt.constant(1))
    rt.save(bump, tmp_path)
    bump(rt.constant(100))  # changes after saving are not in the file
    loaded = rt.load(tmp_path)
    (restored,) = loaded.variables
    assert restored.name == "counter" and restored.numpy() == 11 and restored is not counter
    assert loaded(rt.constant(5)).numpy() == 32
    assert restored.numpy() == 16 and counter.numpy() == 111
    restored.assign(0)
    assert loaded(rt.constant(1)).numpy() == 2
    assert rt.load(tmp_path).variables[0].numpy() == 11  # the file is unchanged


def test_loaded_graphs_are_optimized_and_run_by_the_compiled_executor(tmp_path, monkeypatch):
    import runtime.backends.executor
    compiled = []
    real_make_callable = runtime.backends.executor.make_callable

    def counting_make_callable(graph):
        compiled.append(graph)
        return real_make_callable(graph)
    monkeypatch.setattr(runtime.backends.executor, "make_callable", counting_make_callable)

    @ag.function
    def wasteful(x):
        rt.exp(x)  # pruned by the optimizer: nothing needs it
        return x * (2.0 + 3.0)
    wasteful(rt.constant(1.0))
    rt.save(wasteful, tmp_path)
    compiled.clear()
    loaded = rt.load(tmp_path)
    concrete = loaded.concrete_functions[0]
    assert loaded(rt.constant(2.0)).numpy() == 10.0   # the first call: interpreted (tests/runtime/backends/test_first_call_tier.py)
    assert loaded(rt.constant(3.0)).numpy() == 15.0
    assert compiled == [concrete.graph]
    assert "Exp" in [op.type for op in concrete.unoptimized_graph.operations]
    assert "Exp" not in [op.type for op in concrete.graph.operations]


def test_fresh_process_without_the_user_module(tmp_path):
    module = tmp_path / "user_code_xyz.py"
    module.write_text(textwrap.dedent("""
        import autograph_lite as ag
        import runtime as rt

        @ag.function
        def solve(a):
            x = a
            while rt.reduce_max(rt.abs(x * x - a)) > 1e-5:
                x = 0.5 * (x + a / x)
            return x
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        import user_code_xyz
        expected = user_code_xyz.solve(rt.constant([2.0, 9.0])).numpy()
        rt.save(user_code_xyz.solve, tmp_path / "saved")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("user_code_xyz", None)
    module.unlink()  # the source is gone: loading must not need it
    script = textwrap.dedent(f"""
        import json, sys, runtime as rt
        f = rt.load({str(tmp_path / 'saved')!r})
        print(json.dumps(f(rt.constant([2.0, 9.0])).numpy().tolist()))
        print('user module imported:', any('user_code_xyz' in m for m in sys.modules))
        print('autograph_lite imported:', 'autograph_lite' in sys.modules)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                            cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    value, user_module, converter = result.stdout.splitlines()
    assert json.loads(value) == expected.tolist()
    assert user_module == "user module imported: False"
    assert converter == "autograph_lite imported: False"


# --- saving errors ---------------------------------------------------------------------------------
def test_saving_an_untraced_function_says_to_call_it(tmp_path):
    with pytest.raises(SaveError, match=r"collatz_steps has not been traced yet.*call it once"):
        rt.save(ag.function(collatz_steps), tmp_path)


def test_saving_something_else_is_a_clear_error(tmp_path):
    with pytest.raises(SaveError, match="rt.save expects a Function .* or a ConcreteFunction, got function"):
        rt.save(collatz_steps, tmp_path)


def test_unsaveable_python_argument_is_named(tmp_path):
    class Config:
        scale = 2

    f = ag.function(lambda x, config: x * config.scale)
    f(rt.constant(1), Config())
    with pytest.raises(SaveError, match=r"argument 'config': cannot save a value of type Config"):
        rt.save(f, tmp_path)


# --- loading errors --------------------------------------------------------------------------------
@pytest.fixture
def saved(tmp_path):
    f = ag.function(collatz_steps)
    f(rt.constant(6))
    rt.save(f, tmp_path)
    return tmp_path


def edit_document(directory, change):
    path = directory / GRAPH_FILE
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def test_missing_directory(tmp_path):
    with pytest.raises(LoadError, match=r"no saved function at .*nothing_here: graph.json not found"):
        rt.load(tmp_path / "nothing_here")


def test_truncated_graph_json(saved):
    path = saved / GRAPH_FILE
    path.write_text(path.read_text()[:200])
    with pytest.raises(LoadError, match="graph.json is damaged or truncated"):
        rt.load(saved)


def test_truncated_constants(saved):
    path = saved / CONSTANTS_FILE
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(LoadError, match="constants.npz is damaged or not a numpy archive"):
        rt.load(saved)


def test_missing_constants(saved):
    (saved / CONSTANTS_FILE).unlink()
    with pytest.raises(LoadError, match="constants.npz is missing"):
        rt.load(saved)


def test_wrong_format_version(saved):
    edit_document(saved, lambda d: d.update(format_version=99))
    with pytest.raises(LoadError, match="has format version 99; this version of autograph_lite reads version 1"):
        rt.load(saved)


def test_not_a_saved_function(saved):
    (saved / GRAPH_FILE).write_text(json.dumps({"hello": "world"}))
    with pytest.raises(LoadError, match="is not an autograph_lite saved function"):
        rt.load(saved)


def test_unknown_op(saved):
    def rename(document):
        document["concrete_functions"][0]["graph"]["ops"][-1]["type"] = "LaunchMissiles"
    edit_document(saved, rename)
    with pytest.raises(LoadError, match="unknown op type 'LaunchMissiles'"):
        rt.load(saved)


@pytest.mark.parametrize("reference", ["../outside.npz", "/etc/passwd", "sub/../../outside.npz", ""])
def test_constants_outside_the_directory_are_refused(saved, reference):
    (saved.parent / "outside.npz").write_bytes((saved / CONSTANTS_FILE).read_bytes())
    edit_document(saved, lambda d: d.update(constants_file=reference))
    with pytest.raises(LoadError, match="outside the saved directory|bad constants file reference"):
        rt.load(saved)


def test_symlink_escaping_the_directory_is_refused(saved):
    outside = saved.parent / "elsewhere.npz"
    outside.write_bytes((saved / CONSTANTS_FILE).read_bytes())
    (saved / "link.npz").symlink_to(outside)
    edit_document(saved, lambda d: d.update(constants_file="link.npz"))
    with pytest.raises(LoadError, match="outside the saved directory"):
        rt.load(saved)


def test_edited_constant_that_breaks_shapes_is_caught(saved):
    with np.load(saved / CONSTANTS_FILE) as archive:
        arrays = {name: archive[name] for name in archive.files}
    arrays = {name: np.zeros((3, 3), value.dtype) for name, value in arrays.items()}
    np.savez(saved / CONSTANTS_FILE, **arrays)
    with pytest.raises(LoadError, match="the file was edited or damaged|inconsistent"):
        rt.load(saved)


def test_reference_to_a_missing_tensor(saved):
    def rewire(document):
        document["concrete_functions"][0]["graph"]["ops"][-1]["inputs"] = ["nowhere:0"]
    edit_document(saved, rewire)
    with pytest.raises(LoadError, match="refers to 'nowhere:0', which is not the output of an earlier op"):
        rt.load(saved)


def test_unknown_attr_tag(saved):
    def tag(document):
        ops = document["concrete_functions"][0]["graph"]["ops"]
        next(op for op in ops if op["type"] == "Placeholder")["attrs"]["dtype"] = {"python": "os.system('x')"}
    edit_document(saved, tag)
    with pytest.raises(LoadError, match="unknown value tag 'python'"):
        rt.load(saved)


def test_pickled_arrays_are_never_unpickled(saved, tmp_path_factory):
    marker = tmp_path_factory.mktemp("marker") / "pwned"

    class Exploit:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    payload = np.array([Exploit()], dtype=object)
    with zipfile.ZipFile(saved / CONSTANTS_FILE, "a") as archive:
        with archive.open("evil.npy", "w") as member:
            np.lib.format.write_array(member, payload, allow_pickle=True)
    rt.load(saved)  # an array the graph never refers to is never read
    assert not marker.exists()
    edit_document(saved, lambda d: d["variables"].append({"name": "v", "trainable": True,
                                                           "value": {"ndarray": "evil"}}))
    with pytest.raises(LoadError, match=r"constants.npz, array 'evil': dtype object is not a numeric or bool dtype"):
        rt.load(saved)
    assert not marker.exists()


def test_a_failed_load_returns_nothing_partial(saved):
    edit_document(saved, lambda d: d["concrete_functions"].append({"graph": {}}))
    with pytest.raises(LoadError):
        rt.load(saved)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_damage_gives_load_error_or_a_working_function(saved, data):
    original = (saved / GRAPH_FILE).read_bytes()
    try:
        position = data.draw(st.integers(0, len(original) - 1))
        damage = data.draw(st.sampled_from(["truncate", "flip", "delete"]))
        if damage == "truncate":
            damaged = original[:position]
        elif damage == "flip":
            damaged = original[:position] + bytes([original[position] ^ data.draw(st.integers(1, 255))]) + \
                original[position + 1:]
        else:
            damaged = original[:position] + original[position + 1:]
        (saved / GRAPH_FILE).write_bytes(damaged)
        try:
            loaded = rt.load(saved)
        except LoadError:
            return
        try:
            loaded(rt.constant(6))
        except (TypeError, ValueError, rt.errors.InvalidArgumentError):
            pass  # an edit can make a different, valid function; running it may legitimately fail
    finally:
        (saved / GRAPH_FILE).write_bytes(original)
