//! breakthrough, 6 files x 6 ranks, on bitboards.
//!
//! Bit `rank * 6 + file` is cell (file, rank), a1 is bit 0. Seat 0 (red) starts
//! on ranks 1-2 and moves up (+6); seat 1 (blue) starts on ranks 5-6 and moves
//! down (-6).

use std::ops::ControlFlow;

use serde_json::{json, Value};

use super::{Gauntlet, MoveRecord};
use crate::catalog::Entry;
use crate::error::{CoreError, CoreResult};
use crate::game::{cell_name, squeeze, Ending, Game, Outcome, Seat};
use crate::kernels::select::select64;
use crate::policy::Baseline;
use crate::rng::Rng;

pub const FILES: usize = 6;
pub const RANKS: usize = 6;
pub const MAX_PLIES: u32 = 100;

/// Its catalogue entry.
pub const ENTRY: Entry = super::entry(
    "breakthrough",
    "breakthrough",
    &[
        Ending::HomeRank,
        Ending::NoPieces,
        Ending::NoMoves,
        Ending::PlyCap,
        Ending::WallClock,
    ],
    MAX_PLIES,
    super::Look {
        pieces: "pieces",
        notation: "from-to",
        standing_scale: 60,
    },
);
const BOARD: u64 = (1 << (FILES * RANKS)) - 1;
const FILE_A: u64 = 0x41041041; // a1 a2 ... a6
const FILE_F: u64 = FILE_A << (FILES - 1);
const RANK_1: u64 = (1 << FILES) - 1;
const RANK_6: u64 = RANK_1 << (FILES * (RANKS - 1));

/// Cell `c` of a board spread to bit `3c` of a `u128`: the seat's pieces kept this
/// way make its legal steps a mask of *slots* with shifts and masks alone. Slot
/// `3 * from + kind` is set when the piece on `from` has a step of kind `kind` (0, 1,
/// 2: destinations ascending), so slot order is the order of
/// [`Game::legal_moves_into`].
const fn spread(bits: u64) -> u128 {
    let mut out = 0u128;
    let mut c = 0;
    while c < FILES * RANKS {
        out |= ((bits >> c & 1) as u128) << (3 * c);
        c += 1;
    }
    out
}

const BOARD_S: u128 = spread(BOARD);
const FILE_A_S: u128 = spread(FILE_A);
const FILE_F_S: u128 = spread(FILE_F);

/// `SPREAD_CELL[c]`: cell `c` alone, spread.
static SPREAD_CELL: [u128; 64] = {
    let mut t = [0u128; 64];
    let mut c = 0;
    while c < FILES * RANKS {
        t[c] = 1 << (3 * c);
        c += 1;
    }
    t
};

/// Bits one rank (six cells) apart in the spread board.
const RANK_S: u32 = 3 * FILES as u32;

/// Index of the k-th (0-based) set bit of `m`, which has more than k: the half is
/// chosen without a branch (which half holds the k-th step is a coin flip).
#[inline]
fn select_slot(m: u128, k: u32) -> u32 {
    let (low, high) = (m as u64, (m >> 64) as u64);
    let in_low = low.count_ones();
    let up = k >= in_low;
    let (word, k, base) = if up {
        (high, k - in_low, 64)
    } else {
        (low, k, 0)
    };
    base + select64(word, k)
}

/// A piece's step: from one cell index to another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Step {
    pub from: u8,
    pub to: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Breakthrough {
    pieces: [u64; 2],
    /// `pieces`, spread (see [`spread`]).
    spread: [u128; 2],
    mover: Seat,
    plies: u32,
    captures: [u32; 2],
    history: MoveRecord<Step, { MAX_PLIES as usize }>,
    outcome: Option<Outcome>,
}

impl Default for Breakthrough {
    fn default() -> Self {
        Self::new()
    }
}

/// The rank a seat must reach: rank 6 for red, rank 1 for blue.
const fn goal_rank(seat: Seat) -> u64 {
    if seat == 0 {
        RANK_6
    } else {
        RANK_1
    }
}

