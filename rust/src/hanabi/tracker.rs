//! `tracker`: SmartBot (Quuxplusone/Hanabi `SmartBot.cc`) in the engine's
//! terms, a pure function of the mover's own view: the public log, the other
//! seats' hands and its own hint knowledge. It never reads its own cards or
//! the deck.
//!
//! **Public knowledge.** Every decision replays the public log from the deal
//! and keeps, for every card in every hand, the set of identities it may be
//! as every seat can derive it (the seat's "knol"): the hints it heard, the
//! conventions below, and the located-card rule: a card not yet identified
//! cannot be an identity whose copies are all played, discarded or held as
//! identified cards (iterated to a fixpoint before every move). From a knol:
//! playable / valuable (the last copy, not dead) / worthless (dead) as yes,
//! maybe or no, and the share of its identities that are each.
//!
//! **Cards others will play count as played.** Hints point at what plays on
//! the *virtual* fireworks: the real ones advanced by every card any knol
//! identifies as playable on them, repeatedly (a known red 1 in one hand lets
//! a hint mark a red 2 in another). Only a real play is ever made: the red 2
//! waits until the red 1 is down. This and moves 6 and 7 are not in SmartBot.
//!
//! **Conventions** (how every seat reads a move):
//! - *Next discard* of a seat: none when a knol is known playable or known
//!   worthless (it should play or drop that), else of its cards not known
//!   valuable the most likely worthless, the oldest on ties.
//! - *Play hint*: a hint's cards hear it; unless some card that might play
//!   (virtually) is now known to, the newest touched card that still might
//!   play (virtually) is known to.
//! - *Warning*: a rank hint to the seat after the giver that touches its next
//!   discard, when that card could be valuable with that rank, marks it
//!   valuable (and is not a play hint). Any other move while the deck lasts
//!   and a token is left says the next seat's next discard is not valuable.
//! - *Discard finesse*: discarding a card known to be a playable identity
//!   tells the one other seat whose newest card is that identity (the mover
//!   itself when it sees none).
//! - *Token reclaim*: at 8 tokens, a rank hint to the seat before the giver
//!   touching its oldest card says nothing.
//!
//! **Moves**, the first that applies (own knols refined by the mover's sight
//! of every other hand):
//! 1. once the deck is out, play as in 4, else a mystery card as in 8;
//! 2. the next seat's next discard is valuable: the best play hint for it, if
//!    any, else its rank (a warning);
//! 3. a discard finesse, when exactly one other seat's newest card matches;
//! 4. play a card surely playable, first one others do not know it knows, then
//!    the lowest rank;
//! 5. the best play hint over all other seats: it must make a card known
//!    to play (virtually) or point its newest touched card that might at one
//!    that truly does, and not read as a warning; the most candidates removed
//!    wins, the nearer seat on ties;
//! 6. with 4 tokens or more while the deck lasts, an information hint: one
//!    that reads as no play hint (it leaves no touched card that might play
//!    in doubt, so no card is marked) and settles at least two cards (they
//!    become identified, known worthless or known valuable), the most settled
//!    wins (not in SmartBot);
//! 7. with 1 to 3 cards left in the deck, a token, and a card another seat
//!    knows plays: stall with the hint of 6 that settles the most, even none
//!    (a discard would draw, and bring the last round nearer; not in SmartBot);
//! 8. near the end of the deck, with two or three fuses left (at most three
//!    cards in the deck at three fuses, one at two), play the own card most
//!    likely to play, if any may;
//! 9. at 8 tokens: the token reclaim hint; else discard a worthless card, else
//!    the own next discard, else the highest-ranked (all valuable) card.
//!
//! The engine's third misplay scores zero (SmartBot's source keeps the
//! fireworks), so the mystery plays of 1 and 8 never burn the last fuse.

use super::knowledge::{bit, colour_mask, colour_of, copies, rank0_of, rank_mask, Table, NUM_IDS};
use super::{hand_size, Effect, Hanabi, HanabiMove, DECK_SIZE, MAX_HAND, MAX_HINTS, MAX_SEATS};
use crate::game::Seat;
use crate::rng::Rng;

const ALL: u32 = (1 << NUM_IDS) - 1;
/// Tokens needed before an information hint (step 6), and the cards it must settle.
const INFO_TOKENS: u8 = 4;
const INFO_SETTLES: u32 = 2;
/// Cards left in the deck at or under which a seat stalls (step 7).
const STALL_DECK: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tri {
    No,
    Maybe,
    Yes,
}

