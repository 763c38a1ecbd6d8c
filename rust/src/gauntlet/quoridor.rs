//! quoridor, 9 x 9, 10 walls a side, on bitmasks ([`crate::kernels::paths`]).
//!
//! Cell (file f, rank r) is index `r * 9 + f`; a1 is 0. Seat 0 (red) starts on e1
//! and must reach rank 9; seat 1 (blue) starts on e9 and must reach rank 1.
//! A wall anchor (f, r), f and r in 0..8, is the lattice point at the top-right
//! corner of cell (f, r), anchor index `r * 8 + f`: `xNh` blocks the up-steps
//! from (x, N) and (x+1, N); `xNv` blocks the right-steps from (x, N) and (x, N+1).
//!
//! A move is a `u8`: 0..81 a pawn destination, 81 + anchor an `h` wall,
//! 145 + anchor a `v` wall.

use serde_json::{json, Value};

use super::{Gauntlet, MoveLog, MoveRecord};
use crate::catalog::{Entry, TWO_SEAT_NAMES};
use crate::error::{CoreError, CoreResult};
use crate::game::{cell_name, squeeze, Ending, Game, Outcome, Seat};
use crate::kernels::paths::{Blocked, Grid, Mask};
use crate::kernels::select::{select128, select8};
use crate::policy::Baseline;
use crate::rng::Rng;

pub const SIZE: usize = 9;
pub const WALLS: u8 = 10;
pub const MAX_PLIES: u32 = 200;

/// Its catalogue entry.
pub const ENTRY: Entry = super::entry(
    "quoridor",
    "quoridor",
    &[Ending::GoalRow, Ending::PlyCap, Ending::WallClock],
    MAX_PLIES,
    super::Look {
        pieces: "pawns",
        notation: "cell-or-wall",
        standing_scale: 20,
    },
);
const CELLS: usize = SIZE * SIZE;
const ANCHORS: usize = (SIZE - 1) * (SIZE - 1);
const H_BASE: u8 = CELLS as u8;
const V_BASE: u8 = H_BASE + ANCHORS as u8;
/// `standing`'s distance when a pawn is walled off (unreachable by rule 3).
const NO_PATH: i32 = 99;

/// A wall's orientation: `h` blocks vertical steps, `v` horizontal ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Orientation {
    H,
    V,
}

/// What a move is, decoded from its `u8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Pawn(usize),
    Wall(usize, Orientation),
}

pub fn decode(mv: u8) -> Action {
    if mv < H_BASE {
        Action::Pawn(mv as usize)
    } else if mv < V_BASE {
        Action::Wall((mv - H_BASE) as usize, Orientation::H)
    } else {
        Action::Wall((mv - V_BASE) as usize, Orientation::V)
    }
}

pub fn encode(action: Action) -> u8 {
    match action {
        Action::Pawn(cell) => cell as u8,
        Action::Wall(a, Orientation::H) => H_BASE + a as u8,
        Action::Wall(a, Orientation::V) => V_BASE + a as u8,
    }
}

/// The board's grid as a compile-time constant (see [`Grid::new`]).
static G9: Grid = Grid::new(SIZE);

#[inline]
fn g9() -> &'static Grid {
    &G9
}

fn cell_text(cell: usize) -> String {
    cell_name(cell % SIZE, cell / SIZE)
}

fn wall_text(anchor: usize, o: Orientation) -> String {
    let suffix = if o == Orientation::H { "h" } else { "v" };
    format!(
        "{}{suffix}",
        cell_name(anchor % (SIZE - 1), anchor / (SIZE - 1))
    )
}

/// The two steps a wall blocks, as masks.
#[inline]
fn wall_steps(anchor: usize, o: Orientation) -> Blocked {
    let cell = (anchor / (SIZE - 1)) * SIZE + anchor % (SIZE - 1);
    match o {
        Orientation::H => Blocked {
            up: 0b11 << cell,
            right: 0,
        },
        Orientation::V => Blocked {
            up: 0,
            right: 1 << cell | 1 << (cell + SIZE),
        },
    }
}

/// Lattice points are the wall grid's corners, (x, y) in 0..=9 x 0..=9, bit `y * 10 + x`;
/// anchor (f, r) is point (f + 1, r + 1). Walls and the board's rim are the barrier.
const POINTS_WIDE: usize = SIZE + 1;

/// The three lattice points a wall covers: its two ends and its centre.
#[inline]
fn wall_points(anchor: usize, o: Orientation) -> u128 {
    let centre = (anchor / (SIZE - 1) + 1) * POINTS_WIDE + anchor % (SIZE - 1) + 1;
    match o {
        Orientation::H => 0b111 << (centre - 1),
        Orientation::V => (1 | 1 << POINTS_WIDE | 1 << (2 * POINTS_WIDE)) << (centre - POINTS_WIDE),
    }
}

/// A pawn's steps down, left, right and up: ascending destination order.
const STEP_DELTAS: [isize; 4] = [-(SIZE as isize), -1, 1, SIZE as isize];

/// Bits of a cell's exits (see [`Quoridor::plain_steps`]), in `STEP_DELTAS` order.
const DOWN: u8 = 1;
const LEFT: u8 = 2;
const RIGHT: u8 = 4;
const UP: u8 = 8;

/// Every cell's exits on the empty board: each step that stays on it.
const fn rim_exits() -> [u8; CELLS] {
    let mut t = [0u8; CELLS];
    let mut c = 0;
    while c < CELLS {
        let (f, r) = (c % SIZE, c / SIZE);
        t[c] = (if r > 0 { DOWN } else { 0 })
            | (if f > 0 { LEFT } else { 0 })
            | (if f + 1 < SIZE { RIGHT } else { 0 })
            | (if r + 1 < SIZE { UP } else { 0 });
        c += 1;
    }
    t
}

