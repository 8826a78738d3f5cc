"""The `mafvar` sub-commands, one module each (`register(subparsers)`).

Each module turns command-line arguments into a library call and its result
into text or JSON; the work itself lives in the libraries.
"""