/// Whether every, some or none of the identities in `mask` lie in `set`.
fn tri(mask: u32, set: u32) -> Tri {
    let hit = mask & set;
    if hit == mask {
        Tri::Yes
    } else if hit == 0 {
        Tri::No
    } else {
        Tri::Maybe
    }
}

/// The share of `mask`'s identities in `set`.
fn share(mask: u32, set: u32) -> f32 {
    (mask & set).count_ones() as f32 / mask.count_ones().max(1) as f32
}

/// The rank0 every identity of `mask` shares, if one.
fn rank_of(mask: u32) -> Option<usize> {
    (0..5).find(|&r| mask & !rank_mask(r) == 0)
}

/// `mask` kept to `keep`, unless that leaves nothing (a misread convention):
/// then what the hints alone allow, kept to `keep` where that is not empty.
fn narrow(mask: u32, keep: u32, hinted: u32) -> u32 {
    if mask & keep != 0 {
        mask & keep
    } else if hinted & keep != 0 {
        hinted & keep
    } else {
        mask
    }
}

/// Could `mask` be valuable if its rank were `rank0`?
fn could_be_valuable_with(mask: u32, rank0: usize, table: &Table) -> bool {
    mask & rank_mask(rank0) != 0
        && tri(mask, table.critical) == Tri::Maybe
        && tri(mask & rank_mask(rank0), table.critical) != Tri::No
}

/// The public picture replayed from the log, from `me`'s seat.
struct Replay {
    seats: usize,
    me: Seat,
    /// Every card's knol: the identities it may be.
    poss: [[u32; MAX_HAND]; MAX_SEATS],
    /// What the hints alone allow (the fallback of `narrow`).
    hinted: [[u32; MAX_HAND]; MAX_SEATS],
    /// The deck position each card was drawn from.
    drawn: [[u8; MAX_HAND]; MAX_SEATS],
    lens: [usize; MAX_SEATS],
    fireworks: [u8; 5],
    discarded: [u8; NUM_IDS],
    hints: u8,
    deck: usize,
    table: Table,
    /// Identities that play once every identified playable card (and the
    /// ones these make playable) has played: what hints point at.
    vplay: u32,
}

impl Replay {
    fn deal(seats: usize, me: Seat) -> Replay {
        let h = hand_size(seats);
        let mut drawn = [[0u8; MAX_HAND]; MAX_SEATS];
        for (s, hand) in drawn.iter_mut().enumerate().take(seats) {
            for (k, d) in hand.iter_mut().enumerate().take(h) {
                *d = (s * h + h - 1 - k) as u8;
            }
        }
        Replay {
            seats,
            me,
            poss: [[ALL; MAX_HAND]; MAX_SEATS],
            hinted: [[ALL; MAX_HAND]; MAX_SEATS],
            drawn,
            lens: [h; MAX_SEATS],
            fireworks: [0; 5],
            discarded: [0; NUM_IDS],
            hints: MAX_HINTS,
            deck: DECK_SIZE - seats * h,
            table: Table::new(&[0; 5], &[0; NUM_IDS]),
            vplay: Table::new(&[0; 5], &[0; NUM_IDS]).playable,
        }
    }

    /// The identity of every card drawn from the deck that `me` may know: the
    /// ones played or discarded (public) and the ones in other seats' hands now.
    fn identities(g: &Hanabi, me: Seat) -> [Option<u8>; DECK_SIZE] {
        let mut r = Replay::deal(g.seats(), me);
        let mut ids = [None; DECK_SIZE];
        for e in g.log() {
            if let (HanabiMove::Play(k) | HanabiMove::Discard(k), effect) = (e.mv, e.effect) {
                let id = match effect {
                    Effect::Played(id) | Effect::Misplayed(id) | Effect::Discarded(id) => id,
                    Effect::Hinted { .. } => unreachable!("a play or discard reveals its card"),
                };
                let seat = e.seat as usize;
                ids[r.drawn[seat][k as usize] as usize] = Some(id);
                r.remove(seat, k as usize, e.drew);
            }
        }
        for s in (0..g.seats()).filter(|&s| s != me) {
            for (k, card) in g.hand(s).iter().enumerate() {
                ids[r.drawn[s][k] as usize] = Some(card.id);
            }
        }
        ids
    }

