//! What one seat sees, and nothing else: the input of every baseline and of
//! `view_for`: a baseline sees what its seat sees.
//!
//! A `SeatView` borrows the game but answers only questions about the
//! fireworks, the discards, every seat's hint knowledge and the other seats'
//! cards: it never reads the seat's own card identities or the deck. A
//! function of a `SeatView` is therefore a function of the seat's view by
//! construction, which is what makes a baseline an honest fallback: its move
//! cannot tell the seat anything about its own hand.
//!
//! Another seat's knowledge is inferred, not read: a holder's candidate sets
//! exclude the copies the holder can see, and the holder also sees the viewer's
//! own hand, which the viewer cannot. So the viewer derives the holder's
//! candidates from the copies it knows the holder sees: fireworks, discards,
//! the hands of every third seat, and those of its own cards whose identity it
//! knows (a single candidate: the holder sees that card, and the viewer knows
//! what it is); then, as always, the holder's own hint-pinned cards. Such a set
//! contains the holder's true one, so a card it calls knownPlayable or
//! knownDead truly is; the viewer only misses what the holder learns from the
//! viewer's cards it cannot name. For the viewer's own hand the same rule gives
//! exactly the seat's own candidate sets.

use super::knowledge::{self, bit, colour_mask, colour_of, rank0_of, rank_mask, Knowledge};
use super::knowledge::{Seen, Table};
use super::{Card, Hanabi, HanabiMove, MAX_HAND};
use crate::game::Seat;
use std::cell::OnceCell;

/// Per identity, the hints that name it: its colour's bit in the low byte,
/// its rank's bit in the high byte (`random` asks every ply).
static NAMES: [u16; knowledge::NUM_IDS] = names();

const fn names() -> [u16; knowledge::NUM_IDS] {
    let mut table = [0; knowledge::NUM_IDS];
    let mut id = 0;
    while id < knowledge::NUM_IDS {
        table[id] = 1 << colour_of(id as u8) | 1 << (8 + rank0_of(id as u8));
        id += 1;
    }
    table
}

pub struct SeatView<'a> {
    /// Private: read only through the methods below, none of which reveals
    /// `me`'s own cards or the deck.
    g: &'a Hanabi,
    /// The seat whose sight this is.
    pub me: Seat,
    /// Derived on first use (the random baseline never needs them).
    derived: OnceCell<Derived>,
}

struct Derived {
    table: Table,
    /// The viewer's own candidate sets.
    own: [u32; MAX_HAND],
    /// The viewer's own cards whose identity those sets pin down.
    own_known: Seen,
}

impl<'a> SeatView<'a> {
    pub fn of(g: &'a Hanabi, me: Seat) -> SeatView<'a> {
        SeatView {
            g,
            me,
            derived: OnceCell::new(),
        }
    }

    fn derived(&self) -> &Derived {
        self.derived.get_or_init(|| {
            let table = self.g.table();
            let mut own = [0u32; MAX_HAND];
            let (know, n) = self.knowledge(self.me);
            knowledge::candidates(self.seen_outside(self.me, table.gone), &know[..n], &mut own);
            let mut own_known = Seen::default();
            for &c in own[..n].iter().filter(|c| c.is_power_of_two()) {
                own_known.add(c);
            }
            Derived {
                table,
                own,
                own_known,
            }
        })
    }

    pub fn seats(&self) -> usize {
        self.g.seats()
    }
    /// The seat to act.
    pub fn mover(&self) -> Seat {
        self.g.mover()
    }
    pub fn hint_tokens(&self) -> u8 {
        self.g.hint_tokens()
    }
    pub fn turn(&self) -> u32 {
        self.g.turn()
    }

    /// The table facts (fireworks and discards).
    pub fn table(&self) -> &Table {
        &self.derived().table
    }

    /// Cards in `seat`'s hand (a public count).
    pub fn hand_len(&self, seat: Seat) -> usize {
        self.g.hand(seat).len()
    }

    /// Another seat's hand face up (identities and hints), slot order.
    pub fn cards(&self, seat: Seat) -> &'a [Card] {
        assert_ne!(seat, self.me, "a seat never sees its own cards");
        self.g.hand(seat)
    }

