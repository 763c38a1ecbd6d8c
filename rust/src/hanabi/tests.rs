//! Rules, knowledge, reader, leak and baseline tests on hand-built positions.

use super::knowledge::{self, card_name, known_dead, known_playable, names};
use super::*;
use crate::error::{CoreError, MoveFault};
use crate::game::Policy;

fn id(name: &str) -> CardId {
    parse_card(name).unwrap_or_else(|| panic!("bad card {name:?}"))
}

/// A game whose hands are exactly `hands` (slot order, slot 1 first) and whose
/// next draws are `draws`, the rest of the deck following in identity order.
fn position(hands: &[&[&str]], draws: &[&str]) -> Hanabi {
    let seats = hands.len();
    let mut left: [u8; NUM_IDS] = std::array::from_fn(|i| copies(i as CardId));
    let mut order = Vec::new();
    for h in hands {
        assert_eq!(h.len(), hand_size(seats));
        // Dealt oldest first: the last slot is dealt first.
        order.extend(h.iter().rev().map(|n| id(n)));
    }
    order.extend(draws.iter().map(|n| id(n)));
    for &c in &order {
        assert!(left[c as usize] > 0, "too many {}", card_name(c));
        left[c as usize] -= 1;
    }
    for c in 0..NUM_IDS as CardId {
        order.extend(std::iter::repeat_n(c, left[c as usize] as usize));
    }
    let deck: [CardId; DECK_SIZE] = order.try_into().expect("50 cards");
    Hanabi::from_deck(seats, deck)
}

fn hand_names(g: &Hanabi, seat: Seat) -> Vec<String> {
    g.hand(seat).iter().map(|c| card_name(c.id)).collect()
}

fn play(g: &mut Hanabi, text: &str) {
    g.try_apply(text).unwrap_or_else(|e| panic!("{text}: {e}"));
}

fn fault(g: &Hanabi, text: &str) -> (MoveFault, String) {
    match g.read_move(text) {
        Err(CoreError::Move { fault, reason, .. }) => (fault, reason),
        other => panic!("{text:?} should be refused, got {other:?}"),
    }
}

const FOUR: [&[&str]; 4] = [
    &["red 1", "red 2", "yellow 1", "green 5"],
    &["blue 1", "white 3", "red 1", "yellow 2"],
    &["green 1", "green 2", "white 1", "blue 4"],
    &["white 2", "yellow 3", "blue 2", "red 5"],
];

// ---- deal and slots ----

#[test]
fn deal_sizes_follow_the_seat_count() {
    for (seats, size) in [(2, 5), (3, 5), (4, 4), (5, 4)] {
        let g = Hanabi::new(seats, 9);
        assert!((0..seats).all(|s| g.hand(s).len() == size));
        assert_eq!(g.deck_count(), DECK_SIZE - seats * size);
        assert_eq!((g.hint_tokens(), g.fuses(), g.turn()), (8, 3, 0));
    }
}

#[test]
fn the_seed_shuffles_the_full_deck() {
    let a = Hanabi::new(4, 1);
    let mut all: Vec<CardId> = (0..4)
        .flat_map(|s| a.hand(s).iter().map(|c| c.id))
        .collect();
    all.extend_from_slice(a.deck_order());
    all.sort();
    assert_eq!(all, full_deck().to_vec());
    assert_eq!(a, Hanabi::new(4, 1));
    assert_ne!(a.deck_order(), Hanabi::new(4, 2).deck_order());
}

#[test]
fn a_drawn_card_enters_slot_one_and_knowledge_moves_with_its_card() {
    let mut g = position(&FOUR, &["white 5", "blue 5"]);
    assert_eq!(
        hand_names(&g, 1),
        ["blue 1", "white 3", "red 1", "yellow 2"]
    );
    play(&mut g, "hint 1 colour blue");
    assert_eq!(g.hint_tokens(), 7);
    play(&mut g, "discard 2");
    assert_eq!(g.hint_tokens(), 8);
    // white 3 left slot 2; blue 1 (newer) moved up to slot 2, older cards kept their slots.
    assert_eq!(
        hand_names(&g, 1),
        ["white 5", "blue 1", "red 1", "yellow 2"]
    );
    assert_eq!(g.hand(1)[1].know.colour, Some(3));
    assert_eq!(g.hand(1)[1].know.touched, Some(0));
    assert_eq!(g.hand(1)[0].know, Knowledge::default());
    assert_eq!(g.hand(1)[2].know.not_colours, 1 << 3);
    assert_eq!(g.pile(), &[id("white 3")]);
    assert_eq!(g.deck_count(), 33);
}

