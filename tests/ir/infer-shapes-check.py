#!/usr/bin/env python3
"""tests/ir/infer-shapes-check.py LIST - compares qopt's type and shape
inference with onnx.shape_inference.infer_shapes.

LIST has one "ORIGINAL<TAB>QOPT_OUTPUT<TAB>QOPT_STDERR" line per model
(QOPT_OUTPUT: the model after `qopt --passes infer-shapes`). For every
value onnx types: qopt must type it too (else it is listed as missing)
and agree on the element type, the rank and every dim both know
(conflict). A note of qopt's on its own stderr (a declared type it
disagrees with) is a conflict too. One TAP line per model with its
coverage; then the overall coverage, which must be at least
QOPT_INFER_MIN_COVERAGE percent (99 by default), and, as a diagnostic,
how many of the static dims onnx gives qopt gives too (the shape rules'
reach, which the element-type coverage does not see).
"""
import os
import sys

import onnx
from onnx import shape_inference


def types_of(graph, out):
    """name -> (elem_type, dims or None), dims: int or None (unknown)."""
    def add(vi):
        t = vi.type
        if t.WhichOneof("value") != "tensor_type":
            return
        tt = t.tensor_type
        if not tt.elem_type:
            return
        dims = None
        if tt.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else None
                    for d in tt.shape.dim]
        out[vi.name] = (tt.elem_type, dims)
    for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
        add(vi)
    for init in graph.initializer:
        out[init.name] = (init.data_type, list(init.dims))
    for node in graph.node:
        if node.op_type == "Constant" and node.output:
            for a in node.attribute:
                if a.name == "value" and a.type == onnx.AttributeProto.TENSOR:
                    out[node.output[0]] = (a.t.data_type, list(a.t.dims))
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                types_of(a.g, out)
            for g in a.graphs:
                types_of(g, out)
    return out


def compare(ref, got, dims_seen):
    """dims_seen: [static dims onnx gives, of them those qopt gives too]."""
    covered, missing, conflicts = 0, [], []
    for name, (et, dims) in sorted(ref.items()):
        if name not in got:
            missing.append(name)
            continue
        covered += 1
        qet, qdims = got[name]
        if dims is not None:
            known = [k for k, a in enumerate(dims) if a is not None]
            dims_seen[0] += len(known)
            if qdims is not None and len(qdims) == len(dims):
                dims_seen[1] += sum(1 for k in known if qdims[k] is not None)
        if qet != et:
            conflicts.append("%s: element type %d (onnx) vs %d (qopt)" % (name, et, qet))
        elif dims is not None and qdims is not None:
            if len(dims) != len(qdims) or any(
                    a is not None and b is not None and a != b
                    for a, b in zip(dims, qdims)):
                conflicts.append("%s: shape %s (onnx) vs %s (qopt)" % (name, dims, qdims))
    return covered, missing, conflicts


def main():
    lines = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
    minimum = float(os.environ.get("QOPT_INFER_MIN_COVERAGE", "99"))
    total = covered_all = 0
    inter_total = inter_covered = 0  # values the file leaves untyped
    failed = 0
    dims_seen = [0, 0]
    print("1..%d" % (len(lines) + 1))
    for i, (orig, out, err) in enumerate(lines, 1):
        name = os.path.relpath(orig, os.path.dirname(os.path.dirname(os.path.dirname(orig))))
        try:
            ref = types_of(shape_inference.infer_shapes(onnx.load(orig)).graph, {})
        except Exception as e:  # onnx 1.12 does not know every operator
            print("ok %d - %s # SKIP onnx cannot infer it: %s" % (i, name, str(e).splitlines()[0][:120]))
            continue
        notes = [l.strip() for l in open(err) if "disagree" in l]
        if not os.path.exists(out):
            print("not ok %d - %s: qopt wrote no output" % (i, name))
            for l in open(err):
                print("# " + l.rstrip())
            failed += 1
            continue
        got = types_of(onnx.load(out).graph, {})
        declared = types_of(onnx.load(orig).graph, {})
        covered, missing, conflicts = compare(ref, got, dims_seen)
        inter = [k for k in ref if k not in declared]
        inter_total += len(inter)
        inter_covered += sum(1 for k in inter if k in got)
        conflicts += notes
        total += len(ref)
        covered_all += covered
        pct = 100.0 * covered / len(ref) if ref else 100.0
        ok = not conflicts
        failed += not ok
        print("%s %d - %s: %d/%d values typed (%.1f%%), %d conflicts" %
              ("ok" if ok else "not ok", i, name, covered, len(ref), pct, len(conflicts)))
        for c in conflicts[:10]:
            print("# conflict: " + c)
        for m in missing[:10]:
            print("# untyped by qopt: " + m)
    print("# values the files leave untyped: qopt types %d of the %d onnx types" %
          (inter_covered, inter_total))
    print("# static dims: qopt gives %d of the %d onnx gives" %
          (dims_seen[1], dims_seen[0]))
    pct = 100.0 * covered_all / total if total else 100.0
    print("%s %d - overall coverage %d/%d values (%.2f%%, at least %g%% needed)" %
          ("ok" if pct >= minimum else "not ok", len(lines) + 1, covered_all,
           total, pct, minimum))
    return 1 if failed or pct < minimum else 0


if __name__ == "__main__":
    sys.exit(main())
