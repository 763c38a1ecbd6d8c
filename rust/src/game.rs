//! The shape every game has. A game module implements [`Game`] for its state
//! and nothing else is needed for it to run in the batch simulator, to be
//! driven from Python, and to be checked by the shared random-simulation test.

use serde_json::{json, Map, Value};

use crate::error::{CoreError, CoreResult};
use crate::policy::{Act, Baseline};
use crate::rng::Rng;

pub type Seat = usize;

/// How an episode ended. `code()` is the value in `simulate`'s `ending` array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    Line,
    Connection,
    BoardFull,
    PlyCap,
    WallClock,
    HomeRank,
    NoPieces,
    NoMoves,
    GoalRow,
    Perfect,
    FinalRound,
    Fuses,
    TurnCap,
}

impl Ending {
    pub const ALL: [Ending; 13] = [
        Ending::Line,
        Ending::Connection,
        Ending::BoardFull,
        Ending::PlyCap,
        Ending::WallClock,
        Ending::HomeRank,
        Ending::NoPieces,
        Ending::NoMoves,
        Ending::GoalRow,
        Ending::Perfect,
        Ending::FinalRound,
        Ending::Fuses,
        Ending::TurnCap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Ending::Line => "line",
            Ending::Connection => "connection",
            Ending::BoardFull => "board-full",
            Ending::PlyCap => "ply-cap",
            Ending::WallClock => "wall-clock",
            Ending::HomeRank => "home-rank",
            Ending::NoPieces => "no-pieces",
            Ending::NoMoves => "no-moves",
            Ending::GoalRow => "goal-row",
            Ending::Perfect => "perfect",
            Ending::FinalRound => "final-round",
            Ending::Fuses => "fuses",
            Ending::TurnCap => "turn-cap",
        }
    }

    /// Its index in [`Ending::ALL`] (the declaration order; a test pins the two together).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// `wall-clock` is the one ending that settles with reason `deadline`.
    pub fn reason(self) -> &'static str {
        if self == Ending::WallClock {
            "deadline"
        } else {
            "complete"
        }
    }
}

/// The settled result of an episode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub ending: Ending,
    /// One entry per seat; two-seat games sum to zero, Hanabi repeats the shared score.
    pub score: Vec<i32>,
    pub winner: Option<Seat>,
}

impl Outcome {
    /// A two-seat win for `winner`.
    pub fn win(winner: Seat, ending: Ending) -> Self {
        let mut score = vec![-1, -1];
        score[winner] = 1;
        Outcome {
            ending,
            score,
            winner: Some(winner),
        }
    }

    pub fn draw(ending: Ending) -> Self {
        Outcome {
            ending,
            score: vec![0, 0],
            winner: None,
        }
    }

    /// Two-seat adjudication: the seat with the higher value wins; equal draws.
    pub fn higher_wins(values: [i64; 2], ending: Ending) -> Self {
        match values[0].cmp(&values[1]) {
            std::cmp::Ordering::Greater => Outcome::win(0, ending),
            std::cmp::Ordering::Less => Outcome::win(1, ending),
            std::cmp::Ordering::Equal => Outcome::draw(ending),
        }
    }

    /// A cooperative result: every seat gets the same score.
    pub fn shared(score: i32, seats: usize, ending: Ending) -> Self {
        Outcome {
            ending,
            score: vec![score; seats],
            winner: None,
        }
    }

    /// The common part of `results`; games append their audit fields.
    pub fn to_json(&self, plies: u32) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("reason".into(), json!(self.ending.reason()));
        m.insert("ending".into(), json!(self.ending.name()));
        m.insert("score".into(), json!(self.score));
        m.insert("winner".into(), json!(self.winner));
        m.insert("plies".into(), json!(plies));
        m
    }
}

