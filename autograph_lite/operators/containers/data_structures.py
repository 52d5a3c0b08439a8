"""Item assignment in converted code (``ag__.set_item``): a functional update on tensors, Python elsewhere.

``x[key] = v`` in a converted function becomes ``x = ag__.set_item(x, key, v)`` (converters/slices.py).
On a tensor that is ``rt.update_by_key(x, key, v)``, a new tensor, so a tensor ``if``/loop that assigns an
item carries ``x`` as state.

Lists (``ag__.list_append`` / ``ag__.list_pop``, converters/lists.py): a Python list stays a Python list,
mutated in place, except when a tensor-dependent loop changes a Python list that is its state: then the loop
is traced again with the list as an ``rt.TensorList`` (staged_loops.py), which grows in the graph. On anything else
it is exactly Python's ``x[key] = v`` and returns the same
object: lists, dicts and numpy arrays are mutated in place and every alias sees it.

>>> values = [1, 2, 3]
>>> alias = values
>>> set_item(values, 0, 10) is values, alias
(True, [10, 2, 3])
>>> set_item(rt.constant([1, 2, 3]), 0, 10)
Tensor([10  2  3], shape=(3,), dtype=int32)
"""
from __future__ import annotations

import contextlib
import operator
from typing import Any, Callable, Iterator, List, Optional, Tuple

import numpy as np

import runtime as rt
from autograph_lite.operators.containers.loop_dict_keys import check_loop_dict_keys
from autograph_lite.operators.staging import (Containers, Learned, NeedsTensorList, carrying, carrying_anywhere,
                                              staging)
from runtime.core import context as rt_context
from runtime.core.context import thread_state

# Pinned at import: user code may replace these builtins (even with converted functions, which call the
# operators here: `calls.append(1)` inside a converted replacement of `isinstance` must not recurse).
from builtins import (any, bool, dict, enumerate, float, getattr, id, int, isinstance, len, list, next, reversed,
                      set, str, tuple, type, zip)

_IN_PLACE = {'+=': operator.iadd, '-=': operator.isub, '*=': operator.imul, '/=': operator.itruediv,
             '//=': operator.ifloordiv, '%=': operator.imod, '**=': operator.ipow, '@=': operator.imatmul,
             '&=': operator.iand, '|=': operator.ior, '^=': operator.ixor, '<<=': operator.ilshift,
             '>>=': operator.irshift}


def set_item(target: Any, key: Any, value: Any) -> Any:
    """``target[key] = value``; returns the new tensor for a tensor, else ``target`` itself (mutated).

    >>> set_item({'a': 1}, 'b', 2)
    {'a': 1, 'b': 2}
    """
    # A dict or a list while no staged construct carries containers (the plain form, and most of the staged
    # form): the assignment is all there is (the checks below find nothing then, at twenty times its cost).
    if not carrying_anywhere[0] and (type(target) is dict or type(target) is list):
        target[key] = value
        return target
    if isinstance(target, rt.Tensor):
        return rt.update_by_key(target, key, value)
    if isinstance(target, rt.TensorList):
        return _changed_tensor_list(target, target.set_item(key, value))
    if not _loop_copy_item_assigned(target, key):
        _stage_list_change(target, value, "assign an item of")
    if type(target) is dict and key not in target and _carried_by_loop(target):
        _key_added(target, key, value)
    target[key] = value
    return target


def del_item(target: Any, name: str, key: Any) -> Any:
    """``del target[key]`` on the local ``name``; returns ``target``, which the generated code binds to ``name``
    again so that a tensor-dependent if or loop carries it (a dict whose branches leave different keys is
    then the error that says so, not a complaint about one item).

    >>> del_item({'a': 1, 'b': 2}, 'd', 'a')
    {'b': 2}
    """
    if isinstance(target, rt.TensorList) or _watched_entry(target) is not None:
        raise rt.errors.StateError(
            f"'del {name}[...]' cannot change the list '{name}' in a tensor-dependent loop or if: the list is a "
            f"tensor list there, which has append, pop and item assignment but no item deletion. Use "
            f"`{name}.pop(index)`, or delete the item before or after that loop or if")
    if type(target) is dict and key in target and _carried_by_loop(target):
        check_loop_dict_keys(name, f'del {name}[...]', [], [key])
    del target[key]
    return target


