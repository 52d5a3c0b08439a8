"""The ``tf`` shim's table: TensorFlow's public names that ``tf.function``-era code uses, per namespace.

Each name is either ``Supported`` (by which object of ours, written ``"rt.math.erf"``, ``"ag.to_code"``,
``"shim.function"`` for ``autograph_lite.tf_shim``, ``"keras.mse"`` for ``autograph_lite.tf_keras``,
``"module.Module"`` for ``autograph_lite.tf_module``; ``"namespace"`` for a namespace listed in the table
under its own path, e.g. ``tf.keras.losses``) or ``Unsupported`` (why, and what to write instead).
``autograph_lite.tf`` is built from this table and nothing else: a supported name is that object, an
unsupported one raises ``AttributeError`` with the reason and the alternative, and a name the table does
not know raises ``AttributeError`` too. ``tests/api/test_tf_api.py`` checks the table against the shim both
ways. Namespaces named after a class (``tf.GradientTape``, ``tf.Variable``, ...) list its members.

>>> math = TABLE["tf.math"]
>>> math.get("reduce_std")
Supported(target='rt.math.reduce_std')
>>> math.get("bessel_i0").reason
"the runtime's op registry has no such op yet"
"""
from typing import Dict, NamedTuple, Union


class Supported(NamedTuple):
    """The name is ours: ``target`` says which object (``"rt.reduce_sum"``, ``"shim.function"``, ...)."""
    target: str


class Unsupported(NamedTuple):
    """The name is TensorFlow's and not ours: why, and what to write instead."""
    reason: str
    alternative: str


Entry = Union[Supported, Unsupported]
NAMESPACE = "namespace"   # the target of a name that is a namespace of the table (tf.math, tf.keras.losses, ...)
TABLE: Dict[str, Dict[str, Entry]] = {}


def _supported(namespace: str, names: str, source: str) -> None:
    """Each of ``names`` is ``source.<same name>``."""
    for name in names.split():
        TABLE.setdefault(namespace, {})[name] = Supported(f"{source}.{name}")


def _namespaces(namespace: str, names: str) -> None:
    """Each of ``names`` is a namespace of its own, listed in the table under ``namespace.name``."""
    for name in names.split():
        TABLE.setdefault(namespace, {})[name] = Supported(NAMESPACE)


def _as(namespace: str, name: str, target: str) -> None:
    TABLE.setdefault(namespace, {})[name] = Supported(target)


def _unsupported(namespace: str, names: str, reason: str, alternative: str) -> None:
    for name in names.split():
        TABLE.setdefault(namespace, {})[name] = Unsupported(reason, alternative)


_NO_KERNEL = "the runtime's op registry has no such op yet"
_KERAS = ("Keras layers and models are out of scope: the shim covers code written around tf.function "
          "(tensors, ops, control flow, GradientTape, Variables, optimizers)")
_KERAS_INSTEAD = ("hold the weights in tf.Variables of a tf.Module and write the layer's math with tf ops; "
                  "train with tf.GradientTape and tf.keras.optimizers.SGD/Adam")

# ==== tf ==================================================================================================
_supported("tf", """abs add argmax argmin argsort as_dtype broadcast_to cast clip_by_value concat cond constant
           convert_to_tensor cos cumsum divide einsum equal exp expand_dims eye fill floor gather gather_nd
           gradients greater greater_equal identity is_tensor less less_equal logical_and logical_not logical_or
           matmul maximum minimum multiply name_scope negative norm not_equal one_hot ones ones_like pad pow
           print range rank reduce_all reduce_any reduce_logsumexp reduce_max reduce_mean reduce_min reduce_prod
           reduce_sum repeat reshape reverse round scatter_nd shape sigmoid sign sin size sort split sqrt square
           squeeze stack stop_gradient subtract tanh tensor_scatter_nd_add tensor_scatter_nd_update tile
           transpose unique unique_with_counts unstack where while_loop zeros zeros_like
           Tensor TensorSpec TensorShape TensorArray Variable GradientTape newaxis
           float16 float32 float64 int8 int16 int32 int64 uint8 bool""", "rt")
_as("tf", "double", "rt.float64")
_as("tf", "half", "rt.float16")
_as("tf", "truediv", "rt.math.truediv")
_supported("tf", "Assert assert_equal assert_greater assert_less", "rt.debugging")
_supported("tf", "function executing_eagerly inside_function get_static_value DType __version__", "shim")
_namespaces("tf", "math nn linalg random config autograph debugging dtypes errors saved_model keras")
_as("tf", "Module", "module.Module")

