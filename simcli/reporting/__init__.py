"""Reporting: the tables, Markdown/CSV/JSON renderings and figures that commands print or save.

A command parses its options, calls one function below it and prints or saves what it returns; what it prints
is built here, so two commands that show the same thing show it alike. The modules, one job each:

* :mod:`~simcli.reporting.formatting` -- values, intervals and p-values as text; aligned text and Markdown tables;
  JSON documents;
* :mod:`~simcli.reporting.errors` -- :class:`ReportError` (a command's one-line error) and a study's interrupt;
* :mod:`~simcli.reporting.runs` -- opening a run, what identifies it, ``report`` and ``compare`` documents;
* :mod:`~simcli.reporting.figures` -- the canvas, saving, axis labels, ``plot``'s figures and interval plots;
* :mod:`~simcli.reporting.summaries` -- a study's summary tables and its saved documents (PREFIX.md/.csv/.json/.png);
* :mod:`~simcli.reporting.sweeps`, :mod:`~simcli.reporting.levels`, :mod:`~simcli.reporting.balance` -- the
  documents and figures of ``sweep``, ``sweep --levels`` (and ``compare`` of sweeps) and ``balance``;
* :mod:`~simcli.reporting.studies` -- a study's runs: played or reused into its folder, and its command line;
* :mod:`~simcli.reporting.sweep_files` -- stored sweeps read again by ``compare`` and ``plan``;
* :mod:`~simcli.reporting.plans` -- what ``plan`` prints;
* :mod:`~simcli.reporting.matches` -- what ``match``, ``tournament`` and ``ladder`` print and save.

It may import every layer below it (statistics, runs, duplicate play, ...), never :mod:`simcli.commands` or click:
a report that cannot be read or written raises :class:`~simcli.reporting.errors.ReportError`, which the command
prints as its error.
"""
