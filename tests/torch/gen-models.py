#!/usr/bin/python3
"""tests/torch/gen-models.py [OUTDIR] - the exporter-made test models.

Exports small transformers with torch.onnx.export (Debian's python3-torch
1.13, opset 17) exactly as torch writes them: scalars as Constant nodes,
no value_info, onnx:: names. Only the FP8 standard-Q/DQ and FLOAT16
variants are rewritten afterwards with onnx, as the tools that make them
do (see below). Deterministic: fixed seeds, CPU, one thread.

  apt-get install python3-torch python3-onnx
  /usr/bin/python3 tests/torch/gen-models.py          # into tests/torch/models

Models (batch 1, static shapes; head sizes 16..64):
  vit_sdpa      ViT, Conv patches, 2 layers, attention as torch 2's SDPA
                export writes it: q*sqrt(s), Transpose(k)*sqrt(s), MatMul,
                Softmax, MatMul (torch 1.13 has no SDPA: written out)
  vit_div       the same ViT, HF form: MatMul(q, k^T) / sqrt(d)
  gpt2          GPT-2, 2 blocks: fused QKV Linear + Split, causal mask
                Where(mask, scores, finfo.min), GELU tanh, tied LM head
  bert          BERT encoder, 1 layer, hidden 384 (6 heads of 64),
                attention-mask Add ((1 - mask) * finfo.min)
  gqa           LLaMA-style decoder, 2 layers: 4 query heads, 2 KV heads
                (repeat_kv by Expand + Reshape), RoPE (rotate-half),
                RMSNorm, softmax(..., dtype=torch.float32)
  gqa_fp16      gqa in FLOAT16 (see fp16() below)
  mha           2 layers of torch.nn.MultiheadAttention, additive mask
  control_flow  scripted control flow (torch.jit.script): an If on a
                tensor's sum with a Linear in each branch, then a Loop
                of 3 trips (counted from a tensor, so not unrolled) of
                tanh(Linear(h)) + h, as the exporter
                writes them (If and Loop bodies with Gemm/MatMul, body
                Constant nodes), for autocast's bodies
  shape_ops     no attention: the operators whose shapes torch leaves to
                the reader (ConvTranspose, F.pad's computed pads, Resize,
                DepthToSpace, GridSample, Einsum, LSTM, GRU) for the
                shape inference checks
  vit_sdpa_fp8_trt, gpt2_fp8_trt, gqa_fp8_trt
                FP8 fake-quantized as ModelOpt does: quantizers at every
                Linear's input and weight and at the attention MatMul
                inputs (Q, K, V, softmax output), exported as
                trt::TRT_FP8QuantizeLinear / trt::TRT_FP8DequantizeLinear
  vit_sdpa_fp8_std, gpt2_fp8_std, gqa_fp8_std
                the same, converted with onnx to standard QuantizeLinear /
                DequantizeLinear with a FLOAT8E4M3FN zero point at opset 19
                (torch 1.13 cannot make FP8 tensors; ModelOpt converts the
                same way), Reduce ops' axes moved to an input (opset 18)

  resnet_cnn    ResNet-style CNN (issue 29): Conv+BN+ReLU stem, MaxPool,
                basic blocks with identity and downsampling shortcuts
                (BN folded into the Convs by the export), global average
                pool, a Linear head: 10 classes
  unet_cnn      U-Net-style segmentation: two down levels (Conv, ReLU,
                MaxPool), ConvTranspose up-sampling, Concat skips, a 1x1
                Conv head: 3 classes per pixel
  (gen-models.py OUTDIR cnn: only these two)

Samples for `qopt calibrate --data` and for comparisons: NAME.calib/sNN/
and NAME.held/sNN/, one INPUT.npy per graph input.
"""
import math
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper, TensorProto
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
OPSET = 17
N_CALIB = 4
N_HELD = 4

# ---------------------------------------------------------------- FP8

FP8_MAX = 448.0


def fp8_round(x):
    """x rounded to FLOAT8E4M3FN (saturating), in x's type: the forward
    value of the fake quantizer (only traced; the graph carries the ops)."""
    a = x.abs().clamp(max=FP8_MAX)
    e = torch.floor(torch.log2(a.clamp(min=2.0 ** -9))).clamp(min=-6)
    step = torch.pow(2.0, e - 3)
    return torch.sign(x) * torch.round(a / step) * step


