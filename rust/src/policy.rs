//! Baselines by name, with parameters: `tactician`, `tactician?eps=0.3`,
//! `mcts?sims=1000&eps=0.1`. A name is parsed once into a [`Player`], which the
//! batch simulator calls per decision and `State::baseline_move` calls once.
//!
//! Every game lists its baselines in one table ([`Game::baselines`]): a name,
//! the parameter keys it takes besides `eps`, and how it moves. `eps` applies to
//! every baseline: with probability eps the seat plays a uniformly random legal
//! move, drawn from the same decision stream the baseline uses (so a fog seat's
//! choice stays a function of what it has seen), else the baseline's own move.
//! The full string is the policy's identity in leagues and replays.

use crate::error::{CoreError, CoreResult};
use crate::game::{Game, Policy};
use crate::rng::Rng;

/// The key every baseline takes.
pub const EPS: &str = "eps";

/// Largest `sims` a search baseline accepts (a move at a million simulations
/// already takes seconds; more is a typo, not a plan).
pub const MAX_SIMS: u32 = 1_000_000;

/// Parameters a search baseline reads; keys it does not take keep their default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Simulations per decision (`mcts`, `ismcts`).
    pub sims: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params { sims: 1000 }
    }
}

/// How a baseline moves: a plain function of the position and the decision's
/// stream, or one that also reads its parameters.
pub enum Act<G: Game> {
    Plain(Policy<G>),
    Tuned(fn(&G, &mut Rng, &Params) -> G::Move),
}

impl<G: Game> Clone for Act<G> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<G: Game> Copy for Act<G> {}

/// One row of a game's baseline table.
pub struct Baseline<G: Game> {
    pub name: &'static str,
    /// Parameter keys besides `eps`.
    pub keys: &'static [&'static str],
    pub act: Act<G>,
}

impl<G: Game> Baseline<G> {
    pub const fn plain(name: &'static str, act: Policy<G>) -> Self {
        Baseline {
            name,
            keys: &[],
            act: Act::Plain(act),
        }
    }
}

/// A name split into its baseline and its parameters, values checked.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyName<'a> {
    pub base: &'a str,
    pub eps: f64,
    pub params: Params,
    /// The keys given, in order (each at most once).
    pub given: Vec<&'a str>,
}

/// Parse `base?key=value&key=value`. Keys are checked against the baseline's
/// table later ([`Player::new`]); here only their values.
pub fn parse(name: &str) -> CoreResult<PolicyName<'_>> {
    let (base, query) = match name.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (name, None),
    };
    if base.is_empty() {
        return Err(CoreError::config(
            "policy",
            format!("{name:?} names no baseline before `?`"),
        ));
    }
    let mut out = PolicyName {
        base,
        eps: 0.0,
        params: Params::default(),
        given: Vec::new(),
    };
    for pair in query.map(|q| q.split('&')).into_iter().flatten() {
        let (key, value) = pair.split_once('=').ok_or_else(|| {
            CoreError::config(
                "policy",
                format!("{name:?}: parameter {pair:?} is not key=value"),
            )
        })?;
        if out.given.contains(&key) {
            return Err(CoreError::config(key, format!("given twice in {name:?}")));
        }
        match key {
            EPS => out.eps = parse_eps(value)?,
            "sims" => out.params.sims = parse_sims(value)?,
            _ => {}
        }
        out.given.push(key);
    }
    Ok(out)
}

fn parse_eps(value: &str) -> CoreResult<f64> {
    value
        .parse::<f64>()
        .ok()
        .filter(|e| (0.0..=1.0).contains(e))
        .ok_or_else(|| CoreError::config(EPS, format!("must be a number in 0..1, not {value:?}")))
}

fn parse_sims(value: &str) -> CoreResult<u32> {
    value
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_SIMS).contains(n))
        .ok_or_else(|| {
            CoreError::config(
                "sims",
                format!("must be an integer in 1..{MAX_SIMS}, not {value:?}"),
            )
        })
}

/// The row of `G`'s table named `base`, or a config error listing the names.
pub fn lookup<G: Game>(base: &str) -> CoreResult<&'static Baseline<G>> {
    G::baselines()
        .iter()
        .find(|b| b.name == base)
        .ok_or_else(|| {
            CoreError::config(
                "policy",
                format!(
                    "{base:?} is not a baseline of this game; baselines: {}",
                    names::<G>().join(", ")
                ),
            )
        })
}

/// `G`'s table as the catalogue lists it: each name with every key it takes
/// (`eps` first).
pub fn catalog_rows<G: Game>() -> Vec<(&'static str, Vec<&'static str>)> {
    G::baselines()
        .iter()
        .map(|b| {
            (
                b.name,
                std::iter::once(EPS).chain(b.keys.iter().copied()).collect(),
            )
        })
        .collect()
}

/// The names in `G`'s table, in order.
pub fn names<G: Game>() -> Vec<&'static str> {
    G::baselines().iter().map(|b| b.name).collect()
}

