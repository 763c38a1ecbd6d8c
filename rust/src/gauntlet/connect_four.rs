//! connect-four, 7 files x 6 ranks, on bitboards.
//!
//! Bit `file * 7 + rank` is cell (file, rank); the seventh bit of each file is
//! a sentinel that stays empty, so the classic shift trick finds four in a row
//! without wrapping between files.

use serde_json::{json, Value};

use super::{Gauntlet, MoveRecord};
use crate::catalog::Entry;
use crate::error::{CoreError, CoreResult};
use crate::game::{cell_name, squeeze, Ending, Game, Outcome, Seat};
use crate::kernels::select::select8;
use crate::policy::Baseline;
use crate::rng::Rng;

pub const FILES: usize = 7;
pub const RANKS: usize = 6;
pub const MAX_PLIES: u32 = 42;

/// Its catalogue entry.
pub const ENTRY: Entry = super::entry(
    "connect-four",
    "connect_four",
    &[
        Ending::Line,
        Ending::BoardFull,
        Ending::PlyCap,
        Ending::WallClock,
    ],
    MAX_PLIES,
    super::Look {
        pieces: "stones",
        notation: "file",
        standing_scale: 40,
    },
);
const STRIDE: usize = RANKS + 1;
const WINDOW_WEIGHTS: [i32; 5] = [0, 1, 4, 16, 10_000];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectFour {
    discs: [u64; 2],
    heights: [u8; FILES],
    mover: Seat,
    plies: u32,
    history: MoveRecord<u8, { MAX_PLIES as usize }>,
    outcome: Option<Outcome>,
}

impl Default for ConnectFour {
    fn default() -> Self {
        Self::new()
    }
}

impl ConnectFour {
    pub fn new() -> Self {
        ConnectFour {
            discs: [0; 2],
            heights: [0; FILES],
            mover: 0,
            plies: 0,
            history: MoveRecord::default(),
            outcome: None,
        }
    }

    /// Each seat's discs, bit `file * 7 + rank` (the batched environment's planes).
    pub fn discs(&self) -> [u64; 2] {
        self.discs
    }

    /// The seat whose disc is at (file, rank), if any.
    pub fn disc_at(&self, file: usize, rank: usize) -> Option<Seat> {
        let bit = 1u64 << (file * STRIDE + rank);
        (0..2).find(|&s| self.discs[s] & bit != 0)
    }

    fn four_in_a_row(b: u64) -> bool {
        [1, STRIDE, STRIDE - 1, STRIDE + 1].iter().any(|&d| {
            let m = b & (b >> d);
            m & (m >> (2 * d)) != 0
        })
    }

    /// The 69 four-cell windows as bitmasks.
    fn windows() -> &'static [u64] {
        use std::sync::OnceLock;
        static W: OnceLock<Vec<u64>> = OnceLock::new();
        W.get_or_init(|| {
            let mut w = Vec::with_capacity(69);
            let dirs: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];
            for f in 0..FILES as i32 {
                for r in 0..RANKS as i32 {
                    for (df, dr) in dirs {
                        let (ef, er) = (f + 3 * df, r + 3 * dr);
                        if (0..FILES as i32).contains(&ef) && (0..RANKS as i32).contains(&er) {
                            w.push((0..4).fold(0u64, |m, k| {
                                m | 1u64 << ((f + k * df) as usize * STRIDE + (r + k * dr) as usize)
                            }));
                        }
                    }
                }
            }
            w
        })
    }

    /// Settle: `mover` won if its disc made a `line`, else the board is full or the
    /// cap ends the game. Out of line and cold, so the every-ply path of
    /// [`Game::apply`] keeps fewer registers to save.
    #[cold]
    #[inline(never)]
    fn settle(&mut self, mover: Seat, line: bool) {
        self.outcome = Some(if line {
            Outcome::win(mover, Ending::Line)
        } else if self.plies as usize == FILES * RANKS {
            // Every ply drops one disc: the board is full.
            debug_assert!(self.heights.iter().all(|&h| h as usize == RANKS));
            Outcome::draw(Ending::BoardFull)
        } else {
            super::adjudicate(self, Ending::PlyCap)
        });
    }

    fn stones(&self) -> Value {
        let mut m = serde_json::Map::new();
        for f in 0..FILES {
            for r in 0..self.heights[f] as usize {
                m.insert(cell_name(f, r), json!(self.disc_at(f, r)));
            }
        }
        Value::Object(m)
    }
}

impl Gauntlet for ConnectFour {
    fn standing(&self, seat: Seat) -> i32 {
        let (own, opp) = (self.discs[seat], self.discs[1 - seat]);
        Self::windows()
            .iter()
            .filter(|&&w| w & opp == 0)
            .map(|&w| WINDOW_WEIGHTS[(w & own).count_ones() as usize])
            .sum()
    }

    /// `random`: the same draw as a uniform pick from `legal_moves`, without the list.
    fn random_move(&self, rng: &mut Rng) -> u8 {
        // Bit f: file f has room; the k-th open file by a table, without branches.
        let open = (0..FILES).fold(0u8, |m, f| {
            m | (((self.heights[f] as usize) < RANKS) as u8) << f
        });
        assert!(open != 0, "a settled game has no random move");
        let k = rng.below(open.count_ones() as usize);
        select8(open, k as u32) as u8
    }
}

impl Game for ConnectFour {
    type Move = u8;
    // The start does not depend on the seed: the simulator may clone one fresh state.
    const SEED_FREE_START: bool = true;

    super::turn_accessors!("connect-four");

    fn legal_moves_into(&self, out: &mut Vec<u8>) {
        out.clear();
        if self.outcome.is_none() {
            out.extend((0..FILES as u8).filter(|&f| (self.heights[f as usize] as usize) < RANKS));
        }
    }