#[test]
fn a_hint_names_every_matching_card_and_proves_the_rest() {
    let mut g = position(&FOUR, &[]);
    play(&mut g, "hint 1 rank 1");
    let h = g.hand(1);
    assert_eq!((h[0].know.rank, h[2].know.rank), (Some(0), Some(0)));
    assert_eq!((h[0].know.touched, h[2].know.touched), (Some(0), Some(0)));
    assert_eq!((h[1].know.not_ranks, h[3].know.not_ranks), (1, 1));
    assert_eq!((h[1].know.touched, h[3].know.rank), (None, None));
    assert_eq!(g.log()[0].effect, Effect::Hinted { touched: 0b0101 });
    assert_eq!(g.view()["log"][0]["touched"], serde_json::json!([1, 3]));
    assert_eq!(g.hint_tokens(), 7);
    assert_eq!(g.active_seat(), Some(1));
    // A later hint re-touches: slot 3 (red 1) now also knows red, touched on turn 1.
    play(&mut g, "hint 0 colour red"); // seat 1 hints seat 0
    play(&mut g, "hint 1 colour red");
    assert_eq!(g.hand(1)[2].know.colour, Some(0));
    assert_eq!(g.hand(1)[2].know.touched, Some(2));
    assert_eq!(g.hand(1)[2].know.hint_mask(), bit(id("red 1")));
}

#[test]
fn playing_builds_fireworks_and_misplays_burn_fuses() {
    let mut g = position(&FOUR, &["white 5", "blue 5"]);
    play(&mut g, "play 1"); // red 1
    assert_eq!(g.fireworks()[0], 1);
    assert_eq!(g.log()[0].effect, Effect::Played(id("red 1")));
    assert_eq!(
        hand_names(&g, 0),
        ["white 5", "red 2", "yellow 1", "green 5"]
    );
    play(&mut g, "play 2"); // seat 1's white 3: white is at 0
    assert_eq!((g.fuses(), g.pile().len(), g.counters().0), (2, 1, 1));
    assert_eq!(g.log()[1].effect, Effect::Misplayed(id("white 3")));
    assert_eq!(g.hint_tokens(), 8, "a misplay returns no token");
    assert_eq!(g.fireworks_score(), 1);
}

#[test]
fn a_five_returns_a_token_below_eight_only() {
    let mut g = position(&FOUR, &[]);
    g.fireworks[0] = 4;
    g.mover = 3;
    g.hints = 5;
    play(&mut g, "play 4"); // red 5
    assert_eq!((g.fireworks[0], g.hint_tokens()), (5, 6));
    let mut g = position(&FOUR, &[]);
    g.fireworks[0] = 4;
    g.mover = 3;
    play(&mut g, "play 4");
    assert_eq!((g.fireworks[0], g.hint_tokens()), (5, 8));
}

#[test]
fn tokens_gate_hints_and_discards() {
    let mut g = position(&FOUR, &[]);
    let (f, why) = fault(&g, "discard 1");
    assert_eq!(f, MoveFault::Illegal);
    assert!(why.contains("8 hint tokens"), "{why}");
    assert!(!g
        .legal_moves()
        .iter()
        .any(|m| matches!(m, HanabiMove::Discard(_))));
    g.hints = 0;
    let (f, why) = fault(&g, "hint 1 rank 1");
    assert_eq!(f, MoveFault::Illegal);
    assert!(why.contains("no hint tokens"), "{why}");
    let legal = g.legal_names();
    assert_eq!(legal.len(), 8, "{legal:?}");
    assert!(legal
        .iter()
        .all(|m| m.starts_with("play") || m.starts_with("discard")));
    play(&mut g, "discard 4");
    assert_eq!(g.hint_tokens(), 1);
}

#[test]
fn hints_go_to_another_seat_and_must_name_a_card() {
    let g = position(&FOUR, &[]);
    let (f, why) = fault(&g, "hint 0 rank 1");
    assert_eq!(
        (f, why.contains("another seat")),
        (MoveFault::Illegal, true),
        "{why}"
    );
    let (f, why) = fault(&g, "hint 1 colour green");
    assert_eq!(f, MoveFault::Illegal);
    assert!(why.contains("seat 1 holds no green card"), "{why}");
    let (f, why) = fault(&g, "hint 4 rank 1");
    assert_eq!(
        (f, why.contains("seats are 0-3")),
        (MoveFault::Illegal, true),
        "{why}"
    );
    let (f, why) = fault(&g, "play 5");
    assert_eq!(
        (f, why.contains("slots 1-4")),
        (MoveFault::Illegal, true),
        "{why}"
    );
    // The legal hints are exactly the colours and ranks each other hand holds.
    let hints: Vec<String> = g
        .legal_names()
        .into_iter()
        .filter(|m| m.starts_with("hint 1"))
        .collect();
    assert_eq!(
        hints,
        [
            "hint 1 colour red",
            "hint 1 colour yellow",
            "hint 1 colour blue",
            "hint 1 colour white",
            "hint 1 rank 1",
            "hint 1 rank 2",
            "hint 1 rank 3"
        ]
    );
}

