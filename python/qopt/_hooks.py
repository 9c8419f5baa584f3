"""Python hooks before and after each pass (qopt_session_add_hook).

A hook is a callable, called with a PassEvent before and after each
pass (event.phase "before" / "after"), or an object with a before(event)
and/or after(event) method. Before a pass, returning qopt.SKIP skips it;
anything else runs it. A hook that raises fails the run, and the run
raises that exception (the cause of the qopt.Error is kept as well)."""
import ctypes

from . import _capi

SKIP = "skip"


class PassEvent:
    """phase ("before"/"after"), index (the stage, 0-based), pass_name,
    pipeline (the named pipeline it came from, or None), changed and
    status (after: whether the pass changed the model; its status)."""
    __slots__ = ("phase", "index", "pass_name", "pipeline", "changed",
                 "status")

    def __init__(self, phase, e):
        self.phase = phase
        self.index = e.index
        self.pass_name = _capi.text(e.pass_)
        self.pipeline = _capi.text(e.pipeline)
        self.changed = bool(e.changed) if phase == "after" else None
        self.status = e.status if phase == "after" else None

    def __repr__(self):
        return "PassEvent(%s %d %s)" % (self.phase, self.index, self.pass_name)


class Hooks:
    """Adds hooks to a session; .raised holds the first exception a
    hook raised."""

    def __init__(self, session, hooks, who):
        self.raised = None
        if hooks is None:
            return
        if callable(hooks) or hasattr(hooks, "before") or hasattr(hooks, "after"):
            hooks = [hooks]
        for h in hooks:
            before = getattr(h, "before", None)
            after = getattr(h, "after", None)
            if before is None and after is None:
                if not callable(h):
                    raise TypeError("%s: a hook is a callable or has before/"
                                    "after methods, not %r" % (who, h))
                before = after = h
            st = _capi.Hook()
            st.size = ctypes.sizeof(_capi.Hook)
            st.before = session.keep(_capi.HOOK_FN(self._wrap("before",
                                                              before)))
            st.after = session.keep(_capi.HOOK_FN(self._wrap("after", after)))
            session.keep(st)
            hid = ctypes.c_int()
            session.check(session.lib.qopt_session_add_hook(
                session.handle, ctypes.byref(st),
                ctypes.byref(hid)), "adding a hook")

    def _wrap(self, phase, fn):
        def call(_arg, e, _model):
            if fn is None:
                return 0
            try:
                r = fn(PassEvent(phase, e.contents))
            except BaseException as ex:     # never let it reach C
                if self.raised is None:
                    self.raised = ex
                return -1
            return 1 if phase == "before" and r == SKIP else 0
        return call
