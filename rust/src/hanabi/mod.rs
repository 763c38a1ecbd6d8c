//! Hanabi (the rules: docs/rules/hanabi.md).
//!
//! Standard deck (red, yellow, green, blue, white; ranks 1-5 with 3/2/2/2/1
//! copies), 2-5 seats (4 cards each at 4-5 seats, 5 at 2-3), 8 hint tokens,
//! 3 fuses, turn cap 100. Slot 1 is the newest card: a drawn card enters slot 1
//! and older cards move up, so the oldest card has the highest slot number.
//! Internally slots are 0-based (index 0 is slot 1); every name a person or a
//! model reads is 1-based.

pub mod baselines;
pub mod knowledge;
pub mod reader;
pub mod seat_view;
pub mod tracker;
mod view;

use serde_json::Value;

use crate::catalog::{CardFaces, Entry, Origin, Seats};
use crate::error::CoreResult;
use crate::game::{Ending, Game, Outcome, Seat};
use crate::policy::Baseline;
use crate::rng::Rng;
use knowledge::{
    bit, card_id, colour_mask, colour_of, copies, rank0_of, rank_mask, CardId, Knowledge, Seen,
    Table, COLOURS, NUM_IDS,
};

pub const MIN_SEATS: usize = 2;
pub const MAX_SEATS: usize = 5;
pub const DEFAULT_SEATS: usize = 4;
pub const MAX_HAND: usize = 5;
pub const DECK_SIZE: usize = 50;
pub const MAX_HINTS: u8 = 8;
pub const MAX_FUSES: u8 = 3;
pub const MAX_TURNS: u32 = 100;
pub const PERFECT: u8 = 25;

/// Its catalogue entry.
pub const ENTRY: Entry = Entry {
    id: "hanabi",
    family: "hanabi",
    seats: Seats {
        min: MIN_SEATS,
        max: MAX_SEATS,
        default: DEFAULT_SEATS,
    },
    settings: &["seats", "deck"],
    baselines: crate::policy::catalog_rows::<Hanabi>,
    endings: &[
        Ending::Perfect,
        Ending::FinalRound,
        Ending::Fuses,
        Ending::TurnCap,
        Ending::WallClock,
    ],
    score: (0, PERFECT as i32),
    ply_cap: MAX_TURNS,
    hidden: true,
    origin: Origin::Port("hanabi"),
    rotation: &[],
    seat_names: &[],
    cooperative: true,
    pieces: Some("cards"),
    notation: Some("card-action"),
    standing_scale: None,
    cards: Some(CardFaces {
        colours: &knowledge::COLOURS,
        ranks: knowledge::NUM_RANKS as u8,
    }),
};

/// Cards per hand: 5 at two or three seats, 4 at four or five.
pub const fn hand_size(seats: usize) -> usize {
    if seats <= 3 {
        5
    } else {
        4
    }
}

/// A move. Slots are 0-based here (0 is slot 1); `target` is an absolute seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HanabiMove {
    Play(u8),
    Discard(u8),
    HintColour { target: u8, colour: u8 },
    HintRank { target: u8, rank: u8 },
}

/// A card in a hand: its identity and what its holder knows of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Card {
    pub id: CardId,
    pub know: Knowledge,
}

