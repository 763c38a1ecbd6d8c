//! The ply log of a fog episode, stored without a heap allocation in the
//! common case: each ply's seat, cell and result pack into one byte of an
//! inline array (a fog game has at most [`MAX_PLIES`] plies), and a ply's sense
//! anchor and three masks (sensed stones, sensed empty cells, guess) go to a
//! boxed side table only once some ply has one. A game without sensing or
//! guesses (every simulated game but recon hex) then never allocates for its
//! log, and a plain ply is one byte store.

use std::fmt;

use super::{PlyRecord, MAX_CELLS};

/// Most plies a fog game can last: one placement and one collision per cell.
pub const MAX_PLIES: usize = 2 * MAX_CELLS;

/// A ply's seat, cell and result in a byte: the cell in bits 0-4, the seat in
/// bit 5 and the collision flag in bit 6.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Packed(u8);

const _: () = assert!(MAX_CELLS <= 32, "cells must fit 5 bits");

/// The rest of a ply: its sense anchor and its masks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Side {
    pub anchor: Option<u8>,
    /// Sensed opponent stones, sensed empty cells, guess.
    pub masks: [u32; 3],
}

impl Packed {
    /// The byte of a ply by `seat` at `cell` that did or did not collide.
    #[inline(always)]
    pub fn new(seat: usize, cell: u8, occupied: bool) -> Self {
        debug_assert!((cell as usize) < MAX_CELLS && seat < 2);
        Packed(cell | (seat as u8) << 5 | u8::from(occupied) << 6)
    }

    fn unpack(self, side: Side) -> PlyRecord {
        let [sensed_stones, sensed_empty, guess] = side.masks;
        PlyRecord {
            seat: self.0 >> 5 & 1,
            anchor: side.anchor,
            cell: self.0 & 31,
            occupied: self.0 >> 6 & 1 == 1,
            sensed_stones,
            sensed_empty,
            guess,
        }
    }
}

/// The plies so far, in order.
#[derive(Clone)]
pub struct History {
    plies: [Packed; MAX_PLIES],
    len: u8,
    /// Anchor, sensed stones, sensed empty cells and guess of each ply; absent
    /// while every ply so far had none of them (then default where a ply had none).
    sides: Option<Box<[Side; MAX_PLIES]>>,
}

impl History {
    pub fn new() -> Self {
        History {
            plies: [Packed::default(); MAX_PLIES],
            len: 0,
            sides: None,
        }
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Append a ply without a side (a fog game has at most [`MAX_PLIES`]).
    #[inline(always)]
    pub fn push(&mut self, ply: Packed) {
        self.plies[self.len()] = ply;
        self.len += 1;
    }

    /// Append a ply with its side (out of line: only sensing and guesses have one).
    #[inline(never)]
    pub fn push_with_side(&mut self, ply: Packed, side: Side) {
        let i = self.len();
        self.push(ply);
        if side != Side::default() {
            self.sides
                .get_or_insert_with(|| Box::new([Side::default(); MAX_PLIES]))[i] = side;
        }
    }

    /// Append a whole record (tests).
    #[cfg(test)]
    fn push_record(&mut self, r: PlyRecord) {
        let side = Side {
            anchor: r.anchor,
            masks: [r.sensed_stones, r.sensed_empty, r.guess],
        };
        self.push_with_side(Packed::new(r.seat.into(), r.cell, r.occupied), side);
    }

    /// Whether some ply had a side (and the side table is allocated).
    #[cfg(test)]
    pub fn has_sides(&self) -> bool {
        self.sides.is_some()
    }

    pub fn get(&self, i: usize) -> Option<PlyRecord> {
        let packed = *self.plies[..self.len()].get(i)?;
        let side = self.sides.as_ref().map_or_else(Side::default, |s| s[i]);
        Some(packed.unpack(side))
    }

    pub fn last(&self) -> Option<PlyRecord> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = PlyRecord> + '_ {
        (0..self.len()).map(|i| self.get(i).expect("i < len"))
    }
}

impl Default for History {
    fn default() -> Self {
        Self::new()
    }
}

/// Equal logs hold equal plies (unused slots and the side list's shape aside).
impl PartialEq for History {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for History {}

/// Prints as the list of its plies, as the `Vec<PlyRecord>` it replaces did.
impl fmt::Debug for History {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random_record(rng: &mut Rng, with_masks: bool) -> PlyRecord {
        let mut mask = || {
            if with_masks && rng.below(2) == 1 {
                rng.next_u64() as u32 & ((1 << MAX_CELLS) - 1)
            } else {
                0
            }
        };
        let (sensed_stones, sensed_empty, guess) = (mask(), mask(), mask());
        PlyRecord {
            seat: rng.below(2) as u8,
            anchor: (rng.below(2) == 1).then(|| rng.below(MAX_CELLS) as u8),
            cell: rng.below(MAX_CELLS) as u8,
            occupied: rng.below(2) == 1,
            sensed_stones,
            sensed_empty,
            guess,
        }
    }

    #[test]
    fn the_log_returns_exactly_what_was_pushed() {
        let mut rng = Rng::new(23);
        for round in 0..3000 {
            let mut log = History::new();
            let mut plain: Vec<PlyRecord> = Vec::new();
            // Masks never, from the first ply, or from some ply on.
            let masks_from = [MAX_PLIES, 0, rng.below(MAX_PLIES)][round % 3];
            for i in 0..rng.below(MAX_PLIES + 1) {
                let r = random_record(&mut rng, i >= masks_from);
                log.push_record(r);
                plain.push(r);
                assert_eq!(log.len(), plain.len());
                assert_eq!(log.last().as_ref(), plain.last());
            }
            assert_eq!(log.iter().collect::<Vec<_>>(), plain);
            assert_eq!(log.get(plain.len()), None);
            assert_eq!(format!("{log:?}"), format!("{plain:?}"));
            assert_eq!(log, log.clone());
        }
    }
}