/// The label of the whole rim in [`Quoridor`]'s barrier pieces.
const RIM: usize = ANCHORS;

/// The barrier nodes at the two ends of a wall (its centre is the anchor itself).
#[inline]
fn wall_ends(anchor: usize, o: Orientation) -> [usize; 2] {
    let (f, r) = (anchor % (SIZE - 1), anchor / (SIZE - 1));
    let last = SIZE - 2;
    match o {
        Orientation::H => [
            if f > 0 { anchor - 1 } else { RIM },
            if f < last { anchor + 1 } else { RIM },
        ],
        Orientation::V => [
            if r > 0 { anchor - (SIZE - 1) } else { RIM },
            if r < last { anchor + (SIZE - 1) } else { RIM },
        ],
    }
}

/// Cell mask -> anchor mask: bit `r * 8 + f` is bit `r * 9 + f + shift` of `cells`.
#[inline]
fn on_anchors(cells: Mask, shift: usize) -> u64 {
    let cells = cells >> shift;
    let mut out = 0u64;
    for r in 0..SIZE - 1 {
        out |= ((cells >> (r * SIZE)) as u64 & 0xFF) << (r * (SIZE - 1));
    }
    out
}

/// Lattice mask -> anchor mask: bit `r * 8 + f` is the point at anchor (f, r)'s
/// centre offset by `shift` bits.
#[inline]
fn points_at(points: u128, shift: i32) -> u64 {
    let mut out = 0u64;
    for r in 0..SIZE - 1 {
        let centre = ((r + 1) * POINTS_WIDE + 1) as i32 + shift;
        out |= ((points >> centre) as u64 & 0xFF) << (r * (SIZE - 1));
    }
    out
}

/// The lattice points on the board's rim.
fn rim_points() -> u128 {
    let mut rim = 0;
    for y in 0..POINTS_WIDE {
        for x in 0..POINTS_WIDE {
            if x == 0 || y == 0 || x == SIZE || y == SIZE {
                rim |= 1 << (y * POINTS_WIDE + x);
            }
        }
    }
    rim
}