    fn apply(&mut self, file: u8) {
        let f = file as usize;
        debug_assert!(self.outcome.is_none() && (self.heights[f] as usize) < RANKS);
        let me = self.mover;
        self.discs[me] |= 1u64 << (f * STRIDE + self.heights[f] as usize);
        self.heights[f] += 1;
        self.plies += 1;
        self.history.push(file);
        self.mover = 1 - me;
        let line = Self::four_in_a_row(self.discs[me]);
        if line || self.plies as usize == FILES * RANKS || self.plies >= MAX_PLIES {
            self.settle(me, line);
        }
    }

    fn move_name(&self, file: u8) -> String {
        ((b'a' + file) as char).to_string()
    }

    fn read_move(&self, text: &str) -> CoreResult<u8> {
        if self.outcome.is_some() {
            return Err(self.over_error(text));
        }
        let s = squeeze(text);
        let file = match s.as_bytes() {
            [c @ b'a'..=b'g'] => c - b'a',
            [d @ b'1'..=b'7'] => d - b'1',
            _ => {
                return Err(CoreError::unparseable(
                    text,
                    "connect-four takes a file letter a..g or a digit 1..7",
                    self.legal_names(),
                ))
            }
        };
        if self.heights[file as usize] as usize >= RANKS {
            return Err(CoreError::illegal(
                text,
                format!("file {} is full", self.move_name(file)),
                self.legal_names(),
            ));
        }
        Ok(file)
    }

    fn view(&self) -> Value {
        json!({
            "game": self.id(),
            "files": FILES,
            "ranks": RANKS,
            "activeSeat": self.active_seat(),
            "plies": self.plies,
            "maxPlies": MAX_PLIES,
            "stones": self.stones(),
            "history": self.history.as_slice().iter().map(|&m| self.move_name(m)).collect::<Vec<_>>(),
            "standing": [self.standing(0), self.standing(1)],
            "legalMoves": self.legal_names(),
        })
    }

    fn results(&self) -> Option<Value> {
        super::results(self, &[])
    }

    fn baselines() -> &'static [Baseline<Self>] {
        super::baselines()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play(moves: &str) -> ConnectFour {
        let mut g = ConnectFour::new();
        for m in moves.split_whitespace() {
            g.try_apply(m).unwrap();
        }
        g
    }

    #[test]
    fn random_move_is_a_uniform_pick_from_the_legal_list() {
        let g = play("a a a a a a c");
        for seed in 0..200 {
            let (mut a, mut b) = (Rng::new(seed), Rng::new(seed));
            assert_eq!(g.random_move(&mut a), b.pick(&g.legal_moves()));
        }
    }

    #[test]
    fn fast_random_draws_what_the_generic_random_policy_draws() {
        for seed in 0..300 {
            let mut g = ConnectFour::new();
            while g.active_seat().is_some() {
                let ply = g.plies();
                let fast = g.random_move(&mut Rng::for_decision(seed, ply));
                let generic = crate::game::random_policy(&g, &mut Rng::for_decision(seed, ply));
                assert_eq!(fast, generic);
                g.apply(fast);
            }
        }
    }

    #[test]
    fn there_are_69_windows() {
        assert_eq!(ConnectFour::windows().len(), 69);
    }

    #[test]
    fn vertical_four_wins() {
        let g = play("a b a b a b a");
        assert_eq!(g.outcome().unwrap(), &Outcome::win(0, Ending::Line));
    }

    #[test]
    fn rising_diagonal_wins() {
        // Red builds the rising diagonal a1 b2 c3 d4; blue's b1 c1 d1 g1 never makes four.
        let g = play("a b b c c d c d d g d");
        assert_eq!(g.outcome().map(|o| o.winner), Some(Some(0)));
        assert_eq!(g.disc_at(3, 3), Some(0));
    }

    #[test]
    fn full_file_is_illegal_and_names_the_legal_files() {
        let g = play("a a a a a a");
        let err = g.read_move("a").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("file a is full"), "{msg}");
        assert!(msg.contains("b, c, d, e, f, g"), "{msg}");
        assert!(matches!(
            g.read_move("1"),
            Err(CoreError::Move {
                fault: crate::error::MoveFault::Illegal,
                ..
            })
        ));
    }

    #[test]
    fn tolerant_reader() {
        let g = ConnectFour::new();
        assert_eq!(g.read_move(" D ").unwrap(), 3);
        assert_eq!(g.read_move("7").unwrap(), 6);
        assert_eq!(g.read_move("**c**").unwrap(), 2);
        for bad in ["h", "8", "0", "", "ab", "d4"] {
            assert!(
                matches!(
                    g.read_move(bad),
                    Err(CoreError::Move {
                        fault: crate::error::MoveFault::Unparseable,
                        ..
                    })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn board_full_is_a_draw() {
        // Fill columns in an order that never makes four: pairs of columns in blocks.
        let order =
            "a b a b a b b a b a b a c d c d c d d c d c d c e f e f e f f e f e f e g g g g g g";
        let g = play(order);
        assert_eq!(g.plies(), 42);
        assert_eq!(g.outcome().unwrap(), &Outcome::draw(Ending::BoardFull));
    }

    #[test]
    fn standing_counts_open_windows() {
        let g = ConnectFour::new();
        assert_eq!(g.standing(0), 0);
        let g = play("d");
        // d1 lies in: 4 horizontal windows on rank 1, 1 vertical, 1 + 1 diagonals = 7 windows, each k=1.
        assert_eq!(g.standing(0), 7);
        // Blue has no discs: every window without a red disc scores w[0] = 0.
        assert_eq!(g.standing(1), 0);
    }
}