class TrtFP8(torch.autograd.Function):
    """Fake FP8 quantization, exported as ModelOpt's custom-op pair."""

    @staticmethod
    def forward(ctx, x, amax):
        s = amax / FP8_MAX
        return fp8_round(x / s) * s

    @staticmethod
    def symbolic(g, x, amax):
        s = g.op('Constant', value_t=torch.tensor(amax / FP8_MAX,
                                                  dtype=torch.float32))
        q = g.op('trt::TRT_FP8QuantizeLinear', x, s)
        q.setType(x.type().with_dtype(torch.uint8))
        dq = g.op('trt::TRT_FP8DequantizeLinear', q, s)
        dq.setType(x.type())
        return dq


class Quant(nn.Module):
    """A quantizer: off, measuring amax, or fake-quantizing to FP8."""
    mode = 'off'

    def __init__(self, fixed=None):
        super().__init__()
        self.amax = fixed or 0.0
        self.fixed = fixed is not None

    def forward(self, x):
        if Quant.mode == 'calib' and not self.fixed:
            self.amax = max(self.amax, float(x.detach().abs().max()))
        elif Quant.mode == 'fp8':
            return TrtFP8.apply(x, self.amax)
        return x


class QLinear(nn.Linear):
    """nn.Linear with input and weight quantizers (ModelOpt's QuantLinear)."""

    def __init__(self, i, o, bias=True):
        super().__init__(i, o, bias)
        self.qin = Quant()
        self.qw = Quant()

    def forward(self, x):
        if Quant.mode == 'fp8' and not self.qw.amax:
            self.qw.amax = float(self.weight.detach().abs().max())
        return F.linear(self.qin(x), self.qw(self.weight), self.bias)


class BmmQuant(nn.Module):
    """The attention MatMul inputs' quantizers."""

    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = Quant(), Quant(), Quant()
        self.p = Quant(fixed=1.0)   # softmax output: [0, 1]

# ---------------------------------------------------------------- ViT


class ViTAttention(nn.Module):
    def __init__(self, d, h, form, quant):
        super().__init__()
        L = QLinear if quant else nn.Linear
        self.h, self.hd, self.form = h, d // h, form
        self.query, self.key, self.value = (L(d, d) for _ in range(3))
        self.out = L(d, d)
        self.bq = BmmQuant()

    def heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = (self.heads(f(x)) for f in (self.query, self.key, self.value))
        # ModelOpt quantizes SDPA's q, k, v (before its scaling).
        q, k, v = self.bq.q(q), self.bq.k(k), self.bq.v(v)
        if self.form == 'sdpa':
            # torch 2's SDPA export: both sides scaled by sqrt(1/sqrt(d)).
            c = math.sqrt(1.0 / math.sqrt(self.hd))
            a = torch.matmul(q * c, k.transpose(-2, -1) * c)
        else:
            a = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd)
        a = torch.softmax(a, dim=-1)
        o = torch.matmul(self.bq.p(a), v).permute(0, 2, 1, 3).reshape(b, s, d)
        return self.out(o)


class ViT(nn.Module):
    def __init__(self, form, quant=False, d=64, h=2, layers=2, img=32, patch=8,
                 ncls=10):
        super().__init__()
        L = QLinear if quant else nn.Linear
        n = (img // patch) ** 2
        self.patch = nn.Conv2d(3, d, patch, stride=patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict({
                'ln1': nn.LayerNorm(d), 'attn': ViTAttention(d, h, form, quant),
                'ln2': nn.LayerNorm(d), 'fc1': L(d, 2 * d),
                'fc2': L(2 * d, d)}))
        self.ln = nn.LayerNorm(d)
        self.head = L(d, ncls)

    def forward(self, pixel_values):
        x = self.patch(pixel_values).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)
        x = x + self.pos
        for b in self.blocks:
            x = x + b['attn'](b['ln1'](x))
            x = x + b['fc2'](F.gelu(b['fc1'](b['ln2'](x))))
        return self.head(self.ln(x)[:, 0])

# ---------------------------------------------------------------- GPT-2


