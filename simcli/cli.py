"""The ``simcli`` command line: a click group whose subcommands live in :mod:`simcli.commands`."""

from __future__ import annotations

import click

from simcli import __version__


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the version and which build runs (compiled, or pure Python and why), then exit."""
    if not value or ctx.resilient_parsing:
        return
    from simcli.engine.builds import describe

    click.echo(f"simcli, version {__version__} ({describe()})")
    ctx.exit()


class _Main(click.Group):
    """The group: a lost Dask scheduler, from any command that plays, is one line saying what is kept and the
    command that finishes the work (:func:`simcli.runs.lost.lost_line`)."""

    def invoke(self, ctx: click.Context) -> object:
        from simcli.runs.backends import ClusterLost

        try:
            return super().invoke(ctx)
        except ClusterLost as exc:
            import sys

            from simcli.commands.hints import again
            from simcli.runs.lost import lost_line

            raise click.ClickException(lost_line(exc, again, argv=sys.argv[1:])) from None


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and which build runs (compiled, or pure Python and why), and exit.")
@click.option("--debug", is_flag=True,
              help="print a failing strategy's traceback (file and line) before its one-line error; also "
                   "SIMCLI_DEBUG=1")
def main(debug: bool) -> None:
    """Canasta simulation lab: play seeded games between scripted strategies and score them.

    The rules, and every "RULES.md §N" cited in the help texts, are in docs/rules.md. Shell completion:
    eval "$(_SIMCLI_COMPLETE=bash_source simcli)" in ~/.bashrc (zsh_source, fish_source for zsh and fish).
    """
    if debug:  # in the environment, so that worker processes (forked or spawned later) see it too
        import os

        os.environ["SIMCLI_DEBUG"] = "1"


def _register() -> None:
    from simcli.commands import balance, bench, compare, play, plot, report, rules_cmd, run, score, sweep, verify

    main.add_command(play.play)
    main.add_command(run.run)
    main.add_command(score.score)
    main.add_command(bench.bench)
    main.add_command(rules_cmd.variants)
    main.add_command(rules_cmd.rules)
    main.add_command(report.report)
    main.add_command(compare.compare)
    main.add_command(sweep.sweep)
    main.add_command(plot.plot)
    main.add_command(balance.balance)
    main.add_command(verify.verify)


def _register_duplicate() -> None:
    # The duplicate-match commands (issue 13), registered apart so the list above stays as it is.
    from simcli.commands import ladder, match, plan, tournament

    main.add_command(match.match)
    main.add_command(tournament.tournament)
    main.add_command(ladder.ladder)
    main.add_command(plan.plan)


def _register_viewer() -> None:
    # Following a game (issue 33): the replay page of a trace.
    from simcli.commands import replay

    main.add_command(replay.replay)


def _register_training() -> None:
    # The learnt player's data and model (issue 31).
    from simcli.commands import train

    main.add_command(train.train)


_register()
_register_duplicate()
_register_viewer()
_register_training()