_unsupported("tf", "acos acosh asin asinh atan atan2 atanh cosh sinh tan", _NO_KERNEL,
             "write it with tf.exp, tf.math.log, tf.sin, tf.cos and tf.sqrt (tan = sin / cos, "
             "sinh = (exp(x) - exp(-x)) / 2, asinh = log(x + sqrt(x * x + 1)))")
_unsupported("tf", "add_n", _NO_KERNEL, "tf.reduce_sum(tf.stack(inputs), axis=0), or a + b + c")
_unsupported("tf", "scalar_mul", "TensorFlow's scalar-times-tensor helper is not in the shim", "scalar * x")
_unsupported("tf", "realdiv", "not in the shim", "tf.divide on floating-point tensors")
_unsupported("tf", "truncatediv truncatemod", _NO_KERNEL,
             "tf.sign(a / b) * tf.floor(tf.abs(a / b)) for the quotient; a - b * quotient for the remainder")
_unsupported("tf", "tensordot", "not in the shim", "tf.einsum, e.g. tf.einsum('ij,jk->ik', a, b)")
_unsupported("tf", "slice strided_slice", "TensorFlow's slicing functions are not in the shim",
             "Python subscripts on tensors: x[begin:begin + size], x[a:b:c, ..., tf.newaxis]")
_unsupported("tf", "roll", _NO_KERNEL, "tf.concat([x[-shift:], x[:-shift]], axis=0)")
_unsupported("tf", "linspace", _NO_KERNEL,
             "start + (stop - start) * tf.cast(tf.range(num), tf.float32) / (num - 1)")
_unsupported("tf", "meshgrid", _NO_KERNEL, "tf.tile / tf.broadcast_to of x[tf.newaxis, :] and y[:, tf.newaxis]")
_unsupported("tf", "sequence_mask", _NO_KERNEL, "tf.range(maxlen) < lengths[:, tf.newaxis]")
_unsupported("tf", "boolean_mask dynamic_partition dynamic_stitch", _NO_KERNEL,
             "a Python loop inside the tf.function appending the kept rows to a list (staged as a While), "
             "or tf.gather with indices you compute")
_unsupported("tf", "searchsorted histogram_fixed_width unravel_index edit_distance fingerprint "
                   "reverse_sequence bitcast", _NO_KERNEL,
             "compute it with numpy outside the tf.function, or write it with the supported ops")
_unsupported("tf", "tensor_scatter_nd_sub tensor_scatter_nd_max tensor_scatter_nd_min", _NO_KERNEL,
             "tf.tensor_scatter_nd_add(x, indices, -updates) for _sub; tf.tensor_scatter_nd_update with values "
             "you compute for _max/_min")
_unsupported("tf", "batch_to_space space_to_batch space_to_batch_nd", _NO_KERNEL,
             "tf.reshape and tf.transpose")
_unsupported("tf", "broadcast_dynamic_shape broadcast_static_shape shape_n", "not in the shim",
             "tf.shape of each tensor; tf.broadcast_to to broadcast")
_unsupported("tf", "ensure_shape", "not in the shim",
             "give the tf.function an input_signature, or tf.debugging.assert_equal(tf.shape(x), expected)")
_unsupported("tf", "identity_n parallel_stack", "not in the shim", "tf.identity of each tensor; tf.stack")
_unsupported("tf", "saturate_cast", "not in the shim", "tf.cast(tf.clip_by_value(x, low, high), dtype)")
_unsupported("tf", "complex as_string string complex64 complex128 bfloat16 uint16 uint32 uint64 qint8 qint16 qint32 "
                   "quint8 quint16 resource variant",
             "the runtime's dtypes are float16/32/64, int8/16/32/64, uint8 and bool (no strings, complex numbers, "
             "bfloat16 or quantized types)", "keep such values outside the tf.function, or use a supported dtype")
_unsupported("tf", "case switch_case", "TensorFlow's functional branch selectors are not in the shim",
             "write if/elif/else inside the tf.function: a tensor condition is converted into an If op")
