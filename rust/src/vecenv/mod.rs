//! The batched environment: n episodes of one game stepped in lockstep.
//!
//! Each env holds one live episode. `step` applies one action per env for the
//! seat to move, lets the built-in opponents (if any) answer until a learner
//! seat is to move again, and when an episode ends records its score and starts
//! the next one at once (automatic reset). Env `i`'s `k`-th episode is played on
//! `episode_seed(seed, k * n + i)` and every baseline decision draws from the
//! same per-decision stream as in `simulate` and `coworld play`, so results are
//! the same for any thread count. docs/vecenv.md is the user's guide.

pub mod rotation;
pub mod tensor;

use std::sync::Arc;

use rayon::prelude::*;
use serde_json::Value;

use crate::error::{CoreError, CoreResult};
use crate::game::{Game, Seat};
use crate::policy::Player;
use crate::registry::{AnyState, State};
use crate::rng::{episode_seed, Rng};
use rotation::Rotated;
use tensor::Tensor;

/// The output buffers of one batch (numpy arrays on the Python side), row-major.
pub struct Buffers<'a> {
    /// `n * obs_len`: the observation of the seat to move.
    pub obs: &'a mut [f32],
    /// `n * num_actions`: its legal actions.
    pub mask: &'a mut [bool],
    /// `n * seats`: each seat's score when the step ended an episode, else 0.
    pub rewards: &'a mut [f32],
    pub terminated: &'a mut [bool],
    /// Always false: every episode ends by the game's own rules (ply caps are rules).
    pub truncated: &'a mut [bool],
    /// The seat to move in the env's live episode.
    pub seat: &'a mut [i64],
    /// Ending code of the episode the step finished (`Ending::code`), else -1.
    pub ending: &'a mut [i8],
    /// `n * seats`: per seat, plies of the episode the step finished, else 0: the
    /// game's count where it is public, that seat's own decisions where it is not
    /// (fog: the total counts the opponent's collisions, which no seat is told; a
    /// seat the core plays reads 0).
    pub plies: &'a mut [i32],
    /// The game the env's live episode plays, as an index into `VecEnv::games`.
    pub game: &'a mut [i8],
}

/// One env's slice of every buffer.
struct Out<'a> {
    obs: &'a mut [f32],
    mask: &'a mut [bool],
    rewards: &'a mut [f32],
    terminated: &'a mut bool,
    truncated: &'a mut bool,
    seat: &'a mut i64,
    ending: &'a mut i8,
    plies: &'a mut [i32],
    game: &'a mut i8,
}

/// One env: its live episode and its own streams.
#[derive(Clone)]
struct Slot<G: Game> {
    index: usize,
    game: G,
    seed: i64,
    /// Episodes this env has started since the last reset.
    episodes: u64,
    /// Each learner seat's decisions in the live episode.
    decisions: Vec<u32>,
    /// The stream `sample_legal` draws from.
    rng: Rng,
    /// The live episode's legal action ids, as bits (checked against every action).
    legal: Vec<u64>,
    scratch: Vec<G::Move>,
}

/// The batch for one game type.
pub struct Envs<G: Tensor> {
    id: &'static str,
    config: Value,
    base_seed: i64,
    /// Envs in the batch (the slots are moved out while a step runs).
    n: usize,
    template: G,
    /// `Game::restart` builds this batch's episodes exactly as the registry does.
    direct: bool,
    /// `reset` has run: every env holds a live episode.
    started: bool,
    slots: Vec<Slot<G>>,
    /// Per seat: `None` for a learner seat, else the baseline (with its parameters) that plays it.
    opponents: Vec<Option<Player<G>>>,
    num_actions: usize,
    obs_len: usize,
    pool: Option<Arc<rayon::ThreadPool>>,
}

