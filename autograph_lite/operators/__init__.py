"""The operators of converted code: with ``converted_call`` they make the ``ag__`` namespace
(``autograph_lite.calls.AG_NAMESPACE``; docs/GENERATED_CODE.md).

Each operator runs plain Python on Python values and eager tensors, and stages into ``rt.cond`` /
``rt.while_loop`` when its condition or iterable is a symbolic tensor (docs/GENERATED_CODE.md, "The one rule").
"""
import builtins

from autograph_lite.operators.comprehensions import dict_comp, generator_exp, list_comp, set_comp
from autograph_lite.operators.conditional_expressions import if_exp
from autograph_lite.operators.control_flow import for_stmt, if_stmt, while_stmt
from autograph_lite.operators.containers.data_structures import (append_outside, augmented_in_place, call_in_place,
                                                      changed_in_place, del_item, list_append, list_pop,
                                                      list_pop_in_expression, set_item, set_item_augmented)
from autograph_lite.operators.exceptions import assert_stmt, caught_by_finally, reraise_caught
from autograph_lite.operators.forms import needs_staged_form
from autograph_lite.operators.logical import and_, and_then, not_, or_, walrus_guard
from autograph_lite.operators.membership import in_, not_in
from autograph_lite.operators.patterns import match_subject, matches
from autograph_lite.operators.py_builtins import BUILTIN_OVERRIDES
from autograph_lite.operators.unpacking import unpack
from autograph_lite.operators.variables import (Undefined, UndefinedReturnValue, defined, defined_free,
                                                del_attr_if_undefined, del_item_if_undefined, deleted,
                                                return_value, value_or_undefined)

slice = builtins.slice  # noqa: A001 - the builtin, for subscripts converted to calls (the user may shadow it)

__all__ = ["if_stmt", "while_stmt", "for_stmt", "if_exp", "and_", "or_", "not_", "assert_stmt", "set_item",
           "set_item_augmented", "del_item", "slice", "list_append", "append_outside", "list_pop",
           "list_pop_in_expression", "call_in_place", "changed_in_place", "augmented_in_place", "Undefined",
           "UndefinedReturnValue", "defined",
           "defined_free", "deleted",
           "return_value", "value_or_undefined", "del_attr_if_undefined", "del_item_if_undefined", "BUILTIN_OVERRIDES",
           "list_comp", "generator_exp", "set_comp", "dict_comp", "unpack", "in_", "not_in", "walrus_guard", "and_then",
           "needs_staged_form", "match_subject", "matches", "caught_by_finally", "reraise_caught"]
