#!/usr/bin/python3
"""tests/torch/learned/gen.py [OUTDIR] - trains the two test models with
learned weights and writes them, their sample folders and their
evaluation sets (default OUTDIR: this file's folder).

Random weights say little about what quantization costs: a trained
model's weights and activations have the outliers and the structure the
formats must cope with, and its perplexity / accuracy is a figure that
means something. Both models train on the CPU in minutes with torch
1.13 (Debian's python3-torch; fixed seeds, two threads); make check
does not need torch: what this writes is committed.

charlm: a character-level LLaMA-style language model (token embedding,
  2 blocks of RMSNorm -> causal self-attention with rotary positions ->
  RMSNorm -> SwiGLU MLP, a final RMSNorm and an untied head; d = 64,
  4 heads of 16, MLP 128, context 64, vocabulary = the characters of the
  texts padded to 96: every K and N a multiple of 32, for NVFP4 and
  MXFP8). Small because Debian's CPU torch trains at about 1 GFLOP/s on
  a shared machine: 200 steps of 16 windows take minutes. Trained on
  the licence texts Debian ships in /usr/share/common-licenses (TEXTS
  below): the first 90% of each file trains, the last 10% is held out.
  Input input_ids int64 [1, 64], output logits float [1, 64, 96].
shapes_cnn: a small CNN classifier (Conv+BN+ReLU blocks, a residual
  block with an Add, global average pooling, a Gemm head) on 32x32
  grey images of 10 classes of shapes and stripes drawn with numpy at
  random positions, sizes, contrasts, with noise. Input x float
  [1, 1, 32, 32] in [0, 1], output logits float [1, 10].

Written for each model NAME:
  NAME.onnx                         opset 17, fixed shapes
  NAME.calib/sNN/INPUT.npy          16 training samples (qopt calibrate --data)
  NAME.held/sNN/INPUT.npy           4 held-out samples
  charlm.eval.npy                   int64 [N, 65]: held-out windows, the
                                    last 64 tokens are the targets
  shapes_cnn.eval.npy               uint8 [N, 32, 32] held-out images (x / 255)
  shapes_cnn.eval-labels.npy        int64 [N]
"""
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

TEXTS = ['Apache-2.0', 'Artistic', 'BSD', 'CC0-1.0', 'GFDL-1.3', 'GPL-2',
         'GPL-3', 'LGPL-2.1', 'MPL-2.0']
LICENSES = '/usr/share/common-licenses'
CTX = 64
VOCAB = 96
N_CALIB = 16
N_HELD = 4


def log(*a):
    print(*a, flush=True)


# ---------------------------------------------------------------- charlm

class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) \
            * self.weight


