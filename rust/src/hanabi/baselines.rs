//! The scripted baselines, rule by rule as the spec numbers them. Both are
//! deterministic pure functions of the position (they read receivers' true
//! knowledge, as the spec's rules name it) and only ever return legal moves.

use super::knowledge::{self, bit, known_playable, rank0_of, Knowledge, Table};
use super::{Hanabi, HanabiMove, MAX_HAND, MAX_HINTS};
use crate::game::{Game, Seat};
use crate::kernels::select::select8;
use crate::rng::Rng;

/// The seat `offset` places after the mover.
fn after(g: &Hanabi, offset: usize) -> Seat {
    (g.mover() + offset) % g.seats()
}

fn hint_rank(target: Seat, id: u8) -> HanabiMove {
    HanabiMove::HintRank {
        target: target as u8,
        rank: rank0_of(id) as u8,
    }
}

/// Lowest slot of the mover whose candidates satisfy `pred`.
fn own_slot(g: &Hanabi, table: &Table, pred: impl Fn(u32) -> bool) -> Option<u8> {
    let (cands, n) = g.candidates_of(table, g.mover());
    (0..n).find(|&k| pred(cands[k])).map(|k| k as u8)
}

fn discard_chop(g: &Hanabi, table: &Table) -> Option<HanabiMove> {
    if g.hint_tokens() >= MAX_HINTS {
        return None;
    }
    g.chop_of(table, g.mover())
        .map(|k| HanabiMove::Discard(k as u8))
}

/// A receiver's knowledge before any hint: the baseline scores hints against it.
struct Receiver {
    know: [Knowledge; MAX_HAND],
    n: usize,
    seen: knowledge::Seen,
    playable_now: u32,
}

impl Receiver {
    fn of(g: &Hanabi, table: &Table, target: Seat) -> Receiver {
        let (know, n) = g.knowledge_of(target);
        let seen = g.seen_by(table, target);
        let mut cands = [0u32; MAX_HAND];
        knowledge::candidates(seen, &know[..n], &mut cands);
        let playable_now = (0..n)
            .filter(|&k| known_playable(table, cands[k]))
            .fold(0, |m, k| m | 1 << k);
        Receiver {
            know,
            n,
            seen,
            playable_now,
        }
    }

