//! Fog-of-War Boards: phantom tic-tac-toe and dark hex (plus recon hex) as one
//! engine parameterised by mode, size, abrupt, sense and the ply cap.
//!
//! A ply is one attempt: the mover names a cell (after a sense anchor in recon
//! hex); an empty cell takes its stone, an opponent's cell places nothing and
//! proves that stone to the mover (a probe). Each seat knows only its own
//! stones, the opponent stones it has proven, its own referee log and the public
//! counters; `view_for` is built from exactly that ([`knowledge`]).
//!
//! Cells are bits `rank * n + file` (a1 is bit 0), the indexing of
//! [`crate::kernels::hexgrid`], whose adjacency, 0-1 BFS `distToWin` and
//! winning path dark hex uses unchanged. The per-ply path (legal cells, the
//! attempt, the win check) runs on `u32` sets in [`cells`], which restates that
//! adjacency and is tested against the kernel; see there for why.

pub mod baselines;
mod cells;
mod history;
pub mod ismcts;
pub mod knowledge;
mod view;

#[cfg(test)]
mod tests;

use serde_json::Value;

use crate::catalog::{Entry, Origin, Seats, TWO_SEAT_NAMES};
use crate::error::{CoreError, CoreResult};
use crate::game::{cell_name, parse_cell, squeeze, Ending, Game, Outcome, Seat};
use crate::kernels::hexgrid::{self, bits, Geometry, Mask, UNREACHABLE};
use crate::policy::{Act, Baseline};
use cells::Cells;
use history::{History, Packed, Side};

/// Largest board of the family (5 x 5); guesses and logs fit a `u32` mask.
pub const MAX_CELLS: usize = 25;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    PhantomTtt,
    DarkHex,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::PhantomTtt => "phantom-ttt",
            Mode::DarkHex => "dark-hex",
        }
    }
}

/// One row of the variant table (docs/rules/fog.md).
#[derive(Debug, PartialEq, Eq)]
pub struct Variant {
    pub id: &'static str,
    pub mode: Mode,
    pub size: usize,
    /// A collision ends the turn.
    pub abrupt: bool,
    /// Side of the sensed block (0: no sensing).
    pub sense: usize,
    pub max_plies: u32,
    /// Where the variant comes from, shown in its config, docs and prompts.
    pub origin: Origin,
}

pub const VARIANTS: [Variant; 4] = [
    Variant {
        id: "phantom-ttt-3",
        mode: Mode::PhantomTtt,
        size: 3,
        abrupt: false,
        sense: 0,
        max_plies: 18,
        origin: Origin::Port("phantom_ttt"),
    },
    Variant {
        id: "dark-hex-4",
        mode: Mode::DarkHex,
        size: 4,
        abrupt: false,
        sense: 0,
        max_plies: 32,
        origin: Origin::Port("dark_hex"),
    },
    Variant {
        id: "dark-hex-5",
        mode: Mode::DarkHex,
        size: 5,
        abrupt: true,
        sense: 0,
        max_plies: 50,
        origin: Origin::Port("abrupt_dark_hex"),
    },
    Variant {
        id: "recon-hex-5",
        mode: Mode::DarkHex,
        size: 5,
        abrupt: true,
        sense: 3,
        max_plies: 50,
        origin: Origin::Original {
            not_a_port_of: "rbc",
        },
    },
];

/// The variant with this id.
pub fn variant(id: &str) -> Option<&'static Variant> {
    VARIANTS.iter().find(|v| v.id == id)
}

impl Variant {
    /// Its label, e.g. "a port of OpenSpiel dark_hex".
    pub fn label(&self) -> String {
        self.origin.label()
    }

    /// True for recon-hex-5, which ports nothing.
    pub fn original(&self) -> bool {
        matches!(self.origin, Origin::Original { .. })
    }

    /// Its catalogue entry.
    pub const fn entry(&self) -> Entry {
        Entry {
            id: self.id,
            family: "fog",
            seats: Seats::TWO,
            settings: &[],
            baselines: crate::policy::catalog_rows::<FogState>,
            endings: match self.mode {
                Mode::PhantomTtt => &[
                    Ending::Line,
                    Ending::BoardFull,
                    Ending::PlyCap,
                    Ending::WallClock,
                ],
                Mode::DarkHex => &[Ending::Connection, Ending::PlyCap, Ending::WallClock],
            },
            score: (-1, 1),
            ply_cap: self.max_plies,
            hidden: true,
            origin: self.origin,
            rotation: &[],
            seat_names: TWO_SEAT_NAMES,
            cooperative: false,
            pieces: Some("stones"),
            notation: Some(if self.sense > 0 { "sense+cell" } else { "cell" }),
            standing_scale: None,
            cards: None,
        }
    }

