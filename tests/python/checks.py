"""What the check scripts of tests/python share: check(desc, cond),
raises(desc, exc, fn, *args, text=...), skip(desc, why)."""
import os
import sys
import traceback

# A sanitizer build's $py preloads the runtimes for libqopt: children
# (node, qopt) start without them (tests/python/common.sh).
os.environ.pop("LD_PRELOAD", None)


def check(desc, cond, detail=None):
    print(("PASS " if cond else "FAIL ") + desc, flush=True)
    if not cond and detail is not None:
        print("  " + str(detail).replace("\n", "\n  "), flush=True)
    return cond


def skip(desc, why):
    print("SKIP %s # %s" % (desc, why), flush=True)


def raises(desc, exc, fn, *args, text=(), **kw):
    """fn(*args, **kw) raises exc whose message holds every str in text;
    returns the exception (or None)."""
    try:
        fn(*args, **kw)
    except exc as e:
        missing = [t for t in text if t not in str(e)]
        check(desc, not missing, "message %r lacks %r" % (str(e), missing))
        return e
    except Exception as e:
        check(desc, False, "raised %s: %s" % (type(e).__name__, e))
        traceback.print_exc(file=sys.stdout)
        return None
    check(desc, False, "raised nothing")
    return None
