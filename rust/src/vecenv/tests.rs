use std::collections::HashSet;

use serde_json::{json, Value};

use super::*;
use crate::registry::{dispatch, GAMES};

/// Owned buffers for `n` envs of `env`.
struct Owned {
    obs: Vec<f32>,
    mask: Vec<bool>,
    rewards: Vec<f32>,
    terminated: Vec<bool>,
    truncated: Vec<bool>,
    seat: Vec<i64>,
    ending: Vec<i8>,
    plies: Vec<i32>,
    game: Vec<i8>,
}

impl Owned {
    fn new(env: &VecEnv) -> Self {
        let n = env.num_envs();
        let obs: usize = env.obs_shape().iter().product();
        Owned {
            obs: vec![0.0; n * obs],
            mask: vec![false; n * env.num_actions()],
            rewards: vec![0.0; n * env.num_seats()],
            terminated: vec![false; n],
            truncated: vec![false; n],
            seat: vec![0; n],
            ending: vec![0; n],
            plies: vec![0; n * env.num_seats()],
            game: vec![0; n],
        }
    }
    fn buffers(&mut self) -> Buffers<'_> {
        Buffers {
            obs: &mut self.obs,
            mask: &mut self.mask,
            rewards: &mut self.rewards,
            terminated: &mut self.terminated,
            truncated: &mut self.truncated,
            seat: &mut self.seat,
            ending: &mut self.ending,
            plies: &mut self.plies,
            game: &mut self.game,
        }
    }
}

fn games() -> impl Iterator<Item = &'static str> {
    GAMES.into_iter().filter(|g| *g != "rotate")
}

#[test]
fn every_action_id_names_a_distinct_move_that_reads_back() {
    for id in games() {
        let s = State::new(id, &Value::Null, 3).unwrap();
        let names = action_names_of(&s);
        let distinct: HashSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{id}: duplicate names");
        // Every legal move of a random playthrough has an id whose name is the move.
        let mut s = s;
        let mut rng = Rng::new(5);
        while !s.is_terminal() {
            let (_, _, mask) = encode(&s, s.active_seat().unwrap()).unwrap();
            let legal = s.legal_moves();
            let from_mask: Vec<&String> = (0..mask.len())
                .filter(|&a| mask[a])
                .map(|a| &names[a])
                .collect();
            let mut sorted_legal: Vec<&String> = legal.iter().collect();
            sorted_legal.sort();
            let mut sorted_mask = from_mask.clone();
            sorted_mask.sort();
            assert_eq!(sorted_mask, sorted_legal, "{id} at ply {}", s.plies());
            let mv = legal[rng.below(legal.len())].clone();
            s.apply(&mv).unwrap();
        }
    }
}

#[test]
fn action_space_sizes_are_the_documented_ones() {
    let sizes: Vec<(&str, usize)> = games()
        .map(|id| {
            let s = State::new(id, &Value::Null, 1).unwrap();
            (id, action_names_of(&s).len())
        })
        .collect();
    // Breakthrough: every on-board one-rank step (straight or diagonal, either way).
    let bt_steps: usize = (0..36)
        .map(|c: usize| {
            let (f, r) = ((c % 6) as i32, (c / 6) as i32);
            let files = [f - 1, f, f + 1]
                .iter()
                .filter(|x| (0..6).contains(*x))
                .count();
            let ranks = [r - 1, r + 1]
                .iter()
                .filter(|x| (0..6).contains(*x))
                .count();
            files * ranks
        })
        .sum();
    let expected = [
        ("phantom-ttt-3", 9),
        ("dark-hex-4", 16),
        ("dark-hex-5", 25),
        ("recon-hex-5", 625),
        ("connect-four", 7),
        ("breakthrough", bt_steps),
        ("hex", 49),
        ("quoridor", 81 + 64 + 64),
        ("hanabi", 10 + 10 * 4),
    ];
    assert_eq!(sizes, expected.to_vec());
}

