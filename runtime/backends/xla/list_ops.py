"""Tensor lists and TensorArrays under ``jit_compile=True``.

XLA has no growable values: a list whose length changes in a loop would need a preallocated buffer of its
largest size. Until that lowering exists, every list op says so (a LoweringError naming the op and the fix:
build the result with ``rt.stack`` of a fixed number of values, or write into a preallocated tensor with
``x[i] = v``), and ``jit_compile="auto"`` runs such graphs on the numpy executor.
"""
from __future__ import annotations

from runtime.backends.xla.table import NOT_LOWERED
from runtime.ops.list_gradients import (
                                        TENSOR_LIST_ADD_N,
                                        TENSOR_LIST_INSERT,
                                        TENSOR_LIST_RESIZE,
                                        TENSOR_LIST_SCATTER_ADD,
                                        TENSOR_LIST_SPLIT_LIKE,
                                        TENSOR_LIST_ZEROS_LIKE,
)
from runtime.ops.list_ops import (
                                        TENSOR_LIST_CONCAT,
                                        TENSOR_LIST_FROM_TENSOR,
                                        TENSOR_LIST_FROM_TENSORS,
                                        TENSOR_LIST_GET_ITEM,
                                        TENSOR_LIST_LENGTH,
                                        TENSOR_LIST_POP,
                                        TENSOR_LIST_PUSH_BACK,
                                        TENSOR_LIST_SET_ITEM,
                                        TENSOR_LIST_STACK,
)
from runtime.ops.tensor_array_ops import (
                                        TENSOR_LIST_GATHER,
                                        TENSOR_LIST_RESERVE,
                                        TENSOR_LIST_SCATTER,
                                        TENSOR_LIST_SPLIT,
)

_LISTS = ("a tensor list (a Python list appended to under a tensor condition or loop, or a TensorArray) has no "
          "XLA form yet; collect a fixed number of values with rt.stack, or preallocate the result "
          "(rt.zeros([n, ...])) and write x[i] = v in the loop, or use jit_compile='auto' to run this graph on "
          "the numpy executor")
NOT_LOWERED.update({op_def: _LISTS for op_def in (
    TENSOR_LIST_FROM_TENSORS, TENSOR_LIST_FROM_TENSOR, TENSOR_LIST_PUSH_BACK, TENSOR_LIST_POP, TENSOR_LIST_GET_ITEM,
    TENSOR_LIST_SET_ITEM, TENSOR_LIST_LENGTH, TENSOR_LIST_STACK, TENSOR_LIST_CONCAT, TENSOR_LIST_RESERVE,
    TENSOR_LIST_GATHER, TENSOR_LIST_SCATTER, TENSOR_LIST_SPLIT, TENSOR_LIST_ZEROS_LIKE, TENSOR_LIST_ADD_N,
    TENSOR_LIST_SCATTER_ADD, TENSOR_LIST_INSERT, TENSOR_LIST_RESIZE, TENSOR_LIST_SPLIT_LIKE)})
