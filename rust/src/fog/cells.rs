//! The per-ply kernels of the fog engine on `u32` cell sets.
//!
//! Fog boards have at most [`MAX_CELLS`] cells, so the engine keeps its masks
//! in a `u32` (the shared kernels work on `u128`, which costs two registers and
//! a software popcount per operation on the hot path of a random game). The
//! adjacency here is [`crate::kernels::hexgrid`]'s, restated on `u32`; the
//! tests check it, the connection test and the line test against the kernel
//! versions on random boards.

use super::MAX_CELLS;
pub use crate::kernels::select::Ranked;

/// A set of cells, bit `rank * n + file` (a1 is bit 0).
pub type Cells = u32;

const _: () = assert!(MAX_CELLS <= Cells::BITS as usize);

/// Edges and board of one hex size, as `u32` masks.
#[derive(Clone, Copy, Debug)]
pub struct HexGrid {
    n: u32,
    board: Cells,
    first_file: Cells,
    last_file: Cells,
    first_rank: Cells,
    last_rank: Cells,
}

/// Largest side whose board fits [`MAX_CELLS`].
const MAX_SIDE: usize = 5;
const _: () = assert!(MAX_SIDE * MAX_SIDE <= MAX_CELLS);

const fn build(n: usize) -> HexGrid {
    let (mut first_file, mut last_file, mut first_rank, mut last_rank) = (0, 0, 0, 0);
    let mut i = 0;
    while i < n {
        first_file |= 1 << (i * n);
        last_file |= 1 << (i * n + n - 1);
        first_rank |= 1 << i;
        last_rank |= 1 << ((n - 1) * n + i);
        i += 1;
    }
    let board = if n == 0 {
        0
    } else {
        ((1u64 << (n * n)) - 1) as Cells
    };
    HexGrid {
        n: n as u32,
        board,
        first_file,
        last_file,
        first_rank,
        last_rank,
    }
}

static GRIDS: [HexGrid; MAX_SIDE + 1] =
    [build(0), build(1), build(2), build(3), build(4), build(5)];

/// The grid of side `n` (1..=5).
#[inline]
pub fn hex_grid(n: usize) -> &'static HexGrid {
    &GRIDS[n]
}

/// [`HexGrid::connects_through`] on the side-`n` grid. It runs after every
/// placement, so the sides the variants use get code of their own without a
/// loop whose length depends on the stones (its exit would mispredict): the
/// 4 x 4 board (dark-hex-4) looks the answer up in a table, the 5 x 5 board
/// runs [`HEX5`] over its five lanes.
/// Those two answer whether `own` joins the edges at all, not only through
/// `cell`: the same in every reachable game (the first connection ends it),
/// but not on boards `ismcts` samples, whose hidden stones may already join.
#[inline(always)]
pub fn hex_connects_through(n: usize, own: Cells, cell: usize, seat: usize) -> bool {
    match n {
        4 => HEX4_CONNECTS[seat & 1][own as usize >> 6 & 1023] >> (own & 63) & 1 == 1,
        5 => hex5_connects(own, seat),
        _ => hex_grid(n).connects_through(own, cell, seat),
    }
}

/// Does `own` join `seat`'s edges on the 5 x 5 board? [`HEX5`] reads the
/// board lane by lane from the source edge: ranks for seat 1, files for seat 0
/// (the hex adjacency is symmetric under swapping files and ranks, so a file
/// read in rank order meets its neighbours as a rank does).
#[inline(always)]
fn hex5_connects(own: Cells, seat: usize) -> bool {
    let mut state = HEX5_START;
    for lane in 0..5 {
        let cells = if seat == 0 {
            // File `lane`'s cells sit at bits lane + 5 * rank; the multiply
            // moves bit 5 * rank to bit 20 + rank (no two products meet).
            ((own >> lane) & 0x0010_8421).wrapping_mul(0x0011_1110) >> 20 & 31
        } else {
            own >> (5 * lane) & 31
        };
        state = HEX5.next[state as usize * 32 + cells as usize];
    }
    state != HEX5_DEAD
}