_unsupported("tf", "map_fn foldl foldr scan vectorized_map", "TensorFlow's functional loops are not in the shim",
             "write a Python for loop over tf.range(n) inside the tf.function (converted into a While op), "
             "collecting results in a tf.TensorArray or a list")
_unsupported("tf", "group no_op control_dependencies tuple",
             "graphs run stateful ops (print, assign, asserts) in program order already: there is nothing to group",
             "call the ops in the order you want them to run")
_supported("tf", "custom_gradient", "rt")
_unsupported("tf", "recompute_grad grad_pass_through no_gradient RegisterGradient "
                   "UnconnectedGradients AggregationMethod", "custom gradient registration is not in the shim",
             "tf.stop_gradient to block a path; write the function from ops that have gradients")
_unsupported("tf", "hessians", "not in the shim",
             "nest two tf.GradientTape blocks (the gradient of a gradient)")
_unsupported("tf", "py_function numpy_function",
             "graphs run on the runtime's executor and are saved and exported as data: a Python callback "
             "inside one could be neither saved nor exported",
             "compute the value outside the tf.function and pass it in as an argument, or keep the function "
             "unconverted with tf.autograph.experimental.do_not_convert and call it eagerly")
_unsupported("tf", "device DeviceSpec CriticalSection init_scope variable_creator_scope "
                   "VariableAggregation VariableSynchronization",
             "the numpy executor runs on one CPU; there are no devices or distribution strategies to place ops on",
             "drop the device scopes; for accelerators see jit_compile=True (docs/XLA.md)")
_unsupported("tf", "Graph Operation get_default_graph",
             "TensorFlow's graph-building API is TensorFlow 1 style and not in the shim",
             "inspect a traced graph with f.get_concrete_function(...).graph (.operations, .as_graph_def())")
_unsupported("tf", "Session placeholder compat", "TensorFlow 1 code (sessions, placeholders, tf.compat.v1) is out "
             "of scope", "port it to tf.function first: the placeholders become the function's arguments")
_unsupported("tf", "RaggedTensor RaggedTensorSpec SparseTensor SparseTensorSpec IndexedSlices IndexedSlicesSpec "
                   "TypeSpec OptionalSpec TensorArraySpec ragged sparse",
             "the runtime has dense tensors only", "use dense tensors (with a mask or lengths tensor)")
_unsupported("tf", "constant_initializer random_normal_initializer random_uniform_initializer "
                   "zeros_initializer ones_initializer", "initializer objects are Keras-era helpers not in the shim",
             "create the value directly: tf.Variable(tf.random.normal(shape)), tf.Variable(tf.zeros(shape))")
_unsupported("tf", "get_logger load_library load_op_library make_ndarray make_tensor_proto guarantee_const "
                   "register_tensor_conversion_function timestamp random_index_shuffle "
                   "nondifferentiable_batch_function type_spec_from_value",
             "TensorFlow infrastructure with no counterpart in the runtime",
             "t.numpy() for a tensor's array; Python's logging and time modules")
_unsupported("tf", "data", "tf.data input pipelines are out of scope",
             "iterate numpy arrays in Python and call the tf.function once per batch")
_unsupported("tf", "train", "checkpoints (tf.train.Checkpoint) are not in the shim",
             "tf.saved_model.save / tf.saved_model.load (or rt.save / rt.load)")
_unsupported("tf", "nest", "tf.nest is not in the shim", "plain Python over lists, tuples and dicts")
_unsupported("tf", "summary", "TensorBoard summaries are out of scope", "log values with Python after each call")
_unsupported("tf", "strings io image audio signal lookup feature_column estimator lite tpu distribute raw_ops "
                   "bitwise sets quantization queue xla mlir graph_util sysconfig test types version "
                   "experimental autodiff",
             "this part of TensorFlow is out of scope for a tf.function-era port",
             "see the namespaces the shim supports: tf.math, tf.nn, tf.linalg, tf.random, tf.debugging, "
             "tf.saved_model, tf.keras.optimizers/losses/activations")

# ==== tf.math =============================================================================================
_supported("tf.math", """abs add argmax argmin ceil cos cumprod cumsum divide equal erf erfc exp expm1 floor floordiv
           floormod greater greater_equal is_finite is_nan less less_equal log log1p logical_and logical_not
           logical_or maximum minimum multiply negative not_equal pow reciprocal reduce_all reduce_any
           reduce_logsumexp reduce_max reduce_mean reduce_min reduce_prod reduce_std reduce_sum reduce_variance
           round rsqrt sigmoid sign sin softplus sqrt square subtract tanh top_k truediv log_sigmoid""", "rt.math")
