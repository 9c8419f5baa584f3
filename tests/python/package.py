"""tests/python/package.sh's checks in Python: the package's version,
loading libqopt, bad input refused before libqopt is asked, and the
sample writer's folder (read back by package.sh with qopt calibrate).
argv: VERSION WORKDIR."""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from checks import check, raises

import qopt
from qopt import _capi, _samples

version, work = sys.argv[1], sys.argv[2]
check("qopt.__version__ is configure's version (%s)" % version,
      qopt.__version__ == version, qopt.__version__)
v, abi = qopt.library_version()
check("qopt.library_version() loads libqopt (%s, ABI %d.%d) from "
      "$QOPT_LIBRARY" % (v, abi[0], abi[1]), v == version and abi[0] == 4,
      (v, abi))

# A libqopt that cannot be loaded: a clear error naming the file.
lib, _capi._lib = _capi._lib, None
os.environ["QOPT_LIBRARY"] = os.path.join(work, "no-such-libqopt.so")
raises("a missing libqopt is a qopt.Error naming it and QOPT_LIBRARY",
       qopt.Error, qopt.library_version,
       text=("no-such-libqopt.so", "QOPT_LIBRARY"))
_capi._lib = lib

# A model: y = x @ W, z = u @ W with u named "in/u" (no file name can
# hold it: the writer gives it as an input_K.pb TensorProto).
W = numpy_helper.from_array(np.eye(4, dtype=np.float32), "W")
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["y"], name="mm0"),
     helper.make_node("MatMul", ["in/u", "W"], ["z"], name="mm1")], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]),
     helper.make_tensor_value_info("in/u", TensorProto.FLOAT, [2, 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4]),
     helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 4])], [W])
model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, os.path.join(work, "mm.onnx"))

rng = np.random.default_rng(7)
samples = [{"x": rng.standard_normal((2, 4)).astype(np.float32),
            "in/u": rng.standard_normal((2, 4)).astype(np.float32) * (i + 1)}
           for i in range(3)]
out = os.path.join(work, "samples")
os.mkdir(out)
_samples.write(samples, out, "test")
names = sorted(os.listdir(out))
files = sorted(os.listdir(os.path.join(out, names[0])))
check("the sample writer gives one folder per sample, x.npy and the name "
      "with a slash as input_1.pb (%s: %s)" % (" ".join(names),
                                              " ".join(files)),
      names == ["s0", "s1", "s2"] and files == ["input_1.pb", "x.npy"],
      (names, files))
np.save(os.path.join(work, "expect.npy"),
        np.array([max(float(np.abs(s[k]).max()) for s in samples)
                  for k in ("x", "in/u")]))

# Bad input, refused before libqopt is asked: the message names the
# argument and what was given.
m = os.path.join(work, "mm.onnx")
raises("qopt.run(42) is a TypeError naming the types a model may be",
       TypeError, qopt.run, 42, text=("onnx.ModelProto, bytes or a path",
                                      "not int"))
raises("qopt.run on a missing file is a FileNotFoundError naming it",
       FileNotFoundError, qopt.run, os.path.join(work, "nope.onnx"),
       text=("nope.onnx",))
raises("qopt.run on a folder says it is a folder", IsADirectoryError,
       qopt.run, work, text=("is a folder",))
raises("qopt.run(output=3) is a TypeError", TypeError, qopt.run, m,
       output=3, text=("output must be a path",))
raises("qopt.calibrate with one dict, not a list, says to wrap it",
       TypeError, qopt.calibrate, m, {"x": np.zeros((2, 4))},
       text=("got one dict",))
raises("qopt.calibrate with no samples says so", ValueError,
       qopt.calibrate, m, [], text=("no samples",))
raises("a sample of strings names the sample and the input", TypeError,
       qopt.calibrate, m, [{"x": np.zeros((2, 4))}, {"x": ["a", "b"]}],
       text=("sample 1", "input 'x'", "dtype"))
raises("a sample that is no dict names it", TypeError, qopt.calibrate, m,
       [[1, 2]], text=("sample 0",))
raises("a missing samples folder is a FileNotFoundError naming it",
       FileNotFoundError, qopt.calibrate, m, os.path.join(work, "nodir"),
       text=("nodir",))
raises("qopt.calibrate with neither samples nor random says so",
       TypeError, qopt.calibrate, m, text=("samples or random",))
raises("qopt.plan with neither effective_bits nor max_loss says so",
       TypeError, qopt.plan, m, samples, text=("effective_bits or max_loss",))
check("no private folder is left in $TMPDIR",
      not [f for f in os.listdir(os.environ["TMPDIR"])
           if f.startswith("qopt-py-")], os.listdir(os.environ["TMPDIR"]))