impl<G: Tensor> Envs<G> {
    fn new(
        id: &'static str,
        config: &Value,
        n: usize,
        seed: i64,
        opponents: &[Option<String>],
        threads: Option<usize>,
    ) -> CoreResult<Self> {
        let first = episode_seed(seed, 0);
        let template = Self::build(id, config, first)?;
        // A game that cannot restart itself (a forced Hanabi deal, the rotation), or
        // whose restart differs from the registry's build, goes through the registry.
        let direct = template.restart(first).is_some_and(|g| g == template);
        let seats = template.num_seats();
        let opponents = resolve_opponents(id, opponents, seats)?;
        let num_actions = template.num_actions();
        let obs_len = template.obs_shape().iter().product();
        let words = num_actions.div_ceil(64);
        let mut slots = Vec::new();
        slots.try_reserve_exact(n).map_err(|_| {
            CoreError::config("n", format!("not enough memory for {n} envs of {id}"))
        })?;
        slots.extend((0..n).map(|index| Slot {
            index,
            game: template.clone(),
            seed: 0,
            episodes: 0,
            decisions: vec![0; seats],
            rng: Rng::new(0),
            legal: vec![0; words],
            scratch: Vec::new(),
        }));
        let pool = match threads {
            Some(1) => None,
            t => Some(crate::simulate::pool(t.unwrap_or(0))?),
        };
        Ok(Envs {
            id,
            config: config.clone(),
            base_seed: seed,
            n,
            template,
            direct,
            started: false,
            slots,
            opponents,
            num_actions,
            obs_len,
            pool,
        })
    }

    fn build(id: &'static str, config: &Value, seed: i64) -> CoreResult<G> {
        G::from_any(State::new(id, config, seed)?.inner)
            .ok_or_else(|| CoreError::config("game", format!("{id} changed type")))
    }

    fn fresh(&self, seed: i64) -> G {
        if self.direct {
            return self
                .template
                .restart(seed)
                .expect("checked at construction");
        }
        Self::build(self.id, &self.config, seed).expect("the config was checked at construction")
    }

    /// Start env `slot`'s next episode and play the opponents up to a learner decision.
    fn start(&self, slot: &mut Slot<G>) {
        loop {
            let k = slot.episodes * self.n as u64 + slot.index as u64;
            slot.seed = episode_seed(self.base_seed, k);
            slot.episodes += 1;
            slot.decisions.fill(0);
            slot.game = self.fresh(slot.seed);
            self.play_opponents(slot);
            // An episode the opponents finish before any learner decides has no
            // decision to credit: it is played out and the next one starts.
            if !slot.game.is_terminal() {
                return;
            }
        }
    }

    fn play_opponents(&self, slot: &mut Slot<G>) {
        while let Some(seat) = slot.game.active_seat() {
            let Some(player) = &self.opponents[seat] else {
                return;
            };
            let mut rng = Rng::for_decision(slot.seed, slot.game.decision_stream());
            let mv = player.choose(&slot.game, &mut rng);
            slot.game.apply(mv);
        }
    }

    /// Write the observation, mask and seat of a live episode.
    fn observe(&self, slot: &mut Slot<G>, out: &mut Out) {
        let seat = slot
            .game
            .active_seat()
            .expect("a live episode has a seat to move");
        slot.game.write_obs(seat, out.obs);
        if let Some(bits) = slot.game.legal_bits() {
            debug_assert!(self.num_actions <= 64);
            slot.legal[0] = bits;
            for (a, m) in out.mask.iter_mut().enumerate() {
                *m = bits >> a & 1 == 1;
            }
        } else {
            out.mask.fill(false);
            slot.legal.fill(0);
            let legal = &mut slot.legal;
            slot.game.legal_ids(&mut slot.scratch, |a| {
                out.mask[a] = true;
                legal[a >> 6] |= 1 << (a & 63);
            });
        }
        *out.seat = seat as i64;
        *out.game = slot.game.game_index() as i8;
    }

    fn reset_one(&self, slot: &mut Slot<G>, mut out: Out) {
        slot.episodes = 0;
        slot.rng = Rng::new(self.base_seed ^ (slot.index as i64).wrapping_mul(0x2545_F491));
        self.start(slot);
        out.rewards.fill(0.0);
        *out.terminated = false;
        *out.truncated = false;
        *out.ending = -1;
        out.plies.fill(0);
        self.observe(slot, &mut out);
    }

