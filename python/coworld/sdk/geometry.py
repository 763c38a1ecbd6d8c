"""Layout geometry, the layer board visibility is built from: lines of sight and fields.

Cells are algebraic names ("c3": file c, rank 3; a1 is bottom-left) or
(file, rank) index pairs; every function returns names, because boards in views
are keyed by names. Two grids:

* `SquareGrid(files, ranks)`: eight neighbours; distance is Chebyshev (king
  steps). With `diagonal=False`, four neighbours and Manhattan distance.
* `HexGrid(files, ranks)`: coworld's rhombus of hexagons. Cell (file f, rank r)
  touches (f-1, r), (f+1, r), (f, r-1), (f, r+1), (f+1, r-1) and (f-1, r+1), so
  c4 touches b4, d4, c3, c5, d3 and b5. These are axial coordinates q = f,
  r = rank; distance is the hex distance (|dq| + |dr| + |dq + dr|) / 2.

Line of sight. The sight line from A to B samples the straight segment between
their centres at n + 1 evenly spaced points (n = the grid distance) and rounds
each to a cell (square: to the nearest centre; hex: cube rounding), which is
the classic thin digital line (Bresenham on squares). A sample exactly on a
border between two cells is ambiguous, so the segment is drawn twice, shifted
by a tiny offset one way and then the other. B is in sight of A when at least
one of the two lines has no opaque cell strictly between A and B. Because both
shifted segments are the same whichever end you start from, sight is symmetric:
`line_of_sight(g, a, b, o) == line_of_sight(g, b, a, o)`. Opaque cells block
sight through them, not sight of them: a wall is seen, what is behind it is not.
On squares a diagonal step between two opaque cells is not blocked (the thin
line passes through the shared corner).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Mapping
from functools import cache

Cell = tuple[int, int]
CellLike = str | Cell

_EPSILON = 1e-6


class _Grid(ABC):
    kind = ""

    def __init__(self, files: int, ranks: int) -> None:
        if not (1 <= files <= 26 and ranks >= 1):
            raise ValueError(f"a grid has 1..26 files and at least 1 rank, not {files}x{ranks}")
        self.files = files
        self.ranks = ranks

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.files}, {self.ranks})"

    def cells(self) -> list[str]:
        """Every cell, a1 b1 ... then a2 b2 ... (rank by rank from the bottom)."""
        return [self.name((f, r)) for r in range(self.ranks) for f in range(self.files)]

    def contains(self, cell: CellLike) -> bool:
        try:
            self.index(cell)
        except ValueError:
            return False
        return True

    def name(self, cell: CellLike) -> str:
        """The algebraic name of a cell: (2, 2) is "c3"."""
        file, rank = self.index(cell)
        return f"{chr(ord('a') + file)}{rank + 1}"

    def index(self, cell: CellLike) -> Cell:
        """The (file, rank) indices of a cell given by name or indices."""
        if isinstance(cell, str):
            file, digits = ord(cell[:1] or " ") - ord("a"), cell[1:]
            if digits.isdigit() and not digits.startswith("0"):
                found = (file, int(digits) - 1)
                if self._on_board(found):
                    return found
            raise ValueError(f"{cell!r} is not a cell of this board; cells are {self._span()}")
        found = (int(cell[0]), int(cell[1]))
        if not self._on_board(found):
            raise ValueError(f"{found} is off the board; cells are {self._span()}")
        return found

    def _on_board(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.files and 0 <= cell[1] < self.ranks

    def _span(self) -> str:
        return f"a1..{chr(ord('a') + self.files - 1)}{self.ranks}"

    def neighbours(self, cell: CellLike) -> list[str]:
        file, rank = self.index(cell)
        steps = ((file + df, rank + dr) for df, dr in self._steps())
        return [self.name(c) for c in steps if self._on_board(c)]

    @abstractmethod
    def distance(self, a: CellLike, b: CellLike) -> int:
        """Each grid kind defines it."""

    @abstractmethod
    def _steps(self) -> tuple[Cell, ...]:
        """Each grid kind defines it."""

    @abstractmethod
    def _line(self, a: Cell, b: Cell, side: int) -> list[Cell]:
        """Each grid kind defines it."""


class SquareGrid(_Grid):
    """A files x ranks board of squares (eight neighbours unless `diagonal=False`)."""

    kind = "square"

    def __init__(self, files: int, ranks: int, diagonal: bool = True) -> None:
        super().__init__(files, ranks)
        self.diagonal = diagonal

    def _steps(self) -> tuple[Cell, ...]:
        orthogonal = ((-1, 0), (1, 0), (0, -1), (0, 1))
        return orthogonal + (((-1, -1), (-1, 1), (1, -1), (1, 1)) if self.diagonal else ())

    def distance(self, a: CellLike, b: CellLike) -> int:
        (fa, ra), (fb, rb) = self.index(a), self.index(b)
        df, dr = abs(fa - fb), abs(ra - rb)
        return max(df, dr) if self.diagonal else df + dr

    def _line(self, a: Cell, b: Cell, side: int) -> list[Cell]:
        steps = max(abs(b[0] - a[0]), abs(b[1] - a[1]))
        nudge_f, nudge_r = side * _EPSILON, side * 2 * _EPSILON
        line = []
        for i in range(steps + 1):
            t = i / steps if steps else 0.0
            f = a[0] + (b[0] - a[0]) * t + nudge_f
            r = a[1] + (b[1] - a[1]) * t + nudge_r
            line.append((round(f), round(r)))
        return line


class HexGrid(_Grid):
    """coworld's files x ranks rhombus of hexagons (axial coordinates, see module doc)."""

    kind = "hex"

    def _steps(self) -> tuple[Cell, ...]:
        return ((-1, 0), (1, 0), (0, -1), (0, 1), (1, -1), (-1, 1))

    def distance(self, a: CellLike, b: CellLike) -> int:
        (qa, ra), (qb, rb) = self.index(a), self.index(b)
        dq, dr = qa - qb, ra - rb
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def _line(self, a: Cell, b: Cell, side: int) -> list[Cell]:
        steps = self.distance(a, b)
        nudge = (side * _EPSILON, side * 2 * _EPSILON, -side * 3 * _EPSILON)
        line = []
        for i in range(steps + 1):
            t = i / steps if steps else 0.0
            q = a[0] + (b[0] - a[0]) * t + nudge[0]
            r = a[1] + (b[1] - a[1]) * t + nudge[1]
            line.append(_cube_round(q, r, -q - r))
        return line


