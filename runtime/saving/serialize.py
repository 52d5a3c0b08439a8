"""``rt.save`` / ``rt.load``: traced functions as portable artifacts that need no Python source.

A saved function is a directory holding

- ``graph.json``: the format version, the parameters, the variables, and per traced signature its
  input signature, output structure and graph (ops with type, name, inputs and attrs encoded by type;
  If/While subgraphs nested; see ``runtime.backends.graph_codec``);
- ``constants.npz``: every array (constants, variable values), read with ``allow_pickle=False``.

Loading never imports the user's module, never unpickles and never evaluates anything from the files:
ops are looked up by name in the registry and rebuilt through ``Graph.create_op``, and the result runs
through the same optimizer and executor as a freshly traced function. A file that is damaged,
truncated, hand-edited into an inconsistent graph, from another format version, names an unknown op,
or points outside the directory raises ``rt.errors.LoadError``; nothing half-built is returned.

>>> import tempfile, runtime as rt
>>> f = rt.Function(lambda x: x * 2)
>>> _ = f(rt.constant([1, 2]))
>>> directory = tempfile.mkdtemp()
>>> rt.save(f, directory)
>>> rt.load(directory)(rt.constant([3, 4]))
Tensor([6 8], shape=(2,), dtype=int32)
"""
from __future__ import annotations

import inspect
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Tuple, Union

import numpy as np

from runtime.core import nest
from runtime.core.traceback_filtering import api_boundary
from runtime.tracing.concrete_function import ConcreteFunction, checked_array
from runtime.core.errors import LoadError, SaveError
from runtime.backends.graph_codec import (OutputRef, decode_graph, decode_value, encode_graph, encode_value,
                                          expect_fields)
from runtime.backends.xla import checked_jit_compile
from runtime.tracing.signature import accepts, bind_arguments, describe_key, is_tensor_entry, make_key
from runtime.core.tensor import SymbolicTensor, Tensor, TensorSpec
from runtime.saving.artifact_files import ArrayStore, check_file_name, open_regular, read_document_bytes

FORMAT = "autograph_lite.saved_function"
FORMAT_VERSION = 1
GRAPH_FILE = "graph.json"
CONSTANTS_FILE = "constants.npz"

PathLike = Union[str, "os.PathLike[str]"]


# --- saving ----------------------------------------------------------------------------------------
class _VariableTable:
    """Numbers the Variables met while encoding, in order of first use."""

    def __init__(self):
        self.variables: List[Any] = []

    def index(self, variable: Any) -> int:
        for i, known in enumerate(self.variables):
            if known is variable:
                return i
        self.variables.append(variable)
        return len(self.variables) - 1


def _concrete_functions(function: Any) -> List[ConcreteFunction]:
    if isinstance(function, ConcreteFunction):
        return [function]
    traces = getattr(function, "concrete_functions", None)
    if traces is None or callable(traces):
        raise SaveError(f"rt.save expects a Function (rt.Function / ag.function) or a ConcreteFunction, got "
                        f"{type(function).__name__}")
    traces = list(traces)
    if not traces and getattr(function, "input_signature", None) is not None:
        traces = [function.get_concrete_function()]   # its one graph is known without a call, as TF saves it
    if not traces:
        name = getattr(function, "__name__", None) or getattr(function, "name", "function")
        raise SaveError(f"{name} has not been traced yet, so there is no graph to save; call it once (or call "
                        "get_concrete_function(rt.TensorSpec(...))) before rt.save")
    return traces


def _output_structure(concrete: ConcreteFunction) -> Any:
    graph = concrete.unoptimized_graph
    position = {id(t): i for i, t in reversed(list(enumerate(graph.outputs)))}

    def replace(leaf):
        if isinstance(leaf, SymbolicTensor):
            if id(leaf) not in position:
                raise SaveError(f"{concrete.name}: a returned tensor ({leaf.name}) is not among the graph's outputs")
            return OutputRef(position[id(leaf)])
        return leaf
    structure = graph.structured_outputs
    if isinstance(structure, SymbolicTensor):
        return replace(structure)
    return nest.pack_sequence_as(structure, [replace(leaf) for leaf in nest.flatten(structure)])


def _encode_concrete(concrete: ConcreteFunction, arrays, variables: _VariableTable) -> Dict[str, Any]:
    args, _ = concrete.structured_input_signature
    where = f"{concrete.name}: argument"
    return {
        "input_signature": [encode_value(value, arrays, variables.index, f"{where} '{name}'")
                            for name, value in zip(concrete._param_names, args)],
        "output_structure": encode_value(_output_structure(concrete), arrays, variables.index,
                                         f"{concrete.name}: return value"),
        "graph": encode_graph(concrete.unoptimized_graph, arrays, variables.index),
    }