_as("tf.math", "mod", "rt.math.floormod")
_as("tf.math", "unsorted_segment_sum", "rt.unsorted_segment_sum")
_as("tf.math", "l2_normalize", "rt.nn.l2_normalize")
_as("tf.math", "log_softmax", "rt.nn.log_softmax")
_as("tf.math", "softmax", "rt.nn.softmax")
_unsupported("tf.math", "acos acosh asin asinh atan atan2 atanh cosh sinh tan", _NO_KERNEL,
             "write it with tf.exp, tf.math.log, tf.sin, tf.cos and tf.sqrt (tan = sin / cos)")
_unsupported("tf.math", "bessel_i0 bessel_i0e bessel_i1 bessel_i1e betainc digamma igamma igammac lbeta lgamma "
                        "polygamma zeta erfinv erfcinv ndtri", _NO_KERNEL,
             "compute it with numpy/scipy outside the tf.function")
_unsupported("tf.math", "add_n accumulate_n", _NO_KERNEL, "tf.reduce_sum(tf.stack(inputs), axis=0)")
_unsupported("tf.math", "count_nonzero", _NO_KERNEL, "tf.reduce_sum(tf.cast(x != 0, tf.int64), axis)")
_unsupported("tf.math", "reduce_euclidean_norm", _NO_KERNEL, "tf.sqrt(tf.reduce_sum(tf.square(x), axis))")
_unsupported("tf.math", "squared_difference", "not in the shim", "tf.square(a - b)")
_unsupported("tf.math", "divide_no_nan multiply_no_nan reciprocal_no_nan xdivy xlogy xlog1py", _NO_KERNEL,
             "tf.where(y == 0, tf.zeros_like(x), x / y) (and the like)")
_unsupported("tf.math", "is_inf", _NO_KERNEL, "tf.logical_and(tf.logical_not(tf.math.is_finite(x)), "
             "tf.logical_not(tf.math.is_nan(x)))")
_unsupported("tf.math", "logical_xor", _NO_KERNEL, "tf.not_equal(a, b) on bool tensors")
_unsupported("tf.math", "softsign", "not in tf.math of the shim", "tf.keras.activations.softsign")
_unsupported("tf.math", "rint", _NO_KERNEL, "tf.round (rounds half to even too)")
_unsupported("tf.math", "segment_sum segment_mean segment_max segment_min segment_prod unsorted_segment_mean "
                        "unsorted_segment_max unsorted_segment_min unsorted_segment_prod unsorted_segment_sqrt_n",
             _NO_KERNEL, "tf.math.unsorted_segment_sum (divide by the segment counts for a mean)")
_unsupported("tf.math", "bincount confusion_matrix in_top_k invert_permutation is_non_decreasing "
                        "is_strictly_increasing polyval nextafter zero_fraction sobol_sample cumulative_logsumexp",
             _NO_KERNEL, "write it with the supported ops, or compute it with numpy outside the tf.function")
_unsupported("tf.math", "angle conj imag real", "the runtime has no complex dtypes", "keep complex math in numpy")
_unsupported("tf.math", "scalar_mul", "not in the shim", "scalar * x")

# ==== tf.nn ===============================================================================================
_supported("tf.nn", """elu gelu l2_normalize leaky_relu log_softmax relu relu6 sigmoid sigmoid_cross_entropy_with_logits
           softmax softmax_cross_entropy_with_logits softplus tanh top_k moments""", "rt.nn")
_as("tf.nn", "silu", "keras.swish")
_as("tf.nn", "swish", "keras.swish")
_as("tf.nn", "selu", "keras.selu")
_as("tf.nn", "softsign", "keras.softsign")
_unsupported("tf.nn", "conv1d conv2d conv3d conv_transpose conv1d_transpose conv2d_transpose conv3d_transpose "
                      "convolution depthwise_conv2d separable_conv2d atrous_conv2d dilation2d erosion2d",
             "convolutions have no kernel in the runtime's op registry",
             "jit_compile=True hands graphs to XLA, but a convolution op must exist first; write small ones "
             "with tf.einsum over extracted patches")