    fn step_one(&self, slot: &mut Slot<G>, action: usize, mut out: Out) {
        let mv = slot
            .game
            .move_of(action)
            .expect("actions are checked first");
        if let Some(seat) = slot.game.active_seat() {
            slot.decisions[seat] += 1;
        }
        slot.game.apply(mv);
        self.play_opponents(slot);
        *out.truncated = false;
        match slot.game.outcome() {
            Some(o) => {
                for (r, &s) in out.rewards.iter_mut().zip(&o.score) {
                    *r = s as f32;
                }
                *out.terminated = true;
                *out.ending = o.ending.code() as i8;
                for (p, &own) in out.plies.iter_mut().zip(&slot.decisions) {
                    *p = if G::PRIVATE_PLIES {
                        own as i32
                    } else {
                        slot.game.plies() as i32
                    };
                }
                self.start(slot);
            }
            None => {
                out.rewards.fill(0.0);
                *out.terminated = false;
                *out.ending = -1;
                out.plies.fill(0);
            }
        }
        self.observe(slot, &mut out);
    }

    /// Every env's slices of `b`, in env order.
    fn outs<'a>(&self, b: &'a mut Buffers) -> impl Iterator<Item = Out<'a>> {
        let seats = self.template.num_seats();
        b.obs
            .chunks_mut(self.obs_len)
            .zip(b.mask.chunks_mut(self.num_actions))
            .zip(b.rewards.chunks_mut(seats))
            .zip(b.terminated.iter_mut())
            .zip(b.truncated.iter_mut())
            .zip(b.seat.iter_mut())
            .zip(b.ending.iter_mut())
            .zip(b.plies.chunks_mut(seats))
            .zip(b.game.iter_mut())
            .map(
                |(
                    (((((((obs, mask), rewards), terminated), truncated), seat), ending), plies),
                    game,
                )| {
                    Out {
                        obs,
                        mask,
                        rewards,
                        terminated,
                        truncated,
                        seat,
                        ending,
                        plies,
                        game,
                    }
                },
            )
    }

    /// Run `f` on every env with its slices, on the pool when there is one.
    fn each<F>(&mut self, b: &mut Buffers, f: F)
    where
        F: Fn(&Self, &mut Slot<G>, usize, Out) + Sync,
    {
        let outs = self.outs(b);
        let mut slots = std::mem::take(&mut self.slots);
        let this = &*self;
        match &this.pool {
            None => {
                for (i, (slot, out)) in slots.iter_mut().zip(outs).enumerate() {
                    f(this, slot, i, out);
                }
            }
            Some(pool) => pool.install(|| {
                slots
                    .par_iter_mut()
                    .zip(outs.collect::<Vec<_>>())
                    .enumerate()
                    .for_each(|(i, (slot, out))| f(this, slot, i, out));
            }),
        }
        self.slots = slots;
    }

    fn check_buffers(&self, b: &Buffers) -> CoreResult<()> {
        let n = self.n;
        let seats = self.template.num_seats();
        let ok = b.obs.len() == n * self.obs_len
            && b.mask.len() == n * self.num_actions
            && b.rewards.len() == n * seats
            && b.plies.len() == n * seats
            && [b.terminated.len(), b.truncated.len()] == [n, n]
            && [b.seat.len(), b.ending.len(), b.game.len()] == [n, n, n];
        ok.then_some(())
            .ok_or_else(|| CoreError::config("buffers", "buffer sizes do not match the batch"))
    }

    fn reset(&mut self, b: &mut Buffers) -> CoreResult<()> {
        self.check_buffers(b)?;
        self.each(b, |env, slot, _, out| env.reset_one(slot, out));
        self.started = true;
        Ok(())
    }

    fn step(&mut self, actions: &[i64], b: &mut Buffers) -> CoreResult<()> {
        self.check_started()?;
        self.check_buffers(b)?;
        self.check_actions(actions)?;
        self.each(b, |env, slot, i, out| {
            env.step_one(slot, actions[i] as usize, out)
        });
        Ok(())
    }

    fn check_started(&self) -> CoreResult<()> {
        self.started
            .then_some(())
            .ok_or_else(|| CoreError::config("reset", "call reset() before stepping or sampling"))
    }

    /// Every action must be legal in its env before any env moves.
    fn check_actions(&self, actions: &[i64]) -> CoreResult<()> {
        if actions.len() != self.slots.len() {
            return Err(CoreError::config(
                "actions",
                format!(
                    "one integer action id per env: shape ({},), got {} actions",
                    self.slots.len(),
                    actions.len()
                ),
            ));
        }
        for (slot, &a) in self.slots.iter().zip(actions) {
            let legal = (0..self.num_actions as i64).contains(&a)
                && slot.legal[a as usize >> 6] >> (a & 63) & 1 == 1;
            if !legal {
                return Err(self.illegal(slot, a));
            }
        }
        Ok(())
    }

    /// The name of game `k` of the batch's list (`VecEnv::games`).
    fn game_name(&self, k: usize) -> &'static str {
        if self.id == "rotate" {
            crate::catalog::rotation()[k]
        } else {
            self.id
        }
    }

    /// The refusal of action `a` in `slot`: what is wrong with it, and the
    /// env's legal ids with their move text (the live game's only, under `rotate`).
    #[cold]
    fn illegal(&self, slot: &Slot<G>, a: i64) -> CoreError {
        let g = &slot.game;
        let name =
            |id: usize| g.move_name(g.move_of(id).expect("ids below num_actions name moves"));
        let live = g.game_index();
        let what = match usize::try_from(a).ok().filter(|&id| id < self.num_actions) {
            None => format!(
                "action {a} is not an action id of {} (ids are 0..{})",
                self.id,
                self.num_actions - 1
            ),
            Some(id) if self.template.action_game(id) != live => format!(
                "action {a} ({}) is a {} id, but this env's live episode plays {}",
                name(id),
                self.game_name(self.template.action_game(id)),
                self.game_name(live)
            ),
            Some(id) => format!(
                "action {a} ({}) is not legal for seat {}",
                name(id),
                g.active_seat().unwrap_or(0)
            ),
        };
        let mut legal = Vec::new();
        for (wi, &word) in slot.legal.iter().enumerate() {
            let mut w = word;
            while w != 0 {
                let id = wi * 64 + w.trailing_zeros() as usize;
                legal.push(format!("{id} ({})", name(id)));
                w &= w - 1;
            }
        }
        CoreError::illegal(&a.to_string(), format!("env {}: {what}", slot.index), legal)
    }

    /// A uniformly random legal action per env, from its own stream.
    fn sample_legal(&mut self, out: &mut [i64]) -> CoreResult<()> {
        self.check_started()?;
        for (slot, o) in self.slots.iter_mut().zip(out.iter_mut()) {
            let count: u32 = slot.legal.iter().map(|w| w.count_ones()).sum();
            let mut k = slot.rng.below(count as usize) as u32;
            for (wi, &w) in slot.legal.iter().enumerate() {
                let c = w.count_ones();
                if k < c {
                    *o = (wi * 64) as i64 + crate::kernels::select::select64(w, k) as i64;
                    break;
                }
                k -= c;
            }
        }
        Ok(())
    }

    /// The game of every action id, as an index into `games`.
    fn action_games(&self) -> Vec<u8> {
        (0..self.num_actions)
            .map(|a| self.template.action_game(a) as u8)
            .collect()
    }

    fn action_names(&self) -> Vec<String> {
        let g = &self.template;
        (0..self.num_actions)
            .map(|a| g.move_name(g.move_of(a).expect("ids below num_actions name moves")))
            .collect()
    }
}

