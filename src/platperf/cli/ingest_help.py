"""``platperf ingest FORMAT --help`` (or ``platperf ingest --help FORMAT``): one format's help.

What the format reads and refuses is its module's docstring (every ingest module states both,
with its source); an example of its input is the module's ``EXAMPLE``, printed when the module
has one; the options that only this format takes are those :data:`OPTIONS` names for it.
``platperf ingest --help`` without a format keeps typer's help, every format on a line.
"""
from __future__ import annotations

import inspect
import textwrap

from typer.core import TyperCommand

from ..ingest import FORMATS, Format

LINE = 80             # the width a format's line of `platperf ingest --help` keeps to
# option -> the formats it is for (the CLI refuses it for the others)
OPTIONS = {
    "--release WORD=RELEASE": lambda name, fmt: name == "tfa-rst",
    "--unit UNIT": lambda name, fmt: name == "tfa-rst",
    "--intervals TOML": lambda name, fmt: fmt.takes_intervals,
    "--root DIR": lambda name, fmt: fmt.takes_intervals or fmt.probe_run,
    "--identity NAME": lambda name, fmt: fmt.lava_job,
    "--media MEDIA": lambda name, fmt: takes_media(fmt),
}


def takes_media(fmt: Format) -> bool:
    """Whether the format's figures are keyed by boot media (``--media``): its module says so."""
    return "media" in getattr(fmt.module, "OPTIONS", ())


def format_help(name: str) -> str:
    fmt = FORMATS[name]
    lines = [f"Usage: platperf ingest {name} FILE... [OPTIONS]", "", f"  {fmt.help}.", "",
             "What it reads, and what it refuses:", ""]
    lines += ["  " + line if line else "" for line in inspect.cleandoc(fmt.module.__doc__ or "").splitlines()]
    example = getattr(fmt.module, "EXAMPLE", None)
    lines += ["", "Example of its input:", ""]
    if isinstance(example, str) and example.strip():
        lines += ["  " + line if line else "" for line in textwrap.dedent(example).strip("\n").splitlines()]
    else:
        lines.append("  (this format has no example yet; see docs/ingest.md)")
    own = [option for option, applies in OPTIONS.items() if applies(name, fmt)]
    lines += ["", "Options for this format: " + (", ".join(own) if own else "none beyond the common ones"),
              "The common options (--label, --target, --note, --db): platperf ingest --help", ""]
    return "\n".join(lines)


def asked_format(args: list[str], help_options) -> str | None:
    """The format whose help ``args`` ask for (a help option and a format name), None if none."""
    args = args[:args.index("--")] if "--" in args else args
    if not any(arg in help_options for arg in args):
        return None
    return next((arg for arg in args if not arg.startswith("-") and arg in FORMATS), None)


def formats_listed() -> str:
    """Every format on a line of its own with its summary, for ``platperf ingest --help`` (kept
    as written: a format's name is never cut at its hyphen)."""
    width = max(map(len, FORMATS)) + 2
    return "\n".join(["\b", "Formats (platperf ingest FORMAT --help: what one reads, an example,",
                       "what it refuses):"] +
                      [f"  {name:<{width}}{summary(fmt, LINE - 4 - width)}" for name, fmt in FORMATS.items()])


def summary(fmt: Format, room: int) -> str:
    """The format's help up to its first colon, in ``room`` characters: whole, or before its
    first parenthesis or comma, or cut at a word."""
    text = fmt.help.split(": ")[0]
    for cut in (text, text.split(" (")[0], text.split(", ")[0]):
        if len(cut) <= room:
            return cut
    return text[:room - 4].rsplit(" ", 1)[0] + " ..."


class IngestCommand(TyperCommand):
    """``platperf ingest``: its help lists every format; with a format named beside ``--help``,
    that format's help."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.help = f"{self.help or ''}\n\n{formats_listed()}"

    def parse_args(self, ctx, args):
        name = asked_format(list(args), self.get_help_option_names(ctx))
        if name is not None:
            print(format_help(name))
            ctx.exit(0)
        return super().parse_args(ctx, args)
