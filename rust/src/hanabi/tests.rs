//! Rules, knowledge, reader, leak and baseline tests on hand-built positions.

use super::knowledge::{self, card_name, known_dead, known_playable, names};
use super::*;
use crate::error::{CoreError, MoveFault};

fn id(name: &str) -> CardId {
    parse_card(name).unwrap_or_else(|| panic!("bad card {name:?}"))
}

/// A game whose hands are exactly `hands` (slot order, slot 1 first) and whose
/// next draws are `draws`, the rest of the deck following in identity order.
fn position(hands: &[&[&str]], draws: &[&str]) -> Hanabi {
    let seats = hands.len();
    let mut left = [0u8; NUM_IDS];
    for i in 0..NUM_IDS {
        left[i] = copies(i as CardId);
    }
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
    let mut all: Vec<CardId> = (0..4).flat_map(|s| a.hand(s).iter().map(|c| c.id)).collect();
    all.extend_from_slice(a.deck_order());
    all.sort();
    assert_eq!(all, full_deck().to_vec());
    assert_eq!(a, Hanabi::new(4, 1));
    assert_ne!(a.deck_order(), Hanabi::new(4, 2).deck_order());
}

#[test]
fn slot_one_is_the_newest_card() {
    let mut g = position(&FOUR, &["white 5", "blue 5"]);
    assert_eq!(hand_names(&g, 0), ["red 1", "red 2", "yellow 1", "green 5"]);
    play(&mut g, "discard 2"); // not at 8 tokens? 8 tokens: discarding is illegal, so hint first
}