def set_item_augmented(target: Any, key: Any, operator_text: str, value: Any) -> Any:
    """``target[key] += value`` (or another augmented operator); the key is evaluated once, as in Python.

    >>> set_item_augmented(rt.constant([1, 2]), 1, '*=', 5)
    Tensor([ 1 10], shape=(2,), dtype=int32)
    """
    in_place = _IN_PLACE[operator_text]
    if not carrying_anywhere[0] and (type(target) is dict or type(target) is list):   # as in set_item
        target[key] = in_place(target[key], value)
        return target
    if isinstance(target, rt.Tensor):
        return rt.update_by_key(target, key, in_place(target[key], value))  # tensors have no in-place forms
    if isinstance(target, rt.TensorList):
        return _changed_tensor_list(target, target.set_item(key, in_place(target[key], value)))
    if not _loop_copy_item_assigned(target, key) and _watched_entry(target) is not None:
        _stage_list_change(target, target[key], "assign an item of")
    target[key] = in_place(target[key], value)
    return target


# What converted code calls in place of a method that ``call_in_place`` calls on an object that is no list, set
# or dict (``acc.update(x)``, ``tree.add(node)`` of a user class): ``calls.call_target`` puts itself here (the
# operators cannot import what converts functions). Without it a user's method of such a name ran unconverted:
# an ``if`` on a tensor in it failed while tracing.
method_target: List[Callable[[Callable], Callable]] = [lambda method: method]


# --- lists: Python lists, and tensor lists in staged loops ---------------------------------------------
def _changed_tensor_list(target: rt.TensorList, changed: rt.TensorList) -> rt.TensorList:
    """``target`` after a change whose result is ``changed`` (a tensor list's methods make a new one).

    Outside the branches and bodies of staged constructs (a tensor list a loop or an if left behind, in the
    function's own code), the tensor list stands for the user's Python list: other names and the functions it
    is passed to hold the same object, so the change is made in ``target`` itself, as Python would (the
    converter rebinding only the name written would leave them the old contents). Inside a branch or a loop
    body the object may be one the construct keeps to restore or compare, so a new one is returned there: the
    name is rebound, and aliases of a list that a construct changes are refused (checks.check_not_aliased).
    """
    if rt_context.outer_graph() is not None:
        return changed
    target.handle = changed.handle
    return target


def _loop_copy_item_assigned(target: Any, key: Any) -> bool:
    """Whether ``target`` is a staged loop body's copy of a list variable the loop carries as a structure of
    loop variables (one tensor per element); if so, the loop is told that an item of it is assigned, which it may
    refuse (another holder of the list would keep the old one). Item assignment keeps the length, so the list
    stays such a structure, as in TensorFlow: changing the copy in place is the body's new value. (Anything that
    grows or shrinks the list, or a tensor ``key``, makes it a tensor list instead: _stage_list_change.)"""
    if type(target) is not list or isinstance(key, rt.Tensor) or (   # a tensor index needs a tensor list
            isinstance(key, slice) and any(isinstance(part, rt.Tensor) for part in (key.start, key.stop, key.step))):
        return False
    for copies, before_item_assigned in reversed(staging.loop_copies):
        entry = copies.get(id(target))
        if entry is not None:
            before_item_assigned(entry[0])
            return True
    return False


def _watched_entry(target: Any) -> Optional[Tuple[Any, int, str]]:
    if type(target) is not list:
        return None
    # The outermost loop that carries the list first: a list an inner loop changes is changed by the loops
    # around it too, which must carry it as a tensor list (the inner loop's would not match their Python list).
    for owner, lists in staging.loop_containers:
        entry = lists.get(id(target))
        if entry is not None:
            return owner, entry[0], entry[1]
    return None


