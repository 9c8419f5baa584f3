#!/usr/bin/env python3
"""tests/cli/calib-batch.py WORK - fixtures of tests/cli/calib-batch.sh:
a one-input and a two-input model, their samples as folders and as
batches (.npy [N, *shape], .npz stored and deflated), bad batches, and a
.npy whose header has double quotes."""
import os
import sys
import zipfile

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

w = sys.argv[1]
r = np.random.RandomState(7)


def save(path, nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, os.path.join(w, path))


def vi(name, shape):
    return helper.make_tensor_value_info(name, T.FLOAT, shape)


def init(name, *shape):
    return numpy_helper.from_array(r.randn(*shape).astype(np.float32), name)


def folders(name, **arrays):
    n = len(next(iter(arrays.values())))
    for i in range(n):
        d = os.path.join(w, name, "s%02d" % i)
        os.makedirs(d)
        for k, v in arrays.items():
            np.save(os.path.join(d, k + ".npy"), v[i])


def p(name):
    return os.path.join(w, name)


save("one.onnx",
     [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
      helper.make_node("Relu", ["h"], ["hr"], name="relu"),
      helper.make_node("MatMul", ["hr", "w2"], ["y"], name="fc2")],
     [vi("x", [3, 8])], [vi("y", [3, 4])], [init("w1", 8, 6), init("w2", 6, 4)])
save("two.onnx",
     [helper.make_node("Add", ["a", "b"], ["s"], name="add"),
      helper.make_node("MatMul", ["s", "w"], ["y"], name="fc")],
     [vi("a", [2, 3]), vi("b", [2, 3])], [vi("y", [2, 6])], [init("w", 3, 6)])

x = (r.randn(5, 3, 8) * 2).astype(np.float32)
a = r.randn(4, 2, 3).astype(np.float32)
b = (r.randn(4, 2, 3) * 3).astype(np.float32)
folders("x.dirs", x=x)
folders("ab.dirs", a=a, b=b)
os.makedirs(p("b"))
np.save(p("b/x.npy"), x)
np.save(p("b/input_0.npy"), x)
np.savez(p("x.npz"), x=x)
np.savez_compressed(p("xc.npz"), x=x)
np.savez(p("ab.npz"), a=a, b=b)
np.savez_compressed(p("abc.npz"), a=a, b=b)
np.savez(p("pos.npz"), input_0=a, input_1=b)

# bad batches
np.savez(p("n.npz"), a=a, b=b[:3])             # 4 and 3 samples, stored
np.savez_compressed(p("nc.npz"), a=a, b=b[:3])  # the same, deflated
np.savez(p("extra.npz"), x=x, z=x)
np.savez(p("missing.npz"), a=a)
np.save(p("b/wrong.npy"), x)
os.makedirs(p("w"))
np.save(p("w/x.npy"), np.zeros((5, 3, 9), np.float32))
os.makedirs(p("c"))
np.save(p("c/x.npy"), np.float32(1))            # shape (): no sample axis
os.makedirs(p("z"))
np.save(p("z/x.npy"), np.zeros((0, 3, 8), np.float32))
open(p("junk.npz"), "wb").write(b"PK not a zip at all" * 4)
open(p("x.txt"), "w").write("x\n")
# a stored member whose .npy header is broken ('descr' misspelled)
np.savez(p("badhdr.npz"), x=x)
raw = open(p("badhdr.npz"), "rb").read()
assert raw.count(b"'descr'") == 1
open(p("badhdr.npz"), "wb").write(raw.replace(b"'descr'", b"'descX'"))
# a deflated member whose stream is cut: the script cannot inflate it
with zipfile.ZipFile(p("xc.npz")) as z:
    info = z.infolist()[0]
raw = bytearray(open(p("xc.npz"), "rb").read())
lh = info.header_offset
nl = int.from_bytes(raw[lh + 26:lh + 28], "little")
el = int.from_bytes(raw[lh + 28:lh + 30], "little")
data = lh + 30 + nl + el
for k in range(data, data + info.compress_size):
    raw[k] = 0xff
open(p("cut.npz"), "wb").write(bytes(raw))

# double quotes in a .npy header, as NumPy's reader takes them
os.makedirs(p("dq"))
os.makedirs(p("sq"))
x0 = x[0]
np.save(p("sq/x.npy"), x0)
raw = open(p("sq/x.npy"), "rb").read()
hl = int.from_bytes(raw[8:10], "little")
head = raw[10:10 + hl].replace(b"'", b'"')
assert len(head) == hl and b'"descr"' in head
open(p("dq/x.npy"), "wb").write(raw[:10] + head + raw[10 + hl:])
assert np.array_equal(np.load(p("dq/x.npy")), x0)