/// The goal rank of a seat: rank 9 for red, rank 1 for blue.
fn goal(seat: Seat) -> Mask {
    g9().rank(if seat == 0 { SIZE - 1 } else { 0 })
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quoridor {
    pawns: [usize; 2],
    walls_left: [u8; 2],
    /// Anchors holding an `h` wall / a `v` wall (bit = anchor index).
    h_walls: u64,
    v_walls: u64,
    blocked: Blocked,
    /// Lattice points on the barrier (the rim, and every point a wall covers).
    barrier: u128,
    /// The barrier's pieces: a label per inner lattice point (by anchor index) and
    /// one, [`RIM`], for the whole rim; points joined by walls share a label. Walls
    /// are few and wall checks many, so labels are kept flat (relabelled on a join)
    /// and a lookup is one read. See [`Quoridor::closes_loop`].
    pieces: [u8; ANCHORS + 1],
    /// Every wall placed, in order, with its owner's seat (kept small: the state is
    /// cloned per episode and per candidate move).
    placed: MoveRecord<(u8, u8), { 2 * WALLS as usize }>,
    mover: Seat,
    plies: u32,
    history: MoveLog<u8>,
    outcome: Option<Outcome>,
    /// Per seat, the steps of one open walk from its pawn to its goal rank, kept
    /// while any wall is left to place (see [`Quoridor::legal_walls`]): a walk stays
    /// open until a wall blocks one of its steps or its pawn moves, and only then is
    /// searched again. A function of the history, like every other field.
    walks: [Blocked; 2],
    /// Per cell, its open steps (bits `DOWN`, `LEFT`, `RIGHT`, `UP`): the walls as
    /// the pawn sees them, kept as walls are placed, so a plain pawn move reads one
    /// byte instead of testing four wide masks.
    exits: [u8; CELLS],
}

impl Default for Quoridor {
    fn default() -> Self {
        Self::new()
    }
}

impl Quoridor {
    pub fn new() -> Self {
        let mut g = Quoridor {
            pawns: [4, (SIZE - 1) * SIZE + 4],
            walls_left: [WALLS; 2],
            h_walls: 0,
            v_walls: 0,
            blocked: Blocked::default(),
            barrier: rim_points(),
            pieces: std::array::from_fn(|p| p as u8),
            placed: MoveRecord::default(),
            mover: 0,
            plies: 0,
            history: MoveLog::with_capacity(MAX_PLIES as usize),
            outcome: None,
            walks: [Blocked::default(); 2],
            exits: rim_exits(),
        };
        for seat in 0..2 {
            g.refresh_walk(seat);
        }
        g
    }

    /// Search `seat`'s walk again (the pawn moved, or a wall blocked the old walk).
    fn refresh_walk(&mut self, seat: Seat) {
        self.walks[seat] = g9()
            .path_steps(self.pawns[seat], goal(seat), &self.blocked)
            .unwrap_or_default();
    }

    /// Keep the walks open after a move, while a wall is left to place. Out of line
    /// (as is [`Quoridor::place_wall`]): most plies of a game are pawn moves after
    /// the last wall, and their path through [`Game::apply`] stays short.
    #[inline(never)]
    fn update_walks(&mut self, action: Action, mover: Seat) {
        match action {
            Action::Pawn(_) => self.refresh_walk(mover),
            Action::Wall(anchor, o) => {
                let steps = wall_steps(anchor, o);
                for seat in 0..2 {
                    let walk = &self.walks[seat];
                    if walk.up & steps.up != 0 || walk.right & steps.right != 0 {
                        self.refresh_walk(seat);
                    }
                }
            }
        }
    }

    pub fn pawn(&self, seat: Seat) -> usize {
        self.pawns[seat]
    }

    /// Anchors holding an `h` wall and a `v` wall (bit = anchor index `rank * 8 + file`).
    pub fn walls(&self) -> [u64; 2] {
        [self.h_walls, self.v_walls]
    }

    pub fn walls_left(&self, seat: Seat) -> u8 {
        self.walls_left[seat]
    }

    /// The BFS pawn-step distance from `seat`'s pawn to its goal rank over the
    /// wall-blocked graph (pawns are not obstacles).
    pub fn dist_to_goal(&self, seat: Seat) -> Option<u32> {
        g9().distance(1 << self.pawns[seat], goal(seat), &self.blocked)
    }

    /// The cell one step from `cell` in direction `d` (0 up, 1 right, 2 down, 3 left).
    #[inline]
    fn neighbour(cell: usize, d: usize) -> Option<usize> {
        let (f, r) = (cell % SIZE, cell / SIZE);
        match d {
            0 if r + 1 < SIZE => Some(cell + SIZE),
            1 if f + 1 < SIZE => Some(cell + 1),
            2 if r > 0 => Some(cell - SIZE),
            3 if f > 0 => Some(cell - 1),
            _ => None,
        }
    }

    /// The cells one unblocked step from the cells of `m` in direction `d`
    /// (0 up, 1 right, 2 down, 3 left); off-board steps vanish.
    #[inline]
    fn shift(&self, m: Mask, d: usize) -> Mask {
        let (g, b) = (g9(), &self.blocked);
        match d {
            0 => ((m & !b.up) << SIZE) & g.board,
            1 => (m & !b.right & !g.last_file()) << 1,
            2 => (m >> SIZE) & !b.up,
            _ => (m >> 1) & !b.right & !g.last_file(),
        }
    }

    /// The mover's pawn moves when they are plain steps (the opponent's pawn stands
    /// on no open neighbour, so no jump): bit d of the exits is an open step by
    /// `STEP_DELTAS[d]`, which lists them in ascending destination order. `None`
    /// when a jump applies.
    #[inline]
    fn plain_steps(&self) -> Option<(u8, usize)> {
        let cell = self.pawns[self.mover];
        let exits = self.exits[cell];
        // The opponent's pawn on an open neighbour means a jump.
        const TO_DOWN: isize = STEP_DELTAS[0];
        const TO_LEFT: isize = STEP_DELTAS[1];
        const TO_RIGHT: isize = STEP_DELTAS[2];
        const TO_UP: isize = STEP_DELTAS[3];
        let toward_opponent = match self.pawns[1 - self.mover] as isize - cell as isize {
            TO_DOWN => DOWN,
            TO_LEFT => LEFT,
            TO_RIGHT => RIGHT,
            TO_UP => UP,
            _ => 0,
        };
        (exits & toward_opponent == 0).then_some((exits, cell))
    }

    /// Rule 4: the mover's pawn destinations, as a mask.
    fn pawn_targets(&self) -> Mask {
        let me: Mask = 1 << self.pawns[self.mover];
        let opp: Mask = 1 << self.pawns[1 - self.mover];
        let mut targets: Mask = 0;
        for d in 0..4 {
            let next = self.shift(me, d);
            if next != opp {
                targets |= next; // an empty cell, or nothing (wall or rim)
                continue;
            }
            let jump = self.shift(opp, d);
            targets |= if jump != 0 {
                jump
            } else {
                // Only when the straight jump is unavailable: the two side-steps.
                self.shift(opp, (d + 1) % 4) | self.shift(opp, (d + 3) % 4)
            };
        }
        targets
    }

    /// Why placing this wall is illegal for the mover (rule 3), or `None`.
    fn wall_refusal(&self, anchor: usize, o: Orientation) -> Option<String> {
        let me = self.mover;
        let text = wall_text(anchor, o);
        if self.walls_left[me] == 0 {
            return Some("you have no walls left".into());
        }
        let on_anchor = |bits: u64| bits >> anchor & 1 == 1;
        if on_anchor(self.h_walls) || on_anchor(self.v_walls) {
            let there = if on_anchor(self.h_walls) {
                Orientation::H
            } else {
                Orientation::V
            };
            let verb = if there == o { "duplicates" } else { "crosses" };
            return Some(format!(
                "{text} {verb} the wall at {}",
                wall_text(anchor, there)
            ));
        }
        let steps = wall_steps(anchor, o);
        if steps.up & self.blocked.up != 0 || steps.right & self.blocked.right != 0 {
            return Some(format!(
                "{text} overlaps the wall at {}",
                self.overlapping_wall(anchor, o)
            ));
        }
        let after = Blocked {
            up: self.blocked.up | steps.up,
            right: self.blocked.right | steps.right,
        };
        for seat in [me, 1 - me] {
            if !g9().reaches(1 << self.pawns[seat], goal(seat), &after) {
                return Some(format!(
                    "{text} would leave {}'s pawn on {} no path to rank {}",
                    TWO_SEAT_NAMES[seat],
                    cell_text(self.pawns[seat]),
                    if seat == 0 { SIZE } else { 1 }
                ));
            }
        }
        None
    }

    /// The same-orientation neighbour wall that shares a step with this one.
    fn overlapping_wall(&self, anchor: usize, o: Orientation) -> String {
        let (f, r) = (anchor % (SIZE - 1), anchor / (SIZE - 1));
        let (walls, candidates) = match o {
            Orientation::H => (self.h_walls, [(f.wrapping_sub(1), r), (f + 1, r)]),
            Orientation::V => (self.v_walls, [(f, r.wrapping_sub(1)), (f, r + 1)]),
        };
        candidates
            .iter()
            .filter(|&&(cf, cr)| cf < SIZE - 1 && cr < SIZE - 1)
            .map(|&(cf, cr)| cr * (SIZE - 1) + cf)
            .find(|&a| walls >> a & 1 == 1)
            .map_or_else(|| "a neighbouring anchor".into(), |a| wall_text(a, o))
    }

    /// The anchors of the mover's legal `h` walls and legal `v` walls, as bitsets.
    ///
    /// Rule 3's first three conditions are whole-board mask operations. For the path
    /// invariant, three shortcuts spare the pawn searches for nearly every anchor:
    /// a wall meeting the barrier (rim and walls) in at most one lattice point dangles
    /// and closes no region; a wall blocking no step of a shortest walk of either pawn
    /// leaves both walks open; and if the cells beside a wall still reach each other
    /// around it, every walk through its steps can detour. Only the rest get the
    /// pawn-to-goal searches.
    fn legal_walls(&self) -> [u64; 2] {
        if self.walls_left[self.mover] == 0 {
            return [0, 0];
        }
        let free = !(self.h_walls | self.v_walls);
        let (b, up, right) = (self.barrier, self.blocked.up, self.blocked.right);
        let at_least_two = |x: u64, y: u64, z: u64| (x & y) | (x & z) | (y & z);
        let w = POINTS_WIDE as i32;
        let open = [
            free & !(on_anchors(up, 0) | on_anchors(up, 1)),
            free & !(on_anchors(right, 0) | on_anchors(right, SIZE)),
        ];
        let closes = [
            at_least_two(points_at(b, -1), points_at(b, 0), points_at(b, 1)),
            at_least_two(points_at(b, -w), points_at(b, 0), points_at(b, w)),
        ];
        let mut unsure = [open[0] & closes[0], open[1] & closes[1]];
        let mut legal = [open[0] & !closes[0], open[1] & !closes[1]];
        if unsure == [0, 0] {
            return legal;
        }
        // A wall that blocks no step of either pawn's open walk leaves both walks open;
        // one that blocks only one seat's walk can cut off only that seat.
        let grid = g9();
        let touches = |walk: &Blocked| {
            [
                on_anchors(walk.up, 0) | on_anchors(walk.up, 1),
                on_anchors(walk.right, 0) | on_anchors(walk.right, SIZE),
            ]
        };
        let seat_touches = [touches(&self.walks[0]), touches(&self.walks[1])];
        for (slot, o) in [Orientation::H, Orientation::V].into_iter().enumerate() {
            let touched = [seat_touches[0][slot], seat_touches[1][slot]];
            legal[slot] |= unsure[slot] & !(touched[0] | touched[1]);
            unsure[slot] &= touched[0] | touched[1];
            while unsure[slot] != 0 {
                let anchor = unsure[slot].trailing_zeros() as usize;
                unsure[slot] &= unsure[slot] - 1;
                let cut = [touched[0] >> anchor & 1 == 1, touched[1] >> anchor & 1 == 1];
                if self.keeps_paths(grid, anchor, o, cut) {
                    legal[slot] |= 1 << anchor;
                }
            }
        }
        legal
    }

    /// Rule 3's path invariant for a wall whose other conditions hold; `at_risk[seat]`:
    /// the wall blocks a step of that seat's walk (an unblocked walk stays open).
    #[inline]
    fn keeps_paths(&self, grid: &Grid, anchor: usize, o: Orientation, at_risk: [bool; 2]) -> bool {
        if !self.closes_loop(anchor, o) {
            return true;
        }
        let steps = wall_steps(anchor, o);
        let after = Blocked {
            up: self.blocked.up | steps.up,
            right: self.blocked.right | steps.right,
        };
        (0..2).all(|seat| !at_risk[seat] || grid.reaches(1 << self.pawns[seat], goal(seat), &after))
    }

    /// Would this wall close a loop of the barrier? Each unit of a wall is the dual
    /// edge of the step it blocks (lattice points are the faces between cells, the rim
    /// the outer face), and removing steps disconnects cells exactly when their dual
    /// edges close a new cycle: when two of the wall's three points already lie on one
    /// piece of the barrier. A wall that closes no loop cuts no cell off from any other.
    #[inline]
    fn closes_loop(&self, anchor: usize, o: Orientation) -> bool {
        let [a, b] = wall_ends(anchor, o);
        let (pa, pc, pb) = (self.pieces[a], self.pieces[anchor], self.pieces[b]);
        pa == pc || pc == pb || pa == pb
    }

    #[inline(never)]
    fn place_wall(&mut self, anchor: usize, o: Orientation) {
        let steps = wall_steps(anchor, o);
        self.blocked.up |= steps.up;
        self.blocked.right |= steps.right;
        // The cells on either side of the wall's two steps lose those exits.
        let cell = (anchor / (SIZE - 1)) * SIZE + anchor % (SIZE - 1);
        let (across, along, leave, enter) = match o {
            Orientation::H => (SIZE, 1, UP, DOWN),
            Orientation::V => (1, SIZE, RIGHT, LEFT),
        };
        for from in [cell, cell + along] {
            self.exits[from] &= !leave;
            self.exits[from + across] &= !enter;
        }
        self.barrier |= wall_points(anchor, o);
        let centre = self.pieces[anchor];
        for end in wall_ends(anchor, o) {
            let joined = self.pieces[end];
            // Branch-free, so the compiler relabels a vector of labels at a time.
            for piece in self.pieces.iter_mut() {
                *piece = if *piece == joined { centre } else { *piece };
            }
        }
        match o {
            Orientation::H => self.h_walls |= 1 << anchor,
            Orientation::V => self.v_walls |= 1 << anchor,
        }
        self.walls_left[self.mover] -= 1;
        self.placed
            .push((encode(Action::Wall(anchor, o)), self.mover as u8));
    }

    /// Settle: `mover` won if its pawn `reached_goal`, else the cap ends the game.
    /// Out of line and cold, so the every-ply path of [`Game::apply`] keeps fewer
    /// registers to save.
    #[cold]
    #[inline(never)]
    fn settle(&mut self, mover: Seat, reached_goal: bool) {
        self.outcome = Some(if reached_goal {
            Outcome::win(mover, Ending::GoalRow)
        } else {
            super::adjudicate(self, Ending::PlyCap)
        });
    }

    fn walls_json(&self) -> Value {
        Value::Array(
            self.placed
                .as_slice()
                .iter()
                .map(|&(mv, seat)| json!({"wall": self.move_name(mv), "seat": seat}))
                .collect(),
        )
    }

    /// Every wall-blocked step as `from-to` cell pairs (lower cell first), for drawing.
    fn blocked_json(&self) -> Value {
        let mut steps = Vec::new();
        for cell in 0..CELLS {
            if self.blocked.up >> cell & 1 == 1 {
                steps.push(format!("{}-{}", cell_text(cell), cell_text(cell + SIZE)));
            }
            if self.blocked.right >> cell & 1 == 1 {
                steps.push(format!("{}-{}", cell_text(cell), cell_text(cell + 1)));
            }
        }
        json!(steps)
    }

    fn walls_used(&self) -> [u8; 2] {
        [WALLS - self.walls_left[0], WALLS - self.walls_left[1]]
    }
}

impl Gauntlet for Quoridor {
    /// Nineteen rollout moves in twenty step the pawn along a shortest path to
    /// its goal (the lowest such cell); the twentieth is uniform (against the
    /// tactician at 1000 simulations: one in ten won 70 of 100, one in twenty 90). Uniform rollouts
    /// wander to the ply cap and say nothing about who is ahead in the race.
    fn rollout_move(&self, rng: &mut Rng) -> u8 {
        if rng.below(20) == 0 {
            return self.random_move(rng);
        }
        let goal = goal(self.mover);
        let mut targets = self.pawn_targets();
        let mut best = (u32::MAX, 0u8);
        while targets != 0 {
            let cell = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            if let Some(d) = g9().distance(1 << cell, goal, &self.blocked) {
                best = best.min((d, cell as u8));
            }
        }
        if best.0 == u32::MAX {
            self.random_move(rng)
        } else {
            best.1
        }
    }

    fn standing(&self, seat: Seat) -> i32 {
        let dist = self.dist_to_goal(seat).map_or(NO_PATH, |d| d as i32);
        1000 - 10 * dist + 2 * self.walls_left[seat] as i32
    }

    /// The `random` baseline without building the move list: the k-th legal move in
    /// the order of [`Game::legal_moves_into`], k uniform (the same draw as
    /// [`crate::game::random_policy`]).
    fn random_move(&self, rng: &mut Rng) -> u8 {
        if self.walls_left[self.mover] == 0 {
            if let Some((exits, cell)) = self.plain_steps() {
                let k = rng.below(exits.count_ones() as usize);
                let d = select8(exits, k as u32) as usize;
                return (cell as isize + STEP_DELTAS[d]) as u8;
            }
            let pawns = self.pawn_targets();
            return select128(pawns, rng.below(pawns.count_ones() as usize)) as u8;
        }
        let pawns = self.pawn_targets();
        let [h, v] = self.legal_walls();
        let (np, nh) = (pawns.count_ones() as usize, h.count_ones() as usize);
        let k = rng.below(np + nh + v.count_ones() as usize);
        if k < np {
            select128(pawns, k) as u8
        } else if k < np + nh {
            H_BASE + select128(h as u128, k - np) as u8
        } else {
            V_BASE + select128(v as u128, k - np - nh) as u8
        }
    }
}

impl Game for Quoridor {
    type Move = u8;
    // The start does not depend on the seed: the simulator may clone one fresh state.
    const SEED_FREE_START: bool = true;

    super::turn_accessors!("quoridor");

    /// Pawn destinations ascending, then `h` walls by anchor, then `v` walls by anchor.
    fn legal_moves_into(&self, out: &mut Vec<u8>) {
        out.clear();
        if self.outcome.is_some() {
            return;
        }
        let [h, v] = self.legal_walls();
        for (base, mut set) in [
            (0, self.pawn_targets()),
            (H_BASE, h as u128),
            (V_BASE, v as u128),
        ] {
            while set != 0 {
                out.push(base + set.trailing_zeros() as u8);
                set &= set - 1;
            }
        }
    }

    fn apply(&mut self, mv: u8) {
        debug_assert!(self.outcome.is_none());
        let me = self.mover;
        let mut reached_goal = false;
        let action = decode(mv);
        match action {
            Action::Pawn(cell) => {
                self.pawns[me] = cell;
                // The goal rank, by index: a wide mask test costs a 128-bit shift.
                reached_goal = if me == 0 {
                    cell >= CELLS - SIZE
                } else {
                    cell < SIZE
                };
            }
            Action::Wall(anchor, o) => self.place_wall(anchor, o),
        }
        if self.walls_left != [0, 0] {
            self.update_walks(action, me);
        }
        self.plies += 1;
        self.history.push(mv);
        self.mover = 1 - me;
        if reached_goal || self.plies >= MAX_PLIES {
            self.settle(me, reached_goal);
        }
    }

    fn move_name(&self, mv: u8) -> String {
        match decode(mv) {
            Action::Pawn(cell) => cell_text(cell),
            Action::Wall(anchor, o) => wall_text(anchor, o),
        }
    }

    fn read_move(&self, text: &str) -> CoreResult<u8> {
        if self.outcome.is_some() {
            return Err(self.over_error(text));
        }
        let s = squeeze(text);
        let action = match s.as_bytes() {
            [f @ b'a'..=b'i', r @ b'1'..=b'9'] => {
                Action::Pawn((r - b'1') as usize * SIZE + (f - b'a') as usize)
            }
            [f @ b'a'..=b'h', r @ b'1'..=b'8', o @ (b'h' | b'v')] => Action::Wall(
                (r - b'1') as usize * (SIZE - 1) + (f - b'a') as usize,
                if *o == b'h' {
                    Orientation::H
                } else {
                    Orientation::V
                },
            ),
            _ => {
                return Err(CoreError::unparseable(
                    text,
                    "quoridor takes a pawn destination cell a1..i9 (such as e2) or a wall \
                     anchor a1..h8 followed by h or v (such as e3h)",
                    self.legal_names(),
                ))
            }
        };
        let refusal = match action {
            Action::Pawn(cell) => self.pawn_refusal(cell),
            Action::Wall(anchor, o) => self.wall_refusal(anchor, o),
        };
        match refusal {
            Some(reason) => Err(CoreError::illegal(text, reason, self.legal_names())),
            None => Ok(encode(action)),
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
            "pawns": [cell_text(self.pawns[0]), cell_text(self.pawns[1])],
            "walls": self.walls_json(),
            "wallsLeft": self.walls_left,
            "blockedSteps": self.blocked_json(),
            "distToGoal": [self.dist_to_goal(0), self.dist_to_goal(1)],
            "history": self.history.as_slice().iter().map(|&m| self.move_name(m)).collect::<Vec<_>>(),
            "standing": [self.standing(0), self.standing(1)],
            "legalMoves": self.legal_names(),
        })
    }

    fn results(&self) -> Option<Value> {
        super::results(
            self,
            &[
                ("wallsUsed", json!(self.walls_used())),
                (
                    "distToGoal",
                    json!([self.dist_to_goal(0), self.dist_to_goal(1)]),
                ),
                (
                    "pawns",
                    json!([cell_text(self.pawns[0]), cell_text(self.pawns[1])]),
                ),
            ],
        )
    }

    fn baselines() -> &'static [Baseline<Self>] {
        super::baselines()
    }
}

