//! Every game as tensors: a fixed action space (ids <-> canonical moves), the
//! legal-action mask, and a per-seat observation built from what that seat's
//! `view_for` holds and nothing else. docs/vecenv.md documents every layout.
//!
//! Observations are written from the seat's point of view in ABSOLUTE board
//! coordinates (rank-major, a1 first), with a constant plane saying which seat
//! observes, so action ids mean the same cells for both seats.

use crate::fog::knowledge::seen_empty;
use crate::fog::FogState;
use crate::game::{Game, Seat};
use crate::gauntlet::breakthrough::{self, Breakthrough, Step};
use crate::gauntlet::connect_four::{self, ConnectFour};
use crate::gauntlet::hex::{self, Hex};
use crate::gauntlet::quoridor::{self, Quoridor};
use crate::hanabi::knowledge::{
    bit, candidates, colour_of, rank0_of, Knowledge, Seen, NUM_COLOURS, NUM_IDS, NUM_RANKS,
};
use crate::hanabi::{hand_size, Hanabi, HanabiMove, MAX_FUSES, MAX_HAND, MAX_HINTS};
use crate::registry::AnyState;

/// A game with a fixed action space and observation tensors.
pub trait Tensor: Game + PartialEq {
    /// The game state inside a registry state, if it is this type.
    fn from_any(state: AnyState) -> Option<Self>;
    /// Whether the game's ply count is hidden from the seats (fog: it counts the
    /// opponent's collisions); the batch then reports the learners' decisions.
    const PRIVATE_PLIES: bool = false;
    /// Size of the action space (fixed for a game id and its config).
    fn num_actions(&self) -> usize;
    /// The id of a move.
    fn action_of(&self, mv: Self::Move) -> usize;
    /// The move an id names (`None`: the id is out of range).
    fn move_of(&self, action: usize) -> Option<Self::Move>;
    /// Shape of one observation (its product is the tensor's length).
    fn obs_shape(&self) -> Vec<usize>;
    /// Write `seat`'s observation into `out` (every entry is written).
    fn write_obs(&self, seat: Seat, out: &mut [f32]);
    /// Which game of the batch's list this episode plays (`rotate`: its index
    /// in the rotation; every other game has one).
    fn game_index(&self) -> usize {
        0
    }
    /// Which game of the batch's list action id `action` belongs to.
    fn action_game(&self, action: usize) -> usize {
        let _ = action;
        0
    }
    /// The legal ids as one word, for a space of at most 64 ids (`None`: the
    /// batch asks `legal_ids`). Games that know their moves as bits skip the list.
    fn legal_bits(&self) -> Option<u64> {
        None
    }
    /// Call `f` with the id of every legal move of the seat to move (any order).
    fn legal_ids(&self, scratch: &mut Vec<Self::Move>, mut f: impl FnMut(usize)) {
        self.legal_moves_into(scratch);
        for &mv in scratch.iter() {
            f(self.action_of(mv));
        }
    }
}

/// Fill plane `p` (of `cells` entries) from the bits of `m`: 1.0 where set.
/// Four entries at a time from a nibble's row of [`NIBBLES`]: no branch per
/// stone (visiting the set bits mispredicted once a stone).
#[inline]
fn plane(out: &mut [f32], p: usize, cells: usize, m: u128) {
    let plane = &mut out[p * cells..(p + 1) * cells];
    let (low, high) = plane.split_at_mut(cells.min(64));
    nibbles(low, m as u64);
    nibbles(high, (m >> 64) as u64);
}

/// `out[i]` = bit i of `w`, for the (at most 64) entries of `out`.
#[inline]
fn nibbles(out: &mut [f32], w: u64) {
    let done = out.len() / 4 * 4;
    let mut quads = out.chunks_exact_mut(4);
    for (i, quad) in (&mut quads).enumerate() {
        quad.copy_from_slice(&NIBBLES[(w >> (4 * i)) as usize & 15]);
    }
    for (i, x) in quads.into_remainder().iter_mut().enumerate() {
        *x = (w >> (done + i) & 1) as f32;
    }
}

/// Call `f` with the index of every set bit of `m`, lowest first.
#[inline]
pub(crate) fn for_bits(m: u128, mut f: impl FnMut(usize)) {
    let (mut lo, mut hi) = (m as u64, (m >> 64) as u64);
    while lo != 0 {
        f(lo.trailing_zeros() as usize);
        lo &= lo - 1;
    }
    while hi != 0 {
        f(64 + hi.trailing_zeros() as usize);
        hi &= hi - 1;
    }
}

