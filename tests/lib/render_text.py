#!/usr/bin/python3
"""tests/lib/render_text.py - deterministic rendered text lines for the
PP-OCR models (tests of every folder use it: docs/accuracy.md, "Rendered
text").

    render_text.py OUT N SEED [--flip-every K]

Renders N lines of ASCII words, digits and punctuation (from a fixed word
list and SEED) in the DejaVu fonts of Debian's fonts-dejavu-core, at a few
sizes, dark text on white or grey, and writes, in `qopt calibrate --data`'s
folder form:

  OUT/rec/sNNN/x.npy  float32 [1, 3, 48, 320]: the PP-OCRv4 recognizer's
                      input as PaddleOCR's rec preprocessing makes it
                      (height 48, width by the aspect ratio, at most 320,
                      (x / 255 - 0.5) / 0.5, padded with 0 to 320);
  OUT/cls/sNNN/x.npy  float32 [1, 3, 48, 192]: the direction classifier's
                      (the same, width at most 192); with --flip-every K
                      every K-th line is turned 180 degrees;
  OUT/truth.txt       one line per sample: the string, a tab, the
                      classifier's label (0 upright, 1 turned).

The same arguments give the same bytes (PIL's FreeType rendering and
resampling are deterministic for one font file and PIL version).
"""
import math
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu"
FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf",
         "DejaVuSerif.ttf")
SIZES = (22, 28, 34, 40)
WORDS = """the quick brown fox jumps over lazy dog model layer tensor float
scale input output weight shape graph node value batch paper total
invoice order number date price street city north south river green
table chair window house market station office report summary figure
Alpha Beta Gamma Delta Monday Friday April June Berlin Paris London
ONNX GPU CPU INT8 FP16 TensorRT Hopper""".split()
PUNCT = (".", ",", ":", ";", "!", "?", "-", "/", "(", ")", "%", "#", "+")
REC_W, CLS_W, H = 320, 192, 48


def token(rng):
    """A word, a number or a word with punctuation."""
    r = rng.random()
    if r < 0.2:
        return str(int(rng.integers(0, 100000)))
    if r < 0.3:
        return "%d.%02d" % (rng.integers(0, 1000), rng.integers(0, 100))
    w = WORDS[int(rng.integers(len(WORDS)))]
    if r < 0.45:
        p = PUNCT[int(rng.integers(len(PUNCT)))]
        w = "(" + w + ")" if p in "()" else w + p
    return w


def line_text(rng, font, size):
    """Tokens until the line is wider than the recognizer's aspect ratio
    allows (the last one that fits is kept), at least one."""
    words = [token(rng)]
    target = int(rng.integers(2, 5))
    while len(words) < target:
        cand = " ".join(words + [token(rng)])
        w = font.getlength(cand)
        if w / (size * 1.35) > REC_W / H * 0.95:
            break
        words = cand.split(" ")
    return " ".join(words)


def render(rng, text, font, size):
    """The line on its background, grey uint8 [h, w]."""
    pad = int(size * 0.25)
    x0, y0, x1, y1 = font.getbbox(text)
    w = int(x1 - x0) + 2 * pad
    h = int(size * 1.35)
    bg = int(rng.choice((255, 245, 230, 215, 200)))
    fg = int(rng.integers(0, 70))
    img = Image.new("L", (w, h), bg)
    d = ImageDraw.Draw(img)
    d.text((pad - x0, (h - (y1 - y0)) // 2 - y0), text, fill=fg, font=font)
    a = np.asarray(img, dtype=np.float32)
    a = a + rng.normal(0, 3, a.shape)
    return np.clip(np.round(a), 0, 255).astype(np.uint8)


def normalise(grey, width):
    """PaddleOCR's resize_norm_img: height 48, width by the aspect ratio
    (at most WIDTH), (x / 255 - 0.5) / 0.5, zeros to WIDTH."""
    h, w = grey.shape
    rw = min(width, int(math.ceil(H * w / h)))
    img = Image.fromarray(grey).convert("RGB").resize((rw, H), Image.BILINEAR)
    a = np.asarray(img, dtype=np.float32).transpose(2, 0, 1) / 255.0
    out = np.zeros((1, 3, H, width), np.float32)
    out[0, :, :, :rw] = (a - 0.5) / 0.5
    return out


def main(argv):
    flip = 0
    if len(argv) == 6 and argv[4] == "--flip-every":
        flip = int(argv[5])
        argv = argv[:4]
    if len(argv) != 4:
        sys.exit("usage: render_text.py OUT N SEED [--flip-every K]")
    out, n, seed = argv[1], int(argv[2]), int(argv[3])
    rng = np.random.default_rng(seed)
    fonts = {}
    truth = []
    for s in range(n):
        name = FONTS[int(rng.integers(len(FONTS)))]
        size = SIZES[int(rng.integers(len(SIZES)))]
        key = (name, size)
        if key not in fonts:
            fonts[key] = ImageFont.truetype(os.path.join(FONT_DIR, name), size)
        text = line_text(rng, fonts[key], size)
        grey = render(rng, text, fonts[key], size)
        turned = bool(flip) and s % flip == flip - 1
        for sub, width, img in (("rec", REC_W, grey),
                                ("cls", CLS_W, grey[::-1, ::-1] if turned else grey)):
            d = os.path.join(out, sub, "s%03d" % s)
            os.makedirs(d)
            np.save(os.path.join(d, "x.npy"), normalise(np.ascontiguousarray(img), width))
        truth.append("%s\t%d" % (text, int(turned)))
    with open(os.path.join(out, "truth.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(truth) + "\n")


if __name__ == "__main__":
    main(sys.argv)