def _cube_round(q: float, r: float, s: float) -> Cell:
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return (rq, rr)


Grid = SquareGrid | HexGrid


def sight_lines(grid: Grid, origin: CellLike, target: CellLike) -> tuple[list[str], list[str]]:
    """The two thin lines (shifted one way, then the other) from origin to target, as names."""
    a, b = grid.index(origin), grid.index(target)
    return tuple([grid.name(c) for c in grid._line(a, b, side)] for side in (1, -1))  # type: ignore[return-value]


def line_of_sight(
    grid: Grid, origin: CellLike, target: CellLike, opaque: Iterable[CellLike] = ()
) -> bool:
    """True when `target` is in sight of `origin`: no opaque cell strictly between them
    on at least one of the two sight lines (see module doc; symmetric)."""
    walls = {grid.name(c) for c in opaque}
    for line in sight_lines(grid, origin, target):
        if not any(cell in walls for cell in line[1:-1]):
            return True
    return False


def field_cells(
    grid: Grid,
    origin: CellLike,
    radius: int | None = None,
    opaque: Iterable[CellLike] = (),
) -> frozenset[str]:
    """The cells within `radius` steps of `origin` (the whole board when None) that are
    in line of sight of it. The origin itself is always in its field."""
    walls = frozenset(grid.name(c) for c in opaque)
    start = grid.name(origin)
    return frozenset(
        cell
        for cell in grid.cells()
        if (radius is None or grid.distance(start, cell) <= radius)
        and (cell == start or line_of_sight(grid, start, cell, walls))
    )


def fov_predicate(
    grid: Grid,
    viewpoints: Mapping[Hashable, Iterable[CellLike]] | Callable[[Hashable], Iterable[CellLike]],
    radius: int | None = None,
    opaque: Iterable[CellLike] = (),
) -> Callable[[Hashable, str], bool]:
    """A `cell_visible(seat, cell)` for `BoardVisibilityPolicy`: a seat sees the union of
    the fields of its viewpoints (its units, its stones...). A seat with no
    viewpoints sees nothing. Each seat's field is computed once and kept, so build
    a new predicate for every state (viewpoints and walls move)."""
    walls = frozenset(grid.name(c) for c in opaque)

    def points(seat: Hashable) -> Iterable[CellLike]:
        if callable(viewpoints):
            return viewpoints(seat)
        return viewpoints.get(seat, ())

    @cache
    def visible_to(seat: Hashable) -> frozenset[str]:
        seen: set[str] = set()
        for point in points(seat):
            seen |= field_cells(grid, point, radius, walls)
        return frozenset(seen)

    def cell_visible(seat: Hashable, cell: str) -> bool:
        return cell in visible_to(seat)

    return cell_visible
