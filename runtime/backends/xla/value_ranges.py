"""What the integer values of a graph can be, known when compiling: the (lowest, highest) of each tensor's elements.

XLA clamps an index out of range silently, so each gather, subscript, scatter and list read with an index
computed when the graph runs carries a run-time check (``Context.check``). A check whose index is proved in
range is left out. This module proves it, by an interval analysis of the graph before it is lowered (no JAX):

- **sources**: constants (their min and max), the graph's inputs known when compiling, ``argmax``/``argmin``
  (``[0, axis length - 1]``), ``range``, shapes, sizes and ranks (never negative), ``zeros_like``/``ones_like``,
  ``one_hot``, comparisons and bools (``[0, 1]``);
- **arithmetic**: ``+ - *`` (the corners of the operands' intervals), ``//`` and ``%`` by a divisor whose range
  excludes 0, ``neg``, ``abs``, ``sign``, ``minimum``/``maximum``/``clip_by_value`` (monotone in each operand);
  casts between integer (and bool) types. The interval is computed exactly in Python ints, and a result that
  does not fit its dtype (it could wrap: an int8 sum, a narrowing cast) gets the dtype's whole range;
- **unknown**: anything else (a user's input, a float cast to int, a sum, a Variable) gets its dtype's whole
  range, which is always true;
- **elements moved, not changed**: identity, slices, reshapes, transposes, concatenations, selects, gathers and
  gathers of a table (the table's range), sorts, splits, pads (with the pad value);
- **containers**: a tensor list or TensorArray's fact is the union of everything ever put into it (its first
  elements, appends, writes, scatters, inserts; a reserved list's unwritten elements read as 0); reading,
  popping, gathering or stacking it gives that union;
- **loops**: a loop variable's range is a fixed point. From the values it enters with, the body's facts are
  computed, joined with the entry values, and again until nothing grows; a bound still moving after a few
  rounds is widened to its dtype's limit (a list's union to unknown), then the result is checked to be an
  invariant (the body maps it into itself) before it is used, and narrowed once if the narrower candidate is an
  invariant too. The body runs only while its condition holds, so ``i < n`` bounds ``i`` in the body by
  ``n``'s highest value. A loop's outputs get the loop variables' invariant;
- **branches**: an ``If``'s outputs are the union of its two branches' (the condition is not used: a small
  branch is compiled to run whether or not its condition holds, and a select picks).

Why it is sound: every fact is an over-approximation of the values the numpy executor's kernels can produce
(and XLA's lowering of them: the same values, or a run-time check fails first and the call is rerun on the
numpy executor). Each rule is monotone, no rule claims a range narrower than its dtype's unless derived from its
inputs' facts, a loop's facts are used only once checked to be an invariant, and a graph analyzed in several
places (a loop body in each round, a graph of two ops) gets the union of its facts there. Facts relying on a
static shape (an argmax's axis length) name the tensor, and the lowering checks that its value has that shape.

>>> import runtime as rt
>>> @rt.function
... def f(x):
...     return rt.argmax(x, output_type=rt.int32) + 1
>>> graph = f.get_concrete_function(rt.TensorSpec([5], rt.float32)).graph
>>> analyze(graph, [None]).known(graph.outputs[0])
(1, 5)
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from runtime.core.dtypes import variant
from runtime.backends.xla.loop_bounds import conjuncts
from runtime.ops.array_ops import EXPAND_DIMS, RESHAPE, SQUEEZE, TILE, TRANSPOSE
from runtime.ops.cast_op import CAST
from runtime.ops.combine_ops import CONCAT, SELECT, STACK
from runtime.ops.control_flow_ops import IF, WHILE
from runtime.ops.core import CONST, IDENTITY, PLACEHOLDER
from runtime.ops.creation_ops import FILL, ONES_LIKE, RANGE, ZEROS_LIKE
from runtime.ops.gradient_ops import BROADCAST_TO, STOP_GRADIENT
from runtime.ops.indexing import GATHER, STRIDED_SLICE
from runtime.ops.list_gradients import TENSOR_LIST_INSERT, TENSOR_LIST_ZEROS_LIKE
from runtime.ops.list_ops import (TENSOR_LIST_CONCAT, TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_FROM_TENSORS,
                                  TENSOR_LIST_GET_ITEM, TENSOR_LIST_LENGTH, TENSOR_LIST_POP, TENSOR_LIST_PUSH_BACK,
                                  TENSOR_LIST_SET_ITEM, TENSOR_LIST_STACK)
from runtime.ops.manipulation_ops import CLIP_BY_VALUE, MIRROR_PAD, ONE_HOT, PAD, REVERSE
from runtime.ops.math_ops import (ADD, FLOOR_DIV, FLOOR_MOD, GREATER, GREATER_EQUAL, LESS, LESS_EQUAL, MAXIMUM,
                                  MINIMUM, MUL, SUB)
from runtime.ops.scatter_ops import GATHER_ND
from runtime.ops.shape_ops import RANK, SHAPE, SIZE
from runtime.ops.sort_ops import ARG_SORT, SORT, TOP_K
from runtime.ops.split_ops import SPLIT, UNSTACK
from runtime.ops.reduction_ops import ARG_MAX, ARG_MIN
from runtime.ops.tensor_array_ops import TENSOR_LIST_GATHER, TENSOR_LIST_RESERVE, TENSOR_LIST_SCATTER, TENSOR_LIST_SPLIT
from runtime.ops.unary_ops import ABS, NEG, SIGN

# A fact: (lowest, highest) of an integer (or bool) tensor's elements or of the integers a list holds; EMPTY
# when there are none (a list nothing was put into; a loop body whose condition never holds); None when nothing
# is known (a float tensor; a list of unknown contents). An integer tensor's fact is never None: at worst its
# dtype's whole range.
Fact = Optional[Tuple[int, ...]]
EMPTY: Tuple[int, ...] = ()
LOOP_ROUNDS = 4   # rounds of a loop's fixed point before its still-moving bounds are widened


def dtype_range(dtype: Any) -> Fact:
    """The whole range of an integer or bool dtype; None for any other."""
    whole = _whole(dtype)
    return None if whole is _LIST else whole


def _whole(dtype: Any) -> Any:
    """``dtype_range``, or _LIST for a list (variant), cached (np.iinfo costs microseconds: asked of every tensor)."""
    whole = _DTYPE_RANGES.get(dtype, _UNSEEN)
    if whole is _UNSEEN:
        kind = np.dtype(dtype).kind
        whole = (0, 1) if kind == "b" else (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)) if kind in "iu" \
            else None
        _DTYPE_RANGES[dtype] = whole
    return whole


_LIST, _UNSEEN = object(), object()
_DTYPE_RANGES: Dict[Any, Any] = {variant: _LIST}


def join(a: Fact, b: Fact) -> Fact:
    """The union's range."""
    if a is None or b is None:
        return None
    if a == EMPTY or b == EMPTY:
        return b if a == EMPTY else a
    return (min(a[0], b[0]), max(a[1], b[1]))


