"""Errors raised by the converter itself (as opposed to errors in the user's code): ``ag.ConversionError``."""
from typing import Optional


class ConversionError(Exception):
    """A function cannot be converted; the message names the construct, the user's line and the fix.

    >>> print(ConversionError('yield is not supported', location='File "u.py", line 3, in f', fix='Use a list.'))
    yield is not supported
      File "u.py", line 3, in f
    Use a list.
    """

    def __init__(self, problem: str, location: Optional[str] = None, fix: Optional[str] = None):
        message = problem
        if location:
            message += f'\n  {location}'
        if fix:
            message += f'\n{fix}'
        super().__init__(message)
        self.problem = problem


class SourceUnavailableError(ConversionError):
    """The source code of a function cannot be found (builtin, C extension, exec'd or REPL code)."""