#[test]
fn stepping_or_sampling_before_reset_is_refused() {
    let mut env = VecEnv::new("hanabi", &Value::Null, 2, 1, &[], Some(1)).unwrap();
    let mut b = Owned::new(&env);
    let err = env.sample_legal(&mut [0, 0]).unwrap_err();
    assert!(err.to_string().contains("call reset()"), "{err}");
    assert!(env.step(&[0, 0], &mut b.buffers()).is_err());
}

/// Every `rotate` episode plays the game the registry resolves from its seed
/// (`episode_seed(seed, k * n + i)`), against the baseline exactly as
/// `coworld play` would, and its tensors are the member's, padded.
#[test]
fn rotate_episodes_play_the_game_their_seed_draws() {
    let (n, seed) = (5, 33);
    let opponents = [None, Some("tactician".to_string())];
    let mut env = VecEnv::new("rotate", &Value::Null, n, seed, &opponents, Some(1)).unwrap();
    assert_eq!(env.games(), crate::catalog::rotation());
    let names = env.action_names();
    let games = env.action_games();
    let mut b = Owned::new(&env);
    env.reset(&mut b.buffers()).unwrap();
    let registry = |k: u64| State::new("rotate", &Value::Null, episode_seed(seed, k)).unwrap();
    let mut live: Vec<State> = (0..n as u64).map(registry).collect();
    let mut episodes = vec![0u64; n];
    let mut actions = vec![0i64; n];
    let (a, len) = (env.num_actions(), b.obs.len() / n);
    let mut played = HashSet::new();
    for _ in 0..300 {
        for (i, s) in live.iter().enumerate() {
            assert_eq!(env.games()[b.game[i] as usize], s.game_id());
            played.insert(s.game_id());
            let (_, obs, mask) = encode(s, 0).unwrap();
            assert_eq!(&b.obs[i * len..(i + 1) * len], obs.as_slice());
            assert_eq!(&b.mask[i * a..(i + 1) * a], mask.as_slice());
        }
        env.sample_legal(&mut actions).unwrap();
        for (i, s) in live.iter_mut().enumerate() {
            assert_eq!(games[actions[i] as usize], b.game[i] as u8);
            s.apply(&names[actions[i] as usize]).unwrap();
            if !s.is_terminal() {
                let reply = s.baseline_move("tactician").unwrap();
                s.apply(&reply).unwrap();
            }
        }
        env.step(&actions, &mut b.buffers()).unwrap();
        for i in 0..n {
            assert_eq!(b.terminated[i], live[i].is_terminal());
            if b.terminated[i] {
                let score = &live[i].results().unwrap()["score"];
                let got = json!([b.rewards[2 * i] as i32, b.rewards[2 * i + 1] as i32]);
                assert_eq!(score, &got);
                episodes[i] += 1;
                live[i] = registry(episodes[i] * n as u64 + i as u64);
            }
        }
    }
    assert_eq!(played.len(), 4, "{played:?}");
}

#[test]
fn opponents_are_checked_per_seat() {
    let bad = VecEnv::new("hex", &Value::Null, 2, 1, &[None], Some(1))
        .err()
        .unwrap();
    assert!(bad.to_string().contains("one entry per seat"), "{bad}");
    let all = [Some("random".to_string()), Some("random".to_string())];
    let bad = VecEnv::new("hex", &Value::Null, 2, 1, &all, Some(1))
        .err()
        .unwrap();
    assert!(bad.to_string().contains("learner"), "{bad}");
    let unknown = [None, Some("probe".to_string())];
    let bad = VecEnv::new("hex", &Value::Null, 2, 1, &unknown, Some(1))
        .err()
        .unwrap();
    assert!(bad.to_string().contains("tactician"), "{bad}");
}

/// Observations, masks, rewards, terminations and seats after one step.
type Snapshot = (Vec<f32>, Vec<bool>, Vec<f32>, Vec<bool>, Vec<i64>);

/// Run `steps` random steps; return every buffer's contents after each step.
fn trace(
    game: &str,
    config: &Value,
    n: usize,
    opponents: &[Option<String>],
    threads: usize,
    steps: usize,
) -> Vec<Snapshot> {
    trace_with(game, config, n, opponents, Some(threads), steps)
}

