//! Select: the position of the k-th set bit of a word, without walking its bits
//! (a bit-walking loop mispredicts its exit, and `random` selects every ply).
//! One table serves every width: the gauntlet's `u64` boards, the fog engine's
//! `u32` cell sets and Hanabi's `u8` colour and rank masks.

/// Index of the k-th (0-based) set bit of `w`, lowest first; `w` has more than k
/// bits. Constant time and branch-free (Vigna's broadword select): per-byte bit
/// counts, their running sums by one multiply, the byte holding the bit by a
/// bytewise compare, then a table for the bit within that byte.
#[inline]
pub fn select64(w: u64, k: u32) -> u32 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut counts = w - ((w >> 1) & 0x5555_5555_5555_5555);
    counts = (counts & 0x3333_3333_3333_3333) + ((counts >> 2) & 0x3333_3333_3333_3333);
    counts = (counts + (counts >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Byte i: set bits in bytes 0..=i (at most 64, so no carry between bytes).
    let running = counts.wrapping_mul(ONES);
    // High bit of byte i set iff running_i <= k: the bytes wholly before the k-th bit.
    let before = (((k as u64 * ONES) | HIGHS) - running) & HIGHS;
    let byte = ((before >> 7).wrapping_mul(ONES) >> 56) as u32;
    let shift = byte * 8;
    let skipped = ((running << 8) >> shift) as u32 & 0xFF;
    let within = (k - skipped) as usize;
    shift + SELECT_IN_BYTE[(within & 7) << 8 | (w >> shift) as usize & 0xFF] as u32
}

/// Index of the k-th (0-based) set bit of `m`, lowest first; `m` has more than k bits.
#[inline]
pub fn select128(m: u128, k: usize) -> usize {
    let low = m as u64;
    let n = low.count_ones() as usize;
    if k < n {
        select64(low, k as u32) as usize
    } else {
        64 + select64((m >> 64) as u64, (k - n) as u32) as usize
    }
}

/// Index of the k-th (0-based) set bit of byte `b`, which has more than k bits.
#[inline]
pub fn select8(b: u8, k: u32) -> u32 {
    SELECT_IN_BYTE[(k as usize & 7) << 8 | b as usize] as u32
}

/// `SELECT_IN_BYTE[k << 8 | b]`: the index of the k-th set bit of byte `b` (8 if none).
static SELECT_IN_BYTE: [u8; 2048] = select_table();

const fn select_table() -> [u8; 2048] {
    let mut t = [8u8; 2048];
    let mut b = 0;
    while b < 256 {
        let (mut bit, mut k) = (0, 0);
        while bit < 8 {
            if b >> bit & 1 == 1 {
                t[k << 8 | b] = bit as u8;
                k += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
}

/// A `u32` set (fog cells) ready for counting and selecting without walking its bits (no
/// data-dependent branch: `random` selects the k-th legal cell every ply, and a
/// bit-walking loop mispredicts its exit).
#[derive(Clone, Copy, Debug)]
pub struct Ranked {
    m: u32,
    /// Byte `i` holds the number of set bits in bytes `0..=i` of `m`.
    running: u32,
}

impl Ranked {
    #[inline]
    pub fn new(m: u32) -> Self {
        // Per-byte popcounts (the SWAR popcount), then running sums by one multiply
        // (each byte at most 32, so no carries between bytes).
        let b = m - ((m >> 1) & 0x5555_5555);
        let b = (b & 0x3333_3333) + ((b >> 2) & 0x3333_3333);
        let b = (b + (b >> 4)) & 0x0F0F_0F0F;
        Ranked {
            m,
            running: b.wrapping_mul(0x0101_0101),
        }
    }

    /// The number of set bits.
    #[inline]
    pub fn count(&self) -> usize {
        (self.running >> 24) as usize
    }

    /// The `k`-th set bit (0-based, lowest first); `k` < [`Self::count`].
    #[inline]
    pub fn nth(&self, k: usize) -> usize {
        debug_assert!(k < self.count());
        let k = k as u32;
        // High bit of byte i set iff running_i > k (running_i | 0x80 >= 128 > k + 1,
        // so no byte borrows from the next): the wanted bit is in the first such byte.
        let past = ((self.running | 0x8080_8080) - (k + 1) * 0x0101_0101) & 0x8080_8080;
        let shift = past.trailing_zeros() & !7;
        // Set bits in the bytes below it: byte `shift / 8 - 1` of the running sums.
        let below = ((self.running << 8) >> shift) & 0xFF;
        let byte = (self.m >> shift) & 0xFF;
        shift as usize + select8(byte as u8, k - below) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The plain loop the selects replace.
    fn select_by_loop(mut w: u64, k: u32) -> u32 {
        for _ in 0..k {
            w &= w - 1;
        }
        w.trailing_zeros()
    }

    #[test]
    fn select8_agrees_with_the_bit_loop() {
        for b in 1..=255u8 {
            for k in 0..b.count_ones() {
                assert_eq!(select8(b, k), select_by_loop(b as u64, k), "{b:#x} {k}");
            }
        }
        // Past the last set bit: 8, as `trailing_zeros` of an emptied byte.
        assert_eq!(select8(0b0000_0101, 2), 8);
    }

    #[test]
    fn select64_agrees_with_the_bit_loop() {
        let mut rng = Rng::new(5);
        for round in 0..20_000 {
            // Sparse, dense and uniform words.
            let (a, b) = (rng.next_u64(), rng.next_u64());
            let w = match round % 3 {
                0 => a & b,
                1 => a | b,
                _ => a,
            };
            for k in 0..w.count_ones() {
                assert_eq!(select64(w, k), select_by_loop(w, k), "{w:#x} {k}");
            }
        }
        assert_eq!(select64(1 << 63, 0), 63);
        assert_eq!(select64(u64::MAX, 63), 63);
        let m: u128 = (0b1011 << 60) | (1 << 100);
        let found: Vec<usize> = (0..4).map(|k| select128(m, k)).collect();
        assert_eq!(found, [60, 61, 63, 100]);
    }

    #[test]
    fn ranked_counts_and_selects_the_bits_in_order() {
        let mut rng = Rng::new(17);
        let masks = (0..40_000).map(|i| match i % 4 {
            0 => rng.next_u64() as u32 & ((1 << 25) - 1),
            1 => rng.next_u64() as u32 & rng.next_u64() as u32,
            2 => rng.next_u64() as u32,
            _ => 1 << (i % 32),
        });
        for m in masks.chain([0, u32::MAX, (1 << 25) - 1]) {
            let r = Ranked::new(m);
            assert_eq!(r.count(), m.count_ones() as usize, "{m:#x}");
            for k in 0..m.count_ones() {
                assert_eq!(
                    r.nth(k as usize),
                    select_by_loop(m as u64, k) as usize,
                    "{m:#x} {k}"
                );
            }
        }
    }
}