/// Fill plane `p` with a constant.
#[inline]
fn constant(out: &mut [f32], p: usize, cells: usize, value: f32) {
    out[p * cells..(p + 1) * cells].fill(value);
}

/// Two-seat boards: [own, opponent, seat is 1] over `cells` cells in rank-major order.
fn two_seat_board(out: &mut [f32], cells: usize, own: u128, opp: u128, seat: Seat) {
    plane(out, 0, cells, own);
    plane(out, 1, cells, opp);
    constant(out, 2, cells, seat as f32);
}

/// Connect four's discs, stored file-major with a spare bit per file (bit
/// `file * 7 + rank`), as a rank-major mask (bit `rank * 7 + file`), one table
/// lookup per file.
fn c4_rank_major(m: u64) -> u64 {
    (0..connect_four::FILES).fold(0, |acc, f| acc | C4_FILE[f][(m >> (f * 7) & 0x3f) as usize])
}

/// `C4_FILE[f][column]`: the rank-major bits of file `f`'s six cells.
const C4_FILE: [[u64; 64]; connect_four::FILES] = {
    let mut t = [[0u64; 64]; connect_four::FILES];
    let mut f = 0;
    while f < connect_four::FILES {
        let mut col = 0;
        while col < 64 {
            let mut r = 0;
            while r < connect_four::RANKS {
                if col >> r & 1 == 1 {
                    t[f][col] |= 1 << (r * connect_four::FILES + f);
                }
                r += 1;
            }
            col += 1;
        }
        f += 1;
    }
    t
};

impl Tensor for ConnectFour {
    fn from_any(state: AnyState) -> Option<Self> {
        match state {
            AnyState::ConnectFour(g) => Some(g),
            _ => None,
        }
    }
    /// One id per file: 0 is `a`.
    fn num_actions(&self) -> usize {
        connect_four::FILES
    }
    fn action_of(&self, file: u8) -> usize {
        file as usize
    }
    fn move_of(&self, action: usize) -> Option<u8> {
        (action < connect_four::FILES).then_some(action as u8)
    }
    fn obs_shape(&self) -> Vec<usize> {
        vec![3, connect_four::RANKS, connect_four::FILES]
    }
    /// Planes [own, opponent, seat]; entry (rank, file), rank 1 first.
    fn write_obs(&self, seat: Seat, out: &mut [f32]) {
        let cells = connect_four::FILES * connect_four::RANKS;
        let discs = self.discs();
        plane(out, 0, cells, c4_rank_major(discs[seat]) as u128);
        plane(out, 1, cells, c4_rank_major(discs[1 - seat]) as u128);
        constant(out, 2, cells, seat as f32);
    }
    /// A file is open while its top cell is empty.
    fn legal_bits(&self) -> Option<u64> {
        let [a, b] = self.discs();
        let tops = c4_rank_major(a | b) >> ((connect_four::RANKS - 1) * connect_four::FILES);
        Some(if self.active_seat().is_some() {
            !tops & 0x7f
        } else {
            0
        })
    }
    /// A file is open while its top cell is empty.
    fn legal_ids(&self, _: &mut Vec<u8>, mut f: impl FnMut(usize)) {
        if self.active_seat().is_some() {
            let [a, b] = self.discs();
            let ranks = connect_four::RANKS;
            for file in 0..connect_four::FILES {
                if (a | b) >> (file * (ranks + 1) + ranks - 1) & 1 == 0 {
                    f(file);
                }
            }
        }
    }
}

impl Tensor for Hex {
    fn from_any(state: AnyState) -> Option<Self> {
        match state {
            AnyState::Hex(g) => Some(g),
            _ => None,
        }
    }
    /// One id per cell, `rank * 7 + file` (a1 is 0, g7 is 48).
    fn num_actions(&self) -> usize {
        hex::SIZE * hex::SIZE
    }
    fn action_of(&self, cell: u8) -> usize {
        cell as usize
    }
    fn move_of(&self, action: usize) -> Option<u8> {
        (action < hex::SIZE * hex::SIZE).then_some(action as u8)
    }
    fn obs_shape(&self) -> Vec<usize> {
        vec![3, hex::SIZE, hex::SIZE]
    }
    fn legal_ids(&self, _: &mut Vec<u8>, f: impl FnMut(usize)) {
        if self.active_seat().is_some() {
            let s = self.stones();
            let board = (1u128 << (hex::SIZE * hex::SIZE)) - 1;
            for_bits(board & !s[0] & !s[1], f);
        }
    }
    /// Planes [own, opponent, seat]; entry (rank, file).
    fn write_obs(&self, seat: Seat, out: &mut [f32]) {
        let s = self.stones();
        two_seat_board(out, hex::SIZE * hex::SIZE, s[seat], s[1 - seat], seat);
    }
}

