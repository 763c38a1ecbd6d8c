//! Board Gauntlet: four perfect-information two-seat games and the rotation.
//! Each game module owns its rules; this module owns what they share: the
//! `standing` contract, adjudication at the cap, and the `tactician` baseline.

pub mod breakthrough;
pub mod connect_four;
pub mod hex;
pub mod mcts;
pub mod quoridor;

use serde_json::{json, Value};

use crate::game::{Game, Outcome, Seat};
use crate::policy::{Act, Baseline};
use crate::rng::Rng;

/// The `Game` accessors every gauntlet state shares: two seats, and the fields
/// `mover`, `plies` and `outcome`.
macro_rules! turn_accessors {
    ($id:literal) => {
        fn id(&self) -> &'static str {
            $id
        }
        fn num_seats(&self) -> usize {
            2
        }
        fn active_seat(&self) -> Option<Seat> {
            self.outcome.is_none().then_some(self.mover)
        }
        fn plies(&self) -> u32 {
            self.plies
        }
        fn outcome(&self) -> Option<&Outcome> {
            self.outcome.as_ref()
        }
    };
}
pub(crate) use turn_accessors;

/// The fixed rotation order: `rotate` plays `ROTATION[((seed % 4) + 4) % 4]`.
pub const ROTATION: [&str; 4] = ["connect-four", "breakthrough", "hex", "quoridor"];

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

/// Index of the k-th (0-based) set bit of `w`, lowest first; `w` has more than k
/// bits. Constant time and branch-free (Vigna's broadword select): per-byte bit
/// counts, their running sums by one multiply, the byte holding the bit by a
/// bytewise compare, then a table for the bit within that byte.
#[inline]
pub(crate) fn select64(w: u64, k: u32) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut counts = w - ((w >> 1) & 0x5555_5555_5555_5555);
    counts = (counts & 0x3333_3333_3333_3333) + ((counts >> 2) & 0x3333_3333_3333_3333);
    counts = (counts + (counts >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Byte i: set bits in bytes 0..=i (at most 64, so no carry between bytes).
    let running = counts.wrapping_mul(ONES);
    // High bit of byte i set iff running_i <= k: the bytes wholly before the k-th bit.
    let before = (((k as u64 * ONES) | HIGHS) - running) & HIGHS;
    let byte = ((before >> 7).wrapping_mul(ONES) >> 56) as u32;
    let shift = byte * 8;
    let skipped = ((running << 8) >> shift) as u32 & 0xFF;
    let within = (k - skipped) as usize;
    shift + SELECT_IN_BYTE[(within & 7) << 8 | (w >> shift) as usize & 0xFF] as u32
}

/// Index of the k-th (0-based) set bit of byte `b`, which has more than k bits.
#[inline]
pub(crate) fn select8(b: u8, k: u32) -> u32 {
    SELECT_IN_BYTE[(k as usize & 7) << 8 | b as usize] as u32
}

/// `SELECT_IN_BYTE[k << 8 | b]`: the index of the k-th set bit of byte `b` (8 if none).
static SELECT_IN_BYTE: [u8; 2048] = select_table();

const fn select_table() -> [u8; 2048] {
    let mut t = [8u8; 2048];
    let mut b = 0;
    while b < 256 {
        let (mut bit, mut k) = (0, 0);
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[k << 8 | b] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
}

/// A gauntlet game: perfect information, two seats, a `standing` heuristic.
pub trait Gauntlet: Game {
    /// The spec's `standing(sim, seat)`: higher is better for `seat`, from the true board.
    fn standing(&self, seat: Seat) -> i32;
    /// `random`: exactly the move `rng.pick(&self.legal_moves())` draws, without the list.
    fn random_move(&self, rng: &mut Rng) -> Self::Move;
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
pub fn adjudicate<G: Gauntlet>(g: &G, ending: crate::game::Ending) -> Outcome {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain loop `select64` replaces.
    fn select_by_loop(mut w: u64, k: u32) -> u32 {
        for _ in 0..k {
            w &= w - 1;
        }
        w.trailing_zeros()
    }

    #[test]
    fn select8_agrees_with_the_bit_loop() {
        for b in 1..=255u8 {
            for k in 0..b.count_ones() {
                assert_eq!(select8(b, k), select_by_loop(b as u64, k), "{b:#x} {k}");
            }
        }
    }

    #[test]
    fn select64_agrees_with_the_bit_loop() {
        let mut rng = Rng::new(5);
        for round in 0..20_000 {
            // Sparse, dense and uniform words.
            let (a, b) = (rng.next_u64(), rng.next_u64());
            let w = match round % 3 {
                0 => a & b,
                1 => a | b,
                _ => a,
            };
            for k in 0..w.count_ones() {
                assert_eq!(select64(w, k), select_by_loop(w, k), "{w:#x} {k}");
            }
        }
        assert_eq!(select64(1 << 63, 0), 63);
        assert_eq!(select64(u64::MAX, 63), 63);
    }
}
