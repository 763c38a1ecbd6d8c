//! `rotate` in one fixed space: each episode plays the game of the rotation its
//! seed draws (exactly as the registry resolves `rotate`), behind one action
//! space and one observation shape for every member (docs/vecenv.md):
//!
//! - action ids: the members' own spaces concatenated in rotation order
//!   (connect-four 0..7, breakthrough 7..167, hex 167..216, quoridor 216..425),
//!   so an id names one move of one game; the mask marks only the live game's;
//! - observation `(11, 9, 9)`: the member's own planes in the low corner of
//!   planes 0..7 (`[plane, rank - 1, file]`, zero outside its board and its
//!   planes), then one constant plane per member, 1.0 for the game played.

use std::sync::OnceLock;

use serde_json::Value;

use super::tensor::Tensor;
use crate::error::CoreResult;
use crate::game::{Ending, Game, Outcome, Seat};
use crate::gauntlet::breakthrough::Breakthrough;
use crate::gauntlet::connect_four::ConnectFour;
use crate::gauntlet::hex::Hex;
use crate::gauntlet::quoridor::Quoridor;
use crate::gauntlet::{self, Gauntlet};
use crate::policy::{Act, Baseline, Params};
use crate::registry::AnyState;
use crate::rng::Rng;

/// The live member game of a `rotate` episode, in rotation order.
#[derive(Clone, PartialEq)]
pub enum Rotated {
    ConnectFour(ConnectFour),
    Breakthrough(Breakthrough),
    Hex(Hex),
    Quoridor(Quoridor),
}

/// Members, in the order of their variants (checked against the catalogue's rotation).
pub const MEMBERS: usize = 4;
/// Board planes of the widest member (quoridor) and the padded board side.
const PLANES: usize = 7;
const SIDE: usize = 9;

/// Run `$body` with `$g` bound to the member game inside `$r`.
macro_rules! on {
    ($r:expr, $g:ident => $body:expr) => {
        match $r {
            Rotated::ConnectFour($g) => $body,
            Rotated::Breakthrough($g) => $body,
            Rotated::Hex($g) => $body,
            Rotated::Quoridor($g) => $body,
        }
    };
}

/// Where each member's ids start, and (last) the size of the whole space.
fn offsets() -> &'static [usize; MEMBERS + 1] {
    static OFFSETS: OnceLock<[usize; MEMBERS + 1]> = OnceLock::new();
    OFFSETS.get_or_init(|| {
        let sizes = fresh_members().map(|m| m.member_actions());
        let mut out = [0; MEMBERS + 1];
        for (k, size) in sizes.into_iter().enumerate() {
            out[k + 1] = out[k] + size;
        }
        out
    })
}

/// A fresh game of every member (gauntlet starts do not depend on the seed).
fn fresh_members() -> [Rotated; MEMBERS] {
    [
        Rotated::ConnectFour(ConnectFour::new()),
        Rotated::Breakthrough(Breakthrough::new()),
        Rotated::Hex(Hex::new()),
        Rotated::Quoridor(Quoridor::new()),
    ]
}

/// The member whose ids hold `action` (`action` below the space's size).
fn member_of(action: usize) -> usize {
    offsets().partition_point(|&o| o <= action) - 1
}

impl Rotated {
    /// The index of the live game in the rotation.
    pub fn member(&self) -> usize {
        match self {
            Rotated::ConnectFour(_) => 0,
            Rotated::Breakthrough(_) => 1,
            Rotated::Hex(_) => 2,
            Rotated::Quoridor(_) => 3,
        }
    }
    fn offset(&self) -> usize {
        offsets()[self.member()]
    }
    fn member_actions(&self) -> usize {
        on!(self, g => g.num_actions())
    }
    /// The global id of the member's move `a` (an id of its own space).
    fn global(&self, a: usize) -> u16 {
        (self.offset() + a) as u16
    }
}

/// A gauntlet baseline of row `row`, played by the member and named by global id.
fn member_baseline<M: Gauntlet + Tensor>(g: &M, row: usize, rng: &mut Rng, p: &Params) -> usize {
    let mv = match gauntlet::baselines::<M>()[row].act {
        Act::Plain(f) => f(g, rng),
        Act::Tuned(f) => f(g, rng, p),
    };
    g.action_of(mv)
}

fn forward<const ROW: usize>(r: &Rotated, rng: &mut Rng, p: &Params) -> u16 {
    r.global(on!(r, g => member_baseline(g, ROW, rng, p)))
}

/// Every gauntlet baseline (the members share one table), forwarded to the live game.
fn baselines() -> &'static [Baseline<Rotated>] {
    type Forward = fn(&Rotated, &mut Rng, &Params) -> u16;
    const ROWS: [Forward; 4] = [forward::<0>, forward::<1>, forward::<2>, forward::<3>];
    static TABLE: OnceLock<Vec<Baseline<Rotated>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let rows = gauntlet::baselines::<ConnectFour>();
        assert!(rows.len() <= ROWS.len(), "forward every gauntlet baseline");
        rows.iter()
            .zip(ROWS)
            .map(|(b, f)| Baseline {
                name: b.name,
                keys: b.keys,
                act: Act::Tuned(f),
            })
            .collect()
    })
}

impl Game for Rotated {
    /// The global action id.
    type Move = u16;

