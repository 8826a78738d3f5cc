"""The acting engine: per-seat action scripts -> poses as pure functions of time."""
