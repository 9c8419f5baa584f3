#!/usr/bin/env python3
"""tests/cli/calib-hostile.py WORK - fixtures of tests/cli/calib-hostile.sh:
small models (one with a tensor name that is not UTF-8, one with a
dynamic batch, one with external data) and malformed sample files."""
import os
import struct
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper, numpy_helper

w = sys.argv[1]
r = np.random.RandomState(3)


def model(path, x_shape, name="act_XX"):
    w1 = numpy_helper.from_array(r.randn(8, 6).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(r.randn(6, 4).astype(np.float32), "w2")
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
             helper.make_node("Relu", ["h"], [name], name="relu"),
             helper.make_node("MatMul", [name, "w2"], ["y"], name="fc2")]
    g = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", T.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", T.FLOAT, [x_shape[0], 4])],
        [w1, w2])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return onnx.shape_inference.infer_shapes(m)


m = model(None, [3, 8])
onnx.save(m, w + "/m.onnx")
# The same model with the Relu output named b"act_\xff\xfe": patched in
# the serialized bytes (same length), as protobuf's Python API refuses
# such names.
raw = m.SerializeToString()
assert raw.count(b"act_XX") >= 2
open(w + "/nonutf.onnx", "wb").write(raw.replace(b"act_XX", b"act_\xff\xfe"))
onnx.save(model(None, ["N", 8]), w + "/dyn.onnx")
os.makedirs(w + "/ext", exist_ok=True)
onnx.save(model(None, [3, 8]), w + "/ext/m.onnx", save_as_external_data=True,
          all_tensors_to_one_file=True, location="m.data", size_threshold=0)


def folder(name):
    d = os.path.join(w, name, "s")
    os.makedirs(d, exist_ok=True)
    return d


np.save(folder("good") + "/x.npy", r.randn(3, 8).astype(np.float32))
np.save(folder("zero") + "/x.npy", np.zeros((0, 8), np.float32))
inf = r.randn(3, 8).astype(np.float32)
inf[1, 2] = np.inf
np.save(folder("inf") + "/x.npy", inf)


def npy(name, header, data=None, ver=(1, 0), lenfmt=None):
    body = np.zeros((3, 8), np.float32).tobytes() if data is None else data
    h = header.encode("latin1")
    fmt = lenfmt or ("<H" if ver[0] == 1 else "<I")
    with open(folder(name) + "/x.npy", "wb") as f:
        f.write(b"\x93NUMPY" + bytes(ver) + struct.pack(fmt, len(h)) + h + body)


ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 8), }\n"
npy("v3", ok, ver=(3, 0))
npy("v9", ok, ver=(9, 0))
npy("v39", ok, ver=(3, 9))
npy("extrakey", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 8), 'x': 1}\n")
npy("twice", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 8), 'shape': (3, 8)}\n")
npy("nanshape", "{'descr': '<f4', 'fortran_order': False, 'shape': (nan, nan)}\n")
npy("notuple", "{'descr': '<f4', 'fortran_order': False, 'shape': (24)}\n")
npy("shortdata", ok, data=b"\0" * 95)
npy("longheader", ok, lenfmt="<H", data=b"")
with open(folder("longheader") + "/x.npy", "r+b") as f:
    f.seek(8)
    f.write(struct.pack("<H", 60000))

t = numpy_helper.from_array(np.zeros((3, 8), np.float32), "x")
t.raw_data = t.raw_data + b"\0\0\0\0"
open(folder("pb_extra_raw") + "/input_0.pb", "wb").write(t.SerializeToString())
t = numpy_helper.from_array(np.zeros((3, 8), np.float32), "x")
open(folder("pb_trunc") + "/input_0.pb", "wb").write(t.SerializeToString()[:-7])
open(folder("pb_garbage") + "/input_0.pb", "wb").write(bytes(r.randint(0, 256, 64).astype(np.uint8)))
