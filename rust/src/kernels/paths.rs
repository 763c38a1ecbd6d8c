//! Pawn paths on a square grid with blocked steps, on bitmasks: the quoridor
//! path invariant and the pawn-step distance, written once.
//!
//! Cell (file f, rank r) of an `n` x `n` board is bit `r * n + f`; a1 is bit 0.
//! A wall blocks steps, never cells, so the walls are two masks indexed by the
//! cell the step leaves from going up or right: bit `c` of `up` blocks the step
//! `c <-> c + n`, bit `c` of `right` blocks the step `c <-> c + 1`.

use std::sync::OnceLock;

/// Largest board the masks hold (11 x 11 = 121 bits).
pub const MAX_SIZE: usize = 11;

pub type Mask = u128;

/// A walk longer than the scratch buffer given for it.
struct TooLong;

/// The steps walls have blocked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Blocked {
    /// Bit `c`: the step between `c` and the cell above it is blocked.
    pub up: Mask,
    /// Bit `c`: the step between `c` and the cell to its right is blocked.
    pub right: Mask,
}

/// Precomputed masks of one board size.
#[derive(Clone, Copy, Debug)]
pub struct Grid {
    pub n: usize,
    pub board: Mask,
    last_file: Mask,
}

/// The grid of an `n` x `n` board, 2 <= n <= 11.
pub fn grid(n: usize) -> &'static Grid {
    static TABLE: OnceLock<Vec<Grid>> = OnceLock::new();
    assert!(
        (2..=MAX_SIZE).contains(&n),
        "grid size {n} out of 2..={MAX_SIZE}"
    );
    &TABLE.get_or_init(|| (0..=MAX_SIZE).map(Grid::build).collect())[n]
}

impl Grid {
    /// The grid of an `n` x `n` board, 2 <= n <= 11. A game of fixed size can hold it
    /// in a `static`: the compiler then sees `n` and the masks as constants, and the
    /// mask shifts of every search become immediate shifts.
    pub const fn new(n: usize) -> Grid {
        assert!(n >= 2 && n <= MAX_SIZE, "grid size out of 2..=11");
        Self::build(n)
    }

    const fn build(n: usize) -> Grid {
        let mut last_file = 0;
        let mut r = 0;
        while r < n {
            last_file |= 1 << (r * n + n - 1);
            r += 1;
        }
        let board = if n == 0 { 0 } else { (1u128 << (n * n)) - 1 };
        Grid {
            n,
            board,
            last_file,
        }
    }

    /// Every cell of rank `rank` (0-based).
    #[inline]
    pub fn rank(&self, rank: usize) -> Mask {
        ((1u128 << self.n) - 1) << (rank * self.n)
    }

    /// The cells one unblocked step away from some cell of `m` (may include `m`).
    #[inline]
    pub fn expand(&self, m: Mask, walls: &Blocked) -> Mask {
        let n = self.n;
        let up = (m & !walls.up) << n;
        let down = (m >> n) & !walls.up;
        let right = (m & !walls.right & !self.last_file) << 1;
        let left = (m >> 1) & !walls.right & !self.last_file;
        (up | down | right | left) & self.board
    }

    /// Can a pawn on any cell of `from` walk to some cell of `goal`?
    #[inline]
    pub fn reaches(&self, from: Mask, goal: Mask, walls: &Blocked) -> bool {
        let mut reach = from;
        loop {
            if reach & goal != 0 {
                return true;
            }
            let next = reach | self.expand(reach, walls);
            if next == reach {
                return false;
            }
            reach = next;
        }
    }

    /// Can a pawn on any cell of `from` walk to every cell of `all`?
    #[inline]
    pub fn reaches_all(&self, from: Mask, all: Mask, walls: &Blocked) -> bool {
        let mut reach = from;
        loop {
            if reach & all == all {
                return true;
            }
            let next = reach | self.expand(reach, walls);
            if next == reach {
                return false;
            }
            reach = next;
        }
    }

    /// The fewest pawn steps from `from` to some cell of `goal`; `None` when walled off.
    /// Breadth-first by whole frontiers: layer k is every cell within k steps.
    #[inline]
    pub fn distance(&self, from: Mask, goal: Mask, walls: &Blocked) -> Option<u32> {
        let mut reach = from;
        let mut steps = 0;
        loop {
            if reach & goal != 0 {
                return Some(steps);
            }
            let next = reach | self.expand(reach, walls);
            if next == reach {
                return None;
            }
            reach = next;
            steps += 1;
        }
    }

    /// The steps of one shortest walk from cell `from` to `goal`, as a [`Blocked`]-shaped
    /// pair of masks (bit `c` of `up`: the walk uses the step `c <-> c + n`); `None`
    /// when walled off. A wall that blocks none of these steps leaves this walk open,
    /// so it cannot cut the pawn off: only the others need a full check.
    #[inline]
    pub fn path_steps(&self, from: usize, goal: Mask, walls: &Blocked) -> Option<Blocked> {
        // Most walks are short: try a small stack buffer of BFS layers first.
        let mut layers = [0 as Mask; 32];
        match self.walk_in(from, goal, walls, &mut layers) {
            Err(TooLong) => {
                let mut layers = vec![0 as Mask; self.n * self.n + 1];
                self.walk_in(from, goal, walls, &mut layers).ok()?
            }
            Ok(steps) => steps,
        }
    }

