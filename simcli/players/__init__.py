"""The players' side above the engine: loading strategies and their options, planning helpers, the forward model."""
