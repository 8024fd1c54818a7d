"""The `sweeplab` command. Subcommands live in their own modules and load only when used.

Bad input anywhere becomes one line on stderr and exit status 2.
"""

from __future__ import annotations

import importlib
import sys

import click

from ..errors import SweeplabError

# name -> "module:attribute"; each front end adds its line here.
COMMANDS = {
    "board": "sweeplab.cli.boards:board",
    "stats": "sweeplab.cli.boards:stats",
    "solve": "sweeplab.cli.solve:solve",
    "play": "sweeplab.cli.play:play",
    "cycles": "sweeplab.cli.cycles:cycles",
    "bench": "sweeplab.cli.bench:bench",
    "automaton": "sweeplab.cli.automaton:automaton",
    "uniformity": "sweeplab.cli.uniformity:uniformity",
    "replay": "sweeplab.cli.replay:replay",
    "optimal": "sweeplab.cli.optimal:optimal",
    "analyse": "sweeplab.cli.analyse:analyse",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        module, attr = COMMANDS[name].split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sweeplab")
def cli():
    """sweeplab: play, generate, solve and study Minesweeper."""


def main(argv=None):
    from .._numba_cache import announce_compiles
    announce_compiles()  # a first run that compiles for a minute says so, rather than looking hung
    if argv is None:  # the program itself (a caller passing arguments keeps its own Ctrl-C)
        from .stop import arm
        arm()  # one Ctrl-C stops a command at once, even inside a long kernel
    try:
        cli.main(args=argv, prog_name="sweeplab", standalone_mode=False)
    except SweeplabError as e:
        click.echo(f"sweeplab: error: {e}", err=True)
        sys.exit(2)
    except click.exceptions.NoArgsIsHelpError as e:
        # `sweeplab` (or a group such as `sweeplab automaton`) alone asks what there is: the help, exit 0.
        click.echo(e.ctx.get_help())
        sys.exit(0)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        # One line, like every other error: what was wrong, and where to read what is allowed.
        where = getattr(getattr(e, "ctx", None), "command_path", "sweeplab")
        hint = f" (see '{where} --help')" if isinstance(e, click.UsageError) else ""
        click.echo(f"{where}: error: {e.format_message()}{hint}", err=True)
        sys.exit(2)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except OSError as e:
        # Output paths are checked before work starts; what the system refuses later (a full disk, a
        # file removed under us, a network that will not connect) is still the user's world, not a bug.
        click.echo(f"sweeplab: error: {_os_message(e)}", err=True)
        sys.exit(2)


def _os_message(e: OSError) -> str:
    if e.filename is not None:
        return f"cannot use {e.filename!r}: {e.strerror or e}"
    return str(e) or type(e).__name__