/// The connection automaton of the 5 x 5 hex board: read lane by lane from
/// the source edge, its state is what the stones read so far tell about the
/// last lane's cells: which hold a stone joined to the source edge (`S`), and
/// how the others group (`A`, `B`: joined to each other through the lanes read
/// so far). Cell `i` of a lane touches cells `i` and `i + 1` of the lane before
/// and its neighbours in its own lane, so the next state follows from the state
/// and the next lane's 5 bits alone: a table of [`Hex5::STATES`] x 32 bytes.
/// When no cell of a lane is joined to the source, none of a later lane can be
/// (the dead state, which stays); the stones join the edges iff the state after
/// the far lane is not dead. The source edge reads as a lane of five `S` cells
/// (the start). A test checks it against the kernel's flood.
static HEX5: Hex5 = Hex5::build();
const HEX5_DEAD: u8 = 0;
const HEX5_START: u8 = 1;

struct Hex5 {
    next: [u8; Hex5::STATES * 32],
}

impl Hex5 {
    /// Room for the states (70 are reachable, the dead one included).
    const STATES: usize = 80;
    const EMPTY: u16 = 0;
    const S: u16 = 1;
    /// A lane's state as five 2-bit labels: empty, `S`, then `A` and `B` in
    /// order of first appearance.
    const fn label(code: u16, i: usize) -> u16 {
        code >> (2 * i) & 3
    }

    /// The state after reading `lane` (bit `i`: cell `i` holds a stone) in
    /// `state`, `None` for the dead state.
    const fn step(state: u16, lane: u16) -> Option<u16> {
        // Union-find over the lane's runs (nodes 0..3, by the run's first cell)
        // and the labels of the lane before (node 3 + label - 1: S, A, B).
        let mut parent = [0usize, 1, 2, 3, 4, 5];
        let mut run = [0usize; 5];
        let (mut runs, mut i) = (0, 0);
        while i < 5 {
            if lane >> i & 1 == 1 {
                if i > 0 && lane >> (i - 1) & 1 == 1 {
                    run[i] = run[i - 1];
                } else {
                    run[i] = runs;
                    runs += 1;
                }
                let mut j = i;
                while j <= i + 1 && j < 5 {
                    let l = Self::label(state, j);
                    if l != Self::EMPTY {
                        let (a, b) = (
                            Self::root(&parent, run[i]),
                            Self::root(&parent, 2 + l as usize),
                        );
                        parent[a] = b;
                    }
                    j += 1;
                }
            }
            i += 1;
        }
        let source = Self::root(&parent, 3);
        let (mut code, mut named, mut names, mut joined) = (0u16, [usize::MAX; 2], 0, false);
        let mut i = 0;
        while i < 5 {
            if lane >> i & 1 == 1 {
                let r = Self::root(&parent, run[i]);
                let l = if r == source {
                    joined = true;
                    Self::S
                } else if named[0] == r {
                    2
                } else if named[1] == r {
                    3
                } else {
                    named[names] = r;
                    names += 1;
                    1 + names as u16
                };
                code |= l << (2 * i);
            }
            i += 1;
        }
        if joined {
            Some(code)
        } else {
            None
        }
    }

    const fn root(parent: &[usize; 6], mut x: usize) -> usize {
        while parent[x] != x {
            x = parent[x];
        }
        x
    }

    /// Every state reachable from the start, numbered as first met (the dead
    /// state 0, the start 1), and the table of their steps.
    const fn build() -> Hex5 {
        // State codes by number; `u16::MAX` for the dead state.
        let mut codes = [0u16; Self::STATES];
        codes[HEX5_DEAD as usize] = u16::MAX;
        codes[HEX5_START as usize] = 0b01_01_01_01_01;
        let (mut known, mut at) = (2, 0);
        let mut next = [HEX5_DEAD; Self::STATES * 32];
        while at < known {
            let mut lane = 0;
            while at != HEX5_DEAD as usize && lane < 32 {
                let id = match Self::step(codes[at], lane as u16) {
                    None => HEX5_DEAD as usize,
                    Some(code) => {
                        let mut id = 0;
                        while id < known && codes[id] != code {
                            id += 1;
                        }
                        if id == known {
                            assert!(known < Self::STATES, "more hex 5 states than room");
                            codes[known] = code;
                            known += 1;
                        }
                        id
                    }
                };
                next[at * 32 + lane] = id as u8;
                lane += 1;
            }
            at += 1;
        }
        Hex5 { next }
    }
}

/// For every set of one seat's stones on the 4 x 4 board, whether it joins the
/// seat's edges: bit `m % 64` of word `m / 64` of the seat's row (8 KB a seat).
static HEX4_CONNECTS: [[u64; 1 << 10]; 2] = hex4_table();