/// Breakthrough's action space: every step a piece could ever take (one rank
/// forward for either seat, straight or diagonal, on the board), ordered by
/// origin cell, then destination cell.
fn breakthrough_steps() -> &'static (Vec<Step>, Vec<u16>) {
    use std::sync::OnceLock;
    static TABLE: OnceLock<(Vec<Step>, Vec<u16>)> = OnceLock::new();
    TABLE.get_or_init(|| {
        let (files, ranks) = (breakthrough::FILES as i32, breakthrough::RANKS as i32);
        let cells = (files * ranks) as usize;
        let mut steps = Vec::new();
        let mut ids = vec![u16::MAX; cells * cells];
        for from in 0..cells as i32 {
            let (f, r) = (from % files, from / files);
            let mut targets: Vec<i32> = Vec::new();
            for dr in [-1, 1] {
                for df in [-1, 0, 1] {
                    let (nf, nr) = (f + df, r + dr);
                    if (0..files).contains(&nf) && (0..ranks).contains(&nr) {
                        targets.push(nr * files + nf);
                    }
                }
            }
            targets.sort_unstable();
            for to in targets {
                ids[from as usize * cells + to as usize] = steps.len() as u16;
                steps.push(Step {
                    from: from as u8,
                    to: to as u8,
                });
            }
        }
        (steps, ids)
    })
}

impl Tensor for Breakthrough {
    fn from_any(state: AnyState) -> Option<Self> {
        match state {
            AnyState::Breakthrough(g) => Some(g),
            _ => None,
        }
    }
    fn num_actions(&self) -> usize {
        breakthrough_steps().0.len()
    }
    fn action_of(&self, mv: Step) -> usize {
        let cells = breakthrough::FILES * breakthrough::RANKS;
        breakthrough_steps().1[mv.from as usize * cells + mv.to as usize] as usize
    }
    fn move_of(&self, action: usize) -> Option<Step> {
        breakthrough_steps().0.get(action).copied()
    }
    fn obs_shape(&self) -> Vec<usize> {
        vec![3, breakthrough::RANKS, breakthrough::FILES]
    }
    /// Planes [own, opponent, seat]; entry (rank, file).
    fn write_obs(&self, seat: Seat, out: &mut [f32]) {
        let p = self.pieces();
        let cells = breakthrough::FILES * breakthrough::RANKS;
        two_seat_board(out, cells, p[seat] as u128, p[1 - seat] as u128, seat);
    }
}

impl Tensor for Quoridor {
    fn from_any(state: AnyState) -> Option<Self> {
        match state {
            AnyState::Quoridor(g) => Some(g),
            _ => None,
        }
    }
    /// The engine's move code: 0..81 pawn cells, 81 + anchor `h` walls, 145 + anchor `v` walls.
    fn num_actions(&self) -> usize {
        let s = quoridor::SIZE;
        s * s + 2 * (s - 1) * (s - 1)
    }
    fn action_of(&self, mv: u8) -> usize {
        mv as usize
    }
    fn move_of(&self, action: usize) -> Option<u8> {
        (action < self.num_actions()).then_some(action as u8)
    }
    fn obs_shape(&self) -> Vec<usize> {
        vec![7, quoridor::SIZE, quoridor::SIZE]
    }
    /// Planes [own pawn, opponent pawn, h walls, v walls, own walls left / 10,
    /// opponent walls left / 10, seat]; a wall sits at its anchor (rank, file)
    /// (the 8 x 8 anchors in the low corner of the 9 x 9 plane).
    fn write_obs(&self, seat: Seat, out: &mut [f32]) {
        let s = quoridor::SIZE;
        let cells = s * s;
        plane(out, 0, cells, 1u128 << self.pawn(seat));
        plane(out, 1, cells, 1u128 << self.pawn(1 - seat));
        let spread = |anchors: u64| -> u128 {
            let mut m = 0u128;
            for a in 0..(s - 1) * (s - 1) {
                let (f, r) = (a % (s - 1), a / (s - 1));
                m |= ((anchors >> a & 1) as u128) << (r * s + f);
            }
            m
        };
        let [h, v] = self.walls();
        plane(out, 2, cells, spread(h));
        plane(out, 3, cells, spread(v));
        let left = |seat: Seat| self.walls_left(seat) as f32 / quoridor::WALLS as f32;
        constant(out, 4, cells, left(seat));
        constant(out, 5, cells, left(1 - seat));
        constant(out, 6, cells, seat as f32);
    }
}

