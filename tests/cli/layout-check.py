#!/usr/bin/env python3
# tests/cli/layout-check.py REF.onnx OUT.onnx... - each OUT loads with
# the onnx package (external data included), passes onnx.checker, and
# has REF's initializers, value for value. Exit 1 naming the first that
# does not.
import sys
import numpy as np
import onnx
from onnx import numpy_helper


def inits(path):
    m = onnx.load(path)
    onnx.checker.check_model(m)
    return {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}


ref = inits(sys.argv[1])
for p in sys.argv[2:]:
    got = inits(p)
    if got.keys() != ref.keys() or any(
            not np.array_equal(got[k], ref[k]) for k in ref):
        print("%s: initializers differ from %s" % (p, sys.argv[1]))
        sys.exit(1)