    /// The config a replay header records (`game`, `seed`, `first` are added by the registry).
    pub fn config(&self) -> Value {
        serde_json::json!({
            "mode": self.mode.name(),
            "size": self.size,
            "abrupt": self.abrupt,
            "sense": self.sense,
            "maxPlies": self.max_plies,
            "variant": self.label(),
            "original": self.original(),
        })
    }
}

/// One decision: an optional sense anchor (recon hex only) and the attempted cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Attempt {
    pub anchor: Option<u8>,
    pub cell: u8,
}

/// What one ply did, kept for the referee logs and the spectator events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlyRecord {
    pub seat: u8,
    pub anchor: Option<u8>,
    pub cell: u8,
    /// The attempt hit an opponent stone.
    pub occupied: bool,
    /// Opponent stones and empty cells inside the sensed block.
    pub sensed_stones: u32,
    pub sensed_empty: u32,
    /// Cells the mover guessed hold opponent stones (audit only).
    pub guess: u32,
}

/// The state of a fog episode: the true board, each seat's knowledge, the log.
///
/// Small and free of heap data in every simulated game (the simulator clones
/// it per episode and moves it by value): counters are bytes (a game lasts at
/// most [`history::MAX_PLIES`] plies), the log is inline, and the outcome is
/// one of the few a fog game can have, shared ([`settled`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FogState {
    v: &'static Variant,
    outcome: Option<&'static Outcome>,
    // Cell sets are `u32` inside the engine (see [`cells`]); accessors widen to `Mask`.
    board: Cells,
    stones: [Cells; 2],
    /// Opponent stones each seat has proven (by collision or sense).
    proven: [Cells; 2],
    /// Guess recorded for the coming ply (`record_guess` runs before `apply`).
    pending_guess: u32,
    /// The seat to move.
    mover: u8,
    /// Each seat's own attempts so far: the only ply count a seat may know (in
    /// the non-abrupt variants the global ply count, their sum, counts the
    /// opponent's collisions too). Each attempt places a stone or proves one
    /// (a probe), so the probes need no counter of their own either.
    attempts: [u8; 2],
    /// [`Game::decision_stream`] of the coming decision, kept by `apply` so the
    /// simulator reads one field between plies instead of two dependent ones.
    stream: u8,
    max_plies: u8,
    /// The variant's [`Shape`], at hand without a load through `v`.
    shape: Shape,
    // At most one guess per cell per ply.
    guesses_made: [u16; 2],
    guesses_right: [u16; 2],
    history: History,
}

/// The variant shapes whose plies have code of their own (mode, side and
/// abruptness as constants); `Other` runs the general code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Ttt3,
    Hex4,
    Hex5Abrupt,
    Other,
}

impl Shape {
    fn of(v: &Variant) -> Shape {
        match (v.mode, v.size, v.abrupt) {
            (Mode::PhantomTtt, 3, false) => Shape::Ttt3,
            (Mode::DarkHex, 4, false) => Shape::Hex4,
            (Mode::DarkHex, 5, true) => Shape::Hex5Abrupt,
            _ => Shape::Other,
        }
    }
}

/// The shared outcome of a settled fog game: every one a fog game can have
/// (each ending with either winner or a draw) is built once and kept, so
/// settling an episode neither allocates nor frees.
fn settled(winner: Option<Seat>, ending: Ending) -> &'static Outcome {
    use std::sync::OnceLock;
    static ALL: OnceLock<Vec<Outcome>> = OnceLock::new();
    let all = ALL.get_or_init(|| {
        Ending::ALL
            .iter()
            .flat_map(|&e| [Outcome::win(0, e), Outcome::win(1, e), Outcome::draw(e)])
            .collect()
    });
    let o = &all[ending.code() as usize * 3 + winner.map_or(2, |w| w & 1)];
    debug_assert_eq!((o.ending, o.winner), (ending, winner));
    o
}

