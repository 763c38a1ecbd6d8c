//! hex, 7 x 7 rhombus, on the shared hex kernel ([`crate::kernels::hexgrid`]).
//!
//! Seat 0 (red) connects file a to file g; seat 1 (blue) rank 1 to rank 7.

use serde_json::{json, Value};

use super::Gauntlet;
use super::MoveRecord;
use crate::catalog::Entry;
use crate::error::{CoreError, CoreResult};
use crate::game::{cell_name, squeeze, Ending, Game, Outcome, Seat};
use crate::kernels::hexgrid::{geometry, Geometry, Mask};
use crate::kernels::select::select64;
use crate::policy::Baseline;
use crate::rng::Rng;

pub const SIZE: usize = 7;
pub const MAX_PLIES: u32 = 49;

/// Its catalogue entry.
pub const ENTRY: Entry = super::entry(
    "hex",
    "hex",
    &[Ending::Connection, Ending::PlyCap, Ending::WallClock],
    MAX_PLIES,
    super::Look {
        pieces: "stones",
        notation: "cell",
        standing_scale: 20,
    },
);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hex {
    /// Each seat's stones in a `u64` (the 7 x 7 board fits one): a `u128` here let the
    /// compiler set a stone by a 32-bit store, which the next ply's 64-bit load of
    /// the same word could not forward from.
    stones: [u64; 2],
    mover: Seat,
    plies: u32,
    history: MoveRecord<u8, { MAX_PLIES as usize }>,
    outcome: Option<Outcome>,
    /// The stones' groups (both colours; groups never mix): `label` names a stone's
    /// group by one of its cells, and `group[label]` holds every cell of that group.
    /// Only entries of occupied cells, and of labels in use, mean anything.
    label: [u8; CELLS],
    group: [u64; CELLS],
}

impl Default for Hex {
    fn default() -> Self {
        Self::new()
    }
}

fn geo() -> &'static Geometry {
    geometry(SIZE)
}

const CELLS: usize = SIZE * SIZE;
/// Every cell, as a constant (the kernel's geometry lives in a lazily built table).
const BOARD: u64 = (1 << CELLS) - 1;

/// `NEIGHBORS[c]`: the cells adjacent to cell `c` (the 7 x 7 board fits a u64).
static NEIGHBORS: [u64; CELLS] = neighbor_table();

const fn neighbor_table() -> [u64; CELLS] {
    let mut t = [0u64; CELLS];
    let mut c = 0;
    while c < CELLS {
        let (f, r) = ((c % SIZE) as i32, (c / SIZE) as i32);
        let steps = [(-1, 0), (1, 0), (0, -1), (0, 1), (1, -1), (-1, 1)];
        let mut i = 0;
        while i < steps.len() {
            let (nf, nr) = (f + steps[i].0, r + steps[i].1);
            if nf >= 0 && nf < SIZE as i32 && nr >= 0 && nr < SIZE as i32 {
                t[c] |= 1 << (nr as usize * SIZE + nf as usize);
            }
            i += 1;
        }
        c += 1;
    }
    t
}

/// `EDGES[seat]`: the cells of `seat`'s source edge and of its target edge.
static EDGES: [[u64; 2]; 2] = edge_table();

const fn edge_table() -> [[u64; 2]; 2] {
    let mut t = [[0u64; 2]; 2];
    let mut i = 0;
    while i < SIZE {
        t[0][0] |= 1 << (i * SIZE); // file a
        t[0][1] |= 1 << (i * SIZE + SIZE - 1); // the last file
        t[1][0] |= 1 << i; // rank 1
        t[1][1] |= 1 << ((SIZE - 1) * SIZE + i); // the last rank
        i += 1;
    }
    t
}

fn name(cell: u8) -> String {
    let (f, r) = geo().coords(cell as usize);
    cell_name(f, r)
}

impl Hex {
    pub fn new() -> Self {
        Hex {
            stones: [0; 2],
            mover: 0,
            plies: 0,
            history: MoveRecord::default(),
            outcome: None,
            label: [0; CELLS],
            group: [0; CELLS],
        }
    }