#[test]
fn the_third_fuse_ends_the_game_with_score_zero() {
    let mut g = position(&FOUR, &["white 5", "blue 5"]);
    for m in ["play 1", "play 2", "play 2", "play 2"] {
        play(&mut g, m); // red 1 plays; white 3, green 2, yellow 3 misplay
    }
    let o = g.outcome().expect("over");
    assert_eq!((o.ending, o.score.clone()), (Ending::Fuses, vec![0; 4]));
    assert_eq!(
        (g.hand(3).len(), g.log()[3].drew),
        (3, false),
        "the game is over: no draw"
    );
    let r = g.results().unwrap();
    assert_eq!(r["fusesLeft"], 0);
    assert_eq!(r["misplays"], 3);
    assert_eq!(r["fireworks"]["red"], 1);
    assert_eq!(r["reason"], "complete");
    assert!(g.legal_moves().is_empty());
    assert!(matches!(
        g.read_move("play 1"),
        Err(CoreError::Move {
            fault: MoveFault::Illegal,
            ..
        })
    ));
}

#[test]
fn when_the_deck_runs_out_every_seat_takes_one_more_turn() {
    let mut g = position(&FOUR, &[]);
    g.next_draw = (DECK_SIZE - 1) as u8;
    g.fireworks = [1, 0, 0, 0, 0];
    g.hints = 3;
    play(&mut g, "discard 4"); // seat 0 draws the last card
    assert_eq!((g.deck_count(), g.final_turns()), (0, Some(4)));
    assert_eq!(g.view_for(1)["finalTurnsLeft"], 4);
    play(&mut g, "discard 4"); // seat 1: no draw, three cards left
    assert_eq!(g.hand(1).len(), 3);
    play(&mut g, "hint 0 rank 2");
    play(&mut g, "hint 0 colour red");
    assert_eq!((g.final_turns(), g.active_seat()), (Some(1), Some(0)));
    assert!(g.outcome().is_none());
    play(&mut g, "play 3"); // seat 0's red 2 (slot 2 became slot 3 after the draw) plays
    let o = g.outcome().expect("over after every seat's last turn");
    assert_eq!(
        (o.ending, o.score.clone()),
        (Ending::FinalRound, vec![2; 4])
    );
    assert_eq!(g.results().unwrap()["turns"], 5);
}

#[test]
fn twenty_five_is_perfect() {
    let mut g = position(&FOUR, &[]);
    g.fireworks = [5, 5, 4, 5, 5];
    play(&mut g, "play 4"); // green 5
    let o = g.outcome().unwrap();
    assert_eq!((o.ending, o.score[0]), (Ending::Perfect, 25));
    assert_eq!(
        (g.hand(0).len(), g.deck_count()),
        (3, 34),
        "the game is over: no draw"
    );
}

#[test]
fn the_turn_cap_and_the_wall_clock_score_the_fireworks() {
    let mut g = position(&FOUR, &[]);
    g.fireworks = [2, 1, 0, 0, 0];
    g.turn = MAX_TURNS - 1;
    play(&mut g, "hint 1 rank 1");
    let o = g.outcome().unwrap();
    assert_eq!((o.ending, o.score[3]), (Ending::TurnCap, 3));
    let mut g = position(&FOUR, &[]);
    g.fireworks = [1, 0, 0, 0, 0];
    g.settle_deadline();
    let r = g.results().unwrap();
    assert_eq!(
        (
            r["ending"].as_str(),
            r["reason"].as_str(),
            r["score"][0].as_i64()
        ),
        (Some("wall-clock"), Some("deadline"), Some(1))
    );
    assert_eq!(r["hintTokens"], 8);
    assert_eq!(r["deckCount"], 34);
    assert_eq!(r["turns"], 0);
}

// ---- the reader ----

#[test]
fn the_reader_takes_canonical_text_and_obvious_variants() {
    let mut g = position(&FOUR, &[]);
    g.hints = 5;
    let cases = [
        ("play 1", "play 1"),
        ("PLAY 1", "play 1"),
        ("p1", "play 1"),
        ("Play slot 2.", "play 2"),
        ("play one", "play 1"),
        ("discard 4", "discard 4"),
        ("Discard card #3", "discard 3"),
        ("hint 1 rank 1", "hint 1 rank 1"),
        ("hint 1 number 1", "hint 1 rank 1"),
        ("hint 1 1", "hint 1 rank 1"),
        ("hint seat 1 rank one", "hint 1 rank 1"),
        ("clue 1 ones", "hint 1 rank 1"),
        ("hint 2 rank 4", "hint 2 rank 4"),
        ("hint 1 colour blue", "hint 1 colour blue"),
        ("hint 1 color blue", "hint 1 colour blue"),
        ("hint 1 blue", "hint 1 colour blue"),
        ("hint 1 b", "hint 1 colour blue"),
        ("Hint player 3: Reds", "hint 3 colour red"),
        ("hint to 2 colour WHITE", "hint 2 colour white"),
    ];
    for (text, want) in cases {
        let mv = g
            .read_move(text)
            .unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(g.move_name(mv), want, "{text:?}");
    }
}

