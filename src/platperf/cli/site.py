"""``platperf site``: a static site for a whole database (a lab's boards and labels)."""
from __future__ import annotations

from pathlib import Path
import typer

from .common import DbOption, app, fail_exit, open_store


@app.command()
def site(
    output: Path = typer.Option(..., "--output", "-o", metavar="DIR", help="Directory to write the site into."),
    target: str = typer.Option("", "--target", metavar="BOARD[,BOARD...]", help="Only these targets (boards)."),
    pages: int = typer.Option(30, "--pages", metavar="N",
                              help="Write the guide and comparison pages of each board's newest N labels "
                                   "(0: every label); the others are listed."),
    serve: bool = typer.Option(False, "--serve", help="Then serve DIR on 127.0.0.1 for a local look (Ctrl-C stops)."),
    port: int = typer.Option(8000, "--port", metavar="PORT", help="The port of --serve."),
    db: str = DbOption,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the last line."),
):
    """Write a static site of every board and label in the database: an index of boards x
    labels, a page per board (its labels, each with its guide and its comparison with the
    label before), and each board's history.

    Every page is one HTML file that opens offline (no script, nothing fetched) from any
    static web server; links are made of board and label names and stay the same as runs are
    added. Written again, only the pages whose runs changed are rewritten (DIR/site.json).

    \b
    Examples:
      platperf site -o lab-site --db lab.db
      platperf site -o lab-site --target am62x-07,juno-r1 --pages 0
      platperf site -o lab-site --serve --port 8080
    """
    from ..report.site import write_site
    from ..store import StoreError
    if pages < 0:
        fail_exit(f"--pages must be 0 (every label) or more, got {pages}")
    if output.exists() and not output.is_dir():
        fail_exit(f"-o {output} is a file; give a directory")
    store = open_store(db, write=False)
    targets = [t.strip() for t in target.split(",") if t.strip()] or None
    say = (lambda text: None) if quiet else (lambda text: typer.echo(text, err=True))
    try:
        output.mkdir(parents=True, exist_ok=True)
        done = write_site(store, output, targets=targets, pages=pages, say=say)
    except StoreError as exc:
        fail_exit(str(exc))
    except OSError as exc:
        fail_exit(f"cannot write the site to {output}: {exc.strerror}")
    if not done.boards:
        fail_exit("no runs" + (f" of --target {target}" if target else "") + "; see 'platperf runs'")
    typer.echo(f"{output / 'index.html'}: {done.boards} boards, {done.runs:,} runs, {done.results:,} results; "
               f"{done.pages:,} pages written, {done.unchanged:,} unchanged, in {done.seconds:.1f} s; "
               f"{done.bytes / 1e6:.1f} MB")
    if serve:
        from ..report.site.serve import serve_dir
        serve_dir(output, port)
