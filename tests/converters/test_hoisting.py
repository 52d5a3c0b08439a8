"""Body functions move out of loop bodies when they use none of the body's locals (converters/hoisting.py):
the generated code says so, and the converted function still computes what the original does."""
import autograph_lite as ag
import runtime as rt

COUNTER = 0


def collatz_steps(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def test_helpers_of_an_if_in_a_while_are_defined_once_before_the_loop_body():
    code = ag.to_code(collatz_steps)
    assert ('    def loop_body():\n        nonlocal n, steps\n'
            "        ag__.if_stmt(n % 2 == 0, if_body, else_body, get_state_1, set_state_1, ('n',), 1)\n"
            '        steps += 1\n') in code
    for helper in ('get_state_1', 'set_state_1', 'if_body', 'else_body'):
        assert f'\n    def {helper}(' in code   # one indentation level: the function's own scope
    assert [ag.to_graph(collatz_steps)(n) for n in range(1, 30)] == [collatz_steps(n) for n in range(1, 30)]


def first_multiple(items, k):
    found = -1
    for item in items:
        if item % k == 0 and item > 0:
            found = item
            break
    return found


def test_a_helper_reading_the_for_element_stays_in_the_loop_body():
    code = ag.to_code(first_multiple)
    body = code[code.index('    def loop_body(item):'):]
    assert '        def if_body():\n            nonlocal break_, found\n            found = item\n' in body
    assert '\n    def get_state_1():' in code and '\n    def else_body():' in code
    items = list(range(-5, 40))
    assert [ag.to_graph(first_multiple)(items, k) for k in (1, 7, 100)] == [first_multiple(items, k) for k in (1, 7, 100)]


def nested_loops(rows):
    total = 0
    for row in rows:
        scale = 1
        for value in row:
            if value > 2:
                scale += 1
            total += value * scale
    return total


def test_helpers_move_up_as_far_as_their_names_allow():
    code = ag.to_code(nested_loops)
    # The inner if reads only `scale` (a local of the outer loop body): it stops in the outer body.
    outer = code[code.index('    def loop_body(row):'):]
    assert '        def if_body():\n            nonlocal scale\n            scale += 1\n' in outer
    rows = [[1, 3, 5], [], [4, 0, 2, 9]]
    assert ag.to_graph(nested_loops)(rows) == nested_loops(rows)


def bump_global(n):
    global COUNTER
    for i in range(n):
        if i % 2:
            COUNTER += i
    return COUNTER


def test_a_global_rebound_in_a_loop_stays_global():
    global COUNTER
    COUNTER = 0
    expected = bump_global(7)
    COUNTER = 0
    assert ag.to_graph(bump_global)(7) == expected == 9
    assert COUNTER == 9


def with_inner_function(xs):
    out = []
    for x in xs:
        def twice(v):
            if v > 0:
                return v * 2
            return v
        out.append(twice(x))
    return out


def test_helpers_never_leave_a_users_function():
    code = ag.to_code(with_inner_function)
    twice = code[code.index('        def twice(v):'):]
    assert 'def if_body():' in twice.split('\n    ag__.for_stmt')[0]
    assert ag.to_graph(with_inner_function)([3, -1, 0]) == with_inner_function([3, -1, 0]) == [6, -1, 0]


def test_hoisted_helpers_stage_the_same_graph():
    def count_down(n):
        steps = rt.constant(0)
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    staged = ag.function(count_down)
    assert [int(staged(rt.constant(n)).numpy()) for n in (1, 6, 27)] == [collatz_steps(n) for n in (1, 6, 27)]
    assert staged.experimental_get_tracing_count() == 1
