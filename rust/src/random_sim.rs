//! The random-simulation test every game id gets (after OpenSpiel's
//! `RandomSimTest`): random episodes through the text-level API, checking at
//! every ply what every game promises ([`crate::game::Game`]) and at the end
//! that the result agrees with the game's catalogue entry.

use serde_json::{json, Value};

use crate::catalog::{entry, Entry};
use crate::game::Ending;
use crate::registry::{State, GAMES};
use crate::rng::Rng;

/// Episodes per game id (and per seat count where the seats vary).
const EPISODES: i64 = 30;

/// A config for episode `seed` of `e`: the seat count cycles through its range.
fn config_for(e: &Entry, seed: i64) -> Value {
    if e.seats.min == e.seats.max {
        return Value::Null;
    }
    let span = (e.seats.max - e.seats.min + 1) as i64;
    json!({ "seats": e.seats.min + seed.rem_euclid(span) as usize })
}

/// The same state, field for field (`Debug` prints every field of every game).
fn same(a: &State, b: &State) -> bool {
    format!("{:?}", a.inner) == format!("{:?}", b.inner) && a.moves == b.moves
}

fn check_views(s: &State, id: &str) {
    assert!(s.view().is_object(), "{id}: view is not an object");
    for seat in 0..s.num_seats() {
        let v = s.view_for(seat).unwrap();
        assert!(v.is_object(), "{id} seat {seat}: view_for is not an object");
        // Its text parses back to the same value.
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), v, "{id}");
    }
    assert!(
        s.view_for(s.num_seats()).is_err(),
        "{id}: a missing seat has a view"
    );
}

/// Every legal move reads back as itself, and the names are distinct.
fn check_move_text(s: &State, legal: &[String], id: &str) {
    assert!(!legal.is_empty(), "{id}: a live game has no legal move");
    let mut sorted = legal.to_vec();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), legal.len(), "{id}: duplicate move names");
    for name in legal {
        assert_eq!(
            &s.read_move(name).unwrap(),
            name,
            "{id}: {name} does not round-trip"
        );
    }
}

/// A settled episode: nothing moves, and the results agree with the catalogue.
fn check_settled(s: &State, e: &Entry, id: &str) {
    assert_eq!(s.active_seat(), None, "{id}");
    assert!(s.legal_moves().is_empty(), "{id}");
    assert!(s.baseline_move("random").is_err(), "{id}");
    let r = s
        .results()
        .unwrap_or_else(|| panic!("{id}: settled without results"));
    let ending = Ending::ALL
        .into_iter()
        .find(|x| x.name() == r["ending"])
        .unwrap_or_else(|| panic!("{id}: unknown ending {}", r["ending"]));
    assert!(
        e.endings.contains(&ending),
        "{id}: {ending:?} is not one of its endings"
    );
    assert_eq!(r["reason"], ending.reason(), "{id}");
    assert_eq!(r["plies"], json!(s.plies()), "{id}");
    assert!(s.plies() <= e.ply_cap, "{id}: {} plies", s.plies());
    let score: Vec<i64> = r["score"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect();
    assert_eq!(score.len(), s.num_seats(), "{id}");
    for &x in &score {
        let (lo, hi) = e.score;
        assert!((lo as i64..=hi as i64).contains(&x), "{id}: score {x}");
    }
    // Two-seat games are zero-sum; the others (Hanabi, at any seat count) share one score.
    if e.seats.max == 2 {
        assert_eq!(score[0] + score[1], 0, "{id}: not zero-sum: {score:?}");
        let winner = (0..2).find(|&w| score[w] == 1);
        assert_eq!(r["winner"], json!(winner), "{id}: {r}");
        assert!(winner.is_some() || score == [0, 0], "{id}: {score:?}");
    } else {
        assert!(
            score.iter().all(|&x| x == score[0]),
            "{id}: unshared {score:?}"
        );
        assert_eq!(r["winner"], Value::Null, "{id}");
        match ending {
            Ending::Fuses => assert_eq!(score[0], 0, "{id}"),
            Ending::Perfect => assert_eq!(score[0], e.score.1 as i64, "{id}"),
            _ => {}
        }
    }
}

/// One random episode of `id`, checked at every ply.
fn play(id: &str, seed: i64) {
    let e = entry(id).unwrap();
    let config = config_for(e, seed);
    let mut s = State::new(id, &config, seed).unwrap();
    let mut rng = Rng::new(seed);
    while !s.is_terminal() {
        check_views(&s, id);
        let twin = s.clone();
        assert!(same(&twin, &s), "{id}: a clone differs");
        assert!(s.results().is_none(), "{id}: results before the end");
        assert!(s.plies() < e.ply_cap, "{id}: live at the ply cap");
        let seat = s.active_seat().unwrap();
        assert!(seat < s.num_seats(), "{id}");
        let legal = s.legal_moves();
        check_move_text(&s, &legal, id);
        // A clone settled at the deadline is a proper settled episode.
        if s.plies() % 5 == 2 {
            let mut late = s.clone();
            late.settle_deadline();
            assert_eq!(late.results().unwrap()["ending"], "wall-clock", "{id}");
            check_settled(&late, e, id);
        }
        let name = rng.pick(&legal.iter().map(String::as_str).collect::<Vec<_>>());
        let plies = s.plies();
        assert_eq!(s.apply(name).unwrap(), name, "{id}");
        assert_eq!(s.plies(), plies + 1, "{id}");
        assert!(
            same(&twin, &twin.clone()),
            "{id}: the clone changed with the original"
        );
    }
    check_views(&s, id);
    check_settled(&s, e, id);
    // The recorded move text rebuilds the same episode.
    let again = State::replay(id, &config, seed, &s.moves, &s.guesses).unwrap();
    assert!(same(&again, &s), "{id}: the replay differs");
}

#[test]
fn random_episodes_of_every_game_keep_every_promise() {
    for id in GAMES {
        for seed in 1..=EPISODES {
            play(id, seed);
        }
    }
}

#[test]
fn every_game_id_has_a_simulate_code_and_every_ending_a_code() {
    for (i, e) in Ending::ALL.iter().enumerate() {
        assert_eq!(e.code() as usize, i, "{e:?}");
    }
    for (code, id) in GAMES.iter().enumerate() {
        let e = entry(id).unwrap();
        let batch = crate::simulate::Batch {
            game: id.to_string(),
            config: Value::Null,
            policies: vec!["random".to_string(); e.seats.default],
            start: 0,
            episodes: 4,
            seed: 3,
            openings: 0,
        };
        for record in batch.run(Some(1)).unwrap() {
            let played = GAMES[record.game as usize];
            assert!(
                played == *id || e.rotation.contains(&played),
                "{id}: {played}"
            );
            assert!(
                record.game as usize == code || !e.rotation.is_empty(),
                "{id}"
            );
            assert!(
                e.endings.contains(&Ending::ALL[record.ending as usize]),
                "{id}"
            );
        }
    }
}