#[test]
fn the_reader_refuses_with_a_reason() {
    let mut g = position(&FOUR, &[]);
    g.hints = 5;
    let unparseable = [
        ("", "no play, discard or hint"),
        ("pass", "no play, discard or hint"),
        ("play", "exactly one slot"),
        ("play 1 2", "exactly one slot"),
        ("play x", "not a slot number"),
        ("hint 1", "takes a seat number"),
        ("hint 1 purple", "neither a colour nor a rank"),
        ("hint 1 rank red", "not a rank"),
        ("hint 1 colour 3", "not a colour"),
        ("hint blue 1", "not a seat number"),
        ("hint 1 rank 6", "not a rank"),
        ("hint 1 shade red", "not a hint kind"),
    ];
    for (text, why) in unparseable {
        let (f, reason) = fault(&g, text);
        assert_eq!(f, MoveFault::Unparseable, "{text:?}: {reason}");
        assert!(reason.contains(why), "{text:?}: {reason}");
    }
    let err = g.read_move("pass").unwrap_err().to_string();
    assert!(err.contains("legal moves: play 1, play 2"), "{err}");
    for (text, why) in [
        ("play 0", "slot 0 does not exist"),
        ("discard 9", "slot 9"),
        ("hint 9 red", "seat 9"),
    ] {
        let (f, reason) = fault(&g, text);
        assert_eq!(f, MoveFault::Illegal, "{text:?}");
        assert!(reason.contains(why), "{text:?}: {reason}");
    }
}

#[test]
fn every_legal_move_reads_back_to_itself() {
    for seed in 1..40 {
        let mut g = Hanabi::new(2 + seed as usize % 4, seed);
        let mut rng = Rng::new(seed);
        while !g.is_terminal() {
            for mv in g.legal_moves() {
                assert_eq!(g.read_move(&g.move_name(mv)).unwrap(), mv);
            }
            let mv = crate::game::random_policy(&g, &mut rng);
            g.apply(mv);
        }
    }
}

// ---- knowledge on hand-built positions ----

fn know(
    colour: Option<&str>,
    rank: Option<u8>,
    not_colours: &[&str],
    not_ranks: &[u8],
) -> Knowledge {
    let c = |n: &str| COLOURS.iter().position(|x| *x == n).unwrap() as u8;
    Knowledge {
        colour: colour.map(c),
        rank: rank.map(|r| r - 1),
        not_colours: not_colours.iter().fold(0, |m, n| m | 1 << c(n)),
        not_ranks: not_ranks.iter().fold(0, |m, r| m | 1 << (r - 1)),
        touched: Some(0),
    }
}

fn set_knowledge(g: &mut Hanabi, seat: Seat, ks: &[Knowledge]) {
    for (k, kn) in ks.iter().enumerate() {
        g.cards.hands[seat][k].know = *kn;
    }
}

fn cands(g: &Hanabi, seat: Seat) -> Vec<Vec<String>> {
    let (c, n) = g.candidates_of(&g.table(), seat);
    c[..n].iter().map(|&m| names(m)).collect()
}

#[test]
fn candidates_count_visible_copies_and_other_pinned_cards_but_not_the_own_slot() {
    let mut g = position(
        &[
            &["blue 1", "green 1", "green 1", "green 1"],
            &["red 1", "red 1", "yellow 1", "yellow 1"],
            &["red 1", "white 1", "white 1", "white 1"],
            &["yellow 1", "blue 1", "blue 1", "red 5"],
        ],
        &[],
    );
    let pinned = know(Some("green"), Some(1), &[], &[]);
    set_knowledge(
        &mut g,
        0,
        &[
            know(None, Some(1), &[], &[]),
            Knowledge::default(),
            Knowledge::default(),
            Knowledge::default(),
        ],
    );
    // Seat 0 sees every red, yellow and white 1 and two blue 1s.
    assert_eq!(cands(&g, 0)[0], ["green 1", "blue 1"]);
    set_knowledge(
        &mut g,
        0,
        &[know(None, Some(1), &[], &[]), pinned, pinned, pinned],
    );
    let c = cands(&g, 0);
    assert_eq!(c[0], ["blue 1"], "three green 1s pinned by hints");
    assert_eq!(
        c[1],
        ["green 1"],
        "a pinned card does not count against itself"
    );
    let table = g.table();
    let seen = g.seen_by(&table, 0);
    let (k, n) = g.knowledge_of(0);
    assert_eq!(
        knowledge::remaining_copies(&seen, &k[..n], 0, id("blue 1")),
        1
    );
    assert_eq!(
        knowledge::remaining_copies(&seen, &k[..n], 0, id("green 1")),
        0
    );
    assert_eq!(
        knowledge::remaining_copies(&seen, &k[..n], 1, id("green 1")),
        1
    );
    assert_eq!(
        knowledge::remaining_copies(&seen, &k[..n], 0, id("white 2")),
        2
    );
    let (cs, _) = g.candidates_of(&table, 0);
    assert!(cs[..4].iter().all(|&c| known_playable(&table, c)));
    let v = g.view_for(0);
    assert_eq!(
        v["hands"][0][0]["knowledge"]["remainingCopies"]["blue 1"],
        1
    );
    assert_eq!(v["hands"][0][0]["knowledge"]["knownPlayable"], true);
}