    /// Remove slot `k` of `seat` (older cards move down a slot) and, if a card
    /// was drawn, put a fresh one in slot 0.
    fn remove(&mut self, seat: Seat, k: usize, drew: bool) {
        let n = self.lens[seat];
        self.poss[seat].copy_within(k + 1..n, k);
        self.hinted[seat].copy_within(k + 1..n, k);
        self.drawn[seat].copy_within(k + 1..n, k);
        self.lens[seat] = n - 1;
        if drew {
            self.poss[seat].copy_within(0..n - 1, 1);
            self.hinted[seat].copy_within(0..n - 1, 1);
            self.drawn[seat].copy_within(0..n - 1, 1);
            self.poss[seat][0] = ALL;
            self.hinted[seat][0] = ALL;
            self.drawn[seat][0] = (DECK_SIZE - self.deck) as u8;
            self.deck -= 1;
            self.lens[seat] = n;
        }
    }

    fn set(&mut self, seat: Seat, k: usize, keep: u32) {
        self.poss[seat][k] = narrow(self.poss[seat][k], keep, self.hinted[seat][k]);
    }

    /// Copies of each identity played or discarded.
    fn gone(&self, id: usize) -> u8 {
        self.discarded[id]
            + (rank0_of(id as u8) < self.fireworks[colour_of(id as u8)] as usize) as u8
    }

    /// The identities with every copy gone or held by a card in `held`.
    fn accounted(&self, held: &[u8; NUM_IDS]) -> u32 {
        (0..NUM_IDS)
            .filter(|&id| self.gone(id) + held[id] >= copies(id as u8))
            .fold(0, |m, id| m | 1 << id)
    }

    /// Identified cards rule their identity out of every other unidentified
    /// card, to a fixpoint.
    fn locate(&mut self) {
        let mut before = [0u8; NUM_IDS];
        let mut first = true;
        loop {
            let mut held = [0u8; NUM_IDS];
            for s in 0..self.seats {
                for &m in &self.poss[s][..self.lens[s]] {
                    if m.is_power_of_two() {
                        held[m.trailing_zeros() as usize] += 1;
                    }
                }
            }
            if !first && held == before {
                return;
            }
            first = false;
            before = held;
            let out = !self.accounted(&held);
            for s in 0..self.seats {
                for k in 0..self.lens[s] {
                    if !self.poss[s][k].is_power_of_two() {
                        self.set(s, k, out);
                    }
                }
            }
        }
    }

    /// The identities playable once every identified card that plays, in
    /// any hand, has played (repeatedly).
    fn virtual_playable(&self) -> u32 {
        let mut h = self.fireworks;
        loop {
            let mut grew = false;
            for s in 0..self.seats {
                for &m in &self.poss[s][..self.lens[s]] {
                    if m.is_power_of_two() {
                        let id = m.trailing_zeros() as u8;
                        if rank0_of(id) == h[colour_of(id)] as usize {
                            h[colour_of(id)] += 1;
                            grew = true;
                        }
                    }
                }
            }
            if !grew {
                break;
            }
        }
        (0..5).filter(|&c| h[c] < 5).fold(0, |m, c| {
            m | bit(super::knowledge::card_id(c, h[c] as usize))
        })
    }

    /// `seat`'s next discard by the public conventions (see the module doc).
    fn next_discard(&self, seat: Seat) -> Option<usize> {
        let t = &self.table;
        let mut best: Option<(f32, usize)> = None;
        for k in (0..self.lens[seat]).rev() {
            let m = self.poss[seat][k];
            if tri(m, t.playable) == Tri::Yes || tri(m, t.dead) == Tri::Yes {
                return None;
            }
            if tri(m, t.critical) == Tri::Yes {
                continue;
            }
            let fit = share(m, t.dead);
            if best.is_none_or(|(b, _)| fit > b) {
                best = Some((fit, k));
            }
        }
        best.map(|(_, k)| k)
    }

    /// A move other than a warning: the next seat's next discard is not valuable.
    fn no_warning(&mut self, from: Seat) {
        if self.deck == 0 || self.hints == 0 {
            return;
        }
        let next = (from + 1) % self.seats;
        if let Some(d) = self.next_discard(next) {
            self.set(next, d, !self.table.critical);
        }
    }

