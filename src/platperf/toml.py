"""TOML reading on every supported Python: the standard library's ``tomllib`` from 3.11, the
``tomli`` package it came from on 3.10 (a dependency there only, see pyproject.toml)."""
import sys

if sys.version_info >= (3, 11):
    from tomllib import TOMLDecodeError, loads
else:
    from tomli import TOMLDecodeError, loads

__all__ = ["TOMLDecodeError", "loads"]
