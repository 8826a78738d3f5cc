"""The one error a command reports to the user: printed as one line, exit 2.

This module imports nothing, so every layer that turns bad input into a
message (command modules, libraries that raise for the user) can raise it
without pulling in the command line.
"""


class UserError(Exception):
    """A problem with the user's input: printed as one clear message, exit 2."""