#[test]
fn one_pass_no_propagation_between_cards() {
    let mut g = position(&FOUR, &[]);
    g.cards.hands[1][0].id = id("blue 1");
    g.cards.hands[1][1].id = id("blue 1");
    for c in ["red 1", "yellow 1", "green 1", "white 1"] {
        g.discarded[id(c) as usize] = 3;
    }
    set_knowledge(
        &mut g,
        0,
        &[
            know(None, Some(1), &[], &[]),
            know(Some("blue"), None, &[], &[]),
        ],
    );
    let c = cands(&g, 0);
    assert_eq!(c[0], ["blue 1"], "only one blue 1 is unseen");
    // Slot 1 must be that blue 1, but it is not pinned by hints: slot 2 keeps it.
    assert_eq!(c[1], ["blue 1", "blue 2", "blue 3", "blue 4", "blue 5"]);
}

#[test]
fn known_playable_known_dead_critical_and_chop() {
    let mut g = position(
        &[
            &["red 1", "yellow 3", "red 3", "blue 1"],
            &["green 4", "white 3", "red 4", "yellow 5"],
            &["green 1", "green 2", "white 1", "blue 4"],
            &["white 2", "yellow 3", "blue 2", "red 5"],
        ],
        &[],
    );
    g.fireworks = [2, 0, 0, 0, 0];
    g.discarded[id("yellow 2") as usize] = 2;
    g.discarded[id("green 4") as usize] = 1;
    set_knowledge(
        &mut g,
        0,
        &[
            know(Some("red"), None, &[], &[3, 4, 5]),
            know(Some("yellow"), None, &[], &[1]),
            know(Some("red"), Some(3), &[], &[]),
            know(None, Some(1), &[], &[]),
        ],
    );
    let table = g.table();
    let (c, _) = g.candidates_of(&table, 0);
    assert_eq!(names(c[0]), ["red 1", "red 2"]);
    // The yellow 5 is in seat 1's hand, so it is no candidate; 3 and 4 are stranded.
    assert_eq!(names(c[1]), ["yellow 3", "yellow 4"]);
    assert_eq!(names(c[2]), ["red 3"]);
    let flags: Vec<(bool, bool)> = c[..4]
        .iter()
        .map(|&m| (known_playable(&table, m), known_dead(&table, m)))
        .collect();
    assert_eq!(
        flags,
        [(false, true), (false, true), (true, false), (false, false)]
    );
    // Every slot carries a hint: the chop is the highest known-dead slot.
    assert_eq!(g.chop_of(&table, 0), Some(1));
    // Critical: the last green 4 and red 5; the stranded yellow 5 is dead instead.
    let crit: Vec<bool> = g
        .hand(1)
        .iter()
        .map(|c| table.critical & bit(c.id) != 0)
        .collect();
    assert_eq!(crit, [true, false, false, false]);
    assert_eq!(g.view()["hands"][3][3]["critical"], true);
    // Chop: the highest slot with no positive hint, else the oldest card.
    assert_eq!(g.chop_of(&table, 1), Some(3));
    set_knowledge(
        &mut g,
        1,
        &[
            Knowledge::default(),
            Knowledge::default(),
            Knowledge::default(),
            know(None, Some(5), &[], &[]),
        ],
    );
    assert_eq!(g.chop_of(&table, 1), Some(2));
    let k = know(Some("white"), None, &[], &[]);
    set_knowledge(&mut g, 1, &[k, k, k, k]);
    assert_eq!(g.chop_of(&table, 1), Some(3));
    let v = g.view_for(0);
    assert_eq!(v["chop"][0], 2);
    assert_eq!(v["hands"][0][1]["chop"], true);
    assert!(
        v["hands"][0][0].get("card").is_none(),
        "own cards are knowledge only"
    );
    assert_eq!(v["hands"][0][1]["knowledge"]["knownDead"], true);
    assert_eq!(v["hands"][1][0]["card"], "green 4");
}

// ---- invariants over whole games ----

fn each_state(seeds: std::ops::Range<i64>, policy: Policy<Hanabi>, mut f: impl FnMut(&Hanabi)) {
    for seed in seeds {
        let mut g = Hanabi::new(2 + (seed as usize % 4), seed);
        while !g.is_terminal() {
            f(&g);
            let mut rng = Rng::for_decision(seed, g.turn());
            let mv = policy(&g, &mut rng);
            assert!(
                g.legal_moves().contains(&mv),
                "illegal baseline move {mv:?}"
            );
            g.apply(mv);
        }
        f(&g);
    }
}