    fn hear_hint(&mut self, from: Seat, mv: HanabiMove, touched: u8) {
        let (to, named, rank) = match mv {
            HanabiMove::HintColour { target, colour } => {
                (target as usize, colour_mask(colour as usize), None)
            }
            HanabiMove::HintRank { target, rank } => (
                target as usize,
                rank_mask(rank as usize),
                Some(rank as usize),
            ),
            _ => return,
        };
        let expecting = (from + 1) % self.seats;
        let n = self.lens[to];
        let (mut warning, mut reclaim) = (false, false);
        if let Some(r) = rank {
            reclaim = self.hints == MAX_HINTS
                && from == (to + 1) % self.seats
                && touched >> (n - 1) & 1 == 1;
            if !reclaim && to == expecting {
                if let Some(d) = self.next_discard(to) {
                    if touched >> d & 1 == 1
                        && could_be_valuable_with(self.poss[to][d], r, &self.table)
                    {
                        warning = true;
                        self.set(to, d, self.table.critical);
                    }
                }
            }
        }
        let playable = self.vplay;
        let (mut identified, mut inferred) = (false, None);
        for k in 0..n {
            let was_maybe = tri(self.poss[to][k], playable) == Tri::Maybe;
            let keep = if touched >> k & 1 == 1 { named } else { !named };
            self.hinted[to][k] &= keep;
            self.set(to, k, keep);
            let now = tri(self.poss[to][k], playable);
            if was_maybe {
                if now == Tri::Yes {
                    identified = true;
                } else if now == Tri::Maybe && touched >> k & 1 == 1 && inferred.is_none() {
                    inferred = Some(k);
                }
            }
        }
        if !warning && !reclaim && !identified {
            if let Some(k) = inferred {
                self.set(to, k, playable);
            }
        }
        if to != expecting {
            self.no_warning(from);
        }
    }

    fn of(g: &Hanabi, me: Seat) -> Replay {
        let ids = Replay::identities(g, me);
        let mut r = Replay::deal(g.seats(), me);
        for e in g.log() {
            r.locate();
            r.vplay = r.virtual_playable();
            let from = e.seat as usize;
            match (e.mv, e.effect) {
                (HanabiMove::Play(k) | HanabiMove::Discard(k), effect) => {
                    let k = k as usize;
                    r.no_warning(from);
                    match effect {
                        Effect::Played(id) => {
                            r.fireworks[colour_of(id)] += 1;
                            if rank0_of(id) == 4 && r.hints < MAX_HINTS {
                                r.hints += 1;
                            }
                        }
                        Effect::Misplayed(id) => r.discarded[id as usize] += 1,
                        Effect::Discarded(id) => {
                            let m = r.poss[from][k];
                            if m == bit(id) && tri(m, r.table.playable) == Tri::Yes {
                                r.finesse(from, id, &ids);
                            }
                            r.discarded[id as usize] += 1;
                            r.hints += 1;
                        }
                        Effect::Hinted { .. } => {}
                    }
                    r.remove(from, k, e.drew);
                }
                (mv, Effect::Hinted { touched }) => {
                    r.hear_hint(from, mv, touched);
                    r.hints -= 1;
                }
                _ => unreachable!("a hint reports what it touched"),
            }
            r.table = Table::new(&r.fireworks, &r.discarded);
        }
        r.locate();
        r.vplay = r.virtual_playable();
        r
    }

    /// A discard finesse of `id` by `from`: the one other seat whose newest
    /// card is `id` holds it; `me` when it sees none.
    fn finesse(&mut self, from: Seat, id: u8, ids: &[Option<u8>; DECK_SIZE]) {
        let holder = (0..self.seats)
            .filter(|&p| p != from && p != self.me)
            .find(|&p| ids[self.drawn[p][0] as usize] == Some(id))
            .unwrap_or(self.me);
        self.set(holder, 0, bit(id));
    }
}

/// What `me` makes of its own cards: the public knols refined by every copy
/// it sees in the other hands and its own identified cards.
fn eyesight(g: &Hanabi, r: &Replay) -> [u32; MAX_HAND] {
    let me = r.me;
    let mut held = [0u8; NUM_IDS];
    for s in (0..r.seats).filter(|&s| s != me) {
        for c in g.hand(s) {
            held[c.id as usize] += 1;
        }
    }
    for &m in &r.poss[me][..r.lens[me]] {
        if m.is_power_of_two() {
            held[m.trailing_zeros() as usize] += 1;
        }
    }
    let out = !r.accounted(&held);
    let mut eye = r.poss[me];
    for (k, m) in eye.iter_mut().enumerate().take(r.lens[me]) {
        if !m.is_power_of_two() {
            *m = narrow(*m, out, r.hinted[me][k]);
        }
    }
    eye
}