def _parameters(function: Any, first: ConcreteFunction) -> List[Dict[str, Any]]:
    """Name, kind and (if it has a plain JSON form) default of each parameter, to bind calls on load."""
    python_function = getattr(function, "python_function", None)
    try:
        parameters = list(inspect.signature(python_function).parameters.values()) if python_function else []
    except (TypeError, ValueError):
        parameters = []
    if [p.name for p in parameters] != list(first._param_names):
        parameters = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in first._param_names]

    def refuse(value):
        raise SaveError("not saved")

    described = []
    for parameter in parameters:
        entry: Dict[str, Any] = {"name": parameter.name, "kind": parameter.kind.name}
        if parameter.default is not inspect.Parameter.empty:
            trial: Dict[str, np.ndarray] = {}
            try:
                encoded = encode_value(parameter.default, trial, refuse, parameter.name)
                if not trial:  # array or Variable defaults are not kept: pass them explicitly
                    entry["default"] = encoded
            except SaveError:
                pass
        described.append(entry)
    return described


@api_boundary
def save(function: Any, path: PathLike) -> None:
    """Save a traced ``Function`` (every signature traced so far) or one ``ConcreteFunction`` to ``path``.

    ``path`` is a directory (created if needed). Variables are saved with their current values.

    >>> import tempfile, runtime as rt
    >>> f = rt.Function(lambda x: x + 1)
    >>> rt.save(f.get_concrete_function(rt.TensorSpec([], rt.int32)), tempfile.mkdtemp())
    """
    traces = _concrete_functions(function)
    arrays: Dict[str, np.ndarray] = {}
    variables = _VariableTable()
    encoded = [_encode_concrete(concrete, arrays, variables) for concrete in traces]
    saved_variables = [{"name": v.name, "trainable": bool(v.trainable),
                        "value": encode_value(np.array(v.numpy()), arrays, variables.index, f"variable '{v.name}'")}
                       for v in list(variables.variables)]
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "kind": "concrete_function" if isinstance(function, ConcreteFunction) else "function",
        "name": traces[0].name,
        "parameters": _parameters(function, traces[0]),
        "constants_file": CONSTANTS_FILE,
        "variables": saved_variables,
        "concrete_functions": encoded,
    }
    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(directory / CONSTANTS_FILE, **arrays)
    (directory / GRAPH_FILE).write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")


# --- loading ---------------------------------------------------------------------------------------
_CONVERTIBLE = (bool, int, float, np.generic, np.ndarray, list, tuple)


def _as_traced_tensors(function: str, names: Any, saved_key: Tuple[Any, ...],
                       values: Tuple[Any, ...]) -> Union[Tuple[Any, ...], None]:
    """``values`` with each non-tensor value a saved signature keys as a tensor converted to that tensor's
    dtype (``checked_array``, the input_signature's conversion); None if one cannot be converted to it."""
    def convert(name: str, entry: Any, value: Any) -> Any:
        if is_tensor_entry(entry):
            if isinstance(value, Tensor) or not isinstance(value, _CONVERTIBLE):
                return value
            return checked_array(function, name, TensorSpec(entry[2], entry[1]), value)
        if type(entry) is tuple and len(entry) == 2 and isinstance(value, (list, tuple)) \
                and entry[0] is type(value) and len(entry[1]) == len(value):
            return type(value)(convert(name, item, v) for item, v in zip(entry[1], value))
        return value
    try:
        return tuple(convert(name, entry, value) for name, entry, value in zip(names, saved_key, values))
    except (TypeError, ValueError):
        return None