    /// Each seat's stones, bit `rank * 7 + file` (the batched environment's planes).
    pub fn stones(&self) -> [Mask; 2] {
        self.stones.map(Mask::from)
    }

    /// The seat whose stone is on cell index `cell`, if any.
    pub fn stone_at(&self, cell: usize) -> Option<Seat> {
        (0..2).find(|&s| self.stones[s] >> cell & 1 == 1)
    }

    /// `distToWin` for `seat` (99 when it can no longer connect).
    pub fn dist_to_win(&self, seat: Seat) -> u8 {
        let [own, opp] = [seat, 1 - seat].map(|s| Mask::from(self.stones[s]));
        geo().dist_to_win(own, opp, seat)
    }

    /// The winner's connecting chain as cell names, source edge first.
    pub fn winning_path(&self) -> Option<Vec<String>> {
        let seat = self.outcome.as_ref()?.winner?;
        let path = geo().winning_path(Mask::from(self.stones[seat]), seat)?;
        Some(path.into_iter().map(|c| name(c as u8)).collect())
    }

    /// Join the stone just placed on `cell` by `seat` to its neighbouring groups;
    /// true when the joined group touches both of `seat`'s edges. The board was not
    /// connected before, so only the new stone's group can join them. `own`: `seat`'s
    /// stones, with or without the new one (its neighbours are the same).
    ///
    /// The new stone takes the label of one neighbouring group; only a second or
    /// third group it joins is relabelled, so the common case (no neighbour, or one
    /// group) walks no bits, and a stone's group is one read away.
    #[inline]
    fn join_group(&mut self, cell: u8, seat: Seat, own: u64) -> bool {
        let c = cell as usize;
        let mut friends = NEIGHBORS[c] & own;
        let label = if friends == 0 {
            cell
        } else {
            self.label[friends.trailing_zeros() as usize]
        };
        // An empty cell was never a label: with no friend, `group[cell]` is still 0.
        let mut joined = self.group[label as usize] | 1 << c;
        friends &= !joined;
        while friends != 0 {
            let mut other = self.group[self.label[friends.trailing_zeros() as usize] as usize];
            friends &= !other;
            joined |= other;
            while other != 0 {
                self.label[other.trailing_zeros() as usize] = label;
                other &= other - 1;
            }
        }
        self.label[c] = label;
        self.group[label as usize] = joined;
        let [source, target] = EDGES[seat];
        (joined & source != 0) & (joined & target != 0)
    }

    /// Settle: `mover` won if its stone `connected` its edges, else the cap ends the
    /// game. Out of line and cold, so the every-ply path of [`Game::apply`] keeps
    /// fewer registers to save (about 12% of a random game).
    #[cold]
    #[inline(never)]
    fn settle(&mut self, mover: Seat, connected: bool) {
        self.outcome = Some(if connected {
            Outcome::win(mover, Ending::Connection)
        } else {
            super::adjudicate(self, Ending::PlyCap)
        });
    }

    fn stones_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        for cell in 0..SIZE * SIZE {
            if let Some(s) = self.stone_at(cell) {
                m.insert(name(cell as u8), json!(s));
            }
        }
        Value::Object(m)
    }
}

impl Gauntlet for Hex {
    fn standing(&self, seat: Seat) -> i32 {
        1000 - 10 * self.dist_to_win(seat) as i32
    }

    /// The `random` baseline without building the move list: the k-th empty cell in
    /// the order of [`Game::legal_moves_into`], k uniform (the same draw as
    /// [`crate::game::random_policy`]).
    fn random_move(&self, rng: &mut Rng) -> u8 {
        // Every ply placed one stone, and the 7 x 7 board fits the low word.
        let empty = BOARD & !(self.stones[0] | self.stones[1]);
        debug_assert_eq!(empty.count_ones(), CELLS as u32 - self.plies);
        let k = rng.below(CELLS - self.plies as usize);
        select64(empty, k as u32) as u8
    }
}

impl Game for Hex {
    type Move = u8;
    // The start does not depend on the seed: the simulator may clone one fresh state.
    const SEED_FREE_START: bool = true;

