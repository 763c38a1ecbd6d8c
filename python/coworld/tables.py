"""Rich tables for an 80-column terminal: a cell too long for its column wraps
(folding a word only when it must), never cut short with an ellipsis."""

from __future__ import annotations

from typing import Any

from rich import table


class Table(table.Table):
    """`rich.table.Table` whose columns fold instead of ending in an ellipsis."""

    def add_column(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("overflow", "fold")
        super().add_column(*args, **kwargs)