    /// [`Grid::path_steps`] with `layers` as scratch (layer k: cells within k steps).
    #[inline]
    fn walk_in(
        &self,
        from: usize,
        goal: Mask,
        walls: &Blocked,
        layers: &mut [Mask],
    ) -> Result<Option<Blocked>, TooLong> {
        layers[0] = 1 << from;
        let mut k = 0;
        while layers[k] & goal == 0 {
            let next = layers[k] | self.expand(layers[k], walls);
            if next == layers[k] {
                return Ok(None);
            }
            k += 1;
            *layers.get_mut(k).ok_or(TooLong)? = next;
        }
        let mut steps = Blocked::default();
        let mut cell = (layers[k] & goal).trailing_zeros() as usize;
        while k > 0 {
            // A neighbour reached one layer earlier; one always exists by construction.
            let prev = (self.expand(1 << cell, walls) & layers[k - 1]).trailing_zeros() as usize;
            let low = cell.min(prev);
            if cell.abs_diff(prev) == self.n {
                steps.up |= 1 << low;
            } else {
                steps.right |= 1 << low;
            }
            cell = prev;
            k -= 1;
        }
        Ok(Some(steps))
    }

    /// Is the step from `cell` to the adjacent `to` blocked? (Both on the board, adjacent.)
    #[inline]
    pub fn step_blocked(&self, cell: usize, to: usize, walls: &Blocked) -> bool {
        let (lo, hi) = (cell.min(to), cell.max(to));
        if hi - lo == self.n {
            walls.up >> lo & 1 == 1
        } else {
            walls.right >> lo & 1 == 1
        }
    }

    /// Cells on the last file (masked out so left/right steps never wrap a rank).
    #[inline]
    pub fn last_file(&self) -> Mask {
        self.last_file
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain BFS over an explicit adjacency list: the reference for the bitmask kernel.
    fn reference_distance(g: &Grid, from: usize, goal: Mask, walls: &Blocked) -> Option<u32> {
        let n = g.n;
        let mut dist = vec![u32::MAX; n * n];
        let mut queue = std::collections::VecDeque::from([from]);
        dist[from] = 0;
        while let Some(c) = queue.pop_front() {
            if goal >> c & 1 == 1 {
                return Some(dist[c]);
            }
            let (f, r) = (c % n, c / n);
            let mut next = Vec::new();
            if r + 1 < n {
                next.push(c + n);
            }
            if r > 0 {
                next.push(c - n);
            }
            if f + 1 < n {
                next.push(c + 1);
            }
            if f > 0 {
                next.push(c - 1);
            }
            for to in next {
                if !g.step_blocked(c, to, walls) && dist[to] == u32::MAX {
                    dist[to] = dist[c] + 1;
                    queue.push_back(to);
                }
            }
        }
        None
    }

    #[test]
    fn open_board_distance_is_the_rank_gap() {
        let g = grid(9);
        let walls = Blocked::default();
        assert_eq!(g.distance(1 << 4, g.rank(8), &walls), Some(8));
        assert_eq!(g.distance(1 << (8 * 9 + 4), g.rank(0), &walls), Some(8));
        assert_eq!(g.distance(g.rank(3), g.rank(3), &walls), Some(0));
    }

    #[test]
    fn a_full_row_of_blocked_up_steps_cuts_the_board() {
        let g = grid(9);
        let walls = Blocked {
            up: g.rank(4),
            right: 0,
        };
        assert!(!g.reaches(1 << 4, g.rank(8), &walls));
        assert_eq!(g.distance(1 << 4, g.rank(8), &walls), None);
        assert!(g.reaches(1 << 4, g.rank(4), &walls));
    }

    #[test]
    fn bitmask_distance_matches_plain_bfs() {
        let mut rng = crate::rng::Rng::new(17);
        for _ in 0..3000 {
            let n = 2 + rng.below(MAX_SIZE - 1);
            let g = grid(n);
            let mut walls = Blocked::default();
            for c in 0..n * n {
                if c / n + 1 < n && rng.below(3) == 0 {
                    walls.up |= 1 << c;
                }
                if c % n + 1 < n && rng.below(3) == 0 {
                    walls.right |= 1 << c;
                }
            }
            let from = rng.below(n * n);
            let goal = g.rank(rng.below(n));
            let want = reference_distance(g, from, goal, &walls);
            assert_eq!(g.distance(1 << from, goal, &walls), want);
            assert_eq!(g.reaches(1 << from, goal, &walls), want.is_some());
            if let Some(steps) = g.path_steps(from, goal, &walls) {
                let used = steps.up.count_ones() + steps.right.count_ones();
                assert_eq!(Some(used), want);
                assert_eq!(steps.up & walls.up, 0);
                assert_eq!(steps.right & walls.right, 0);
            }
        }
    }
}
