#!/usr/bin/python3
"""tests/lib/ocr_score.py - the task metrics of tests/lib/ocr-read.js's
answers against tests/lib/render_text.py's truth.

    ocr_score.py rec|cls TRUTH READ.json [REF]

Prints one JSON object, per model of READ.json (in its order):
  rec: exact (lines identical to the truth), trimmed (identical once
       spaces at the ends are dropped), cer (character error rate:
       edit distance over the truth's characters), and against REF (a
       model of READ.json, by default the first): same (lines identical
       to REF's reading), same_but_spaces (identical once every space is
       dropped) and differ (the indexes that are not identical);
  cls: right (labels equal to the truth), same (equal to REF's).
Shares are fractions of the sample count, which is "n".
"""
import json
import sys


def edits(a, b):
    """Levenshtein distance."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1,
                                       prev + (ca != cb))
    return row[-1]


def main(argv):
    if len(argv) not in (4, 5) or argv[1] not in ("rec", "cls"):
        sys.exit("usage: ocr_score.py rec|cls TRUTH READ.json [REF]")
    kind = argv[1]
    truth = [l.split("\t") for l in
             open(argv[2], encoding="utf-8").read().splitlines()]
    read = json.load(open(argv[3], encoding="utf-8"))
    ref = read[argv[4] if len(argv) == 5 else next(iter(read))]
    n = len(truth)
    out = {"n": n}
    for m, got in read.items():
        if len(got) != n:
            sys.exit("%s: %d answers for %d samples" % (m, len(got), n))
        if kind == "cls":
            out[m] = {"right": sum(int(t[1]) == g for t, g in zip(truth, got)) / n,
                      "same": sum(r == g for r, g in zip(ref, got)) / n}
            continue
        chars = sum(len(t[0]) for t in truth)
        out[m] = {
            "exact": sum(t[0] == g for t, g in zip(truth, got)) / n,
            "trimmed": sum(t[0].strip() == g.strip() for t, g in zip(truth, got)) / n,
            "cer": sum(edits(t[0], g) for t, g in zip(truth, got)) / chars,
            "same": sum(r == g for r, g in zip(ref, got)) / n,
            "same_but_spaces": sum(r.replace(" ", "") == g.replace(" ", "")
                                   for r, g in zip(ref, got)) / n,
            "differ": [i for i, (r, g) in enumerate(zip(ref, got)) if r != g],
        }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