fn trace_threads(game: &str, n: usize, threads: Option<usize>, steps: usize) -> Vec<Snapshot> {
    trace_with(game, &Value::Null, n, &[], threads, steps)
}

fn trace_with(
    game: &str,
    config: &Value,
    n: usize,
    opponents: &[Option<String>],
    threads: Option<usize>,
    steps: usize,
) -> Vec<Snapshot> {
    let mut env = VecEnv::new(game, config, n, 9, opponents, threads).unwrap();
    let mut b = Owned::new(&env);
    env.reset(&mut b.buffers()).unwrap();
    let mut actions = vec![0i64; n];
    let mut out = Vec::new();
    for _ in 0..steps {
        env.sample_legal(&mut actions).unwrap();
        env.step(&actions, &mut b.buffers()).unwrap();
        out.push((
            b.obs.clone(),
            b.mask.clone(),
            b.rewards.clone(),
            b.terminated.clone(),
            b.seat.clone(),
        ));
    }
    out
}

#[test]
fn thread_count_does_not_change_a_batch() {
    for game in ["connect-four", "dark-hex-5", "hanabi", "quoridor", "rotate"] {
        let one = trace(game, &Value::Null, 13, &[], 1, 60);
        assert!(one == trace(game, &Value::Null, 13, &[], 2, 60), "{game}");
        assert!(
            one == trace_threads(game, 13, None, 60),
            "{game}: every core"
        );
    }
}

#[test]
fn sampled_actions_are_legal_and_episodes_reset_themselves() {
    for id in GAMES {
        let mut env = VecEnv::new(id, &Value::Null, 8, 4, &[], Some(1)).unwrap();
        let mut b = Owned::new(&env);
        env.reset(&mut b.buffers()).unwrap();
        let a = env.num_actions();
        let mut actions = vec![0i64; 8];
        let mut ended = 0;
        for _ in 0..400 {
            env.sample_legal(&mut actions).unwrap();
            for (i, &x) in actions.iter().enumerate() {
                assert!(
                    b.mask[i * a + x as usize],
                    "{id}: sampled an illegal action"
                );
            }
            env.step(&actions, &mut b.buffers()).unwrap();
            for i in 0..8 {
                if b.terminated[i] {
                    ended += 1;
                    assert!(b.ending[i] >= 0 && b.plies[i * env.num_seats()] > 0, "{id}");
                    // The env already holds the next episode: its mask is non-empty.
                    assert!(b.mask[i * a..(i + 1) * a].iter().any(|&x| x), "{id}");
                } else {
                    assert_eq!(b.ending[i], -1);
                }
            }
        }
        assert!(ended > 0, "{id}: no episode ended in 400 steps");
    }
}

/// The batch plays exactly the episodes `coworld play` would: replaying env 0's
/// moves through the registry reproduces its score, and the first episode's seed
/// is `episode_seed(seed, index)`.
#[test]
fn a_batch_episode_replays_through_the_registry() {
    let opponents = [None, Some("tactician".to_string())];
    let mut env = VecEnv::new("connect-four", &Value::Null, 3, 21, &opponents, Some(1)).unwrap();
    let names = env.action_names();
    let mut b = Owned::new(&env);
    env.reset(&mut b.buffers()).unwrap();
    let mut s = State::new("connect-four", &Value::Null, episode_seed(21, 1)).unwrap();
    let mut actions = vec![0i64; 3];
    loop {
        assert_eq!(b.seat[1], 0, "the learner is seat 0");
        env.sample_legal(&mut actions).unwrap();
        s.apply(&names[actions[1] as usize]).unwrap();
        if let Some(seat) = s.active_seat() {
            let reply = s.baseline_move("tactician").unwrap();
            assert_eq!(seat, 1);
            s.apply(&reply).unwrap();
        }
        env.step(&actions, &mut b.buffers()).unwrap();
        if b.terminated[1] {
            let score = &s.results().unwrap()["score"];
            assert_eq!(score, &json!([b.rewards[2] as i32, b.rewards[3] as i32]));
            assert_eq!(b.plies[2..4], [s.plies() as i32; 2]);
            break;
        }
        // Observation planes agree with the registry state's.
        let (_, obs, mask) = encode(&s, 0).unwrap();
        let len = obs.len();
        assert_eq!(&b.obs[len..2 * len], obs.as_slice());
        assert_eq!(&b.mask[7..14], mask.as_slice());
    }
}