_unsupported("tf.nn", "avg_pool avg_pool1d avg_pool2d avg_pool3d max_pool max_pool1d max_pool2d max_pool3d pool",
             "pooling has no kernel in the runtime's op registry",
             "tf.reshape into windows and tf.reduce_max / tf.reduce_mean over them")
_unsupported("tf.nn", "dropout", "random dropout masks are not in the shim",
             "x * tf.cast(tf.random.uniform(tf.shape(x)) >= rate, x.dtype) / (1 - rate)")
_unsupported("tf.nn", "bias_add", "not in the shim", "x + bias (broadcasts over the last axis)")
_unsupported("tf.nn", "batch_normalization", "not in the shim",
             "(x - mean) / tf.sqrt(variance + epsilon) * scale + offset, with tf.nn.moments")
_unsupported("tf.nn", "batch_norm_with_global_normalization local_response_normalization normalize_moments "
                      "weighted_moments", "not in the shim", "write it with tf.nn.moments and elementwise ops")
_unsupported("tf.nn", "sparse_softmax_cross_entropy_with_logits", "not in the shim",
             "tf.nn.softmax_cross_entropy_with_logits(labels=tf.one_hot(labels, classes), logits=logits)")
_unsupported("tf.nn", "weighted_cross_entropy_with_logits log_poisson_loss l2_loss ctc_loss nce_loss "
                      "sampled_softmax_loss compute_average_loss scale_regularization_loss",
             "not in the shim", "write the loss with elementwise ops and reductions (l2_loss = sum(x ** 2) / 2)")
_unsupported("tf.nn", "embedding_lookup safe_embedding_lookup_sparse", "not in the shim",
             "tf.gather(embedding_matrix, ids)")
_unsupported("tf.nn", "crelu", "not in the shim", "tf.concat([tf.nn.relu(x), tf.nn.relu(-x)], axis=-1)")

# ==== tf.linalg ===========================================================================================
_supported("tf.linalg", "det diag_part einsum eye inv l2_normalize matmul matrix_transpose matvec norm trace transpose",
           "rt.linalg")
_unsupported("tf.linalg", "cholesky cholesky_solve eig eigh eigvals eigvalsh expm logdet logm lstsq lu lu_solve "
                          "matrix_rank pinv qr slogdet solve sqrtm svd triangular_solve tridiagonal_solve",
             "decompositions and solvers have no kernel in the runtime's op registry",
             "compute them with numpy.linalg outside the tf.function; tf.linalg.inv and tf.linalg.det are supported")
_unsupported("tf.linalg", "adjoint band_part cross diag set_diag tensor_diag tensor_diag_part global_norm normalize "
                          "tensordot", _NO_KERNEL,
             "write it with tf.linalg.matrix_transpose, tf.einsum, tf.linalg.diag_part and elementwise ops")

# ==== tf.random ===========================================================================================
_supported("tf.random", "uniform normal categorical set_seed Generator stateless_uniform stateless_normal", "rt.random")
_unsupported("tf.random", "create_rng_state stateless_categorical stateless_truncated_normal stateless_binomial "
                          "stateless_gamma stateless_poisson", "the runtime has these stateless ops only for uniform "
                          "and normal draws", "tf.random.stateless_uniform / stateless_normal with a seed pair, or "
                          "tf.random.Generator.from_seed(s).uniform / normal")
_unsupported("tf.random", "truncated_normal gamma poisson shuffle", _NO_KERNEL,
             "draw with numpy outside the tf.function and pass the array in")
_unsupported("tf.random", "all_candidate_sampler fixed_unigram_candidate_sampler learned_unigram_candidate_sampler "
                          "log_uniform_candidate_sampler uniform_candidate_sampler experimental",
             "candidate samplers are out of scope", "sample with numpy outside the tf.function")

# ==== tf.config ===========================================================================================
_as("tf.config", "run_functions_eagerly", "ag.run_functions_eagerly")
_as("tf.config", "functions_run_eagerly", "ag.functions_run_eagerly")
_as("tf.config", "experimental_run_functions_eagerly", "ag.run_functions_eagerly")
_unsupported("tf.config", "list_physical_devices list_logical_devices set_visible_devices get_visible_devices "
                          "set_soft_device_placement experimental optimizer",
             "the numpy executor runs on the CPU it is on: there are no devices to configure",
             "drop the call; for accelerators see jit_compile=True (docs/XLA.md)")