/// What a turn did, for the public move log.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Effect {
    /// The card joined its firework.
    Played(CardId),
    /// The card did not fit: a fuse burned and it went to the discard pile.
    Misplayed(CardId),
    Discarded(CardId),
    /// The hint named these slots (bit k = slot k+1).
    Hinted {
        touched: u8,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogEntry {
    pub turn: u16,
    pub seat: u8,
    pub mv: HanabiMove,
    pub effect: Effect,
    /// A replacement card was drawn (its identity is not public to the drawer).
    pub drew: bool,
}

/// The physical cards: the whole shuffled deck, every hand and the discard pile.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Cards {
    deck: [CardId; DECK_SIZE],
    /// `hands[s][k]` is seat s's slot k+1 (index 0 is the newest card).
    hands: [[Card; MAX_HAND]; MAX_SEATS],
    /// The discards in order (the first `Hanabi::piled`): inline, so an episode
    /// allocates no pile.
    pile: [CardId; DECK_SIZE],
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hanabi {
    seats: u8,
    /// Deck and hands, boxed so every game state in the registry's enum stays small.
    cards: Box<Cards>,
    /// Index of the next card to draw from `cards.deck`.
    next_draw: u8,
    /// `lens[s]` cards of `cards.hands[s]` are live.
    lens: [u8; MAX_SEATS],
    fireworks: [u8; 5],
    /// Copies of each identity in the discard pile; `cards.pile` keeps the order.
    discarded: [u8; NUM_IDS],
    piled: u8,
    hints: u8,
    fuses: u8,
    turn: u32,
    mover: u8,
    /// Turns left once the deck has run out (armed at the last draw).
    final_turns: Option<u8>,
    log: Vec<LogEntry>,
    misplays: u16,
    discards: u16,
    hints_given: u16,
    outcome: Option<Outcome>,
    /// Dealt by shuffling from a seed (not a forced deck): another seed deals
    /// another episode of the same config ([`Game::restart`]).
    shuffled: bool,
}

impl Hanabi {
    /// A game whose deck is shuffled from `seed` with the one PRNG.
    pub fn new(seats: usize, seed: i64) -> Hanabi {
        let mut deck = full_deck();
        Rng::new(seed).shuffle(&mut deck);
        Hanabi {
            shuffled: true,
            ..Hanabi::from_deck(seats, deck)
        }
    }

    /// A game dealt from `deck` in order: seat 0 receives the first cards, then
    /// seat 1, ...; each card dealt enters slot 1. Tests and peers use it to force a deal.
    pub fn from_deck(seats: usize, deck: [CardId; DECK_SIZE]) -> Hanabi {
        assert!(
            (MIN_SEATS..=MAX_SEATS).contains(&seats),
            "hanabi takes 2-5 seats"
        );
        let mut g = Hanabi {
            seats: seats as u8,
            cards: Box::new(Cards {
                deck,
                hands: [[Card::default(); MAX_HAND]; MAX_SEATS],
                pile: [0; DECK_SIZE],
            }),
            next_draw: 0,
            lens: [0; MAX_SEATS],
            fireworks: [0; 5],
            discarded: [0; NUM_IDS],
            piled: 0,
            hints: MAX_HINTS,
            fuses: MAX_FUSES,
            turn: 0,
            mover: 0,
            final_turns: None,
            log: Vec::with_capacity(MAX_TURNS as usize),
            misplays: 0,
            discards: 0,
            hints_given: 0,
            outcome: None,
            shuffled: false,
        };
        // Seat 0 takes the first cards, each entering slot 1: its last card dealt is slot 1.
        let h = hand_size(seats);
        for seat in 0..seats {
            for (k, slot) in g.cards.hands[seat][..h].iter_mut().enumerate() {
                slot.id = deck[seat * h + h - 1 - k];
            }
            g.lens[seat] = h as u8;
        }
        g.next_draw = (seats * h) as u8;
        g
    }

    // ---- public facts ----

    pub fn seats(&self) -> usize {
        self.seats as usize
    }
    pub fn turn(&self) -> u32 {
        self.turn
    }
    pub fn hint_tokens(&self) -> u8 {
        self.hints
    }
    pub fn fuses(&self) -> u8 {
        self.fuses
    }
    pub fn fireworks(&self) -> &[u8; 5] {
        &self.fireworks
    }
    pub fn discarded(&self) -> &[u8; NUM_IDS] {
        &self.discarded
    }
    pub fn deck_count(&self) -> usize {
        DECK_SIZE - self.next_draw as usize
    }
    /// The undrawn cards in draw order (spectators only).
    pub fn deck_order(&self) -> &[CardId] {
        &self.cards.deck[self.next_draw as usize..]
    }
    /// Turns left in the final round, once the deck has run out.
    pub fn final_turns(&self) -> Option<u8> {
        self.final_turns
    }
    pub fn log(&self) -> &[LogEntry] {
        &self.log
    }
    /// The fireworks' sum (the score while the game runs).
    pub fn fireworks_score(&self) -> u8 {
        self.fireworks.iter().sum()
    }
    pub fn hand(&self, seat: Seat) -> &[Card] {
        &self.cards.hands[seat][..self.lens[seat] as usize]
    }
    /// Seat `seat`'s hint knowledge, slot order (stack copy).
    pub fn knowledge_of(&self, seat: Seat) -> ([Knowledge; MAX_HAND], usize) {
        let mut out = [Knowledge::default(); MAX_HAND];
        let hand = self.hand(seat);
        for (o, c) in out.iter_mut().zip(hand) {
            *o = c.know;
        }
        (out, hand.len())
    }
    pub fn table(&self) -> Table {
        Table::new(&self.fireworks, &self.discarded)
    }

    /// Every copy `holder` can see outside its own hand: fireworks, discards, other hands.
    pub fn seen_by(&self, table: &Table, holder: Seat) -> Seen {
        let mut seen = table.gone;
        for s in (0..self.seats()).filter(|&s| s != holder) {
            for c in self.hand(s) {
                seen.add(bit(c.id));
            }
        }
        seen
    }

    /// Candidate sets of `holder`'s cards from its own point of view, slot order.
    pub fn candidates_of(&self, table: &Table, holder: Seat) -> ([u32; MAX_HAND], usize) {
        let (know, n) = self.knowledge_of(holder);
        let mut out = [0u32; MAX_HAND];
        knowledge::candidates(self.seen_by(table, holder), &know[..n], &mut out);
        (out, n)
    }

    /// `holder`'s chop (0-based slot) from its own knowledge.
    pub fn chop_of(&self, table: &Table, holder: Seat) -> Option<usize> {
        let (cands, n) = self.candidates_of(table, holder);
        let (know, _) = self.knowledge_of(holder);
        knowledge::chop(table, &know[..n], &cands[..n])
    }

    // ---- rules ----

    fn draw(&mut self, seat: Seat) -> bool {
        if self.next_draw as usize >= DECK_SIZE {
            return false;
        }
        let id = self.cards.deck[self.next_draw as usize];
        self.next_draw += 1;
        let n = self.lens[seat] as usize;
        self.cards.hands[seat].copy_within(0..n, 1);
        self.cards.hands[seat][0] = Card {
            id,
            know: Knowledge::default(),
        };
        self.lens[seat] += 1;
        true
    }

    fn remove(&mut self, seat: Seat, slot: usize) -> Card {
        let n = self.lens[seat] as usize;
        let card = self.cards.hands[seat][slot];
        self.cards.hands[seat].copy_within(slot + 1..n, slot);
        self.lens[seat] -= 1;
        card
    }

    fn discard_card(&mut self, id: CardId) {
        self.discarded[id as usize] += 1;
        self.cards.pile[self.piled as usize] = id;
        self.piled += 1;
    }

    /// Tell `target` which of its cards are in `named` (a colour or rank mask).
    fn hint(&mut self, target: Seat, named: u32, hear: impl Fn(&mut Knowledge, bool)) -> u8 {
        let mut touched = 0u8;
        let n = self.lens[target] as usize;
        for (k, card) in self.cards.hands[target][..n].iter_mut().enumerate() {
            let m = bit(card.id) & named != 0;
            hear(&mut card.know, m);
            touched |= (m as u8) << k;
        }
        touched
    }

    /// Which slots (bit k = slot k+1) of the target's hand a hint names; 0 for plays and discards.
    pub fn hint_touches(&self, mv: HanabiMove) -> u8 {
        let (target, named) = match mv {
            HanabiMove::HintColour { target, colour } => (target, colour_mask(colour as usize)),
            HanabiMove::HintRank { target, rank } => (target, rank_mask(rank as usize)),
            _ => return 0,
        };
        self.hand(target as usize)
            .iter()
            .enumerate()
            .fold(0, |m, (k, c)| m | (((bit(c.id) & named != 0) as u8) << k))
    }

    fn settle(&mut self) {
        let ending = if self.fuses == 0 {
            Ending::Fuses
        } else if self.fireworks_score() == PERFECT {
            Ending::Perfect
        } else if self.final_turns == Some(0) {
            Ending::FinalRound
        } else if self.turn >= MAX_TURNS {
            Ending::TurnCap
        } else {
            return;
        };
        let score = if ending == Ending::Fuses {
            0
        } else {
            self.fireworks_score() as i32
        };
        self.outcome = Some(Outcome::shared(score, self.seats(), ending));
    }

    /// Every hint the mover may give: targets in turn order, colours then ranks.
    pub(crate) fn legal_hints(&self, out: &mut Vec<HanabiMove>) {
        let me = self.mover as usize;
        let n = self.seats();
        for off in 1..n {
            let target = (me + off) % n;
            let (mut colours, mut ranks) = (0u8, 0u8);
            for c in self.hand(target) {
                colours |= 1 << colour_of(c.id);
                ranks |= 1 << rank0_of(c.id);
            }
            push_hints(out, target, colours, ranks);
        }
    }
}

/// The hints naming one of `colours`, then one of `ranks` (5-bit masks), to `target`.
fn push_hints(out: &mut Vec<HanabiMove>, target: Seat, colours: u8, ranks: u8) {
    let t = target as u8;
    out.extend(
        (0..5u8)
            .filter(|c| colours & (1 << c) != 0)
            .map(|colour| HanabiMove::HintColour { target: t, colour }),
    );
    out.extend(
        (0..5u8)
            .filter(|r| ranks & (1 << r) != 0)
            .map(|rank| HanabiMove::HintRank { target: t, rank }),
    );
}

/// The 50 cards in identity order (red 1 x3, red 2 x2, ...).
pub fn full_deck() -> [CardId; DECK_SIZE] {
    let mut deck = [0; DECK_SIZE];
    let mut i = 0;
    for id in 0..NUM_IDS as CardId {
        for _ in 0..copies(id) {
            deck[i] = id;
            i += 1;
        }
    }
    deck
}

/// A forced deal (the `deck` setting): 50 card names in draw order, which must be
/// exactly the standard deck. Seat 0 is dealt first, each card entering slot 1.
pub fn deck_from_names(names: &[String]) -> Result<[CardId; DECK_SIZE], String> {
    if names.len() != DECK_SIZE {
        return Err(format!("a deck has {DECK_SIZE} cards, not {}", names.len()));
    }
    let mut deck = [0; DECK_SIZE];
    for (i, name) in names.iter().enumerate() {
        deck[i] = parse_card(name)
            .ok_or_else(|| format!("card {} is {name:?}, not a card like \"red 3\"", i + 1))?;
    }
    let mut sorted = deck;
    sorted.sort_unstable();
    if sorted != full_deck() {
        return Err(
            "the cards are not the standard deck (3/2/2/2/1 copies of ranks 1-5 per colour)".into(),
        );
    }
    Ok(deck)
}

/// The identity named `colour rank` (rank 1-5), for tests and readers.
pub fn parse_card(name: &str) -> Option<CardId> {
    let mut it = name.split_whitespace();
    let word = it.next()?;
    let colour = COLOURS.iter().position(|c| *c == word)?;
    let rank: usize = it.next()?.parse().ok()?;
    ((1..=5).contains(&rank) && it.next().is_none()).then(|| card_id(colour, rank - 1))
}

impl Game for Hanabi {
    type Move = HanabiMove;

    fn id(&self) -> &'static str {
        "hanabi"
    }
    fn num_seats(&self) -> usize {
        self.seats()
    }
    crate::game::state_accessors!(turn);

    /// A shuffled deal is dealt again from the new seed; a forced deck is not (the
    /// registry rebuilds it, the same for every seed).
    fn restart(&self, seed: i64) -> Option<Self> {
        self.shuffled.then(|| Hanabi::new(self.seats(), seed))
    }

    /// A live game scores its fireworks.
    fn adjudicate(&self, ending: Ending) -> Outcome {
        Outcome::shared(self.fireworks_score() as i32, self.seats(), ending)
    }

    fn legal_moves_into(&self, out: &mut Vec<HanabiMove>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let n = self.lens[self.mover as usize];
        out.extend((0..n).map(HanabiMove::Play));
        if self.hints < MAX_HINTS {
            out.extend((0..n).map(HanabiMove::Discard));
        }
        if self.hints > 0 {
            self.legal_hints(out);
        }
    }

    fn apply(&mut self, mv: HanabiMove) {
        debug_assert!(self.outcome.is_none());
        let me = self.mover as usize;
        let turn = self.turn as u16;
        let armed = self.final_turns.is_some();
        let mut drew = false;
        let effect = match mv {
            HanabiMove::Play(slot) => {
                let card = self.remove(me, slot as usize);
                let (c, r) = (colour_of(card.id), rank0_of(card.id));
                let effect = if self.fireworks[c] as usize == r {
                    self.fireworks[c] += 1;
                    if r == 4 && self.hints < MAX_HINTS {
                        self.hints += 1;
                    }
                    Effect::Played(card.id)
                } else {
                    self.fuses -= 1;
                    self.misplays += 1;
                    self.discard_card(card.id);
                    Effect::Misplayed(card.id)
                };
                // The third fuse or the 25th card ends the game at once: nobody draws.
                if self.fuses > 0 && self.fireworks_score() < PERFECT {
                    drew = self.draw(me);
                }
                effect
            }
            HanabiMove::Discard(slot) => {
                let card = self.remove(me, slot as usize);
                self.discard_card(card.id);
                self.hints += 1;
                self.discards += 1;
                drew = self.draw(me);
                Effect::Discarded(card.id)
            }
            HanabiMove::HintColour { target, colour } => {
                self.hints -= 1;
                self.hints_given += 1;
                let named = colour_mask(colour as usize);
                let touched = self.hint(target as usize, named, |k, m| {
                    k.hear_colour(colour, m, turn)
                });
                Effect::Hinted { touched }
            }
            HanabiMove::HintRank { target, rank } => {
                self.hints -= 1;
                self.hints_given += 1;
                let named = rank_mask(rank as usize);
                let touched = self.hint(target as usize, named, |k, m| k.hear_rank(rank, m, turn));
                Effect::Hinted { touched }
            }
        };
        self.log.push(LogEntry {
            turn,
            seat: me as u8,
            mv,
            effect,
            drew,
        });
        self.turn += 1;
        self.mover = ((me + 1) % self.seats()) as u8;
        if armed {
            self.final_turns = self.final_turns.map(|t| t - 1);
        } else if drew && self.deck_count() == 0 {
            // The last card is drawn: every seat, this one included, takes one more turn.
            self.final_turns = Some(self.seats);
        }
        self.settle();
    }

    fn move_name(&self, mv: HanabiMove) -> String {
        match mv {
            HanabiMove::Play(s) => format!("play {}", s + 1),
            HanabiMove::Discard(s) => format!("discard {}", s + 1),
            HanabiMove::HintColour { target, colour } => {
                format!("hint {target} colour {}", COLOURS[colour as usize])
            }
            HanabiMove::HintRank { target, rank } => format!("hint {target} rank {}", rank + 1),
        }
    }

    fn read_move(&self, text: &str) -> CoreResult<HanabiMove> {
        reader::read_move(self, text)
    }

    fn view(&self) -> Value {
        view::full(self)
    }

    fn view_for(&self, seat: Seat) -> Value {
        view::for_seat(self, seat)
    }

    fn results(&self) -> Option<Value> {
        view::results(self)
    }

    fn baselines() -> &'static [Baseline<Self>] {
        const TABLE: &[Baseline<Hanabi>] = &[
            Baseline::plain("conventions", baselines::conventions),
            Baseline::plain("cautious", baselines::cautious),
            Baseline::plain("random", baselines::random),
            Baseline::plain("tracker", tracker::tracker),
        ];
        TABLE
    }
}

impl Hanabi {
    pub(crate) fn mover(&self) -> Seat {
        self.mover as usize
    }
    pub(crate) fn counters(&self) -> (u16, u16, u16) {
        (self.misplays, self.discards, self.hints_given)
    }
    pub(crate) fn pile(&self) -> &[CardId] {
        &self.cards.pile[..self.piled as usize]
    }
    pub(crate) fn is_over(&self) -> bool {
        self.outcome.is_some()
    }
}

#[cfg(test)]
mod tests;
