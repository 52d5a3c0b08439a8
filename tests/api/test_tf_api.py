"""The tf shim's table (autograph_lite/tf_api.py) against the shim (autograph_lite.tf), both ways: every
supported name is reachable and is the object the table names; every unsupported one raises AttributeError
with the table's reason and alternative; nothing the table does not list is reachable."""
import importlib
import types

import pytest

import autograph_lite as ag
import runtime as rt
from autograph_lite import tf
from autograph_lite.tf_api import NAMESPACE, TABLE, Supported, Unsupported

CLASSES = {"tf.GradientTape": rt.GradientTape, "tf.Variable": rt.Variable, "tf.TensorArray": rt.TensorArray,
           "tf.TensorSpec": rt.TensorSpec, "tf.TensorShape": rt.TensorShape, "tf.Module": tf.Module}
SOURCES = {"rt": rt, "ag": ag, "shim": importlib.import_module("autograph_lite.tf_shim"),
           "keras": importlib.import_module("autograph_lite.tf_keras"),
           "module": importlib.import_module("autograph_lite.tf_module")}


def shim_object(path):
    value = tf
    for part in path.split(".")[1:]:
        value = getattr(value, part)
    return value


def resolve(target):
    source, _, rest = target.partition(".")
    value = SOURCES[source]
    for part in rest.split("."):
        value = getattr(value, part)
    return value


def namespaces():
    return [path for path in TABLE if path not in CLASSES]


def test_the_table_covers_the_namespaces_the_issue_lists():
    assert set(TABLE) >= {"tf", "tf.math", "tf.nn", "tf.linalg", "tf.random", "tf.config", "tf.autograph",
                          "tf.debugging", "tf.dtypes", "tf.errors", "tf.saved_model", "tf.keras.optimizers",
                          "tf.keras.losses", "tf.keras.activations"} | set(CLASSES)
    for name in ("Module", "GradientTape", "TensorSpec", "TensorShape", "TensorArray", "Variable", "newaxis"):
        assert isinstance(TABLE["tf"][name], Supported), name
    assert isinstance(TABLE["tf.keras"]["layers"], Unsupported) and isinstance(TABLE["tf.keras"]["Model"], Unsupported)
    for entries in TABLE.values():
        for entry in entries.values():
            if isinstance(entry, Unsupported):
                assert entry.reason and entry.alternative


@pytest.mark.parametrize("path", namespaces())
def test_every_supported_name_is_reachable_and_is_the_tables_object(path):
    namespace = shim_object(path)
    for name, entry in TABLE[path].items():
        if not isinstance(entry, Supported):
            continue
        value = getattr(namespace, name)
        if entry.target == NAMESPACE:
            assert f"{path}.{name}" in TABLE
            continue
        expected = resolve(entry.target)
        assert getattr(value, "__wrapped__", value) is expected, f"{path}.{name}"


@pytest.mark.parametrize("path", namespaces())
def test_nothing_but_the_supported_names_is_reachable(path):
    namespace = shim_object(path)
    supported = {name for name, entry in TABLE[path].items() if isinstance(entry, Supported)}
    assert set(dir(namespace)) == supported
    # what is really there (pytest's assertion rewriting may add '@py_builtins' to a module it imported)
    reachable = {name for name in vars(namespace) if name.isidentifier() and not name.startswith("__")}
    assert reachable == supported - {"__version__"}


@pytest.mark.parametrize("path", namespaces())
def test_every_unsupported_name_raises_attribute_error_with_its_reason(path):
    namespace = shim_object(path)
    for name, entry in TABLE[path].items():
        if isinstance(entry, Unsupported):
            with pytest.raises(AttributeError) as caught:
                getattr(namespace, name)
            assert str(caught.value) == (f"{path}.{name} is TensorFlow's, but autograph_lite's tf shim does not "
                                         f"support it: {entry.reason}. Instead: {entry.alternative}")
            assert not hasattr(namespace, name)


@pytest.mark.parametrize("internal", ["Any", "annotations", "rt", "api", "types", "Optional", "np", "register_op",
                                      "apply_op", "_shim", "tf_shim"])
def test_nothing_internal_is_reachable(internal):
    for path in namespaces():
        assert not hasattr(shim_object(path), internal), f"{path}.{internal}"
    with pytest.raises(AttributeError, match=f"has no tf.random.{internal}: it is not among the TensorFlow names"):
        getattr(tf.random, internal)


@pytest.mark.parametrize("path", list(CLASSES))
def test_class_members_listed_as_supported_exist_and_unsupported_ones_do_not(path):
    klass = CLASSES[path]
    assert shim_object(path) is klass
    for name, entry in TABLE[path].items():
        assert hasattr(klass, name) == isinstance(entry, Supported), f"{path}.{name}"


def test_namespaces_are_not_modules_of_ours():
    for path in namespaces():
        if path != "tf":
            assert not isinstance(shim_object(path), types.ModuleType)