impl Tensor for FogState {
    const PRIVATE_PLIES: bool = true;
    fn from_any(state: AnyState) -> Option<Self> {
        match state {
            AnyState::Fog(g) => Some(g),
            _ => None,
        }
    }
    /// One id per cell (`rank * n + file`); with sensing, `anchor * n^2 + cell`.
    fn num_actions(&self) -> usize {
        let cells = self.size() * self.size();
        if self.variant().sense > 0 {
            cells * cells
        } else {
            cells
        }
    }
    fn action_of(&self, mv: crate::fog::Attempt) -> usize {
        let cells = self.size() * self.size();
        mv.anchor.map_or(0, |a| a as usize * cells) + mv.cell as usize
    }
    fn move_of(&self, action: usize) -> Option<crate::fog::Attempt> {
        let cells = self.size() * self.size();
        (action < self.num_actions()).then(|| crate::fog::Attempt {
            anchor: (self.variant().sense > 0).then_some((action / cells) as u8),
            cell: (action % cells) as u8,
        })
    }
    fn obs_shape(&self) -> Vec<usize> {
        vec![4, self.size(), self.size()]
    }
    fn legal_ids(&self, _: &mut Vec<crate::fog::Attempt>, mut f: impl FnMut(usize)) {
        let Some(seat) = self.active_seat() else {
            return;
        };
        let cells = self.legal_attempts(seat);
        if self.variant().sense == 0 {
            return for_bits(cells, f);
        }
        let n2 = self.size() * self.size();
        for_bits(self.legal_anchors(), |a| for_bits(cells, |c| f(a * n2 + c)));
    }
    /// Planes [own stones, proven opponent stones, seen empty (sensing variants;
    /// still neither own nor proven), seat]: the seat's knowledge only.
    fn write_obs(&self, seat: Seat, out: &mut [f32]) {
        let k = self.knowledge(seat);
        let cells = self.size() * self.size();
        plane(out, 0, cells, k.own);
        plane(out, 1, cells, k.proven);
        let empty = if self.variant().sense > 0 {
            seen_empty(self, seat)
                .into_iter()
                .fold(0u128, |m, (c, _)| m | 1 << c)
        } else {
            0
        };
        plane(out, 2, cells, empty);
        constant(out, 3, cells, seat as f32);
    }
}

/// Hanabi observation sections, in order (S seats, H cards a hand):
/// hands S*H*25, hints S*H*20, own candidates H*25, fireworks 25, discards 75,
/// hint tokens 8, fuses 3, deck 1, final round 1, observer S.
fn hanabi_len(seats: usize) -> usize {
    let h = hand_size(seats);
    seats * h * NUM_IDS + seats * h * 20 + h * NUM_IDS + 25 + 75 + 8 + 3 + 1 + 1 + seats
}

/// The Hanabi observation as bits, written in section order and expanded to
/// floats in one pass (every entry but the deck fraction is 0 or 1): no memset,
/// no scattered stores.
struct Bits {
    words: [u64; BIT_WORDS],
    at: usize,
}

/// Words for the longest observation (5 seats: 1118 entries).
const BIT_WORDS: usize = 18;