    super::turn_accessors!("hex");

    /// Empty cells, a1 b1 ... g1 a2 ... g7.
    fn legal_moves_into(&self, out: &mut Vec<u8>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let mut empty = BOARD & !self.stones[0] & !self.stones[1];
        while empty != 0 {
            out.push(empty.trailing_zeros() as u8);
            empty &= empty - 1;
        }
    }

    fn apply(&mut self, cell: u8) {
        debug_assert!(self.outcome.is_none() && self.stone_at(cell as usize).is_none());
        let me = self.mover;
        // The group join reads the stones from before this one (a register), not
        // back from memory just after the store, which would stall the load.
        let before = self.stones[me];
        self.stones[me] = before | 1 << cell;
        self.plies += 1;
        self.history.push(cell);
        self.mover = 1 - me;
        // The win check precedes the cap: the 49th stone fills the board, and a
        // full hex board always holds exactly one connection.
        let connected = self.join_group(cell, me, before);
        if connected || self.plies >= MAX_PLIES {
            self.settle(me, connected);
        }
    }

    fn move_name(&self, cell: u8) -> String {
        name(cell)
    }

    fn read_move(&self, text: &str) -> CoreResult<u8> {
        if self.outcome.is_some() {
            return Err(self.over_error(text));
        }
        let s = squeeze(text);
        let cell = match s.as_bytes() {
            [f @ b'a'..=b'g', r @ b'1'..=b'7'] => (r - b'1') as usize * SIZE + (f - b'a') as usize,
            _ => {
                return Err(CoreError::unparseable(
                    text,
                    "hex takes a cell name, a file a..g then a rank 1..7, such as d4",
                    self.legal_names(),
                ))
            }
        };
        match self.stone_at(cell) {
            Some(s) => Err(CoreError::illegal(
                text,
                format!(
                    "{} already holds {} stone",
                    name(cell as u8),
                    if s == self.mover {
                        "your"
                    } else {
                        "your opponent's"
                    }
                ),
                self.legal_names(),
            )),
            None => Ok(cell as u8),
        }
    }

    fn view(&self) -> Value {
        json!({
            "game": self.id(),
            "files": SIZE,
            "ranks": SIZE,
            "activeSeat": self.active_seat(),
            "plies": self.plies,
            "maxPlies": MAX_PLIES,
            "stones": self.stones_json(),
            "history": self.history.as_slice().iter().map(|&m| self.move_name(m)).collect::<Vec<_>>(),
            "distToWin": [self.dist_to_win(0), self.dist_to_win(1)],
            "standing": [self.standing(0), self.standing(1)],
            "legalMoves": self.legal_names(),
        })
    }

    fn results(&self) -> Option<Value> {
        super::results(
            self,
            &[
                (
                    "distToWin",
                    json!([self.dist_to_win(0), self.dist_to_win(1)]),
                ),
                ("winningPath", json!(self.winning_path())),
            ],
        )
    }

    fn baselines() -> &'static [Baseline<Self>] {
        super::baselines()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::MoveFault;

    fn play(moves: &str) -> Hex {
        let mut g = Hex::new();
        for m in moves.split_whitespace() {
            g.try_apply(m).unwrap();
        }
        g
    }

    #[test]
    fn red_connects_files_a_to_g() {
        // Red plays rank 1 from a to g; blue answers on rank 7.
        let g = play("a1 a7 b1 b7 c1 c7 d1 d7 e1 e7 f1 f7 g1");
        assert_eq!(g.outcome(), Some(&Outcome::win(0, Ending::Connection)));
        assert_eq!(
            g.winning_path().unwrap(),
            ["a1", "b1", "c1", "d1", "e1", "f1", "g1"]
        );
        assert_eq!(g.results().unwrap()["winningPath"][6], "g1");
    }

    #[test]
    fn blue_connects_ranks_1_to_7_along_the_short_diagonal() {
        // g1 f2 e3 d4 c5 b6 a7: each step is (rank+1, file-1), an adjacency.
        let g = play("a1 g1 a2 f2 a3 e3 a4 d4 a5 c5 b1 b6 b2 a7");
        assert_eq!(g.outcome(), Some(&Outcome::win(1, Ending::Connection)));
    }