def _stage_list_change(target: Any, element: Any, change: str) -> None:
    """If ``target`` is a staged loop's Python list, ask for it as a tensor list (after checking ``element``)."""
    entry = _watched_entry(target)
    if entry is None:
        return
    owner, index, name = entry
    if element is not None and not isinstance(element, (rt.Tensor, bool, int, float, np.generic, np.ndarray)):
        raise TypeError(
            f"cannot {change} a Python {type(element).__name__} ({element!r:.60}) to the list '{name}' inside a "
            "tensor-dependent loop: such a list becomes a tensor list, which holds tensors of one dtype. Append "
            f"tensors or numbers, or keep Python objects in a list that the loop does not change")
    if target and element is not None:
        _check_one_dtype(name, [*target, element])
    raise NeedsTensorList(owner, index, element)


def watch(containers: Containers, index: int, name: str, value: Any) -> None:
    """Add ``value`` to a staged loop's ``containers`` if it is a Python list, set or dict: a change of a list makes
    the loop carry it as a tensor list; of a set, or of a dict's keys, is refused at the user's line."""
    if type(value) in (list, set, dict):
        containers[id(value)] = (index, name, value)


def watch_copy(copies: Containers, index: int, name: str, value: Any) -> None:
    """Add ``value``, a staged loop body's input for its loop variable ``index``, to the loop's ``copies`` if it is
    a Python list: the body's own copy of a list carried as a structure of loop variables, whose items it may
    assign in place (_loop_copy_item_assigned)."""
    if type(value) is list:
        copies[id(value)] = (index, name, value)


@contextlib.contextmanager
def carried_by_loop(owner: Learned, containers: Containers, copies: Containers,
                    before_item_assigned: Callable[[int], None]) -> Iterator[None]:
    """While a staged loop (``owner``) is traced: its Python lists, sets and dicts (see ``watch``), and the
    body's copies of the lists it carries as structures of loop variables (``copies``: an item assignment to one
    calls ``before_item_assigned(index)``, then changes the copy in place)."""
    staging.loop_copies.append((copies, before_item_assigned))
    try:
        with carrying(staging.loop_containers, owner, containers):
            yield
    finally:
        staging.loop_copies.pop()


def carried_by_if(owner: Learned, lists: Containers) -> Any:
    """While a staged if (``owner``) traces its branches: its Python lists (BranchLists.carried), which a
    construct inside may make tensor lists (stage_outer_list_change), but not a change of their own (the if
    merges those)."""
    return carrying(staging.if_lists, owner, lists)


def note_list_rebuilt(before: Any, after: Any) -> None:
    """A staged loop left its Python list state ``before`` as a new list ``after`` (built from its outputs).
    The ifs and loops around that carry ``before`` carry ``after`` too: a loop after this one that makes
    ``after`` a tensor list must make them carry it as a tensor list (stage_outer_list_change), as for
    ``before``; and a loop body whose copy of a list variable was ``before`` may assign items of ``after`` in place.
    (The entries keep ``after`` alive, so that its id stays its own.)"""
    if type(before) is not list or type(after) is not list or before is after:
        return
    for lists in (*(lists for _, lists in (*staging.if_lists, *staging.loop_containers)),
                  *(copies for copies, _ in staging.loop_copies)):
        entry = lists.get(id(before))
        if entry is not None:
            lists[id(after)] = (entry[0], entry[1], after)


def stage_outer_list_change(target: Any, element: Any) -> None:
    """A staged loop or if is about to make its Python list state ``target`` a tensor list (``element``: one of
    its elements). A loop or if around it that carries the same list must carry it as a tensor list first
    (NeedsTensorList for the outermost one, loops before ifs), or the tensor list the inner construct leaves
    would not match the outer one's Python list."""
    _stage_list_change(target, element, "change")
    for owner, lists in staging.if_lists:
        entry = lists.get(id(target))
        if entry is not None:
            raise NeedsTensorList(owner, entry[0], element)