/// A game state. Moves are compact values; text appears only at the edges
/// (`move_name`, `read_move`), so the simulator never formats a string.
pub trait Game: Clone + Send + Sync + 'static {
    type Move: Copy + Eq + std::fmt::Debug + Send + Sync;

    /// True when a fresh episode's state does not depend on its seed (nothing is
    /// dealt): the batch simulator then clones one fresh state per episode instead
    /// of rebuilding it (and its recorded config) from the registry.
    const SEED_FREE_START: bool = false;

    /// The fresh state of the episode seeded `seed`, built from `self` (the
    /// registry's fresh state of the same game and config) without the registry:
    /// the batch simulator's start of every episode when it is `Some`. The
    /// default clones a seed-free start and declines otherwise.
    fn restart(&self, seed: i64) -> Option<Self> {
        let _ = seed;
        Self::SEED_FREE_START.then(|| self.clone())
    }

    /// Canonical id of the variant (`"hex"`, `"dark-hex-5"`, ...).
    fn id(&self) -> &'static str;
    fn num_seats(&self) -> usize;
    /// Whose decision it is; `None` once settled.
    fn active_seat(&self) -> Option<Seat>;
    /// Plies (decisions) applied so far.
    fn plies(&self) -> u32;
    /// Which PRNG stream the coming decision's baseline draws from (with the
    /// episode seed). Games where every seat sees every ply use `plies`; a game
    /// whose ply count is hidden from the mover (fog: opponent collisions)
    /// derives it from what the mover knows, so its baselines stay a function
    /// of its view.
    fn decision_stream(&self) -> u32 {
        self.plies()
    }
    fn outcome(&self) -> Option<&Outcome>;

    /// The active seat's legal moves, derived from what that seat may know.
    fn legal_moves_into(&self, out: &mut Vec<Self::Move>);
    /// Apply a move that `legal_moves_into` produced. Callers outside the
    /// simulator go through [`Game::try_apply`].
    fn apply(&mut self, mv: Self::Move);
    /// Settle a live episode now (wall clock) by [`Game::adjudicate`]; games
    /// get it from [`state_accessors!`].
    fn settle_deadline(&mut self);
    /// The family's adjudication of a live position, settled with `ending`
    /// (`ply-cap` or `wall-clock`).
    fn adjudicate(&self, ending: Ending) -> Outcome;

    fn move_name(&self, mv: Self::Move) -> String;
    /// The tolerant reader: a legal move, or why not (unparseable vs illegal).
    fn read_move(&self, text: &str) -> CoreResult<Self::Move>;

    /// Everything, for spectators and replays.
    fn view(&self) -> Value;
    /// What `seat` may see (the SDK's `view_for`); perfect-information games return `view()`.
    fn view_for(&self, seat: Seat) -> Value {
        let _ = seat;
        self.view()
    }
    /// `results` once settled: the [`Outcome`] plus the family's audit fields.
    fn results(&self) -> Option<Value>;

    /// Record the active seat's guess (cells it believes hold opponent stones)
    /// for the ply about to be applied; the runner calls it BEFORE `apply`. Audit
    /// only: malformed cells are dropped, never rejected. Games without guesses
    /// ignore it.
    fn record_guess(&mut self, cells: &[String]) -> CoreResult<()> {
        let _ = cells;
        Ok(())
    }

    /// The scripted baselines this game fields, each with its parameter keys
    /// (see [`crate::policy`]): the one list names, lookups and the catalogue read.
    fn baselines() -> &'static [Baseline<Self>];

    // ---- provided ----

    /// Names of the scripted baselines this game fields.
    fn policy_names() -> Vec<&'static str> {
        crate::policy::names::<Self>()
    }

    /// A parameterless baseline by name: a pure function of the position (and,
    /// for its tie-breaks, the decision's PRNG stream).
    fn policy(name: &str) -> Option<Policy<Self>> {
        Self::baselines().iter().find_map(|b| match b.act {
            Act::Plain(f) if b.name == name => Some(f),
            _ => None,
        })
    }

    fn is_terminal(&self) -> bool {
        self.outcome().is_some()
    }

    fn legal_moves(&self) -> Vec<Self::Move> {
        let mut v = Vec::new();
        self.legal_moves_into(&mut v);
        v
    }

    fn legal_names(&self) -> Vec<String> {
        self.legal_moves()
            .into_iter()
            .map(|m| self.move_name(m))
            .collect()
    }

    /// Read, check and apply a move given as text.
    fn try_apply(&mut self, text: &str) -> CoreResult<Self::Move> {
        let mv = self.read_move(text)?;
        self.apply(mv);
        Ok(mv)
    }

    /// The standard refusal once the game is over.
    fn over_error(&self, text: &str) -> CoreError {
        CoreError::illegal(text, "the game is over", vec![])
    }
}

