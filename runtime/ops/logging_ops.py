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
from runtime.ops.registry import apply_op, register_op
from runtime.tensor import Tensor

TemplateItem = Union[str, int]  # a literal string, or the position of a tensor input
_STREAMS = {"stdout": lambda: sys.stdout, "stderr": lambda: sys.stderr}


def format_value(array: np.ndarray) -> str:
    """How a tensor's value is shown by print and in assertion messages."""
    return str(array[()] if array.ndim == 0 else array)


def split_template(values: Sequence[Any]) -> Tuple[Tuple[TemplateItem, ...], List[Tensor]]:
    """Separate strings and Python values (kept in the template) from tensors (which become inputs)."""
    template: List[TemplateItem] = []
    tensors: List[Tensor] = []
    for value in values:
        if isinstance(value, str):
            template.append(value)
        elif isinstance(value, (Tensor, np.ndarray)) or _holds_tensor(value):
            template.append(len(tensors))
            tensors.append(convert_to_tensor(value))
        else:
            template.append(str(value))
    return tuple(template), tensors


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, Tensor) or _holds_tensor(v) for v in value)
    return False


def render(template: Sequence[TemplateItem], arrays: Sequence[np.ndarray], sep: str) -> str:
    return sep.join(item if isinstance(item, str) else format_value(arrays[item]) for item in template)


def _print_kernel(*arrays, template, sep, end, output_stream):
    stream = _STREAMS[output_stream]()  # looked up per run, so redirections (e.g. pytest's capsys) apply
    stream.write(render(template, arrays, sep) + end)
    stream.flush()
    return ()


PRINT = register_op("PrintV2", ("*inputs",), lambda specs, attrs: [], _print_kernel, stateful=True,
                    doc="Writes its template (attr) with the input tensors' values to stdout or stderr.")


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