/// Per seat: `None` for a learner, else the named baseline. At least one learner.
/// The one place the batched environment looks a baseline up by name.
fn resolve_opponents<G: Tensor>(
    id: &str,
    names: &[Option<String>],
    seats: usize,
) -> CoreResult<Vec<Option<Player<G>>>> {
    if names.is_empty() {
        return Ok(vec![None; seats]);
    }
    if names.len() != seats {
        let got = names.len();
        let mut reason = format!(
            "{id} has {seats} seats: give one entry per seat (None for a learner), got {got}"
        );
        // A game with a seat-count setting (Hanabi) says how to change it.
        if let Some(e) = crate::catalog::entry(id)
            .ok()
            .filter(|e| e.settings.contains(&"seats"))
        {
            let (lo, hi) = (e.seats.min, e.seats.max);
            if (lo..=hi).contains(&got) {
                reason += &format!(
                    "; set config={{'seats': {got}}} (or leave `seats` out of config and \
                     the number of opponents entries sets it)"
                );
            } else {
                reason += &format!("; {id} takes {lo} to {hi} seats (config={{'seats': k}})");
            }
        }
        return Err(CoreError::config("opponents", reason));
    }
    if names.iter().all(Option::is_some) {
        return Err(CoreError::config(
            "opponents",
            "every seat is a baseline: leave at least one seat None for the learner",
        ));
    }
    names
        .iter()
        .enumerate()
        .map(|(seat, n)| {
            n.as_deref()
                .map(|name| Player::new(name).map_err(|e| in_seat(e, id, seat, name)))
                .transpose()
        })
        .collect()
}