/// The best play hint for `to` (see the module doc), with the candidates it
/// removes; or with `info`, the best hint that reads as no play hint (no card
/// that might play is left that way), with the cards it settles; `None` when
/// no hint is fit.
fn best_hint_for(g: &Hanabi, r: &Replay, to: Seat, info: bool) -> Option<(u32, HanabiMove)> {
    let t = &r.table;
    let hand = g.hand(to);
    let n = hand.len();
    let old = &r.poss[to][..n];
    let avoid = if to == (r.me + 1) % r.seats {
        r.next_discard(to).and_then(|d| {
            let rank = rank0_of(hand[d].id);
            could_be_valuable_with(old[d], rank, t).then_some(rank)
        })
    } else {
        None
    };
    let (mut colours, mut ranks) = (0u8, 0u8);
    for c in hand {
        colours |= 1 << colour_of(c.id);
        ranks |= 1 << rank0_of(c.id);
    }
    let hints = (0..5u8)
        .filter(|c| colours >> c & 1 == 1)
        .map(|colour| HanabiMove::HintColour {
            target: to as u8,
            colour,
        })
        .chain(
            (0..5u8)
                .filter(|r| ranks >> r & 1 == 1 && Some(*r as usize) != avoid)
                .map(|rank| HanabiMove::HintRank {
                    target: to as u8,
                    rank,
                }),
        );
    let mut best: Option<(u32, HanabiMove)> = None;
    for mv in hints {
        let named = match mv {
            HanabiMove::HintColour { colour, .. } => colour_mask(colour as usize),
            HanabiMove::HintRank { rank, .. } => rank_mask(rank as usize),
            _ => unreachable!(),
        };
        let mut reveals = false;
        let mut misleading = None;
        let (mut gain, mut settles) = (0, 0);
        for k in 0..n {
            let touched = bit(hand[k].id) & named != 0;
            let new = narrow(old[k], if touched { named } else { !named }, ALL);
            // `narrow` falls back to the hint alone when the tracked knowledge
            // contradicts it: that card gains nothing (not a wrapped-around u32).
            gain += old[k].count_ones().saturating_sub(new.count_ones());
            let settled = |m: u32| {
                m.is_power_of_two() || tri(m, t.dead) == Tri::Yes || tri(m, t.critical) == Tri::Yes
            };
            settles += (!settled(old[k]) && settled(new)) as u32;
            if tri(old[k], r.vplay) != Tri::Maybe {
                continue;
            }
            match tri(new, r.vplay) {
                Tri::Yes => reveals = true,
                Tri::Maybe if touched && misleading.is_none() => {
                    misleading = Some(r.vplay & bit(hand[k].id) == 0)
                }
                _ => {}
            }
        }
        let (fit, gain) = if info {
            (!reveals && misleading.is_none(), settles)
        } else {
            (reveals || misleading == Some(false), gain)
        };
        if fit && best.is_none_or(|(b, _)| gain > b) {
            best = Some((gain, mv));
        }
    }
    best
}

/// Steps 5 to 7: the best play (or information) hint over the other seats,
/// the nearer on ties, if its gain reaches `least`.
fn best_hint(g: &Hanabi, r: &Replay, info: bool, least: u32) -> Option<HanabiMove> {
    let mut best: Option<(u32, HanabiMove)> = None;
    for i in 1..r.seats {
        if let Some((gain, mv)) = best_hint_for(g, r, (r.me + i) % r.seats, info) {
            if best.is_none_or(|(b, _)| gain > b) {
                best = Some((gain, mv));
            }
        }
    }
    best.filter(|&(gain, _)| gain >= least).map(|(_, mv)| mv)
}

/// Steps 1 and 4: a surely playable own card (see the module doc).
fn play_surely(r: &Replay, eye: &[u32; MAX_HAND]) -> Option<HanabiMove> {
    let t = &r.table;
    let me = r.me;
    let mut best: Option<(i32, usize)> = None;
    for k in (0..r.lens[me]).rev() {
        if tri(r.poss[me][k], t.playable) == Tri::No || tri(eye[k], t.playable) != Tri::Yes {
            continue;
        }
        let mut fit = 6 - rank_of(eye[k]).map_or(-1, |r| r as i32 + 1);
        if tri(r.poss[me][k], t.playable) != Tri::Yes {
            fit += 100;
        }
        if best.is_none_or(|(b, _)| fit > b) {
            best = Some((fit, k));
        }
    }
    best.map(|(_, k)| HanabiMove::Play(k as u8))
}

/// Steps 1 and 8: the card most likely to play, near the end of the deck.
fn play_mystery(g: &Hanabi, r: &Replay, eye: &[u32; MAX_HAND]) -> Option<HanabiMove> {
    // Cards left in the deck under which to gamble, by fuses left; never the last fuse.
    const UNDER: [i32; 4] = [-99, -99, 1, 3];
    if g.deck_count() as i32 > UNDER[g.fuses().min(3) as usize] {
        return None;
    }
    let mut best: Option<(f32, usize)> = None;
    for (k, &m) in eye.iter().enumerate().take(r.lens[r.me]) {
        if tri(m, r.table.playable) == Tri::Maybe {
            let fit = share(m, r.table.playable);
            if best.is_none_or(|(b, _)| fit > b) {
                best = Some((fit, k));
            }
        }
    }
    best.map(|(_, k)| HanabiMove::Play(k as u8))
}

