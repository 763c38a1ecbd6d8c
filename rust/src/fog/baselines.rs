//! The fog baselines, each a pure function of the mover's [`Knowledge`] (its own
//! stones and the opponent stones it has proven): they cannot see anything the
//! seat may not, by type.
//!
//! - `probe`: on the believed board (own stones, proven opponent stones, the
//!   rest empty) take a shortest completion and attempt its first unowned cell.
//!   Hex: the 0-1 BFS path of [`Geometry::shortest_path`] (deterministic: cells
//!   in index order), walked from the source edge. Tic-tac-toe: the line with
//!   the fewest missing marks among lines with no proven opponent stone, ties to
//!   the earlier line (rows bottom-up, then files a-c, then the a1-c3 and a3-c1
//!   diagonals), attempting its lowest unowned cell (rank-major: a1, b1, .., a2).
//!   Recon hex: it senses centred on the path's NEXT unowned cell after the one
//!   it attempts (the sense resolves before the attempt, so sensing the attempted
//!   cell itself would buy nothing this ply); on the last cell of the path it
//!   senses centred on the attempted cell.
//! - `sweep`: walks one lane from its source edge to its target edge (hex: a rank
//!   for seat 0, walked file a onward; a file for seat 1, walked rank 1 upward),
//!   starting in lane `n / 2`. Walking over its own stones, it attempts the first
//!   cell it does not own; where the lane holds a proven opponent stone it shifts
//!   one lane down (rank - 1 for seat 0, file - 1 for seat 1, wrapping to the far
//!   lane) at the same depth, which keeps the chain adjacent in hex geometry. The
//!   current lane and depth are re-derived from the knowledge at each decision,
//!   so the walk is a pure function of the view. Tic-tac-toe: the lanes are the
//!   rows, tried middle, bottom, top; it fills the first row with no proven
//!   opponent stone, file a to c. Recon hex: it senses centred on the next cell of
//!   its lane beyond the attempted one (the attempted cell at the target edge).
//! - `random`: uniform over the legal attempts (and, in recon hex, uniform over
//!   the anchors), drawn from the decision's PRNG stream, which fog chooses by
//!   the mover's seat and its own attempt count (`Game::decision_stream`), never
//!   the global ply: that would betray the opponent's collisions.
//!
//! When the believed board offers no way to win at all (only possible once the
//! game is decided) `probe` and `sweep` attempt the lowest legal cell.

use super::cells::{Cells, Listed};
use super::knowledge::Knowledge;
use super::{lines, Attempt, FogState, Mode, Variant};
use crate::game::Game;
use crate::kernels::hexgrid::{self, Mask};
use crate::rng::Rng;

fn knowledge_of_mover(g: &FogState) -> Knowledge {
    let seat = g
        .active_seat()
        .expect("a baseline asked to move in a settled game");
    g.knowledge(seat)
}

pub fn probe_policy(g: &FogState, _rng: &mut Rng) -> Attempt {
    probe(&knowledge_of_mover(g))
}

pub fn sweep_policy(g: &FogState, _rng: &mut Rng) -> Attempt {
    sweep(&knowledge_of_mover(g))
}

/// `random` straight from the state's `u32` cells: the simulator's hot path.
/// It draws exactly what [`random`] draws from the mover's knowledge.
pub fn random_policy(g: &FogState, rng: &mut Rng) -> Attempt {
    // The variants' sides as constants, so each lists only the cells it has,
    // in a function of its own that saves only the registers it uses.
    #[inline(never)]
    fn sided<const SIDE: usize>(g: &FogState, rng: &mut Rng) -> Attempt {
        let seat = g
            .active_seat()
            .expect("a baseline asked to move in a settled game");
        uniform_attempt(
            Listed::<SIDE>::new(g.legal_cells(seat & 1)),
            g.variant(),
            rng,
        )
    }
    match g.variant().size {
        3 => sided::<3>(g, rng),
        4 => sided::<4>(g, rng),
        _ => sided::<5>(g, rng),
    }
}

