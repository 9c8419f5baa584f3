#!/usr/bin/env python3
"""tests/hostile/gen.py - hand-made adversarial ONNX files, byte by byte
(no onnx package: several of these cannot be built through it).

  hostile-gen.py deep N OUT        If nodes nested N deep
  hostile-gen.py field0 OUT        a node with an unknown field number 0
  hostile-gen.py field2p32 OUT     the same with field number 2^32
  hostile-gen.py nulname OUT       a node output name with a NUL inside
  hostile-gen.py ctrlname OUT      names holding ESC and newline bytes
  hostile-gen.py utf8name OUT      a node name with UTF-8, a C1 control
                                   and a byte that is not UTF-8
  hostile-gen.py ctrlerr OUT       an undefined input named with ESC, BEL
                                   and a newline
  hostile-gen.py big MIB OUT       one MIB-MiB float initializer, inline
  hostile-gen.py sparse MIB OUT    a 140-byte model, a MIB MiB sparse
                                   external data file beside it
  hostile-gen.py matmul16 K N C OUT  C FLOAT16 MatMul weights, [K, N]
                                   and [N, K] in turn, inline, random
                                   finite values (|x| < 2)
  hostile-gen.py matmul32 K N C OUT  the same with FLOAT weights, each
                                   |x| in [0.125, 0.5) (FLOAT16 holds
                                   them: none underflows)
"""
import os
import struct
import sys


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def key(field, wire):
    return varint(field << 3 | wire)