/// The `tracker` baseline (see the module doc).
pub fn tracker(g: &Hanabi, _rng: &mut Rng) -> HanabiMove {
    let me = g.mover();
    let r = Replay::of(g, me);
    let t = &r.table;
    let n = r.lens[me];
    let eye = eyesight(g, &r);
    let tokens = g.hint_tokens();
    if g.deck_count() == 0 {
        if let Some(mv) = play_surely(&r, &eye).or_else(|| play_mystery(g, &r, &eye)) {
            return mv;
        }
    }
    // 2. Warn the next seat off a valuable next discard.
    let next = (me + 1) % r.seats;
    if tokens > 0 {
        if let Some(d) = r.next_discard(next) {
            let id = g.hand(next)[d].id;
            if t.critical & bit(id) != 0 {
                return match best_hint_for(g, &r, next, false) {
                    Some((gain, mv)) if gain > 0 => mv,
                    _ => HanabiMove::HintRank {
                        target: next as u8,
                        rank: rank0_of(id) as u8,
                    },
                };
            }
        }
    }
    // 3. Discard finesse.
    if tokens < MAX_HINTS {
        let newest: Vec<u8> = (1..r.seats)
            .map(|i| g.hand((me + i) % r.seats)[0].id)
            .collect();
        for k in (0..n).rev() {
            let m = r.poss[me][k];
            if m.is_power_of_two()
                && tri(m, t.critical) == Tri::No
                && tri(m, t.playable) == Tri::Yes
                && newest.iter().filter(|&&id| bit(id) == m).count() == 1
            {
                return HanabiMove::Discard(k as u8);
            }
        }
    }
    // 4. Play.
    if let Some(mv) = play_surely(&r, &eye) {
        return mv;
    }
    // 5. Play hints.
    if tokens > 0 {
        if let Some(mv) = best_hint(g, &r, false, 1) {
            return mv;
        }
    }
    // 6. Information hints.
    if tokens >= INFO_TOKENS && g.deck_count() > 0 {
        if let Some(mv) = best_hint(g, &r, true, INFO_SETTLES) {
            return mv;
        }
    }
    // 7. Stall near the end of the deck while another seat has a play waiting.
    let queued = (0..r.seats)
        .filter(|&s| s != me)
        .any(|s| (0..r.lens[s]).any(|k| tri(r.poss[s][k], t.playable) == Tri::Yes));
    if tokens > 0 && (1..=STALL_DECK).contains(&g.deck_count()) && queued {
        if let Some(mv) = best_hint(g, &r, true, 0) {
            return mv;
        }
    }
    // 8. Gamble near the end of the deck.
    if let Some(mv) = play_mystery(g, &r, &eye) {
        return mv;
    }
    // 9. Reclaim a token, or discard.
    if tokens == MAX_HINTS {
        let prev = (me + r.seats - 1) % r.seats;
        let hand = g.hand(prev);
        return HanabiMove::HintRank {
            target: prev as u8,
            rank: rank0_of(hand[hand.len() - 1].id) as u8,
        };
    }
    let mut worthless: Option<(f32, usize)> = None;
    for k in (0..n).rev() {
        let m = r.poss[me][k];
        let w = tri(m, t.dead);
        if w == Tri::No || (w == Tri::Maybe && tri(eye[k], t.dead) != Tri::Yes) {
            continue;
        }
        let fit = 2.0 - share(m, t.dead);
        if worthless.is_none_or(|(b, _)| fit > b) {
            worthless = Some((fit, k));
        }
    }
    if let Some((_, k)) = worthless {
        return HanabiMove::Discard(k as u8);
    }
    if let Some(k) = r.next_discard(me) {
        return HanabiMove::Discard(k as u8);
    }
    // Every card valuable: drop the highest rank (an unknown rank counts lowest).
    let rank = |k: usize| rank_of(r.poss[me][k]).map_or(-1, |x| x as i32);
    let k = (0..n)
        .rev()
        .fold(n - 1, |b, k| if rank(k) > rank(b) { k } else { b });
    HanabiMove::Discard(k as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::simulate::play_out;

    fn mean(seats: usize, seeds: std::ops::Range<i64>) -> f64 {
        let policy = [tracker as crate::game::Policy<Hanabi>; 5];
        let n = seeds.end - seeds.start;
        let total: i64 = seeds
            .map(|seed| {
                let rec = play_out(Hanabi::new(seats, seed), &policy[..seats], seed, 9);
                rec.score[0] as i64
            })
            .sum();
        total as f64 / n as f64
    }

    /// Every knol holds at least what the hints allow and never nothing; the
    /// moves are legal.
    #[test]
    fn knols_refine_the_hints_and_moves_are_legal() {
        for seed in 1..40 {
            let mut g = Hanabi::new(2 + seed as usize % 4, seed);
            while !g.is_terminal() {
                for s in 0..g.seats() {
                    let r = Replay::of(&g, s);
                    for p in 0..g.seats() {
                        let (know, n) = g.knowledge_of(p);
                        assert_eq!(r.lens[p], n);
                        for (k, kn) in know[..n].iter().enumerate() {
                            let m = r.poss[p][k];
                            assert_ne!(m, 0, "seed {seed} seat {p} slot {k}");
                            assert_eq!(m & !kn.hint_mask(), 0, "seed {seed} seat {p}");
                            assert_eq!(r.hinted[p][k], kn.hint_mask());
                        }
                    }
                    assert_eq!(&r.fireworks, g.fireworks());
                    assert_eq!(r.hints, g.hint_tokens());
                    assert_eq!(r.deck, g.deck_count());
                }
                let mv = tracker(&g, &mut Rng::for_decision(seed, g.turn()));
                assert!(g.legal_moves().contains(&mv));
                g.apply(mv);
            }
        }
    }

    /// A deal of 4 seats whose first 16 cards are `names` (seat 0's four
    /// first, each seat's last one its newest), the rest in reverse deck order.
    fn deal(names: [&str; 16]) -> Hanabi {
        let mut rest = crate::hanabi::full_deck().to_vec();
        let mut deck = [0u8; DECK_SIZE];
        for (d, name) in deck.iter_mut().zip(names) {
            *d = crate::hanabi::parse_card(name).unwrap();
            let at = rest.iter().position(|&c| c == *d).unwrap();
            rest.remove(at);
        }
        rest.reverse(); // the draws start with the 5s, far from the red 2
        deck[16..].copy_from_slice(&rest);
        Hanabi::from_deck(4, deck)
    }

    /// A hint to a red 2 while a red 1 is identified in another hand reads
    /// as "plays once the red 1 is down" for every seat, and its holder waits.
    #[test]
    fn hints_point_at_the_virtual_fireworks() {
        let red = |c: &str| crate::hanabi::parse_card(c).unwrap();
        let mut g = deal([
            "white 2", "white 3", "white 4", "yellow 2", // seat 0
            "yellow 3", "green 4", "blue 3", "red 1", // seat 1, red 1 newest
            "yellow 4", "green 3", "blue 4", "red 2", // seat 2, red 2 newest
            "green 2", "blue 2", "yellow 3", "white 1", // seat 3
        ]);
        g.apply(HanabiMove::HintColour {
            target: 1,
            colour: 0,
        });
        for s in 0..4 {
            assert_eq!(Replay::of(&g, s).poss[1][0], bit(red("red 1")), "seat {s}");
        }
        g.apply(HanabiMove::HintColour {
            target: 2,
            colour: 0,
        });
        for s in 0..4 {
            let r = Replay::of(&g, s);
            assert_eq!(r.poss[1][0], bit(red("red 1")), "seat {s}");
            assert_eq!(r.poss[2][0], bit(red("red 2")), "seat {s}");
        }
        // Seat 2 may not play its red 2 before seat 1 plays the red 1.
        let mut rng = Rng::for_decision(1, 2);
        assert_ne!(tracker(&g, &mut rng), HanabiMove::Play(0));
        while g.fireworks()[0] == 0 {
            let mv = tracker(&g, &mut Rng::for_decision(1, g.turn()));
            if g.mover() == 1 {
                assert_eq!(mv, HanabiMove::Play(0), "seat 1 plays its known red 1");
            }
            g.apply(mv);
        }
        // Then seat 2 plays it (after a warning or two at most), with no misplay.
        for _ in 0..12 {
            let mv = tracker(&g, &mut Rng::for_decision(1, g.turn()));
            if let (2, HanabiMove::Play(k)) = (g.mover(), mv) {
                assert_eq!(g.hand(2)[k as usize].id, red("red 2"));
            }
            g.apply(mv);
            if g.fireworks()[0] == 2 {
                break;
            }
        }
        assert_eq!((g.fireworks()[0], g.fuses()), (2, 3));
    }

    #[test]
    fn tracker_outscores_conventions_at_four_seats() {
        let ours = mean(4, 1..201);
        let conv: f64 = (1..=200)
            .map(|seed| {
                let p = [super::super::baselines::conventions as crate::game::Policy<Hanabi>; 4];
                play_out(Hanabi::new(4, seed), &p, seed, 9).score[0] as f64
            })
            .sum::<f64>()
            / 200.0;
        assert!(ours > conv + 4.0, "tracker {ours} vs conventions {conv}");
    }

    /// The bar (SmartBot's published 4-player mean is 22.4): 400
    /// seeds give 22.80 with a standard error near 0.07, so 22.4 is over five
    /// errors below; the seat counts around it must stay above 20.5.
    #[test]
    fn tracker_clears_smartbot_at_four_seats() {
        let four = mean(4, 1..401);
        assert!(four > 22.4, "4 seats: {four}");
        for seats in [2, 3, 5] {
            let m = mean(seats, 1..201);
            assert!(m > 20.5, "{seats} seats: {m}");
        }
    }

    /// An integer from the environment, or `default` (the diagnostics' knobs).
    pub(super) fn env_or(name: &str, default: i64) -> i64 {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    }

    /// Not a test: the means at 2-5 seats (`cargo test --release tracker_means -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn tracker_means() {
        let (base, n) = (env_or("SEED0", 1), env_or("GAMES", 500));
        for seats in 2..=5 {
            println!("{seats} seats: {:.3}", mean(seats, base..base + n));
        }
    }
}

