//! The one PRNG of coworld. Every random choice (Hanabi deals, baseline
//! tie-breaks, `random` policies, per-episode seeds of a batch) comes from here,
//! so a replay re-derives exactly on any machine and in any language.
//!
//! Algorithm: SplitMix64 (Steele, Lea, Flood 2014): a 64-bit counter advanced by
//! the golden gamma and scrambled by two multiply-xorshift rounds. It passes
//! BigCrush, costs one multiply pair per draw, and a stream is just a starting
//! counter, so the per-decision streams the baselines use are free to derive.
//! Specified bit for bit: a port is a dozen lines.

/// Largest seed the engine draws for an unpinned (0) seed: seeds are drawn in
/// 1..=2^53-1, wide enough that no seat can search them from what it observes,
/// and still exact in JavaScript (the viewer) and in a float64.
pub const MAX_DRAWN_SEED: i64 = (1 << 53) - 1;

#[inline]
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A stream seeded from a signed 64-bit seed (the episode seed, or a value derived from it).
    pub fn new(seed: i64) -> Self {
        let mut sm = seed as u64;
        Rng {
            state: splitmix64(&mut sm),
        }
    }

    /// The stream for one decision of one episode: baselines draw their tie-breaks
    /// from it, so the same seat makes the same choice in the batch simulator and
    /// in the Python episode runner.
    #[inline]
    pub fn for_decision(seed: i64, ply: u32) -> Self {
        DecisionStreams::new(seed).at(ply)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        splitmix64(&mut self.state)
    }

    /// Uniform in 0..n (Lemire's multiply-shift; the bias is < n / 2^64).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0)");
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in [0, 1), on the 2^-53 grid (the top 53 bits of one draw).
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// One element of a non-empty slice, uniformly.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Fisher-Yates, from the last index down.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// The decision streams of one episode, with the seed's scramble done once:
/// `at(ply)` is `Rng::for_decision(seed, ply)` for one xor and one multiply (the
/// batch simulator draws a stream every ply).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecisionStreams {
    base: u64,
}

impl DecisionStreams {
    #[inline]
    pub fn new(seed: i64) -> Self {
        let mut sm = (seed as u64) ^ 0xD1B5_4A32_D192_ED03;
        DecisionStreams {
            base: splitmix64(&mut sm),
        }
    }

    /// The stream of decision `ply` (see [`crate::game::Game::decision_stream`]).
    #[inline]
    pub fn at(&self, ply: u32) -> Rng {
        Rng {
            state: self.base ^ (ply as u64).wrapping_mul(0xA24B_AED4_963E_E407),
        }
    }
}

/// The stream of opening ply `stream` (the mover's [`crate::game::Game::decision_stream`])
/// of the episode seeded `seed`: the random legal plies a league or gate may play
/// before the policies take over. A function of the seed alone, on a stream of its
/// own (no baseline draws from it), so both seat orders of a seed open alike.
pub fn opening_stream(seed: i64, stream: u32) -> Rng {
    let mut sm = (seed as u64) ^ 0x6F70_656E_696E_6773; // "openings"
    DecisionStreams {
        base: splitmix64(&mut sm),
    }
    .at(stream)
}

/// Seed of episode `index` of a batch started from `base`: in 1..=2^53-1, so it
/// is as wide as a drawn seed and can be typed back into `coworld play --seed`.
pub fn episode_seed(base: i64, index: u64) -> i64 {
    let mut sm = (base as u64) ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    1 + (splitmix64(&mut sm) % MAX_DRAWN_SEED as u64) as i64
}

/// Resolve seed 0 (unpinned) to a fresh seed in 1..=2^53-1; any other seed is kept.
pub fn resolve_seed(seed: i64) -> i64 {
    if seed != 0 {
        return seed;
    }
    1 + (entropy() % MAX_DRAWN_SEED as u64) as i64
}

/// 64 unpredictable bits: the clock, the process and a counter hashed under
/// std's `RandomState`, whose SipHash keys come from the operating system's
/// random source, so knowing when and where a seed was drawn does not narrow it.
fn entropy() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    RandomState::new().hash_one((nanos, std::process::id(), counter()))
}

fn counter() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
        .wrapping_mul(0xA24B_AED4_963E_E407)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_reference_vector() {
        // Reference: the first outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
        let mut s = 0u64;
        assert_eq!(splitmix64(&mut s), 0xE220_A839_7B1D_CDAF);
        assert_eq!(splitmix64(&mut s), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn streams_are_deterministic_and_seed_sensitive() {
        let a: Vec<u64> = (0..4)
            .scan(Rng::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let b: Vec<u64> = (0..4)
            .scan(Rng::new(7), |r, _| Some(r.next_u64()))
            .collect();
        let c: Vec<u64> = (0..4)
            .scan(Rng::new(8), |r, _| Some(r.next_u64()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn decision_streams_match_a_pinned_vector() {
        // Pinned from the per-ply derivation as it stood before the per-episode
        // hoist: a replay recorded then must draw the same moves now.
        let first = |seed: i64, ply: u32| Rng::for_decision(seed, ply).next_u64();
        assert_eq!(first(5, 0), 0x05B8_FA66_5234_7182);
        assert_eq!(first(5, 1), 0x11C3_91AE_7469_669C);
        assert_eq!(first(-9, 77), 0xAD9B_2BB9_DD1B_A5C5);
        let streams = DecisionStreams::new(123);
        for ply in [0, 1, 2, 99, u32::MAX] {
            assert_eq!(streams.at(ply), Rng::for_decision(123, ply));
        }
    }

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut r = Rng::new(1);
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            seen[r.below(5)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 800), "{seen:?}");
    }

    #[test]
    fn seeds_resolve_into_range() {
        assert_eq!(resolve_seed(-42), -42);
        let drawn: Vec<i64> = (0..200).map(|_| resolve_seed(0)).collect();
        assert!(drawn.iter().all(|s| (1..=MAX_DRAWN_SEED).contains(s)));
        // Drawn seeds use the whole width: some of 200 reach past 2^52 and past 2^32.
        assert!(drawn.iter().any(|&s| s > 1 << 52));
        let e: Vec<i64> = (0..200).map(|i| episode_seed(3, i)).collect();
        assert!(e.iter().all(|s| (1..=MAX_DRAWN_SEED).contains(s)));
        assert!(e.iter().any(|&s| s > 1 << 52));
        let mut d = e.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), e.len());
    }
}
