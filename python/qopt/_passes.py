"""qopt.passes(): the registered passes and their options."""
import ctypes

from . import _capi
from ._session import Session


class Option:
    """name, type ("bool", "int", "float", "string", "list", "enum"),
    default (text, or None), help, choices (a list, or None), min and
    max (None when not bounded)."""
    __slots__ = ("name", "type", "default", "help", "choices", "min", "max")

    def __init__(self, o):
        self.name = _capi.text(o.name)
        self.type = _capi.OPT_TYPES.get(o.type, str(o.type))
        self.default = _capi.text(o.default_value)
        self.help = _capi.text(o.help)
        self.choices = None
        if o.choices:
            self.choices = []
            i = 0
            while o.choices[i]:
                self.choices.append(_capi.text(o.choices[i]))
                i += 1
        self.min = o.min if o.flags & _capi.OPT_HAS_MIN else None
        self.max = o.max if o.flags & _capi.OPT_HAS_MAX else None

    def __repr__(self):
        return "Option(%s: %s = %r)" % (self.name, self.type, self.default)


class Pass:
    """name, summary, plugin (the file it came from) and options (a
    list of Option)."""
    __slots__ = ("name", "summary", "plugin", "options")

    def __init__(self, d):
        self.name = _capi.text(d.name)
        self.summary = _capi.text(d.summary)
        self.plugin = _capi.text(d.plugin)
        self.options = [Option(d.options[i]) for i in range(d.noptions)]

    def __repr__(self):
        return "Pass(%s)" % self.name


def passes(**settings):
    """Every pass libqopt finds (the built-in ones, and those of
    plugin_dir / load settings), in its order, as qopt --list-passes."""
    with Session(settings) as s:
        n = s.lib.qopt_session_npasses(s.handle)
        s.check(0, "listing the passes")
        out = []
        for i in range(n):
            d = _capi.PassDesc()
            d.size = ctypes.sizeof(d)
            s.check(s.lib.qopt_session_pass_at(s.handle, i, ctypes.byref(d)),
                    "pass %d" % i)
            out.append(Pass(d))
        return out