    #[test]
    fn the_long_diagonal_does_not_connect() {
        // a1 b2 c3 ... : (r+1, c+1) is not adjacent, so blue's chain is broken.
        let g = play("g2 a1 g3 b2 g4 c3 f2 d4 f3 e5 f4 f6 f5 g7");
        assert!(g.outcome().is_none());
    }

    #[test]
    fn occupied_and_malformed_cells_are_refused() {
        let g = play("d4");
        match g.read_move("D4") {
            Err(CoreError::Move { fault, reason, .. }) => {
                assert_eq!(fault, MoveFault::Illegal);
                assert!(reason.contains("your opponent's stone"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        for bad in ["h1", "a8", "a0", "", "d44", "4d"] {
            assert!(
                matches!(
                    g.read_move(bad),
                    Err(CoreError::Move {
                        fault: MoveFault::Unparseable,
                        ..
                    })
                ),
                "{bad}"
            );
        }
        assert_eq!(g.legal_moves().len(), 48);
    }

    #[test]
    fn standing_follows_dist_to_win() {
        let g = Hex::new();
        assert_eq!(g.standing(0), 1000 - 70);
        let g = play("d4");
        assert_eq!(g.dist_to_win(0), 6);
        assert_eq!(g.standing(0), 940);
        // Blue's shortest line avoids d4 at no extra cost.
        assert_eq!(g.dist_to_win(1), 7);
    }

    #[test]
    fn fast_random_draws_what_the_generic_random_policy_draws() {
        let mut g = Hex::new();
        let mut ply = 0;
        while g.active_seat().is_some() {
            let fast = Hex::random_move(&g, &mut Rng::for_decision(3, ply));
            let generic = crate::game::random_policy(&g, &mut Rng::for_decision(3, ply));
            assert_eq!(fast, generic);
            g.apply(fast);
            ply += 1;
        }
    }

    /// The connection check the group labels replace: flood the placed stone's group.
    fn connects_by_flood(g: &Hex, cell: u8, seat: Seat) -> bool {
        let group = geo().flood(1 << cell, g.stones()[seat]);
        group & geo().source(seat) != 0 && group & geo().target(seat) != 0
    }

    #[test]
    fn groups_agree_with_the_flood_at_every_ply() {
        let mut rng = Rng::new(21);
        let mut wins = [0; 2];
        for _ in 0..5000 {
            let mut g = Hex::new();
            while g.active_seat().is_some() {
                let (me, cell) = (g.mover, rng.pick(&g.legal_moves()));
                g.apply(cell);
                let flood = connects_by_flood(&g, cell, me);
                let won = g.outcome().is_some_and(|o| o.winner == Some(me));
                assert_eq!(won, flood, "{:?}", g.history);
                assert_eq!(won, geo().connects(g.stones()[me], me));
                if won {
                    wins[me] += 1;
                }
            }
        }
        assert!(wins[0] > 1000 && wins[1] > 1000, "{wins:?}");
    }

    #[test]
    fn neighbor_table_matches_the_kernel() {
        for (c, &neighbors) in NEIGHBORS.iter().enumerate() {
            assert_eq!(neighbors as u128, geo().neighbors(c), "cell {c}");
        }
        for (seat, &[source, target]) in EDGES.iter().enumerate() {
            assert_eq!(source as u128, geo().source(seat), "seat {seat}");
            assert_eq!(target as u128, geo().target(seat), "seat {seat}");
        }
    }

    #[test]
    fn random_games_always_connect_by_the_full_board() {
        let mut rng = crate::rng::Rng::new(9);
        for _ in 0..300 {
            let mut g = Hex::new();
            while g.active_seat().is_some() {
                let mv = rng.pick(&g.legal_moves());
                g.apply(mv);
            }
            let o = g.outcome().unwrap();
            assert_eq!(o.ending, Ending::Connection);
            assert!(g.plies() <= MAX_PLIES);
            assert!(g.winning_path().is_some());
        }
    }
}