#[test]
fn an_illegal_action_is_refused_before_any_env_moves() {
    let mut env = VecEnv::new("connect-four", &Value::Null, 2, 1, &[], Some(1)).unwrap();
    let mut b = Owned::new(&env);
    env.reset(&mut b.buffers()).unwrap();
    for _ in 0..6 {
        env.step(&[0, 1], &mut b.buffers()).unwrap();
    }
    let before = b.obs.clone();
    // File a of env 0 is full now.
    let err = env.step(&[2, 0], &mut b.buffers());
    assert!(err.is_ok(), "{err:?}");
    let err = env.step(&[0, 1], &mut b.buffers()).unwrap_err();
    assert!(
        err.to_string()
            .contains("env 0: action 0 (a) is not legal for seat 1"),
        "{err}"
    );
    assert_ne!(before, b.obs);
    let err = env.step(&[9, 1], &mut b.buffers()).unwrap_err();
    assert!(err.to_string().contains("ids are 0..6"), "{err}");
}

/// The legal ids env `i`'s mask marks, as the refusal lists them: `id (text)`.
fn legal_of(env: &VecEnv, b: &Owned, i: usize) -> Vec<String> {
    let (a, names) = (env.num_actions(), env.action_names());
    (0..a)
        .filter(|&id| b.mask[i * a + id])
        .map(|id| format!("{id} ({})", names[id]))
        .collect()
}

/// The refusal of an id names the env's legal set (ids with their text, from
/// its mask), never "none (the game is over)" in a live game, whether the id is
/// out of range, illegal here, or (rotate) another game's.
#[test]
fn an_illegal_action_names_the_envs_legal_ids() {
    for (game, n) in [
        ("hex", 3),
        ("connect-four", 2),
        ("recon-hex-5", 2),
        ("rotate", 4),
    ] {
        let mut env = VecEnv::new(game, &Value::Null, n, 5, &[], Some(1)).unwrap();
        let mut b = Owned::new(&env);
        env.reset(&mut b.buffers()).unwrap();
        let mut actions = vec![0i64; n];
        for _ in 0..3 {
            env.sample_legal(&mut actions).unwrap();
            env.step(&actions, &mut b.buffers()).unwrap();
        }
        env.sample_legal(&mut actions).unwrap();
        let a = env.num_actions();
        let live = b.game[n - 1] as u8;
        let games = env.action_games();
        let illegal = (0..a).find(|&id| !b.mask[(n - 1) * a + id] && games[id] == live);
        let other = (0..a).find(|&id| games[id] != live);
        for bad in [
            Some(a as i64),
            Some(-1),
            illegal.map(|x| x as i64),
            other.map(|x| x as i64),
        ] {
            let Some(bad) = bad else { continue };
            actions[n - 1] = bad;
            let before = b.obs.clone();
            let err = env.step(&actions, &mut b.buffers()).unwrap_err();
            let CoreError::Move { legal, reason, .. } = &err else {
                panic!("{game}: {err}")
            };
            assert_eq!(legal, &legal_of(&env, &b, n - 1), "{game}: {err}");
            assert!(!legal.is_empty() && !err.to_string().contains("game is over"));
            assert!(
                reason.starts_with(&format!("env {}: action {bad} ", n - 1)),
                "{reason}"
            );
            assert_eq!(before, b.obs, "{game}: no env moves");
        }
        let err = env
            .step(&[a as i64; 1].repeat(n), &mut b.buffers())
            .unwrap_err();
        assert!(
            err.to_string().contains(&format!("(ids are 0..{})", a - 1)),
            "{err}"
        );
    }
}

