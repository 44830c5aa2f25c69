"""Reading a run's tables a few columns at a time: which files hold a table, its columns and row count, and its
rows in batches of chosen columns with compact types (``int64`` as ``int32`` where the values fit, strings as
categoricals), so an analysis holds what it reads, not the whole table.

A complete run keeps each table in one file (``games.parquet``, or ``.csv`` with ``--format csv``); an interrupted
one in the chunk files that have their done-marker, in chunk order. Parquet files are read row group by row group
(``pyarrow.parquet.ParquetFile.iter_batches``), CSV files block by block (``pyarrow.csv.open_csv``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcli.runs.run_files import CHUNK_DIR

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = ["BATCH_ROWS", "table_files", "table_columns", "table_rows", "arrow_batches", "compact", "read_frame"]

#: Rows of a batch: large enough that the per-batch work is small beside the decoding, small enough (a few MB of
#: a few columns) that a batch is nothing beside what an analysis keeps.
BATCH_ROWS = 1 << 17


def table_files(run_dir: Path, name: str) -> tuple[list[Path], str]:
    """The files of table ``name`` and their format: the consolidated file, else the finished chunks' files."""
    for fmt in ("parquet", "csv"):
        path = run_dir / f"{name}.{fmt}"
        if path.exists():
            return [path], fmt
    folder = run_dir / CHUNK_DIR
    # An interrupted run: the chunks that finished so far (a chunk without its done-marker may be partial).
    parts = [p for p in sorted(folder.glob(f"{name}-*.parquet"))
             if (folder / f"done-{p.stem.rsplit('-', 1)[1]}.json").exists()]
    return parts, "parquet"


def _csv_header(path: Path) -> list[str]:
    import pyarrow.csv as pacsv

    with pacsv.open_csv(path, read_options=pacsv.ReadOptions(block_size=1 << 16)) as reader:
        return list(reader.schema.names)


def table_columns(run_dir: Path, name: str) -> list[str]:
    """The columns of table ``name`` (empty when the run has no such table)."""
    import pyarrow.parquet as pq

    files, fmt = table_files(run_dir, name)
    if not files:
        return []
    return _csv_header(files[0]) if fmt == "csv" else list(pq.read_schema(files[0]).names)


def table_rows(run_dir: Path, name: str) -> int:
    """The rows of table ``name``, from the Parquet footers (a CSV table is counted by reading one column)."""

    files, fmt = table_files(run_dir, name)
    if fmt == "csv":
        columns = table_columns(run_dir, name)[:1]
        return sum(b.num_rows for b in arrow_batches(run_dir, name, columns))
    return sum(_parquet(p).metadata.num_rows for p in files)


def _parquet(path: Path) -> Any:
    """A Parquet file, opened for reading (its footer is read again each time: holding the footer of a run of
    millions of games, thousands of row groups of 78 columns with their statistics, would cost more memory than
    reading it costs time)."""
    import pyarrow.parquet as pq

    return pq.ParquetFile(path)


def arrow_batches(run_dir: Path, name: str, columns: Sequence[str],
                  batch_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    """The rows of table ``name`` in file order, as Arrow record batches of ``columns`` (in that order).

    A column the table lacks raises ``KeyError`` naming it (as a pandas table would).
    """
    import pyarrow.csv as pacsv

    files, fmt = table_files(run_dir, name)
    wanted = list(dict.fromkeys(columns))
    for path in files:
        if fmt == "csv":
            missing = [c for c in wanted if c not in _csv_header(path)]
            if missing:
                raise KeyError(missing[0])
            options = pacsv.ConvertOptions(include_columns=wanted)
            with pacsv.open_csv(path, convert_options=options,
                                read_options=pacsv.ReadOptions(block_size=1 << 22)) as reader:
                yield from reader
            continue
        parquet = _parquet(path)
        missing = [c for c in wanted if c not in parquet.schema_arrow.names]
        if missing:
            raise KeyError(missing[0])
        yield from parquet.iter_batches(batch_size=batch_rows, columns=wanted)


def _narrow(data: pa.RecordBatch | pa.Table) -> pa.Table:
    """The columns of ``data`` with 64-bit integers as 32-bit where every value fits and strings dictionary-encoded
    (the same values, in less memory)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    arrays = []
    for column in data.columns:
        if pa.types.is_integer(column.type) and column.type.bit_width > 32 and len(column):
            low, high = pc.min_max(column).values()
            if low.is_valid and -(2 ** 31) <= low.as_py() and high.as_py() < 2 ** 31:
                column = column.cast(pa.int32())
        elif pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            column = pc.dictionary_encode(column)
        arrays.append(column)
    return pa.Table.from_arrays(arrays, names=data.schema.names)


def compact(data: pa.RecordBatch | pa.Table) -> pd.DataFrame:
    """An Arrow batch or table as a pandas DataFrame with compact types: 64-bit integers as ``int32`` when every
    value fits, strings as categoricals. Integers with missing values become ``float64`` with NaN (as pandas reads
    them); the values are unchanged, only their storage is smaller."""
    return _narrow(data).to_pandas(strings_to_categorical=True)


def read_frame(run_dir: Path, name: str, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Table ``name`` (or only ``columns`` of it) as one compact DataFrame (:func:`compact`); empty without rows.

    Each batch is narrowed as it is read, so the table is never held with its 64-bit columns."""
    import pandas as pd
    import pyarrow as pa

    wanted = table_columns(run_dir, name) if columns is None else list(columns)
    parts = [_narrow(b) for b in arrow_batches(run_dir, name, wanted)]
    if not parts:
        return pd.DataFrame(columns=wanted)
    # Batches can differ in type (a column all null in one chunk file, integers narrowed in one batch and not in
    # another): the permissive concatenation promotes them to a common type.
    table = pa.concat_tables(parts, promote_options="permissive")
    del parts
    return table.to_pandas(strings_to_categorical=True, self_destruct=True)
