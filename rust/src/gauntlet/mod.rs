//! Board Gauntlet: four perfect-information two-seat games and the rotation.
//! Each game module owns its rules; this module owns what they share: the
//! `standing` contract, adjudication at the cap, and the `tactician` baseline.

pub mod breakthrough;
pub mod connect_four;
pub mod hex;
pub mod quoridor;

use serde_json::{json, Value};

use crate::game::{Game, Outcome, Seat};
use crate::rng::Rng;

/// The fixed rotation order: `rotate` plays `ROTATION[((seed % 4) + 4) % 4]`.
pub const ROTATION: [&str; 4] = ["connect-four", "breakthrough", "hex", "quoridor"];

/// The rotation index for a (resolved, non-zero) seed, negative seeds included.
pub fn rotation_index(seed: i64) -> usize {
    seed.rem_euclid(4) as usize
}

/// A gauntlet game: perfect information, two seats, a `standing` heuristic.
pub trait Gauntlet: Game {
    /// The spec's `standing(sim, seat)`: higher is better for `seat`, from the true board.
    fn standing(&self, seat: Seat) -> i32;
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
