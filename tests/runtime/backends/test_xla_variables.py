"""jit_compile=True keeps Variables on the device between compiled calls (runtime/ops/variables.py, Variable._state):
whoever reads or writes them in between (eager code, the numpy executor, another compiled function, a thread,
saving) sees and leaves exactly the values the numpy executor would."""
import threading

import numpy as np
import pytest

import autograph_lite as ag
import runtime as rt

jax = pytest.importorskip("jax")


def mixed_sequence(jit_compile):
    """A training step with an optimizer slot (SGD momentum) interleaved with every other way of reading and
    writing its Variables. Every value is a small dyadic fraction: exact in float32 on both executors."""
    w = rt.Variable([1.0, 2.0], name="w")
    counter = rt.Variable(0, name="counter")
    optimizer = rt.optimizers.SGD(learning_rate=0.5, momentum=0.5)
    x = rt.constant([0.5, -0.25])

    @ag.function(jit_compile=jit_compile)
    def step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(w * x)
        optimizer.apply_gradients([(tape.gradient(loss, w), w)])
        counter.assign_add(1)
        return loss

    numpy_read = ag.function(lambda: w * 2.0 + rt.cast(counter, rt.float32))     # the numpy executor
    numpy_write = ag.function(lambda: w.assign_add([0.25, 0.25]))

    seen = [step(x), w.numpy(), counter.numpy()]
    seen += [numpy_read(), step(x), w + 1.0, np.asarray(w).copy(), repr(w)]
    w.assign([4.0, 8.0])                                   # eager, between two compiled calls
    seen += [step(x), w.read_value(), optimizer._slot(w, "momentum").numpy()]
    numpy_write()
    seen += [step(x), w.numpy()]
    counter.assign_add(10)
    seen += [step(x), step(x), counter.numpy(), numpy_read()]
    with rt.GradientTape() as tape:                        # an eager tape reading the step's result
        eager_loss = rt.reduce_sum(w * w)
    seen += [eager_loss, tape.gradient(eager_loss, w), optimizer._slot(w, "momentum").numpy()]
    return [s if isinstance(s, str) else np.asarray(s) for s in seen]


def test_compiled_steps_eager_code_and_the_numpy_executor_see_each_others_writes_exactly():
    expected, got = mixed_sequence(None), mixed_sequence(True)
    assert len(expected) == len(got)
    for index, (e, g) in enumerate(zip(expected, got)):
        if isinstance(e, str):
            assert g == e, index
        else:
            assert (e.dtype, e.shape) == (g.dtype, g.shape), index
            np.testing.assert_array_equal(g, e, err_msg=f"entry {index}")
    assert got[-5].tolist() == 16   # the counter: 5 compiled steps + 10 assigned eagerly + 1 more step


def test_a_compiled_step_keeps_its_weights_on_the_device_until_something_else_reads_them():
    w = rt.Variable(np.ones((3, 2), np.float32))
    step = ag.function(lambda: w.assign_add(rt.ones((3, 2))), jit_compile=True)
    step()
    step()
    host, device, _ = w._state
    assert host is None and isinstance(device, jax.Array)   # no copy to numpy after the call
    assert (w.dtype, tuple(w.shape)) == (np.float32, (3, 2)) and w._state[0] is None   # nor for dtype/shape
    before = device
    step()
    assert w._state[1] is not before   # the new value, read from and written back to the device
    value = w.numpy()
    assert value.tolist() == [[4.0, 4.0]] * 3 and w._state[0] is not None and w._state[1] is not None
    value[0, 0] = 100.0                # .numpy() is the caller's copy
    assert np.asarray(w)[0, 0] == 4.0
    assert not np.asarray(w).flags.writeable   # the shared view of the device value is read-only
    w.assign(np.zeros((3, 2), np.float32))      # an eager write replaces both
    assert w._state[1] is None
    step()
    assert w.numpy().tolist() == [[1.0, 1.0]] * 3


def test_a_function_on_one_device_and_one_on_a_mesh_share_a_variable():
    v = rt.Variable(np.arange(4.0, dtype=np.float32))
    add = ag.function(lambda x: v.assign_add(x), jit_compile=True)
    on_mesh = rt.distribute.data_parallel(ag.function(lambda x: v.assign_add(x * 2.0)), jax.devices()[:1])
    one = rt.constant(np.ones(4, np.float32))
    for _ in range(2):
        add(one)
        on_mesh(one)
        v.assign_add([0.5, 0.5, 0.5, 0.5])
    assert v.numpy().tolist() == [7.0, 8.0, 9.0, 10.0]


