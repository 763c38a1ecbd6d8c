//! Board Gauntlet: four perfect-information two-seat games and the rotation.
//! Each game module owns its rules; this module owns what they share: the
//! `standing` contract, adjudication at the cap, and the `tactician` baseline.

pub mod breakthrough;
pub mod connect_four;
pub mod hex;
pub mod mcts;
pub mod quoridor;

use serde_json::{json, Value};

use crate::catalog::{Entry, Origin, Seats, TWO_SEAT_NAMES};
use crate::game::{Ending, Game, Outcome, Seat};
use crate::policy::{Act, Baseline};
use crate::rng::Rng;

/// The `Game` accessors every gauntlet state shares: its id, two seats, the
/// fields `mover`, `plies` and `outcome`, and adjudication by `standing`.
macro_rules! turn_accessors {
    ($id:literal) => {
        fn id(&self) -> &'static str {
            $id
        }
        fn num_seats(&self) -> usize {
            2
        }
        fn adjudicate(&self, ending: Ending) -> Outcome {
            super::adjudicate(self, ending)
        }
        $crate::game::state_accessors!(plies);
    };
}
pub(crate) use turn_accessors;

/// The fixed rotation order: `rotate` plays `ROTATION[((seed % 4) + 4) % 4]`.
pub const ROTATION: [&str; 4] = ["connect-four", "breakthrough", "hex", "quoridor"];

/// How a gauntlet game is shown: what its board holds, how a move is written, and
/// its `standing` scale (see [`Entry`]).
pub struct Look {
    pub pieces: &'static str,
    pub notation: &'static str,
    pub standing_scale: u32,
}

/// A gauntlet game's catalogue entry.
pub const fn entry(
    id: &'static str,
    port: &'static str,
    endings: &'static [Ending],
    ply_cap: u32,
    look: Look,
) -> Entry {
    Entry {
        id,
        family: "gauntlet",
        seats: Seats::TWO,
        settings: &[],
        baselines: catalog_rows,
        endings,
        score: (-1, 1),
        ply_cap,
        hidden: false,
        origin: Origin::Port(port),
        rotation: &[],
        seat_names: TWO_SEAT_NAMES,
        cooperative: false,
        pieces: Some(look.pieces),
        notation: Some(look.notation),
        standing_scale: Some(look.standing_scale),
        cards: None,
    }
}

/// `rotate`: one game of [`ROTATION`], drawn from the seed.
pub const ROTATE: Entry = Entry {
    id: "rotate",
    family: "gauntlet",
    seats: Seats::TWO,
    settings: &[],
    baselines: catalog_rows,
    endings: &[
        Ending::Line,
        Ending::BoardFull,
        Ending::HomeRank,
        Ending::NoPieces,
        Ending::NoMoves,
        Ending::Connection,
        Ending::GoalRow,
        Ending::PlyCap,
        Ending::WallClock,
    ],
    score: (-1, 1),
    ply_cap: quoridor::MAX_PLIES,
    hidden: false,
    origin: Origin::Rotation,
    rotation: &ROTATION,
    seat_names: TWO_SEAT_NAMES,
    cooperative: false,
    // whatever the game it draws: a viewer reads the drawn game's entry
    pieces: None,
    notation: None,
    standing_scale: None,
    cards: None,
};

/// The baselines every gauntlet game fields (one table for all four), with their keys.
fn catalog_rows() -> Vec<(&'static str, Vec<&'static str>)> {
    crate::policy::catalog_rows::<connect_four::ConnectFour>()
}

/// The rotation index for a (resolved, non-zero) seed, negative seeds included.
pub fn rotation_index(seed: i64) -> usize {
    seed.rem_euclid(4) as usize
}

/// A game's move record with room for every ply up to the cap, held inline: the
/// simulator clones a fresh state per episode, and a cloned `Vec` would start with
/// no spare capacity and reallocate as the game grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveRecord<T: Copy + Default, const N: usize> {
    moves: [T; N],
    len: usize,
}

impl<T: Copy + Default, const N: usize> Default for MoveRecord<T, N> {
    fn default() -> Self {
        MoveRecord {
            moves: [T::default(); N],
            len: 0,
        }
    }
}

