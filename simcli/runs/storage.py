"""A run directory's files: atomic writes, chunk tables and their done-markers, consolidation, the manifest.

Every file is written through a temporary file and a rename, and a chunk's done-marker only after its tables,
so a run killed at any point leaves only whole files, and a chunk without its marker is simply played again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from simcli.runs.integrity import CHUNK_DIR, MANIFEST, TABLES, read_marker

# Re-exported (its historical home): the commit of the simcli that runs, from a checkout or the installed package.
from simcli.runs.provenance import git_commit as git_commit

if TYPE_CHECKING:
    from simcli.runs.chunks import ChunkResult


def atomic_write_bytes(path: Path, data: Any) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, so a reader never sees half a file.

    ``data`` is anything with the buffer protocol (bytes, or a pyarrow Buffer written without a copy).
    """
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def warm_up_tables() -> None:
    """Pay the one-time costs of making tables before a run's clock starts (they are not throughput).

    Importing pyarrow.parquet takes a while, and pyarrow imports pandas (about 0.3 s) on its first
    conversion of Python rows; on a run of a few seconds that alone would be several percent of hands/s.
    """
    import pyarrow as pa
    import pyarrow.parquet  # noqa: F401

    pa.Table.from_pylist([{"warm_up": 0}])


def _table_bytes(rows: list[dict[str, Any]]) -> Any:
    """One chunk table as Parquet, in a pyarrow Buffer (written out as it is, without a copy to bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    # Chunk files are temporary (consolidation reads them back whole and rewrites them with zstd and
    # statistics): favour speed here. Most of the time goes into turning the row dicts into Arrow columns.
    pq.write_table(pa.Table.from_pylist(rows), sink, compression="snappy", write_statistics=False)
    return sink.getvalue()


def write_chunk(run_dir: Path, chunk: ChunkResult) -> None:
    """Write one finished chunk's tables, then its done-marker (the marker is what resume trusts)."""
    import hashlib

    folder = run_dir / CHUNK_DIR
    files = {}
    for name in TABLES:
        rows = getattr(chunk, name)
        path = folder / f"{name}-{chunk.index:05d}.parquet"
        if rows:
            data = _table_bytes(rows)
            atomic_write_bytes(path, data)
            view = memoryview(data)
            files[name] = {"rows": len(rows), "bytes": view.nbytes, "sha256": hashlib.sha256(view).hexdigest()}
        else:
            path.unlink(missing_ok=True)  # a stale file of an earlier, cut-off try would be consolidated
    if chunk.traces:
        traces = run_dir / "traces"
        traces.mkdir(exist_ok=True)
        for fname, text in chunk.traces.items():
            atomic_write_bytes(traces / fname, text.encode("utf-8"))
    marker = {"chunk": chunk.index, "games": len(chunk.games), "hands": chunk.hands,
              "errors": len(chunk.errors), "seconds": chunk.seconds, "files": files}
    atomic_write_bytes(folder / f"done-{chunk.index:05d}.json", json.dumps(marker).encode())


def done_chunks(run_dir: Path) -> dict[int, dict[str, Any]]:
    """Chunks with a readable done-marker (their files are checked by :mod:`simcli.runs.integrity`)."""
    out = {}
    for p in sorted((run_dir / CHUNK_DIR).glob("done-*.json")):
        info, _ = read_marker(p)
        if info is not None:
            out[int(info["chunk"])] = info
    return out


#: Rows of a row group of a consolidated table (about 40 MB of a deals table in memory while it is written).
ROW_GROUP_ROWS = 1 << 16


def consolidate(run_dir: Path, n_chunks: int, fmt: str) -> dict[str, int]:
    """Stream the chunk files, in chunk order, into one file per table; return row counts.

    Chunks are gathered into row groups of about :data:`ROW_GROUP_ROWS` rows (a few chunks in memory at a time, so
    memory stays flat however many games the run has): a reader holds every row group's description of every
    column while it reads, and with a row group a chunk that is 150 MB for a million games' deals table, with
    these a few MB.
    """
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    counts = {}
    folder = run_dir / CHUNK_DIR
    for name in TABLES:
        parts = [folder / f"{name}-{k:05d}.parquet" for k in range(n_chunks)]
        parts = [p for p in parts if p.exists()]
        final = run_dir / f"{name}.{fmt}"
        if not parts:
            final.unlink(missing_ok=True)
            counts[name] = 0
            continue
        tmp = final.with_name(f".{final.name}.tmp-{os.getpid()}")
        schema = None
        writer: Any = None
        rows = 0
        pending: list[Any] = []  # chunk tables not written yet: one row group once they reach ROW_GROUP_ROWS
        try:
            for p in parts:
                table = pq.read_table(p)
                if schema is None:
                    schema = _promote_nulls(table.schema)
                    writer = (pq.ParquetWriter(tmp, schema, compression="zstd") if fmt == "parquet"
                              else pacsv.CSVWriter(tmp, schema))
                pending.append(table.cast(schema) if table.schema != schema else table)
                rows += table.num_rows
                if sum(t.num_rows for t in pending) >= ROW_GROUP_ROWS:
                    _write_rows(writer, pending)
            _write_rows(writer, pending)
            writer.close()
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        counts[name] = rows
    return counts


def _write_rows(writer: Any, pending: list[Any]) -> None:
    """Write the gathered chunk tables as one row group (two when they passed the size) and forget them."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if pending:
        table = pa.concat_tables(pending)
        if isinstance(writer, pq.ParquetWriter):
            writer.write_table(table, row_group_size=ROW_GROUP_ROWS)
        else:
            writer.write_table(table)
        pending.clear()


def _promote_nulls(schema: Any) -> Any:
    import pyarrow as pa

    return pa.schema([pa.field(f.name, pa.string() if f.type == pa.null() else f.type) for f in schema])


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The run's ``run.json``."""
    return json.loads((run_dir / MANIFEST).read_text())


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Write ``run.json`` atomically."""
    atomic_write_bytes(run_dir / MANIFEST, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
