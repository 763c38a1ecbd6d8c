//! What a card knows about itself, and the hot kernel that turns hints and
//! visible cards into candidate sets.
//!
//! A card identity is `colour * 5 + rank0` (rank0 = rank - 1), so a set of
//! identities is a 25-bit mask. Counting copies is done with "thermometer"
//! bit-planes: `ge[k]` holds the identities seen at least `k + 1` times, so
//! adding a card is four ORs and "every copy is accounted for" is three ANDs.

/// Colour names in deck order (red, yellow, green, blue, white).
pub const COLOURS: [&str; 5] = ["red", "yellow", "green", "blue", "white"];
pub const NUM_COLOURS: usize = 5;
pub const NUM_RANKS: usize = 5;
pub const NUM_IDS: usize = 25;
/// Copies of each rank in the deck: 1s x3, 2-4 x2, 5 x1.
pub const COPIES: [u8; NUM_RANKS] = [3, 2, 2, 2, 1];
/// Every identity.
pub const ALL_IDS: u32 = (1 << NUM_IDS) - 1;
/// The five identities of rank 1 (bit `5c` for each colour); shift left by rank0.
const RANK_ONES: u32 = 0b00001_00001_00001_00001_00001;
/// Identities by number of copies in the deck.
const TOTAL_ONE: u32 = RANK_ONES << 4;
const TOTAL_TWO: u32 = (RANK_ONES << 1) | (RANK_ONES << 2) | (RANK_ONES << 3);
const TOTAL_THREE: u32 = RANK_ONES;

/// A card identity, `colour * 5 + rank0`.
pub type CardId = u8;

#[inline]
pub const fn card_id(colour: usize, rank0: usize) -> CardId {
    (colour * NUM_RANKS + rank0) as CardId
}
#[inline]
pub const fn colour_of(id: CardId) -> usize {
    id as usize / NUM_RANKS
}
#[inline]
pub const fn rank0_of(id: CardId) -> usize {
    id as usize % NUM_RANKS
}
#[inline]
pub const fn bit(id: CardId) -> u32 {
    1 << id
}
/// Every identity of one colour.
#[inline]
pub const fn colour_mask(colour: usize) -> u32 {
    0b11111 << (colour * NUM_RANKS)
}
/// Every identity of one rank.
#[inline]
pub const fn rank_mask(rank0: usize) -> u32 {
    RANK_ONES << rank0
}
/// Copies of an identity in the full deck.
#[inline]
pub const fn copies(id: CardId) -> u8 {
    COPIES[rank0_of(id)]
}
/// `red 3`.
pub fn card_name(id: CardId) -> String {
    format!("{} {}", COLOURS[colour_of(id)], rank0_of(id) + 1)
}

/// The identities a set of allowed colours (5-bit mask) spans.
const fn colours_span(allowed: u8) -> u32 {
    let mut m = 0;
    let mut c = 0;
    while c < NUM_COLOURS {
        if allowed & (1 << c) != 0 {
            m |= colour_mask(c);
        }
        c += 1;
    }
    m
}
/// The identities a set of allowed ranks (5-bit mask) spans.
const fn ranks_span(allowed: u8) -> u32 {
    let mut m = 0;
    let mut r = 0;
    while r < NUM_RANKS {
        if allowed & (1 << r) != 0 {
            m |= rank_mask(r);
        }
        r += 1;
    }
    m
}
const fn span_table(ranks: bool) -> [u32; 32] {
    let mut t = [0; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = if ranks {
            ranks_span(i as u8)
        } else {
            colours_span(i as u8)
        };
        i += 1;
    }
    t
}
const COLOUR_SPAN: [u32; 32] = span_table(false);
const RANK_SPAN: [u32; 32] = span_table(true);

/// Hint knowledge of one card, from its holder's point of view. Every field is
/// public: it is a function of the hints given, never of the card itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Knowledge {
    /// The colour a hint named on this card.
    pub colour: Option<u8>,
    /// The rank0 a hint named on this card.
    pub rank: Option<u8>,
    /// Colours a hint proved it is not (bit c).
    pub not_colours: u8,
    /// Ranks a hint proved it is not (bit rank0).
    pub not_ranks: u8,
    /// The turn a hint last touched (named) this card.
    pub touched: Option<u16>,
}

impl Knowledge {
    /// The identities the hints alone allow.
    #[inline]
    pub fn hint_mask(&self) -> u32 {
        let colours = match self.colour {
            Some(c) => 1u8 << c,
            None => !self.not_colours & 0b11111,
        };
        let ranks = match self.rank {
            Some(r) => 1u8 << r,
            None => !self.not_ranks & 0b11111,
        };
        COLOUR_SPAN[colours as usize] & RANK_SPAN[ranks as usize]
    }

    /// True when the card carries a positive hint of either kind.
    #[inline]
    pub fn hinted(&self) -> bool {
        self.colour.is_some() || self.rank.is_some()
    }