impl Bits {
    fn new() -> Self {
        Bits {
            words: [0; BIT_WORDS],
            at: 0,
        }
    }
    fn skip(&mut self, n: usize) {
        self.at += n;
    }
    /// The next `n` (at most 64) entries: bit i of `m` (below `1 << n`).
    #[inline]
    fn put(&mut self, m: u64, n: usize) {
        let (w, o) = (self.at / 64, self.at % 64);
        self.words[w] |= m << o;
        if o + n > 64 {
            self.words[w + 1] |= m >> (64 - o);
        }
        self.at += n;
    }
    /// `n` entries, the first `k` of them set.
    #[inline]
    fn thermometer(&mut self, k: usize, n: usize) {
        self.put((1u64 << k.min(n)) - 1, n);
    }
    /// Write every entry of `out` (its length is the number of bits put), four
    /// at a time from a nibble's row of [`NIBBLES`].
    fn expand(&self, out: &mut [f32]) {
        debug_assert_eq!(out.len(), self.at);
        for (&word, block) in self.words.iter().zip(out.chunks_mut(64)) {
            let done = block.len() / 4 * 4;
            let mut quads = block.chunks_exact_mut(4);
            for (i, quad) in (&mut quads).enumerate() {
                quad.copy_from_slice(&NIBBLES[(word >> (4 * i)) as usize & 15]);
            }
            for (i, x) in quads.into_remainder().iter_mut().enumerate() {
                *x = (word >> (done + i) & 1) as f32;
            }
        }
    }
}

/// A nibble's four bits as floats, lowest bit first.
static NIBBLES: [[f32; 4]; 16] = {
    let mut t = [[0.0f32; 4]; 16];
    let mut n = 0;
    while n < 16 {
        let mut i = 0;
        while i < 4 {
            if n >> i & 1 == 1 {
                t[n][i] = 1.0;
            }
            i += 1;
        }
        n += 1;
    }
    t
};

/// Bit i set where byte i of `x` has its high bit set (SWAR movemask).
#[inline]
fn high_bits(x: u64) -> u32 {
    ((((x >> 7) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080)) >> 56) as u32
}

/// Per threshold k in 1..=3, the identities with at least k copies in the pile
/// (byte-parallel: a count is at most 3, so adding 0x80 - k sets the high bit
/// exactly when the byte is at least k).
fn pile_at_least(discarded: &[u8; NUM_IDS]) -> [u32; 3] {
    let mut bytes = [0u8; 32];
    bytes[..NUM_IDS].copy_from_slice(discarded);
    let mut out = [0u32; 3];
    for (w, chunk) in bytes.chunks_exact(8).enumerate() {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        for (k, o) in out.iter_mut().enumerate() {
            let add = 0x0101_0101_0101_0101 * (0x7f - k as u64);
            *o |= high_bits(x + add) << (8 * w);
        }
    }
    out
}

/// The fireworks and the discard pile as copies seen (the `gone` of
/// `knowledge::Table`, without the rest of the table), and the discard
/// pile's thermometers (3 bits an identity, identity 0 lowest).
pub(super) fn gone(fireworks: &[u8; NUM_COLOURS], discarded: &[u8; NUM_IDS]) -> (Seen, u128) {
    let mut played = 0u32;
    for (c, &h) in fireworks.iter().enumerate() {
        played |= ((1u32 << h) - 1) << (c * NUM_RANKS);
    }
    let [one, two, three] = pile_at_least(discarded);
    let mut pile = 0u128;
    for_bits(one as u128, |id| {
        pile |= (((1u32 << discarded[id].min(3)) - 1) as u128) << (3 * id);
    });
    // A played card is one more copy gone.
    let mut seen = Seen::default();
    seen.add(one | played);
    seen.add(two | (one & played));
    seen.add(three | (two & played));
    seen.add(three & played);
    (seen, pile)
}