/// [`settled`] of an outcome built by the shared rules ([`Outcome::higher_wins`]).
fn interned(o: Outcome) -> &'static Outcome {
    let kept = settled(o.winner, o.ending);
    assert_eq!(*kept, o, "a fog outcome is a two-seat win or draw");
    kept
}

impl FogState {
    pub fn new(v: &'static Variant) -> Self {
        let n = v.size;
        assert!(n * n <= MAX_CELLS, "{}: {n} x {n} is too large", v.id);
        assert!(
            v.max_plies as usize <= history::MAX_PLIES,
            "{}: too many plies",
            v.id
        );
        FogState {
            v,
            board: ((1u64 << (n * n)) - 1) as Cells,
            stones: [0; 2],
            proven: [0; 2],
            mover: 0,
            attempts: [0; 2],
            stream: 0,
            max_plies: v.max_plies as u8,
            shape: Shape::of(v),
            guesses_made: [0; 2],
            guesses_right: [0; 2],
            pending_guess: 0,
            history: History::new(),
            outcome: None,
        }
    }

    /// A state of the variant `id`, if it is a fog variant.
    pub fn of(id: &str) -> Option<Self> {
        variant(id).map(Self::new)
    }

    pub fn variant(&self) -> &'static Variant {
        self.v
    }
    pub fn size(&self) -> usize {
        self.n()
    }
    #[inline]
    fn n(&self) -> usize {
        self.v.size
    }
    pub fn board(&self) -> Mask {
        self.board as Mask
    }
    pub fn stones(&self, seat: Seat) -> Mask {
        self.stones[seat] as Mask
    }
    pub fn proven(&self, seat: Seat) -> Mask {
        self.proven[seat] as Mask
    }
    /// Every ply so far, in order.
    pub fn history(&self) -> Vec<PlyRecord> {
        self.history.iter().collect()
    }
    pub fn max_plies(&self) -> u32 {
        self.max_plies.into()
    }
    /// How many plies `seat` itself has played (its own attempt count).
    pub fn attempts(&self, seat: Seat) -> u32 {
        self.attempts[seat].into()
    }
    fn geometry(&self) -> &'static Geometry {
        hexgrid::geometry(self.n())
    }

    /// Cells `seat` may attempt: on the board, not its own, not proven occupied.
    /// The validator and every seat-facing list use this one function.
    pub fn legal_attempts(&self, seat: Seat) -> Mask {
        self.knowledge(seat).legal_attempts()
    }

    /// [`Self::legal_attempts`] on the engine's `u32` cells, for the hot path of
    /// `random` (a test checks the two agree).
    #[inline]
    fn legal_cells(&self, seat: Seat) -> Cells {
        self.board & !self.stones[seat] & !self.proven[seat]
    }

    /// What `seat` knows (own stones, proven opponent stones).
    pub fn knowledge(&self, seat: Seat) -> knowledge::Knowledge {
        knowledge::Knowledge::of(self, seat)
    }

    /// Legal sense anchors: every on-board cell when the variant senses, else none.
    pub fn legal_anchors(&self) -> Mask {
        if self.v.sense > 0 {
            self.board as Mask
        } else {
            0
        }
    }

    /// The sensed block around `anchor`: `(file+i, rank+j)` for |i|, |j| <= sense/2, clipped.
    pub fn sense_block(&self, anchor: usize) -> Mask {
        let r = (self.v.sense / 2) as isize;
        let (f0, r0) = (anchor % self.n(), anchor / self.n());
        let mut m = 0;
        for dr in -r..=r {
            for df in -r..=r {
                let (f, rk) = (f0 as isize + df, r0 as isize + dr);
                if (0..self.n() as isize).contains(&f) && (0..self.n() as isize).contains(&rk) {
                    m |= 1 << (rk as usize * self.n() + f as usize);
                }
            }
        }
        m
    }

    /// `distToWin` of `seat` on a board where it owns `own` and the opponent `opp`.
    pub fn dist(&self, own: Mask, opp: Mask, seat: Seat) -> u8 {
        match self.v.mode {
            Mode::DarkHex => self.geometry().dist_to_win(own, opp, seat),
            Mode::PhantomTtt => ttt_dist(self.n(), own, opp),
        }
    }

    /// `distToWin` on the TRUE board (scorebug, results, adjudication).
    pub fn true_dist(&self, seat: Seat) -> u8 {
        self.dist(self.stones(seat), self.stones(1 - seat), seat)
    }

    /// `distToWin` on `seat`'s BELIEVED board: its stones, its proven opponent
    /// stones, every other cell empty. Only that seat's own view shows it.
    pub fn believed_dist(&self, seat: Seat) -> u8 {
        self.knowledge(seat).believed_dist()
    }

    /// Opponent stones `seat` has discovered (proven by collision or sense).
    pub fn discovered(&self, seat: Seat) -> u32 {
        self.proven[seat].count_ones()
    }
    pub fn probes(&self, seat: Seat) -> u32 {
        // Every attempt placed a stone or hit one.
        self.attempts(seat) - self.stones[seat].count_ones()
    }
    pub fn guesses_made(&self, seat: Seat) -> u32 {
        self.guesses_made[seat].into()
    }
    /// Fraction of guessed cells that held an opponent stone; `None` before any guess.
    pub fn guess_accuracy(&self, seat: Seat) -> Option<f64> {
        (self.guesses_made[seat] > 0)
            .then(|| self.guesses_right[seat] as f64 / self.guesses_made[seat] as f64)
    }

    /// The cells that won: the hex chain (source end first) or the ttt line.
    pub fn winning_cells(&self) -> Option<Vec<usize>> {
        let o = self.outcome?;
        let w = o.winner?;
        match o.ending {
            Ending::Connection => self.geometry().winning_path(self.stones(w), w),
            Ending::Line => {
                let last = self.history.last()?.cell as usize;
                let line = lines(self.n())
                    .iter()
                    .find(|&&l| l >> last & 1 == 1 && l & self.stones(w) == l)?;
                Some(bits(*line).collect())
            }
            _ => None,
        }
    }

    /// Record a reply's guess for the coming ply; off-board or malformed cells
    /// are dropped (guesses are audited, never rejected), repeats count once.
    pub fn set_guess(&mut self, cells: &[String]) {
        if self.outcome.is_some() {
            return;
        }
        let mut mask: u32 = 0;
        for text in cells.iter().take(self.n() * self.n()) {
            if let Some((f, r)) = parse_cell(&squeeze(text), self.n(), self.n()) {
                mask |= 1 << (r * self.n() + f);
            }
        }
        self.pending_guess = mask;
    }

    /// Test hook: the same variant with a lower ply cap, to reach adjudication.
    #[cfg(test)]
    pub(crate) fn with_max_plies(mut self, max_plies: u32) -> Self {
        self.max_plies = max_plies.try_into().expect("a fog ply cap fits a byte");
        self
    }

    fn cell_text(&self, cell: usize) -> String {
        cell_name(cell % self.n(), cell / self.n())
    }

    /// Algebraic names of a mask's cells, file by file (a1 a2 .. b1 ..).
    pub fn names(&self, m: Mask) -> Vec<String> {
        self.file_major(m).map(|c| self.cell_text(c)).collect()
    }

    /// A mask's cells in reading order a1, a2, .., b1, ..
    fn file_major(&self, m: Mask) -> impl Iterator<Item = usize> + '_ {
        let n = self.n();
        (0..n * n)
            .map(move |i| (i % n) * n + i / n)
            .filter(move |&c| m >> c & 1 == 1)
    }

    /// Did `seat`'s stone on `cell` win? No earlier placement won (it would have
    /// ended the game), so any connection or line runs through `cell`, and there
    /// is none when `cell` is not the seat's (a collision).
    /// `mode` and `n` are the variant's, passed as constants by [`Self::attempt`].
    #[inline(always)]
    fn won_by(&self, seat: Seat, cell: usize, mode: Mode, n: usize) -> Option<Ending> {
        let own = self.stones[seat];
        match mode {
            Mode::DarkHex => {
                cells::hex_connects_through(n, own, cell, seat).then_some(Ending::Connection)
            }
            Mode::PhantomTtt if n == 3 => cells::ttt3_has_line(own).then_some(Ending::Line),
            Mode::PhantomTtt => lines(n)
                .iter()
                .any(|&l| l >> cell & 1 == 1 && l & own as Mask == l)
                .then_some(Ending::Line),
        }
    }

    /// One ply of the variant whose mode, side and abruptness are given (as
    /// constants, from [`Game::apply`]), with what its sense and its guess
    /// found (`side`, `None` when it had neither: then none of it is compiled in).
    #[inline(always)]
    fn attempt(
        &mut self,
        mv: Attempt,
        side: Option<[Cells; 3]>,
        mode: Mode,
        n: usize,
        abrupt: bool,
    ) {
        debug_assert_eq!((mode, n, abrupt), (self.v.mode, self.v.size, self.v.abrupt));
        let me = self.mover as Seat & 1;
        let opp = 1 - me;
        let cell = mv.cell as usize;
        debug_assert!(self.outcome.is_none());
        // 7. Attempt. Whether it collides is a coin flip to the branch predictor,
        // so steps 7-8 go without branching on it.
        let bit: Cells = 1 << cell;
        let occupied = self.stones[opp] & bit != 0;
        let hit = Cells::from(occupied).wrapping_neg();
        self.proven[me] |= bit & hit;
        self.stones[me] |= bit & !hit;
        let ply = Packed::new(me, mv.cell, occupied);
        match side {
            None => self.history.push(ply),
            Some(masks) => self.history.push_with_side(
                ply,
                Side {
                    anchor: mv.anchor,
                    masks,
                },
            ),
        }
        self.attempts[me] += 1;
        // 9. Win check, after a placement only: after a collision the cell is not
        // the mover's and `won_by` finds nothing, so it needs no guard.
        if let Some(ending) = self.won_by(me, cell, mode, n) {
            self.outcome = Some(settled(Some(me), ending));
            return;
        }
        // 10. Turn transfer; the coming decision's stream from both seats' counts
        // already at hand (no load that waits for the new mover). This one does
        // branch on the collision, on purpose: predicted, the next decision's
        // stream does not wait for this attempt to resolve (a select that does
        // wait measured slower, though it never mispredicts).
        let pass = !occupied || abrupt;
        self.mover ^= u8::from(pass);
        let stays = 2 * self.attempts[me] + me as u8;
        let passes = 2 * self.attempts[opp] + opp as u8;
        self.stream = if pass { passes } else { stays };
        // 11. Board full (tic-tac-toe only; a full hex board always has a connection).
        if mode == Mode::PhantomTtt && (self.stones[0] | self.stones[1]) == self.board {
            self.outcome = Some(settled(None, Ending::BoardFull));
        } else if self.attempts[0] + self.attempts[1] >= self.max_plies {
            // 12. Ply cap.
            self.settle(|g| interned(g.adjudicate(Ending::PlyCap)));
        }
    }

    /// A ply that senses or carries a guess (recon hex, or a guess recorded
    /// by `record_guess`), or of a shape without code of its own: step 6
    /// first, then the attempt, in general code.
    #[inline(never)]
    fn attempt_with_side(&mut self, mv: Attempt) {
        let side = self.sense_and_guess(self.mover as Seat & 1, mv.anchor);
        let v = self.v;
        self.attempt(mv, Some(side), v.mode, v.size, v.abrupt);
    }

    // The rare parts of `apply`, out of line so the per-ply path stays small.

    /// Count the pending guess against the true board, then step 6 for `me`
    /// sensing around `anchor`: [opponent stones, empty cells in the block, guess].
    fn sense_and_guess(&mut self, me: Seat, anchor: Option<u8>) -> [Cells; 3] {
        let guess = std::mem::take(&mut self.pending_guess);
        self.guesses_made[me] += guess.count_ones() as u16;
        self.guesses_right[me] += (guess & self.stones[1 - me]).count_ones() as u16;
        let Some(anchor) = anchor else {
            return [0, 0, guess];
        };
        let block = self.sense_block(anchor as usize) as Cells;
        let found = block & self.stones[1 - me];
        self.proven[me] |= found;
        [found, block & !self.stones[0] & !self.stones[1], guess]
    }

    /// Settle by a computed outcome (the ply cap's adjudication), out of line.
    /// A win and a full board settle in line: their outcome is a table entry,
    /// and the simulator's loop then sees the game end without a reload.
    #[cold]
    #[inline(never)]
    fn settle(&mut self, outcome: impl FnOnce(&Self) -> &'static Outcome) {
        self.outcome = Some(outcome(self));
    }

    /// Why `text`'s cells do not make a legal attempt, if they do not.
    fn check_attempt(&self, text: &str, anchor: Option<&str>, cell: &str) -> CoreResult<Attempt> {
        let me = self.mover as Seat;
        let on_board = |tok: &str| {
            parse_cell(tok, self.n(), self.n())
                .map(|(f, r)| r * self.n() + f)
                .ok_or_else(|| {
                    self.illegal(
                        text,
                        format!(
                            "{tok} is off the board (a1..{})",
                            self.cell_text(self.n() * self.n() - 1)
                        ),
                    )
                })
        };
        let anchor = anchor.map(on_board).transpose()?;
        if let Some(a) = anchor {
            if self.legal_anchors() >> a & 1 == 0 {
                return Err(
                    self.illegal(text, format!("{} cannot anchor a sense", self.cell_text(a)))
                );
            }
        }
        let c = on_board(cell)?;
        // The same mask the seat's view lists; the reason says which rule excludes the cell.
        if self.legal_attempts(me) >> c & 1 == 0 {
            let reason = if self.stones(me) >> c & 1 == 1 {
                format!("{cell} already holds your stone")
            } else {
                format!("{cell} is known to hold an opponent stone")
            };
            return Err(self.illegal(text, reason));
        }
        Ok(Attempt {
            anchor: anchor.map(|a| a as u8),
            cell: c as u8,
        })
    }

    /// The shape a move takes in this variant, for error messages.
    fn move_shape(&self) -> &'static str {
        if self.v.sense > 0 {
            "a sense anchor and a cell, as b2+c3 (every cell is a legal anchor)"
        } else {
            "one cell, as c3"
        }
    }

    /// Errors list the legal attempts (the cells; in recon hex any cell may anchor).
    fn illegal(&self, text: &str, reason: String) -> CoreError {
        CoreError::illegal(
            text,
            format!("{reason}; a move is {}", self.move_shape()),
            self.names(self.legal_attempts(self.mover as Seat)),
        )
    }
}