    /// Record a colour hint given on `turn`: `matches` says whether this card is that colour.
    #[inline]
    pub fn hear_colour(&mut self, colour: u8, matches: bool, turn: u16) {
        if matches {
            self.colour = Some(colour);
            self.touched = Some(turn);
        } else {
            self.not_colours |= 1 << colour;
        }
    }

    /// Record a rank hint given on `turn`.
    #[inline]
    pub fn hear_rank(&mut self, rank0: u8, matches: bool, turn: u16) {
        if matches {
            self.rank = Some(rank0);
            self.touched = Some(turn);
        } else {
            self.not_ranks |= 1 << rank0;
        }
    }
}

/// Copies seen, as thermometer bit-planes: `ge[k]` = identities seen at least k+1 times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Seen {
    ge: [u32; 4],
}

impl Seen {
    /// Count one more copy of every identity in `ids` (each at most once).
    #[inline]
    pub fn add(&mut self, ids: u32) {
        self.ge[3] |= self.ge[2] & ids;
        self.ge[2] |= self.ge[1] & ids;
        self.ge[1] |= self.ge[0] & ids;
        self.ge[0] |= ids;
    }

    /// Count every copy `other` counts (its k-th plane holds the k+1-th copies).
    #[inline]
    pub fn add_all(&mut self, other: &Seen) {
        for &plane in &other.ge {
            self.add(plane);
        }
    }

    /// Identities with every copy accounted for.
    #[inline]
    pub fn exhausted(&self) -> u32 {
        (self.ge[0] & TOTAL_ONE) | (self.ge[1] & TOTAL_TWO) | (self.ge[2] & TOTAL_THREE)
    }

    /// Identities still exhausted after taking one copy back.
    #[inline]
    fn exhausted_without_one(&self) -> u32 {
        (self.ge[1] & TOTAL_ONE) | (self.ge[2] & TOTAL_TWO) | (self.ge[3] & TOTAL_THREE)
    }

    /// Copies of `id` counted (saturates at 4).
    pub fn count(&self, id: CardId) -> u8 {
        self.ge.iter().filter(|&&m| m & bit(id) != 0).count() as u8
    }
}

/// The table facts every predicate needs, derived from fireworks and discards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Table {
    /// Identities that would play now.
    pub playable: u32,
    /// Identities already played or stranded above a rank with every copy discarded.
    pub dead: u32,
    /// Identities whose last copy is still in play (not discarded, not played) and not dead.
    pub critical: u32,
    /// Fireworks plus discard pile, as copies seen.
    pub gone: Seen,
}

impl Table {
    /// `fireworks[c]` is the height of colour c; `discarded[id]` counts copies in the pile.
    pub fn new(fireworks: &[u8; NUM_COLOURS], discarded: &[u8; NUM_IDS]) -> Table {
        let (mut played, mut playable, mut dead, mut last_copy) = (0u32, 0u32, 0u32, 0u32);
        let mut ge = [0u32; 4];
        for (c, &height) in fireworks.iter().enumerate() {
            let h = height as usize;
            let below = colour_mask(c) & ((1u32 << (c * NUM_RANKS + h)) - 1);
            played |= below;
            if h < NUM_RANKS {
                playable |= bit(card_id(c, h));
            }
            // Played ranks are dead; so is every rank above the first unplayed rank with no copy left.
            dead |= below;
            if let Some(stranded) =
                (h..NUM_RANKS).find(|&r| discarded[card_id(c, r) as usize] >= COPIES[r])
            {
                dead |= colour_mask(c) & !((2u32 << (c * NUM_RANKS + stranded)) - 1);
            }
        }
        for (id, &n) in discarded.iter().enumerate() {
            let b = 1u32 << id;
            let gone = n as usize + (played & b != 0) as usize;
            for plane in ge.iter_mut().take(gone.min(4)) {
                *plane |= b;
            }
            if n + 1 == COPIES[id % NUM_RANKS] {
                last_copy |= b;
            }
        }
        Table {
            playable,
            dead,
            critical: last_copy & !dead,
            gone: Seen { ge },
        }
    }
}

/// Candidate sets of one holder's hand, into `out` (slot order).
///
/// `seen` holds every copy the holder can see outside its own hand: fireworks,
/// discards and other seats' hands. One pass: a card's candidates are its hint
/// mask minus the identities whose copies are all accounted for, counting the
/// holder's OTHER cards pinned to one identity by hints alone. No fixpoint, no
/// multi-card propagation.
#[inline]
pub fn candidates(mut seen: Seen, hand: &[Knowledge], out: &mut [u32]) {
    let mut pins = 0u32;
    for (k, know) in hand.iter().enumerate() {
        let m = know.hint_mask();
        out[k] = m;
        if m.is_power_of_two() {
            seen.add(m);
            pins |= 1 << k;
        }
    }
    let exhausted = seen.exhausted();
    let still_exhausted = seen.exhausted_without_one();
    for (k, cand) in out.iter_mut().enumerate().take(hand.len()) {
        // A pinned card does not count against itself.
        let blocked = if pins & (1 << k) != 0 {
            still_exhausted
        } else {
            exhausted
        };
        *cand &= !blocked;
    }
}

