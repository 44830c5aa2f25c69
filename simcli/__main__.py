"""``python -m simcli``: the same command line as the ``simcli`` script."""

from simcli.cli import main

if __name__ == "__main__":
    main(prog_name="simcli")
