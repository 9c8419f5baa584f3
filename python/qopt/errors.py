"""qopt.Error and qopt.QoptWarning: what libqopt's diagnostics become."""


class QoptWarning(UserWarning):
    """A warning libqopt, the pass manager or a pass gave (warnings.warn).

    .pass_name, .node and .tensor name what it is about (None when it
    names nothing); str() is the message."""

    def __init__(self, message, pass_name=None, node=None, tensor=None):
        super().__init__(message)
        self.pass_name = pass_name
        self.node = node
        self.tensor = tensor


class Error(Exception):
    """A qopt call failed.

    .code: the qopt_status (include/qopt/status.h; QOPT_PRIMARY is
    code & 0xff), .code_name its text, .pass_name the failing pass (or
    None), .node and .tensor what the first error names, .messages
    every error message of the call, in order."""

    def __init__(self, message, code, code_name=None, pass_name=None,
                 node=None, tensor=None, messages=()):
        super().__init__(message)
        self.code = code
        self.code_name = code_name
        self.pass_name = pass_name
        self.node = node
        self.tensor = tensor
        self.messages = list(messages) or [message]