    fn id(&self) -> &'static str {
        on!(self, g => g.id())
    }
    fn num_seats(&self) -> usize {
        2
    }
    fn active_seat(&self) -> Option<Seat> {
        on!(self, g => g.active_seat())
    }
    fn plies(&self) -> u32 {
        on!(self, g => g.plies())
    }
    fn decision_stream(&self) -> u32 {
        on!(self, g => g.decision_stream())
    }
    fn outcome(&self) -> Option<&Outcome> {
        on!(self, g => g.outcome())
    }
    /// The member's legal moves in its own order (so `random` and `eps` draw
    /// exactly the member's move), as global ids.
    fn legal_moves_into(&self, out: &mut Vec<u16>) {
        out.clear();
        let off = self.offset();
        on!(self, g => out.extend(g.legal_moves().into_iter().map(|m| (off + g.action_of(m)) as u16)));
    }
    fn apply(&mut self, mv: u16) {
        let a = mv as usize - self.offset();
        on!(self, g => g.apply(g.move_of(a).expect("a legal id of the live game")))
    }
    fn settle_deadline(&mut self) {
        on!(self, g => g.settle_deadline())
    }
    fn adjudicate(&self, ending: Ending) -> Outcome {
        on!(self, g => g.adjudicate(ending))
    }
    /// The move text of any id, in the game that id belongs to.
    fn move_name(&self, mv: u16) -> String {
        let a = mv as usize;
        let k = member_of(a);
        let m = &fresh_members()[k];
        on!(m, g => g.move_name(g.move_of(a - offsets()[k]).expect("an id of this member")))
    }
    fn read_move(&self, text: &str) -> CoreResult<u16> {
        Ok(self.global(on!(self, g => g.action_of(g.read_move(text)?))))
    }
    fn view(&self) -> Value {
        on!(self, g => g.view())
    }
    fn results(&self) -> Option<Value> {
        on!(self, g => g.results())
    }
    fn baselines() -> &'static [Baseline<Self>] {
        baselines()
    }
}

impl Tensor for Rotated {
    fn from_any(state: AnyState) -> Option<Self> {
        match state {
            AnyState::ConnectFour(g) => Some(Rotated::ConnectFour(g)),
            AnyState::Breakthrough(g) => Some(Rotated::Breakthrough(g)),
            AnyState::Hex(g) => Some(Rotated::Hex(g)),
            AnyState::Quoridor(g) => Some(Rotated::Quoridor(g)),
            _ => None,
        }
    }
    fn num_actions(&self) -> usize {
        offsets()[MEMBERS]
    }
    fn action_of(&self, mv: u16) -> usize {
        mv as usize
    }
    fn move_of(&self, action: usize) -> Option<u16> {
        (action < self.num_actions()).then_some(action as u16)
    }
    fn obs_shape(&self) -> Vec<usize> {
        vec![PLANES + MEMBERS, SIDE, SIDE]
    }
    fn game_index(&self) -> usize {
        self.member()
    }
    fn action_game(&self, action: usize) -> usize {
        member_of(action)
    }
    /// The member's planes embedded at `[plane, rank, file]`, then the game planes.
    fn write_obs(&self, seat: Seat, out: &mut [f32]) {
        out.fill(0.0);
        let mut own = [0f32; PLANES * SIDE * SIDE];
        let shape = on!(self, g => g.obs_shape());
        let (planes, ranks, files) = (shape[0], shape[1], shape[2]);
        on!(self, g => g.write_obs(seat, &mut own[..planes * ranks * files]));
        for p in 0..planes {
            for r in 0..ranks {
                let from = (p * ranks + r) * files;
                let to = (p * SIDE + r) * SIDE;
                out[to..to + files].copy_from_slice(&own[from..from + files]);
            }
        }
        let game = (PLANES + self.member()) * SIDE * SIDE;
        out[game..game + SIDE * SIDE].fill(1.0);
    }
    fn legal_ids(&self, _: &mut Vec<u16>, mut f: impl FnMut(usize)) {
        let off = self.offset();
        on!(self, g => g.legal_ids(&mut Vec::new(), |a| f(off + a)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::State;

    #[test]
    fn members_follow_the_catalogue_rotation_and_ids_concatenate() {
        let ids: Vec<&str> = fresh_members().iter().map(|m| m.id()).collect();
        assert_eq!(ids, crate::catalog::rotation());
        assert_eq!(offsets(), &[0, 7, 167, 216, 425]);
        for a in [0, 6, 7, 166, 167, 215, 216, 424] {
            let k = member_of(a);
            assert!(offsets()[k] <= a && a < offsets()[k + 1]);
        }
    }

    #[test]
    fn a_rotated_episode_moves_like_its_member_through_the_registry() {
        for seed in 1..=8 {
            let mut state = State::new("rotate", &Value::Null, seed).unwrap();
            let mut r = Rotated::from_any(state.inner.clone()).unwrap();
            assert_eq!((r.id(), r.member()), (state.game_id(), (seed % 4) as usize));
            let mut rng = Rng::new(seed);
            while !r.is_terminal() {
                let mut names = r.legal_names();
                names.sort();
                let mut expected = state.legal_moves();
                expected.sort();
                assert_eq!(names, expected);
                let mv = rng.pick(&r.legal_moves());
                assert!((offsets()[r.member()]..offsets()[r.member() + 1]).contains(&(mv as usize)));
                assert_eq!(r.read_move(&r.move_name(mv)).unwrap(), mv);
                state.apply(&r.move_name(mv)).unwrap();
                r.apply(mv);
            }
            assert_eq!(r.results(), state.results());
        }
    }

    #[test]
    fn baselines_play_the_members_move() {
        for seed in 1..=4 {
            let state = State::new("rotate", &Value::Null, seed).unwrap();
            let r = Rotated::from_any(state.inner.clone()).unwrap();
            for name in ["tactician", "random", "mcts?sims=20"] {
                let p = crate::policy::Player::<Rotated>::new(name).unwrap();
                let mv = p.choose(&r, &mut Rng::for_decision(seed, 0));
                assert_eq!(r.move_name(mv), state.baseline_move(name).unwrap());
            }
        }
    }
}
