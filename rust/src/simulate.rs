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
use crate::game::{play_opening, Game};
use crate::policy::{Decide, Player};
use crate::registry::{dispatch, player_for, State, GAMES};
use crate::rng::{episode_seed, DecisionStreams};

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
        assert!(score.len() <= MOST_SEATS, "{} seats", score.len());
        let mut values = [0; MOST_SEATS];
        copy_short(&mut values, score);
        Scores {
            len: score.len() as u8,
            values,
        }
    }
}

/// Copy the first `min(dst.len(), src.len())` scores, element by element over the
/// fixed width: a copy of a length known only at run time calls `memcpy`, which
/// costs more than a few moves (and the simulator copies scores twice an episode).
#[inline]
fn copy_short(dst: &mut [i32], src: &[i32]) {
    for (i, d) in dst.iter_mut().enumerate().take(MOST_SEATS) {
        if let Some(&v) = src.get(i) {
            *d = v;
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
    /// Random legal plies each episode opens with (see [`crate::game::play_opening`]).
    pub openings: u32,
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

    /// Run every episode on `threads` worker threads (None: all cores), one record each.
    pub fn run(&self, threads: Option<usize>) -> CoreResult<Vec<EpisodeRecord>> {
        Ok(self.run_columns(threads)?.records())
    }

    /// Run every episode on `threads` worker threads (None: all cores; 1: this
    /// thread, no pool), the results written straight into their columns.
    pub fn run_columns(&self, threads: Option<usize>) -> CoreResult<Columns> {
        self.validate()?;
        let pool = match threads {
            Some(1) => None,
            t => Some(pool(t.unwrap_or(0))?),
        };
        let pool = pool.as_deref();
        let template = State::new(&self.game, &self.config, episode_seed(self.seed, 0))?;
        let seats = template.num_seats();
        if template.requested != "rotate" && restarts(&template) {
            return dispatch!(&template.inner, g => self.run_from(g, seats, pool));
        }
        self.fill(seats, pool, |i| self.episode(i))
    }

    /// Every episode restarted from one fresh state ([`Game::restart`]), with the
    /// baselines and the game's index resolved once for the whole batch.
    fn run_from<G: Game>(
        &self,
        fresh: &G,
        seats: usize,
        pool: Option<&rayon::ThreadPool>,
    ) -> CoreResult<Columns> {
        let policies = self
            .policies
            .iter()
            .map(|n| Player::new(n))
            .collect::<CoreResult<Vec<_>>>()?;
        let game = game_index(fresh.id());
        self.fill(seats, pool, |i| {
            let seed = episode_seed(self.seed, i);
            // Played where `restart` put it: unwrapping would copy the state once more.
            let mut start = fresh.restart(seed);
            let g = start.as_mut().expect("checked by `restarts`");
            Ok(play(g, &policies, seed, game, self.openings))
        })
    }

    /// Play episode `start + i` into row `i` of every column, on `pool` (None: this
    /// thread). Rows are disjoint, so the columns do not depend on the thread count.
    fn fill(
        &self,
        seats: usize,
        pool: Option<&rayon::ThreadPool>,
        episode: impl Fn(u64) -> CoreResult<EpisodeRecord> + Sync,
    ) -> CoreResult<Columns> {
        let rows = usize::try_from(self.episodes)
            .map_err(|_| CoreError::config("episodes", "too many for this machine"))?;
        let mut out = Columns::zeroed(rows, seats);
        let write = |(i, (((score, plies), ending), (game, seed))): Row<'_>| {
            let r = episode(self.start + i as u64)?;
            debug_assert_eq!(score.len(), r.score.len());
            copy_short(score, &r.score);
            (*plies, *ending, *game, *seed) = (r.plies, r.ending, r.game, r.seed);
            Ok(())
        };
        let Columns {
            score,
            plies,
            ending,
            game,
            seed,
            ..
        } = &mut out;
        match pool {
            None => score
                .chunks_mut(seats)
                .zip(plies.iter_mut())
                .zip(ending.iter_mut())
                .zip(game.iter_mut().zip(seed.iter_mut()))
                .enumerate()
                .try_for_each(write)?,
            Some(pool) => pool.install(|| {
                score
                    .par_chunks_mut(seats)
                    .zip(plies.par_iter_mut())
                    .zip(ending.par_iter_mut())
                    .zip(game.par_iter_mut().zip(seed.par_iter_mut()))
                    .enumerate()
                    .try_for_each(write)
            })?,
        }
        Ok(out)
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
            let mut g = g;
            Ok(play(&mut g, &policies, seed, game, self.openings))
        })
    }
}

/// Row `i` of [`Columns`] as [`Batch::fill`] writes it: its index, then its cells.
type Row<'a> = (
    usize,
    (
        ((&'a mut [i32], &'a mut u32), &'a mut u8),
        (&'a mut u8, &'a mut i64),
    ),
);