/// Every parameter key a baseline of `G` takes, `eps` first.
pub fn keys<G: Game>(base: &str) -> CoreResult<Vec<&'static str>> {
    let row = lookup::<G>(base)?;
    Ok(std::iter::once(EPS)
        .chain(row.keys.iter().copied())
        .collect())
}

/// A baseline with its parameters, ready to move: built once per batch.
pub struct Player<G: Game> {
    act: Act<G>,
    params: Params,
    eps: f64,
}

impl<G: Game> Clone for Player<G> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<G: Game> Copy for Player<G> {}

impl<G: Game> Player<G> {
    /// Parse and check a full policy name against `G`'s table.
    pub fn new(name: &str) -> CoreResult<Self> {
        let parsed = parse(name)?;
        let row = lookup::<G>(parsed.base)?;
        if let Some(bad) = parsed
            .given
            .iter()
            .find(|k| **k != EPS && !row.keys.contains(k))
        {
            let takes = keys::<G>(parsed.base)?.join(", ");
            return Err(CoreError::config(
                *bad,
                format!("not a parameter of {}; it takes: {takes}", row.name),
            ));
        }
        Ok(Player {
            act: row.act,
            params: parsed.params,
            eps: parsed.eps,
        })
    }

    /// The move for the active seat. With eps > 0 the first draw of the stream
    /// decides between a uniform legal move and the baseline's.
    #[inline]
    pub fn choose(&self, g: &G, rng: &mut Rng) -> G::Move {
        if self.eps > 0.0 && rng.unit() < self.eps {
            return crate::game::random_policy(g, rng);
        }
        match self.act {
            Act::Plain(f) => f(g, rng),
            Act::Tuned(f) => f(g, rng, &self.params),
        }
    }
}

/// Anything that picks a move per decision: a [`Player`] or a bare [`Policy`].
pub trait Decide<G: Game> {
    fn decide(&self, g: &G, rng: &mut Rng) -> G::Move;
}

impl<G: Game> Decide<G> for Player<G> {
    #[inline]
    fn decide(&self, g: &G, rng: &mut Rng) -> G::Move {
        self.choose(g, rng)
    }
}

impl<G: Game> Decide<G> for Policy<G> {
    #[inline]
    fn decide(&self, g: &G, rng: &mut Rng) -> G::Move {
        self(g, rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gauntlet::connect_four::ConnectFour;

    fn field_of(e: CoreError) -> String {
        match e {
            CoreError::Config { field, .. } => field,
            other => panic!("not a config error: {other}"),
        }
    }

    #[test]
    fn names_parse_into_base_and_values() {
        let p = parse("mcts?sims=250&eps=0.25").unwrap();
        assert_eq!(p.base, "mcts");
        assert_eq!(p.params.sims, 250);
        assert_eq!(p.eps, 0.25);
        assert_eq!(p.given, vec!["sims", "eps"]);
        let plain = parse("tactician").unwrap();
        assert_eq!((plain.base, plain.eps), ("tactician", 0.0));
        assert!(plain.given.is_empty());
    }

    #[test]
    fn bad_values_and_unknown_keys_name_the_key() {
        for (name, key) in [
            ("tactician?eps=1.5", "eps"),
            ("tactician?eps=x", "eps"),
            ("tactician?eps=-0.1", "eps"),
            ("tactician?eps=0.1&eps=0.2", "eps"),
            ("mcts?sims=0", "sims"),
            ("mcts?sims=2.5", "sims"),
            ("tactician?sims=10", "sims"),
            ("tactician?depth=3", "depth"),
            ("tactician?eps", "policy"),
            ("?eps=0.1", "policy"),
            ("minimax", "policy"),
        ] {
            let err = Player::<ConnectFour>::new(name).err().expect(name);
            assert_eq!(field_of(err), key, "{name}");
        }
    }

    #[test]
    fn eps_zero_plays_the_baseline_and_eps_one_plays_uniformly() {
        let g = ConnectFour::new();
        let plain = Player::<ConnectFour>::new("tactician").unwrap();
        let zero = Player::<ConnectFour>::new("tactician?eps=0").unwrap();
        let one = Player::<ConnectFour>::new("tactician?eps=1").unwrap();
        let mut counts = [0u32; 7];
        for ply in 0..700 {
            let a = plain.choose(&g, &mut Rng::for_decision(3, ply));
            let b = zero.choose(&g, &mut Rng::for_decision(3, ply));
            assert_eq!(a, b);
            let c = one.choose(&g, &mut Rng::for_decision(3, ply));
            counts[g.legal_moves().iter().position(|m| *m == c).unwrap()] += 1;
        }
        // Uniform over 7 files: each about 100 of 700.
        assert!(counts.iter().all(|&n| (60..140).contains(&n)), "{counts:?}");
    }

    #[test]
    fn keys_list_eps_first() {
        assert_eq!(keys::<ConnectFour>("tactician").unwrap(), vec!["eps"]);
        assert!(keys::<ConnectFour>("nope").is_err());
    }
}
