//! The scripted baselines, rule by rule as docs/rules/hanabi.md lists them. Each one is a
//! deterministic function of the mover's `SeatView` (its own hand as knowledge
//! only, other seats' knowledge as the mover can infer it), never of its own
//! cards or the deck, and only ever returns legal moves.

use super::knowledge::{self, bit, known_playable, rank0_of, CardId, Knowledge, Seen};
use super::seat_view::SeatView;
use super::{Hanabi, HanabiMove, MAX_HAND, MAX_HINTS};
use crate::game::Seat;
use crate::kernels::select::select8;
use crate::rng::Rng;

fn hint_rank(target: Seat, id: CardId) -> HanabiMove {
    HanabiMove::HintRank {
        target: target as u8,
        rank: rank0_of(id) as u8,
    }
}

/// Lowest slot of the mover whose candidates satisfy `pred`.
fn own_slot(v: &SeatView, pred: impl Fn(u32) -> bool) -> Option<u8> {
    let (cands, n) = v.candidates(v.me);
    (0..n).find(|&k| pred(cands[k])).map(|k| k as u8)
}

fn discard_chop(v: &SeatView) -> Option<HanabiMove> {
    if v.hint_tokens() >= MAX_HINTS {
        return None;
    }
    v.chop(v.me).map(|k| HanabiMove::Discard(k as u8))
}

/// A receiver's knowledge before any hint, as the mover infers it: the
/// baseline scores hints against it.
struct Receiver {
    know: [Knowledge; MAX_HAND],
    n: usize,
    seen: Seen,
    playable_now: u32,
}

impl Receiver {
    fn of(v: &SeatView, target: Seat) -> Receiver {
        let (know, n) = v.knowledge(target);
        let seen = v.seen_with(target);
        let mut cands = [0u32; MAX_HAND];
        knowledge::candidates(seen, &know[..n], &mut cands);
        let playable_now = (0..n)
            .filter(|&k| known_playable(v.table(), cands[k]))
            .fold(0, |m, k| m | 1 << k);
        Receiver {
            know,
            n,
            seen,
            playable_now,
        }
    }

    /// How many cards `mv` would make knownPlayable that are not now.
    fn newly_playable(&self, v: &SeatView, mv: HanabiMove) -> u32 {
        let mut know = self.know;
        let touched = v.hint_touches(mv);
        let turn = v.turn() as u16;
        for (k, kn) in know[..self.n].iter_mut().enumerate() {
            hear(kn, mv, touched & (1 << k) != 0, turn);
        }
        let mut after = [0u32; MAX_HAND];
        knowledge::candidates(self.seen, &know[..self.n], &mut after);
        (0..self.n)
            .filter(|&k| self.playable_now & (1 << k) == 0 && known_playable(v.table(), after[k]))
            .count() as u32
    }
}

fn hear(k: &mut Knowledge, mv: HanabiMove, matches: bool, turn: u16) {
    match mv {
        HanabiMove::HintColour { colour, .. } => k.hear_colour(colour, matches, turn),
        HanabiMove::HintRank { rank, .. } => k.hear_rank(rank, matches, turn),
        _ => {}
    }
}

/// The tie-break key for a hint (smaller first): seat acting soonest,
/// rank before colour, lower value (colours in deck order: red, yellow, green,
/// blue, white), lower seat.
fn hint_order(v: &SeatView, mv: HanabiMove) -> (usize, u8, u8, u8) {
    let (n, me) = (v.seats(), v.mover());
    match mv {
        HanabiMove::HintRank { target, rank } => ((target as usize + n - me) % n, 0, rank, target),
        HanabiMove::HintColour { target, colour } => {
            ((target as usize + n - me) % n, 1, colour, target)
        }
        _ => (usize::MAX, 2, 0, 0),
    }
}

fn legal_hints(v: &SeatView) -> Vec<HanabiMove> {
    let mut moves = Vec::with_capacity(64);
    v.legal_hints(&mut moves);
    moves
}

