"""Batch runs: result rows, backends (local processes or Dask), chunks, run directories, integrity checks, loading."""