_unsupported("tf.config", "threading", "TensorFlow's intra-/inter-op pools are not ours: the numpy executor has "
                                       "one thread budget for its row-block workers and BLAS's threads",
             "rt.config.set_threads(n) (None: the machine's cores), rt.config.get_threads()")

# ==== tf.autograph ========================================================================================
_as("tf.autograph", "to_code", "ag.to_code")
_as("tf.autograph", "to_graph", "ag.to_graph")
_namespaces("tf.autograph", "experimental")
_unsupported("tf.autograph", "set_verbosity trace", "AutoGraph's logging is not in the shim",
             "print(tf.autograph.to_code(f)) shows the converted code")
_as("tf.autograph.experimental", "do_not_convert", "ag.do_not_convert")
_as("tf.autograph.experimental", "set_loop_options", "ag.set_loop_options")
_unsupported("tf.autograph.experimental", "Feature", "AutoGraph's optional features are not selectable",
             "every construct the converter knows is always converted (docs/LIMITS.md)")

# ==== tf.debugging ========================================================================================
_supported("tf.debugging", "Assert assert_equal assert_greater assert_greater_equal assert_less assert_less_equal "
                           "assert_none_equal", "rt.debugging")
_unsupported("tf.debugging", "assert_near assert_negative assert_non_negative assert_non_positive assert_positive "
                             "assert_all_finite assert_integer assert_rank assert_rank_at_least assert_rank_in "
                             "assert_scalar assert_shapes assert_type assert_same_float_dtype assert_proper_iterable "
                             "check_numerics is_numeric_tensor", "not in the shim",
             "tf.debugging.assert_greater / assert_equal / assert_less with the values you compute, or "
             "tf.Assert(condition, [message])")
_unsupported("tf.debugging", "enable_check_numerics disable_check_numerics set_log_device_placement "
                             "get_log_device_placement experimental", "TensorFlow's debug modes are out of scope",
             "tf.config.run_functions_eagerly(True) runs a function op by op for debugging")

# ==== tf.dtypes ===========================================================================================
_supported("tf.dtypes", "float16 float32 float64 int8 int16 int32 int64 uint8 bool as_dtype cast", "rt")
_as("tf.dtypes", "double", "rt.float64")
_as("tf.dtypes", "half", "rt.float16")
_as("tf.dtypes", "DType", "shim.DType")
_unsupported("tf.dtypes", "string complex64 complex128 bfloat16 uint16 uint32 uint64 qint8 qint16 qint32 quint8 "
                          "quint16 resource variant complex saturate_cast",
             "the runtime's dtypes are float16/32/64, int8/16/32/64, uint8 and bool",
             "use a supported dtype, or keep such values outside the tf.function")

# ==== tf.errors ===========================================================================================
_supported("tf.errors", "InvalidArgumentError", "rt.errors")
_unsupported("tf.errors", "OpError AbortedError AlreadyExistsError CancelledError DataLossError DeadlineExceededError "
                          "FailedPreconditionError InternalError NotFoundError OutOfRangeError PermissionDeniedError "
                          "ResourceExhaustedError UnauthenticatedError UnavailableError UnimplementedError "
                          "UnknownError",
             "the runtime raises InvalidArgumentError for bad data at run time, and Python's own exceptions "
             "(TypeError, ValueError) for bad programs",
             "catch tf.errors.InvalidArgumentError, TypeError or ValueError")

# ==== tf.saved_model ======================================================================================
_supported("tf.saved_model", "save load", "module")
_unsupported("tf.saved_model", "SaveOptions LoadOptions Asset contains_saved_model experimental",
             "TensorFlow's SavedModel format and its options are not ours: a saved function is graph.json + "
             "constants.npz (docs/SAVING.md)", "tf.saved_model.save(obj, path) and tf.saved_model.load(path)")

# ==== tf.keras ============================================================================================
_namespaces("tf.keras", "optimizers losses activations")
_unsupported("tf.keras", "layers models Model Sequential Input backend callbacks metrics initializers regularizers "
                         "constraints utils mixed_precision applications datasets preprocessing",
             _KERAS, _KERAS_INSTEAD)
