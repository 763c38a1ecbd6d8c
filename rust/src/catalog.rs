//! The game catalogue: every fact about a game id that anything outside its
//! rules needs (Python, the league, the CLI, the viewer). Each game module
//! states its own entry; [`crate::registry::CATALOG`] lists them, and
//! `coworld.catalog()` serves them. Nothing else lists games.

use serde_json::{json, Value};

use crate::error::{CoreError, CoreResult};
use crate::game::Ending;

/// How many seats a game takes, and how many it gets when none are asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seats {
    pub min: usize,
    pub max: usize,
    pub default: usize,
}

impl Seats {
    pub const TWO: Seats = Seats {
        min: 2,
        max: 2,
        default: 2,
    };
}

/// The names of a two-seat game's seats: their colours, seat 0 first.
pub const TWO_SEAT_NAMES: &[&str] = &["red", "blue"];

/// The faces of a card game's cards: the colours, and ranks 1 to `ranks`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardFaces {
    pub colours: &'static [&'static str],
    pub ranks: u8,
}

/// Where a game comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A port of this OpenSpiel game (`phantom_ttt`, `connect_four`, ...).
    Port(&'static str),
    /// An original variant, named with the OpenSpiel game it is NOT a port of.
    Original { not_a_port_of: &'static str },
    /// `rotate`: plays one game of the rotation, drawn from the seed.
    Rotation,
}

impl Origin {
    /// The label configs, prompts and tables show.
    pub fn label(self) -> String {
        match self {
            Origin::Port(game) => format!("a port of OpenSpiel {game}"),
            Origin::Original { not_a_port_of } => {
                format!("original variant (not a port of OpenSpiel {not_a_port_of})")
            }
            Origin::Rotation => "one game of the rotation, drawn from the seed".to_string(),
        }
    }

    pub fn port(self) -> Option<&'static str> {
        match self {
            Origin::Port(game) => Some(game),
            _ => None,
        }
    }

    /// For an original variant, the OpenSpiel game it is not a port of.
    pub fn not_a_port_of(self) -> Option<&'static str> {
        match self {
            Origin::Original { not_a_port_of } => Some(not_a_port_of),
            _ => None,
        }
    }
}

/// One game id's catalogue entry.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub id: &'static str,
    /// The Python family module that prompts and reads its seats (`fog`, `gauntlet`, `hanabi`).
    pub family: &'static str,
    pub seats: Seats,
    /// The config keys it takes besides `game` and `seed`.
    pub settings: &'static [&'static str],
    /// Its scripted baselines: each name with the parameter keys it takes.
    pub baselines: fn() -> Vec<(&'static str, Vec<&'static str>)>,
    /// Every ending an episode of it can settle with.
    pub endings: &'static [Ending],
    /// Lowest and highest score a seat can get.
    pub score: (i32, i32),
    /// The most plies an episode plays.
    pub ply_cap: u32,
    /// True when a seat's `view_for` hides something (`view_for` differs from `view`).
    pub hidden: bool,
    pub origin: Origin,
    /// What `rotate` draws from, in order (empty for every other game).
    pub rotation: &'static [&'static str],
    /// The seats' names in seat order ([`TWO_SEAT_NAMES`]); empty where seats are
    /// only numbered (Hanabi).
    pub seat_names: &'static [&'static str],
    /// True when every seat gets the same score (Hanabi's shared fireworks).
    pub cooperative: bool,
    /// What its board holds, as a count of it is worded: `stones`, `pieces`, `pawns`,
    /// `cards` (None for `rotate`, which is whichever game it draws).
    pub pieces: Option<&'static str>,
    /// How a move is written: `cell` (`c3`), `file` (`d`), `from-to` (`b2-c3`),
    /// `cell-or-wall` (`e2`, `e3h`), `sense+cell` (`b2+c3`) or `card-action`
    /// (`play 1`, `hint 2 rank 3`); None for `rotate`.
    pub notation: Option<&'static str>,
    /// The `standing` gap that reads as a clear edge: the viewer's eval bar is 88%
    /// full at it (tanh of 1). None where the game keeps no `standing`.
    pub standing_scale: Option<u32>,
    /// Its card faces (Hanabi); None for board games.
    pub cards: Option<CardFaces>,
}

impl Entry {
    pub fn to_json(&self, in_rotation: bool) -> Value {
        let baselines: Vec<Value> = (self.baselines)()
            .into_iter()
            .map(|(name, keys)| json!({"name": name, "params": keys}))
            .collect();
        json!({
            "id": self.id,
            "family": self.family,
            "seats": {"min": self.seats.min, "max": self.seats.max, "default": self.seats.default},
            "settings": self.settings,
            "baselines": baselines,
            "endings": self.endings.iter().map(|e| e.name()).collect::<Vec<_>>(),
            "score": {"min": self.score.0, "max": self.score.1},
            "plyCap": self.ply_cap,
            "hidden": self.hidden,
            "port": self.origin.port(),
            "origin": self.origin.label(),
            "original": matches!(self.origin, Origin::Original { .. }),
            "notAPortOf": self.origin.not_a_port_of(),
            "inRotation": in_rotation,
            "rotation": self.rotation,
            "openings": self.openings(),
            "seatNames": self.seat_names,
            "cooperative": self.cooperative,
            "pieces": self.pieces,
            "notation": self.notation,
            "standingScale": self.standing_scale,
            "cards": self.cards.map(|c| json!({
                "colours": c.colours,
                "ranks": (1..=c.ranks).collect::<Vec<_>>(),
            })),
        })
    }