#[test]
fn a_card_is_always_among_its_own_candidates() {
    for policy in [
        baselines::conventions as Policy<Hanabi>,
        crate::game::random_policy::<Hanabi>,
    ] {
        each_state(1..150, policy, |g| {
            let table = g.table();
            for s in 0..g.seats() {
                let (c, n) = g.candidates_of(&table, s);
                for (k, (cand, card)) in c[..n].iter().zip(g.hand(s)).enumerate() {
                    assert!(cand & bit(card.id) != 0, "seat {s} slot {}", k + 1);
                }
            }
        });
    }
}

#[test]
fn the_baselines_never_misplay_and_are_deterministic() {
    for (name, policy) in [
        ("conventions", baselines::conventions as Policy<Hanabi>),
        ("cautious", baselines::cautious),
    ] {
        let mut total = 0;
        for seed in 1..300 {
            let g = Hanabi::new(2 + seed as usize % 4, seed);
            let seats = g.seats();
            let rec = crate::simulate::play_out(g.clone(), &vec![policy; seats], seed, 9);
            let again = crate::simulate::play_out(g, &vec![policy; seats], seed, 9);
            assert_eq!(rec, again);
            total += rec.score[0];
        }
        let mut misplays = 0;
        each_state(1..100, policy, |g| misplays = g.counters().0);
        assert_eq!(misplays, 0, "{name}");
        assert!(total > 0, "{name}");
    }
}

#[test]
fn conventions_follows_its_rules_in_order() {
    let mut rng = Rng::new(1);
    // Rule 3 at the start: rank 1 makes two cards playable for seats 1 and 2; seat 1 acts sooner.
    let g = position(&FOUR, &[]);
    assert_eq!(
        g.move_name(baselines::conventions(&g, &mut rng)),
        "hint 1 rank 1"
    );
    // Rule 1: a knownPlayable slot plays first, the lowest-numbered one.
    let mut g1 = g.clone();
    set_knowledge(
        &mut g1,
        0,
        &[
            Knowledge::default(),
            know(None, Some(1), &[], &[]),
            know(None, Some(1), &[], &[]),
        ],
    );
    assert_eq!(
        g1.move_name(baselines::conventions(&g1, &mut rng)),
        "play 2"
    );
    // Rule 2: seat 1's chop (slot 4) is the only red 5... made critical: yellow 2 with one copy gone.
    let mut g2 = g.clone();
    g2.discarded[id("yellow 2") as usize] = 1;
    assert_eq!(
        g2.move_name(baselines::conventions(&g2, &mut rng)),
        "hint 1 rank 2"
    );
    // Rules 4 and 5: nothing playable to point at.
    let mut g3 = g.clone();
    g3.fireworks = [3, 3, 3, 4, 3];
    assert_eq!(
        g3.move_name(baselines::conventions(&g3, &mut rng)),
        "hint 1 rank 2",
        "rule 5: fewest cards, rank first"
    );
    g3.hints = 4;
    assert_eq!(
        g3.move_name(baselines::conventions(&g3, &mut rng)),
        "discard 4"
    );
}

#[test]
fn cautious_follows_its_rules_in_order() {
    let mut rng = Rng::new(1);
    let g = position(&FOUR, &[]);
    // Rule 2: seat 1's blue 1 is playable and unhinted.
    assert_eq!(
        g.move_name(baselines::cautious(&g, &mut rng)),
        "hint 1 rank 1"
    );
    // Rule 1 needs a single candidate: a rank-1 hint alone is not enough.
    let mut g1 = g.clone();
    set_knowledge(
        &mut g1,
        0,
        &[
            know(None, Some(1), &[], &[]),
            know(Some("red"), Some(1), &[], &[]),
        ],
    );
    assert_eq!(g1.move_name(baselines::cautious(&g1, &mut rng)), "play 2");
    // Rule 4 at 8 tokens, rule 3 below.
    let mut g3 = g.clone();
    g3.fireworks = [3, 3, 3, 4, 3];
    assert_eq!(
        g3.move_name(baselines::cautious(&g3, &mut rng)),
        "hint 1 rank 2"
    );
    g3.hints = 4;
    assert_eq!(
        g3.move_name(baselines::cautious(&g3, &mut rng)),
        "discard 4"
    );
}

#[test]
fn the_fast_random_policy_is_the_uniform_pick_over_the_legal_list() {
    let mut seen = 0;
    each_state(1..200, crate::game::random_policy::<Hanabi>, |g| {
        if g.is_terminal() {
            return;
        }
        for salt in 0..3 {
            let (mut a, mut b) = (
                Rng::new(salt + g.turn() as i64),
                Rng::new(salt + g.turn() as i64),
            );
            assert_eq!(
                baselines::random(g, &mut a),
                crate::game::random_policy(g, &mut b)
            );
            seen += 1;
        }
    });
    assert!(seen > 3000);
}

// ---- the SDK's leak check ----