    /// The hints `seat`'s cards have received, slot order (public).
    pub fn knowledge(&self, seat: Seat) -> ([Knowledge; MAX_HAND], usize) {
        self.g.knowledge_of(seat)
    }

    /// The seat `offset` places after the mover.
    pub fn after_mover(&self, offset: usize) -> Seat {
        (self.mover() + offset) % self.seats()
    }

    /// The copies `me` knows `holder` sees (outside `holder`'s hand): fireworks,
    /// discards, the hands of every seat but these two and, for another holder,
    /// `me`'s own cards of known identity. For `me` itself: all it sees outside its hand.
    pub fn seen_with(&self, holder: Seat) -> Seen {
        let d = self.derived();
        let mut seen = self.seen_outside(holder, d.table.gone);
        if holder != self.me {
            seen.add_all(&d.own_known);
        }
        seen
    }

    /// `gone` plus the hands of every seat but `me` and `holder`.
    fn seen_outside(&self, holder: Seat, gone: Seen) -> Seen {
        let mut seen = gone;
        for s in (0..self.seats()).filter(|&s| s != self.me && s != holder) {
            for c in self.cards(s) {
                seen.add(bit(c.id));
            }
        }
        seen
    }

    /// `holder`'s candidate sets as `me` can infer them (see the module doc), slot order.
    pub fn candidates(&self, holder: Seat) -> ([u32; MAX_HAND], usize) {
        if holder == self.me {
            return (self.derived().own, self.hand_len(holder));
        }
        let (know, n) = self.knowledge(holder);
        let mut out = [0u32; MAX_HAND];
        knowledge::candidates(self.seen_with(holder), &know[..n], &mut out);
        (out, n)
    }

    /// `holder`'s chop (0-based slot) from those candidate sets.
    pub fn chop(&self, holder: Seat) -> Option<usize> {
        let (cands, n) = self.candidates(holder);
        let (know, _) = self.knowledge(holder);
        knowledge::chop(self.table(), &know[..n], &cands[..n])
    }

    /// The colours and the ranks (5-bit masks) present in another seat's hand:
    /// exactly the hints that may name it.
    pub fn nameable(&self, seat: Seat) -> (u8, u8) {
        let both = self
            .cards(seat)
            .iter()
            .fold(0, |m, card| m | NAMES[card.id as usize]);
        (both as u8, (both >> 8) as u8)
    }

    /// Which slots (bit k = slot k+1) of the target's hand a hint names; 0 for plays and discards.
    pub fn hint_touches(&self, mv: HanabiMove) -> u8 {
        let (target, named) = match mv {
            HanabiMove::HintColour { target, colour } => (target, colour_mask(colour as usize)),
            HanabiMove::HintRank { target, rank } => (target, rank_mask(rank as usize)),
            _ => return 0,
        };
        self.cards(target as usize)
            .iter()
            .enumerate()
            .fold(0, |m, (k, c)| m | (((bit(c.id) & named != 0) as u8) << k))
    }

    /// Every hint the mover may give (the mover's own view only): targets in
    /// turn order, colours then ranks, as `Hanabi::legal_moves` lists them.
    pub fn legal_hints(&self, out: &mut Vec<HanabiMove>) {
        debug_assert_eq!(self.me, self.mover());
        if self.hint_tokens() == 0 {
            return;
        }
        for off in 1..self.seats() {
            let target = self.after_mover(off);
            let (colours, ranks) = self.nameable(target);
            super::push_hints(out, target, colours, ranks);
        }
    }
}

impl Hanabi {
    /// What `seat` sees (see `SeatView`).
    pub fn seat_view(&self, seat: Seat) -> SeatView<'_> {
        SeatView::of(self, seat)
    }
}