/// The lines of n-in-a-row on an n x n board: rows, files, both diagonals.
pub fn lines(n: usize) -> &'static [Mask] {
    use std::sync::OnceLock;
    static LINES: OnceLock<Vec<Vec<Mask>>> = OnceLock::new();
    &LINES.get_or_init(|| {
        (0..=hexgrid::MAX_SIZE)
            .map(|n| {
                let bit = |f: usize, r: usize| 1 << (r * n + f);
                let mut v: Vec<Mask> = Vec::new();
                v.extend((0..n).map(|r| (0..n).fold(0, |m, f| m | bit(f, r))));
                v.extend((0..n).map(|f| (0..n).fold(0, |m, r| m | bit(f, r))));
                v.push((0..n).fold(0, |m, i| m | bit(i, i)));
                v.push((0..n).fold(0, |m, i| m | bit(i, n - 1 - i)));
                v
            })
            .collect()
    })[n]
}

/// Tic-tac-toe `distToWin`: min over lines free of `opp` of (n - own marks in it).
pub fn ttt_dist(n: usize, own: Mask, opp: Mask) -> u8 {
    lines(n)
        .iter()
        .filter(|&&l| l & opp == 0)
        .map(|&l| (n as u32 - (l & own).count_ones()) as u8)
        .min()
        .unwrap_or(UNREACHABLE)
}

