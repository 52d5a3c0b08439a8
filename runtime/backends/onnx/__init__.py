"""Export traced graphs to other formats. ``to_onnx`` needs the optional extra: ``pip install autograph-lite[onnx]``.

>>> import runtime as rt
>>> callable(rt.export.to_onnx)
True
"""
from runtime.backends.onnx.export import ExportError, exportable_op_types, to_onnx

__all__ = ["to_onnx", "ExportError", "exportable_op_types"]
