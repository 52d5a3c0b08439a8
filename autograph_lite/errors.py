"""Errors raised by the converter itself (as opposed to errors in the user's code)."""
from typing import Optional


class ConversionError(Exception):
    """A function cannot be converted; the message names the construct, the user's line and the fix.

    >>> raise ConversionError('yield is not supported', location='File "u.py", line 3, in f', fix='...')
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