impl<T: Copy + Default, const N: usize> MoveRecord<T, N> {
    /// Record one more move; the caller's ply cap keeps it within `N`.
    #[inline]
    pub fn push(&mut self, mv: T) {
        self.moves[self.len] = mv;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[T] {
        &self.moves[..self.len]
    }
}

/// A move record on the heap for long games, whose clone keeps the original's
/// capacity: a plain `Vec` clone has no spare room and would reallocate as the
/// cloned game grows (the simulator clones a fresh state per episode).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct MoveLog<T: Copy>(Vec<T>);

impl<T: Copy> Clone for MoveLog<T> {
    fn clone(&self) -> Self {
        let mut moves = Vec::with_capacity(self.0.capacity());
        moves.extend_from_slice(&self.0);
        MoveLog(moves)
    }
}

impl<T: Copy> MoveLog<T> {
    pub fn with_capacity(capacity: usize) -> Self {
        MoveLog(Vec::with_capacity(capacity))
    }

    #[inline]
    pub fn push(&mut self, mv: T) {
        self.0.push(mv);
    }

    pub fn as_slice(&self) -> &[T] {
        &self.0
    }
}

/// A gauntlet game: perfect information, two seats, a `standing` heuristic.
pub trait Gauntlet: Game {
    /// `standing(sim, seat)` (docs/rules/gauntlet.md): higher is better for `seat`, from the true board.
    fn standing(&self, seat: Seat) -> i32;
    /// `random`: exactly the move `rng.pick(&self.legal_moves())` draws, without the list.
    fn random_move(&self, rng: &mut Rng) -> Self::Move;
    /// A move of `mcts`'s rollouts: uniform unless a game needs a cheap guide.
    fn rollout_move(&self, rng: &mut Rng) -> Self::Move {
        self.random_move(rng)
    }
}

/// The baselines every gauntlet game fields (`Game::baselines` of each).
pub fn baselines<G: Gauntlet>() -> &'static [Baseline<G>] {
    Table::<G>::BASELINES
}

/// Holds the generic table: a `static` cannot be generic, an associated const can.
struct Table<G>(std::marker::PhantomData<G>);

impl<G: Gauntlet> Table<G> {
    const BASELINES: &'static [Baseline<G>] = &[
        Baseline::plain("tactician", tactician::<G>),
        Baseline::plain("random", G::random_move),
        Baseline {
            name: "mcts",
            keys: &["sims"],
            act: Act::Tuned(mcts::mcts::<G>),
        },
    ];
}

/// Ply-cap / wall-clock adjudication: the higher standing wins, equal draws.
pub fn adjudicate<G: Gauntlet>(g: &G, ending: Ending) -> Outcome {
    Outcome::higher_wins([g.standing(0) as i64, g.standing(1) as i64], ending)
}

/// `results` for a gauntlet game: the outcome, the final standings and the id.
pub fn results<G: Gauntlet>(g: &G, extra: &[(&str, Value)]) -> Option<Value> {
    let o = g.outcome()?;
    let mut m = o.to_json(g.plies());
    m.insert("game".into(), json!(g.id()));
    m.insert("standing".into(), json!([g.standing(0), g.standing(1)]));
    for (k, v) in extra {
        m.insert((*k).into(), v.clone());
    }
    Some(Value::Object(m))
}

/// `tactician`: a move that wins at once if one exists; otherwise the move that
/// maximises the mover's own standing afterwards; ties broken by the PRNG.
pub fn tactician<G: Gauntlet>(g: &G, rng: &mut Rng) -> G::Move {
    let me = g
        .active_seat()
        .expect("tactician asked to move in a settled game");
    let mut wins = Vec::new();
    let mut best = Vec::new();
    let mut best_value = i32::MIN;
    for mv in g.legal_moves() {
        let mut next = g.clone();
        next.apply(mv);
        if next.outcome().is_some_and(|o| o.winner == Some(me)) {
            wins.push(mv);
        } else if wins.is_empty() {
            let value = next.standing(me);
            if value > best_value {
                best_value = value;
                best.clear();
            }
            if value == best_value {
                best.push(mv);
            }
        }
    }
    if wins.is_empty() {
        rng.pick(&best)
    } else {
        rng.pick(&wins)
    }
}