def _check_one_dtype(name: str, values: list) -> List[Any]:
    """``values`` as tensors, checked to share one dtype (a tensor list's elements do)."""
    known = next((value.dtype for value in values if isinstance(value, rt.Tensor)), None)  # numbers adopt it
    tensors = [value if isinstance(value, rt.Tensor) else rt.convert_to_tensor(value, known) for value in values]
    dtype = tensors[0].dtype
    for position, tensor in enumerate(tensors):
        if tensor.dtype != dtype:
            where = "the new element" if position == len(tensors) - 1 else f"element {position}"
            raise rt.errors.StateError(
                f"the list '{name}' holds {dtype.name} values but {where} is {tensor.dtype.name}; a list that a "
                "tensor-dependent loop changes becomes a tensor list, whose elements share one dtype. Make them "
                f"the same dtype, e.g. rt.cast(value, rt.{dtype.name}) (or 1.0 instead of 1 for floats)")
    return tensors


def list_append(target: Any, value: Any) -> Any:
    """``target.append(value)``; returns the list (the same Python list, or the new tensor list).

    >>> values = []
    >>> list_append(values, 1) is values, values
    (True, [1])
    """
    if not carrying_anywhere[0] and type(target) is list:   # as in set_item
        target.append(value)
        return target
    if isinstance(target, rt.TensorList):
        return _changed_tensor_list(target, target.append(value))
    _stage_list_change(target, value, "append")
    target.append(value)
    return target


def append_outside(target: Any, text: str, value: Any) -> None:
    """``target.append(value)`` as a statement, where ``target`` is not a local variable (``self.items``, a
    global's or a closure's list, ``lists[0]``; ``text`` is how the source writes it): Python's append, unless a
    tensor-dependent if or loop is being traced and ``value`` holds a tensor. Only local names are that
    construct's variables, so it cannot carry such a list: the append would run once, while tracing (not once
    per iteration, nor only on the path taken), and leave a tensor of the construct's graph in the list, whose
    length would then silently be the trace's. A StateError at the user's line instead.

    >>> class Log: pass
    >>> log = Log(); log.items = []
    >>> append_outside(log.items, 'log.items', 1); log.items
    [1]
    """
    graph = thread_state.graph
    if (graph is not None and getattr(graph, 'outer_graph', None) is not None and isinstance(target, list)
            and _holds_tensor(value)):   # (a user's object with an append method decides for itself)
        raise rt.errors.StateError(
            f"'{text}.append(...)' in a tensor-dependent loop or if appends a tensor to a list that is not a local "
            f"variable of this function (an attribute's, a global's or another container's list), which the loop "
            f"or if cannot carry: the append would run once, while tracing, and leave a tensor of the loop body or "
            f"branch in the list. Append to a local list and store it afterwards (`items = list({text})` before the "
            f"loop or if, `items.append(...)` in it, `{text} = items` after it)")
    target.append(value)


