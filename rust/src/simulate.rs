//! The batch simulator: whole episodes of scripted baselines, in parallel.
//!
//! Episode `i` of a batch uses `episode_seed(seed, i)` and its own decision
//! streams, so a batch gives the same numbers whatever the thread count, and
//! any single episode can be replayed alone (`coworld play --seed`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;
use serde_json::Value;

use crate::error::{CoreError, CoreResult};
use crate::game::Game;
use crate::policy::{Decide, Player};
use crate::registry::{dispatch, player_for, State, GAMES};
use crate::rng::{episode_seed, Rng};

/// One finished episode, flattened for numpy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpisodeRecord {
    pub seed: i64,
    pub score: Scores,
    pub plies: u32,
    pub ending: u8,
    /// Index into [`GAMES`] of the game actually played (`rotate` resolved).
    pub game: u8,
}

/// Most seats of any game in the catalogue (a test checks it).
const MOST_SEATS: usize = 5;

/// The scores of an episode, one per seat, stored inline: a batch keeps a
/// record per episode, and a heap allocation each costs more than a short
/// game's moves. Reads as a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scores {
    len: u8,
    values: [i32; MOST_SEATS],
}

impl Scores {
    pub fn of(score: &[i32]) -> Self {
        let mut values = [0; MOST_SEATS];
        values[..score.len()].copy_from_slice(score);
        Scores {
            len: score.len() as u8,
            values,
        }
    }
}

impl std::ops::Deref for Scores {
    type Target = [i32];
    fn deref(&self) -> &[i32] {
        &self.values[..self.len as usize]
    }
}

/// A batch request, checked before any episode starts.
#[derive(Clone, Debug)]
pub struct Batch {
    pub game: String,
    pub config: Value,
    pub policies: Vec<String>,
    /// Index of the first episode: a batch may resume a league part-way.
    pub start: u64,
    pub episodes: u64,
    pub seed: i64,
}

impl Batch {
    /// Fail fast on an unknown game, a bad config, a wrong seat count or an unknown baseline.
    pub fn validate(&self) -> CoreResult<()> {
        // Check against the first episode; every episode of a family has the same seats.
        // For `rotate`, check every game of the rotation (seeds 1..=n draw each once).
        let games = crate::catalog::entry(&self.game)?.rotation.len().max(1);
        for s in 1..=games as i64 {
            let state = State::new(&self.game, &self.config, s)?;
            let seats = state.num_seats();
            if self.policies.len() != seats {
                return Err(CoreError::config(
                    "policies",
                    format!(
                        "{} takes {seats} policies, one per seat; got {}",
                        state.game_id(),
                        self.policies.len()
                    ),
                ));
            }
            dispatch!(&state.inner, g => {
                for name in &self.policies {
                    player_for(g, name)?;
                }
            });
        }
        Ok(())
    }

    /// Run every episode on `threads` worker threads (None: all cores).
    pub fn run(&self, threads: Option<usize>) -> CoreResult<Vec<EpisodeRecord>> {
        self.validate()?;
        let pool = pool(threads.unwrap_or(0))?;
        let template = State::new(&self.game, &self.config, episode_seed(self.seed, 0))?;
        if template.requested != "rotate" && restarts(&template) {
            return dispatch!(&template.inner, g => self.run_from(g, &pool));
        }
        pool.install(|| {
            (self.start..self.start + self.episodes)
                .into_par_iter()
                .map(|i| self.episode(i))
                .collect()
        })
    }

    /// Every episode restarted from one fresh state ([`Game::restart`]), with the
    /// baselines and the game's index resolved once for the whole batch.
    fn run_from<G: Game>(
        &self,
        fresh: &G,
        pool: &rayon::ThreadPool,
    ) -> CoreResult<Vec<EpisodeRecord>> {
        let policies = self
            .policies
            .iter()
            .map(|n| Player::new(n))
            .collect::<CoreResult<Vec<_>>>()?;
        let game = game_index(fresh.id());
        Ok(pool.install(|| {
            (self.start..self.start + self.episodes)
                .into_par_iter()
                .map(|i| {
                    let seed = episode_seed(self.seed, i);
                    let start = fresh.restart(seed).expect("checked by `restarts`");
                    play_out(start, &policies, seed, game)
                })
                .collect()
        }))
    }

    /// Episode `index`, from a state built for its own seed.
    fn episode(&self, index: u64) -> CoreResult<EpisodeRecord> {
        let seed = episode_seed(self.seed, index);
        let inner = State::new(&self.game, &self.config, seed)?.inner;
        let game = dispatch!(&inner, g => game_index(g.id()));
        dispatch!(inner, g => {
            let policies = self
                .policies
                .iter()
                .map(|n| player_for(&g, n))
                .collect::<CoreResult<Vec<_>>>()?;
            Ok(play_out(g, &policies, seed, game))
        })
    }
}