def ld(field, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return key(field, 2) + varint(len(payload)) + payload


def vint(field, v):
    return key(field, 0) + varint(v)


def vi(name, elem=1, dims=(1,)):
    shape = b"".join(ld(1, vint(1, d)) for d in dims)
    tensor_type = vint(1, elem) + ld(2, shape)
    return ld(1, name) + ld(2, ld(1, tensor_type))


def node(inputs, outputs, op, name="", attrs=b"", extra=b""):
    b = b"".join(ld(1, i) for i in inputs)
    b += b"".join(ld(2, o) for o in outputs)
    if name:
        b += ld(3, name)
    return b + ld(4, op) + attrs + extra


def graph(nodes, name, inputs, outputs, inits=b""):
    b = b"".join(ld(1, n) for n in nodes) + ld(2, name) + inits
    b += b"".join(ld(11, i) for i in inputs)
    return b + b"".join(ld(12, o) for o in outputs)


def model(g, opset=17):
    return vint(1, 8) + ld(8, vint(2, opset)) + ld(7, g)


def identity_model(extra=b"", out="y", nname="n0"):
    g = graph([node(["x"], [out], "Identity", nname, extra=extra)], "g",
              [vi("x")], [vi(out)])
    return model(g)


def deep(n):
    # The innermost branch: y_i = Identity(x); each level wraps it in an
    # If whose two branches are the level below.
    body = graph([node(["x"], ["y%d" % n], "Identity")], "b%d" % n, [],
                 [vi("y%d" % n)])
    def branches(body, i):
        other = graph([node(["x"], ["e%d" % i], "Identity")], "e%d" % i,
                      [], [vi("e%d" % i)])
        return (ld(5, ld(1, "then_branch") + ld(6, body) + vint(20, 5)) +
                ld(5, ld(1, "else_branch") + ld(6, other) + vint(20, 5)))
    for i in range(n - 1, 0, -1):
        attrs = branches(body, i)
        body = graph([node(["c"], ["y%d" % i], "If", attrs=attrs)],
                     "b%d" % i, [], [vi("y%d" % i)])
    attrs = branches(body, 0)
    g = graph([node(["c"], ["y"], "If", attrs=attrs)], "g",
              [vi("c", 9), vi("x")], [vi("y")])
    return model(g)


def big(mib):
    n = mib * 1024 * 256
    raw = b"\0" * (n * 4)
    t = vint(1, n) + vint(2, 1) + ld(8, "w") + ld(9, raw)
    g = graph([node(["x", "w"], ["y"], "Add")], "g", [vi("x", 1, (n,))],
              [vi("y", 1, (n,))], inits=ld(5, t))
    return model(g)


def sparse(mib, out):
    # The tensor starts 12288 bytes into its file; 100000 random bytes
    # sit at an odd offset inside it, the rest is one big hole.
    n = mib * (1 << 20) // 4
    data = os.path.basename(out) + ".bin"
    ext = ld(13, ld(1, "location") + ld(2, data))
    ext += ld(13, ld(1, "offset") + ld(2, "12288"))
    t = vint(1, n) + vint(2, 1) + ld(8, "w") + ext + vint(14, 1)
    g = graph([node(["x", "w"], ["y"], "Add")], "g", [vi("x", 1, (n,))],
              [vi("y", 1, (n,))], inits=ld(5, t))
    with open(os.path.join(os.path.dirname(out) or ".", data), "wb") as f:
        f.truncate(12288 + n * 4)
        if n * 4 > 6000000:
            f.seek(12288 + 5000001)
            f.write(os.urandom(100000))
    return model(g)


def matmul16(k, n, count, dtype=10):
    inits, nodes, prev = b"", [], "x"
    es = 2 if dtype == 10 else 4
    # FLOAT16: random halves with the exponent's top bit cleared (finite,
    # < 2); FLOAT: the top byte kept to its sign over exponent 124 or 125.
    top = bytes((b & 0xBF) if es == 2 else (0x3E | (b & 0x80))
                for b in range(256))
    for i in range(count):
        dims = (k, n) if i % 2 == 0 else (n, k)
        raw = bytearray(os.urandom(dims[0] * dims[1] * es))
        raw[es - 1::es] = raw[es - 1::es].translate(top)
        t = b"".join(vint(1, d) for d in dims) + vint(2, dtype)
        inits += ld(5, t + ld(8, "w%d" % i) + ld(9, bytes(raw)))
        out = "y" if i == count - 1 else "h%d" % i
        nodes.append(node([prev, "w%d" % i], [out], "MatMul", "m%d" % i))
        prev = out
    last = n if count % 2 else k
    g = graph(nodes, "g", [vi("x", dtype, (1, k))],
              [vi("y", dtype, (1, last))], inits=inits)
    return model(g)


def main():
    kind, args = sys.argv[1], sys.argv[2:]
    if kind == "deep":
        data = deep(int(args[0]))
    elif kind == "field0":
        # key 0x00 then a varint: field number 0, wire type 0.
        data = identity_model(extra=b"\x00\x01")
    elif kind == "field2p32":
        # field number 2^32 (varint, wire type 0): 2^32 & 0xffffffff is 0.
        data = identity_model(extra=key(1 << 32, 0) + b"\x01")
    elif kind == "nulname":
        data = identity_model(out="y\0z")
    elif kind == "ctrlname":
        data = identity_model(nname="n\x1b[31mred\nline")
    elif kind == "utf8name":
        # Good UTF-8 (kept), a C1 CSI and a stray 0xff (escaped).
        data = identity_model(nname="ok-\u4e2d-".encode() + b"\xc2\x9b2J-\xff")
    elif kind == "ctrlerr":
        # An undefined input whose name would retitle a terminal.
        g = graph([node(["u\x1b]0;pwned\x07\nqopt: fake line"], ["y"],
                        "Identity", "n0")], "g", [vi("x")], [vi("y")])
        data = model(g)
    elif kind == "big":
        data = big(int(args[0]))
    elif kind == "matmul16":
        data = matmul16(int(args[0]), int(args[1]), int(args[2]))
    elif kind == "matmul32":
        data = matmul16(int(args[0]), int(args[1]), int(args[2]), dtype=1)
    elif kind == "sparse":
        data = sparse(int(args[0]), args[1])
    else:
        sys.exit("unknown kind " + kind)
    with open(args[-1], "wb") as f:
        f.write(data)


main()