/// A batch's results by column, row `i` being episode `start + i` of the batch:
/// what the Python face hands numpy, each column as an array without a copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    pub seats: usize,
    /// `seats` scores per row, row after row.
    pub score: Vec<i32>,
    pub plies: Vec<u32>,
    pub ending: Vec<u8>,
    pub game: Vec<u8>,
    pub seed: Vec<i64>,
}

impl Columns {
    fn zeroed(rows: usize, seats: usize) -> Self {
        Columns {
            seats,
            score: vec![0; rows * seats],
            plies: vec![0; rows],
            ending: vec![0; rows],
            game: vec![0; rows],
            seed: vec![0; rows],
        }
    }

    /// Number of rows (episodes).
    pub fn len(&self) -> usize {
        self.plies.len()
    }

    pub fn is_empty(&self) -> bool {
        self.plies.is_empty()
    }

    /// The rows as records.
    pub fn records(&self) -> Vec<EpisodeRecord> {
        (0..self.len())
            .map(|i| EpisodeRecord {
                seed: self.seed[i],
                score: Scores::of(&self.score[i * self.seats..(i + 1) * self.seats]),
                plies: self.plies[i],
                ending: self.ending[i],
                game: self.game[i],
            })
            .collect()
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
/// The most worker threads a batch may ask for (a league file's limit too).
pub const MAX_THREADS: usize = 1024;

pub(crate) fn pool(threads: usize) -> CoreResult<Arc<rayon::ThreadPool>> {
    if threads > MAX_THREADS {
        // Each pool is kept for reuse: thousands of threads would cost seconds to
        // start and stay alive, for no speed.
        return Err(CoreError::config(
            "threads",
            format!("at most {MAX_THREADS} worker threads, got {threads}"),
        ));
    }
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
    play(&mut g, policies, seed, game, 0)
}

/// [`play_out`] in place, after `openings` random legal plies.
fn play<G: Game, P: Decide<G>>(
    g: &mut G,
    policies: &[P],
    seed: i64,
    game: u8,
    openings: u32,
) -> EpisodeRecord {
    play_opening(g, seed, openings);
    let streams = DecisionStreams::new(seed);
    while let Some(seat) = g.active_seat() {
        let mut rng = streams.at(g.decision_stream());
        let mv = policies[seat].decide(g, &mut rng);
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
            openings: 0,
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
    use crate::gauntlet::connect_four::ConnectFour;

    fn batch(game: &str, policies: &[&str], episodes: u64) -> Batch {
        Batch {
            game: game.into(),
            config: Value::Null,
            policies: policies.iter().map(|s| s.to_string()).collect(),
            start: 0,
            episodes,
            seed: 11,
            openings: 0,
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
        // One thread runs on the caller's thread, more on a pool; `rotate` builds
        // each episode through the registry, connect-four restarts one state.
        for (game, policies) in [
            ("connect-four", ["random", "tactician"]),
            ("rotate", ["tactician", "random"]),
        ] {
            let b = batch(game, &policies, 64);
            let one = b.run_columns(Some(1)).unwrap();
            assert_eq!(one, b.run_columns(Some(2)).unwrap(), "{game}");
            assert_eq!(one, b.run_columns(None).unwrap(), "{game}");
            assert_eq!(b.run(Some(2)).unwrap(), one.records(), "{game}");
        }
    }

    #[test]
    fn row_i_is_episode_start_plus_i_played_alone() {
        use crate::gauntlet::breakthrough::Breakthrough;
        let mut b = batch("breakthrough", &["random", "tactician"], 20);
        b.start = 7;
        let columns = b.run_columns(Some(1)).unwrap();
        assert_eq!((columns.len(), columns.score.len()), (20, 40));
        let players = [Player::new("random"), Player::new("tactician")].map(Result::unwrap);
        let game = game_index("breakthrough");
        for (i, row) in columns.records().into_iter().enumerate() {
            let seed = episode_seed(11, 7 + i as u64);
            assert_eq!(
                row,
                play_out(Breakthrough::new(), &players, seed, game),
                "{i}"
            );
        }
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
    fn openings_vary_deterministic_play_alike_in_both_seat_orders() {
        let mut b = batch("connect-four", &["tactician", "tactician"], 40);
        let plain = b.run(Some(1)).unwrap();
        b.openings = 4;
        let opened = b.run(Some(1)).unwrap();
        // the same opening ply by ply as the registry's state plays it
        for (i, rec) in opened.iter().enumerate() {
            let seed = episode_seed(11, i as u64);
            let mut s = State::new("connect-four", &Value::Null, seed).unwrap();
            let mut g = ConnectFour::new();
            play_opening(&mut g, seed, 4);
            for _ in 0..4 {
                let mv = s.opening_move().unwrap();
                s.apply(&mv).unwrap();
            }
            assert_eq!(s.legal_moves(), g.legal_names(), "{i}");
            assert!(rec.plies >= 4);
        }
        let lengths = |r: &[EpisodeRecord]| {
            r.iter()
                .map(|x| x.plies)
                .collect::<std::collections::BTreeSet<_>>()
                .len()
        };
        assert!(lengths(&opened) > lengths(&plain), "openings add variety");
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
