//! Hex rhombus geometry on bitmasks: adjacency, connection, and the 0-1 BFS
//! `distToWin`, written once for hex (gauntlet) and dark hex (fog).
//!
//! Cell (rank r, file c) is bit `r * n + c`; a1 is bit 0. Cell (r, c) touches
//! (r, c-1), (r, c+1), (r-1, c), (r+1, c), (r-1, c+1) and (r+1, c-1).
//! Seat 0 connects file a to the last file; seat 1 rank 1 to the last rank.

use std::collections::VecDeque;
use std::sync::OnceLock;

/// Largest board the masks hold (11 x 11 = 121 bits).
pub const MAX_SIZE: usize = 11;
/// `distToWin` when no connection is possible any more.
pub const UNREACHABLE: u8 = 99;

pub type Mask = u128;

/// Precomputed masks of one board size.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub n: usize,
    pub board: Mask,
    first_file: Mask,
    last_file: Mask,
    first_rank: Mask,
    last_rank: Mask,
}

/// The geometry of an `n` x `n` rhombus, 1 <= n <= 11.
pub fn geometry(n: usize) -> &'static Geometry {
    static TABLE: OnceLock<Vec<Geometry>> = OnceLock::new();
    assert!(
        (1..=MAX_SIZE).contains(&n),
        "hex board size {n} out of 1..={MAX_SIZE}"
    );
    &TABLE.get_or_init(|| (0..=MAX_SIZE).map(Geometry::build).collect())[n]
}

impl Geometry {
    fn build(n: usize) -> Geometry {
        let (mut first_file, mut last_file, mut first_rank, mut last_rank) = (0, 0, 0, 0);
        for i in 0..n {
            first_file |= 1 << (i * n);
            last_file |= 1 << (i * n + n - 1);
            first_rank |= 1 << i;
            last_rank |= 1 << ((n - 1) * n + i);
        }
        let board = if n == 0 { 0 } else { (1u128 << (n * n)) - 1 };
        Geometry {
            n,
            board,
            first_file,
            last_file,
            first_rank,
            last_rank,
        }
    }

    #[inline]
    pub fn bit(&self, file: usize, rank: usize) -> Mask {
        1 << (rank * self.n + file)
    }

    /// (file, rank) of a cell index.
    #[inline]
    pub fn coords(&self, cell: usize) -> (usize, usize) {
        (cell % self.n, cell / self.n)
    }

    /// The edge a seat starts from: file a for seat 0, rank 1 for seat 1.
    #[inline]
    pub fn source(&self, seat: usize) -> Mask {
        if seat == 0 {
            self.first_file
        } else {
            self.first_rank
        }
    }

    /// The edge a seat must reach.
    #[inline]
    pub fn target(&self, seat: usize) -> Mask {
        if seat == 0 {
            self.last_file
        } else {
            self.last_rank
        }
    }

    /// Every cell adjacent to some cell of `m` (may include cells of `m`).
    #[inline]
    pub fn expand(&self, m: Mask) -> Mask {
        let n = self.n;
        let left = (m >> 1) & !self.last_file;
        let right = (m << 1) & !self.first_file;
        let down = m >> n;
        let up = m << n;
        let down_right = (m >> (n - 1)) & !self.first_file;
        let up_left = (m << (n - 1)) & !self.last_file;
        (left | right | down | up | down_right | up_left) & self.board
    }

    /// The cells adjacent to one cell.
    pub fn neighbors(&self, cell: usize) -> Mask {
        self.expand(1 << cell) & !(1 << cell)
    }

    /// Grow `seed` through `through` until it stops growing.
    #[inline]
    pub fn flood(&self, seed: Mask, through: Mask) -> Mask {
        let mut reach = seed & through;
        loop {
            let next = reach | (self.expand(reach) & through);
            if next == reach {
                return reach;
            }
            reach = next;
        }
    }

    /// Does `stones` connect `seat`'s two edges?
    #[inline]
    pub fn connects(&self, stones: Mask, seat: usize) -> bool {
        self.flood(self.source(seat) & stones, stones) & self.target(seat) != 0
    }

    /// `distToWin`: the fewest additional cells `seat` must own to connect, where
    /// its own cells cost 0, empty cells 1 and opponent cells are impassable;
    /// [`UNREACHABLE`] when no connection is possible. Layer k of the 0-1 BFS is
    /// the set of cells reachable for cost <= k, grown by whole masks.
    pub fn dist_to_win(&self, own: Mask, opp: Mask, seat: usize) -> u8 {
        let empty = self.board & !own & !opp;
        let (source, target) = (self.source(seat), self.target(seat));
        let mut reach = self.flood(source & own, own);
        for k in 0..=(self.n * self.n) {
            if reach & target != 0 {
                return k as u8;
            }
            let step = (self.expand(reach) | source) & empty & !reach;
            if step == 0 {
                return UNREACHABLE;
            }
            reach = self.flood(reach | step, own | reach | step);
        }
        UNREACHABLE
    }

