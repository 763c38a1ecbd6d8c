//! Every game id, one enum over every state type, and the text-level API the
//! Python layer and the batch simulator share. Adding a game: its entry in
//! [`CATALOG`], its state type in `games!` below (unless it shares one) and its
//! constructor arm in `build`.

use serde_json::{json, Value};

use crate::catalog::Entry;
use crate::error::{CoreError, CoreResult};
use crate::fog::{self, FogState};
use crate::game::{Game, Seat};
use crate::gauntlet::{
    self, breakthrough::Breakthrough, connect_four::ConnectFour, hex::Hex, quoridor::Quoridor,
    Gauntlet,
};
use crate::hanabi::{self as hanabi_game, Hanabi};
use crate::policy::Player;
use crate::rng::{resolve_seed, Rng};

/// Every game's catalogue entry, each stated by its own module, in the order
/// `simulate` reports them in its `game` column.
pub const CATALOG: [Entry; 10] = [
    fog::VARIANTS[0].entry(),
    fog::VARIANTS[1].entry(),
    fog::VARIANTS[2].entry(),
    fog::VARIANTS[3].entry(),
    gauntlet::connect_four::ENTRY,
    gauntlet::breakthrough::ENTRY,
    gauntlet::hex::ENTRY,
    gauntlet::quoridor::ENTRY,
    gauntlet::ROTATE,
    hanabi_game::ENTRY,
];

/// Canonical ids, in catalogue order.
pub const GAMES: [&str; CATALOG.len()] = ids();

const fn ids() -> [&'static str; CATALOG.len()] {
    let mut out = [""; CATALOG.len()];
    let mut i = 0;
    while i < CATALOG.len() {
        out[i] = CATALOG[i].id;
        i += 1;
    }
    out
}

macro_rules! games {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        /// The state of any game.
        #[derive(Clone, Debug)]
        pub enum AnyState { $($variant($ty)),* }

        /// Run `$body` with `$g` bound to the concrete state.
        macro_rules! dispatch {
            ($s:expr, $g:ident => $body:expr) => {
                match $s { $($crate::registry::AnyState::$variant($g) => $body),* }
            };
        }
    };
}

games! {
    ConnectFour(ConnectFour),
    Breakthrough(Breakthrough),
    Hex(Hex),
    Quoridor(Quoridor),
    Fog(FogState),
    Hanabi(Hanabi),
}

/// A game in progress, with the config and seed that make it re-derivable.
#[derive(Clone, Debug)]
pub struct State {
    /// The id that was asked for (`rotate` stays `rotate`).
    pub requested: &'static str,
    /// The concrete seed (never 0).
    pub seed: i64,
    /// The full config as recorded in a replay header.
    pub config: Value,
    /// The settings as given (what `State::new` needs to rebuild this episode).
    pub settings: Value,
    /// Canonical text of every move applied, in order.
    pub moves: Vec<String>,
    /// Guesses recorded (fog), each with the number of moves applied before it,
    /// so a rebuilt state re-records them at the same plies.
    pub guesses: Vec<(usize, Vec<String>)>,
    pub inner: AnyState,
}

fn canonical_id(id: &str) -> CoreResult<&'static str> {
    crate::catalog::entry(id).map(|e| e.id)
}

/// Reject config keys a game does not take, naming the field.
fn check_keys(config: &Value, allowed: &[&str]) -> CoreResult<()> {
    match config {
        Value::Null => Ok(()),
        Value::Object(m) => {
            for k in m.keys() {
                if !allowed.contains(&k.as_str()) {
                    let ok = if allowed.is_empty() {
                        "none".to_string()
                    } else {
                        allowed.join(", ")
                    };
                    return Err(CoreError::config(
                        k,
                        format!("not a setting of this game; settings: {ok}"),
                    ));
                }
            }
            Ok(())
        }
        _ => Err(CoreError::config("config", "must be an object")),
    }
}

