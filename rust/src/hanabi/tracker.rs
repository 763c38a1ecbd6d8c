//! `tracker`: a convention bot that tracks what every seat can infer from the
//! public record (hints, plays, discards) and reads hints as play or save
//! instructions, in the spirit of SmartBot. A pure function of the mover's own
//! view: the public log, the other seats' hands, and its own hint knowledge.
//!
//! **Public marks.** Replaying the public log, every card in every hand carries
//! a mark every seat can derive alike: `Play`, `Keep` or none. A hint's newly
//! touched cards are those with no positive hint and no mark before it. If none
//! is new the hint marks nothing. Otherwise its focus is the receiver's chop
//! (its oldest unhinted, unmarked card) when the hint touches it, else the
//! newest newly touched card. The focus is marked `Keep` when it is the chop
//! and its public candidates (hint knowledge minus the copies played or
//! discarded) include a critical card that does not play now (a save), and
//! `Play` otherwise.
//!
//! **Moves**, the first that applies:
//! 1. play an own card whose candidates all play now (lowest slot);
//! 2. play an own `Play`-marked card that may play now (lowest slot); once
//!    the deck is out, with no hint token and a fuse to spare, the own card
//!    most likely to play (share of its candidates that play now);
//! 3. save: when the next seat has no marked playable card and its chop is a
//!    critical card that does not play now, the hint that marks it `Keep`
//!    (rank first);
//! 4. the best play hint: a hint whose focus would be marked `Play` and truly
//!    plays now, whose card no visible hand already holds as marked or known
//!    playable; the seat acting soonest first, then the lower rank, then the
//!    most cards touched;
//! 5. below 8 tokens, discard: an own card known dead (or marked to play but
//!    unable to), else the chop (oldest unhinted, unmarked), else the oldest
//!    card not marked;
//! 6. at 8 tokens: a hint that marks nothing, else one whose mark is `Keep`,
//!    else the hint to the next seat touching the fewest cards.
//!
//! Candidate sets for its own cards come from its own view (hints plus every
//! copy it can see); what it assumes other seats know comes from public facts
//! only, so nothing hidden from the mover shapes its move.

use super::knowledge::{bit, known_dead, known_playable, rank0_of, Knowledge, Table};
use super::{Effect, Hanabi, HanabiMove, MAX_HAND, MAX_HINTS, MAX_SEATS, NUM_IDS};
use crate::game::{Game, Seat};
use crate::rng::Rng;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Mark {
    #[default]
    None,
    Play,
    Keep,
}

/// The public picture: every hand's hint knowledge and marks, the fireworks
/// and the discards, replayed from the log.
struct Public {
    know: [[Knowledge; MAX_HAND]; MAX_SEATS],
    marks: [[Mark; MAX_HAND]; MAX_SEATS],
    lens: [usize; MAX_SEATS],
    fireworks: [u8; 5],
    discarded: [u8; NUM_IDS],
}

impl Public {
    fn replay(g: &Hanabi) -> Public {
        let hand = super::hand_size(g.seats());
        let mut p = Public {
            know: Default::default(),
            marks: Default::default(),
            lens: [hand; MAX_SEATS],
            fireworks: [0; 5],
            discarded: [0; NUM_IDS],
        };
        for e in g.log() {
            let seat = e.seat as usize;
            match (e.mv, e.effect) {
                (HanabiMove::Play(k) | HanabiMove::Discard(k), effect) => {
                    match effect {
                        Effect::Played(id) => p.fireworks[id as usize / 5] += 1,
                        Effect::Misplayed(id) | Effect::Discarded(id) => {
                            p.discarded[id as usize] += 1
                        }
                        Effect::Hinted { .. } => {}
                    }
                    p.remove(seat, k as usize, e.drew);
                }
                (mv, Effect::Hinted { touched }) => {
                    let target = target_of(mv);
                    let table = p.table();
                    if let Some((focus, mark)) = p.interpret(&table, target, touched, mv) {
                        p.marks[target][focus] = mark;
                    }
                    for k in 0..p.lens[target] {
                        hear(&mut p.know[target][k], mv, touched >> k & 1 == 1, e.turn);
                    }
                }
                _ => {}
            }
        }
        p
    }

    fn table(&self) -> Table {
        Table::new(&self.fireworks, &self.discarded)
    }

    /// Remove slot `k` of `seat` (older cards move down a slot) and, if a card
    /// was drawn, put a fresh one in slot 0 (every card moves up a slot).
    fn remove(&mut self, seat: Seat, k: usize, drew: bool) {
        let n = self.lens[seat];
        self.know[seat].copy_within(k + 1..n, k);
        self.marks[seat].copy_within(k + 1..n, k);
        self.lens[seat] = n - 1;
        if drew {
            self.know[seat].copy_within(0..n - 1, 1);
            self.marks[seat].copy_within(0..n - 1, 1);
            self.know[seat][0] = Knowledge::default();
            self.marks[seat][0] = Mark::None;
            self.lens[seat] = n;
        }
    }