fn name(cell: u8) -> String {
    cell_name(cell as usize % FILES, cell as usize / FILES)
}

impl Breakthrough {
    pub fn new() -> Self {
        let pieces = [RANK_1 | RANK_1 << FILES, RANK_6 | RANK_6 >> FILES];
        Breakthrough {
            pieces,
            spread: [spread(pieces[0]), spread(pieces[1])],
            mover: 0,
            plies: 0,
            captures: [0; 2],
            history: MoveRecord::default(),
            outcome: None,
        }
    }

    /// A position with the given pieces and mover, for tests and analysis.
    /// Settles at once by rule 6 if the mover has no move.
    pub fn from_pieces(red: u64, blue: u64, mover: Seat) -> Self {
        let pieces = [red & BOARD, blue & BOARD & !red];
        let mut g = Breakthrough {
            pieces,
            spread: [spread(pieces[0]), spread(pieces[1])],
            mover,
            ..Self::new()
        };
        if !g.has_move(mover) {
            g.outcome = Some(Outcome::win(1 - mover, Ending::NoMoves));
        }
        g
    }

    /// Each seat's pieces, bit `rank * 6 + file` (the batched environment's planes).
    pub fn pieces(&self) -> [u64; 2] {
        self.pieces
    }

    /// The seat whose piece is on cell index `cell`, if any.
    pub fn piece_at(&self, cell: usize) -> Option<Seat> {
        (0..2).find(|&s| self.pieces[s] >> cell & 1 == 1)
    }

    pub fn captures(&self) -> [u32; 2] {
        self.captures
    }

    /// Target masks of `seat`'s straight, left-diagonal and right-diagonal steps.
    /// "Left"/"right" are toward file a / file f whichever way the seat moves.
    #[inline]
    fn targets(&self, seat: Seat) -> (u64, u64, u64) {
        let own = self.pieces[seat];
        let empty = BOARD & !own & !self.pieces[1 - seat];
        if seat == 0 {
            (
                (own << FILES) & empty,
                ((own & !FILE_A) << (FILES - 1)) & !own & BOARD,
                ((own & !FILE_F) << (FILES + 1)) & !own & BOARD,
            )
        } else {
            (
                (own >> FILES) & empty,
                ((own & !FILE_A) >> (FILES + 1)) & !own,
                ((own & !FILE_F) >> (FILES - 1)) & !own,
            )
        }
    }

    /// The mover's steps by kind, in destination order from any one origin: for each
    /// kind, the mask of origins that have it and the origin-to-destination offset.
    #[inline]
    fn kinds(&self) -> [(u64, i32); 3] {
        let (straight, left, right) = self.targets(self.mover);
        if self.mover == 0 {
            [(left >> 5, 5), (straight >> 6, 6), (right >> 7, 7)]
        } else {
            [(left << 7, -7), (straight << 6, -6), (right << 5, -5)]
        }
    }

    /// Every legal step of the mover, by origin cell, then destination, both ascending,
    /// until `visit` breaks.
    #[inline]
    fn for_each_legal(&self, mut visit: impl FnMut(Step) -> ControlFlow<()>) {
        if self.outcome.is_some() {
            return;
        }
        let kinds = self.kinds();
        let mut origins = kinds[0].0 | kinds[1].0 | kinds[2].0;
        while origins != 0 {
            let from = origins.trailing_zeros();
            origins &= origins - 1;
            for (mask, offset) in kinds {
                if mask >> from & 1 == 1 {
                    let to = (from as i32 + offset) as u8;
                    if visit(Step {
                        from: from as u8,
                        to,
                    })
                    .is_break()
                    {
                        return;
                    }
                }
            }
        }
    }