class LoadedFunction:
    """A loaded ``Function``: calls go to the saved concrete function whose signature matches.

    Python-valued arguments must equal the values they were traced with; tensors must match a saved
    dtype and shape. Where no saved signature matches the call as it is, Python numbers, numpy values and
    nested lists of them given for a saved tensor are converted to its dtype (``checked_array``: lossless).
    ``variables`` are the loaded copies (mutable; the file is not changed).
    """

    def __init__(self, name: str, signature: inspect.Signature, traces: List[ConcreteFunction],
                 keys: List[Any], variables: List[Any]):
        self.__name__ = self.name = name
        self.__signature__ = signature
        self.concrete_functions = traces
        self._keys = keys
        self.variables = variables

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The saved concrete function that accepts these arguments (TypeError listing them if none)."""
        return self._match(bind_arguments(self.name, self.__signature__, args, kwargs))[0]

    def _match(self, values: Tuple[Any, ...]):
        # called while tracing: a symbolic argument is keyed by its static spec (the call is inlined)
        keyed = nest.map_structure(lambda v: TensorSpec(v.shape, v.dtype) if isinstance(v, SymbolicTensor) else v,
                                   tuple(values))
        key, _ = make_key(keyed)
        for concrete, saved_key in zip(self.concrete_functions, self._keys):
            if accepts(saved_key, key):
                return concrete, values
        # No exact match: Python numbers, numpy scalars, arrays and nested lists of numbers where a signature
        # has a tensor are converted to its dtype, as the original's input_signature converts them (it traced
        # a new graph otherwise, which a loaded function cannot)
        for concrete, saved_key in zip(self.concrete_functions, self._keys):
            converted = _as_traced_tensors(self.name, self.__signature__.parameters, saved_key, values)
            if converted is not None and accepts(saved_key, make_key(converted)[0]):
                return concrete, converted
        given = ", ".join(f"{p}={describe_key(k)}" for p, k in zip(self.__signature__.parameters, key))
        raise TypeError(f"{self.name}: no saved signature matches ({given}). A loaded function cannot trace "
                        f"new graphs; it accepts:\n\n{self.pretty_printed_concrete_signatures()}")

    @api_boundary
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        concrete, values = self._match(bind_arguments(self.name, self.__signature__, args, kwargs))
        return concrete(*[values[i] for i in concrete._tensor_params])

    def pretty_printed_concrete_signatures(self) -> str:
        return "\n\n".join(c.pretty_printed_signature() for c in self.concrete_functions)

    def __repr__(self) -> str:
        return f"<LoadedFunction {self.name} with {len(self.concrete_functions)} signature(s)>"


def _read_document(directory: Path) -> Dict[str, Any]:
    graph_path = directory / GRAPH_FILE
    if not graph_path.exists() and not graph_path.is_symlink():
        raise LoadError(f"no saved function at {directory}: {GRAPH_FILE} not found")
    data = read_document_bytes(open_regular(directory, GRAPH_FILE, "graph file"))
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise LoadError(f"{graph_path} is damaged or truncated: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise LoadError(f"{graph_path} is not an autograph_lite saved function")
    version = document.get("format_version")
    if type(version) is not int or version != FORMAT_VERSION:  # 1.0 and true equal 1 in Python, not here
        raise LoadError(f"{graph_path} has format version {version!r}; this version of autograph_lite reads version "
                        f"{FORMAT_VERSION} (field 'format_version'; re-save the function with a matching version)")
    expect_fields(document, tuple(_FIELDS) + ("format", "format_version"), (), str(graph_path))
    for field, kind in _FIELDS.items():
        if not isinstance(document.get(field), kind):
            raise LoadError(f"{graph_path}: field {field!r} must be a JSON {_JSON_NAMES[kind]}, got "
                            f"{document.get(field)!r:.80}")
    if document["kind"] not in ("function", "concrete_function"):
        raise LoadError(f"{graph_path}: field 'kind' must be 'function' or 'concrete_function', got "
                        f"{document['kind']!r:.80}")
    check_file_name(document["constants_file"], "constants_file")
    return document


_FIELDS = {"kind": str, "name": str, "parameters": list, "constants_file": str, "variables": list,
           "concrete_functions": list}
_JSON_NAMES = {str: "string", list: "list", dict: "object"}


def _build(document: Dict[str, Any], arrays: Dict[str, np.ndarray], jit_compile: Any = None):
    from runtime.ops.variables import Variable
    variables = []
    for index, entry in enumerate(document["variables"]):
        expect_fields(entry, ("name", "trainable", "value"), (), f"variable {index}")
        if not isinstance(entry["name"], str) or not isinstance(entry["trainable"], bool):
            raise LoadError(f"variable {index}: field 'name' must be a string and 'trainable' a bool")
        value = decode_value(entry["value"], arrays, [], f"variable {index}")
        if not isinstance(value, np.ndarray):
            raise LoadError(f"variable {index}: its value must be an array")
        variables.append(Variable(value, name=str(entry["name"]), trainable=bool(entry["trainable"])))
    signature = _signature(document["parameters"], arrays, variables)
    parameters = list(signature.parameters)
    traces, keys = [], []
    for number, entry in enumerate(document["concrete_functions"]):
        where = f"concrete function {number}"
        expect_fields(entry, ("input_signature", "output_structure", "graph"), (), where)
        values = [decode_value(v, arrays, variables, f"{where} argument") for v in entry["input_signature"]]
        if len(values) != len(parameters):
            raise LoadError(f"{where}: {len(values)} arguments recorded for {len(parameters)} parameters")
        graph = decode_graph(entry["graph"], arrays, variables)
        structure = decode_value(entry["output_structure"], arrays, variables, f"{where} output structure")
        graph.structured_outputs = _resolve_outputs(structure, graph, where)
        _check_inputs_match_signature(values, graph, where)
        key, _ = make_key(tuple(values))
        traces.append(ConcreteFunction(graph, str(document["name"]), parameters, tuple(values), key, variables,
                                       jit_compile))
        keys.append(key)
    if not traces:
        raise LoadError("the file holds no concrete function")
    if document["kind"] == "concrete_function":
        return traces[0]
    return LoadedFunction(str(document["name"]), signature, traces, keys, variables)


_PARAMETER_KINDS = {kind.name: kind for kind in (
    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.VAR_POSITIONAL,
    inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD)}


def _signature(entries: Any, arrays, variables) -> inspect.Signature:
    parameters = []
    for number, entry in enumerate(entries):
        expect_fields(entry, ("name", "kind"), ("default",), f"parameter {number}")
        if not isinstance(entry["name"], str) or not entry["name"].isidentifier():
            raise LoadError(f"parameter {number}: field 'name' must be a Python identifier, got {entry['name']!r:.80}")
        kind = _PARAMETER_KINDS.get(entry["kind"]) if isinstance(entry["kind"], str) else None
        if kind is None:
            raise LoadError(f"parameter {entry.get('name')!r} has an unknown kind {entry['kind']!r}")
        default = (decode_value(entry["default"], arrays, variables, f"default of {entry['name']}")
                   if "default" in entry else inspect.Parameter.empty)
        parameters.append(inspect.Parameter(str(entry["name"]), kind, default=default))
    return inspect.Signature(parameters)


def _check_inputs_match_signature(values: List[Any], graph, where: str) -> None:
    """The graph's placeholders are the signature's tensors, in order, with the same dtypes and shapes."""
    specs = [leaf for leaf in nest.flatten(values) if isinstance(leaf, TensorSpec)]
    placeholders = graph.inputs[:len(specs)]
    if len(placeholders) != len(specs) or any(
            p.dtype != spec.dtype or p.shape != spec.shape for p, spec in zip(placeholders, specs)):
        raise LoadError(f"{where}: field 'input_signature' says {[(s.dtype.name, s.shape) for s in specs]}, the "
                        f"graph's inputs are {[(p.dtype.name, p.shape) for p in graph.inputs]}")


def _resolve_outputs(structure: Any, graph, where: str) -> Any:
    leaves = [structure] if isinstance(structure, OutputRef) else nest.flatten(structure)
    if len(leaves) != len(graph.outputs) or not all(
            isinstance(leaf, OutputRef) and leaf.index < len(graph.outputs)
            and graph.outputs[leaf.index] is graph.outputs[position] for position, leaf in enumerate(leaves)):
        raise LoadError(f"{where}: field 'output_structure' has leaves {leaves!r:.200}, which are not the graph's "
                        f"{len(graph.outputs)} output(s) in order")

    def resolve(leaf):
        if isinstance(leaf, OutputRef):
            if leaf.index >= len(graph.outputs):
                raise LoadError(f"{where}: output structure refers to output {leaf.index}, the graph has "
                                f"{len(graph.outputs)}")
            return graph.outputs[leaf.index]
        return leaf
    if isinstance(structure, OutputRef):
        return resolve(structure)
    return nest.pack_sequence_as(structure, [resolve(leaf) for leaf in nest.flatten(structure)])


@api_boundary
def load(path: PathLike, jit_compile: Any = None) -> Union[LoadedFunction, ConcreteFunction]:
    """Load what ``rt.save`` wrote: a ``LoadedFunction`` for a saved Function, else a ConcreteFunction.

    ``jit_compile=True`` (or ``"auto"``) runs the loaded graphs compiled by XLA through JAX, as
    ``rt.function(jit_compile=...)`` does.

    Raises ``rt.errors.LoadError`` for anything wrong with the files (see the module docstring).
    """
    directory = Path(path)
    document = _read_document(directory)
    jit_compile = checked_jit_compile("rt.load", jit_compile)
    try:
        constants = document["constants_file"]
        with ArrayStore(open_regular(directory, constants, "constants_file"), directory / constants) as arrays:
            loaded = _build(document, arrays, jit_compile)
    except LoadError as error:
        raise LoadError(f"{directory / GRAPH_FILE}: {error}") from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as error:
        problem = f"missing entry {error}" if isinstance(error, KeyError) else f"{type(error).__name__}: {error}"
        raise LoadError(f"{directory / GRAPH_FILE} is damaged or was edited inconsistently ({problem})") from None
    return loaded