def contains(outer: Fact, inner: Fact) -> bool:
    """Whether every value ``inner`` allows, ``outer`` allows."""
    if outer is None or inner == EMPTY:
        return True
    if inner is None or outer == EMPTY:
        return False
    return outer[0] <= inner[0] and inner[1] <= outer[1]


def _fitted(fact: Fact, tensor: Any) -> Fact:
    """``fact`` for ``tensor``: its dtype's whole range when ``fact`` says nothing or does not fit the dtype (the
    value could have wrapped around); None for tensors that are neither integers nor lists."""
    whole = _whole(tensor.dtype)
    if whole is _LIST:
        return fact
    if whole is None or fact == EMPTY:
        return whole if whole is None else fact
    return fact if fact is not None and contains(whole, fact) else whole


def _of_array(value: Any) -> Fact:
    array = np.asarray(value)
    if array.dtype.kind not in "biu":
        return None
    return EMPTY if array.size == 0 else (int(array.min()), int(array.max()))


# --- the rules of the ops: (op, facts of its inputs, analysis) -> facts of its outputs -------------------------
def _each_output(function: Callable[[Any, List[Fact]], Fact]) -> Callable:
    return lambda op, facts, analysis: [function(op, facts)] * len(op.outputs)


def _arithmetic(combine: Callable[[int, int], int]) -> Callable:
    """A binary op whose result is extreme at its operands' corners (monotone in each operand over the box)."""
    def rule(op, facts):
        a, b = facts[0], facts[1]
        if a is None or b is None or EMPTY in (a, b):
            return None if a is None or b is None else EMPTY
        corners = [combine(x, y) for x in a for y in b]
        return (min(corners), max(corners))
    return _each_output(rule)


