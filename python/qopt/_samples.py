"""Samples given as NumPy arrays, written in the layout `qopt calibrate
--data` reads (docs/calibration.md, "Samples"): one sub-folder per
sample, in order, each input as NAME.npy, or, when NAME cannot be a file
name, as an ONNX TensorProto input_K.pb carrying the name."""
import os

import numpy as np


def _file_safe(name):
    return (name not in ("", ".", "..") and "/" not in name and
            "\0" not in name and len(os.fsencode(name)) <= 250)


def _as_array(name, value, where):
    try:
        a = np.asarray(value)
    except Exception as e:
        raise TypeError("%s: input '%s': not an array (%s)" % (where, name, e))
    if a.dtype == object or a.dtype.kind in "USV":
        raise TypeError("%s: input '%s': a NumPy array of numbers or bools, "
                        "not dtype %s" % (where, name, a.dtype))
    return np.ascontiguousarray(a)


def write(samples, folder, who):
    """Writes samples (a list of {input name: array}) under folder."""
    if isinstance(samples, dict):
        raise TypeError("%s: samples are a list of dicts {input name: "
                        "array}, one per sample; got one dict (wrap it in a "
                        "list)" % who)
    try:
        samples = list(samples)
    except TypeError:
        raise TypeError("%s: samples must be a list of dicts {input name: "
                        "array} or a folder, not %s"
                        % (who, type(samples).__name__)) from None
    if not samples:
        raise ValueError("%s: no samples (an empty list)" % who)
    width = len(str(len(samples) - 1))
    for i, sample in enumerate(samples):
        where = "%s: sample %d" % (who, i)
        if not isinstance(sample, dict) or not sample:
            raise TypeError("%s: a dict {input name: array} with at least "
                            "one input, not %r" % (where, type(sample).__name__
                                                   if not isinstance(sample, dict)
                                                   else sample))
        d = os.path.join(folder, "s%0*d" % (width, i))
        os.mkdir(d, 0o700)
        for k, (name, value) in enumerate(sample.items()):
            if not isinstance(name, str):
                raise TypeError("%s: input names are str, not %r" %
                                (where, name))
            a = _as_array(name, value, where)
            if _file_safe(name):
                np.save(os.path.join(d, name + ".npy"), a, allow_pickle=False)
            else:
                from onnx import numpy_helper
                t = numpy_helper.from_array(a, name)
                with open(os.path.join(d, "input_%d.pb" % k), "wb") as f:
                    f.write(t.SerializeToString())
    return folder


def folder(samples, tmp, who):
    """A path as given (a folder, .npz or .npy), or the samples written
    into tmp/samples."""
    if isinstance(samples, (str, os.PathLike)):
        path = os.fspath(samples)
        if not os.path.exists(path):
            raise FileNotFoundError("%s: samples '%s' not found" % (who, path))
        return path
    out = os.path.join(tmp, "samples")
    os.mkdir(out, 0o700)
    return write(samples, out, who)
