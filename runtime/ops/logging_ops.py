"""``print``: a stateful op that writes values when the graph runs (not when it is traced).

Tensors print as their numpy values (``[1 2 3]``), strings as they are, separated by spaces, like
``tf.print``. Inside a traced function it prints on every call; Python's own ``print`` only prints
while tracing.

>>> print("x =", convert_to_tensor([1, 2, 3]))
x = [1 2 3]
"""
from __future__ import annotations

import sys
from typing import Any, List, Sequence, Tuple, Union

import numpy as np

from runtime.ops.convert import convert_to_tensor
from runtime.core.attrs import TEMPLATE, TEXT, one_of, template_check
from runtime.core.registry import apply_op, not_differentiable, register_op
from runtime.core.tensor import Tensor

# A literal string; the position of a tensor input; or ("list" | "tuple" | "dict", items) for a Python
# structure holding tensors (dict items are (key text, item) pairs).
TemplateItem = Union[str, int, tuple]
_STREAMS = {"stdout": lambda: sys.stdout, "stderr": lambda: sys.stderr}


def format_value(array: np.ndarray) -> str:
    """How a tensor's value is shown by print and in assertion messages."""
    return str(array[()] if array.ndim == 0 else array)


def split_template(values: Sequence[Any]) -> Tuple[Tuple[TemplateItem, ...], List[Tensor]]:
    """Separate what is known now (strings, Python values: kept in the template) from tensors (inputs)."""
    tensors: List[Tensor] = []
    template = tuple(value if isinstance(value, str) else _template_of(value, tensors, repr_=str)
                     for value in values)
    return template, tensors


def _template_of(value: Any, tensors: List[Tensor], repr_=repr) -> TemplateItem:
    if isinstance(value, (Tensor, np.ndarray)):
        tensors.append(convert_to_tensor(value))
        return len(tensors) - 1
    if isinstance(value, (list, tuple)):
        return (type(value).__name__ if type(value) in (list, tuple) else "tuple",
                tuple(_template_of(v, tensors) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((repr(k), _template_of(v, tensors)) for k, v in value.items()))
    return repr_(value)


def _render_item(item: TemplateItem, arrays: Sequence[np.ndarray]) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, int):
        return format_value(arrays[item])
    kind, items = item
    if kind == "dict":
        return "{" + ", ".join(f"{key}: {_render_item(v, arrays)}" for key, v in items) + "}"
    inner = ", ".join(_render_item(v, arrays) for v in items)
    if kind == "list":
        return f"[{inner}]"
    return f"({inner},)" if len(items) == 1 else f"({inner})"


def render(template: Sequence[TemplateItem], arrays: Sequence[np.ndarray], sep: str) -> str:
    return sep.join(_render_item(item, arrays) for item in template)


def _print_kernel(*arrays, template, sep, end, output_stream):
    stream = _STREAMS[output_stream]()  # looked up per run, so redirections (e.g. pytest's capsys) apply
    stream.write(render(template, arrays, sep) + end)
    stream.flush()
    return ()


PRINT = register_op("PrintV2", ("*inputs",), lambda specs, attrs: [], _print_kernel, stateful=True,
                    doc="Writes its template (attr) with the input tensors' values to stdout or stderr.",
                    attrs={"template": TEMPLATE, "sep": TEXT, "end": TEXT,
                           "output_stream": one_of("stdout", "stderr")},
                    attrs_check=template_check(0))


not_differentiable(PRINT, "a side effect with no result")


def print(*values: Any, sep: str = " ", end: str = "\n", output_stream: Any = None) -> None:  # noqa: A001
    """Print ``values`` when this op runs: immediately when eager, on every call of a traced function.

    ``output_stream`` is ``sys.stdout`` (default) or ``sys.stderr``.

    >>> print(convert_to_tensor(2.5), "done")
    2.5 done
    """
    if output_stream is None or output_stream is sys.stdout or output_stream == "stdout":
        stream_name = "stdout"
    elif output_stream is sys.stderr or output_stream == "stderr":
        stream_name = "stderr"
    else:
        raise ValueError(f"print: output_stream must be sys.stdout or sys.stderr, got {output_stream!r}")
    template, tensors = split_template(values)
    apply_op(PRINT, tensors, {"template": template, "sep": str(sep), "end": str(end), "output_stream": stream_name})
