//! What one fog seat knows: its own stones, the opponent stones it has proven,
//! and its own referee log. Legal attempts, the believed board and the
//! baselines are functions of this and nothing else, so nothing hidden can
//! reach a seat's moves or its view.

use super::{FogState, Mode, PlyRecord, Variant};
use crate::game::Seat;
use crate::kernels::hexgrid::Mask;

/// A seat's knowledge, lifted out of the state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Knowledge {
    pub seat: Seat,
    pub variant: &'static Variant,
    /// The seat's own stones.
    pub own: Mask,
    /// Opponent stones it has proven (collision or sense): permanent knowledge.
    pub proven: Mask,
}

impl Knowledge {
    pub fn of(state: &FogState, seat: Seat) -> Self {
        Knowledge {
            seat,
            variant: state.variant(),
            own: state.stones(seat),
            proven: state.proven(seat),
        }
    }

    pub fn size(&self) -> usize {
        self.variant.size
    }

    pub fn board(&self) -> Mask {
        (1 << (self.size() * self.size())) - 1
    }

    /// Cells the seat may attempt: on the board, not its own, not proven occupied.
    pub fn legal_attempts(&self) -> Mask {
        self.board() & !self.own & !self.proven
    }

    /// `distToWin` on the believed board (own stones, proven opponent stones,
    /// everything else empty).
    pub fn believed_dist(&self) -> u8 {
        let n = self.size();
        match self.variant.mode {
            Mode::DarkHex => {
                crate::kernels::hexgrid::geometry(n).dist_to_win(self.own, self.proven, self.seat)
            }
            Mode::PhantomTtt => super::ttt_dist(n, self.own, self.proven),
        }
    }
}

/// The seat's own plies, in order, numbered by the seat's own attempt count
/// (1-based: its first attempt is 1). Never by the global ply: in the
/// non-abrupt variants that number tells how often the opponent collided.
pub fn own_log(state: &FogState, seat: Seat) -> impl Iterator<Item = (usize, PlyRecord)> {
    state
        .history()
        .into_iter()
        .filter(move |r| r.seat as usize == seat)
        .enumerate()
        .map(|(i, r)| (i + 1, r))
}

/// For each cell, the last of `seat`'s own attempts at which its sensing saw it
/// empty, if it is still neither the seat's own stone nor a proven opponent
/// stone. Emptiness perishes, so the attempt number is part of the fact.
pub fn seen_empty(state: &FogState, seat: Seat) -> Vec<(usize, usize)> {
    let mut last = [usize::MAX; super::MAX_CELLS];
    for (attempt, r) in own_log(state, seat) {
        for c in crate::kernels::hexgrid::bits(r.sensed_empty as Mask) {
            last[c] = attempt;
        }
    }
    let k = Knowledge::of(state, seat);
    let n = state.size();
    (0..n * n)
        .map(|i| (i % n) * n + i / n)
        .filter(|&c| last[c] != usize::MAX && (k.own | k.proven) >> c & 1 == 0)
        .map(|c| (c, last[c]))
        .collect()
}
