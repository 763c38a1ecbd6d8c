use super::baselines::{probe, sweep};
use super::*;
use crate::error::MoveFault;
use crate::game::Policy;
use crate::rng::Rng;

fn play(id: &str, moves: &str) -> FogState {
    let mut g = FogState::of(id).unwrap();
    for m in moves.split_whitespace() {
        g.try_apply(m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    g
}

fn cell(g: &FogState, name: &str) -> usize {
    let (f, r) = parse_cell(name, g.size(), g.size()).unwrap();
    r * g.size() + f
}

fn mask(g: &FogState, cells: &str) -> Mask {
    cells.split_whitespace().fold(0, |m, c| m | 1 << cell(g, c))
}

fn fault(r: CoreResult<Attempt>) -> MoveFault {
    match r {
        Err(CoreError::Move { fault, .. }) => fault,
        other => panic!("expected a move error, got {other:?}"),
    }
}

#[test]
fn variants_match_the_table() {
    let rows: Vec<_> = VARIANTS
        .iter()
        .map(|v| (v.id, v.mode, v.size, v.abrupt, v.sense, v.max_plies))
        .collect();
    assert_eq!(
        rows,
        [
            ("phantom-ttt-3", Mode::PhantomTtt, 3, false, 0, 18),
            ("dark-hex-4", Mode::DarkHex, 4, false, 0, 32),
            ("dark-hex-5", Mode::DarkHex, 5, true, 0, 50),
            ("recon-hex-5", Mode::DarkHex, 5, true, 3, 50),
        ]
    );
    // maxPlies is 2 x cells: at most one placement and one collision per cell.
    for v in &VARIANTS {
        assert_eq!(v.max_plies as usize, 2 * v.size * v.size);
    }
    assert!(variant("recon-hex-5")
        .unwrap()
        .label()
        .contains("not a port"));
    assert!(variant("dark-hex-5")
        .unwrap()
        .label()
        .contains("abrupt_dark_hex"));
}

#[test]
fn a_collision_keeps_the_mover_unless_abrupt() {
    for (id, keeps) in [
        ("phantom-ttt-3", true),
        ("dark-hex-4", true),
        ("dark-hex-5", false),
    ] {
        let g = play(id, "b2 b2");
        assert_eq!(g.plies(), 2, "{id}");
        assert!(g.history()[1].occupied, "{id}");
        assert_eq!(g.active_seat(), Some(if keeps { 1 } else { 0 }), "{id}");
        assert_eq!(g.proven(1), mask(&g, "b2"), "{id}");
        assert_eq!(g.probes(1), 1, "{id}");
        assert_eq!(g.stones(1), 0, "a collision places nothing ({id})");
        assert_eq!(g.legal_attempts(1) >> cell(&g, "b2") & 1, 0, "{id}");
    }
    // recon hex is abrupt too: "a1+b2" is seat 1 sensing a1 (which sees b2) then colliding.
    let g = play("recon-hex-5", "e5+b2 a1+b2");
    assert_eq!(g.active_seat(), Some(0));
}

#[test]
fn invalid_attempts_are_refused_and_leave_the_state_unchanged() {
    // Seat 0 owns a1 b1 c1; seat 1 owns d1 (unproven by seat 0), a4, b4.
    let g = play("dark-hex-4", "a1 d1 b1 a4 c1 b4");
    let before = g.clone();
    assert_eq!(fault(g.read_move("c1")), MoveFault::Illegal);
    assert_eq!(fault(g.read_move("e1")), MoveFault::Illegal);
    assert_eq!(fault(g.read_move("a5")), MoveFault::Illegal);
    assert_eq!(fault(g.read_move("z99")), MoveFault::Illegal);
    for garbage in ["", "hello", "12", "c1 c2", "!!", "\u{1F600}"] {
        assert_eq!(
            fault(g.read_move(garbage)),
            MoveFault::Unparseable,
            "{garbage:?}"
        );
    }
    let err = g.read_move("c1").unwrap_err().to_string();
    assert!(err.contains("c1 already holds your stone"), "{err}");
    // The legal list is every cell but seat 0's three stones, file by file.
    assert!(
        err.contains("legal moves: a2, a3, a4, b2, b3, b4, c2, c3, c4, d1, d2"),
        "{err}"
    );
    let mut after = g.clone();
    assert!(after.try_apply("c1").is_err());
    assert_eq!(after, before);
    // d1 collides (non-abrupt: seat 0 again); now d1 is known occupied.
    after.try_apply("d1").unwrap();
    assert_eq!(after.active_seat(), Some(0));
    let err = after.read_move("D1").unwrap_err().to_string();
    assert!(
        err.contains("d1 is known to hold an opponent stone"),
        "{err}"
    );
    assert!(!err.contains(" d1,"), "{err}");
}

#[test]
fn the_tolerant_reader() {
    let g = FogState::of("dark-hex-5").unwrap();
    let c3 = Attempt {
        anchor: None,
        cell: 12,
    };
    for text in ["c3", " C3 ", "**c3**", "play c3", "c3."] {
        assert_eq!(g.read_move(text).unwrap(), c3, "{text}");
    }
    let r = FogState::of("recon-hex-5").unwrap();
    let b2_c3 = Attempt {
        anchor: Some(6),
        cell: 12,
    };
    for text in ["b2+c3", "b2 c3", "b2c3", "sense b2 attempt c3", "B2, C3"] {
        assert_eq!(r.read_move(text).unwrap(), b2_c3, "{text}");
    }
    assert_eq!(r.move_name(b2_c3), "b2+c3");
    assert_eq!(fault(r.read_move("c3")), MoveFault::Unparseable);
    assert_eq!(fault(r.read_move("f9+c3")), MoveFault::Illegal);
    assert_eq!(fault(g.read_move("b2+c3")), MoveFault::Unparseable);
}

#[test]
fn recon_legal_moves_are_every_anchor_with_every_legal_cell() {
    let g = play("recon-hex-5", "a1+c3");
    let legal = g.legal_moves();
    assert_eq!(
        legal.len(),
        25 * 25,
        "seat 1 knows nothing yet: 25 anchors x 25 cells"
    );
    let g = play("recon-hex-5", "a1+c3 a1+a1");
    // Seat 0 owns c3: 25 anchors x 24 cells.
    assert_eq!(g.legal_moves().len(), 25 * 24);
    for mv in g.legal_moves() {
        assert_eq!(g.read_move(&g.move_name(mv)).unwrap(), mv);
    }
}

#[test]
fn sense_reveals_exactly_the_block_and_timestamps_emptiness() {
    let g = FogState::of("recon-hex-5").unwrap();
    assert_eq!(g.sense_block(cell(&g, "a1")), mask(&g, "a1 a2 b1 b2"));
    assert_eq!(g.sense_block(cell(&g, "c1")), mask(&g, "b1 c1 d1 b2 c2 d2"));
    assert_eq!(
        g.sense_block(cell(&g, "c3")),
        mask(&g, "b2 c2 d2 b3 c3 d3 b4 c4 d4")
    );
    // Ply 0: seat 0 senses a1 and places a1. Ply 1: seat 1 places b2.
    // Ply 2: seat 0 senses b2 (block a1..c3), finds b2, places e5.
    let mut g = play("recon-hex-5", "a1+a1 e5+b2 b2+e5");
    let r = g.history()[2];
    assert_eq!(r.sensed_stones as Mask, mask(&g, "b2"));
    assert_eq!(r.sensed_empty as Mask, mask(&g, "b1 c1 a2 c2 a3 b3 c3"));
    assert_eq!(g.proven(0), mask(&g, "b2"));
    assert_eq!(g.discovered(0), 1);
    assert_eq!(g.probes(0), 0, "a sensed stone is discovered, not probed");
    let seen: Vec<(usize, usize)> = knowledge::seen_empty(&g, 0);
    let expect: Vec<(usize, usize)> = g
        .file_major(mask(&g, "b1 c1 a2 c2 a3 b3 c3"))
        .map(|c| (c, 2))
        .collect();
    assert_eq!(seen, expect);
    // Emptiness is stamped with seat 0's own attempt number (ply 2 is its 2nd attempt).
    // Seat 1 now places c1: seat 0 still believes c1 was empty at its attempt 2
    // (emptiness perishes).
    g.try_apply("e1+c1").unwrap();
    let v = g.view_for(0);
    assert_eq!(v["seenEmpty"]["c1"], 2);
    assert_eq!(v["provenStones"], serde_json::json!(["b2"]));
    // Seat 0 senses b1 at ply 4, its 3rd attempt: c1 becomes a proven stone and
    // leaves the empties.
    g.try_apply("b1+d4").unwrap();
    let v = g.view_for(0);
    assert_eq!(v["provenStones"], serde_json::json!(["b2", "c1"]));
    assert!(v["seenEmpty"].get("c1").is_none());
    assert_eq!(v["seenEmpty"]["b1"], 3);
    assert_eq!(v["seenEmpty"]["c3"], 2);
}

#[test]
fn believed_and_true_dist_to_win_differ_where_they_should() {
    // Seat 0 owns a1 b1 c1 and needs d1, but d1 is seat 1's, unproven.
    let mut g = play("dark-hex-4", "a1 d1 b1 a4 c1 b4");
    assert_eq!(g.believed_dist(0), 1);
    // Truly: d1 is blocked; c1's only other step toward file d is c2 then d2.
    assert_eq!(g.true_dist(0), 2);
    assert_eq!(g.view_for(0)["believedDistToWin"], 1);
    assert!(g.view_for(0).get("distToWin").is_none());
    assert_eq!(g.view()["distToWin"][0], 2);
    g.try_apply("d1").unwrap();
    assert_eq!(g.believed_dist(0), 2, "the collision corrects the belief");
    // Tic-tac-toe: X a1 b1 believes it is one from the bottom row; O holds c1 unproven.
    let g = play("phantom-ttt-3", "a1 c1 b1 b3");
    assert_eq!(g.believed_dist(0), 1);
    // Truly the bottom row is dead (c1); file a and the a1-c3 diagonal each miss two.
    assert_eq!(g.true_dist(0), 2);
}

#[test]
fn tic_tac_toe_line_and_board_full() {
    let g = play("phantom-ttt-3", "a1 a3 b1 b3 c1");
    let o = g.outcome().unwrap();
    assert_eq!(o, &Outcome::win(0, Ending::Line));
    let r = g.results().unwrap();
    assert_eq!(r["line"], serde_json::json!(["a1", "b1", "c1"]));
    assert_eq!(r["ending"], "line");
    // X a3 c3 a2 b1 c1, O b3 b2 c2 a1: no line anywhere.
    let g = play("phantom-ttt-3", "a3 b3 c3 b2 a2 c2 b1 a1 c1");
    assert_eq!(g.outcome().unwrap(), &Outcome::draw(Ending::BoardFull));
    assert_eq!(g.plies(), 9);
    assert!(g.results().unwrap().get("line").is_none());
}

#[test]
fn hex_connection_carries_its_path() {
    let g = play("dark-hex-4", "a1 a4 b1 b4 c1 c4 d1");
    assert_eq!(g.outcome().unwrap(), &Outcome::win(0, Ending::Connection));
    let r = g.results().unwrap();
    assert_eq!(r["winPath"], serde_json::json!(["a1", "b1", "c1", "d1"]));
    // Seat 0's full rank 1 walls seat 1 off its source edge: unreachable.
    assert_eq!(r["distToWin"], serde_json::json!([0, UNREACHABLE]));
    let v = g.view();
    let last = v["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["winPath"], r["winPath"]);
    assert_eq!(last["distToWin"], r["distToWin"]);
}

#[test]
fn ply_cap_and_deadline_adjudicate_by_true_distance() {
    // a1 b1 for seat 0 (needs c1 d1: 2); c4 d4 for seat 1 (needs one cell on each
    // of ranks 1-3: 3). Seat 0 is nearer.
    let mut g = FogState::of("dark-hex-4").unwrap().with_max_plies(4);
    for m in ["a1", "d4", "b1", "c4"] {
        g.try_apply(m).unwrap();
    }
    assert_eq!(g.outcome().unwrap(), &Outcome::win(0, Ending::PlyCap));
    assert_eq!(g.results().unwrap()["distToWin"], serde_json::json!([2, 3]));
    // a1 vs a4: three cells each.
    let mut g = FogState::of("dark-hex-4").unwrap().with_max_plies(2);
    g.try_apply("a1").unwrap();
    g.try_apply("a4").unwrap();
    assert_eq!(g.outcome().unwrap(), &Outcome::draw(Ending::PlyCap));
    let mut g = play("dark-hex-4", "a1 d4 b1 c4");
    g.settle_deadline();
    let o = g.outcome().unwrap();
    assert_eq!(o, &Outcome::win(0, Ending::WallClock));
    assert_eq!(g.results().unwrap()["reason"], "deadline");
}

#[test]
fn guesses_are_counted_against_the_true_board_at_that_ply() {
    let mut g = play("phantom-ttt-3", "a1");
    let guess: Vec<String> = ["a1", "B2", "zz", "a1", "d4"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    g.record_guess(&guess).unwrap();
    g.try_apply("c3").unwrap();
    // a1 (right) and b2 (wrong) count; zz and d4 are dropped, the repeat counts once.
    assert_eq!(g.guesses_made(1), 2);
    assert_eq!(g.guess_accuracy(1), Some(0.5));
    assert_eq!(g.guess_accuracy(0), None);
    assert_eq!(
        g.view()["events"][1]["guess"],
        serde_json::json!(["a1", "b2"])
    );
    // A replaced pending guess counts once, for the ply it precedes.
    g.record_guess(&["a2".to_string()]).unwrap();
    g.record_guess(&["c3".to_string()]).unwrap();
    g.try_apply("b1").unwrap();
    assert_eq!(g.guesses_made(0), 1);
    assert_eq!(g.guess_accuracy(0), Some(1.0));
    // At most as many cells as the board has are read.
    let mut g = FogState::of("phantom-ttt-3").unwrap();
    let long: Vec<String> = std::iter::repeat_n("zz".to_string(), 9)
        .chain(["a1".to_string()])
        .collect();
    g.record_guess(&long).unwrap();
    g.try_apply("a1").unwrap();
    assert_eq!(g.guesses_made(0), 0);
}

#[test]
fn random_games_respect_every_bound() {
    let policies = ["random", "probe", "sweep"];
    for v in &VARIANTS {
        for (i, (a, b)) in policies
            .iter()
            .flat_map(|a| policies.iter().map(move |b| (a, b)))
            .enumerate()
        {
            let pa = FogState::policy(a).unwrap();
            let pb = FogState::policy(b).unwrap();
            for seed in 0..200 {
                let mut g = FogState::new(v);
                while let Some(seat) = g.active_seat() {
                    let k = g.knowledge(seat);
                    assert_ne!(k.legal_attempts(), 0);
                    assert!(g.believed_dist(seat) <= g.true_dist(seat));
                    let mut rng = Rng::for_decision(seed * 31 + i as i64, g.plies());
                    let mv = if seat == 0 {
                        pa(&g, &mut rng)
                    } else {
                        pb(&g, &mut rng)
                    };
                    assert_eq!(g.read_move(&g.move_name(mv)), Ok(mv), "{}", v.id);
                    g.apply(mv);
                    assert!(g.plies() <= v.max_plies);
                    for s in 0..2 {
                        assert_eq!(g.discovered(s), g.proven(s).count_ones());
                        assert_eq!(g.proven(s) & !g.stones(1 - s), 0, "proofs are true");
                    }
                }
                let o = g.outcome().unwrap();
                match v.mode {
                    Mode::DarkHex => {
                        assert_eq!(o.ending, Ending::Connection, "{}: hex never draws", v.id);
                        assert!(o.winner.is_some());
                        assert_eq!(g.true_dist(o.winner.unwrap()), 0);
                    }
                    Mode::PhantomTtt => {
                        assert!(matches!(o.ending, Ending::Line | Ending::BoardFull))
                    }
                }
                assert_eq!(o.score.iter().sum::<i32>(), 0);
            }
        }
    }
}

#[test]
fn a_full_hex_board_always_has_a_winner() {
    // Fill every cell with no collisions: alternate seats over a shuffled order.
    for seed in 0..500 {
        for id in ["dark-hex-4", "dark-hex-5"] {
            let mut g = FogState::of(id).unwrap();
            let mut order: Vec<u8> = (0..(g.size() * g.size()) as u8).collect();
            Rng::new(seed).shuffle(&mut order);
            for c in order {
                if g.is_terminal() {
                    break;
                }
                g.apply(Attempt {
                    anchor: None,
                    cell: c,
                });
            }
            let o = g.outcome().expect("a full board is decided");
            assert_eq!(o.ending, Ending::Connection);
        }
    }
}

#[test]
fn probe_shortens_its_believed_distance_whenever_it_places() {
    for id in ["phantom-ttt-3", "dark-hex-4", "dark-hex-5"] {
        for seed in 0..300 {
            let mut g = FogState::of(id).unwrap();
            let mut rng = Rng::new(seed);
            while let Some(seat) = g.active_seat() {
                let mv = if seat == 0 {
                    probe(&g.knowledge(0))
                } else {
                    baselines::random(&g.knowledge(1), &mut rng)
                };
                let before = g.believed_dist(seat);
                g.apply(mv);
                let placed = !g.history().last().unwrap().occupied;
                if seat == 0 && placed {
                    assert_eq!(g.believed_dist(0), before - 1, "{id} seed {seed}");
                }
            }
        }
    }
}

#[test]
fn probe_senses_the_next_cell_of_its_path() {
    let g = FogState::of("recon-hex-5").unwrap();
    let mv = probe(&g.knowledge(0));
    let path = hexgrid::geometry(5).shortest_path(0, 0, 0).unwrap();
    assert_eq!(mv.cell as usize, path[0]);
    assert_eq!(mv.anchor, Some(path[1] as u8));
}

#[test]
fn sweep_walks_a_lane_and_shifts_down_on_a_collision() {
    let g = FogState::of("dark-hex-5").unwrap();
    let name = |g: &FogState, mv: Attempt| g.move_name(mv);
    assert_eq!(name(&g, sweep(&g.knowledge(0))), "a3");
    let g = play("dark-hex-5", "a3");
    assert_eq!(name(&g, sweep(&g.knowledge(1))), "c1");
    // Seat 0 owns a3; b3 holds seat 1's stone. After colliding there (non-abrupt
    // dark-hex-4 keeps the turn), the walker shifts to rank 2 at file b: b2, adjacent to a3.
    let mut g = play("dark-hex-4", "a3 b3");
    assert_eq!(name(&g, sweep(&g.knowledge(0))), "b3");
    g.try_apply("b3").unwrap();
    assert_eq!(g.active_seat(), Some(0));
    assert_eq!(name(&g, sweep(&g.knowledge(0))), "b2");
    // Recon: the anchor is the next cell of the lane.
    let g = FogState::of("recon-hex-5").unwrap();
    assert_eq!(name(&g, sweep(&g.knowledge(0))), "b3+a3");
    // Tic-tac-toe: the middle row first; a proof there moves it to the bottom row.
    let g = FogState::of("phantom-ttt-3").unwrap();
    assert_eq!(name(&g, sweep(&g.knowledge(0))), "a2");
    let g = play("phantom-ttt-3", "a1 b2 b2");
    assert_eq!(g.active_seat(), Some(0));
    assert_eq!(name(&g, sweep(&g.knowledge(0))), "b1");
}

#[test]
fn baselines_beat_random() {
    // A sanity check that the baselines play with purpose: over 400 games as
    // seat 0 and 400 as seat 1 against random, their mean score is positive.
    for id in ["phantom-ttt-3", "dark-hex-4", "dark-hex-5", "recon-hex-5"] {
        for name in ["probe", "sweep"] {
            let batch = |policies: [&str; 2]| crate::simulate::Batch {
                game: id.into(),
                config: Value::Null,
                policies: policies.iter().map(|s| s.to_string()).collect(),
                start: 0,
                episodes: 400,
                seed: 5,
                openings: 0,
            };
            let first = batch([name, "random"]).run(Some(1)).unwrap();
            let second = batch(["random", name]).run(Some(1)).unwrap();
            let mean = (first.iter().map(|r| r.score[0]).sum::<i32>()
                + second.iter().map(|r| r.score[1]).sum::<i32>()) as f64
                / 800.0;
            assert!(mean > 0.0, "{id} {name} vs random: mean {mean}");
        }
    }
}

#[test]
fn views_hide_what_the_seat_has_not_learned() {
    // Seat 1 has d1 (unproven by seat 0): seat 0's view never mentions it.
    let g = play("dark-hex-4", "a1 d1 b1 a4 c1 b4");
    let v = g.view_for(0);
    assert_eq!(v["ownStones"], serde_json::json!(["a1", "b1", "c1"]));
    assert_eq!(v["provenStones"], serde_json::json!([]));
    assert_eq!(v["log"].as_array().unwrap().len(), 3);
    // Outside the attempt lists (which rightly still offer them), the unproven cells never appear.
    let mut rest = v.clone();
    let obj = rest.as_object_mut().unwrap();
    obj.remove("legalAttempts");
    obj.remove("legalSenseAnchors");
    let text = rest.to_string();
    for hidden in ["\"d1\"", "\"a4\"", "\"b4\""] {
        assert!(!text.contains(hidden), "{hidden} leaked: {text}");
        assert!(v["legalAttempts"].to_string().contains(hidden));
    }
    assert!(v.get("stones").is_none() && v.get("events").is_none());
    // The spectator sees everything.
    let full = g.view();
    assert_eq!(full["stones"]["d1"], 1);
    assert_eq!(full["events"].as_array().unwrap().len(), 6);
}

#[test]
fn the_simulator_clones_a_fresh_state_with_the_same_results() {
    // Fog starts are seed-free, so `Batch::run` clones one fresh state per episode;
    // the records must equal those of rebuilding every episode from the registry.
    let batch = crate::simulate::Batch {
        game: "recon-hex-5".into(),
        config: Value::Null,
        policies: vec!["random".into(), "probe".into()],
        start: 0,
        episodes: 200,
        seed: 3,
        openings: 0,
    };
    let fast = batch.run(Some(2)).unwrap();
    for (i, rec) in fast.iter().enumerate() {
        let seed = crate::rng::episode_seed(3, i as u64);
        let state = crate::registry::State::new("recon-hex-5", &Value::Null, seed).unwrap();
        let crate::registry::AnyState::Fog(g) = state.inner else {
            panic!("not a fog state")
        };
        let policies = [
            baselines::random_policy as Policy<FogState>,
            baselines::probe_policy,
        ];
        let slow = crate::simulate::play_out(g, &policies, seed, 3);
        assert_eq!(&slow, rec);
    }
}

#[test]
fn random_draws_a_uniform_pick_of_the_legal_cells() {
    // The simulator's `random_policy` reads the state's `u32` cells and selects a
    // bit without a list; it must draw exactly what the plain reference draws from
    // the same stream: `rng.pick` over the legal cells in index order (a1, b1, ..,
    // a2, ..), then, in recon hex, `rng.below(cells)` for the anchor. (That is index
    // order, not the file-major order of `legal_moves`, and the recon anchor is a
    // second draw: the long-standing definition of this baseline, kept as is.)
    let mut positions = 0;
    for v in &VARIANTS {
        let cells = v.size * v.size;
        for seed in 0..300 {
            let mut g = FogState::new(v);
            let mut walk = Rng::new(seed);
            while let Some(seat) = g.active_seat() {
                let k = g.knowledge(seat);
                assert_eq!(g.legal_cells(seat) as Mask, k.legal_attempts());
                for draw in 0..4 {
                    let stream = Rng::for_decision(seed * 7 + draw, g.plies());
                    let legal: Vec<usize> = bits(k.legal_attempts()).collect();
                    let mut r = stream.clone();
                    let expected = Attempt {
                        cell: r.pick(&legal) as u8,
                        anchor: (v.sense > 0).then(|| r.below(cells) as u8),
                    };
                    let mut r = stream.clone();
                    assert_eq!(baselines::random_policy(&g, &mut r), expected);
                    let mut r = stream.clone();
                    assert_eq!(baselines::random(&k, &mut r), expected);
                }
                positions += 1;
                let moves = g.legal_moves();
                g.apply(walk.pick(&moves));
            }
        }
    }
    assert!(positions > 10_000, "{positions}");
}

/// The reproduction: in dark-hex-4 seat 1 collides on a4 before placing
/// a1. Seat 0's view must be the same as when seat 1 placed a1 at once: its
/// log is numbered by its own attempts, and no global ply count reaches it.
#[test]
fn the_opponent_s_collisions_leave_no_trace_in_the_seat_view() {
    for (id, collided, clean) in [
        ("dark-hex-4", "a4 a4 a1 b1", "a4 a1 b1"),
        ("phantom-ttt-3", "b2 b2 a2 a1 a3", "b2 a2 a1 a3"),
    ] {
        let (a, b) = (play(id, collided), play(id, clean));
        assert_ne!(a.plies(), b.plies());
        for seat in [0, 1] {
            let (va, vb) = (a.view_for(seat), b.view_for(seat));
            assert!(va.get("plies").is_none(), "{id}: {va}");
            if seat == 0 {
                assert_eq!(va, vb, "{id}");
            }
        }
        let log = a.view_for(0)["log"].clone();
        let numbers: Vec<_> = log
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["attempt"].clone())
            .collect();
        assert_eq!(
            numbers,
            [serde_json::json!(1), serde_json::json!(2)],
            "{id}"
        );
        assert_eq!(a.view_for(0)["attempts"], 2);
        // Seat 0's baseline draws from a stream chosen by what seat 0 knows: take
        // both histories back to seat 0's second decision.
        let upto_second_decision = |moves: &str| {
            let mut g = FogState::of(id).unwrap();
            for m in moves.split_whitespace() {
                if g.active_seat() == Some(0) && g.attempts(0) == 1 {
                    break;
                }
                g.try_apply(m).unwrap();
            }
            g
        };
        let (a, b) = (upto_second_decision(collided), upto_second_decision(clean));
        assert_eq!((a.active_seat(), b.active_seat()), (Some(0), Some(0)));
        assert_eq!(a.decision_stream(), b.decision_stream(), "{id}");
    }
}

/// A collision is revealed to the colliding seat only, stamped with its own
/// attempt number; a sense likewise to the sensing seat.
#[test]
fn revelations_go_to_the_seat_that_learned() {
    // dark-hex-4: seat 0 a4 (its 1st), seat 1 a4 collides (its 1st), then a1 (its 2nd).
    let g = play("dark-hex-4", "a4 a4 a1");
    let mine = g.view_for(1)["revelations"].clone();
    assert_eq!(
        mine,
        serde_json::json!([{
            "kind": "revelation", "what": "stone", "identity": {"owner": 0}, "where": "a4",
            "from": {"zone": "board", "visibility": {"kind": "seats", "seats": [0]}},
            "to": {"zone": "board", "visibility": {"kind": "seats", "seats": [0, 1]}},
            "step": 1, "revealedTo": [1],
        }])
    );
    assert_eq!(g.view_for(0)["revelations"], serde_json::json!([]));
    assert_eq!(g.view()["revelations"], mine);
    assert_eq!(g.view()["events"][1]["revelations"], mine);
    assert!(g.view()["events"][2].get("revelations").is_none());
    // recon-hex-5: seat 0 senses b2 on its 2nd attempt and finds b2.
    let g = play("recon-hex-5", "a1+a1 e5+b2 b2+e5");
    let sensed = g.view_for(0)["revelations"].clone();
    assert_eq!(sensed.as_array().unwrap().len(), 2, "{sensed}");
    assert_eq!(sensed[1]["what"], "sense");
    assert_eq!(sensed[1]["where"], "b2");
    assert_eq!(sensed[1]["step"], 2);
    assert_eq!(sensed[1]["identity"]["stones"], serde_json::json!(["b2"]));
    assert_eq!(sensed[1]["revealedTo"], serde_json::json!([0]));
    let theirs = g.view_for(1)["revelations"].clone();
    assert!(theirs
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["revealedTo"] == serde_json::json!([1])));
}

/// An illegal attempt's refusal lists the mover's own legal attempts (from its
/// knowledge), exactly as its view does: never a truth-derived set.
#[test]
fn a_refusal_lists_the_mover_s_own_legal_attempts() {
    // Seat 1 holds a1 (unknown to seat 0); seat 0 retries its own stone b1.
    let g = play("dark-hex-4", "b1 a1");
    let err = g.read_move("b1").unwrap_err();
    let view = g.view_for(0);
    let listed: Vec<String> = view["legalAttempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    assert!(listed.contains(&"a1".to_string()));
    let crate::error::CoreError::Move { legal, .. } = err else {
        panic!("not a move error: {err}");
    };
    assert_eq!(legal, listed);
}

#[test]
fn shared_outcomes_are_the_ones_the_rules_build() {
    for ending in Ending::ALL {
        for winner in 0..2 {
            assert_eq!(*settled(Some(winner), ending), Outcome::win(winner, ending));
        }
        assert_eq!(*settled(None, ending), Outcome::draw(ending));
    }
    // A settled game reports the shared outcome as its own.
    let g = play("phantom-ttt-3", "a1 a2 b1 b2 c1");
    assert_eq!(g.outcome(), Some(&Outcome::win(0, Ending::Line)));
    assert_eq!(g.plies(), 5);
}

#[test]
fn the_state_stays_small_and_heap_free_without_sides() {
    // The simulator clones the state per episode and moves it by value; a
    // larger state is copied through a call to memmove.
    assert!(std::mem::size_of::<FogState>() <= 128);
    let mut g = FogState::of("dark-hex-5").unwrap();
    let mut rng = Rng::new(4);
    while g.active_seat().is_some() {
        let mv = baselines::random_policy(&g, &mut rng);
        g.apply(mv);
    }
    assert!(
        !g.history.has_sides(),
        "a plain game allocated its side table"
    );
    assert_eq!(g.history().len(), g.plies() as usize);
}