impl Tensor for Hanabi {
    fn from_any(state: AnyState) -> Option<Self> {
        match state {
            AnyState::Hanabi(g) => Some(g),
            _ => None,
        }
    }
    /// `play s` (0..5), `discard s` (5..10), then per target seat t (absolute)
    /// ten hints at `10 + 10 t`: colours red..white, then ranks 1..5.
    fn num_actions(&self) -> usize {
        2 * MAX_HAND + 10 * self.seats()
    }
    fn action_of(&self, mv: HanabiMove) -> usize {
        match mv {
            HanabiMove::Play(s) => s as usize,
            HanabiMove::Discard(s) => MAX_HAND + s as usize,
            HanabiMove::HintColour { target, colour } => {
                10 + 10 * target as usize + colour as usize
            }
            HanabiMove::HintRank { target, rank } => 15 + 10 * target as usize + rank as usize,
        }
    }
    fn move_of(&self, action: usize) -> Option<HanabiMove> {
        if action >= self.num_actions() {
            return None;
        }
        Some(match action {
            a if a < MAX_HAND => HanabiMove::Play(a as u8),
            a if a < 2 * MAX_HAND => HanabiMove::Discard((a - MAX_HAND) as u8),
            a => {
                let (target, k) = (((a - 10) / 10) as u8, ((a - 10) % 10) as u8);
                if k < 5 {
                    HanabiMove::HintColour { target, colour: k }
                } else {
                    HanabiMove::HintRank {
                        target,
                        rank: k - 5,
                    }
                }
            }
        })
    }
    fn obs_shape(&self) -> Vec<usize> {
        vec![hanabi_len(self.seats())]
    }
    /// Other seats' cards (the observer's own block stays zero: it never sees
    /// its cards), every card's public hints, the observer's candidate sets
    /// (from what it sees), the table and the counters; never the deck order.
    fn write_obs(&self, seat: Seat, out: &mut [f32]) {
        let (seats, h) = (self.seats(), hand_size(self.seats()));
        let mut w = Bits::new();
        // What the observer sees outside its hand, for its candidate sets.
        let (mut seen, pile) = gone(self.fireworks(), self.discarded());
        for s in 0..seats {
            let hand = self.hand(s);
            if s == seat {
                w.skip(h * NUM_IDS);
                continue;
            }
            for c in hand {
                w.put(bit(c.id) as u64, NUM_IDS);
                seen.add(bit(c.id));
            }
            w.skip((h - hand.len()) * NUM_IDS);
        }
        for s in 0..seats {
            let hand = self.hand(s);
            for c in hand {
                let k = c.know;
                let hinted = k.colour.map_or(0, |c| 1 << c) | k.rank.map_or(0, |r| 1 << (5 + r));
                w.put(
                    hinted | (k.not_colours as u64) << 10 | (k.not_ranks as u64) << 15,
                    20,
                );
            }
            w.skip((h - hand.len()) * 20);
        }
        let own = self.hand(seat);
        let mut know = [Knowledge::default(); MAX_HAND];
        for (k, c) in know.iter_mut().zip(own) {
            *k = c.know;
        }
        let mut cands = [0u32; MAX_HAND];
        candidates(seen, &know[..own.len()], &mut cands);
        for &cand in &cands[..own.len()] {
            w.put(cand as u64, NUM_IDS);
        }
        w.skip((h - own.len()) * NUM_IDS);
        let mut fireworks = 0u64;
        for (c, &height) in self.fireworks().iter().enumerate() {
            fireworks |= ((1u64 << height) - 1) << (5 * c);
        }
        w.put(fireworks, 25);
        w.put(pile as u64, 64);
        w.put((pile >> 64) as u64, 3 * NUM_IDS - 64);
        w.thermometer(self.hint_tokens() as usize, MAX_HINTS as usize);
        w.thermometer(self.fuses() as usize, MAX_FUSES as usize);
        let deck = w.at;
        w.skip(1);
        w.put(u64::from(self.final_turns().is_some()), 1);
        w.put(1 << seat, seats);
        debug_assert_eq!(w.at, hanabi_len(seats));
        w.expand(out);
        out[deck] = self.deck_count() as f32 / crate::hanabi::DECK_SIZE as f32;
    }
    /// Plays and discards by slot, hints by target as 5-bit colour and rank masks
    /// (at most 10 + 10 * 5 = 60 ids).
    fn legal_bits(&self) -> Option<u64> {
        let Some(me) = self.active_seat() else {
            return Some(0);
        };
        let slots = (1u64 << self.hand(me).len()) - 1;
        let mut bits = slots;
        if self.hint_tokens() < MAX_HINTS {
            bits |= slots << MAX_HAND;
        }
        if self.hint_tokens() > 0 {
            for target in (0..self.seats()).filter(|&t| t != me) {
                let (mut colours, mut ranks) = (0u64, 0u64);
                for c in self.hand(target) {
                    colours |= 1 << colour_of(c.id);
                    ranks |= 1 << rank0_of(c.id);
                }
                bits |= (colours | ranks << 5) << (2 * MAX_HAND + 10 * target);
            }
        }
        Some(bits)
    }
    fn legal_ids(&self, _: &mut Vec<HanabiMove>, f: impl FnMut(usize)) {
        for_bits(self.legal_bits().unwrap_or(0) as u128, f);
    }
}