#[cfg(test)]
mod diag {
    use super::*;
    use crate::game::Game;

    /// Not a test: where the points go (`cargo test --release tracker_diag -- --ignored --nocapture`).
    #[test]
    #[ignore]
    fn tracker_diag() {
        let n = super::tests::env_or("GAMES", 1000);
        for seats in 2..=5 {
            let (mut score, mut capped, mut misplays, mut turns, mut zero, mut left) =
                (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            let (mut late, mut early) = (0.0, 0.0);
            let (mut known_end, mut unknown_end, mut nowhere) = (0.0, 0.0, 0.0);
            for seed in 1..=n {
                let mut g = Hanabi::new(seats, seed);
                while !g.is_terminal() {
                    let mv = tracker(&g, &mut Rng::for_decision(seed, g.turn()));
                    if let HanabiMove::Play(k) = mv {
                        let id = g.hand(g.mover())[k as usize].id;
                        if g.table().playable & bit(id) == 0 {
                            if g.deck_count() <= 3 {
                                late += 1.0
                            } else {
                                early += 1.0
                            }
                        }
                    }
                    g.apply(mv);
                }
                let t = g.table();
                for c in 0..5 {
                    let h = g.fireworks()[c] as usize;
                    if h == 5 {
                        continue;
                    }
                    let need = super::super::knowledge::card_id(c, h);
                    if t.dead & bit(need) != 0 || (g.discarded()[need as usize] >= copies(need)) {
                        continue;
                    }
                    let mut found = 0;
                    for s in 0..seats {
                        let (cands, _) = g.candidates_of(&t, s);
                        for (card, c) in g.hand(s).iter().zip(cands) {
                            if card.id == need {
                                found = found.max(if c & !t.playable == 0 { 2 } else { 1 });
                            }
                        }
                    }
                    if found == 2 {
                        known_end += 1.0
                    } else if found == 1 {
                        unknown_end += 1.0
                    } else {
                        nowhere += 1.0
                    }
                }
                let max: usize = (0..5)
                    .map(|c| {
                        (0..5)
                            .find(|&r| {
                                t.dead & bit(super::super::knowledge::card_id(c, r)) != 0
                                    && r >= g.fireworks()[c] as usize
                            })
                            .unwrap_or(5)
                    })
                    .sum();
                let s = g.fireworks_score() as f64;
                score += if g.fuses() == 0 { 0.0 } else { s };
                zero += (g.fuses() == 0) as u8 as f64;
                capped += 25.0 - max as f64;
                left += max as f64 - s;
                misplays += (3 - g.fuses()) as f64;
                turns += g.turn() as f64;
            }
            let k = n as f64;
            println!(
                "{seats} seats: score {:.3} lost-to-discards {:.3} unplayed {:.3} misplays {:.3} (late {:.3} early {:.3}) zero {:.3} turns {:.1}",
                score / k, capped / k, left / k, misplays / k, late / k, early / k, zero / k, turns / k
            );
            println!("   blocked colours at the end: next card in hand known-playable {:.3}, in hand unknown {:.3}, elsewhere {:.3}", known_end / k, unknown_end / k, nowhere / k);
        }
    }
}