class GPT2Block(nn.Module):
    def __init__(self, d, h, s, quant):
        super().__init__()
        L = QLinear if quant else nn.Linear
        self.h, self.hd, self.d = h, d // h, d
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn = L(d, 3 * d)
        self.c_proj = L(d, d)
        self.c_fc = L(d, 2 * d)
        self.mlp_proj = L(2 * d, d)
        self.bq = BmmQuant()
        self.register_buffer('bias', torch.tril(
            torch.ones(s, s, dtype=torch.bool)).view(1, 1, s, s))

    def heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)

    def forward(self, x):
        b, s, _ = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(self.d, dim=2)
        q, k, v = self.heads(q), self.heads(k), self.heads(v)
        q, k, v = self.bq.q(q), self.bq.k(k), self.bq.v(v)
        w = torch.matmul(q, k.transpose(-1, -2))
        w = w / torch.full([], v.size(-1) ** 0.5, dtype=w.dtype)
        mask = self.bias[:, :, :s, :s]
        minv = torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype)
        w = torch.where(mask, w.to(w.dtype), minv)
        w = F.softmax(w, dim=-1).type(v.dtype)
        o = torch.matmul(self.bq.p(w), v)
        o = o.permute(0, 2, 1, 3).contiguous().view(b, s, self.d)
        x = x + self.c_proj(o)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)),
                                        approximate='tanh'))


class GPT2(nn.Module):
    def __init__(self, quant=False, vocab=64, d=64, h=2, s=16, layers=2):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(s, d)
        self.h = nn.ModuleList(GPT2Block(d, h, s, quant) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = (QLinear if quant else nn.Linear)(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight          # tied
        self.register_buffer('position_ids', torch.arange(s).view(1, s))

    def forward(self, input_ids):
        x = self.wte(input_ids) + self.wpe(self.position_ids[:, :input_ids.shape[1]])
        for b in self.h:
            x = b(x)
        return self.lm_head(self.ln_f(x))

# ---------------------------------------------------------------- BERT


class Bert(nn.Module):
    def __init__(self, vocab=32, d=384, h=6, s=16, ffn=128):
        super().__init__()
        self.h, self.hd = h, d // h
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(s, d)
        self.ln_e = nn.LayerNorm(d, eps=1e-12)
        self.query, self.key, self.value = (nn.Linear(d, d) for _ in range(3))
        self.attn_out = nn.Linear(d, d)
        self.ln_1 = nn.LayerNorm(d, eps=1e-12)
        self.inter = nn.Linear(d, ffn)
        self.out = nn.Linear(ffn, d)
        self.ln_2 = nn.LayerNorm(d, eps=1e-12)
        self.register_buffer('position_ids', torch.arange(s).view(1, s))

    def heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, self.h, self.hd).permute(0, 2, 1, 3)

    def forward(self, input_ids, attention_mask):
        x = self.ln_e(self.word(input_ids) + self.pos(self.position_ids))
        ext = attention_mask[:, None, None, :].to(x.dtype)
        ext = (1.0 - ext) * torch.finfo(x.dtype).min
        b, s, d = x.shape
        q, k, v = (self.heads(f(x)) for f in (self.query, self.key, self.value))
        a = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd)
        a = torch.softmax(a + ext, dim=-1)
        o = torch.matmul(a, v).permute(0, 2, 1, 3).contiguous().view(b, s, d)
        x = self.ln_1(self.attn_out(o) + x)
        return self.ln_2(self.out(F.gelu(self.inter(x))) + x)

# ---------------------------------------------------------------- GQA


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(1 + 0.1 * torch.randn(d))
        self.eps = eps

    def forward(self, x):
        dt = x.dtype
        x = x.to(torch.float32)
        var = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(var + self.eps)
        return self.weight * x.to(dt)


def rotate_half(x):
    x1 = x[..., :x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n):
    b, kvh, s, hd = x.shape
    x = x[:, :, None, :, :].expand(b, kvh, n, s, hd)
    return x.reshape(b, kvh * n, s, hd)


