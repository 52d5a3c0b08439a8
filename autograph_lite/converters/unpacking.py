"""Tuple-unpacking assignments -> the value passes through ``ag__.unpack`` (rows of a symbolic tensor):

    a, b, c = t        ->  (a, b, c) = ag__.unpack(t)
    first, *rest = t   ->  (first, *rest) = ag__.unpack(t)

Python still does the unpacking, so counts, starred targets and errors stay Python's. Assignments with
several targets (``x = a, b = t``) are left alone: ``x`` must get ``t`` itself.
"""
import gast

from autograph_lite.pyct import anno, templates
from autograph_lite.pyct.transformer import Transformer


class UnpackingTransformer(Transformer):

    statements_only = True

    def visit_Assign(self, node):
        if (len(node.targets) == 1 and isinstance(node.targets[0], (gast.Tuple, gast.List))
                and not _is_operator_call(node.value) and not anno.getanno(node, anno.PYTHON_TUPLE, False)):
            node.value = templates.replace_as_expression('ag__.unpack(value)', value=node.value)
        return node

    def visit_Lambda(self, node):
        return node


def _is_operator_call(value) -> bool:
    """``ag__.f(...)``: code another converter generated (``(xs, top) = ag__.list_pop(xs)``), which already
    returns a Python tuple."""
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and isinstance(value.func.value, gast.Name) and value.func.value.id == 'ag__')


def unpacked_value(value):
    """The ``value`` of ``ag__.unpack(value)`` (what this converter wrote), else ``value`` itself: what a later
    converter reads as the right-hand side of ``buf, n = evens, 1``."""
    if _is_operator_call(value) and value.func.attr == 'unpack' and len(value.args) == 1:
        return value.args[0]
    return value