    /// The mover's legal steps as slots (see [`spread`]), from the spread board by
    /// shifts and masks: a kind's origins are the pieces whose destination is on the
    /// board, not their own and (straight) empty.
    #[inline]
    fn step_slots(&self) -> u128 {
        let me = self.mover;
        let own = self.spread[me];
        let free = BOARD_S & !own;
        let empty = BOARD_S & !(own | self.spread[1 - me]);
        let (left, straight, right) = if me == 0 {
            // Destinations from + 5, + 6, + 7.
            (
                own & !FILE_A_S & free >> (RANK_S - 3),
                own & empty >> RANK_S,
                own & !FILE_F_S & free >> (RANK_S + 3),
            )
        } else {
            // Destinations from - 7, - 6, - 5.
            (
                own & !FILE_A_S & free << (RANK_S + 3),
                own & empty << RANK_S,
                own & !FILE_F_S & free << (RANK_S - 3),
            )
        };
        left | straight << 1 | right << 2
    }

    /// The k-th legal step in the order of [`Game::legal_moves_into`] (k below their
    /// number): a select in the slots, with no loop (walking the origins ended on a
    /// mispredicted branch every ply).
    #[cfg(test)]
    fn nth_legal(&self, k: u32) -> Step {
        self.nth_slot(self.step_slots(), k)
    }

    /// [`Breakthrough::nth_legal`] from slots already built.
    #[inline]
    fn nth_slot(&self, slots: u128, k: u32) -> Step {
        let slot = select_slot(slots, k);
        let (from, kind) = (slot / 3, slot % 3);
        // Red's kinds step +5, +6, +7; blue's -7, -6, -5.
        let to = if self.mover == 0 {
            from + kind + 5
        } else {
            from + kind - 7
        };
        Step {
            from: from as u8,
            to: to as u8,
        }
    }

    fn has_move(&self, seat: Seat) -> bool {
        let (s, l, r) = self.targets(seat);
        s | l | r != 0
    }

    /// Why `from`-`to` is not a legal step for the mover, or `None` if it is.
    fn refusal(&self, from: usize, to: usize) -> Option<String> {
        let me = self.mover;
        let (f, t) = (name(from as u8), name(to as u8));
        if self.pieces[me] >> from & 1 == 0 {
            return Some(match self.piece_at(from) {
                Some(_) => format!("{f} holds your opponent's piece, not yours"),
                None => format!("{f} holds no piece"),
            });
        }
        let forward: i32 = if me == 0 { 1 } else { -1 };
        let (ff, fr) = ((from % FILES) as i32, (from / FILES) as i32);
        let (tf, tr) = ((to % FILES) as i32, (to / FILES) as i32);
        if tr - fr != forward || (tf - ff).abs() > 1 {
            return Some(format!(
                "{t} is not one rank forward of {f} on the same or a neighbouring file"
            ));
        }
        match self.piece_at(to) {
            Some(s) if s == me => Some(format!("{t} holds your own piece")),
            Some(_) if tf == ff => Some(format!(
                "{t} holds an opponent piece and there is no straight capture"
            )),
            _ => None,
        }
    }

    /// 10 x sum and 40 x max of the pieces' advance. A piece's advance is the
    /// number of ranks it stands ahead of its seat's home (back) rank: a red
    /// piece on rank r has advance r - 1, a blue piece on rank r has 6 - r.
    fn advance_terms(&self, seat: Seat) -> (i32, i32) {
        let own = self.pieces[seat];
        let (mut sum, mut max) = (0, 0);
        for rank in 0..RANKS {
            let count = (own >> (rank * FILES) & RANK_1).count_ones() as i32;
            let advance = if seat == 0 { rank } else { RANKS - 1 - rank } as i32;
            sum += count * advance;
            if count > 0 {
                max = max.max(advance);
            }
        }
        (sum, max)
    }

    /// Settle after `mover`'s step ended the game: it reached `home` (its goal rank),
    /// took the last piece or left no move, or the cap ends the game. Out of line
    /// and cold, so the every-ply path of [`Game::apply`] keeps fewer registers to save.
    #[cold]
    #[inline(never)]
    fn settle(&mut self, mover: Seat, home: bool) {
        self.outcome = Some(if home {
            Outcome::win(mover, Ending::HomeRank)
        } else if self.pieces[1 - mover] == 0 {
            Outcome::win(mover, Ending::NoPieces)
        } else if !self.has_move(1 - mover) {
            Outcome::win(mover, Ending::NoMoves)
        } else {
            super::adjudicate(self, Ending::PlyCap)
        });
    }