/// Actions of the wrong length or any out-of-range value are errors, never a panic.
#[test]
fn bad_action_arrays_are_errors_not_panics() {
    let mut env = VecEnv::new("hanabi", &Value::Null, 2, 1, &[], Some(1)).unwrap();
    let mut b = Owned::new(&env);
    env.reset(&mut b.buffers()).unwrap();
    for bad in [
        &[][..],
        &[0],
        &[0, 0, 0],
        &[i64::MIN, 0],
        &[0, i64::MAX],
        &[-1, -1],
    ] {
        let err = env.step(bad, &mut b.buffers()).unwrap_err();
        let want = if bad.len() == 2 {
            "illegal"
        } else {
            "shape (2,)"
        };
        assert!(err.to_string().contains(want), "{bad:?}: {err}");
    }
}

/// `n` beyond the cap and `threads` 0 are config errors naming the field.
#[test]
fn batch_size_and_thread_count_are_checked() {
    let field = |n, threads| match VecEnv::new("hex", &Value::Null, n, 1, &[], threads) {
        Err(CoreError::Config { field, .. }) => field,
        other => panic!("{:?}", other.map(|e| e.num_envs())),
    };
    assert_eq!(field(0, None), "n");
    assert_eq!(field(MAX_ENVS + 1, None), "n");
    assert_eq!(field(2, Some(0)), "threads");
    assert!(VecEnv::new("hex", &Value::Null, 2, -7, &[], Some(2)).is_ok());
}

/// Hanabi: `opponents` of 2..=5 entries sets the seat count when the config
/// leaves `seats` out; a config that sets it wins, and the refusal says how to
/// change it. Every other game's seat count is its own.
#[test]
fn hanabi_seat_count_follows_opponents_unless_configured() {
    // `random`, not `tracker`: the tracker's 2-seat hint scoring underflows a
    // u32 in debug builds (rust/src/hanabi/tracker.rs), another module's bug.
    let baseline = || Some("random".to_string());
    for seats in 2..=5 {
        let mut opponents = vec![None; seats];
        opponents[1] = baseline();
        let implied = trace("hanabi", &Value::Null, 3, &opponents, 1, 40);
        let config = json!({ "seats": seats });
        assert_eq!(
            implied,
            trace("hanabi", &config, 3, &opponents, 1, 40),
            "{seats}"
        );
        let env = VecEnv::new("hanabi", &Value::Null, 2, 1, &opponents, Some(1)).unwrap();
        assert_eq!(env.num_seats(), seats);
        let other = json!({ "seats": if seats == 2 { 3 } else { 2 } });
        let err = VecEnv::new("hanabi", &other, 2, 1, &opponents, Some(1))
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains(&format!("config={{'seats': {seats}}}")),
            "{err}"
        );
    }
    let six = vec![
        None,
        baseline(),
        baseline(),
        baseline(),
        baseline(),
        baseline(),
    ];
    let err = VecEnv::new("hanabi", &Value::Null, 2, 1, &six, Some(1))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("hanabi takes 2 to 5 seats"), "{err}");
    let three = [None, Some("random".to_string()), None];
    let err = VecEnv::new("hex", &Value::Null, 2, 1, &three, Some(1))
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("hex has 2 seats") && !err.contains("seats'"),
        "{err}"
    );
}

/// A bad baseline name is an `opponents` error naming the seat; a bad
/// parameter keeps its key as the field.
#[test]
fn opponent_errors_name_the_seat_and_the_key() {
    let check = |name: &str, field: &str| {
        let opponents = [None, Some(name.to_string())];
        match VecEnv::new("hex", &Value::Null, 2, 1, &opponents, Some(1)) {
            Err(CoreError::Config { field: f, reason }) => {
                assert_eq!(f, field, "{reason}");
                assert!(
                    reason.contains(&format!("opponents[1] = {name:?}")),
                    "{reason}"
                );
            }
            other => panic!("{name}: {:?}", other.map(|e| e.num_envs())),
        }
    };
    check("nobody", "opponents");
    check("mcts?foo=20", "foo");
    check("mcts?sims=0", "sims");
    check("tactician?eps=2", "eps");
    let ok = [None, Some("mcts?sims=20".to_string())];
    assert!(VecEnv::new("hex", &Value::Null, 2, 1, &ok, Some(1)).is_ok());
}