def rotary_tables(ctx, hd):
    inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
    t = torch.arange(ctx).float()[:, None] * inv[None, :]
    emb = torch.cat([t, t], dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


class Block(nn.Module):
    def __init__(self, d, nh, hidden):
        super().__init__()
        self.nh, self.hd = nh, d // nh
        self.norm1 = RMSNorm(d)
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, d, bias=False)
        self.v = nn.Linear(d, d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.norm2 = RMSNorm(d)
        self.gate = nn.Linear(d, hidden, bias=False)
        self.up = nn.Linear(d, hidden, bias=False)
        self.down = nn.Linear(hidden, d, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, d = x.shape
        h = self.norm1(x)

        def heads(y):
            return y.view(b, t, self.nh, self.hd).transpose(1, 2)
        q, k, v = heads(self.q(h)), heads(self.k(h)), heads(self.v(h))
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        a = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.hd) + mask
        a = torch.matmul(torch.softmax(a, dim=-1), v)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        h = self.norm2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class CharLM(nn.Module):
    def __init__(self, vocab=VOCAB, d=64, nh=4, layers=2, hidden=128,
                 ctx=CTX):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, nh, hidden)
                                    for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        cos, sin = rotary_tables(ctx, d // nh)
        self.register_buffer('cos', cos)
        self.register_buffer('sin', sin)
        mask = torch.full((ctx, ctx), -1e4).triu(1)
        self.register_buffer('mask', mask)

    def forward(self, input_ids):
        t = input_ids.shape[1]
        x = self.emb(input_ids)
        cos, sin, mask = self.cos[:t], self.sin[:t], self.mask[:t, :t]
        for blk in self.blocks:
            x = blk(x, cos, sin, mask)
        return self.head(self.norm(x))


def load_texts():
    texts = []
    for name in TEXTS:
        with open(os.path.join(LICENSES, name), 'rb') as f:
            texts.append(f.read().decode('utf-8', 'replace'))
    chars = sorted(set(''.join(texts)))
    if len(chars) > VOCAB:
        raise SystemExit(f'{len(chars)} characters: more than {VOCAB}')
    idx = {c: i for i, c in enumerate(chars)}
    train, held = [], []
    for s in texts:
        ids = np.array([idx[c] for c in s], dtype=np.int64)
        cut = len(ids) * 9 // 10
        train.append(ids[:cut])
        held.append(ids[cut:])
    return np.concatenate(train), np.concatenate(held), len(chars)


def train_charlm(steps, seed=1):
    train, held, nchars = load_texts()
    log(f'charlm: {nchars} characters, {len(train)} training, '
        f'{len(held)} held-out')
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = CharLM()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 5e-3, total_steps=steps,
                                                pct_start=0.1)
    bs = 16
    t0 = time.time()
    for step in range(steps):
        off = rng.integers(0, len(train) - CTX - 1, bs)
        w = np.stack([train[o:o + CTX + 1] for o in off])
        w = torch.from_numpy(w)
        logits = model(w[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), w[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 25 == 0 or step == steps - 1:
            log(f'charlm step {step} loss {loss.item():.3f} '
                f'({time.time() - t0:.0f} s)')
    model.eval()
    # Non-overlapping held-out windows of 65: 64 inputs, 64 targets.
    n = (len(held) - 1) // CTX
    ev = np.stack([held[i * CTX:i * CTX + CTX + 1] for i in range(n)])
    with torch.no_grad():
        lg = model(torch.from_numpy(ev[:, :-1]))
        nll = F.cross_entropy(lg.reshape(-1, VOCAB),
                              torch.from_numpy(ev[:, 1:]).reshape(-1))
    log(f'charlm: held-out perplexity {math.exp(nll.item()):.3f} '
        f'on {n} windows')
    calib = [train[o:o + CTX] for o in
             rng.integers(0, len(train) - CTX, N_CALIB)]
    heldw = [ev[i, :-1] for i in range(N_HELD)]
    return model, ev, calib, heldw


# ------------------------------------------------------------ shapes_cnn

CLASSES = ['disc', 'square', 'triangle', 'ring', 'plus', 'cross',
           'hstripes', 'vstripes', 'dstripes', 'checker']


def draw(cls, rng):
    """One 32x32 image of class cls, uint8."""
    yy, xx = np.mgrid[0:32, 0:32].astype(np.float32)
    cy, cx = rng.uniform(10, 22, 2)
    r = rng.uniform(5, 10)
    dy, dx = yy - cy, xx - cx
    if cls == 0:
        m = dy ** 2 + dx ** 2 <= r ** 2
    elif cls == 1:
        m = (abs(dy) <= r * 0.8) & (abs(dx) <= r * 0.8)
    elif cls == 2:
        m = (dy <= r * 0.7) & (dy >= -r) & (abs(dx) <= (dy + r) * 0.6)
    elif cls == 3:
        d = np.sqrt(dy ** 2 + dx ** 2)
        m = (d <= r) & (d >= r - rng.uniform(2, 3.5))
    elif cls == 4:
        w = rng.uniform(1.5, 2.5)
        m = ((abs(dy) <= w) & (abs(dx) <= r)) | ((abs(dx) <= w) & (abs(dy) <= r))
    elif cls == 5:
        w = rng.uniform(1.5, 2.5)
        m = ((abs(dy - dx) <= w * 1.4) | (abs(dy + dx) <= w * 1.4)) & \
            (abs(dy) <= r) & (abs(dx) <= r)
    else:
        p = rng.uniform(5, 9)
        ph = rng.uniform(0, p)
        if cls == 6:
            m = ((yy + ph) % p) < p / 2
        elif cls == 7:
            m = ((xx + ph) % p) < p / 2
        elif cls == 8:
            m = ((xx + yy + ph) % (p * 1.4)) < p * 0.7
        else:
            m = (((yy + ph) // (p / 1.3)) + ((xx + ph) // (p / 1.3))) % 2 == 0
    bg, fg = rng.uniform(0.0, 0.45), rng.uniform(0.55, 1.0)
    if rng.random() < 0.5:
        bg, fg = fg, bg
    img = np.where(m, fg, bg) + rng.normal(0, 0.12, (32, 32))
    return np.clip(np.round(img * 255), 0, 255).astype(np.uint8)


def shapes(n, rng):
    y = rng.integers(0, len(CLASSES), n)
    return np.stack([draw(int(c), rng) for c in y]), y.astype(np.int64)


def cbr(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU())


class ShapesCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = cbr(1, 16)
        self.down1 = cbr(16, 32, 2)
        self.res1 = cbr(32, 32)
        self.res2 = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(32))
        self.down2 = cbr(32, 64, 2)
        self.head = nn.Linear(64, len(CLASSES))

    def forward(self, x):
        x = self.down1(self.stem(x))
        x = F.relu(x + self.res2(self.res1(x)))
        x = F.adaptive_avg_pool2d(self.down2(x), 1).flatten(1)
        return self.head(x)


def train_cnn(epochs, seed=2):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    tx, ty = shapes(6000, rng)
    ex, ey = shapes(500, rng)
    model = ShapesCNN()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    bs = 64
    steps = epochs * (len(tx) // bs)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    t0 = time.time()
    xt = torch.from_numpy(tx).float().div(255).unsqueeze(1)
    yt = torch.from_numpy(ty)
    for ep in range(epochs):
        model.train()
        perm = torch.from_numpy(rng.permutation(len(tx)))
        for i in range(len(tx) // bs):
            b = perm[i * bs:(i + 1) * bs]
            loss = F.cross_entropy(model(xt[b]), yt[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        model.eval()
        with torch.no_grad():
            acc = (model(torch.from_numpy(ex).float().div(255).unsqueeze(1))
                   .argmax(1).numpy() == ey).mean()
        log(f'cnn epoch {ep} loss {loss.item():.3f} held-out top-1 '
            f'{acc * 100:.1f}% ({time.time() - t0:.0f} s)')
    calib = [tx[i] for i in range(N_CALIB)]
    heldi = [ex[i] for i in range(N_HELD)]
    return model, ex, ey, calib, heldi


# ---------------------------------------------------------------- output

def samples(folder, name, arrays):
    for i, a in enumerate(arrays):
        d = os.path.join(folder, f's{i:02d}')
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, name + '.npy'), a)


def export(model, example, path, iname):
    torch.onnx.export(model, (example,), path, opset_version=17,
                      input_names=[iname], output_names=['logits'],
                      do_constant_folding=True)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(2)
    steps = int(os.environ.get('QOPT_LEARNED_STEPS', '200'))
    epochs = int(os.environ.get('QOPT_LEARNED_EPOCHS', '6'))
    what = os.environ.get('QOPT_LEARNED_ONLY', 'charlm,cnn').split(',')

    if 'charlm' in what:
        model, ev, calib, heldw = train_charlm(steps)
        export(model, torch.from_numpy(ev[:1, :-1]),
               os.path.join(out, 'charlm.onnx'), 'input_ids')
        np.save(os.path.join(out, 'charlm.eval.npy'), ev)
        samples(os.path.join(out, 'charlm.calib'), 'input_ids',
                [c[None, :].astype(np.int64) for c in calib])
        samples(os.path.join(out, 'charlm.held'), 'input_ids',
                [h[None, :].astype(np.int64) for h in heldw])
    if 'cnn' in what:
        model, ex, ey, calib, heldi = train_cnn(epochs)

        def f32(a):
            return (a.astype(np.float32) / 255)[None, None]
        export(model, torch.from_numpy(f32(ex[0])),
               os.path.join(out, 'shapes_cnn.onnx'), 'x')
        np.save(os.path.join(out, 'shapes_cnn.eval.npy'), ex)
        np.save(os.path.join(out, 'shapes_cnn.eval-labels.npy'), ey)
        samples(os.path.join(out, 'shapes_cnn.calib'), 'x',
                [f32(c) for c in calib])
        samples(os.path.join(out, 'shapes_cnn.held'), 'x',
                [f32(h) for h in heldi])


if __name__ == '__main__':
    main()
