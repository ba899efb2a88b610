"""Exceptions: a call that cannot run as asked.

A walker that falls, or Newton that finds no gait, is not an error: it is a
result whose ``status`` says so.  These are for what the caller must change
(a name, a value, a file) and for what the machine could not do.  Every one
carries the library's status name (``status``) and a one-line message
(``message``) saying what to change.
"""


class Error(Exception):
    """A stridemap call that could not run; ``status`` is the library's status name."""

    def __init__(self, status, message):
        super().__init__(f"{status}: {message}" if message else status)
        self.status = status
        self.message = message


class UsageError(Error, ValueError):
    """A name or setting the call does not know: unknown_model, unknown_param, bad_option."""


class DataError(Error, ValueError):
    """A value or file that is not valid: bad_param, bad_state, bad_model_file, bad_data."""


class InputFileError(Error, OSError):
    """A model file that cannot be read, or a sweep directory that cannot be written."""


class SolverError(Error, RuntimeError):
    """The integrator could not be set up, or a computation failed outside the walker's motion."""


class OutOfMemory(Error, MemoryError):
    """The library ran out of memory."""


class LibraryNotFound(Error, ImportError):
    """libstridemap could not be loaded (set STRIDEMAP_LIBRARY)."""

    def __init__(self, message):
        super().__init__("unavailable", message)


_BY_STATUS = {
    "unknown_model": UsageError,
    "unknown_param": UsageError,
    "bad_option": UsageError,
    "bad_param": DataError,
    "bad_state": DataError,
    "bad_model_file": DataError,
    "bad_data": DataError,
    "io_error": InputFileError,
    "no_memory": OutOfMemory,
}


def error_for(status, message):
    """The exception for a status name."""
    return _BY_STATUS.get(status, SolverError)(status, message)