/// Seat `seat`'s own identities and the undrawn deck, shuffled together; its
/// knowledge (the hints it heard) stays on its slots.
fn scramble(g: &Hanabi, seat: Seat, rng: &mut Rng) -> Hanabi {
    let mut h = g.clone();
    let n = h.lens[seat] as usize;
    let d = h.next_draw as usize;
    let mut pool: Vec<CardId> = h.cards.hands[seat][..n]
        .iter()
        .map(|c| c.id)
        .chain(h.cards.deck[d..].iter().copied())
        .collect();
    rng.shuffle(&mut pool);
    for (k, &c) in pool[..n].iter().enumerate() {
        h.cards.hands[seat][k].id = c;
    }
    h.cards.deck[d..].copy_from_slice(&pool[n..]);
    h
}

#[test]
fn a_seat_view_never_depends_on_its_own_cards_or_the_deck() {
    let mut rng = Rng::new(77);
    let (mut checked, mut others_changed) = (0, 0);
    each_state(1..120, crate::game::random_policy::<Hanabi>, |g| {
        for seat in 0..g.seats() {
            let h = scramble(g, seat, &mut rng);
            assert_eq!(
                g.view_for(seat),
                h.view_for(seat),
                "seat {seat} turn {}",
                g.turn()
            );
            assert_eq!(g.active_seat() == Some(seat), h.active_seat() == Some(seat));
            checked += 1;
            let other = (seat + 1) % g.seats();
            others_changed += (g.view_for(other) != h.view_for(other)) as u32;
        }
    });
    assert!(checked > 1000);
    assert!(
        others_changed > checked / 2,
        "the scramble must change what other seats see"
    );
}

#[test]
#[ignore = "timing probe, run by hand"]
fn timing_probe() {
    use std::time::Instant;
    let n = 200_000;
    let t = Instant::now();
    let mut x = 0u64;
    for seed in 0..n {
        let g = Hanabi::new(4, seed);
        x += g.deck_count() as u64;
    }
    println!("new: {:?}/game", t.elapsed() / n as u32);
    let t = Instant::now();
    for seed in 0..n {
        let g = Hanabi::new(4, seed);
        let p = [baselines::random as Policy<Hanabi>; 4];
        x += crate::simulate::play_out(g, &p, seed, 9).plies as u64;
    }
    println!("random game: {:?}/game", t.elapsed() / n as u32);
    let t = Instant::now();
    for seed in 0..n {
        let s = crate::registry::State::new("hanabi", &serde_json::Value::Null, seed + 1).unwrap();
        x += s.plies() as u64;
    }
    println!("State::new: {:?}/game", t.elapsed() / n as u32);
    let t = Instant::now();
    for seed in 0..n / 20 {
        let g = Hanabi::new(4, seed);
        let p = [baselines::conventions as Policy<Hanabi>; 4];
        x += crate::simulate::play_out(g, &p, seed, 9).plies as u64;
    }
    println!("conventions game: {:?}/game", t.elapsed() / (n / 20) as u32);
    // Candidate-set derivation for one holder, on positions from real games.
    let mut states = Vec::new();
    each_state(1..50, baselines::conventions, |g| states.push(g.clone()));
    let t = Instant::now();
    let reps = 200;
    for _ in 0..reps {
        for g in &states {
            let table = g.table();
            let (c, _) = g.candidates_of(&table, g.turn() as usize % g.seats());
            x += c[0] as u64;
        }
    }
    let calls = (reps * states.len()) as u32;
    println!("table + seen + candidates: {:?}/call", t.elapsed() / calls);
    let tables: Vec<(Table, Seen, [Knowledge; MAX_HAND], usize)> = states
        .iter()
        .map(|g| {
            let table = g.table();
            let seat = g.turn() as usize % g.seats();
            let (k, n) = g.knowledge_of(seat);
            (table, g.seen_by(&table, seat), k, n)
        })
        .collect();
    let t = Instant::now();
    for _ in 0..reps {
        for (_, seen, k, n) in &tables {
            let mut out = [0u32; MAX_HAND];
            knowledge::candidates(*seen, std::hint::black_box(&k[..*n]), &mut out);
            x += out[0] as u64;
        }
    }
    println!("candidates kernel: {:?}/call {x}", t.elapsed() / calls);
}

#[test]
fn reply_words_read_with_the_move_reader_vocabulary() {
    use super::reader::read_word;
    let cases = [
        ("action", "Clue", Some("hint")),
        ("action", " PLAY ", Some("play")),
        ("action", "juggle", None),
        ("action", "play 3", None),
        ("number", "#2", Some("2")),
        ("number", "seat 1", Some("1")),
        ("number", "three", Some("3")),
        ("number", "first", None),
        ("hintType", "Color", Some("colour")),
        ("hintType", "number", Some("rank")),
        ("hintType", "shade", None),
        ("colour", "REDS", Some("red")),
        ("colour", "3", None),
        ("rank", "four", Some("4")),
        ("rank", "3.0", Some("3")),
        ("rank", "7", None),
        ("rank", "red", None),
        ("size", "3", None),
    ];
    for (kind, text, want) in cases {
        assert_eq!(read_word(kind, text).as_deref(), want, "{kind} {text:?}");
    }
}