/// `random`: a uniform legal attempt, and a uniform anchor when the variant senses.
pub fn random(k: &Knowledge, rng: &mut Rng) -> Attempt {
    let legal = Listed::<5>::new(k.legal_attempts() as Cells);
    uniform_attempt(legal, k.variant, rng)
}

/// The cell is the `below(count)`-th legal cell in index order (a1, b1, .., a2, ..);
/// then, when the variant senses, the anchor is cell `below(cells)`.
#[inline(always)]
fn uniform_attempt<const SIDE: usize>(legal: Listed<SIDE>, v: &Variant, rng: &mut Rng) -> Attempt {
    let cell = legal.nth(rng.below(legal.count() as usize)) as u8;
    let anchor = (v.sense > 0).then(|| rng.below(v.size * v.size) as u8);
    Attempt { anchor, cell }
}

/// The attempt plus, when the variant senses, the anchor (`next`, else the attempt).
fn decide(k: &Knowledge, cell: usize, next: Option<usize>) -> Attempt {
    let anchor = (k.variant.sense > 0).then(|| next.unwrap_or(cell) as u8);
    Attempt {
        anchor,
        cell: cell as u8,
    }
}

fn lowest_legal(k: &Knowledge) -> Attempt {
    let cell = k.legal_attempts().trailing_zeros() as usize;
    decide(k, cell, None)
}

/// `probe`: the first unowned cell of a shortest completion on the believed board.
pub fn probe(k: &Knowledge) -> Attempt {
    match k.variant.mode {
        Mode::DarkHex => {
            let g = hexgrid::geometry(k.size());
            let Some(path) = g.shortest_path(k.own, k.proven, k.seat) else {
                return lowest_legal(k);
            };
            let mut unowned = path.into_iter().filter(|&c| k.own >> c & 1 == 0);
            match unowned.next() {
                Some(cell) => decide(k, cell, unowned.next()),
                None => lowest_legal(k),
            }
        }
        Mode::PhantomTtt => {
            let n = k.size() as u32;
            let best = lines(k.size())
                .iter()
                .filter(|&&l| l & k.proven == 0 && l & !k.own != 0)
                .min_by_key(|&&l| n - (l & k.own).count_ones());
            match best {
                Some(&line) => decide(k, (line & !k.own).trailing_zeros() as usize, None),
                None => lowest_legal(k),
            }
        }
    }
}

/// `sweep`: the corridor walker (see the module docs).
pub fn sweep(k: &Knowledge) -> Attempt {
    match k.variant.mode {
        Mode::DarkHex => sweep_hex(k),
        Mode::PhantomTtt => sweep_rows(k),
    }
}

/// Cell at `depth` along `lane` for `seat` (seat 0: rank `lane`, file `depth`).
fn lane_cell(n: usize, seat: usize, lane: usize, depth: usize) -> usize {
    if seat == 0 {
        lane * n + depth
    } else {
        depth * n + lane
    }
}

fn sweep_hex(k: &Knowledge) -> Attempt {
    let n = k.size();
    let (mut lane, mut depth, mut shifts) = (n / 2, 0, 0);
    while depth < n && shifts < n {
        let c = lane_cell(n, k.seat, lane, depth);
        if k.own >> c & 1 == 1 {
            depth += 1;
            shifts = 0;
        } else if k.proven >> c & 1 == 1 {
            lane = (lane + n - 1) % n;
            shifts += 1;
        } else {
            let next = (depth + 1 < n).then(|| lane_cell(n, k.seat, lane, depth + 1));
            return decide(k, c, next);
        }
    }
    lowest_legal(k)
}

fn sweep_rows(k: &Knowledge) -> Attempt {
    let n = k.size();
    let row_mask = |r: usize| -> Mask { ((1 << n) - 1) << (r * n) };
    let open = (0..n)
        .map(|i| (n / 2 + n - i) % n)
        .map(row_mask)
        .find(|&row| row & k.proven == 0 && row & !k.own != 0);
    match open {
        Some(row) => decide(k, (row & !k.own).trailing_zeros() as usize, None),
        None => lowest_legal(k),
    }
}