const fn hex4_table() -> [[u64; 1 << 10]; 2] {
    let grid = build(4);
    let mut table = [[0u64; 1 << 10]; 2];
    let mut seat = 0;
    while seat < 2 {
        let (source, target) = grid.edges(seat);
        let mut m: Cells = 0;
        while m < 1 << 16 {
            if grid.flood(source & m, m) & target != 0 {
                table[seat][m as usize / 64] |= 1 << (m % 64);
            }
            m += 1;
        }
        seat += 1;
    }
    table
}

impl HexGrid {
    /// Every cell adjacent to some cell of `m` (may include cells of `m`): the
    /// six hex directions of `hexgrid::Geometry::expand`.
    #[inline(always)]
    const fn expand(&self, m: Cells) -> Cells {
        let n = self.n;
        let left = (m >> 1) & !self.last_file;
        let right = (m << 1) & !self.first_file;
        let down = m >> n;
        let up = m << n;
        let down_right = (m >> (n - 1)) & !self.first_file;
        let up_left = (m << (n - 1)) & !self.last_file;
        (left | right | down | up | down_right | up_left) & self.board
    }

    /// The cells of `through` connected to `seed & through` inside `through`.
    #[inline(always)]
    const fn flood(&self, seed: Cells, through: Cells) -> Cells {
        let mut reach = seed & through;
        loop {
            let next = reach | (self.expand(reach) & through);
            if next == reach {
                return reach;
            }
            reach = next;
        }
    }

    /// The edges `seat` joins: file a and the last file for seat 0, rank 1 and the last rank for seat 1.
    #[inline(always)]
    const fn edges(&self, seat: usize) -> (Cells, Cells) {
        if seat == 0 {
            (self.first_file, self.last_file)
        } else {
            (self.first_rank, self.last_rank)
        }
    }

    /// Does `own` connect `seat`'s edges, given that it did not before its stone
    /// on `cell` was placed? Any new connection runs through `cell`, so only the
    /// chain holding it is grown (none when `cell` is not in `own`: false).
    #[inline(always)]
    pub fn connects_through(&self, own: Cells, cell: usize, seat: usize) -> bool {
        if !self.spans(own, seat) {
            return false;
        }
        let (source, target) = self.edges(seat);
        let chain = self.flood(1 << cell, own);
        chain & source != 0 && chain & target != 0
    }

    /// A cheap necessary condition for a connection: a hex step changes the file
    /// and the rank by at most one, so a chain joining seat 0's edges has a stone
    /// in every file, and one joining seat 1's edges a stone in every rank.
    #[inline(always)]
    fn spans(&self, own: Cells, seat: usize) -> bool {
        let n = self.n;
        let mut lanes = 0;
        for i in 0..n {
            lanes |= if seat == 0 {
                // File f of any rank lands on bit f of the first rank.
                (own >> (i * n)) & self.first_rank
            } else {
                // Rank r of any file lands on bit r * n of the first file.
                (own >> i) & self.first_file
            };
        }
        lanes
            == if seat == 0 {
                self.first_rank
            } else {
                self.first_file
            }
    }
}

/// `NIBBLES[i][b]`: the set bits of byte `b` taken as byte `i` of a 16-bit set,
/// as cell indices `8 * i + bit` in 4-bit fields (lowest first, from field 0;
/// unused fields 0), and their count in bits 32 and up.
static NIBBLES: [[u64; 256]; 2] = [nibbles(0), nibbles(1)];

const fn nibbles(byte: usize) -> [u64; 256] {
    let mut table = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let (mut bit, mut k) = (0, 0);
        while bit < 8 {
            if b >> bit & 1 == 1 {
                table[b] |= ((8 * byte + bit) as u64) << (4 * k);
                k += 1;
            }
            bit += 1;
        }
        table[b] |= (k as u64) << 32;
        b += 1;
    }
    table
}

/// A set of cells listed for `random`: its count and its cells in index order,
/// so that after the draw picking the k-th takes a shift and a mask (the list
/// and the count come from table loads that do not wait for the draw, where a
/// select after the draw is a chain of a dozen steps). `SIDE` is the board's
/// side: a board of at most 16 cells lists in one `u64`.
#[derive(Clone, Copy, Debug)]
pub struct Listed<const SIDE: usize> {
    /// Each cell's index mod 16 in a 4-bit field, lowest cell first: cells
    /// 0..16 first, then cells 16..32 (which gain their 16 back by rank).
    list: u128,
    /// How many cells are below 16, and how many in all.
    low_count: u32,
    count: u32,
}