/// Index into [`GAMES`] of a game id (every state's id is one: a miss is a bug).
fn game_index(id: &str) -> u8 {
    GAMES
        .iter()
        .position(|g| *g == id)
        .unwrap_or_else(|| panic!("{id:?} is not in registry::GAMES")) as u8
}

/// Can the game start this batch's episodes itself ([`Game::restart`])?
fn restarts(state: &State) -> bool {
    dispatch!(&state.inner, g => g.restart(state.seed).is_some())
}

/// A worker pool per thread count (0: every core), built once and kept: a league
/// calls the simulator once per chunk, and spawning threads each time would show.
pub(crate) fn pool(threads: usize) -> CoreResult<Arc<rayon::ThreadPool>> {
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(p) = pools.get(&threads) {
        return Ok(Arc::clone(p));
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CoreError::config("threads", e.to_string()))?;
    let built = Arc::new(built);
    pools.insert(threads, Arc::clone(&built));
    Ok(built)
}

/// Play one episode to its end with one baseline per seat.
pub fn play_out<G: Game, P: Decide<G>>(
    mut g: G,
    policies: &[P],
    seed: i64,
    game: u8,
) -> EpisodeRecord {
    while let Some(seat) = g.active_seat() {
        let mut rng = Rng::for_decision(seed, g.decision_stream());
        let mv = policies[seat].decide(&g, &mut rng);
        g.apply(mv);
    }
    let o = g.outcome().expect("a game with no active seat is settled");
    EpisodeRecord {
        seed,
        score: Scores::of(&o.score),
        plies: g.plies(),
        ending: o.ending.code(),
        game,
    }
}

/// Test support: `a`'s total score against `b` in a two-seat zero-sum game, over
/// `episodes` games in each seat order on the same seeds.
#[cfg(test)]
pub(crate) fn both_orders_total(game: &str, a: &str, b: &str, episodes: u64, seed: i64) -> f64 {
    let first_seat_sum = |policies: [&str; 2]| -> f64 {
        Batch {
            game: game.into(),
            config: Value::Null,
            policies: policies.iter().map(|s| s.to_string()).collect(),
            start: 0,
            episodes,
            seed,
        }
        .run(None)
        .unwrap()
        .iter()
        .map(|r| r.score[0] as f64)
        .sum()
    };
    first_seat_sum([a, b]) - first_seat_sum([b, a])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(game: &str, policies: &[&str], episodes: u64) -> Batch {
        Batch {
            game: game.into(),
            config: Value::Null,
            policies: policies.iter().map(|s| s.to_string()).collect(),
            start: 0,
            episodes,
            seed: 11,
        }
    }

    #[test]
    fn scores_hold_every_seat_of_every_game() {
        let most = crate::registry::CATALOG.iter().map(|e| e.seats.max).max();
        assert_eq!(most, Some(MOST_SEATS));
        assert_eq!(&*Scores::of(&[3, -1, 7]), &[3, -1, 7]);
    }

    #[test]
    fn thread_count_does_not_change_results() {
        let b = batch("connect-four", &["random", "tactician"], 64);
        assert_eq!(b.run(Some(1)).unwrap(), b.run(Some(2)).unwrap());
    }

    #[test]
    fn a_batch_split_in_two_equals_the_whole() {
        let whole = batch("connect-four", &["random", "random"], 40)
            .run(Some(2))
            .unwrap();
        let mut first = batch("connect-four", &["random", "random"], 25);
        let mut second = first.clone();
        first.episodes = 25;
        second.start = 25;
        second.episodes = 15;
        let mut parts = first.run(Some(1)).unwrap();
        parts.extend(second.run(Some(2)).unwrap());
        assert_eq!(whole, parts);
    }

    #[test]
    fn unknown_policy_and_wrong_seat_count_are_named() {
        let err = batch("connect-four", &["random", "gpt"], 1)
            .run(None)
            .unwrap_err();
        assert!(err.to_string().contains("tactician"), "{err}");
        let err = batch("connect-four", &["random"], 1).run(None).unwrap_err();
        assert!(
            matches!(err, CoreError::Config { ref field, .. } if field == "policies"),
            "{err}"
        );
    }

    #[test]
    fn tactician_beats_random_at_connect_four() {
        let recs = batch("connect-four", &["tactician", "random"], 200)
            .run(None)
            .unwrap();
        let mean: f64 = recs.iter().map(|r| r.score[0] as f64).sum::<f64>() / recs.len() as f64;
        assert!(mean > 0.5, "tactician mean score {mean}");
    }
}