def _divided(op, facts):
    a, b = facts[0], facts[1]
    if a is None or b is None or EMPTY in (a, b):
        return None if a is None or b is None else EMPTY
    if b[0] <= 0 <= b[1]:
        return None   # (a division by zero: the kernel raises; nothing is claimed)
    if op.op_def is FLOOR_DIV:   # x / d is monotone in each over a box without d == 0: so is its floor
        corners = [x // d for x in a for d in b]
        return (min(corners), max(corners))
    if b[0] > 0:   # x % d has d's sign: [0, d - 1]; and x itself when 0 <= x < d
        return (0, a[1] if a[0] >= 0 and a[1] < b[0] else b[1] - 1)
    return (b[0] + 1, 0)


def _unary(function: Callable[[Tuple[int, ...]], Fact]) -> Callable:
    def rule(op, facts):
        a = facts[0]
        return a if a is None or a == EMPTY else function(a)
    return _each_output(rule)


def _abs(a):
    if a[0] >= 0:
        return a
    return (0, max(-a[0], a[1])) if a[1] >= 0 else (-a[1], -a[0])


def _monotone(function: Callable[..., int]) -> Callable:
    """An op nondecreasing in each operand: its lowest at the operands' lowest, its highest at their highest."""
    def rule(op, facts):
        if any(f is None for f in facts):
            return None
        if any(f == EMPTY for f in facts):
            return EMPTY
        return (function(*(f[0] for f in facts)), function(*(f[1] for f in facts)))
    return _each_output(rule)


def _index_into(op, analysis, axis: Optional[int], output: int = 0):
    """An index along ``axis`` of input 0 (argmax, argsort, top_k's indices): ``[0, its length - 1]``."""
    tensor = op.inputs[0]
    shape = tensor.shape
    length = shape[axis] if shape is not None and axis is not None and -len(shape) <= axis < len(shape) else None
    if length is not None and length > 0:
        analysis.relies_on_shape(tensor)
        return (0, int(length) - 1)
    return _nonnegative(op.outputs[output])


def _nonnegative(tensor: Any) -> Fact:
    return (0, dtype_range(tensor.dtype)[1])


def _shape_rule(op, facts, analysis):
    shape = op.inputs[0].shape
    if shape is None or None in shape:
        return [_nonnegative(op.outputs[0])]
    analysis.relies_on_shape(op.inputs[0])
    if op.op_def is SHAPE:
        return [(min(shape), max(shape)) if shape else EMPTY]
    if op.op_def is SIZE:
        size = int(np.prod(shape, dtype=np.int64))
        return [(size, size)]
    return [(len(shape), len(shape))]


def _range_rule(op, facts):
    start, limit, delta = facts
    if any(f is None or f == EMPTY for f in facts):
        return None
    if delta[0] > 0:   # start, start + delta, ... < limit
        return (start[0], max(start[0], limit[1] - 1))
    if delta[1] < 0:   # ... > limit
        return (min(start[1], limit[0] + 1), start[1])
    return None


def _joined(positions: Sequence[int]) -> Callable:
    """The union of the inputs at ``positions`` (None: all of them)."""
    def rule(op, facts):
        fact: Fact = EMPTY
        for k in (positions if positions is not None else range(len(facts))):
            if k < len(facts):
                fact = join(fact, facts[k])
        return fact
    return _each_output(rule)


def _constant(low: int, high: int) -> Callable:
    return _each_output(lambda op, facts: (low, high))


def _cast(op, facts):
    # (an integer or bool source keeps its values when they fit: ``_fitted`` gives the whole range if not; a
    # float source's fact is None: the whole range)
    return facts[0]


_SAME = _joined([0])
RULES: Dict[Any, Callable] = {
    **{op: _SAME for op in (IDENTITY, STOP_GRADIENT, STRIDED_SLICE, RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, TILE,
                            REVERSE, BROADCAST_TO, GATHER, GATHER_ND, SORT, UNSTACK, SPLIT, MIRROR_PAD, CAST,
                            TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_GET_ITEM, TENSOR_LIST_POP, TENSOR_LIST_STACK,
                            TENSOR_LIST_CONCAT, TENSOR_LIST_GATHER)},
    CONCAT: _joined(None), STACK: _joined(None), TENSOR_LIST_FROM_TENSORS: _joined(None), SELECT: _joined([1, 2]),
    PAD: _joined([0, 2]), FILL: _joined([1]), ONE_HOT: _joined([2, 3]),
    TENSOR_LIST_PUSH_BACK: _joined([0, 1]), TENSOR_LIST_SET_ITEM: _joined([0, 2]),
    TENSOR_LIST_INSERT: _joined([0, 2]), TENSOR_LIST_SCATTER: _joined([0, 1]), TENSOR_LIST_SPLIT: _joined([0, 1]),
    TENSOR_LIST_RESERVE: _constant(0, 0), TENSOR_LIST_ZEROS_LIKE: _constant(0, 0), ZEROS_LIKE: _constant(0, 0),
    ONES_LIKE: _constant(1, 1), TENSOR_LIST_LENGTH: _constant(0, int(np.iinfo(np.int32).max)),
    ADD: _arithmetic(lambda x, y: x + y), SUB: _arithmetic(lambda x, y: x - y), MUL: _arithmetic(lambda x, y: x * y),
    FLOOR_DIV: _each_output(_divided), FLOOR_MOD: _each_output(_divided),
    NEG: _unary(lambda a: (-a[1], -a[0])), ABS: _unary(_abs), SIGN: _unary(lambda a: (int(np.sign(a[0])),
                                                                                   int(np.sign(a[1])))),
    MAXIMUM: _monotone(max), MINIMUM: _monotone(min),
    CLIP_BY_VALUE: _monotone(lambda t, low, high: max(min(t, high), low)),   # (the kernel's order)
    RANGE: _each_output(_range_rule),
    **{op: lambda op, facts, analysis: [_index_into(op, analysis, op.attrs.get("axis"))]
       for op in (ARG_MAX, ARG_MIN, ARG_SORT)},
    TOP_K: lambda op, facts, analysis: [facts[0], _index_into(op, analysis, -1, output=1)],
    SHAPE: _shape_rule, SIZE: _shape_rule, RANK: _shape_rule,
}
# (the tensor ops above map an integer input's values to an integer output's only when both are integers or
# bools: a float input's fact is None, so its output gets the dtype's whole range)


# --- graphs, branches and loops ----------------------------------------------------------------------------
_BOUNDED_ABOVE = {LESS: -1, LESS_EQUAL: 0}     # i < n: i <= n's highest - 1
_BOUNDED_BELOW = {GREATER: 1, GREATER_EQUAL: 0}
_MIRRORED = {LESS: GREATER, LESS_EQUAL: GREATER_EQUAL, GREATER: LESS, GREATER_EQUAL: LESS_EQUAL}


class Analysis:
    """The facts of one program's graphs (the top graph's and every branch's and loop body's in it)."""

    def __init__(self) -> None:
        self._facts: Dict[int, Tuple[Any, Fact]] = {}   # id(tensor) -> (tensor, fact): joined over each place
        self.shaped: Dict[int, Any] = {}   # id(tensor) -> tensor: facts rely on its static shape (argmax's axis)
        self._loops: Dict[tuple, List[Fact]] = {}   # (id(While), its inputs' facts) -> its outputs' (unrecorded)

    def known(self, tensor: Any) -> Optional[Tuple[int, int]]:
        """(lowest, highest) of ``tensor``'s elements when narrower than its dtype's whole range, else None."""
        entry = self._facts.get(id(tensor))
        if entry is None or entry[0] is not tensor or entry[1] is None or entry[1] == EMPTY:
            return None
        fact = entry[1]
        if tensor.dtype == variant or fact == dtype_range(tensor.dtype):
            return None
        return (fact[0], fact[1])

    def relies_on_shape(self, tensor: Any) -> None:
        self.shaped[id(tensor)] = tensor

    def graph(self, graph: Any, inputs: Sequence[Fact], recording: bool) -> List[Fact]:
        """The facts of ``graph``'s outputs given its inputs'; with ``recording``, its tensors' facts are kept
        (joined with those of the other places the graph is analyzed in)."""
        env: Dict[int, Fact] = {id(t): _fitted(f, t) for t, f in zip(graph.inputs, inputs)}
        tensors = {id(t): t for t in graph.inputs}
        for op in graph.operations:
            for tensor in op.outputs:
                tensors[id(tensor)] = tensor
            if op.op_def is PLACEHOLDER:
                env.setdefault(id(op.outputs[0]), _fitted(None, op.outputs[0]))
                continue
            facts = [env[id(t)] if id(t) in env else _fitted(None, t) for t in op.inputs]
            if op.op_def is CONST:
                outputs = [_of_array(op.attrs["value"])]
            elif op.op_def is WHILE:
                outputs = self._while(op, facts, recording)
            elif op.op_def is IF:
                branches = [self.graph(op.attrs[name], facts[1:], recording) for name in ("then_branch", "else_branch")]
                outputs = [join(a, b) for a, b in zip(*branches)]
            elif op.op_def in RULES:
                outputs = RULES[op.op_def](op, facts, self)
            else:
                outputs = [None] * len(op.outputs)
            for tensor, fact in zip(op.outputs, outputs):
                env[id(tensor)] = _fitted(fact, tensor)
        if recording:
            for key, fact in env.items():
                known = self._facts.get(key)
                self._facts[key] = (tensors[key], fact if known is None else join(known[1], fact))
        return [env.get(id(t), _fitted(None, t)) for t in graph.outputs]

    def _while(self, op: Any, facts: List[Fact], recording: bool) -> List[Fact]:
        count = op.attrs["num_loop_vars"]
        entry, captured = facts[:count], facts[count:]
        key = (id(op), tuple(facts))
        head = self._loops.get(key)
        if head is None:
            head = self._invariant(op, entry, captured)
            self._loops[key] = head
        if recording:   # the facts of the body and condition: those of the loop variables' invariant
            self.graph(op.attrs["cond"], head + captured, True)
            self.graph(op.attrs["body"], self._in_body(op, head, captured) + captured, True)
        return list(head)

    def _step(self, op: Any, head: List[Fact], captured: List[Fact]) -> List[Fact]:
        """The loop variables' facts after one more iteration from ``head``, joined with ``head``."""
        outputs = self.graph(op.attrs["body"], self._in_body(op, head, captured) + captured, False)
        return [join(h, o) for h, o in zip(head, outputs[:len(head)])]

    def _invariant(self, op: Any, entry: List[Fact], captured: List[Fact]) -> List[Fact]:
        """Facts of the loop variables that hold when the loop starts and that one iteration keeps (checked)."""
        head = list(entry)
        body = op.attrs["body"]
        for round_ in range(LOOP_ROUNDS + len(head) + 1):
            after = self._step(op, head, captured)
            if all(contains(h, a) for h, a in zip(head, after)):   # an invariant: narrow it once, if that holds
                narrower = [join(e, a) for e, a in
                            zip(entry, self.graph(body, self._in_body(op, head, captured) + captured, False))]
                if narrower != head and all(contains(n, a) for n, a in zip(narrower,
                                                                        self._step(op, narrower, captured))):
                    return narrower
                return head
            if round_ >= LOOP_ROUNDS:   # still growing: its moving bounds go to the dtype's limits
                after = [a if contains(h, a) else _widened(h, a, t) for h, a, t in zip(head, after, body.inputs)]
            head = after
        return [_fitted(None, t) for t in body.inputs[:len(entry)]]

    def _in_body(self, op: Any, head: List[Fact], captured: List[Fact]) -> List[Fact]:
        """``head`` where the body runs: the condition holds, so its terms ``i < n`` (``>``, ``<=``, ``>=``)
        bound a loop variable ``i`` by ``n``'s range."""
        cond = op.attrs["cond"]
        inside = list(head)
        terms = [term for term in conjuncts(cond.outputs[0]) if term.op.op_def in _MIRRORED]
        facts = self._facts_in(cond, head + captured) if terms else {}   # (what the limits can be)
        for term in terms:
            comparison = term.op.op_def
            left, right = term.op.inputs
            for variable, limit, compared in ((left, right, comparison), (right, left, _MIRRORED[comparison])):
                k = next((j for j, p in enumerate(cond.inputs[:len(head)]) if p is variable), None)
                bound = facts.get(id(limit))
                if k is None or bound is None or bound == EMPTY or inside[k] is None or inside[k] == EMPTY:
                    continue
                low, high = inside[k]
                if compared in _BOUNDED_ABOVE:
                    high = min(high, bound[1] + _BOUNDED_ABOVE[compared])
                else:
                    low = max(low, bound[0] + _BOUNDED_BELOW[compared])
                inside[k] = (low, high) if low <= high else EMPTY
        return inside

    def _facts_in(self, graph: Any, inputs: List[Fact]) -> Dict[int, Fact]:
        """{id(tensor): fact} of ``graph``'s tensors (not recorded)."""
        scratch = Analysis()
        scratch.shaped, scratch._loops = self.shaped, self._loops
        scratch.graph(graph, inputs, True)
        return {key: fact for key, (_, fact) in scratch._facts.items()}


def _widened(old: Fact, new: Fact, tensor: Any) -> Fact:
    """``new`` with each bound that moved past ``old``'s at its dtype's limit (a list's union: nothing known)."""
    whole = _fitted(None, tensor)
    if whole is None or old is None or new is None or old == EMPTY:
        return whole
    return (new[0] if new[0] >= old[0] else whole[0], new[1] if new[1] <= old[1] else whole[1])


def analyze(graph: Any, inputs: Sequence[Any]) -> Analysis:
    """The facts of ``graph`` (and the graphs in it) when its inputs are ``inputs``: numpy arrays known when
    compiling give their own range; anything else (a JAX tracer, None) its dtype's."""
    analysis = Analysis()
    analysis.graph(graph, [_of_array(v) if isinstance(v, (np.ndarray, np.generic)) else None for v in inputs], True)
    return analysis