    /// Random legal plies a gate opens each seed pair with unless told otherwise:
    /// enough that deterministic policies meet thousands of distinct positions
    /// (7^4 in connect four, 49*48 in hex), too few to end a game; none for
    /// Hanabi, whose deal already varies every episode.
    pub fn openings(&self) -> u32 {
        match self.id {
            "hanabi" => 0,
            "connect-four" | "breakthrough" | "quoridor" | "rotate" => 4,
            _ => 2, // hex and the fog boards: two stones
        }
    }
}

/// The entry of a game id, or a config error naming the known ids.
pub fn entry(id: &str) -> CoreResult<&'static Entry> {
    crate::registry::CATALOG
        .iter()
        .find(|e| e.id == id)
        .ok_or_else(|| {
            CoreError::config(
                "game",
                format!(
                    "unknown game {id:?}; known games: {}",
                    crate::registry::GAMES.join(", ")
                ),
            )
        })
}

/// The ids `rotate` draws from, in the rotation order.
pub fn rotation() -> &'static [&'static str] {
    crate::registry::CATALOG
        .iter()
        .map(|e| e.rotation)
        .find(|r| !r.is_empty())
        .unwrap_or(&[])
}

/// The whole catalogue as JSON: `{"games": {id: entry, ...}, "order": [...], "rotation": [...]}`.
pub fn to_json() -> Value {
    let rot = rotation();
    let games: serde_json::Map<String, Value> = crate::registry::CATALOG
        .iter()
        .map(|e| (e.id.to_string(), e.to_json(rot.contains(&e.id))))
        .collect();
    json!({"games": games, "order": crate::registry::GAMES, "rotation": rot})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{State, CATALOG, GAMES};

    #[test]
    fn every_entry_matches_a_fresh_state() {
        for e in CATALOG.iter() {
            let s = State::new(e.id, &Value::Null, 3).unwrap();
            assert_eq!(s.num_seats(), e.seats.default, "{}", e.id);
            let names: Vec<_> = (e.baselines)().into_iter().map(|(n, _)| n).collect();
            assert_eq!(s.policy_names(), names, "{}", e.id);
            let hidden = (0..s.num_seats()).any(|seat| s.view_for(seat).unwrap() != s.view());
            assert_eq!(hidden, e.hidden, "{}", e.id);
            assert!(e.seats.min <= e.seats.default && e.seats.default <= e.seats.max);
            assert!(e.endings.contains(&Ending::WallClock), "{}", e.id);
        }
        assert_eq!(
            CATALOG.iter().map(|e| e.id).collect::<Vec<_>>(),
            GAMES.to_vec()
        );
    }

    #[test]
    fn rotation_members_are_games_and_rotate_resolves_into_them() {
        assert_eq!(
            rotation(),
            ["connect-four", "breakthrough", "hex", "quoridor"]
        );
        for seed in 1..=8 {
            let s = State::new("rotate", &Value::Null, seed).unwrap();
            assert_eq!(s.game_id(), rotation()[seed as usize % 4]);
        }
    }

    #[test]
    fn default_openings_never_end_a_game() {
        for e in CATALOG.iter() {
            for seed in 1..=200 {
                let mut s = State::new(e.id, &Value::Null, seed).unwrap();
                for _ in 0..e.openings() {
                    let mv = s.opening_move().expect("still live");
                    s.apply(&mv).unwrap();
                }
                assert!(!s.is_terminal(), "{} seed {seed}", e.id);
            }
        }
    }

    #[test]
    fn what_a_viewer_reads_fits_each_game() {
        for e in CATALOG.iter() {
            let s = State::new(e.id, &Value::Null, 3).unwrap();
            let drawn = !e.rotation.is_empty(); // rotate: whichever game the seed draws
            let standing = s.view().get("standing").is_some();
            assert_eq!(e.standing_scale.is_some(), standing && !drawn, "{}", e.id);
            assert_eq!(
                e.pieces.is_none() && e.notation.is_none(),
                drawn,
                "{}",
                e.id
            );
            let named = if e.cooperative { 0 } else { s.num_seats() };
            assert_eq!(e.seat_names.len(), named, "{}", e.id);
            assert_eq!(e.cards.is_some(), e.family == "hanabi", "{}", e.id);
        }
    }

    #[test]
    fn unknown_ids_are_refused_by_name() {
        let err = entry("chess").unwrap_err().to_string();
        assert!(err.contains("chess") && err.contains("hanabi"), "{err}");
    }

    #[test]
    fn recon_hex_is_labelled_an_original_variant() {
        let e = entry("recon-hex-5").unwrap();
        assert_eq!(e.origin.port(), None);
        assert_eq!(
            e.origin.label(),
            "original variant (not a port of OpenSpiel rbc)"
        );
        assert_eq!(
            entry("dark-hex-5").unwrap().origin.port(),
            Some("abrupt_dark_hex")
        );
    }
}