/// remainingCopies of `id` for the card in `slot`: the copies its holder cannot
/// see (total minus `seen` minus the holder's other hint-pinned cards).
pub fn remaining_copies(seen: &Seen, hand: &[Knowledge], slot: usize, id: CardId) -> u8 {
    let pinned = hand
        .iter()
        .enumerate()
        .filter(|&(k, know)| k != slot && know.hint_mask() == bit(id))
        .count();
    copies(id).saturating_sub(seen.count(id) + pinned as u8)
}

/// Every candidate plays now (an empty set is never known anything).
#[inline]
pub fn known_playable(table: &Table, cand: u32) -> bool {
    cand != 0 && cand & !table.playable == 0
}

/// Every candidate is dead.
#[inline]
pub fn known_dead(table: &Table, cand: u32) -> bool {
    cand != 0 && cand & !table.dead == 0
}

/// The chop slot (0-based): the highest slot with no positive hint; else the
/// highest known-dead slot; else the oldest card. `None` for an empty hand.
pub fn chop(table: &Table, hand: &[Knowledge], cands: &[u32]) -> Option<usize> {
    let n = hand.len();
    (0..n)
        .rev()
        .find(|&k| !hand[k].hinted())
        .or_else(|| (0..n).rev().find(|&k| known_dead(table, cands[k])))
        .or(n.checked_sub(1))
}

/// Names of the identities in a mask, in deck order.
pub fn names(mask: u32) -> Vec<String> {
    (0..NUM_IDS as CardId)
        .filter(|&id| mask & bit(id) != 0)
        .map(card_name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(colour: &str, rank: usize) -> CardId {
        card_id(COLOURS.iter().position(|c| *c == colour).unwrap(), rank - 1)
    }

    #[test]
    fn masks_partition_the_deck() {
        let all_colours: u32 = (0..5).map(colour_mask).fold(0, |a, m| a | m);
        let all_ranks: u32 = (0..5).map(rank_mask).fold(0, |a, m| a | m);
        assert_eq!(all_colours, ALL_IDS);
        assert_eq!(all_ranks, ALL_IDS);
        assert_eq!(TOTAL_ONE | TOTAL_TWO | TOTAL_THREE, ALL_IDS);
        let deck: u32 = (0..25u8).map(|i| copies(i) as u32).sum();
        assert_eq!(deck, 50);
        assert_eq!(card_name(id("blue", 4)), "blue 4");
    }

    #[test]
    fn hint_masks_follow_positive_and_negative_hints() {
        let mut k = Knowledge::default();
        assert_eq!(k.hint_mask(), ALL_IDS);
        k.hear_colour(0, false, 3); // not red
        k.hear_rank(0, false, 4); // not 1
        assert_eq!(k.hint_mask().count_ones(), 16);
        assert_eq!(k.touched, None);
        k.hear_rank(2, true, 5); // a 3
        assert_eq!(
            names(k.hint_mask()),
            vec!["yellow 3", "green 3", "blue 3", "white 3"]
        );
        assert_eq!(k.touched, Some(5));
        k.hear_colour(3, true, 9);
        assert_eq!(k.hint_mask(), bit(id("blue", 3)));
        assert_eq!(k.touched, Some(9));
    }

    #[test]
    fn seen_counts_against_copies() {
        let mut s = Seen::default();
        s.add(bit(id("red", 1)) | bit(id("red", 5)));
        assert_eq!(s.exhausted(), bit(id("red", 5)));
        s.add(bit(id("red", 1)));
        assert_eq!(s.exhausted(), bit(id("red", 5)));
        s.add(bit(id("red", 1)));
        assert_eq!(s.exhausted(), bit(id("red", 5)) | bit(id("red", 1)));
        assert_eq!(s.count(id("red", 1)), 3);
        let mut t = Seen::default();
        t.add(bit(id("red", 2)));
        t.add_all(&s);
        assert_eq!(t.count(id("red", 1)), 3);
        assert_eq!(t.count(id("red", 2)), 1);
        assert_eq!(t.exhausted(), bit(id("red", 5)) | bit(id("red", 1)));
    }

    #[test]
    fn table_facts() {
        let mut fw = [0u8; 5];
        let mut disc = [0u8; 25];
        fw[0] = 2; // red 1, red 2 played
        disc[id("yellow", 2) as usize] = 2; // both yellow 2s gone: yellow 3-5 stranded
        disc[id("green", 4) as usize] = 1;
        let t = Table::new(&fw, &disc);
        assert_eq!(
            names(t.playable),
            vec!["red 3", "yellow 1", "green 1", "blue 1", "white 1"]
        );
        assert_eq!(
            names(t.dead),
            vec!["red 1", "red 2", "yellow 3", "yellow 4", "yellow 5"]
        );
        // Every 5 is a last copy, but the stranded yellow 5 is dead; one green 4 is gone.
        assert_eq!(
            names(t.critical),
            vec!["red 5", "green 4", "green 5", "blue 5", "white 5"]
        );
        assert_eq!(t.gone.count(id("red", 1)), 1);
        assert_eq!(t.gone.count(id("yellow", 2)), 2);
    }
}