/// A baseline name's error, placed: the seat and entry of `opponents` it came
/// from. A bad parameter keeps its key as the field; a bad name becomes `opponents`'s.
fn in_seat(e: CoreError, id: &str, seat: usize, name: &str) -> CoreError {
    match e {
        CoreError::Config { field, reason } => {
            let field = if field == "policy" {
                "opponents".to_string()
            } else {
                field
            };
            let reason = format!("opponents[{seat}] = {name:?} ({id}): {reason}");
            CoreError::Config { field, reason }
        }
        other => other,
    }
}

/// The config a batch builds its episodes with: for a game with a seat-count
/// setting (Hanabi), `opponents` of a length that game takes sets `seats`
/// when the config leaves it out. Every other game's config is unchanged.
fn with_implied_seats(game: &str, config: &Value, opponents: &[Option<String>]) -> Value {
    let n = opponents.len();
    let takes = crate::catalog::entry(game)
        .ok()
        .filter(|e| e.settings.contains(&"seats") && (e.seats.min..=e.seats.max).contains(&n));
    match (takes, config) {
        (Some(_), Value::Null) => serde_json::json!({ "seats": n }),
        (Some(_), Value::Object(m)) if !m.contains_key("seats") => {
            let mut m = m.clone();
            m.insert("seats".into(), n.into());
            Value::Object(m)
        }
        _ => config.clone(),
    }
}

/// The most envs one batch holds.
pub const MAX_ENVS: usize = 1 << 24;

macro_rules! vec_envs {
    ($($variant:ident($ty:ty)),* $(,)?) => {
        /// A batch of any game; `Rotate` plays the rotation's games behind one space.
        pub enum VecEnv { $($variant(Envs<$ty>),)* Rotate(Envs<Rotated>) }

        macro_rules! each_env {
            ($e:expr, $v:ident => $body:expr) => {
                match $e { $(VecEnv::$variant($v) => $body,)* VecEnv::Rotate($v) => $body }
            };
        }

        impl VecEnv {
            fn of(
                state: &AnyState,
                id: &'static str,
                config: &Value,
                n: usize,
                seed: i64,
                opponents: &[Option<String>],
                threads: Option<usize>,
            ) -> CoreResult<VecEnv> {
                Ok(match state {
                    $(AnyState::$variant(_) => {
                        VecEnv::$variant(Envs::new(id, config, n, seed, opponents, threads)?)
                    })*
                })
            }
        }
    };
}

vec_envs! {
    ConnectFour(crate::gauntlet::connect_four::ConnectFour),
    Breakthrough(crate::gauntlet::breakthrough::Breakthrough),
    Hex(crate::gauntlet::hex::Hex),
    Quoridor(crate::gauntlet::quoridor::Quoridor),
    Fog(crate::fog::FogState),
    Hanabi(crate::hanabi::Hanabi),
}

impl VecEnv {
    /// `n` envs of `game`. `opponents` is empty (every seat a learner) or one
    /// entry per seat; `threads` None uses every core.
    pub fn new(
        game: &str,
        config: &Value,
        n: usize,
        seed: i64,
        opponents: &[Option<String>],
        threads: Option<usize>,
    ) -> CoreResult<VecEnv> {
        if n == 0 {
            return Err(CoreError::config("n", "a batch needs at least one env"));
        }
        if n > MAX_ENVS {
            return Err(CoreError::config(
                "n",
                format!("a batch holds at most {MAX_ENVS} envs, not {n}"),
            ));
        }
        if threads == Some(0) {
            return Err(CoreError::config(
                "threads",
                "give a positive number of worker threads, or None for every core",
            ));
        }
        let config = &with_implied_seats(game, config, opponents);
        let probe = State::new(game, config, crate::rng::resolve_seed(seed))?;
        if probe.requested == "rotate" {
            let envs = Envs::new(probe.requested, config, n, seed, opponents, threads)?;
            return Ok(VecEnv::Rotate(envs));
        }
        VecEnv::of(
            &probe.inner,
            probe.requested,
            config,
            n,
            seed,
            opponents,
            threads,
        )
    }