    /// The receiver's chop: its oldest card with no positive hint and no mark.
    fn chop(&self, seat: Seat) -> Option<usize> {
        (0..self.lens[seat])
            .rev()
            .find(|&k| !self.know[seat][k].hinted() && self.marks[seat][k] == Mark::None)
    }

    /// The mark a hint touching `touched` of `target`'s hand gives, and where.
    fn interpret(
        &self,
        table: &Table,
        target: Seat,
        touched: u8,
        mv: HanabiMove,
    ) -> Option<(usize, Mark)> {
        let fresh = (0..self.lens[target]).filter(|&k| {
            touched >> k & 1 == 1
                && !self.know[target][k].hinted()
                && self.marks[target][k] == Mark::None
        });
        let newest = fresh.clone().next()?;
        let chop = self.chop(target).filter(|&c| touched >> c & 1 == 1);
        let focus = chop.unwrap_or(newest);
        let mut know = self.know[target][focus];
        hear(&mut know, mv, true, 0);
        let public = know.hint_mask() & !table.gone.exhausted();
        let save = chop.is_some() && public & table.critical & !table.playable != 0;
        Some((focus, if save { Mark::Keep } else { Mark::Play }))
    }
}

fn hear(k: &mut Knowledge, mv: HanabiMove, matches: bool, turn: u16) {
    match mv {
        HanabiMove::HintColour { colour, .. } => k.hear_colour(colour, matches, turn),
        HanabiMove::HintRank { rank, .. } => k.hear_rank(rank, matches, turn),
        _ => {}
    }
}

fn target_of(mv: HanabiMove) -> Seat {
    match mv {
        HanabiMove::HintColour { target, .. } | HanabiMove::HintRank { target, .. } => {
            target as usize
        }
        _ => usize::MAX,
    }
}

/// The `tracker` baseline (see the module doc).
pub fn tracker(g: &Hanabi, _rng: &mut Rng) -> HanabiMove {
    let me = g.mover();
    let p = Public::replay(g);
    let table = g.table();
    let (cands, n) = g.candidates_of(&table, me);
    let marks = &p.marks[me];
    // 1-2. Plays.
    if let Some(k) = (0..n).find(|&k| known_playable(&table, cands[k])) {
        return HanabiMove::Play(k as u8);
    }
    if let Some(k) = (0..n).find(|&k| marks[k] == Mark::Play && cands[k] & table.playable != 0) {
        return HanabiMove::Play(k as u8);
    }
    // 2b. Once the deck is out no discard can pay back: with a fuse to spare,
    // play the own card most likely to play (by candidate count), if any may.
    if g.deck_count() == 0 && g.fuses() > 1 && g.hint_tokens() == 0 {
        let odds = |k: usize| {
            (cands[k] & table.playable).count_ones() as f32 / cands[k].count_ones().max(1) as f32
        };
        if let Some(k) = (0..n)
            .filter(|&k| odds(k) > 0.0)
            .max_by(|&a, &b| odds(a).total_cmp(&odds(b)))
        {
            return HanabiMove::Play(k as u8);
        }
    }
    let mut hints = Vec::with_capacity(64);
    if g.hint_tokens() > 0 {
        g.legal_hints(&mut hints);
    }
    let read = |mv: HanabiMove| {
        let target = target_of(mv);
        p.interpret(&table, target, g.hint_touches(mv), mv)
            .map(|(focus, mark)| (target, focus, mark))
    };
    // 3. Save the next seat's critical chop.
    let next = (me + 1) % g.seats();
    if let Some(mv) = save_hint(g, &p, &table, next, &hints, read) {
        return mv;
    }
    // 4. Play hints.
    let claimed = claimed(g, &p, &table, me);
    let best = hints
        .iter()
        .filter_map(|&mv| {
            let (target, focus, mark) = read(mv)?;
            let id = g.hand(target)[focus].id;
            let good =
                mark == Mark::Play && table.playable & bit(id) != 0 && claimed & bit(id) == 0;
            let soon = (target + g.seats() - me) % g.seats();
            let touched = g.hint_touches(mv).count_ones();
            let busy = has_play(g, &p, &table, target);
            good.then_some(((busy, soon, rank0_of(id), std::cmp::Reverse(touched)), mv))
        })
        .min_by_key(|&(key, _)| key);
    if let Some((_, mv)) = best {
        return mv;
    }
    // 5. Discards.
    if g.hint_tokens() < MAX_HINTS {
        let dead = (0..n).find(|&k| {
            known_dead(&table, cands[k]) || (marks[k] == Mark::Play && cands[k] & !table.dead == 0)
        });
        let (know, _) = g.knowledge_of(me);
        let chop = (0..n)
            .rev()
            .find(|&k| !know[k].hinted() && marks[k] == Mark::None);
        let unmarked = (0..n).rev().find(|&k| marks[k] == Mark::None);
        let k = dead.or(chop).or(unmarked).unwrap_or(n - 1);
        return HanabiMove::Discard(k as u8);
    }
    // 6. At 8 tokens: a hint that does no harm.
    hints
        .iter()
        .copied()
        .find(|&mv| read(mv).is_none())
        .or_else(|| {
            hints
                .iter()
                .copied()
                .find(|&mv| matches!(read(mv), Some((_, _, Mark::Keep))))
        })
        .or_else(|| {
            hints
                .iter()
                .copied()
                .filter(|&mv| target_of(mv) == next)
                .min_by_key(|&mv| g.hint_touches(mv).count_ones())
        })
        .unwrap_or_else(|| g.legal_moves()[0])
}

