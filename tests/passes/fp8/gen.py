#!/usr/bin/env python3
"""tests/passes/fp8/gen.py - exporter-shaped FP8 transformer models for fp8-mha.

    fp8mha-gen.py OUT.onnx [key=value ...]

  form=custom|std      trt::TRT_FP8* custom ops (opset 17, as the PyTorch
                       exporter writes them) or standard Q/DQ (opset 19)
  attn=sdpa|vit|eager|gpt2
                       scale Mul on q and on Transpose(k) before BMM1
                       (scaled_dot_product_attention), Div after BMM1 (HF
                       ViT), Mul after BMM1 (eager attention), or GPT-2 as
                       torch exports it: Div by Pow(Constant d, Constant
                       0.5), causal mask Where(mask, scores, finfo.min),
                       Softmax -> Cast -> BMM2 (f16/bf16: the Softmax in
                       FLOAT between two Casts, as softmax(dtype=float32))
  kv=heads|repeat|cache
                       K and V with H heads; one KV head repeated to H
                       after its Q/DQ (repeat_kv: Unsqueeze, Expand,
                       Reshape; grouped-query attention); or each the
                       Concat of a "past" (0.5 times itself, its own Q/DQ
                       with the same scale) and itself along the sequence
                       (a KV cache; no mask)
  blocks=N             transformer blocks (attention + GELU MLP, LayerNorm)
  dtype=f32|f16|bf16   graph float type; f16/bf16 keep FP32 weights and scales
                       with a Cast to the graph type between each weight's DQ and its
                       Transpose (an FP16 conversion after export)
  mask=1               an additive causal mask before the Softmax
  spelling=trt|alt      custom op names TRT_FP8QuantizeLinear, or
                       TRT_FP8_QuantizeLinear in domain trt.plugins
  seed=N
  hd=N                 head size (default 16; D = 2 * hd)
  wscale=init|const|axis
                       weight scales as initializers, as a constant
                       subgraph Div(Constant amax, Constant 448), or per
                       output channel (axis 0, std form only)
  bad=LIST             ';'-separated defects in block 0 (last for nov):
     dqbranch   the query DQ output is also read by a ReduceSum (output)
     trbranch   the key Transpose output is also read by a ReduceSum
     smbranch   the Softmax output is also read by a ReduceSum
     wbranch    the query weight's DQ output is also read by a ReduceSum
     qshare     the query weight's Q output feeds two DQs
     qattr      the first custom Q carries an attribute (axis = 0)
     vcast      a Cast (to the same type) between the value's DQ and BMM2
     nov        the value of the LAST block has no Q/DQ
     kaxis      the key's Q/DQ per axis (2, the sequence; std form only)
     cachescale kv=cache: the key's past with a Q/DQ of another scale
No ONNX checker run: onnx 1.12 does not know the FP8 types.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F8 = 17
S, H = 8, 2


class Builder:
    def __init__(self, opts):
        self.o = opts
        self.nodes, self.inits, self.outputs = [], [], []
        self.vinfo = []
        self.n_qdq = 0
        self.n = 0
        self.rng = np.random.default_rng(int(opts['seed']))
        # bf16: arrays are built as float16 and written as BFLOAT16 (numpy
        # has no bfloat16; nothing else is float16 in that mode).
        self.bf16 = opts['dtype'] == 'bf16'
        self.f16 = opts['dtype'] in ('f16', 'bf16')
        self.act = np.float16 if self.f16 else np.float32
        self.act_t = TensorProto.BFLOAT16 if self.bf16 else \
            TensorProto.FLOAT16 if self.f16 else TensorProto.FLOAT

    def name(self, base):
        self.n += 1
        return '%s_%d' % (base, self.n)

    def init(self, base, arr):
        nm = self.name(base)
        if self.bf16 and arr.dtype == np.float16:
            f = np.asarray(arr, np.float32).reshape(-1).view(np.uint32)
            # round to nearest even on the upper 16 bits
            b = ((f + 0x7FFF + ((f >> 16) & 1)) >> 16).astype('<u2')
            t = TensorProto()
            t.name, t.data_type = nm, TensorProto.BFLOAT16
            t.dims.extend(arr.shape)
            t.raw_data = b.tobytes()
            self.inits.append(t)
            return nm
        self.inits.append(numpy_helper.from_array(arr, nm))
        return nm

    def node(self, op, ins, base, domain='', **attrs):
        out = self.name(base)
        self.nodes.append(helper.make_node(op, ins, [out], name=out + '_n',
                                           domain=domain, **attrs))
        return out

    def zero_point(self):
        nm = self.name('zp')
        t = TensorProto()
        t.name = nm
        t.data_type = F8
        t.raw_data = b'\x00'
        self.inits.append(t)
        return nm

    def qdq_axis(self, x, amax, base, axis=0):
        s = self.init(base + '_scale', (amax / 448.0).astype(np.float32))
        nm = self.name('zp')
        t = TensorProto()
        t.name = nm
        t.data_type = F8
        t.dims.extend([len(amax)])
        t.raw_data = bytes(len(amax))
        self.inits.append(t)
        q = self.node('QuantizeLinear', [x, s, nm], base + '_q', axis=axis)
        return self.node('DequantizeLinear', [q, s, nm], base + '_dq',
                         axis=axis)

    def constant(self, base, arr):
        out = self.name(base)
        self.nodes.append(helper.make_node(
            'Constant', [], [out], name=out + '_n',
            value=numpy_helper.from_array(arr)))
        return out

    def qdq(self, x, amax, base, scale_dtype=None, qshare=False,
            const=False):
        sd = scale_dtype or self.act
        if const:
            # What exporters write for amax / 448 without folding it.
            s = self.node('Div', [self.constant(base + '_amax',
                                                np.array(amax, sd)),
                                  self.constant(base + '_fp8max',
                                                np.array(448.0, sd))],
                          base + '_scale')
        else:
            s = self.init(base + '_scale', np.array(amax / 448.0, dtype=sd))
        if self.o['form'] == 'custom':
            extra = {}
            if 'qattr' in self.o['bad'] and not self.n_qdq:
                extra['axis'] = 0
            self.n_qdq += 1
            alt = self.o['spelling'] == 'alt'
            qop = 'TRT_FP8_QuantizeLinear' if alt else 'TRT_FP8QuantizeLinear'
            dqop = 'TRT_FP8_DequantizeLinear' if alt else \
                'TRT_FP8DequantizeLinear'
            dom = 'trt.plugins' if alt else 'trt'
            q = self.node(qop, [x, s], base + '_q', domain=dom, **extra)
            # The exporter types the custom Q output uint8.
            self.vinfo.append(helper.make_tensor_value_info(
                q, TensorProto.UINT8, None))
            dq = self.node(dqop, [q, s], base + '_dq', domain=dom)
            if qshare:
                self.probe(self.node(dqop, [q, s], base + '_dq2',
                                     domain=dom))
            return dq
        z = self.zero_point()
        q = self.node('QuantizeLinear', [x, s, z], base + '_q')
        dq = self.node('DequantizeLinear', [q, s, z], base + '_dq')
        if qshare:
            self.probe(self.node('DequantizeLinear', [q, s, z],
                                 base + '_dq2'))
        return dq

    def probe(self, v):
        r = self.node('ReduceSum', [v], 'probe', keepdims=0)
        self.outputs.append(r)

    def linear(self, x, n, k, base, wbranch=False, qshare=False):
        """nn.Linear as exported: x Q/DQ, W [n, k] -> Q -> DQ ->
        [Cast] -> Transpose -> MatMul, + bias."""
        w = (self.rng.standard_normal((n, k)) * 0.2).astype(np.float32)
        xq = self.qdq(x, 6.0, base + '_in')
        wi = self.init(base + '_w', w)     # FP32 in every mode
        if self.o['wscale'] == 'axis':
            wdq = self.qdq_axis(wi, np.abs(w).max(axis=1), base + '_w')
        else:
            wdq = self.qdq(wi, float(np.abs(w).max()), base + '_w',
                           scale_dtype=np.float32, qshare=qshare,
                           const=self.o['wscale'] == 'const')
        if wbranch:
            self.probe(wdq)
        if self.f16:
            wdq = self.node('Cast', [wdq], base + '_wcast', to=self.act_t)
        wt = self.node('Transpose', [wdq], base + '_wT', perm=[1, 0])
        y = self.node('MatMul', [xq, wt], base + '_mm')
        b = self.init(base + '_b', (self.rng.standard_normal(n) * 0.1)
                      .astype(self.act))
        return self.node('Add', [y, b], base + '_out')

    def layernorm(self, x, base):
        g = self.init(base + '_g', np.ones(D, self.act))
        b = self.init(base + '_b', np.zeros(D, self.act))
        return self.node('LayerNormalization', [x, g, b], base, axis=-1,
                         epsilon=1e-5)

    def gelu(self, x, base):
        c = self.init(base + '_rsqrt2', np.array(1 / np.sqrt(2), self.act))
        half = self.init(base + '_half', np.array(0.5, self.act))
        one = self.init(base + '_one', np.array(1.0, self.act))
        e = self.node('Erf', [self.node('Mul', [x, c], base + '_s')], base + '_erf')
        return self.node('Mul', [self.node('Mul', [x, half], base + '_h'),
                                 self.node('Add', [e, one], base + '_1p')],
                         base + '_gelu')

    def heads(self, x, base, h=H):
        shp = self.init(base + '_shape', np.array([1, S, h, HD], np.int64))
        r = self.node('Reshape', [x, shp], base + '_r')
        t = self.node('Transpose', [r], base + '_t', perm=[0, 2, 1, 3])
        # Shapes known up to the first custom op, as an exporter's
        # shape inference leaves them.
        self.vinfo.append(helper.make_tensor_value_info(
            t, self.act_t, [1, h, S, HD]))
        return t

    def repeat_kv(self, x, base):
        """[1, 1, S, HD] -> [1, H, S, HD] as LLaMA's repeat_kv exports."""
        ax = self.init(base + '_ax', np.array([2], np.int64))
        u = self.node('Unsqueeze', [x, ax], base + '_u')
        es = self.init(base + '_eshape', np.array([1, 1, H, S, HD], np.int64))
        e = self.node('Expand', [u, es], base + '_e')
        rs = self.init(base + '_rshape', np.array([1, H, S, HD], np.int64))
        return self.node('Reshape', [e, rs], base + '_rep')

    def cache(self, x, xd, amax, base):
        """Concat(DQ(Q(past)), xd) along the sequence, past = 0.5 x."""
        half = self.init(base + '_half', np.array(0.5, self.act))
        past = self.qdq(self.node('Mul', [x, half], base + '_past'), amax,
                        base + '_pq')
        return self.node('Concat', [past, xd], base, axis=2)

    def attention(self, x, i, bad, last):
        base = 'b%d' % i
        q = self.heads(self.linear(x, D, D, base + '_qproj',
                                   wbranch='wbranch' in bad,
                                   qshare='qshare' in bad), base + '_q')
        rep = self.o['kv'] == 'repeat'
        kvd, kvh = (HD, 1) if rep else (D, H)
        k = self.heads(self.linear(x, kvd, D, base + '_kproj'), base + '_k',
                       kvh)
        v = self.heads(self.linear(x, kvd, D, base + '_vproj'), base + '_v',
                       kvh)
        qd = self.qdq(q, 4.0, base + '_qa')
        if 'kaxis' in bad:
            kd = self.qdq_axis(k, np.full(S, 4.0), base + '_ka', axis=2)
        else:
            kd = self.qdq(k, 4.0, base + '_ka')
        if rep:
            kd = self.repeat_kv(kd, base + '_krep')
        if self.o['kv'] == 'cache':
            kd = self.cache(k, kd, 8.0 if 'cachescale' in bad else 4.0,
                            base + '_kcache')
        if 'dqbranch' in bad:
            self.probe(qd)
        kt = self.node('Transpose', [kd], base + '_kT', perm=[0, 1, 3, 2])
        if 'trbranch' in bad:
            self.probe(kt)
        attn = self.o['attn']
        if attn == 'sdpa':
            c = self.init(base + '_c', np.array(HD ** -0.25, self.act))
            qd = self.node('Mul', [qd, c], base + '_qs')
            kt = self.node('Mul', [kt, c], base + '_ks')
        s = self.node('MatMul', [qd, kt], base + '_bmm1')
        if attn == 'vit':
            d = self.init(base + '_d', np.array(np.sqrt(HD), self.act))
            s = self.node('Div', [s, d], base + '_div')
        elif attn == 'eager':
            c = self.init(base + '_c', np.array(HD ** -0.5, self.act))
            s = self.node('Mul', [s, c], base + '_mul')
        elif attn == 'gpt2':
            d = self.node('Pow', [self.constant(base + '_hd',
                                                np.array(HD, self.act)),
                                  self.constant(base + '_half',
                                                np.array(0.5, self.act))],
                          base + '_sqrtd')
            s = self.node('Div', [s, d], base + '_div')
            keep = np.tril(np.ones((S, S), bool)).reshape(1, 1, S, S)
            fill = self.init(base + '_fill', np.array(
                np.finfo(self.act).min, self.act))
            s = self.node('Where', [self.init(base + '_causal', keep), s,
                                    fill], base + '_where')
        if self.o['mask'] == '1' and attn != 'gpt2' and \
                self.o['kv'] != 'cache':
            m = np.triu(np.full((S, S), -1e4, np.float32), 1)
            mi = self.init(base + '_mask', m.reshape(1, 1, S, S)
                           .astype(self.act))
            s = self.node('Add', [s, mi], base + '_masked')
        if attn == 'gpt2' and self.f16:
            # softmax(..., dtype=torch.float32) of a half model
            s = self.node('Cast', [s], base + '_scast', to=TensorProto.FLOAT)
        p = self.node('Softmax', [s], base + '_softmax', axis=-1)
        if 'smbranch' in bad:
            self.probe(p)
        if attn == 'gpt2':
            p = self.node('Cast', [p], base + '_pcast', to=self.act_t)
        vd = v if ('nov' in bad and last) else self.qdq(v, 4.0, base + '_va')
        if rep and vd != v:
            vd = self.repeat_kv(vd, base + '_vrep')
        if self.o['kv'] == 'cache' and vd != v:
            vd = self.cache(v, vd, 4.0, base + '_vcache')
        if 'vcast' in bad:
            vd = self.node('Cast', [vd], base + '_vcast', to=self.act_t)
        o = self.node('MatMul', [p, vd], base + '_bmm2')
        o = self.node('Transpose', [o], base + '_ot', perm=[0, 2, 1, 3])
        shp = self.init(base + '_oshape', np.array([1, S, D], np.int64))
        o = self.node('Reshape', [o, shp], base + '_or')
        return self.linear(o, D, D, base + '_oproj')

    def block(self, x, i, bad, last):
        base = 'b%d' % i
        h = self.node('Add', [x, self.attention(
            self.layernorm(x, base + '_ln1'), i, bad, last)], base + '_res1')
        m = self.linear(self.layernorm(h, base + '_ln2'), 2 * D, D,
                        base + '_fc1')
        m = self.linear(self.gelu(m, base + '_act'), D, 2 * D, base + '_fc2')
        return self.node('Add', [h, m], base + '_res2')

    def build(self):
        nb = int(self.o['blocks'])
        bad = [b for b in self.o['bad'].split(';') if b]
        x = 'x'
        for i in range(nb):
            mine = [b for b in bad if b != 'nov'] if i == 0 else []
            if 'nov' in bad and i == nb - 1:
                mine.append('nov')
            x = self.block(x, i, mine, i == nb - 1)
        y = self.node('Identity', [x], 'y')
        outs = [helper.make_tensor_value_info(y, self.act_t, [1, S, D])]
        for p in self.outputs:
            outs.append(helper.make_tensor_value_info(p, self.act_t, []))
        g = helper.make_graph(self.nodes, 'fp8mha_test',
                              [helper.make_tensor_value_info(
                                  'x', self.act_t, [1, S, D])],
                              outs, self.inits, value_info=self.vinfo)
        custom = self.o['form'] == 'custom'
        ops = [helper.make_opsetid('', 17 if custom else 19)]
        if custom:
            ops.append(helper.make_opsetid(
                'trt.plugins' if self.o['spelling'] == 'alt' else 'trt', 1))
        m = helper.make_model(g, opset_imports=ops,
                              producer_name='fp8mha-gen')
        m.ir_version = 8 if custom else 9
        return m


def main():
    opts = {'form': 'std', 'attn': 'sdpa', 'kv': 'heads', 'blocks': '1', 'dtype': 'f32',
            'mask': '1', 'seed': '1', 'bad': '', 'hd': '16', 'wscale': 'init', 'spelling': 'trt'}
    for a in sys.argv[2:]:
        k, v = a.split('=', 1)
        if k not in opts:
            sys.exit('unknown option ' + k)
        opts[k] = v
    global HD, D
    HD = int(opts.pop('hd'))
    D = H * HD
    onnx.save(Builder(opts).build(), sys.argv[1])


if __name__ == '__main__':
    main()