/// `conventions`: the first of its five rules that fires.
pub fn conventions(g: &Hanabi, _rng: &mut Rng) -> HanabiMove {
    let v = g.seat_view(g.mover());
    let table = v.table();
    // 1. Play the lowest-numbered knownPlayable slot.
    if let Some(k) = own_slot(&v, |c| known_playable(table, c)) {
        return HanabiMove::Play(k);
    }
    let next = v.after_mover(1);
    // 2. A critical card on the next seat's chop (as the mover infers it): hint its rank.
    if v.hint_tokens() > 0 {
        if let Some(k) = v.chop(next) {
            let id = v.cards(next)[k].id;
            if table.critical & bit(id) != 0 {
                return hint_rank(next, id);
            }
        }
    }
    // 3. The hint making the most receiver cards newly knownPlayable (at least one).
    let hints = legal_hints(&v);
    let mut receivers: [Option<Receiver>; 5] = Default::default();
    let best = hints
        .iter()
        .map(|&mv| {
            let target = target_of(mv);
            let r = receivers[target].get_or_insert_with(|| Receiver::of(&v, target));
            (r.newly_playable(&v, mv), mv)
        })
        .filter(|&(gain, _)| gain > 0)
        .min_by_key(|&(gain, mv)| (std::cmp::Reverse(gain), hint_order(&v, mv)));
    if let Some((_, mv)) = best {
        return mv;
    }
    // 4. Discard the chop.
    if let Some(mv) = discard_chop(&v) {
        return mv;
    }
    // 5. At 8 tokens with nothing to say: the hint touching the fewest cards of the next seat.
    hints
        .iter()
        .copied()
        .filter(|&mv| target_of(mv) == next)
        .min_by_key(|&mv| (v.hint_touches(mv).count_ones(), hint_order(&v, mv)))
        .unwrap_or_else(|| fallback(&v))
}

/// `cautious`: never misplays.
pub fn cautious(g: &Hanabi, _rng: &mut Rng) -> HanabiMove {
    let v = g.seat_view(g.mover());
    let table = v.table();
    // 1. Play a slot whose candidate set is one card that plays now.
    if let Some(k) = own_slot(&v, |c| c.is_power_of_two() && c & table.playable != 0) {
        return HanabiMove::Play(k);
    }
    // 2. Hint the rank of a playable card with no positive hint, nearest seat first;
    //    within a hand the lowest slot (no rule orders that tie).
    if v.hint_tokens() > 0 {
        for off in 1..v.seats() {
            let s = v.after_mover(off);
            if let Some(c) = v
                .cards(s)
                .iter()
                .find(|c| !c.know.hinted() && table.playable & bit(c.id) != 0)
            {
                return hint_rank(s, c.id);
            }
        }
    }
    // 3. Discard the chop.
    if let Some(mv) = discard_chop(&v) {
        return mv;
    }
    // 4. Hint the rank of the next seat's oldest card (only reached at 8 tokens).
    let next = v.after_mover(1);
    match v.cards(next).last() {
        Some(c) if v.hint_tokens() > 0 => hint_rank(next, c.id),
        _ => fallback(&v),
    }
}

/// `random`: uniform over the legal moves, exactly `rng.pick(&g.legal_moves())`
/// but without building the list (the batch simulator's hottest path). The
/// draw comes from the decision stream, a function of the seed and the turn
/// only, never of the cards.
pub fn random(g: &Hanabi, rng: &mut Rng) -> HanabiMove {
    let v = g.seat_view(g.mover());
    let n = v.hand_len(v.me);
    let discards = if v.hint_tokens() < MAX_HINTS { n } else { 0 };
    // The other seats in turn order from the mover, with what may name their hands.
    let mut targets = [0u8; 4];
    let mut named = [(0u8, 0u8); 4];
    let mut hints = 0;
    if v.hint_tokens() > 0 {
        let mut target = v.me;
        for (slot, seat) in named.iter_mut().zip(&mut targets).take(v.seats() - 1) {
            target = if target + 1 == v.seats() {
                0
            } else {
                target + 1
            };
            *seat = target as u8;
            *slot = v.nameable(target);
            hints += (slot.0.count_ones() + slot.1.count_ones()) as usize;
        }
    }
    let mut k = rng.below(n + discards + hints);
    if k < n {
        return HanabiMove::Play(k as u8);
    }
    k -= n;
    if k < discards {
        return HanabiMove::Discard(k as u8);
    }
    k -= discards;
    for (&target, &(colours, ranks)) in targets.iter().zip(&named) {
        let (nc, nr) = (colours.count_ones() as usize, ranks.count_ones() as usize);
        if k < nc {
            return HanabiMove::HintColour {
                target,
                colour: select8(colours, k as u32) as u8,
            };
        }
        if k < nc + nr {
            return HanabiMove::HintRank {
                target,
                rank: select8(ranks, (k - nc) as u32) as u8,
            };
        }
        k -= nc + nr;
    }
    fallback(&v)
}

fn target_of(mv: HanabiMove) -> Seat {
    match mv {
        HanabiMove::HintColour { target, .. } | HanabiMove::HintRank { target, .. } => {
            target as usize
        }
        _ => usize::MAX,
    }
}

/// Unreachable in a real position (some rule always fires); a legal move all
/// the same: while the game runs every hand holds at least three cards (a hand
/// shrinks by one at most, in the final round).
fn fallback(v: &SeatView) -> HanabiMove {
    debug_assert!(v.hand_len(v.me) > 0);
    HanabiMove::Play(0)
}