class GQALayer(nn.Module):
    def __init__(self, d, h, kvh, quant):
        super().__init__()
        L = QLinear if quant else nn.Linear
        self.h, self.kvh, self.hd = h, kvh, d // h
        self.q_proj = L(d, h * self.hd, bias=False)
        self.k_proj = L(d, kvh * self.hd, bias=False)
        self.v_proj = L(d, kvh * self.hd, bias=False)
        self.o_proj = L(h * self.hd, d, bias=False)
        self.gate = L(d, 2 * d, bias=False)
        self.up = L(d, 2 * d, bias=False)
        self.down = L(2 * d, d, bias=False)
        self.ln_1, self.ln_2 = RMSNorm(d), RMSNorm(d)
        self.bq = BmmQuant()

    def forward(self, x, cos, sin, mask):
        b, s, d = x.shape
        y = self.ln_1(x)
        q = self.q_proj(y).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.k_proj(y).view(b, s, self.kvh, self.hd).transpose(1, 2)
        v = self.v_proj(y).view(b, s, self.kvh, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        # ModelOpt's quantizers: Q and K after RoPE, K and V before
        # repeat_kv (the KV-cache form).
        q, k, v = self.bq.q(q), self.bq.k(k), self.bq.v(v)
        k = repeat_kv(k, self.h // self.kvh)
        v = repeat_kv(v, self.h // self.kvh)
        w = torch.matmul(q, k.transpose(2, 3)) * self.hd ** -0.5
        w = w + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        o = torch.matmul(self.bq.p(w), v)
        o = o.transpose(1, 2).reshape(b, s, d)
        x = x + self.o_proj(o)
        y = self.ln_2(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class GQA(nn.Module):
    def __init__(self, quant=False, vocab=64, d=64, h=4, kvh=2, s=16,
                 layers=2):
        super().__init__()
        hd = d // h
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList(GQALayer(d, h, kvh, quant)
                                    for _ in range(layers))
        self.norm = RMSNorm(d)
        self.lm_head = (QLinear if quant else nn.Linear)(d, vocab, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        f = torch.outer(torch.arange(s).float(), inv)
        emb = torch.cat((f, f), dim=-1)
        self.register_buffer('cos', emb.cos()[None, None])
        self.register_buffer('sin', emb.sin()[None, None])
        m = torch.full((s, s), torch.finfo(torch.float32).min).triu(1)
        self.register_buffer('mask', m[None, None])

    def forward(self, input_ids):
        x = self.embed(input_ids)
        for lyr in self.layers:
            x = lyr(x, self.cos, self.sin, self.mask)
        return self.lm_head(self.norm(x))

# ---------------------------------------------------------------- MHA


class MHA(nn.Module):
    def __init__(self, d=64, h=2, s=16, layers=2):
        super().__init__()
        self.ln = nn.ModuleList(nn.LayerNorm(d) for _ in range(layers))
        self.attn = nn.ModuleList(nn.MultiheadAttention(d, h, batch_first=True)
                                  for _ in range(layers))
        self.fc = nn.Linear(d, d)
        m = torch.full((s, s), float('-inf')).triu(1)
        self.register_buffer('mask', m)

    def forward(self, x):
        for ln, at in zip(self.ln, self.attn):
            y = ln(x)
            x = x + at(y, y, y, attn_mask=self.mask, need_weights=False)[0]
        return self.fc(x)

# ---------------------------------------------------------------- export


def samples(model, kind):
    """(input names, list of calibration + held-back feeds)."""
    g = torch.Generator().manual_seed({'vit': 11, 'gpt2': 12, 'bert': 13,
                                       'gqa': 14, 'mha': 15}[kind])
    feeds = []
    for i in range(N_CALIB + N_HELD):
        if kind == 'vit':
            feeds.append({'pixel_values': torch.randn(1, 3, 32, 32, generator=g)})
        elif kind in ('gpt2', 'gqa'):
            feeds.append({'input_ids': torch.randint(0, 64, (1, 16), generator=g)})
        elif kind == 'bert':
            m = torch.ones(1, 16, dtype=torch.int64)
            m[0, 16 - 2 * (i % 4):] = 0
            feeds.append({'input_ids': torch.randint(0, 32, (1, 16), generator=g),
                          'attention_mask': m})
        else:
            feeds.append({'x': torch.randn(1, 16, 64, generator=g)})
    return list(feeds[0]), feeds


def export(model, kind, out, name, custom=False):
    names, feeds = samples(model, kind)
    args = tuple(feeds[0][n] for n in names)
    path = os.path.join(out, name + '.onnx')
    kw = {'custom_opsets': {'trt': 1}} if custom else {}
    with torch.no_grad():
        torch.onnx.export(model, args, path, opset_version=OPSET,
                          input_names=names, output_names=['logits'],
                          do_constant_folding=True, **kw)
    return path, feeds


def save_samples(out, name, feeds, dtype=None):
    for part, sl in (('calib', feeds[:N_CALIB]), ('held', feeds[N_CALIB:])):
        for i, f in enumerate(sl):
            d = os.path.join(out, '%s.%s' % (name, part), 's%02d' % i)
            os.makedirs(d, exist_ok=True)
            for k, v in f.items():
                a = v.numpy()
                if dtype is not None and a.dtype == np.float32:
                    a = a.astype(dtype)
                np.save(os.path.join(d, k + '.npy'), a)


def calibrate(model, feeds):
    """ModelOpt's calibration: amax of every quantizer over the samples."""
    Quant.mode = 'calib'
    with torch.no_grad():
        for f in feeds[:N_CALIB]:
            model(*f.values())
    Quant.mode = 'fp8'


def to_std(src, dst):
    """trt:: custom-op export -> standard Q/DQ, FLOAT8E4M3FN zero point,
    opset 19 (what ModelOpt's FP8 exporter does, with the domain and
    opset set as ONNX requires)."""
    m = onnx.load(src)
    g = m.graph
    qout = set()
    for i, n in enumerate(g.node):
        if n.domain != 'trt':
            continue
        zp = TensorProto()
        zp.name = '%s_zero_point' % (n.name or 'qdq%d' % i)
        zp.data_type = 17                     # FLOAT8E4M3FN
        zp.raw_data = b'\x00'
        g.initializer.append(zp)
        n.input.append(zp.name)
        n.domain = ''
        if n.op_type == 'TRT_FP8QuantizeLinear':
            n.op_type = 'QuantizeLinear'
            n.attribute.append(onnx.helper.make_attribute('saturate', 1))
            qout.add(n.output[0])
        else:
            n.op_type = 'DequantizeLinear'
    # Opset 18 moved the Reduce ops' axes from an attribute to an input;
    # nothing else these models use changed meaning up to 19.
    for n in g.node:
        if n.op_type.startswith('Reduce'):
            ax = [a for a in n.attribute if a.name == 'axes']
            if ax:
                t = numpy_helper.from_array(np.array(ax[0].ints, np.int64),
                                            n.name + '_axes')
                g.initializer.append(t)
                n.input.append(t.name)
                n.attribute.remove(ax[0])
    for vi in g.value_info:
        if vi.name in qout:
            vi.type.tensor_type.elem_type = 17
    ops = [o for o in m.opset_import if o.domain not in ('trt', '', 'ai.onnx')]
    del m.opset_import[:]
    m.opset_import.extend([onnx.helper.make_opsetid('', 19)] + ops)
    m.ir_version = 9
    onnx.save(m, dst)


def fp16(src, dst):
    """The FLOAT16 model torch writes for model.half() (the CPU torch
    1.13 cannot run half models, so the FP32 export is converted): every
    float initializer, Constant and graph input/output FLOAT16, values
    beyond FLOAT16's range clipped to its finfo (as finfo(half).min in
    the source would be), Cast(to=FLOAT) -> FLOAT16 except the one
    softmax(..., dtype=torch.float32) writes, which keeps FLOAT and is
    followed by the Cast back (.to(query.dtype)). RMSNorm's Casts to
    FLOAT become FLOAT16 (it runs in FLOAT16 here)."""
    m = onnx.load(src)
    g = m.graph
    hmax = float(np.finfo(np.float16).max)

    def half(t):
        a = numpy_helper.to_array(t)
        if a.dtype != np.float32:
            return t
        h = numpy_helper.from_array(np.clip(a, -hmax, hmax).astype(np.float16),
                                    t.name)
        return h

    for i, t in enumerate(g.initializer):
        g.initializer[i].CopyFrom(half(t))
    for v in list(g.input) + list(g.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.FLOAT16
    prod = {o: n for n in g.node for o in n.output}
    nodes = []
    for n in g.node:
        for a in n.attribute:
            if a.name == 'value' and a.t.data_type == TensorProto.FLOAT:
                a.t.CopyFrom(half(a.t))
        nodes.append(n)
        if n.op_type != 'Cast':
            continue
        to = [a for a in n.attribute if a.name == 'to'][0]
        if to.i != TensorProto.FLOAT:
            continue
        p = prod.get(n.input[0])
        users = [c for c in g.node if n.output[0] in c.input]
        if p is not None and p.op_type == 'Softmax' and \
                all(c.op_type == 'Cast' for c in users):
            continue      # .to(query.dtype) already casts back
        if p is not None and p.op_type == 'Softmax':
            back = n.output[0] + '_half'
            for c in g.node:
                for j, x in enumerate(c.input):
                    if x == n.output[0]:
                        c.input[j] = back
            nodes.append(onnx.helper.make_node(
                'Cast', [n.output[0]], [back], name=n.name + '_half',
                to=TensorProto.FLOAT16))
        else:
            to.i = TensorProto.FLOAT16
    del g.node[:]
    g.node.extend(nodes)
    onnx.save(m, dst)


class ShapeOps(nn.Module):
    """A chain of the operators shape inference must follow on torch's
    own spelling: F.pad computes its pads at run time (Concat, Reshape,
    Slice with step -1, Transpose, Cast of constants)."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(8, 4, 3, stride=2, padding=1,
                                     output_padding=1)
        self.w = nn.Parameter(torch.randn(6, 4))
        self.lstm = nn.LSTM(16, 12, batch_first=True, bidirectional=True)
        self.gru = nn.GRU(24, 10)

    def forward(self, x, grid):
        y = F.pad(self.up(x), (1, 2, 0, 1))
        y = F.interpolate(y, scale_factor=2.0, mode='nearest')
        u = F.pixel_unshuffle(F.pixel_shuffle(y, 2), 4)
        gs = F.grid_sample(y, grid, align_corners=False)
        e = torch.einsum('bchw,dc->bdhw', y, self.w)
        h, _ = self.lstm(u.flatten(2).transpose(1, 2))
        r, _ = self.gru(h.transpose(0, 1))
        return gs.mean() + e.mean() + r.mean()


def export_shape_ops(out):
    torch.manual_seed(7)
    model = ShapeOps().eval()
    g = torch.Generator().manual_seed(7)
    args = (torch.randn(1, 8, 6, 6, generator=g),
            torch.rand(1, 5, 7, 2, generator=g) * 2 - 1)
    with torch.no_grad():
        torch.onnx.export(model, args, os.path.join(out, 'shape_ops.onnx'),
                          opset_version=OPSET, input_names=['x', 'grid'],
                          output_names=['logits'], do_constant_folding=True)


class ControlFlow(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(16, 16)
        self.a = torch.nn.Linear(16, 16)
        self.b = torch.nn.Linear(16, 16)
        self.step = torch.nn.Linear(16, 16)
        self.out = torch.nn.Linear(16, 8)

    def forward(self, x):
        h = torch.relu(self.inp(x))
        if bool(h.sum() > 4.0):
            h = self.a(h)
        else:
            h = self.b(h) * 0.5
        # a data-dependent trip count: the exporter writes a Loop
        # (range(3) it unrolls)
        k = int((h.abs().sum() * 0).long()) + 3
        for _ in range(k):
            h = torch.tanh(self.step(h)) + h
        return self.out(h)


def export_control(out):
    torch.manual_seed(9)
    model = torch.jit.script(ControlFlow().eval())
    x = torch.randn(1, 16, generator=torch.Generator().manual_seed(9))
    with torch.no_grad():
        torch.onnx.export(model, (x,), os.path.join(out, 'control_flow.onnx'),
                          opset_version=OPSET, input_names=['x'],
                          output_names=['y'], do_constant_folding=True)


def build(kind, quant=False):
    torch.manual_seed({'vit': 1, 'vit_div': 2, 'gpt2': 3, 'bert': 4, 'gqa': 5,
                       'mha': 6}[kind])
    if kind == 'vit':
        return ViT('sdpa', quant)
    if kind == 'vit_div':
        return ViT('div')
    return {'gpt2': GPT2, 'gqa': GQA}[kind](quant) if kind in ('gpt2', 'gqa') \
        else {'bert': Bert, 'mha': MHA}[kind]()


# ---------------------------------------------------------------- CNNs


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                      nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (self.down(x) if self.down is not None else x))


class ResNetCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU(),
                                  nn.MaxPool2d(2))
        self.layers = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2),
                                    Block(32, 32, 1), Block(32, 64, 2))
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        y = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(y, 1), 1))


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, 1, 1), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, 1, 1), nn.ReLU())


class UNetCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.d1, self.d2 = double_conv(3, 16), double_conv(16, 32)
        self.mid = double_conv(32, 64)
        self.u2 = nn.ConvTranspose2d(64, 32, 2, 2)
        self.c2 = double_conv(64, 32)
        self.u1 = nn.ConvTranspose2d(32, 16, 2, 2)
        self.c1 = double_conv(32, 16)
        self.head = nn.Conv2d(16, 3, 1)

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        m = self.mid(F.max_pool2d(b, 2))
        y = self.c2(torch.cat([self.u2(m), b], 1))
        y = self.c1(torch.cat([self.u1(y), a], 1))
        return self.head(y)


def init_bn(model, seed):
    """Trained-looking BatchNorm statistics (a fresh one is the identity)."""
    g = torch.Generator().manual_seed(seed)
    for mod in model.modules():
        if isinstance(mod, nn.BatchNorm2d):
            n = mod.num_features
            mod.running_mean.copy_(torch.randn(n, generator=g) * 0.1)
            mod.running_var.copy_(torch.rand(n, generator=g) * 0.5 + 0.5)
            mod.weight.data.copy_(torch.rand(n, generator=g) * 0.5 + 0.75)
            mod.bias.data.copy_(torch.randn(n, generator=g) * 0.1)


def export_cnns(out):
    """resnet_cnn and unet_cnn with their samples (images 1x3x32x32)."""
    for name, cls, seed in (('resnet_cnn', ResNetCNN, 21),
                            ('unet_cnn', UNetCNN, 22)):
        torch.manual_seed(seed)
        model = cls()
        init_bn(model, seed)
        model.eval()
        g = torch.Generator().manual_seed(seed + 100)
        feeds = [{'x': torch.randn(1, 3, 32, 32, generator=g)}
                 for _ in range(N_CALIB + N_HELD)]
        path = os.path.join(out, name + '.onnx')
        with torch.no_grad():
            torch.onnx.export(model, (feeds[0]['x'],), path,
                              opset_version=OPSET, input_names=['x'],
                              output_names=['logits'],
                              do_constant_folding=True)
        save_samples(out, name, feeds)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'models')
    os.makedirs(out, exist_ok=True)
    if len(sys.argv) > 2 and sys.argv[2] == 'cnn':
        export_cnns(out)
        return
    if len(sys.argv) > 2 and sys.argv[2] == 'control':
        export_control(out)
        return
    for name, kind, skind in (('vit_sdpa', 'vit', 'vit'),
                              ('vit_div', 'vit_div', 'vit'),
                              ('gpt2', 'gpt2', 'gpt2'), ('bert', 'bert', 'bert'),
                              ('gqa', 'gqa', 'gqa'), ('mha', 'mha', 'mha')):
        Quant.mode = 'off'
        model = build(kind).eval()
        path, feeds = export(model, skind, out, name)
        save_samples(out, name, feeds)
        if name == 'gqa':
            fp16(path, os.path.join(out, 'gqa_fp16.onnx'))
            save_samples(out, 'gqa_fp16', feeds, np.float16)
    for kind, name in (('vit', 'vit_sdpa'), ('gpt2', 'gpt2'), ('gqa', 'gqa')):
        Quant.mode = 'off'
        model = build(kind, quant=True).eval()
        _, feeds = samples(model, kind)
        calibrate(model, feeds)
        path, _ = export(model, kind, out, name + '_fp8_trt', custom=True)
        to_std(path, os.path.join(out, name + '_fp8_std.onnx'))
        Quant.mode = 'off'
    export_shape_ops(out)
    export_control(out)
    export_cnns(out)


if __name__ == '__main__':
    main()
