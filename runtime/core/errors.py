"""Errors the runtime raises on behalf of the user's program.

Each one carries a message that names the op or value at fault and, where possible, how to fix it.
"""
from typing import Callable, List


class RuntimeLiteError(Exception):
    """Base class of the errors below."""


class InvalidArgumentError(RuntimeLiteError, ValueError):
    """A kernel or an assert rejected its data at run time (e.g. gather index out of range).

    The message starts with the failing node's name, like ``GatherV2: indices[0] = 1 is not in [0, 1)``.
    """


class OperatorNotAllowedInGraphError(TypeError):
    """A symbolic tensor was used where Python needs a concrete value (``bool()``, ``len()``, iteration)."""


class InaccessibleTensorError(RuntimeLiteError, ValueError):
    """A symbolic tensor is used outside the graph that made it (e.g. it escaped a loop body in a list)."""


class StateError(TypeError):
    """Branches of a ``cond`` or the iterations of a ``while_loop`` disagree on a value's structure/dtype/shape."""


class SaveError(RuntimeLiteError, ValueError):
    """A function cannot be saved (e.g. an attr or argument that has no safe on-disk form)."""


class LoadError(RuntimeLiteError, ValueError):
    """A saved function cannot be loaded: damaged or edited files, unknown op, wrong format version."""


class ExportError(RuntimeLiteError, ValueError):
    """A graph cannot be exported (e.g. to ONNX): the message names the ops that have no mapping."""


class LoweringError(RuntimeLiteError, ValueError):
    """A graph cannot be compiled with ``jit_compile=True`` (e.g. a shape known only at run time, which XLA
    needs when compiling): the message names the op, why, and what to do instead."""


class GradientError(RuntimeLiteError, LookupError):
    """A gradient cannot be computed: an op between the sources and the target has no gradient rule, or
    its gradient is not implemented yet. The message names the op and what to do."""


class StagedExceptionError(BaseException):
    """A Python exception was raised while a branch or loop body that depends on a tensor was being traced.

    A graph cannot raise a Python exception on some values only, so it is raised while tracing, for every
    value. Inside the trace it is this BaseException, not the exception itself, so that an ``except`` or
    ``contextlib.suppress`` around the tensor-dependent ``if``/loop (or around a call of a function traced
    into the same graph) cannot take it for the exception happening: the graph would then be built from the
    handler's path, for every value (a silently wrong result). ``original`` is the exception (also the
    ``__cause__``); ``note`` says where and why it was raised while tracing.

    You do not see it outside a trace: when it leaves the last trace (``rt.function``/``ag.function`` calls,
    ``get_concrete_function``, saving), the original is raised in its place, with ``note`` added to it, so
    ``except ValueError`` or ``except Exception`` in the calling program catches it as TensorFlow's would.
    You see it only when you build a graph yourself (``context.graph_scope``) and call converted code in it.
    """

    def __init__(self, message: str, original: "BaseException | None" = None, note: str = ""):
        super().__init__(message)
        self.original = original
        self.note = note


# What the boundaries of the library (error locations, traceback filtering) handle on its way out.
USER_FACING = (Exception, StagedExceptionError)


class RetraceWarning(UserWarning):
    """A ``Function`` traced on most of its recent calls: its graphs are not being reused (the message says
    which argument changed and how to avoid it). Filter it with ``warnings.filterwarnings``; assert it with
    ``pytest.warns(rt.RetraceWarning)``."""


# --- messages in the user's words --------------------------------------------------------------------------
# A message that says what to write names our API ``rt.<name>``. A front end that users call by other names
# (autograph_lite's tf shim: ``tf.<name>``) adds a speller here, ``speller(message) -> message``, which
# respells the message when the user's code that is running calls us through it. Its own entry points
# respell what they raise; this reaches what is called on a tensor itself (``x + y``, ``x[i]``,
# ``v.assign(...)``), which passes through no entry point of the front end.
message_spellers: List[Callable[[str], str]] = []


def in_users_words(message: str) -> str:
    """``message`` with our API spelled as the running user code spells it (as written, unless a front end
    respells it).

    >>> in_users_words("convert one with rt.cast(value, rt.int32)")
    'convert one with rt.cast(value, rt.int32)'
    """
    for speller in message_spellers:
        message = speller(message)
    return message