    fn pieces_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        for cell in 0..FILES * RANKS {
            if let Some(s) = self.piece_at(cell) {
                m.insert(name(cell as u8), json!(s));
            }
        }
        Value::Object(m)
    }
}

impl Gauntlet for Breakthrough {
    fn standing(&self, seat: Seat) -> i32 {
        let (sum, max) = self.advance_terms(seat);
        100 * self.pieces[seat].count_ones() as i32 + 10 * sum + 40 * max
    }

    /// The `random` baseline without a move list: the k-th legal step in the order of
    /// [`Game::legal_moves_into`], k uniform (the same draw as
    /// [`crate::game::random_policy`]).
    fn random_move(&self, rng: &mut Rng) -> Step {
        let slots = self.step_slots();
        let k = rng.below(slots.count_ones() as usize);
        self.nth_slot(slots, k as u32)
    }
}

impl Game for Breakthrough {
    type Move = Step;
    // The start does not depend on the seed: the simulator may clone one fresh state.
    const SEED_FREE_START: bool = true;

    super::turn_accessors!("breakthrough");

    /// By origin cell, then destination cell, both ascending.
    fn legal_moves_into(&self, out: &mut Vec<Step>) {
        out.clear();
        self.for_each_legal(|m| {
            out.push(m);
            ControlFlow::Continue(())
        });
    }

    fn apply(&mut self, mv: Step) {
        debug_assert!(self.refusal(mv.from as usize, mv.to as usize).is_none());
        let me = self.mover;
        let (from, to) = (1u64 << mv.from, 1u64 << mv.to);
        // From a table, not a shift: LLVM narrows the clear of a shifted bit below to a
        // 4-byte store, which the next ply's 8-byte load of the word cannot forward
        // from (a stall every ply).
        let spread_cell = |c: u8| SPREAD_CELL[c as usize % SPREAD_CELL.len()];
        let (spread_from, spread_to) = (spread_cell(mv.from), spread_cell(mv.to));
        self.pieces[me] ^= from | to;
        self.spread[me] ^= spread_from | spread_to;
        // A capture without a branch (whether a step takes is anyone's guess).
        self.captures[me] += (self.pieces[1 - me] & to != 0) as u32;
        self.pieces[1 - me] &= !to;
        self.spread[1 - me] &= !spread_to;
        self.plies += 1;
        self.history.push(mv);
        self.mover = 1 - me;
        let home = to & goal_rank(me) != 0;
        // A seat with no piece on its goal rank has a move: its frontmost piece's
        // forward diagonals hold none of its own pieces, and one is on the board. So
        // the full test runs only in positions built with a piece already home.
        let theirs = self.pieces[1 - me];
        let stuck = theirs & goal_rank(1 - me) != 0 && !self.has_move(1 - me);
        if home || theirs == 0 || stuck || self.plies >= MAX_PLIES {
            self.settle(me, home);
        }
    }

    fn move_name(&self, mv: Step) -> String {
        format!("{}-{}", name(mv.from), name(mv.to))
    }

    fn read_move(&self, text: &str) -> CoreResult<Step> {
        if self.outcome.is_some() {
            return Err(self.over_error(text));
        }
        let s = squeeze(text);
        let cell = |f: u8, r: u8| (r - b'1') as usize * FILES + (f - b'a') as usize;
        let (from, to) = match s.as_bytes() {
            [f1 @ b'a'..=b'f', r1 @ b'1'..=b'6', f2 @ b'a'..=b'f', r2 @ b'1'..=b'6'] => {
                (cell(*f1, *r1), cell(*f2, *r2))
            }
            _ => {
                return Err(CoreError::unparseable(
                    text,
                    "breakthrough takes a step from one cell to another, such as b2-c3 \
                     (files a..f, ranks 1..6)",
                    self.legal_names(),
                ))
            }
        };
        match self.refusal(from, to) {
            Some(reason) => Err(CoreError::illegal(text, reason, self.legal_names())),
            None => Ok(Step {
                from: from as u8,
                to: to as u8,
            }),
        }
    }