/// Identities that some visible hand (not the mover's) already holds as a
/// marked-to-play or publicly known-playable card: a second play hint on the
/// same identity would make a misplay.
fn claimed(g: &Hanabi, p: &Public, table: &Table, me: Seat) -> u32 {
    let mut out = 0;
    for s in (0..g.seats()).filter(|&s| s != me) {
        for (k, card) in g.hand(s).iter().enumerate() {
            let public = p.know[s][k].hint_mask() & !table.gone.exhausted();
            if p.marks[s][k] == Mark::Play || known_playable(table, public) {
                out |= bit(card.id);
            }
        }
    }
    out
}

/// `seat` holds a card marked to play that truly plays now.
fn has_play(g: &Hanabi, p: &Public, table: &Table, seat: Seat) -> bool {
    let hand = g.hand(seat);
    (0..hand.len()).any(|k| p.marks[seat][k] == Mark::Play && table.playable & bit(hand[k].id) != 0)
}

/// The hint that marks `seat`'s chop `Keep`, when its chop is critical, does
/// not play now, and the seat has no marked playable card to play instead.
fn save_hint(
    g: &Hanabi,
    p: &Public,
    table: &Table,
    seat: Seat,
    hints: &[HanabiMove],
    read: impl Fn(HanabiMove) -> Option<(Seat, usize, Mark)>,
) -> Option<HanabiMove> {
    let chop = p.chop(seat)?;
    let hand = g.hand(seat);
    let id = hand[chop].id;
    if table.critical & bit(id) == 0 || table.playable & bit(id) != 0 {
        return None;
    }
    if has_play(g, p, table, seat) {
        return None;
    }
    let saves = |mv: &HanabiMove| read(*mv) == Some((seat, chop, Mark::Keep));
    let ranks = hints
        .iter()
        .copied()
        .filter(|mv| matches!(mv, HanabiMove::HintRank { .. }));
    ranks.chain(hints.iter().copied()).find(|mv| saves(mv))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simulate::play_out;

    fn mean(seats: usize, episodes: i64) -> f64 {
        let policy = [tracker as crate::game::Policy<Hanabi>; 5];
        let total: i64 = (1..=episodes)
            .map(|seed| {
                let rec = play_out(Hanabi::new(seats, seed), &policy[..seats], seed, 9);
                rec.score[0] as i64
            })
            .sum();
        total as f64 / episodes as f64
    }

    #[test]
    fn public_replay_matches_the_engine_knowledge() {
        for seed in 1..40 {
            let mut g = Hanabi::new(2 + seed as usize % 4, seed);
            while !g.is_terminal() {
                let p = Public::replay(&g);
                for s in 0..g.seats() {
                    let (know, n) = g.knowledge_of(s);
                    assert_eq!(p.lens[s], n);
                    assert_eq!(&p.know[s][..n], &know[..n], "seed {seed} seat {s}");
                }
                assert_eq!(&p.fireworks, g.fireworks());
                let mv = tracker(&g, &mut Rng::for_decision(seed, g.turn()));
                assert!(g.legal_moves().contains(&mv));
                g.apply(mv);
            }
        }
    }

    #[test]
    fn tracker_outscores_conventions_at_four_seats() {
        let ours = mean(4, 200);
        let conv: f64 = (1..=200)
            .map(|seed| {
                let p = [super::super::baselines::conventions as crate::game::Policy<Hanabi>; 4];
                play_out(Hanabi::new(4, seed), &p, seed, 9).score[0] as f64
            })
            .sum::<f64>()
            / 200.0;
        assert!(ours > conv + 2.0, "tracker {ours} vs conventions {conv}");
    }
}