#[test]
fn hanabi_observation_never_shows_the_observers_cards() {
    // Two deals that differ only inside seat 0's hand: seat 0's tensor is equal,
    // seat 1's (which sees seat 0's hand) is not.
    let mut deck = crate::hanabi::full_deck();
    crate::rng::Rng::new(3).shuffle(&mut deck);
    // Seat 0 is dealt deck[0..4]; find a card of another identity there to swap with.
    let j = (1..4).find(|&j| deck[j] != deck[0]).unwrap();
    let mut other = deck;
    other.swap(0, j);
    let a = State::new("hanabi", &json!({"deck": names(&deck)}), 1).unwrap();
    let b = State::new("hanabi", &json!({"deck": names(&other)}), 1).unwrap();
    assert_eq!(a.view_for(0).unwrap(), b.view_for(0).unwrap());
    assert_eq!(encode(&a, 0).unwrap().1, encode(&b, 0).unwrap().1);
    assert_ne!(encode(&a, 1).unwrap().1, encode(&b, 1).unwrap().1);
}

fn names(deck: &[u8]) -> Vec<String> {
    deck.iter()
        .map(|&c| crate::hanabi::knowledge::card_name(c))
        .collect()
}

#[test]
fn observation_lengths_match_their_shapes() {
    for id in games() {
        let s = State::new(id, &Value::Null, 2).unwrap();
        let (shape, obs, _) = encode(&s, 0).unwrap();
        assert_eq!(shape.iter().product::<usize>(), obs.len(), "{id}");
        dispatch!(&s.inner, g => assert_eq!(g.obs_shape(), shape));
    }
}

#[test]
fn hanabi_episodes_match_the_registry_with_and_without_a_forced_deal() {
    let mut deck = crate::hanabi::full_deck();
    crate::rng::Rng::new(8).shuffle(&mut deck);
    for config in [
        Value::Null,
        json!({"deck": names(&deck)}),
        json!({"seats": 3}),
    ] {
        let mut env = VecEnv::new("hanabi", &config, 2, 5, &[], Some(1)).unwrap();
        let mut b = Owned::new(&env);
        env.reset(&mut b.buffers()).unwrap();
        // Env 1's first episode, rebuilt through the registry, observes the same.
        let s = State::new("hanabi", &config, episode_seed(5, 1)).unwrap();
        let (_, obs, mask) = encode(&s, 0).unwrap();
        assert_eq!(&b.obs[obs.len()..], obs.as_slice(), "{config}");
        assert_eq!(&b.mask[mask.len()..], mask.as_slice(), "{config}");
    }
}

#[test]
fn hanabi_hint_planes_follow_the_hints() {
    let mut s = State::new("hanabi", &Value::Null, 6).unwrap();
    let hint = s
        .legal_moves()
        .into_iter()
        .find(|m| m.starts_with("hint 1 colour"))
        .unwrap();
    let colour = crate::hanabi::knowledge::COLOURS
        .iter()
        .position(|c| hint.ends_with(c))
        .unwrap();
    s.apply(&hint).unwrap();
    let view = s.view_for(2).unwrap();
    let (_, obs, _) = encode(&s, 2).unwrap();
    let base = 4 * 4 * 25 + 4 * 20; // hands, then seat 0's hint block
    let hand = view["hands"][1].as_array().cloned().unwrap();
    assert_eq!(hand.len(), 4);
    let mut touched = 0;
    for k in 0..4 {
        let named = obs[base + k * 20 + colour] == 1.0;
        let ruled_out = obs[base + k * 20 + 10 + colour] == 1.0;
        assert!(
            named != ruled_out,
            "slot {k}: a colour hint names or rules out every card"
        );
        touched += usize::from(named);
        let said = &hand[k]["hints"]["colour"];
        assert_eq!(
            named,
            said == &json!(crate::hanabi::knowledge::COLOURS[colour]),
            "{said}"
        );
    }
    assert!(touched > 0);
}