    fn view(&self) -> Value {
        json!({
            "game": self.id(),
            "files": FILES,
            "ranks": RANKS,
            "activeSeat": self.active_seat(),
            "plies": self.plies,
            "maxPlies": MAX_PLIES,
            "pieces": self.pieces_json(),
            "pieceCount": [self.pieces[0].count_ones(), self.pieces[1].count_ones()],
            "captures": self.captures,
            "history": self.history.as_slice().iter().map(|&m| self.move_name(m)).collect::<Vec<_>>(),
            "standing": [self.standing(0), self.standing(1)],
            "legalMoves": self.legal_names(),
        })
    }

    fn results(&self) -> Option<Value> {
        super::results(
            self,
            &[
                ("captures", json!(self.captures)),
                (
                    "pieces",
                    json!([self.pieces[0].count_ones(), self.pieces[1].count_ones()]),
                ),
            ],
        )
    }

    fn baselines() -> &'static [Baseline<Self>] {
        super::baselines()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::MoveFault;

    /// Random red and blue pieces on `cells`: each cell red, blue or (with the
    /// other `kinds - 2` draws of `below(kinds)`) empty.
    fn random_pieces(rng: &mut Rng, cells: std::ops::Range<usize>, kinds: usize) -> (u64, u64) {
        let (mut red, mut blue) = (0u64, 0u64);
        for cell in cells {
            match rng.below(kinds) {
                0 => red |= 1 << cell,
                1 => blue |= 1 << cell,
                _ => {}
            }
        }
        (red, blue)
    }

    fn bits(cells: &str) -> u64 {
        cells.split_whitespace().fold(0, |m, c| {
            let (f, r) = crate::game::parse_cell(c, FILES, RANKS).unwrap();
            m | 1 << (r * FILES + f)
        })
    }