def test_saving_after_compiled_steps_saves_their_values(tmp_path):
    v = rt.Variable([1.0, 2.0])

    @ag.function(jit_compile=True)
    def bump(x):
        v.assign_add(x)
        return v * 1.0
    bump(rt.constant([1.0, 1.0]))
    bump(rt.constant([1.0, 1.0]))
    rt.save(bump, tmp_path / "bump")
    loaded = rt.load(tmp_path / "bump")
    assert loaded(rt.constant([0.0, 0.0])).numpy().tolist() == [3.0, 4.0]


def test_reads_racing_compiled_and_eager_writes_never_see_an_update_undone():
    # A read of a Variable last written by a compiled call makes its numpy array; it must not bring back an old
    # value over a write that came in meanwhile. Every thread's reads only grow, and no increment is lost.
    counter = rt.Variable(0.0)
    compiled = ag.function(lambda: counter.assign_add(1.0), jit_compile=True)
    numpy_read = ag.function(lambda: counter * 1.0)
    compiled()
    steps, failures = 150, []

    def write(kind):
        for _ in range(steps):
            compiled() if kind == "compiled" else counter.assign_add(1.0)

    def read(kind):
        last = -1.0
        for _ in range(steps):
            value = float(counter.numpy() if kind == "eager" else numpy_read())
            if value < last:
                failures.append((kind, last, value))
            last = value

    threads = [threading.Thread(target=write, args=(kind,)) for kind in ("compiled", "compiled", "eager")]
    threads += [threading.Thread(target=read, args=(kind,)) for kind in ("eager", "numpy")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert counter.numpy() == 1 + 3 * steps


def test_a_compiled_call_reading_a_variable_another_call_holds_does_not_wait_for_it():
    # A compiled call holds the locks of the Variables it writes (v) while it reads the others (w). Another call
    # writing both may hold w's lock and wait for v's: so a read of w that copies it to the device must not wait
    # for w's lock to keep that copy (it deadlocked). Here this thread holds w's lock as that call would.
    v, w = rt.Variable(0.0), rt.Variable(0.0)
    a = ag.function(lambda: v.assign_add(w + 1.0), jit_compile=True)
    a()
    w.assign(2.0)   # eagerly: a's next call copies w to the device
    done = threading.Event()
    with w._lock:
        threading.Thread(target=lambda: (a(), done.set()), daemon=True).start()
        assert done.wait(timeout=20), "the compiled call waited for a lock it does not need"
    assert v.numpy() == 1.0 + 3.0
    a()
    assert v.numpy() == 1.0 + 3.0 + 3.0


@pytest.mark.parametrize("jit_compile", [None, True])
@pytest.mark.parametrize("method, initial, value", [("assign", [0.0, 1.0, 2.0], [1.0, 1.0]),
                                                    ("assign", [0.0, 1.0, 2.0], [7.0]),
                                                    ("assign_add", [5.0], [1.0, 2.0, 3.0]),
                                                    ("assign_sub", [5.0], [1.0, 2.0])])
def test_a_value_of_another_shape_known_only_when_written_never_changes_a_variables_shape(jit_compile, method,
                                                                                          initial, value):
    # With the value's shape left unknown when traced ([None] signatures), the variable became [1.0, 1.0], [7.0] or
    # [6.0, 7.0, 8.0] on both executors, silently: a variable's shape cannot change (the error a known shape gets
    # when traced)
    weights = rt.Variable(np.array(initial, np.float32), name="weights")

    def write(x):
        getattr(weights, method)(x)
        return weights.read_value() * 2.0

    write_it = rt.function(write, input_signature=[rt.TensorSpec([None])], jit_compile=jit_compile)
    with pytest.raises(rt.errors.InvalidArgumentError, match=rf"Variable 'weights'.{method}\(\): the value has shape "
                                                             rf"\({len(value)},\) but the variable has shape "
                                                             rf"\({len(initial)},\); a variable's shape cannot change"):
        write_it(np.array(value, np.float32))
    assert weights.numpy().tolist() == initial
    written = write_it(np.ones(len(initial), np.float32)).numpy().tolist()
    assert written == {"assign": [2.0] * len(initial), "assign_add": [12.0], "assign_sub": [8.0]}[method]