impl Quoridor {
    /// Why the mover's pawn cannot go to `cell` (rule 4), or `None`.
    fn pawn_refusal(&self, cell: usize) -> Option<String> {
        if self.pawn_targets() >> cell & 1 == 1 {
            return None;
        }
        let (me, opp) = (self.pawns[self.mover], self.pawns[1 - self.mover]);
        let here = cell_text(me);
        let there = cell_text(cell);
        let adjacent = (0..4).any(|d| Self::neighbour(me, d) == Some(cell));
        Some(if cell == me {
            format!("your pawn is already on {here}")
        } else if cell == opp {
            format!("{there} holds your opponent's pawn; jump over it instead")
        } else if adjacent {
            format!("a wall blocks the step from {here} to {there}")
        } else {
            let mut reach = Vec::new();
            let mut t = self.pawn_targets();
            while t != 0 {
                reach.push(cell_text(t.trailing_zeros() as usize));
                t &= t - 1;
            }
            format!(
                "your pawn on {here} cannot reach {there} this turn; it can move to {}",
                reach.join(", ")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::MoveFault;

    fn play(moves: &str) -> Quoridor {
        let mut g = Quoridor::new();
        for m in moves.split_whitespace() {
            g.try_apply(m).unwrap_or_else(|e| panic!("{m}: {e}"));
        }
        g
    }

    fn pawn_moves(g: &Quoridor) -> Vec<String> {
        let mut v: Vec<String> = g
            .legal_moves()
            .into_iter()
            .filter(|&m| m < H_BASE)
            .map(|m| g.move_name(m))
            .collect();
        v.sort();
        v
    }

    fn refusal(g: &Quoridor, text: &str) -> String {
        match g.read_move(text) {
            Err(CoreError::Move {
                fault: MoveFault::Illegal,
                reason,
                ..
            }) => reason,
            other => panic!("{text}: expected illegal, got {other:?}"),
        }
    }

    #[test]
    fn opening_moves() {
        let g = Quoridor::new();
        assert_eq!(pawn_moves(&g), ["d1", "e2", "f1"]);
        assert_eq!(g.legal_moves().len(), 3 + 128);
        assert_eq!(g.standing(0), 1000 - 80 + 20);
    }

    #[test]
    fn anchor_geometry() {
        // e1h blocks e1-e2 and f1-f2.
        let g = play("e1h");
        assert_eq!(g.dist_to_goal(0), Some(9));
        let g2 = play("e1h e8");
        assert_eq!(pawn_moves(&g2), ["d1", "f1"]);
        // d1v blocks d1-e1 and d2-e2: red on e1 can no longer step to d1.
        let g3 = play("d1v e8");
        assert_eq!(pawn_moves(&g3), ["e2", "f1"]);
    }

    #[test]
    fn straight_jump_and_wall_blocked_jump() {
        // Walk the pawns face to face on file e: red e4, blue e5, red to move.
        let g = play("e2 e8 e3 e7 e4 e6 a1h e5");
        assert_eq!(g.pawn(1), 4 * SIZE + 4);
        assert_eq!(pawn_moves(&g), ["d4", "e3", "e6", "f4"]);
        // A wall behind blue (e5h blocks e5-e6 and f5-f6) stops the straight jump:
        // the side-steps d5 and f5 open instead.
        let g = play("e2 e8 e3 e7 e4 e6 a1h e5 c1h e5h");
        assert_eq!(pawn_moves(&g), ["d4", "d5", "e3", "f4", "f5"]);
        assert!(refusal(&g, "e6").contains("cannot reach e6"));
    }

    #[test]
    fn jump_against_the_board_edge_side_steps() {
        // Blue on e9's neighbour rank: red reaches e8 below blue's e9 -> jump off board.
        let mut g = Quoridor::new();
        for m in "e2 a1h e3 c1h e4 a2h e5 c2h e6 a3h e7 c3h e8".split_whitespace() {
            g.try_apply(m).unwrap();
        }
        // Blue to move: blue on e9 faces red on e8; jump to e7 is open.
        assert_eq!(pawn_moves(&g), ["d9", "e7", "f9"]);
        g.try_apply("a4h").unwrap();
        // Red on e8 faces e9 (blue), beyond is off the board: side-steps d9 and f9.
        let moves = pawn_moves(&g);
        assert_eq!(moves, ["d8", "d9", "e7", "f8", "f9"]);
    }

    #[test]
    fn side_step_blocked_by_a_wall_is_refused() {
        // As above, but a v wall at d8 (blocks d8-e8 and d9-e9) removes the d9 side-step.
        let mut g = Quoridor::new();
        for m in "e2 a1h e3 c1h e4 a2h e5 c2h e6 a3h e7 c3h e8 d8v".split_whitespace() {
            g.try_apply(m).unwrap();
        }
        assert_eq!(pawn_moves(&g), ["e7", "f8", "f9"]);
        assert!(refusal(&g, "d9").contains("cannot reach d9"));
        assert!(refusal(&g, "d8").contains("a wall blocks the step from e8 to d8"));
        assert!(refusal(&g, "e9").contains("opponent's pawn"));
    }

    #[test]
    fn wall_refusals() {
        let g = play("e3h");
        assert_eq!(refusal(&g, "e3v"), "e3v crosses the wall at e3h");
        assert_eq!(refusal(&g, "e3h"), "e3h duplicates the wall at e3h");
        assert_eq!(refusal(&g, "d3h"), "d3h overlaps the wall at e3h");
        assert_eq!(refusal(&g, "f3h"), "f3h overlaps the wall at e3h");
        // Neighbours two apart, and the crossing orientation next door, are fine.
        for ok in ["c3h", "g3h", "d3v", "f3v", "e2v", "e4v"] {
            assert!(g.read_move(ok).is_ok(), "{ok}");
        }
        let g = play("e3v");
        assert_eq!(refusal(&g, "e4v"), "e4v overlaps the wall at e3v");
        assert_eq!(refusal(&g, "e2v"), "e2v overlaps the wall at e3v");
    }

    #[test]
    fn path_invariant_protects_both_pawns() {
        // Red builds h walls on rank 1 across a1..h1 except the last gap; closing it would
        // seal red's own pawn in rank 1.
        let g = play("a1h e8 c1h e7 e1h e6 g1h e5");
        // Remaining gap: i1-i2. Close it with h8v? Use a v wall at h1: blocks h1-i1 and h2-i2.
        let reason = refusal(&g, "h1v");
        assert!(
            reason.contains("red's pawn on e1 no path to rank 9"),
            "{reason}"
        );
        assert!(!g.legal_names().contains(&"h1v".to_string()));
        // The same seal around blue's pawn is refused when red tries it.
        let g = play("e2 a8h e3 c8h e4 e8h e3h g8h");
        let reason = refusal(&g, "h8v");
        assert!(
            reason.contains("blue's pawn on e9 no path to rank 1"),
            "{reason}"
        );
    }

    #[test]
    fn no_walls_left() {
        let mut g = Quoridor::new();
        for _ in 0..2 * WALLS {
            let wall = g.legal_moves().into_iter().find(|&m| m >= H_BASE).unwrap();
            g.apply(wall);
        }
        assert_eq!([g.walls_left(0), g.walls_left(1)], [0, 0]);
        let pawn_only = g.legal_moves();
        assert!(pawn_only.iter().all(|&m| m < H_BASE), "{pawn_only:?}");
        // The walls-left condition is checked first, whatever the anchor.
        for wall in ["a1h", "h8v", "e5h"] {
            assert_eq!(refusal(&g, wall), "you have no walls left");
        }
    }

    #[test]
    fn goal_row_wins() {
        let mut g = Quoridor::new();
        for m in "e2 a1h e3 c1h e4 a2h e5 c2h e6 a3h e7 c3h e8 a4h".split_whitespace() {
            g.try_apply(m).unwrap();
        }
        g.try_apply("d9").unwrap();
        assert_eq!(g.outcome(), Some(&Outcome::win(0, Ending::GoalRow)));
        assert_eq!(g.results().unwrap()["wallsUsed"], json!([0, 7]));
    }

    /// Every wall the literal rule 3 allows, in move order.
    fn plain_walls(g: &Quoridor) -> Vec<u8> {
        [Orientation::H, Orientation::V]
            .into_iter()
            .flat_map(|o| (0..ANCHORS).map(move |a| (a, o)))
            .filter(|&(a, o)| g.wall_refusal(a, o).is_none())
            .map(|(a, o)| encode(Action::Wall(a, o)))
            .collect()
    }

    #[test]
    fn kept_walks_stay_open_and_walls_stay_exact_when_pawns_move_between_walls() {
        // Random play that moves a pawn half the time, so walks are kept across pawn
        // moves, jumps and walls alike while walls remain.
        let mut walk = Rng::new(8);
        let mut checked = 0;
        for _ in 0..300 {
            let mut g = Quoridor::new();
            while g.active_seat().is_some() && g.walls_left != [0, 0] {
                for seat in 0..2 {
                    let w = g.walks[seat];
                    assert_eq!(w.up & g.blocked.up, 0);
                    assert_eq!(w.right & g.blocked.right, 0);
                    // The walk's own steps lead from the pawn to the goal.
                    let only_walk = Blocked {
                        up: !w.up,
                        right: !w.right,
                    };
                    assert!(g9().reaches(1 << g.pawns[seat], goal(seat), &only_walk));
                }
                let moves = g.legal_moves();
                let walls: Vec<u8> = moves.iter().copied().filter(|&m| m >= H_BASE).collect();
                assert_eq!(walls, plain_walls(&g));
                checked += 1;
                let pawns: Vec<u8> = moves.iter().copied().filter(|&m| m < H_BASE).collect();
                let mv = if walls.is_empty() || walk.below(2) == 0 {
                    walk.pick(&pawns)
                } else {
                    walk.pick(&walls)
                };
                g.apply(mv);
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// The number of regions the board's cells fall into behind these walls.
    fn regions(walls: &Blocked) -> usize {
        let (mut left, mut count) = (g9().board, 0);
        while left != 0 {
            let mut region: Mask = 1 << left.trailing_zeros();
            loop {
                let next = region | g9().expand(region, walls);
                if next == region {
                    break;
                }
                region = next;
            }
            left &= !region;
            count += 1;
        }
        count
    }

    #[test]
    fn a_wall_closes_a_barrier_loop_exactly_when_it_splits_a_region() {
        let (mut walk, mut seen) = (Rng::new(4), [0; 2]);
        for _ in 0..100 {
            let mut g = Quoridor::new();
            while g.active_seat().is_some() && g.walls_left != [0, 0] {
                let before = regions(&g.blocked);
                let walls = (0..ANCHORS).flat_map(|a| [(a, Orientation::H), (a, Orientation::V)]);
                for (anchor, o) in walls {
                    let steps = wall_steps(anchor, o);
                    if g.h_walls >> anchor & 1 == 1
                        || g.v_walls >> anchor & 1 == 1
                        || steps.up & g.blocked.up != 0
                        || steps.right & g.blocked.right != 0
                    {
                        continue;
                    }
                    let after = Blocked {
                        up: g.blocked.up | steps.up,
                        right: g.blocked.right | steps.right,
                    };
                    let splits = regions(&after) > before;
                    assert_eq!(g.closes_loop(anchor, o), splits, "{anchor} {o:?}");
                    seen[splits as usize] += 1;
                }
                let moves = g.legal_moves();
                g.apply(walk.pick(&moves));
            }
        }
        assert!(seen[1] > 1000, "{seen:?}");
    }

    #[test]
    fn exits_are_the_open_steps_of_every_cell() {
        let mut walk = Rng::new(12);
        for _ in 0..200 {
            let mut g = Quoridor::new();
            // Past the last wall too (random play places its twenty in about 42 plies).
            while g.active_seat().is_some() && g.plies() < 60 {
                for cell in 0..CELLS {
                    let open = (0..4).fold(0u8, |m, d| {
                        let to = cell as isize + STEP_DELTAS[d];
                        let on_board = (0..CELLS as isize).contains(&to)
                            && (d == 0 || d == 3 || to as usize / SIZE == cell / SIZE);
                        let open = on_board && !g9().step_blocked(cell, to as usize, &g.blocked);
                        m | (open as u8) << d
                    });
                    assert_eq!(g.exits[cell], open, "cell {cell}");
                }
                let moves = g.legal_moves();
                g.apply(walk.pick(&moves));
            }
        }
    }

    #[test]
    fn plain_steps_are_the_pawn_targets_when_no_jump_applies() {
        let (mut walk, mut plain) = (Rng::new(6), 0);
        for _ in 0..300 {
            let mut g = Quoridor::new();
            while g.active_seat().is_some() {
                let targets = g.pawn_targets();
                if let Some((exits, cell)) = g.plain_steps() {
                    let steps = (0..4)
                        .filter(|&d| exits >> d & 1 == 1)
                        .fold(0 as Mask, |m, d| m | 1 << (cell as isize + STEP_DELTAS[d]));
                    assert_eq!(steps, targets);
                    plain += 1;
                } else {
                    // A jump applies: some target is not one step away.
                    let here = g.pawns[g.mover];
                    assert!(
                        (0..4).any(|d| Quoridor::neighbour(here, d) == Some(g.pawns[1 - g.mover]))
                    );
                }
                let moves = g.legal_moves();
                g.apply(walk.pick(&moves));
            }
        }
        assert!(plain > 20_000, "{plain}");
    }

    #[test]
    fn legal_walls_match_the_plain_rule() {
        // The path-steps shortcut must agree with the literal rule-3 check for every anchor.
        for game in 0..400 {
            let mut g = Quoridor::new();
            while g.active_seat().is_some() {
                let fast: Vec<u8> = g
                    .legal_moves()
                    .into_iter()
                    .filter(|&m| m >= H_BASE)
                    .collect();
                let plain: Vec<u8> = [Orientation::H, Orientation::V]
                    .into_iter()
                    .flat_map(|o| (0..ANCHORS).map(move |a| (a, o)))
                    .filter(|&(a, o)| g.wall_refusal(a, o).is_none())
                    .map(|(a, o)| encode(Action::Wall(a, o)))
                    .collect();
                assert_eq!(fast, plain);
                // Rule 6: the path invariant leaves the mover a pawn move.
                assert_ne!(g.pawn_targets(), 0);
                let ply = g.plies();
                let mv = Quoridor::random_move(&g, &mut Rng::for_decision(game, ply));
                let generic = crate::game::random_policy(&g, &mut Rng::for_decision(game, ply));
                assert_eq!(mv, generic);
                g.apply(mv);
            }
        }
    }
}
