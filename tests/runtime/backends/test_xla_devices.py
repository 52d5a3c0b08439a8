"""rt.distribute.data_parallel on 8 simulated CPU devices (a subprocess: XLA_FLAGS must be set before JAX starts):
a training step over 8 devices gives one device's weights, and the numpy executor's."""
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("jax")
ROOT = pathlib.Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent('''
    import json
    import numpy as np
    import jax
    import autograph_lite as ag
    import runtime as rt

    assert len(jax.devices()) == 8, jax.devices()
    rng = np.random.default_rng(0)
    x = rt.constant(rng.normal(size=(64, 4)).astype(np.float32))
    y = rt.constant(rng.normal(size=(64, 2)).astype(np.float32))

    def train(placement):
        w = rt.Variable(np.full((4, 2), 0.1, np.float32))
        b = rt.Variable(np.zeros((2,), np.float32))
        optimizer = rt.optimizers.Adam(learning_rate=0.05)

        @ag.function
        def step(x, y):
            with rt.GradientTape() as tape:
                loss = rt.reduce_mean(rt.square(rt.matmul(x, w) + b - y))
            optimizer.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
            return loss
        run = step if placement == "numpy" else rt.distribute.data_parallel(step, placement)
        losses = [float(run(x, y)) for _ in range(10)]
        ir = "" if placement == "numpy" else run.experimental_get_compiler_ir(x, y)
        return {"losses": losses, "w": w.numpy().tolist(), "b": b.numpy().tolist(),
                "partitions": ir.count("mhlo.num_partitions = 8")}

    print(json.dumps({"eight": train(None), "one": train(jax.devices()[:1]), "numpy": train("numpy")}))
''')


def test_a_training_step_over_eight_devices_gives_one_devices_weights(tmp_path):
    script = tmp_path / "eight_devices.py"   # a file, so that ag.function can read the step's source
    script.write_text(SCRIPT)
    environment = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=8", PYTHONPATH=str(ROOT),
                       JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=environment,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    import json
    import numpy as np
    result = json.loads(done.stdout.strip().splitlines()[-1])
    eight, one, numpy_run = result["eight"], result["one"], result["numpy"]
    assert eight["partitions"] == 1 and one["partitions"] == 0   # compiled for 8 devices, and for one
    for other in (one, numpy_run):   # the all-reduce adds partial sums in another order: float32 rounding only
        np.testing.assert_allclose(eight["w"], other["w"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(eight["b"], other["b"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(eight["losses"], other["losses"], rtol=1e-5)
    assert eight["losses"][-1] < eight["losses"][0]
