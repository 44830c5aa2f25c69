"""Click subcommands of ``simcli``; each module defines one command."""