    fn fault(g: &Breakthrough, text: &str) -> (MoveFault, String) {
        match g.read_move(text) {
            Err(CoreError::Move { fault, reason, .. }) => (fault, reason),
            other => panic!("{text}: expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn opening_has_sixteen_moves() {
        let g = Breakthrough::new();
        let names = g.legal_names();
        assert_eq!(names.len(), 16);
        assert_eq!(&names[..3], ["a2-a3", "a2-b3", "b2-a3"]);
    }

    #[test]
    fn no_straight_capture_but_diagonal_capture() {
        let mut g = Breakthrough::from_pieces(bits("c3 a1"), bits("c4 d4 f6"), 0);
        let names = g.legal_names();
        assert!(!names.contains(&"c3-c4".to_string()), "{names:?}");
        assert!(names.contains(&"c3-d4".to_string()), "{names:?}");
        let (f, reason) = fault(&g, "c3c4");
        assert_eq!(f, MoveFault::Illegal);
        assert!(reason.contains("no straight capture"), "{reason}");
        g.try_apply("c3-d4").unwrap();
        assert_eq!(g.captures(), [1, 0]);
        assert_eq!(g.piece_at(bits("d4").trailing_zeros() as usize), Some(0));
    }

    #[test]
    fn home_rank_wins() {
        let mut g = Breakthrough::from_pieces(bits("b5 a1"), bits("f6 f5"), 0);
        g.try_apply("b5-b6").unwrap();
        assert_eq!(g.outcome(), Some(&Outcome::win(0, Ending::HomeRank)));
    }

    #[test]
    fn taking_the_last_piece_wins() {
        let mut g = Breakthrough::from_pieces(bits("c3 a1"), bits("d4"), 0);
        g.try_apply("c3:d4").unwrap();
        assert_eq!(g.outcome(), Some(&Outcome::win(0, Ending::NoPieces)));
    }

    #[test]
    fn a_seat_with_no_move_loses() {
        // Rule 6. A seat's rearmost piece always has an on-board diagonal that no own
        // piece can hold (own pieces never stand behind it), so a seat with pieces always
        // has a move; only a seat left without pieces meets this rule.
        let g = Breakthrough::from_pieces(bits("c3"), 0, 1);
        assert_eq!(g.outcome(), Some(&Outcome::win(0, Ending::NoMoves)));
        let mut rng = crate::rng::Rng::new(5);
        for _ in 0..5000 {
            let (red, blue) = random_pieces(&mut rng, FILES..FILES * (RANKS - 1), 3);
            for mover in 0..2 {
                let g = Breakthrough::from_pieces(red, blue, mover);
                let has_pieces = [red, blue][mover] != 0;
                assert_eq!(g.outcome().is_none(), has_pieces);
                assert_eq!(!g.legal_moves().is_empty(), has_pieces);
            }
        }
    }

    #[test]
    fn fast_random_draws_what_the_generic_random_policy_draws() {
        for seed in 1..50 {
            let mut g = Breakthrough::new();
            while g.active_seat().is_some() {
                let ply = g.plies();
                let fast = Breakthrough::random_move(&g, &mut Rng::for_decision(seed, ply));
                let generic = crate::game::random_policy(&g, &mut Rng::for_decision(seed, ply));
                assert_eq!(fast, generic);
                g.apply(fast);
                assert_eq!(g.spread, g.pieces.map(spread), "{seed} {ply}");
            }
        }
    }

    #[test]
    fn only_a_seat_with_a_piece_home_or_none_can_be_out_of_moves() {
        // What `apply` relies on to skip the full test after most steps.
        let mut rng = Rng::new(23);
        let mut checked = 0;
        for _ in 0..20_000 {
            let (red, blue) = random_pieces(&mut rng, 0..FILES * RANKS, 3);
            let g = Breakthrough::from_pieces(red, blue, 0);
            for seat in 0..2 {
                let own = g.pieces[seat];
                if own & goal_rank(seat) == 0 {
                    assert_eq!(g.has_move(seat), own != 0, "{red:#x} {blue:#x} {seat}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        // A seat whose pieces all stand home has no move: the step before settles.
        let mut g = Breakthrough::from_pieces(bits("a6"), bits("c4 f6"), 1);
        g.try_apply("c4-c3").unwrap();
        assert_eq!(g.outcome(), Some(&Outcome::win(1, Ending::NoMoves)));
    }

    #[test]
    fn nth_legal_walks_the_legal_list_in_order() {
        let mut rng = Rng::new(17);
        let mut positions = 0;
        for _ in 0..3000 {
            let (red, blue) = random_pieces(&mut rng, 0..FILES * RANKS, 4);
            for mover in 0..2 {
                let g = Breakthrough::from_pieces(red, blue, mover);
                for (k, &mv) in g.legal_moves().iter().enumerate() {
                    assert_eq!(g.nth_legal(k as u32), mv, "{red:#x} {blue:#x} {mover} {k}");
                }
                positions += 1;
            }
        }
        assert_eq!(positions, 6000);
    }

    #[test]
    fn malformed_and_illegal_text() {
        let g = Breakthrough::new();
        for bad in ["", "b2", "b2-g3", "b7-b8", "hello", "b2c3d4", "b2xc3"] {
            assert_eq!(fault(&g, bad).0, MoveFault::Unparseable, "{bad}");
        }
        assert!(fault(&g, "c3-c4").1.contains("holds no piece"));
        assert!(fault(&g, "a5-a4").1.contains("opponent's piece"));
        assert!(fault(&g, "a2-a4").1.contains("not one rank forward"));
        assert!(fault(&g, "a1-a2").1.contains("your own piece"));
        assert_eq!(g.read_move(" B2 - C3 ").unwrap(), Step { from: 7, to: 14 });
    }

    #[test]
    fn standing_by_hand() {
        // Red: a1 (advance 0), c3 (advance 2). Blue: d6 (0), e2 (4).
        let g = Breakthrough::from_pieces(bits("a1 c3"), bits("d6 e2"), 0);
        assert_eq!(g.standing(0), 200 + 10 * 2 + 40 * 2);
        assert_eq!(g.standing(1), 200 + 10 * 4 + 40 * 4);
    }
}