    pub fn num_envs(&self) -> usize {
        each_env!(self, e => e.slots.len())
    }
    pub fn num_seats(&self) -> usize {
        each_env!(self, e => e.template.num_seats())
    }
    pub fn num_actions(&self) -> usize {
        each_env!(self, e => e.num_actions)
    }
    pub fn obs_shape(&self) -> Vec<usize> {
        each_env!(self, e => e.template.obs_shape())
    }
    pub fn game_id(&self) -> &'static str {
        each_env!(self, e => e.id)
    }
    /// The games episodes may play (`rotate`: the rotation, in order; else the game).
    pub fn games(&self) -> Vec<&'static str> {
        match self {
            VecEnv::Rotate(_) => crate::catalog::rotation().to_vec(),
            _ => vec![self.game_id()],
        }
    }
    /// The game of every action id, as an index into `games`.
    pub fn action_games(&self) -> Vec<u8> {
        each_env!(self, e => e.action_games())
    }
    /// The canonical move text of every action id, in id order.
    pub fn action_names(&self) -> Vec<String> {
        each_env!(self, e => e.action_names())
    }
    /// Seats played by the learner (every seat without an opponent).
    pub fn learner_seats(&self) -> Vec<Seat> {
        each_env!(self, e => (0..e.opponents.len()).filter(|&s| e.opponents[s].is_none()).collect())
    }
    pub fn reset(&mut self, b: &mut Buffers) -> CoreResult<()> {
        each_env!(self, e => e.reset(b))
    }
    pub fn step(&mut self, actions: &[i64], b: &mut Buffers) -> CoreResult<()> {
        each_env!(self, e => e.step(actions, b))
    }
    pub fn sample_legal(&mut self, out: &mut [i64]) -> CoreResult<()> {
        each_env!(self, e => e.sample_legal(out))
    }
}

/// The tensors of one registry state: observation of `seat` and the active seat's mask.
pub fn encode(state: &State, seat: Seat) -> CoreResult<(Vec<usize>, Vec<f32>, Vec<bool>)> {
    if seat >= state.num_seats() {
        return Err(CoreError::config(
            "seat",
            format!(
                "seat {seat} does not exist: {} has seats 0..{}",
                state.game_id(),
                state.num_seats() - 1
            ),
        ));
    }
    fn of<G: Tensor>(g: &G, seat: Seat) -> (Vec<usize>, Vec<f32>, Vec<bool>) {
        let shape = g.obs_shape();
        let mut obs = vec![0.0; shape.iter().product()];
        g.write_obs(seat, &mut obs);
        let mut mask = vec![false; g.num_actions()];
        g.legal_ids(&mut Vec::new(), |a| mask[a] = true);
        (shape, obs, mask)
    }
    if let Some(r) = rotated(state) {
        return Ok(of(&r, seat));
    }
    Ok(crate::registry::dispatch!(&state.inner, g => of(g, seat)))
}

/// The canonical move text of every action id of this state's game (`rotate`: the rotation's space).
pub fn action_names_of(state: &State) -> Vec<String> {
    fn of<G: Tensor>(g: &G) -> Vec<String> {
        (0..g.num_actions())
            .map(|a| g.move_name(g.move_of(a).expect("ids below num_actions name moves")))
            .collect()
    }
    match rotated(state) {
        Some(r) => of(&r),
        None => crate::registry::dispatch!(&state.inner, g => of(g)),
    }
}

/// A `rotate` state as the batch sees it (its tensors are the rotation's).
fn rotated(state: &State) -> Option<Rotated> {
    (state.requested == "rotate")
        .then(|| Rotated::from_any(state.inner.clone()))
        .flatten()
}

#[cfg(test)]
mod tests;