/// `NINE[m]`: the 9-bit set `m` as [`list16`] lists it, the count in bits 40
/// and up (the fields take 36 bits).
static NINE: [u64; 512] = nine();

const fn nine() -> [u64; 512] {
    let mut table = [0u64; 512];
    let mut m = 0;
    while m < 512 {
        let (lo, hi) = (NIBBLES[0][m & 255], NIBBLES[1][m >> 8]);
        let lo_count = lo >> 32;
        let list = (lo & 0xFFFF_FFFF) | (hi & 0xFFFF_FFFF) << (4 * lo_count);
        table[m] = list | (lo_count + (hi >> 32)) << 40;
        m += 1;
    }
    table
}

/// The 16-bit set `m`: its cells in 4-bit fields, lowest first, and its count.
#[inline(always)]
fn list16(m: u32) -> (u64, u32) {
    let (lo, hi) = (
        NIBBLES[0][m as usize & 255],
        NIBBLES[1][m as usize >> 8 & 255],
    );
    let lo_count = (lo >> 32) as u32;
    // At most 8 fields below, so the upper byte's fields end by bit 64.
    let list = (lo & 0xFFFF_FFFF) | (hi & 0xFFFF_FFFF) << (4 * lo_count);
    (list, lo_count + (hi >> 32) as u32)
}

impl<const SIDE: usize> Listed<SIDE> {
    const SMALL: bool = SIDE * SIDE <= 16;

    #[inline(always)]
    pub fn new(m: Cells) -> Self {
        debug_assert!(SIDE * SIDE >= 32 || m >> (SIDE * SIDE) == 0);
        if SIDE * SIDE <= 9 {
            // One load: the 3 x 3 sets listed whole.
            let listed = NINE[m as usize & 511];
            let count = (listed >> 40) as u32;
            return Listed {
                list: listed.into(),
                low_count: count,
                count,
            };
        }
        let (low, low_count) = list16(m & 0xFFFF);
        if Self::SMALL {
            return Listed {
                list: low.into(),
                low_count,
                count: low_count,
            };
        }
        let (high, high_count) = list16(m >> 16);
        Listed {
            list: u128::from(low) | u128::from(high) << (4 * low_count),
            low_count,
            count: low_count + high_count,
        }
    }

    /// How many cells the set has.
    #[inline(always)]
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The `k`-th cell (0-based, lowest first); the set has more than `k`.
    #[inline(always)]
    pub fn nth(&self, k: usize) -> usize {
        debug_assert!(k < self.count as usize);
        let k = k as u32;
        if Self::SMALL {
            return (self.list as u64 >> (4 * k) & 15) as usize;
        }
        // 16 when the k-th cell lies past the low half, by the sign of
        // `low_count - 1 - k` (arithmetic, not a branch: `k` is a fresh draw).
        let past_low = ((self.low_count as i32 - 1 - k as i32) >> 31) as u32 & 16;
        (past_low + ((self.list >> (4 * k)) as u32 & 15)) as usize
    }
}

/// For every 3 x 3 board of one seat's marks (bit `rank * 3 + file`), whether it
/// holds a full row, file or diagonal: bit `m % 64` of word `m / 64`.
static TTT3_HAS_LINE: [u64; 8] = ttt3_table();

const TTT3_LINES: [Cells; 8] = [
    0b000_000_111,
    0b000_111_000,
    0b111_000_000,
    0b001_001_001,
    0b010_010_010,
    0b100_100_100,
    0b100_010_001,
    0b001_010_100,
];

const fn ttt3_table() -> [u64; 8] {
    let mut table = [0u64; 8];
    let mut m = 0;
    while m < 512 {
        let mut i = 0;
        while i < TTT3_LINES.len() {
            if m & TTT3_LINES[i] == TTT3_LINES[i] {
                table[m as usize / 64] |= 1 << (m % 64);
            }
            i += 1;
        }
        m += 1;
    }
    table
}