    /// A cheapest source-to-target path as cell indices (source end first), under
    /// the same costs as [`Geometry::dist_to_win`]; `None` when unreachable.
    /// Deterministic: cells are explored in index order, neighbours in bit order.
    pub fn shortest_path(&self, own: Mask, opp: Mask, seat: usize) -> Option<Vec<usize>> {
        let cells = self.n * self.n;
        let cost = |c: usize| if own >> c & 1 == 1 { 0u32 } else { 1 };
        let passable = self.board & !opp;
        let mut dist = vec![u32::MAX; cells];
        let mut parent = vec![usize::MAX; cells];
        let mut queue = VecDeque::new();
        for c in bits(self.source(seat) & passable) {
            dist[c] = cost(c);
            if cost(c) == 0 {
                queue.push_front(c)
            } else {
                queue.push_back(c)
            }
        }
        // 0-1 BFS; a cell may be popped more than once, later pops are stale.
        let mut done = vec![false; cells];
        while let Some(c) = queue.pop_front() {
            if std::mem::replace(&mut done[c], true) {
                continue;
            }
            for nb in bits(self.neighbors(c) & passable) {
                let d = dist[c] + cost(nb);
                if d < dist[nb] {
                    dist[nb] = d;
                    parent[nb] = c;
                    if cost(nb) == 0 {
                        queue.push_front(nb)
                    } else {
                        queue.push_back(nb)
                    }
                }
            }
        }
        let end = bits(self.target(seat) & passable).min_by_key(|&c| (dist[c], c))?;
        if dist[end] == u32::MAX {
            return None;
        }
        let mut path = vec![end];
        while parent[*path.last()?] != usize::MAX {
            path.push(parent[*path.last()?]);
        }
        path.reverse();
        Some(path)
    }

    /// A chain of `stones` joining `seat`'s edges (source end first), if one exists.
    pub fn winning_path(&self, stones: Mask, seat: usize) -> Option<Vec<usize>> {
        if !self.connects(stones, seat) {
            return None;
        }
        self.shortest_path(stones, self.board & !stones, seat)
    }
}

/// The set bits of a mask, lowest first.
pub fn bits(mut m: Mask) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let c = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(c)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(g: &Geometry, name: &str) -> usize {
        let (f, r) = crate::game::parse_cell(name, g.n, g.n).unwrap();
        r * g.n + f
    }

    fn names(g: &Geometry, m: Mask) -> Vec<String> {
        let mut v: Vec<String> = bits(m)
            .map(|c| {
                let (f, r) = g.coords(c);
                crate::game::cell_name(f, r)
            })
            .collect();
        v.sort();
        v
    }

    fn mask(g: &Geometry, cells: &str) -> Mask {
        cells.split_whitespace().fold(0, |m, c| m | 1 << cell(g, c))
    }

    #[test]
    fn adjacency_matches_the_spec() {
        let g = geometry(7);
        assert_eq!(
            names(g, g.neighbors(cell(g, "c4"))),
            ["b4", "b5", "c3", "c5", "d3", "d4"]
        );
        assert_eq!(names(g, g.neighbors(cell(g, "a1"))), ["a2", "b1"]);
        assert_eq!(names(g, g.neighbors(cell(g, "g7"))), ["f7", "g6"]);
        assert_eq!(names(g, g.neighbors(cell(g, "g1"))), ["f1", "f2", "g2"]);
        assert_eq!(names(g, g.neighbors(cell(g, "a7"))), ["a6", "b6", "b7"]);
    }

    #[test]
    fn adjacency_is_symmetric_on_every_size() {
        for n in 1..=MAX_SIZE {
            let g = geometry(n);
            for a in 0..n * n {
                for b in bits(g.neighbors(a)) {
                    assert!(g.neighbors(b) >> a & 1 == 1, "n={n} {a}-{b}");
                }
            }
        }
    }

    #[test]
    fn empty_board_distance_is_the_size() {
        for n in 1..=MAX_SIZE {
            let g = geometry(n);
            assert_eq!(g.dist_to_win(0, 0, 0), n as u8);
            assert_eq!(g.dist_to_win(0, 0, 1), n as u8);
        }
    }

    #[test]
    fn distance_counts_own_cells_free_and_blocks_opponent_walls() {
        let g = geometry(4);
        // Red owns b1 c1: a1 and d1 remain on rank 1 -> 2 more cells.
        assert_eq!(g.dist_to_win(mask(g, "b1 c1"), 0, 0), 2);
        // Blue walls file b entirely: red cannot cross.
        assert_eq!(g.dist_to_win(0, mask(g, "b1 b2 b3 b4"), 0), UNREACHABLE);
        // ...and blue itself is connected.
        assert_eq!(g.dist_to_win(mask(g, "b1 b2 b3 b4"), 0, 1), 0);
        assert!(g.connects(mask(g, "b1 b2 b3 b4"), 1));
        // The diagonal chain d1 c2 b3 a4 connects rank 1 to rank 4 (each step is (r+1, c-1)).
        assert!(g.connects(mask(g, "d1 c2 b3 a4"), 1));
        assert!(!g.connects(mask(g, "a1 b2 c3 d4"), 1));
    }

    #[test]
    fn shortest_path_agrees_with_distance() {
        let mut rng = crate::rng::Rng::new(3);
        for _ in 0..2000 {
            let n = 2 + rng.below(6);
            let g = geometry(n);
            let (mut own, mut opp) = (0, 0);
            for c in 0..n * n {
                match rng.below(4) {
                    0 => own |= 1 << c,
                    1 => opp |= 1 << c,
                    _ => {}
                }
            }
            for seat in 0..2 {
                let d = g.dist_to_win(own, opp, seat);
                match g.shortest_path(own, opp, seat) {
                    None => assert_eq!(d, UNREACHABLE),
                    Some(p) => {
                        let cost = p.iter().filter(|&&c| own >> c & 1 == 0).count();
                        assert_eq!(cost as u8, d);
                        assert!(g.source(seat) >> p[0] & 1 == 1);
                        assert!(g.target(seat) >> p[p.len() - 1] & 1 == 1);
                        for w in p.windows(2) {
                            assert!(g.neighbors(w[0]) >> w[1] & 1 == 1);
                        }
                    }
                }
                assert_eq!(g.connects(own, seat), d == 0);
            }
        }
    }
}
