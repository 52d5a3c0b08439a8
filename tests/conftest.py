"""Suite-wide checks. Every function any test converts: its to_code output must compile on its own
(bug class 2: generated code that was not valid Python). Every test starts and ends in graph mode (a
test that switches to eager execution cannot leak it into the next). Every first call of a concrete function that the
reference interpreter runs (runtime/tracing/concrete_function.py) is also run compiled: both must agree."""
import pathlib
import sys

import pytest

import runtime as rt
from autograph_lite import conversion
from runtime.tracing import concrete_function

# tests/ has rooms (tests/<room>/, shared helpers in tests/support/); the tests import the helpers, and some
# each other, by module name as when the directory was flat: every room is on the path.
_TESTS = pathlib.Path(__file__).resolve().parent
for _room in ['api', 'converters', 'differential', 'gradients', 'operators', 'programs', 'project', 'pyct', 'runtime/backends', 'runtime/ops', 'runtime/passes', 'runtime/saving', 'runtime/tracing', 'support']:
    if str(_TESTS / _room) not in sys.path:
        sys.path.insert(0, str(_TESTS / _room))


def compile_to_code_output(entity, converted) -> None:
    """Compile what ``ag.to_code(entity)`` shows; free variables become parameters of an enclosing
    def, so that ``nonlocal`` declarations of a nested function have something to refer to."""
    freevars = [name for name in entity.__code__.co_freevars if name != 'ag__']
    body = converted.source if entity.__code__.co_name != '<lambda>' else f'return {converted.source}'
    indented = ''.join(f'    {line}\n' if line else '\n' for line in body.rstrip('\n').split('\n'))
    compile(f'def enclosing({", ".join(freevars)}):\n{indented}', f'<to_code of {entity.__qualname__}>', 'exec')


@pytest.fixture(autouse=True, scope='session')
def every_conversion_compiles():
    conversion.conversion_observers.append(compile_to_code_output)
    yield
    conversion.conversion_observers.remove(compile_to_code_output)


@pytest.fixture(autouse=True, scope='session')
def every_interpreted_first_call_matches_the_executor():
    concrete_function.check_first_calls = True
    yield
    concrete_function.check_first_calls = False


@pytest.fixture(autouse=True)
def graph_mode():
    rt.run_functions_eagerly(False)
    yield
    rt.run_functions_eagerly(False)