    /// How many cards `mv` would make knownPlayable that are not now.
    fn newly_playable(&self, g: &Hanabi, table: &Table, mv: HanabiMove) -> u32 {
        let mut know = self.know;
        let touched = g.hint_touches(mv);
        let turn = g.turn() as u16;
        for (k, kn) in know[..self.n].iter_mut().enumerate() {
            hear(kn, mv, touched & (1 << k) != 0, turn);
        }
        let mut after = [0u32; MAX_HAND];
        knowledge::candidates(self.seen, &know[..self.n], &mut after);
        (0..self.n)
            .filter(|&k| self.playable_now & (1 << k) == 0 && known_playable(table, after[k]))
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

/// The spec's tie-break key for a hint (smaller first): seat acting soonest,
/// rank before colour, lower value (colours in deck order: red, yellow, green,
/// blue, white), lower seat.
fn hint_order(g: &Hanabi, mv: HanabiMove) -> (usize, u8, u8, u8) {
    let n = g.seats();
    let me = g.mover();
    match mv {
        HanabiMove::HintRank { target, rank } => ((target as usize + n - me) % n, 0, rank, target),
        HanabiMove::HintColour { target, colour } => {
            ((target as usize + n - me) % n, 1, colour, target)
        }
        _ => (usize::MAX, 2, 0, 0),
    }
}

fn legal_hints(g: &Hanabi) -> Vec<HanabiMove> {
    let mut moves = Vec::with_capacity(64);
    if g.hint_tokens() > 0 && !g.is_over() {
        g.legal_hints(&mut moves);
    }
    moves
}

/// `conventions`: the first of the spec's five rules that fires.
pub fn conventions(g: &Hanabi, _rng: &mut Rng) -> HanabiMove {
    let table = g.table();
    // 1. Play the lowest-numbered knownPlayable slot.
    if let Some(k) = own_slot(g, &table, |c| known_playable(&table, c)) {
        return HanabiMove::Play(k);
    }
    let next = after(g, 1);
    // 2. A critical card on the next seat's chop: hint its rank.
    if g.hint_tokens() > 0 {
        if let Some(k) = g.chop_of(&table, next) {
            let id = g.hand(next)[k].id;
            if table.critical & bit(id) != 0 {
                return hint_rank(next, id);
            }
        }
    }
    // 3. The hint making the most receiver cards newly knownPlayable (at least one).
    let hints = legal_hints(g);
    let mut receivers: [Option<Receiver>; 5] = Default::default();
    let best = hints
        .iter()
        .map(|&mv| {
            let target = target_of(mv);
            let r = receivers[target].get_or_insert_with(|| Receiver::of(g, &table, target));
            (r.newly_playable(g, &table, mv), mv)
        })
        .filter(|&(gain, _)| gain > 0)
        .min_by_key(|&(gain, mv)| (std::cmp::Reverse(gain), hint_order(g, mv)));
    if let Some((_, mv)) = best {
        return mv;
    }
    // 4. Discard the chop.
    if let Some(mv) = discard_chop(g, &table) {
        return mv;
    }
    // 5. At 8 tokens with nothing to say: the hint touching the fewest cards of the next seat.
    hints
        .iter()
        .copied()
        .filter(|&mv| target_of(mv) == next)
        .min_by_key(|&mv| (g.hint_touches(mv).count_ones(), hint_order(g, mv)))
        .unwrap_or_else(|| fallback(g))
}

/// `cautious`: never misplays.
pub fn cautious(g: &Hanabi, _rng: &mut Rng) -> HanabiMove {
    let table = g.table();
    // 1. Play a slot whose candidate set is one card that plays now.
    if let Some(k) = own_slot(g, &table, |c| {
        c.is_power_of_two() && c & table.playable != 0
    }) {
        return HanabiMove::Play(k);
    }
    // 2. Hint the rank of a playable card with no positive hint, nearest seat first;
    //    within a hand the lowest slot (the spec leaves that tie open).
    if g.hint_tokens() > 0 {
        for off in 1..g.seats() {
            let s = after(g, off);
            if let Some(c) = g
                .hand(s)
                .iter()
                .find(|c| !c.know.hinted() && table.playable & bit(c.id) != 0)
            {
                return hint_rank(s, c.id);
            }
        }
    }
    // 3. Discard the chop.
    if let Some(mv) = discard_chop(g, &table) {
        return mv;
    }
    // 4. Hint the rank of the next seat's oldest card (only reached at 8 tokens).
    let next = after(g, 1);
    match g.hand(next).last() {
        Some(c) if g.hint_tokens() > 0 => hint_rank(next, c.id),
        _ => fallback(g),
    }
}

/// `random`: uniform over the legal moves, exactly `rng.pick(&g.legal_moves())`
/// but without building the list (the batch simulator's hottest path).
pub fn random(g: &Hanabi, rng: &mut Rng) -> HanabiMove {
    let me = g.mover();
    let n = g.hand(me).len();
    let discards = if g.hint_tokens() < MAX_HINTS { n } else { 0 };
    let mut named = [(0u8, 0u8); 4];
    let mut hints = 0;
    if g.hint_tokens() > 0 {
        for (off, slot) in named.iter_mut().enumerate().take(g.seats() - 1) {
            *slot = g
                .hand(after(g, off + 1))
                .iter()
                .fold((0, 0), |(c, r), card| {
                    (
                        c | 1 << knowledge::colour_of(card.id),
                        r | 1 << rank0_of(card.id),
                    )
                });
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
    for (off, &(colours, ranks)) in named.iter().enumerate() {
        let target = after(g, off + 1) as u8;
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
    fallback(g)
}

fn target_of(mv: HanabiMove) -> Seat {
    match mv {
        HanabiMove::HintColour { target, .. } | HanabiMove::HintRank { target, .. } => {
            target as usize
        }
        _ => usize::MAX,
    }
}

/// Unreachable in a real position (some rule always fires); a legal move all the same.
fn fallback(g: &Hanabi) -> HanabiMove {
    g.legal_moves()
        .first()
        .copied()
        .unwrap_or(HanabiMove::Play(0))
}