// ---- baselines see what their seat sees ----

/// Positions the mover cannot tell apart (its own cards and the deck scrambled)
/// get the same move from every baseline, with the same decision stream.
#[test]
fn every_baseline_is_a_function_of_the_movers_view() {
    let mut rng = Rng::new(2026);
    let mut checked = [0u32; 3];
    let mut differs = Vec::new();
    let policies: [(&str, Policy<Hanabi>); 3] = [
        ("conventions", baselines::conventions),
        ("cautious", baselines::cautious),
        ("random", baselines::random),
    ];
    // Histories from every baseline, at 2-5 seats.
    for (_, history) in policies {
        each_state(1..100, history, |g| {
            let Some(me) = g.active_seat() else { return };
            for _ in 0..2 {
                let h = scramble(g, me, &mut rng);
                assert_eq!(g.view_for(me), h.view_for(me));
                for (i, (name, policy)) in policies.iter().enumerate() {
                    let a = policy(g, &mut Rng::for_decision(5, g.turn()));
                    let b = policy(&h, &mut Rng::for_decision(5, g.turn()));
                    if a != b && differs.len() < 5 {
                        differs.push(format!(
                            "{name}, {} seats, turn {}: {} with {:?}, {} with {:?}",
                            g.seats(),
                            g.turn(),
                            g.move_name(a),
                            hand_names(g, me),
                            h.move_name(b),
                            hand_names(&h, me),
                        ));
                    }
                    checked[i] += 1;
                }
            }
        });
    }
    assert!(differs.is_empty(), "{}", differs.join("\n"));
    assert!(checked.iter().all(|&n| n > 10_000), "{checked:?}");
}

/// A seat's own candidate sets are its true ones; another seat's, as inferred,
/// contain that seat's true ones (so an inferred knownPlayable truly is), and
/// are sometimes strictly larger (the viewer cannot see its own cards).
#[test]
fn inferred_knowledge_contains_the_true_knowledge() {
    let (mut pairs, mut wider) = (0, 0);
    each_state(1..120, baselines::conventions, |g| {
        let table = g.table();
        for viewer in 0..g.seats() {
            let v = g.seat_view(viewer);
            for holder in 0..g.seats() {
                let (truth, n) = g.candidates_of(&table, holder);
                let (inferred, m) = v.candidates(holder);
                assert_eq!(n, m);
                for k in 0..n {
                    if holder == viewer {
                        assert_eq!(inferred[k], truth[k]);
                    } else {
                        assert_eq!(inferred[k] & truth[k], truth[k]);
                        wider += (inferred[k] != truth[k]) as u32;
                        pairs += 1;
                    }
                }
            }
        }
    });
    assert!(pairs > 10_000 && wider > 0, "{pairs} {wider}");
}

/// Seat 1 sees seat 0's red 1 and the two discarded ones, so it knows its
/// hinted 1 is not red. Seat 0 can infer that only once it knows its own
/// slot 1 is that red 1.
#[test]
fn the_viewer_counts_its_own_known_cards_among_what_others_see() {
    let mut g = position(
        &[
            &["red 1", "red 2", "yellow 1", "green 5"],
            &["blue 1", "white 3", "green 2", "yellow 2"],
            &["green 1", "green 2", "white 1", "blue 4"],
            &["white 2", "yellow 3", "blue 2", "red 5"],
        ],
        &[],
    );
    g.discarded[id("red 1") as usize] = 2;
    set_knowledge(&mut g, 1, &[know(None, Some(1), &[], &[])]);
    let truth = names(g.candidates_of(&g.table(), 1).0[0]);
    assert_eq!(truth, ["yellow 1", "green 1", "blue 1", "white 1"]);
    let inferred = |g: &Hanabi| names(g.seat_view(0).candidates(1).0[0]);
    assert_eq!(inferred(&g)[0], "red 1", "seat 0 cannot see its own red 1");
    set_knowledge(&mut g, 0, &[know(Some("red"), Some(1), &[], &[])]);
    assert_eq!(inferred(&g), truth);
}

#[test]
fn a_shuffled_deal_restarts_from_a_new_seed_and_a_forced_deck_does_not() {
    let shuffled = Hanabi::new(3, 5);
    assert_eq!(shuffled.restart(8), Some(Hanabi::new(3, 8)));
    let forced = Hanabi::from_deck(3, shuffled.cards.deck);
    assert_eq!(forced.restart(8), None);
    // The registry's states agree: a forced `deck` setting reaches the batch
    // simulator as a state that declines to restart.
    let names: Vec<String> = shuffled.cards.deck.iter().map(|&c| card_name(c)).collect();
    let config = serde_json::json!({"seats": 3, "deck": names});
    let built = crate::registry::State::new("hanabi", &config, 8).unwrap();
    match built.inner {
        crate::registry::AnyState::Hanabi(g) => assert_eq!(g.restart(9), None),
        _ => panic!("not hanabi"),
    }
}