/// The Hanabi observation written entry by entry, straight from the documented
/// sections and the engine's own `candidates_of` (the writer's oracle).
fn hanabi_reference_obs(g: &crate::hanabi::Hanabi, seat: usize) -> Vec<f32> {
    use crate::hanabi::knowledge::NUM_IDS;
    use crate::hanabi::{hand_size, MAX_FUSES, MAX_HINTS};
    let (seats, h) = (g.seats(), hand_size(g.seats()));
    let mut out = Vec::new();
    let bits = |out: &mut Vec<f32>, m: u32, n: usize| {
        out.extend((0..n).map(|i| (m >> i & 1) as f32));
    };
    let thermometer = |out: &mut Vec<f32>, k: usize, n: usize| {
        out.extend((0..n).map(|i| f32::from(i < k)));
    };
    for s in 0..seats {
        for k in 0..h {
            match g.hand(s).get(k) {
                Some(c) if s != seat => bits(&mut out, 1 << c.id, NUM_IDS),
                _ => bits(&mut out, 0, NUM_IDS),
            }
        }
    }
    for s in 0..seats {
        for k in 0..h {
            let m = g.hand(s).get(k).map_or(0, |c| {
                let k = c.know;
                let hinted = k.colour.map_or(0, |c| 1 << c) | k.rank.map_or(0, |r| 1 << (5 + r));
                hinted | (k.not_colours as u32) << 10 | (k.not_ranks as u32) << 15
            });
            bits(&mut out, m, 20);
        }
    }
    let (cands, n) = g.candidates_of(&g.table(), seat);
    for (k, &cand) in cands.iter().enumerate().take(h) {
        bits(&mut out, if k < n { cand } else { 0 }, NUM_IDS);
    }
    for &height in g.fireworks() {
        thermometer(&mut out, height as usize, 5);
    }
    for &copies in g.discarded() {
        thermometer(&mut out, copies as usize, 3);
    }
    thermometer(&mut out, g.hint_tokens() as usize, MAX_HINTS as usize);
    thermometer(&mut out, g.fuses() as usize, MAX_FUSES as usize);
    out.push(g.deck_count() as f32 / crate::hanabi::DECK_SIZE as f32);
    out.push(f32::from(g.final_turns().is_some()));
    out.extend((0..seats).map(|s| f32::from(s == seat)));
    out
}

#[test]
fn the_hanabi_writer_and_mask_match_their_reference_for_every_seat_count() {
    use crate::hanabi::Hanabi;
    let mut positions = 0;
    for seats in 2..=5 {
        for seed in 1..=12 {
            let mut g = Hanabi::new(seats, seed);
            let mut rng = Rng::new(seed * 7 + seats as i64);
            while !g.is_terminal() {
                for seat in 0..seats {
                    let mut obs = vec![f32::NAN; g.obs_shape()[0]];
                    g.write_obs(seat, &mut obs);
                    assert_eq!(obs, hanabi_reference_obs(&g, seat), "{seats} seats");
                }
                let mut ids = Vec::new();
                g.legal_ids(&mut Vec::new(), |a| ids.push(a));
                ids.sort_unstable();
                let mut expected: Vec<usize> = g
                    .legal_moves()
                    .into_iter()
                    .map(|m| g.action_of(m))
                    .collect();
                expected.sort_unstable();
                assert_eq!(ids, expected);
                positions += 1;
                let legal = g.legal_moves();
                g.apply(legal[rng.below(legal.len())]);
            }
        }
    }
    assert!(positions > 800, "{positions}");
}

#[test]
fn copies_gone_and_pile_thermometers_match_the_engine_table() {
    use crate::hanabi::knowledge::{Table, COPIES, NUM_IDS};
    let mut rng = Rng::new(11);
    for _ in 0..2000 {
        let mut fireworks = [0u8; 5];
        for h in fireworks.iter_mut() {
            *h = rng.below(6) as u8;
        }
        let mut discarded = [0u8; NUM_IDS];
        for (id, d) in discarded.iter_mut().enumerate() {
            *d = rng.below(COPIES[id % 5] as usize + 1) as u8;
        }
        let (seen, pile) = tensor::gone(&fireworks, &discarded);
        assert_eq!(seen, Table::new(&fireworks, &discarded).gone);
        for (id, &n) in discarded.iter().enumerate() {
            assert_eq!((pile >> (3 * id)) & 7, (1 << n) - 1, "{discarded:?}");
        }
    }
}
