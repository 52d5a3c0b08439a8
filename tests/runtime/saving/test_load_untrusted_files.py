"""rt.load on files an attacker controls: non-regular files, paths out of the artifact, decompression bombs,
huge declared shapes and unchecked fields are each a LoadError at load time that names the problem."""
import json
import os
import threading
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.core.errors import LoadError
from runtime.saving import artifact_files
from runtime.saving.serialize import CONSTANTS_FILE, GRAPH_FILE


@pytest.fixture
def saved(tmp_path):
    f = rt.Function(lambda x: (x * 2.0 + rt.constant([1.0, 2.0, 3.0]), rt.reduce_sum(x)))
    f(rt.constant([1.0, 1.0, 1.0]))
    rt.save(f, tmp_path / "saved")
    return tmp_path / "saved"


def edit(directory, change):
    path = directory / GRAPH_FILE
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document))


def load_within(path, seconds=10.0):
    """rt.load(path) in a thread: the exception it raised (or None), failing if it takes longer than ``seconds``."""
    outcome = {}

    def run():
        try:
            rt.load(path)
            outcome["error"] = None
        except BaseException as error:  # noqa: BLE001 - handed to the test
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"rt.load({path}) still running after {seconds} s"
    return outcome["error"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("name", [CONSTANTS_FILE, GRAPH_FILE])
def test_a_fifo_in_place_of_a_file_is_a_load_error_not_a_hang(saved, name):
    os.remove(saved / name)
    os.mkfifo(saved / name)
    error = load_within(saved)
    assert isinstance(error, LoadError) and "not a regular file" in str(error), error


def test_a_directory_in_place_of_the_constants_is_a_load_error(saved):
    os.remove(saved / CONSTANTS_FILE)
    os.mkdir(saved / CONSTANTS_FILE)
    with pytest.raises(LoadError, match="not a regular file"):
        rt.load(saved)


def test_a_symlinked_graph_file_is_refused(saved, tmp_path):
    outside = tmp_path / "elsewhere.json"
    os.replace(saved / GRAPH_FILE, outside)
    os.symlink(outside, saved / GRAPH_FILE)
    with pytest.raises(LoadError, match="is a symlink; refusing to follow it"):
        rt.load(saved)


@pytest.mark.parametrize("name", ["a\x00b.npz", "sub/x.npz", "..", "./constants.npz", "x" * 300, 7, None])
def test_a_bad_constants_file_field_is_a_load_error_naming_the_field(saved, name):
    edit(saved, lambda d: d.update(constants_file=name))
    with pytest.raises(LoadError, match="field 'constants_file'"):
        rt.load(saved)


@pytest.mark.parametrize("version", [1.0, True, "1", None, [1]])
def test_a_format_version_that_only_equals_1_in_python_is_refused(saved, version):
    edit(saved, lambda d: d.update(format_version=version))
    with pytest.raises(LoadError, match=r"has format version .*field 'format_version'"):
        rt.load(saved)


@pytest.mark.parametrize("field,value", [("kind", "module"), ("kind", 3), ("name", None), ("parameters", {}),
                                         ("variables", "x"), ("concrete_functions", None)])
def test_top_level_fields_of_the_wrong_type_name_the_field(saved, field, value):
    edit(saved, lambda d: d.update({field: value}))
    with pytest.raises(LoadError, match=f"field '{field}'"):
        rt.load(saved)


def test_an_output_structure_with_an_extra_leaf_is_refused_at_load(saved):
    def add_leaf(document):
        structure = document["concrete_functions"][0]["output_structure"]
        structure["tuple"].append({"output": 0})
    edit(saved, add_leaf)
    with pytest.raises(LoadError, match="field 'output_structure' has leaves"):
        rt.load(saved)


def test_an_output_structure_in_another_order_is_refused_at_load(saved):
    def swap(document):
        structure = document["concrete_functions"][0]["output_structure"]
        structure["tuple"].reverse()
    edit(saved, swap)
    with pytest.raises(LoadError, match="not the graph's 2 output"):
        rt.load(saved)


def test_a_placeholder_edited_away_from_the_signature_is_refused(tmp_path):
    f = rt.Function(lambda x, unused: x * 2.0)
    f(rt.constant([1.0, 2.0]), rt.constant([1.0, 2.0]))
    rt.save(f, tmp_path)

    def reshape_placeholder(document):
        op = document["concrete_functions"][0]["graph"]["ops"][1]
        assert op["type"] == "Placeholder" and op["outputs"] == [["float32", [2]]]
        op["attrs"]["shape"] = {"tuple": [4]}
        op["outputs"] = [["float32", [4]]]
    edit(tmp_path, reshape_placeholder)
    with pytest.raises(LoadError, match=r"field 'input_signature' says \[\('float32', \(2,\)\), \('float32', \(2,\)\)\]"):
        rt.load(tmp_path)


def _add_member(directory, key, header, data=b""):
    with zipfile.ZipFile(directory / CONSTANTS_FILE, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open(f"{key}.npy", "w", force_zip64=True) as member:
            np.lib.format.write_array_header_1_0(member, header)
            member.write(data)


def _use_as_variable(directory, key):
    edit(directory, lambda d: d["variables"].append({"name": "v", "trainable": True, "value": {"ndarray": key}}))


HUGE = {"descr": "<f8", "fortran_order": False, "shape": (10 ** 6, 10 ** 6)}


def test_a_huge_declared_shape_is_a_load_error_not_a_memory_error(saved):
    _add_member(saved, "huge", HUGE, b"\0" * 64)
    _use_as_variable(saved, "huge")
    with pytest.raises(LoadError, match=r"array 'huge': its header declares shape \(1000000, 1000000\) of float64 "
                                        r"\(8000000000000 bytes\), more than"):
        rt.load(saved)


def test_an_array_the_graph_never_uses_is_never_read(saved):
    _add_member(saved, "huge", HUGE, b"\0" * 64)
    loaded = rt.load(saved)
    assert loaded(rt.constant([1.0, 2.0, 3.0]))[1].numpy() == 6.0


def test_a_header_disagreeing_with_the_archive_size_is_refused(saved):
    _add_member(saved, "short", {"descr": "<f8", "fortran_order": False, "shape": (1000,)}, b"\0" * 16)
    _use_as_variable(saved, "short")
    with pytest.raises(LoadError, match="array 'short': the archive declares"):
        rt.load(saved)


def test_a_decompression_bomb_is_refused_before_it_inflates(saved, monkeypatch):
    monkeypatch.setattr(artifact_files, "INFLATE_FLOOR_BYTES", 1 << 20)  # a small floor keeps the test fast
    np.savez_compressed(saved / "bomb.npz", a0=np.array([1.0, 2.0, 3.0], np.float32),
                        bomb=np.zeros(16 << 20, np.uint8))
    os.replace(saved / "bomb.npz", saved / CONSTANTS_FILE)
    assert (saved / CONSTANTS_FILE).stat().st_size < 64 << 10
    _use_as_variable(saved, "bomb")
    with pytest.raises(LoadError, match="array 'bomb': the arrays would inflate to more than .* refusing a "
                                        "decompression bomb"):
        rt.load(saved)


def test_object_and_structured_dtypes_are_refused(saved):
    _add_member(saved, "rec", {"descr": [("a", "<i4")], "fortran_order": False, "shape": (1,)}, b"\0" * 4)
    _use_as_variable(saved, "rec")
    with pytest.raises(LoadError, match="array 'rec': dtype .* is not a numeric or bool dtype"):
        rt.load(saved)


def test_arrays_read_lazily_keep_their_values_and_byte_order(tmp_path):
    values = {"a": np.arange(6, dtype=">i4").reshape(2, 3), "b": np.asfortranarray(np.ones((2, 3))),
              "c": np.array([True, False])}
    np.savez(tmp_path / "c.npz", **values)
    with artifact_files.ArrayStore(artifact_files.open_regular(tmp_path, "c.npz", "constants_file")) as store:
        for key, value in values.items():
            assert np.array_equal(store[key], value) and store[key].dtype.isnative and store[key].flags.writeable
