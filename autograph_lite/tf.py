"""TensorFlow's names over autograph_lite and runtime: port a program by changing one import.

``import tensorflow as tf`` becomes ``from autograph_lite import tf``. Every name comes from the table in
``autograph_lite/tf_api.py``: a supported name is ours (``tf.function``, ``tf.GradientTape``, ``tf.Module``,
``tf.math.reduce_std``, ``tf.saved_model.save``, ``tf.keras.optimizers.Adam``, ...); a TensorFlow name we do
not have raises ``AttributeError`` saying why and what to write instead. Nothing else is reachable.

>>> from autograph_lite import tf
>>> @tf.function
... def my_relu(x):
...     return tf.maximum(0., x)
>>> my_relu(tf.constant([1., -1.]))
Tensor([1. 0.], shape=(2,), dtype=float32)
>>> tf.executing_eagerly()
True
>>> tf.keras.layers  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
AttributeError: tf.keras.layers is TensorFlow's, but autograph_lite's tf shim does not support it: Keras layers ...
"""
from autograph_lite import tf_shim as _shim

globals().update(_shim.members("tf"))
__getattr__, __dir__ = _shim.module_hooks("tf")
del _shim