fn build(id: &'static str, config: &Value, seed: i64) -> CoreResult<(AnyState, Value)> {
    match id {
        "connect-four" => Ok((AnyState::ConnectFour(ConnectFour::new()), json!({}))),
        _ if fog::variant(id).is_some() => {
            let v = fog::variant(id).expect("checked by the guard");
            Ok((AnyState::Fog(FogState::new(v)), v.config()))
        }
        "hanabi" => {
            let range = hanabi_game::ENTRY.seats;
            let seats = match config.get("seats") {
                None => range.default,
                Some(v) => v
                    .as_u64()
                    .map(|n| n as usize)
                    .filter(|n| (range.min..=range.max).contains(n))
                    .ok_or_else(|| {
                        let (lo, hi) = (range.min, range.max);
                        CoreError::config(
                            "seats",
                            format!("hanabi takes {lo} to {hi} seats, not {v}"),
                        )
                    })?,
            };
            let game = match config.get("deck") {
                None => Hanabi::new(seats, seed),
                Some(v) => {
                    let names: Vec<String> = serde_json::from_value(v.clone())
                        .map_err(|_| CoreError::config("deck", "a list of 50 card names"))?;
                    let deck = hanabi_game::deck_from_names(&names)
                        .map_err(|e| CoreError::config("deck", e))?;
                    Hanabi::from_deck(seats, deck)
                }
            };
            let mut settings = json!({ "seats": seats });
            if let Some(deck) = config.get("deck") {
                settings["deck"] = deck.clone();
            }
            Ok((AnyState::Hanabi(game), settings))
        }
        "breakthrough" => Ok((AnyState::Breakthrough(Breakthrough::new()), json!({}))),
        "hex" => Ok((AnyState::Hex(Hex::new()), json!({}))),
        "quoridor" => Ok((AnyState::Quoridor(Quoridor::new()), json!({}))),
        _ => Err(CoreError::config(
            "game",
            format!("{id} has no constructor"),
        )),
    }
}

impl State {
    /// A fresh episode. Seed 0 draws one; the drawn seed is recorded.
    pub fn new(id: &str, config: &Value, seed: i64) -> CoreResult<State> {
        let requested = canonical_id(id)?;
        let seed = resolve_seed(seed);
        let resolved = if requested == "rotate" {
            gauntlet::ROTATE.rotation[gauntlet::rotation_index(seed)]
        } else {
            requested
        };
        check_keys(config, crate::catalog::entry(requested)?.settings)?;
        let settings = if requested == "rotate" {
            &Value::Null
        } else {
            config
        };
        let (inner, mut game_config) = build(resolved, settings, seed)?;
        let obj = game_config.as_object_mut().expect("config is an object");
        let mut full = serde_json::Map::new();
        full.insert("game".into(), json!(requested));
        if requested == "rotate" {
            full.insert("resolvedGame".into(), json!(resolved));
        }
        full.insert("seed".into(), json!(seed));
        full.insert("first".into(), json!(0));
        full.append(obj);
        Ok(State {
            requested,
            seed,
            config: Value::Object(full),
            settings: config.clone(),
            moves: Vec::new(),
            guesses: Vec::new(),
            inner,
        })
    }

    /// The id actually being played (`rotate` resolved).
    pub fn game_id(&self) -> &'static str {
        dispatch!(&self.inner, g => g.id())
    }
    pub fn num_seats(&self) -> usize {
        dispatch!(&self.inner, g => g.num_seats())
    }
    pub fn active_seat(&self) -> Option<Seat> {
        dispatch!(&self.inner, g => g.active_seat())
    }
    pub fn is_terminal(&self) -> bool {
        dispatch!(&self.inner, g => g.is_terminal())
    }
    pub fn plies(&self) -> u32 {
        dispatch!(&self.inner, g => g.plies())
    }
    pub fn legal_moves(&self) -> Vec<String> {
        dispatch!(&self.inner, g => g.legal_names())
    }
    /// The canonical legal move a text names, or why it names none.
    pub fn read_move(&self, text: &str) -> CoreResult<String> {
        dispatch!(&self.inner, g => g.read_move(text).map(|m| g.move_name(m)))
    }
    /// Apply a move given as text; on error the state is unchanged.
    pub fn apply(&mut self, text: &str) -> CoreResult<String> {
        let name = dispatch!(&mut self.inner, g => g.try_apply(text).map(|m| g.move_name(m)))?;
        self.moves.push(name.clone());
        Ok(name)
    }
    /// Record the active seat's guess for the coming ply (see [`Game::record_guess`]).
    pub fn record_guess(&mut self, cells: &[String]) -> CoreResult<()> {
        dispatch!(&mut self.inner, g => g.record_guess(cells))?;
        self.guesses.push((self.moves.len(), cells.to_vec()));
        Ok(())
    }
    /// Rebuild an episode from its recorded moves and guesses.
    pub fn replay(
        id: &str,
        config: &Value,
        seed: i64,
        moves: &[String],
        guesses: &[(usize, Vec<String>)],
    ) -> CoreResult<State> {
        let mut s = State::new(id, config, seed)?;
        let mut pending = guesses.iter().peekable();
        for (i, m) in moves.iter().enumerate() {
            while let Some((_, cells)) = pending.next_if(|(at, _)| *at == i) {
                s.record_guess(cells)?;
            }
            s.apply(m)?;
        }
        for (_, cells) in pending {
            s.record_guess(cells)?;
        }
        Ok(s)
    }
    pub fn settle_deadline(&mut self) {
        dispatch!(&mut self.inner, g => g.settle_deadline())
    }
    pub fn view(&self) -> Value {
        dispatch!(&self.inner, g => g.view())
    }
    pub fn view_for(&self, seat: Seat) -> CoreResult<Value> {
        self.check_seat(seat)?;
        Ok(dispatch!(&self.inner, g => g.view_for(seat)))
    }
    pub fn results(&self) -> Option<Value> {
        dispatch!(&self.inner, g => g.results())
    }
    /// Gauntlet `standing`; `None` for families that have none.
    pub fn standing(&self, seat: Seat) -> CoreResult<Option<i32>> {
        self.check_seat(seat)?;
        Ok(match &self.inner {
            AnyState::ConnectFour(g) => Some(g.standing(seat)),
            AnyState::Breakthrough(g) => Some(g.standing(seat)),
            AnyState::Hex(g) => Some(g.standing(seat)),
            AnyState::Quoridor(g) => Some(g.standing(seat)),
            #[allow(unreachable_patterns)]
            _ => None,
        })
    }
    /// The baselines this game fields (names without parameters).
    pub fn policy_names(&self) -> Vec<&'static str> {
        dispatch!(&self.inner, _g => policy_names_of(_g))
    }
    /// The move the named baseline (parameters included, `mcts?sims=100`) plays
    /// here; its random draws come from this decision's stream.
    pub fn baseline_move(&self, name: &str) -> CoreResult<String> {
        if self.is_terminal() {
            return Err(CoreError::illegal(name, "the game is over", vec![]));
        }
        dispatch!(&self.inner, g => {
            let mut rng = Rng::for_decision(self.seed, g.decision_stream());
            let player = player_for(g, name)?;
            Ok(g.move_name(player.choose(g, &mut rng)))
        })
    }
    /// The next opening ply ([`crate::game::opening_move`]), or None once settled.
    pub fn opening_move(&self) -> Option<String> {
        if self.is_terminal() {
            return None;
        }
        dispatch!(&self.inner, g => Some(g.move_name(crate::game::opening_move(g, self.seed))))
    }
    /// Check a policy name (baseline and parameters) against this game.
    pub fn check_baseline(&self, name: &str) -> CoreResult<()> {
        dispatch!(&self.inner, g => player_for(g, name).map(|_| ()))
    }

    fn check_seat(&self, seat: Seat) -> CoreResult<()> {
        let n = self.num_seats();
        if seat >= n {
            return Err(CoreError::config(
                "seat",
                format!("seat {seat} does not exist; seats are 0..{}", n - 1),
            ));
        }
        Ok(())
    }
}