/// Every cell named in squeezed text: a letter followed by its digits
/// (`senseb2attemptc3` names b2 and c3; letters not followed by a digit are skipped).
fn cell_tokens(s: &str) -> Vec<&str> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i].is_ascii_lowercase() && b[i + 1].is_ascii_digit() {
            let end = (i + 1..b.len())
                .find(|&j| !b[j].is_ascii_digit())
                .unwrap_or(b.len());
            out.push(&s[i..end]);
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

impl Game for FogState {
    type Move = Attempt;
    const SEED_FREE_START: bool = true;

    fn id(&self) -> &'static str {
        self.v.id
    }
    fn num_seats(&self) -> usize {
        2
    }
    // The shared `state_accessors`, on the shared outcome.
    fn active_seat(&self) -> Option<Seat> {
        self.outcome.is_none().then_some(self.mover as Seat)
    }
    fn plies(&self) -> u32 {
        u32::from(self.attempts[0]) + u32::from(self.attempts[1])
    }
    fn outcome(&self) -> Option<&Outcome> {
        self.outcome
    }
    fn settle_deadline(&mut self) {
        if self.outcome.is_none() {
            self.outcome = Some(interned(self.adjudicate(Ending::WallClock)));
        }
    }

    /// The mover's own attempt count (and its seat), never the global ply: a
    /// baseline's draw must not depend on how often the opponent collided.
    fn decision_stream(&self) -> u32 {
        debug_assert_eq!(
            self.stream,
            2 * self.attempts[self.mover as usize] + self.mover
        );
        self.stream.into()
    }

    /// The shorter true `distToWin` wins; equal draws.
    fn adjudicate(&self, ending: Ending) -> Outcome {
        let d = [self.true_dist(0) as i64, self.true_dist(1) as i64];
        Outcome::higher_wins([-d[0], -d[1]], ending)
    }

    fn legal_moves_into(&self, out: &mut Vec<Attempt>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let cells = self.legal_attempts(self.mover as Seat);
        if self.v.sense == 0 {
            out.extend(self.file_major(cells).map(|c| Attempt {
                anchor: None,
                cell: c as u8,
            }));
            return;
        }
        for a in self.file_major(self.legal_anchors()) {
            out.extend(self.file_major(cells).map(|c| Attempt {
                anchor: Some(a as u8),
                cell: c as u8,
            }));
        }
    }

    /// Steps 6-12 of the resolution order of one ply, in code of its
    /// own for each variant's shape (mode, side, abrupt): they become constants,
    /// and the win test, the turn transfer and the board-full test fold.
    #[inline(always)]
    fn apply(&mut self, mv: Attempt) {
        // Legal when decided (step 5): the sense below may then prove the cell
        // the opponent's, and the attempt is a collision (step 7).
        debug_assert!(self.legal_attempts(self.mover as Seat & 1) >> mv.cell & 1 == 1);
        // 6. Sense (and the guess's audit), out of line: most plies have neither.
        if mv.anchor.is_some() || self.pending_guess != 0 {
            return self.attempt_with_side(mv);
        }
        // Each shape's ply inlines into the caller (the simulator's loop), with
        // its constants; a ply with a side or of another shape stays out of line.
        match self.shape {
            Shape::Ttt3 => self.attempt(mv, None, Mode::PhantomTtt, 3, false),
            Shape::Hex4 => self.attempt(mv, None, Mode::DarkHex, 4, false),
            Shape::Hex5Abrupt => self.attempt(mv, None, Mode::DarkHex, 5, true),
            Shape::Other => self.attempt_with_side(mv),
        }
    }

    fn move_name(&self, mv: Attempt) -> String {
        let cell = self.cell_text(mv.cell as usize);
        match mv.anchor {
            Some(a) => format!("{}+{cell}", self.cell_text(a as usize)),
            None => cell,
        }
    }

    /// The tolerant reader: squeeze the text, then take its cells (a letter and
    /// its digits): exactly one for a plain attempt, exactly two (anchor, then
    /// cell) in recon hex. `c3`, `C3.`, `b2+c3`, `b2 c3`, `b2c3` and
    /// `sense b2 attempt c3` all read.
    fn read_move(&self, text: &str) -> CoreResult<Attempt> {
        if self.outcome.is_some() {
            return Err(self.over_error(text));
        }
        let s = squeeze(text);
        let tokens = cell_tokens(&s);
        match (self.v.sense > 0, tokens.as_slice()) {
            (false, [cell]) => self.check_attempt(text, None, cell),
            (true, [anchor, cell]) => self.check_attempt(text, Some(anchor), cell),
            _ => Err(CoreError::unparseable(
                text,
                format!("{} takes {}", self.v.id, self.move_shape()),
                self.names(self.legal_attempts(self.mover as Seat)),
            )),
        }
    }

    fn view(&self) -> Value {
        view::spectator(self)
    }

    fn view_for(&self, seat: Seat) -> Value {
        view::seat(self, seat)
    }

    fn results(&self) -> Option<Value> {
        view::results(self)
    }

    fn record_guess(&mut self, cells: &[String]) -> CoreResult<()> {
        self.set_guess(cells);
        Ok(())
    }

    fn baselines() -> &'static [Baseline<Self>] {
        const TABLE: &[Baseline<FogState>] = &[
            Baseline::plain("probe", baselines::probe_policy),
            Baseline::plain("sweep", baselines::sweep_policy),
            Baseline::plain("random", baselines::random_policy),
            Baseline {
                name: "ismcts",
                keys: &["sims"],
                act: Act::Tuned(ismcts::ismcts),
            },
        ];
        TABLE
    }
}