_as("tf.keras.optimizers", "SGD", "rt.optimizers.SGD")
_as("tf.keras.optimizers", "Adam", "rt.optimizers.Adam")
_as("tf.keras.optimizers", "Optimizer", "rt.optimizers.Optimizer")
_unsupported("tf.keras.optimizers", "AdamW Adagrad Adadelta Adamax Nadam RMSprop Ftrl Lion",
             "the runtime implements SGD (with momentum) and Adam",
             "tf.keras.optimizers.SGD or Adam; or update Variables yourself with v.assign_sub(lr * g)")
_unsupported("tf.keras.optimizers", "schedules get serialize deserialize legacy experimental",
             "optimizer schedules and Keras serialization are not in the shim",
             "compute the learning rate in Python and create the optimizer with it")
_supported("tf.keras.losses", "mean_squared_error mean_absolute_error mse mae binary_crossentropy "
                              "categorical_crossentropy sparse_categorical_crossentropy MeanSquaredError "
                              "MeanAbsoluteError BinaryCrossentropy CategoricalCrossentropy "
                              "SparseCategoricalCrossentropy", "keras")
_unsupported("tf.keras.losses", "Huber huber KLDivergence kl_divergence kld LogCosh log_cosh Hinge hinge "
                                "SquaredHinge squared_hinge CategoricalHinge categorical_hinge Poisson poisson "
                                "CosineSimilarity cosine_similarity MeanAbsolutePercentageError "
                                "MeanSquaredLogarithmicError mean_absolute_percentage_error "
                                "mean_squared_logarithmic_error Loss Reduction get serialize deserialize",
             "the shim has the squared/absolute error and cross-entropy losses",
             "write the loss with tf ops (e.g. Huber: tf.where(|e| <= d, e ** 2 / 2, d * (|e| - d / 2)))")
_supported("tf.keras.activations", "relu sigmoid softmax tanh elu gelu softplus", "rt.nn")
_supported("tf.keras.activations", "linear exponential swish selu softsign", "keras")
_unsupported("tf.keras.activations", "hard_sigmoid",
             "its definition changed between Keras 2 (0.2 x + 0.5, clipped) and Keras 3 (relu6(x + 3) / 6)",
             "write the one you mean with tf.clip_by_value or tf.nn.relu6")
_unsupported("tf.keras.activations", "get serialize deserialize hard_swish mish log_softmax relu6 leaky_relu silu",
             "not in tf.keras.activations of the shim", "the tf.nn function of the same name")

# ==== classes: their members =============================================================================
_supported("tf.GradientTape", "gradient watch watched_variables stop_recording", "rt.GradientTape")
_unsupported("tf.GradientTape", "jacobian batch_jacobian reset", "not in the runtime's GradientTape",
             "a Python loop of tape.gradient calls (one per output) with persistent=True")
_supported("tf.Variable", "assign assign_add assign_sub read_value value numpy dtype shape name trainable",
           "rt.Variable")
_unsupported("tf.Variable", "scatter_update scatter_nd_update scatter_add batch_scatter_update sparse_read "
                            "initial_value constraint aggregation synchronization device",
             "not in the runtime's Variable", "v.assign(tf.tensor_scatter_nd_update(v, indices, updates))")
_supported("tf.TensorArray", "read write stack unstack gather scatter concat split size element_shape dtype "
                             "dynamic_size close identity", "rt.TensorArray")
_unsupported("tf.TensorArray", "grad mark_used", "TensorFlow's TensorArray gradient plumbing is internal to it",
             "take the gradient of a value computed from ta.stack() with tf.GradientTape")
_supported("tf.TensorSpec", "shape dtype name from_tensor is_compatible_with", "rt.TensorSpec")
_supported("tf.TensorShape", "as_list rank ndims dims is_fully_defined is_compatible_with", "rt.TensorShape")
_unsupported("tf.TensorShape", "merge_with concatenate most_specific_compatible_shape num_elements with_rank "
                               "assert_has_rank assert_is_compatible_with assert_is_fully_defined "
                               "assert_same_rank as_proto",
             "not in the runtime's TensorShape", "shape.as_list() and Python list operations")
_supported("tf.Module", "name name_scope variables trainable_variables non_trainable_variables submodules "
                        "with_name_scope", "module.Module")
_unsupported("tf.Module", "name_scope_name", "not in the shim's Module", "module.name")

# Namespaces that are classes (their members are checked on the class, not looked up by the shim).
CLASS_NAMESPACES = ("tf.GradientTape", "tf.Variable", "tf.TensorArray", "tf.TensorSpec", "tf.TensorShape", "tf.Module")