def _holds_tensor(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is a tensor or a structure holding one (a list may hold itself: nesting is bounded)."""
    if isinstance(value, (rt.Tensor, rt.TensorList, rt.TensorArray)):
        return True
    if depth > 20:
        return False
    if isinstance(value, (list, tuple)):
        return any(_holds_tensor(item, depth + 1) for item in value)
    return isinstance(value, dict) and any(_holds_tensor(item, depth + 1) for item in value.values())


def list_pop(target: Any, index: Any = None) -> Tuple[Any, Any]:
    """``(target, target.pop(index))``: the list after the pop and the popped element.

    >>> list_pop([1, 2, 3])
    ([1, 2], 3)
    """
    if isinstance(target, rt.TensorList):
        changed, element = target.pop(-1 if index is None else index)
        return _changed_tensor_list(target, changed), element
    if target and _watched_entry(target) is not None:
        _stage_list_change(target, target[-1], "pop from")
    if type(target) is dict and index in target and _carried_by_loop(target):   # `d.pop(k)`
        name = _carried_name(target)
        check_loop_dict_keys(name, f'{name}.pop(...)', [], [index])
    element = target.pop() if index is None else target.pop(index)
    return target, element


def list_pop_in_expression(target: Any, name: str, index: Any = None) -> Any:
    """``target.pop(index)`` written inside a larger expression, where the converter could not give the pop
    a statement of its own (converters/lists.py): Python's pop, unless a tensor-dependent loop changes
    ``target`` (then it would need the list rebound, which an expression cannot do).

    >>> values = [1, 2, 3]
    >>> list_pop_in_expression(values, 'values'), values
    (3, [1, 2])
    """
    if type(target) is dict and index in target and _carried_by_loop(target):
        check_loop_dict_keys(name, f'{name}.pop(...)', [], [index])
    if isinstance(target, rt.TensorList) or _watched_entry(target) is not None:
        raise rt.errors.StateError(
            f"'{name}.pop()' inside a larger expression cannot change the list '{name}' in a tensor-dependent "
            f"loop (its list is a tensor list there, which a pop must rebind). Pop it in a statement of its "
            f"own first: `value = {name}.pop()`, then use value")
    return target.pop() if index is None else target.pop(index)


def call_in_place(target: Any, name: str, method: str, /, *args: Any, **kwargs: Any) -> Any:
    """``target.method(*args, **kwargs)``, a call that may change the local ``name`` in place (``xs.sort()``,
    ``d.update(a=1)``), unless a tensor-dependent loop carries it as a list or set: that loop cannot represent
    the change (a tensor list has no such method; a set would hold trace-time values), so a StateError.

    >>> values = [3, 1, 2]
    >>> call_in_place(values, 'values', 'sort'), values
    (None, [1, 2, 3])
    """
    kind = type(target)
    if kind is list or kind is set or kind is dict:
        if not _carried_by_loop(target):
            return getattr(target, method)(*args, **kwargs)   # the builtin type's own method
    elif not isinstance(target, rt.TensorList):
        # Any other object: a user class's update() is converted like any method converted code calls.
        return method_target[0](getattr(target, method))(*args, **kwargs)
    _refuse_what_a_loop_cannot_carry(
        target, name, f'{name}.{method}(...)', f'{method}()',
        f"Call {name}.{method}(...) outside that loop or if (in an if: in both branches alike), or compute the "
        f"values with rt ops on a tensor",
        f"Call {name}.{method}(...) before or after the loop, or compute the values with rt ops on a tensor")
    # a dict the loop carries: the change may keep its keys
    if method == 'update':   # its argument may be an iterator: read it once, to see its keys
        args, kwargs = (dict(*args, **kwargs),), {}
        added = [key for key in args[0] if key not in target]
    else:
        added = [args[0]] if method == 'setdefault' and args and args[0] not in target else []
    removed = list(target)[-1:] if method == 'popitem' else list(target) if method == 'clear' else []
    if method == 'pop' and args and args[0] in target:   # `d.pop(k, default)`
        removed = [args[0]]
    check_loop_dict_keys(name, f'{name}.{method}(...)', added, removed)
    return getattr(target, method)(*args, **kwargs)


def _refuse_what_a_loop_cannot_carry(target: Any, name: str, what: str, missing: str, fix_in_if: str,
                                     fix_in_loop: str) -> None:
    """The StateError for ``what``, a change of the local ``name`` in place, when ``target`` is a tensor list
    (it has no ``missing``) or a list or set that a tensor-dependent loop carries; nothing otherwise."""
    if isinstance(target, rt.TensorList):
        raise rt.errors.StateError(
            f"'{what}' cannot change the list '{name}': it is a tensor list here (a tensor-dependent loop changes "
            f"it, or an if whose branches leave it with different lengths), which has append, pop and item "
            f"assignment but no {missing}. {fix_in_if}")
    if type(target) is list and _carried_by_loop(target):
        raise rt.errors.StateError(
            f"'{what}' changes the list '{name}' in a tensor-dependent loop, which makes a list it changes a tensor "
            f"list: that has append, pop and item assignment but no {missing}. {fix_in_loop}")
    if type(target) is set and _carried_by_loop(target):
        raise rt.errors.StateError(
            f"'{what}' changes the set '{name}' in a tensor-dependent loop, which cannot carry a Python set (its "
            f"elements would be the values of one trace, not of each iteration). Change the set before or after "
            f"the loop, or keep the values in a list the loop appends to")


def _carried_by_loop(target: Any) -> bool:
    """Whether a tensor-dependent loop being traced carries ``target`` (a list, set or dict) as its state."""
    return any(id(target) in carried for _, carried in staging.loop_containers)


def _carried_name(target: Any) -> str:
    """The name under which the innermost tensor-dependent loop that carries ``target`` knows it."""
    return next(carried[id(target)][1] for _, carried in reversed(staging.loop_containers)
                if id(target) in carried)


def _key_added(target: dict, key: Any, value: Any) -> None:
    """``target[key] = value`` adds ``key`` to a dict a tensor-dependent loop carries: the innermost such loop
    carries it as a variable it creates, or refuses (Learned.key_added)."""
    for owner, carried in reversed(staging.loop_containers):
        entry = carried.get(id(target))
        if entry is not None:
            if owner.key_added is None:
                break
            owner.key_added(entry[0], key, value)
            return
    name = _carried_name(target)
    check_loop_dict_keys(name, f'{name}[{key!r:.40}] = ...', [key], [])


def changed_in_place(target: Any, name: str, method: str, /, *args: Any, **kwargs: Any) -> Any:
    """``call_in_place`` for a statement of its own (its result unused): returns ``target``, which the
    generated code binds to ``name`` again so that tensor-dependent ifs and loops carry it
    (``xs.sort()`` -> ``xs = ag__.changed_in_place(xs, 'xs', 'sort')``).

    >>> values = [3, 1, 2]
    >>> changed_in_place(values, 'values', 'sort') is values, values
    (True, [1, 2, 3])
    """
    call_in_place(target, name, method, *args, **kwargs)
    return target


def augmented_in_place(target: Any, name: str, operator_text: str, value: Any) -> Any:
    """``target += value`` (or ``|=``) on the local ``name`` where ``value`` is a list, set or dict display
    (``xs += [v]``, ``s |= {v}``): Python's in-place operator, unless ``target`` is a tensor list, or a list or
    set that a tensor-dependent loop carries (a StateError naming ``name``, like ``call_in_place``).

    >>> values = [1]
    >>> augmented_in_place(values, 'values', '+=', [2]) is values, values
    (True, [1, 2])
    """
    if not isinstance(target, rt.TensorList) and (type(target) not in (list, set, dict)
                                                  or not _carried_by_loop(target)):
        return _IN_PLACE[operator_text](target, value)
    _refuse_what_a_loop_cannot_carry(
        target, name, f'{name} {operator_text} ...', operator_text,
        f"Use {name}.append(v) for each element (or, in an if, change {name} alike in both branches)",
        f"Use {name}.append(v) for each element, or change {name} before or after the loop")
    # a dict the loop carries: the change may keep its keys
    check_loop_dict_keys(name, f'{name} {operator_text} ...', [key for key in value if key not in target], [])
    return _IN_PLACE[operator_text](target, value)


def tensor_list_from(name: str, values: list, element: Any) -> rt.TensorList:
    """The tensor list a staged loop carries for the Python list ``name`` (``values`` before the loop);
    ``element`` is what the loop body puts in it. Every element must have one dtype."""
    tensors = _check_one_dtype(name, [*values, element])
    shape = tensors[-1].shape
    for tensor in tensors[:-1]:
        shape = _merged_shape(shape, tensor.shape)
    return rt.TensorList.from_tensors(tensors[:-1], tensors[-1].dtype, shape, name=name)


def _merged_shape(a: Any, b: Any) -> Any:
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))
