"""The pipeline of a call: passes= (the CLI's --passes text; a list of
such texts, joined by ","; or a list of names and (name, {key: value})
pairs, added one by one) or pipeline= (INI text, or the path of an INI
file)."""
import ctypes
import os

from . import _capi


def _opt_text(value):
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ";".join(str(v) for v in value)
    return os.fspath(value) if isinstance(value, os.PathLike) else str(value)


def _is_ini_text(s):
    return "\n" in s or s.lstrip().startswith("[")


def set_pipeline(session, passes, pipeline, who):
    """Sets the session's pipeline; neither: a round trip."""
    lib, s = session.lib, session.handle
    if passes is not None and pipeline is not None:
        raise TypeError("%s: give passes= or pipeline=, not both" % who)
    if pipeline is not None:
        if isinstance(pipeline, os.PathLike) or (
                isinstance(pipeline, str) and not _is_ini_text(pipeline)):
            path = os.fspath(pipeline)
            if not os.path.isfile(path):
                raise FileNotFoundError(
                    "%s: pipeline file '%s' not found (pipeline= takes INI "
                    "text or the path of an INI file)" % (who, path))
            session.check(lib.qopt_session_pipeline_file(s, _capi.cstr(path)),
                          "pipeline %s" % path)
        elif isinstance(pipeline, str):
            session.check(lib.qopt_session_pipeline_ini(
                s, pipeline.encode("utf-8"), b"<string>"), "pipeline <string>")
        else:
            raise TypeError("%s: pipeline must be INI text or a path, not %s"
                            % (who, type(pipeline).__name__))
        return
    if passes is None:
        return
    if isinstance(passes, str):
        session.check(lib.qopt_session_pipeline_passes(
            s, passes.encode("utf-8")), "passes '%s'" % passes)
        return
    if not isinstance(passes, (list, tuple)):
        raise TypeError("%s: passes must be a str or a list, not %s"
                        % (who, type(passes).__name__))
    if all(isinstance(item, str) for item in passes):
        text = ",".join(passes)
        session.check(lib.qopt_session_pipeline_passes(
            s, text.encode("utf-8")), "passes '%s'" % text)
        return
    for item in passes:
        if isinstance(item, str) and not any(c in item for c in ":{<,"):
            name, opts = item, {}
        elif (isinstance(item, tuple) and len(item) == 2 and
              isinstance(item[0], str) and isinstance(item[1], dict)):
            name, opts = item
        else:
            raise TypeError("%s: a list of passes holds texts as --passes "
                            "takes them, or names and (name, {option: value})"
                            " pairs, not %r among them" % (who, item))
        kv = []
        for k, v in opts.items():
            kv += [str(k).encode("utf-8"), _opt_text(v).encode("utf-8")]
        arr = (ctypes.c_char_p * (len(kv) + 1))(*kv, None)
        session.check(lib.qopt_session_add_pass(s, name.encode("utf-8"), arr),
                      "pass '%s'" % name)
