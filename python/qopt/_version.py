# The package's version: qopt's own (configure.ac's AC_INIT), checked by
# tests/python/package.sh.
__version__ = "0.6.0"