fn policy_names_of<G: Game>(_g: &G) -> Vec<&'static str> {
    G::policy_names()
}

/// A baseline with its parameters for this game type, or a config error naming
/// the unknown baseline or the bad key.
pub fn player_for<G: Game>(_g: &G, name: &str) -> CoreResult<Player<G>> {
    Player::new(name)
}

/// The parameter keys baseline `base` of `game` takes, `eps` first: what the
/// catalogue lists per baseline.
pub fn baseline_param_keys(game: &str, base: &str) -> CoreResult<Vec<&'static str>> {
    let state = State::new(game, &Value::Null, 1)?;
    fn of<G: Game>(_g: &G, base: &str) -> CoreResult<Vec<&'static str>> {
        crate::policy::keys::<G>(base)
    }
    dispatch!(&state.inner, g => of(g, base))
}

pub(crate) use dispatch;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_game_names_the_known_ones() {
        let err = State::new("chess", &Value::Null, 1).unwrap_err();
        assert!(err.to_string().contains("connect-four"), "{err}");
    }

    #[test]
    fn every_game_id_builds_and_plays_a_move() {
        for id in GAMES {
            let mut s = State::new(id, &Value::Null, 7).unwrap_or_else(|e| panic!("{id}: {e}"));
            let first = s.legal_moves()[0].clone();
            s.apply(&first).unwrap();
            assert_eq!(s.plies(), 1, "{id}");
        }
    }

    #[test]
    fn seed_zero_is_drawn_and_recorded() {
        let s = State::new("connect-four", &Value::Null, 0).unwrap();
        assert_ne!(s.seed, 0);
        assert_eq!(s.config["seed"], json!(s.seed));
        assert_eq!(s.config["first"], json!(0));
    }

    #[test]
    fn bad_config_key_is_named() {
        let err = State::new("connect-four", &json!({"size": 9}), 1).unwrap_err();
        assert!(
            matches!(err, CoreError::Config { ref field, .. } if field == "size"),
            "{err}"
        );
    }

    #[test]
    fn apply_rejects_and_keeps_state() {
        let mut s = State::new("connect-four", &Value::Null, 1).unwrap();
        assert!(s.apply("z9").is_err());
        assert_eq!(s.plies(), 0);
        assert_eq!(s.apply("4").unwrap(), "d");
        assert_eq!(s.moves, vec!["d".to_string()]);
    }
}