/// Does a 3 x 3 set of marks hold a line?
#[inline]
pub fn ttt3_has_line(marks: Cells) -> bool {
    let m = (marks & 0x1FF) as usize;
    TTT3_HAS_LINE[m / 64] >> (m % 64) & 1 == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fog::lines;
    use crate::kernels::hexgrid::{self, Mask};
    use crate::rng::Rng;

    #[test]
    fn grids_match_the_kernel_geometry() {
        for n in 1..=MAX_SIDE {
            let (ours, kernel) = (hex_grid(n), hexgrid::geometry(n));
            assert_eq!(ours.board as Mask, kernel.board);
            for seat in 0..2 {
                let (s, t) = ours.edges(seat);
                assert_eq!(
                    (s as Mask, t as Mask),
                    (kernel.source(seat), kernel.target(seat))
                );
            }
            for c in 0..n * n {
                let one = 1 << c;
                assert_eq!(ours.expand(one) as Mask, kernel.expand(one as Mask));
            }
        }
    }

    #[test]
    fn connection_through_the_last_stone_matches_the_kernel() {
        // Random fills, one stone at a time, stopping at the first connection:
        // the incremental test must agree with the kernel's full flood at every step.
        let mut rng = Rng::new(5);
        for n in 1..=MAX_SIDE {
            let kernel = hexgrid::geometry(n);
            for _ in 0..4000 {
                let seat = rng.below(2);
                let mut order: Vec<usize> = (0..n * n).collect();
                rng.shuffle(&mut order);
                let mut own: Cells = 0;
                for &c in order.iter().take(rng.below(n * n) + 1) {
                    own |= 1 << c;
                    let expected = kernel.connects(own as Mask, seat);
                    assert_eq!(hex_grid(n).connects_through(own, c, seat), expected);
                    assert_eq!(hex_connects_through(n, own, c, seat), expected);
                    // A collision (on a cell the seat does not own) leaves unconnected
                    // stones unconnected.
                    let other = order[rng.below(n * n)];
                    if own >> other & 1 == 0 && !expected {
                        assert!(!hex_grid(n).connects_through(own, other, seat));
                        assert!(!hex_connects_through(n, own, other, seat));
                    }
                    if expected {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn listed_sets_count_and_select_as_the_general_select() {
        fn check<const SIDE: usize>(m: Cells) {
            let (listed, ranked) = (Listed::<SIDE>::new(m), Ranked::new(m));
            assert_eq!(listed.count() as usize, ranked.count(), "{m:#x}");
            for k in 0..ranked.count() {
                assert_eq!(listed.nth(k), ranked.nth(k), "{m:#x} {k}");
            }
        }
        // Every set of 3 x 3 and 4 x 4 cells, then random sets of 5 x 5 cells.
        for m in 0..1 << 9 {
            check::<3>(m);
        }
        for m in 0..1 << 16 {
            check::<4>(m);
        }
        let mut rng = Rng::new(9);
        for _ in 0..200_000 {
            check::<5>(rng.next_u64() as Cells & ((1 << 25) - 1));
        }
        check::<5>((1 << 25) - 1);
    }

    #[test]
    fn the_hex5_automaton_matches_the_kernel() {
        let kernel = hexgrid::geometry(5);
        let mut rng = Rng::new(21);
        for round in 0..400_000u32 {
            // Sparse, even and dense boards.
            let (a, b) = (rng.next_u64() as Cells, rng.next_u64() as Cells);
            let own = [a & b, a, a | b][round as usize % 3] & ((1 << 25) - 1);
            for seat in 0..2 {
                assert_eq!(
                    hex5_connects(own, seat),
                    kernel.connects(own as Mask, seat),
                    "seat {seat} stones {own:#09x}"
                );
            }
        }
        for seat in 0..2 {
            assert!(hex5_connects((1 << 25) - 1, seat));
            assert!(!hex5_connects(0, seat));
        }
    }

    #[test]
    fn the_hex4_table_matches_the_kernel_on_every_board() {
        let kernel = hexgrid::geometry(4);
        for (seat, row) in HEX4_CONNECTS.iter().enumerate() {
            for own in 0..1u32 << 16 {
                let expected = kernel.connects(own as Mask, seat);
                let looked_up = row[own as usize / 64] >> (own % 64) & 1 == 1;
                assert_eq!(looked_up, expected, "seat {seat} stones {own:#06x}");
            }
        }
    }

    #[test]
    fn the_line_table_matches_the_lines() {
        assert_eq!(
            TTT3_LINES.iter().map(|&l| l as Mask).collect::<Vec<_>>(),
            lines(3)
        );
        for m in 0..512u32 {
            let expected = lines(3).iter().any(|&l| l & !(m as Mask) == 0);
            assert_eq!(ttt3_has_line(m), expected, "{m:#b}");
        }
    }
}