/// The `Game` accessors every state shares, from its fields `mover`, `outcome`
/// and the plies counter named here, and `settle_deadline` by the game's
/// [`Game::adjudicate`].
macro_rules! state_accessors {
    ($plies:ident) => {
        fn active_seat(&self) -> Option<$crate::game::Seat> {
            #[allow(clippy::unnecessary_cast)]
            self.outcome
                .is_none()
                .then_some(self.mover as $crate::game::Seat)
        }
        fn plies(&self) -> u32 {
            self.$plies
        }
        fn outcome(&self) -> Option<&$crate::game::Outcome> {
            self.outcome.as_ref()
        }
        fn settle_deadline(&mut self) {
            if self.outcome.is_none() {
                let ending = $crate::game::Ending::WallClock;
                self.outcome = Some($crate::game::Game::adjudicate(self, ending));
            }
        }
    };
}
pub(crate) use state_accessors;

/// A scripted baseline: a pure function of the position and a PRNG stream.
pub type Policy<G> = fn(&G, &mut Rng) -> <G as Game>::Move;

/// Uniform over the legal moves: the `random` baseline every game fields.
pub fn random_policy<G: Game>(g: &G, rng: &mut Rng) -> G::Move {
    let moves = g.legal_moves();
    rng.pick(&moves)
}

/// One opening ply: a uniform move of the active seat's own legal set, drawn from
/// the episode's opening stream (never from a policy), so in fog games it is a real
/// attempt that the seat's view records as its own.
pub fn opening_move<G: Game>(g: &G, seed: i64) -> G::Move {
    crate::rng::opening_stream(seed, g.decision_stream()).pick(&g.legal_moves())
}

/// Play up to `n` opening plies (fewer if the game ends first).
pub fn play_opening<G: Game>(g: &mut G, seed: i64, n: u32) {
    for _ in 0..n {
        if g.is_terminal() {
            return;
        }
        let mv = opening_move(g, seed);
        g.apply(mv);
    }
}

/// Normalise a reply's move text the way every family's tolerant reader starts:
/// lower-cased, trimmed, everything outside a-z0-9 removed.
pub fn squeeze(text: &str) -> String {
    text.trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        .collect()
}

/// Algebraic name of cell (file, rank), both 0-based: (2, 2) is `c3`.
pub fn cell_name(file: usize, rank: usize) -> String {
    format!("{}{}", (b'a' + file as u8) as char, rank + 1)
}

/// Parse an algebraic cell on a `files` x `ranks` board: `c3` is (2, 2).
pub fn parse_cell(s: &str, files: usize, ranks: usize) -> Option<(usize, usize)> {
    let b = s.as_bytes();
    if b.len() < 2 || !b[0].is_ascii_lowercase() {
        return None;
    }
    let file = (b[0] - b'a') as usize;
    let digits = &s[1..];
    if !digits.bytes().all(|c| c.is_ascii_digit()) || digits.starts_with('0') {
        return None;
    }
    let rank: usize = digits.parse().ok()?;
    (file < files && (1..=ranks).contains(&rank)).then(|| (file, rank - 1))
}
