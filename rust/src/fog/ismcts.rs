//! `ismcts?sims=N`: single-observer information-set MCTS (Cowling, Powley and
//! Whitehouse 2012) for the fog variants, from the mover's own knowledge only.
//!
//! Each simulation samples a determinization of what the seat knows: its own
//! stones, the opponent stones it has proven, and the opponent's stone count as
//! its own attempt log implies it (non-abrupt variants: one opponent placement
//! per completed turn of the seat; abrupt variants: one opponent ply per turn,
//! each assumed a placement). The unproven opponent stones are laid one at a
//! time among the cells the seat has not claimed or proven, mostly where the
//! opponent would head to connect given its stones so far (see [`hide`]): an
//! opponent builds a connection, and uniformly scattered stones model that
//! badly (they cost the search most of its strength on the 5 x 5 boards). The
//! global ply counter, which the seat may not know, is never read: the
//! determinization's clock is the seat's own plies plus the opponent's implied
//! ones. The opponent's knowledge of the seat's stones is unknown and taken as
//! empty.
//!
//! The tree is over move sequences of both seats; a node's children are the
//! cells tried from it, and selection only considers children legal in the
//! current determinization, scored by UCB1 with availability counts (how often
//! a child was legal when its parent was visited). Leaves are expanded one
//! untried legal cell at a time (drawn uniformly), then valued without a
//! rollout by both seats' `distToWin` on the determinized board (see
//! [`leaf_value`]): on the abrupt 5 x 5 boards the distance gap predicts the
//! winner far better than a uniform random playout, and costs two 0-1 BFS.
//! Dark hex 4 x 4 (non-abrupt) is the exception: a game of about eight
//! placements a side, where the distance gap barely separates a centre cell
//! from a corner; its leaves are valued by random fills of the empty cells
//! (see [`fill_value`], [`Tuning`]). The move played is the root's most
//! visited cell.
//!
//! Recon hex: the tree searches the attempted cell; the sense anchor is the
//! root's second most visited cell (the next place the search wants to go, as
//! `probe` senses its path's next cell), or the chosen cell when only one cell
//! was searched. Tree moves do not sense.

use super::cells::{Cells, Ranked};
use super::{lines, Attempt, FogState, History, Mode};
use crate::game::Game;
use crate::kernels::hexgrid::{self, Mask, UNREACHABLE};
use crate::policy::Params;
use crate::rng::Rng;

/// How a variant's search is tuned (on the fog ladder, `bench/ladder.py`).
struct Tuning {
    /// UCB1 exploration constant. Smooth leaf values (distances, averaged
    /// fills) favour a greedier search than tic-tac-toe's.
    uct_c: f32,
    /// Random fills averaged per leaf; 0: the `distToWin` value [`leaf_value`].
    fills: u32,
}

fn tuning(g: &FogState) -> Tuning {
    match (g.v.mode, g.v.abrupt) {
        (Mode::PhantomTtt, _) => Tuning {
            uct_c: 1.0,
            fills: 0,
        },
        (Mode::DarkHex, true) => Tuning {
            uct_c: 0.3,
            fills: 0,
        },
        // Dark hex 4 x 4 against `sweep`, both seat orders: distance leaves 51%,
        // 8 fills 64-69%, 48 fills 77-80% (500 games a row).
        (Mode::DarkHex, false) => Tuning {
            uct_c: 0.4,
            fills: 48,
        },
    }
}

/// Per [`Mode`] (tic-tac-toe, hex): the percentage of hidden opponent stones a
/// determinization aims (see [`hide`]); the rest are uniform, so no placement
/// is ruled out. Tuned on the fog ladder (`bench/ladder.py`).
const AIMED_PCT: [usize; 2] = [75, 90];

struct Node {
    /// The cell that led here (the root's is unused).
    cell: u8,
    visits: u32,
    /// Times this node was legal when its parent was visited.
    avail: u32,
    /// Reward sum for the seat that played `cell`.
    reward: f32,
    /// Seat that played `cell`.
    mover: u8,
    children: Vec<u32>,
}

impl Node {
    fn new(cell: u8, mover: u8) -> Node {
        Node {
            cell,
            visits: 0,
            avail: 0,
            reward: 0.0,
            mover,
            children: Vec::new(),
        }
    }
}

/// The `ismcts` baseline (see the module doc).
pub fn ismcts(g: &FogState, rng: &mut Rng, params: &Params) -> Attempt {
    let me = g.mover as usize;
    let legal = g.legal_cells(me);
    let tuning = tuning(g);
    let mut tree = vec![Node::new(u8::MAX, 1 - me as u8)];
    let mut path: Vec<usize> = Vec::with_capacity(64);
    for _ in 0..params.sims {
        let mut state = determinize(g, rng);
        path.clear();
        path.push(0);
        let mut at = 0;
        while let Some(seat) = state.active_seat() {
            let options = state.legal_cells(seat);
            if options == 0 {
                break;
            }
            let tried = tree[at]
                .children
                .iter()
                .fold(0 as Cells, |m, &c| m | 1 << tree[c as usize].cell);
            let untried = options & !tried;
            if untried != 0 {
                // Expand one untried legal cell, in a shuffled order.
                let untried = Ranked::new(untried);
                let cell = untried.nth(rng.below(untried.count())) as u8;
                let child = tree.len();
                tree.push(Node::new(cell, seat as u8));
                tree[at].children.push(child as u32);
                state.apply(Attempt { anchor: None, cell });
                path.push(child);
                break;
            }
            at = select(&mut tree, at, options, tuning.uct_c);
            state.apply(Attempt {
                anchor: None,
                cell: tree[at].cell,
            });
            path.push(at);
        }
        let value0 = match state.outcome() {
            Some(o) => (o.score[0] + 1) as f32 * 0.5,
            None if tuning.fills > 0 => {
                let wins: f32 = (0..tuning.fills).map(|_| fill_value(&state, rng)).sum();
                wins / tuning.fills as f32
            }
            None => leaf_value(&state),
        };
        for &n in &path {
            let node = &mut tree[n];
            node.visits += 1;
            node.reward += if node.mover == 0 {
                value0
            } else {
                1.0 - value0
            };
        }
    }
    choose(g, &tree, legal)
}

/// Seat 0's value of an unsettled determinized state from both seats'
/// `distToWin` on its full board: the seat nearer to a win (the mover on a tie)
/// is favoured, by a logistic in the distance gap.
fn leaf_value(state: &FogState) -> f32 {
    let d0 = state.dist(state.stones(0), state.stones(1), 0) as f32;
    let d1 = state.dist(state.stones(1), state.stones(0), 1) as f32;
    if d0 == d1 && d0 >= UNREACHABLE as f32 {
        return 0.5;
    }
    let tempo = if state.mover == 0 { 0.5 } else { -0.5 };
    1.0 / (1.0 + (-(d1 - d0 + tempo)).exp())
}

/// Seat 0's result (1 win, 0 loss) of filling a hex board's empty cells in a
/// random order, alternately from the mover: a full hex board always has
/// exactly one connection.
fn fill_value(state: &FogState, rng: &mut Rng) -> f32 {
    let mut empty = state.board & !state.stones[0] & !state.stones[1];
    let mut order = [0u8; Cells::BITS as usize];
    let mut k = 0;
    while empty != 0 {
        order[k] = empty.trailing_zeros() as u8;
        empty &= empty - 1;
        k += 1;
    }
    rng.shuffle(&mut order[..k]);
    let mut stones = [state.stones[0] as Mask, state.stones[1] as Mask];
    let mut seat = state.mover as usize;
    for &c in &order[..k] {
        stones[seat] |= 1 << c;
        seat ^= 1;
    }
    if hexgrid::geometry(state.v.size).connects(stones[0], 0) {
        1.0
    } else {
        0.0
    }
}

/// The most visited root cell (ties: the earlier expanded), and its anchor.
fn choose(g: &FogState, tree: &[Node], legal: Cells) -> Attempt {
    let mut ranked: Vec<(u32, usize, u8)> = tree[0]
        .children
        .iter()
        .enumerate()
        .map(|(i, &c)| (tree[c as usize].visits, i, tree[c as usize].cell))
        .collect();
    ranked.sort_by_key(|&(visits, i, _)| (std::cmp::Reverse(visits), i));
    let cell = ranked
        .first()
        .map_or_else(|| Ranked::new(legal).nth(0) as u8, |r| r.2);
    let anchor = (g.v.sense > 0).then(|| ranked.get(1).map_or(cell, |r| r.2));
    Attempt { anchor, cell }
}

/// The child of `at` legal here (its cell in `options`) with the best UCB1 on
/// availability counts; every legal child's availability goes up by one.
fn select(tree: &mut [Node], at: usize, options: Cells, explore: f32) -> usize {
    let mut best = usize::MAX;
    let mut best_value = f32::NEG_INFINITY;
    for i in 0..tree[at].children.len() {
        let c = tree[at].children[i] as usize;
        let node = &mut tree[c];
        if options >> node.cell & 1 == 0 {
            continue;
        }
        node.avail += 1;
        let n = node.visits.max(1) as f32;
        let value = node.reward / n + explore * ((node.avail as f32).ln() / n).sqrt();
        if value > best_value {
            best_value = value;
            best = c;
        }
    }
    best
}

/// A full state consistent with what the mover knows (see the module doc).
fn determinize(g: &FogState, rng: &mut Rng) -> FogState {
    let me = g.mover as usize;
    let opp = 1 - me;
    let (own, proven) = (g.stones[me], g.proven[me]);
    let own_plies = g.attempts(me);
    // Turns the seat has completed; the opponent has had as many (seat 0) or one more.
    let own_turns = if g.v.abrupt {
        own_plies
    } else {
        own.count_ones()
    };
    let opp_turns = own_turns + me as u32;
    let unknown = g.board & !own & !proven;
    let want = opp_turns.saturating_sub(proven.count_ones());
    let hidden = hide(g, own, proven, unknown, want, rng);
    let mut stones = [0 as Cells; 2];
    stones[me] = own;
    stones[opp] = proven | hidden;
    let mut proven_by = [0 as Cells; 2];
    proven_by[me] = proven;
    FogState {
        v: g.v,
        board: g.board,
        stones,
        proven: proven_by,
        mover: g.mover,
        attempts: {
            let mut a = [0u8; 2];
            a[me] = own_plies as u8;
            a[opp] = opp_turns as u8;
            a
        },
        stream: (2 * own_plies + me as u32) as u8,
        shape: g.shape,
        max_plies: g.max_plies,
        guesses_made: [0; 2],
        guesses_right: [0; 2],
        pending_guess: 0,
        history: History::new(),
        outcome: None,
    }
}

/// `want` opponent stones among `unknown`, laid one by one as the opponent
/// might have played them: with probability [`AIMED_PCT`] on the cells it would
/// head for given its stones so far (hex: the first shortest completion of
/// [`hexgrid::Geometry::shortest_path`], avoiding the seat's stones; tic-tac-toe:
/// the line nearest completion with none of the seat's marks), else uniformly.
/// The opponent's stones are not scattered at random: it builds a connection.
fn hide(
    g: &FogState,
    own: Cells,
    proven: Cells,
    unknown: Cells,
    want: u32,
    rng: &mut Rng,
) -> Cells {
    let opp = 1 - g.mover as usize;
    let mut hidden: Cells = 0;
    for _ in 0..want {
        let free = unknown & !hidden;
        if free == 0 {
            break;
        }
        let aimed = if rng.below(100) < AIMED_PCT[g.v.mode as usize] {
            aim(g, own, proven | hidden, opp) & free
        } else {
            0
        };
        let pick = Ranked::new(if aimed != 0 { aimed } else { free });
        hidden |= 1 << pick.nth(rng.below(pick.count()));
    }
    hidden
}

/// The cells the opponent (`opp`, holding `theirs`) would head for next when
/// the seat's stones `own` are in its way (see [`hide`]).
fn aim(g: &FogState, own: Cells, theirs: Cells, opp: usize) -> Cells {
    match g.v.mode {
        Mode::DarkHex => hexgrid::geometry(g.v.size)
            .shortest_path(theirs as Mask, own as Mask, opp)
            .map_or(0, |p| p.iter().fold(0, |m, &c| m | 1 << c)),
        Mode::PhantomTtt => {
            let n = g.v.size as u32;
            lines(g.v.size)
                .iter()
                .map(|&l| l as Cells)
                .filter(|&l| l & own == 0 && l & !theirs != 0)
                .min_by_key(|&l| n - (l & theirs).count_ones())
                .unwrap_or(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Player;
    use crate::simulate::both_orders_total;

    #[test]
    fn the_move_is_legal_and_a_function_of_the_stream() {
        for id in ["phantom-ttt-3", "dark-hex-4", "dark-hex-5", "recon-hex-5"] {
            let mut g = FogState::of(id).unwrap();
            let p = Player::<FogState>::new("ismcts?sims=200").unwrap();
            let mut ply = 0;
            while !g.is_terminal() {
                let mv = p.choose(&g, &mut Rng::for_decision(3, ply));
                assert_eq!(mv, p.choose(&g, &mut Rng::for_decision(3, ply)));
                assert!(g.legal_moves().contains(&mv), "{id}: {mv:?}");
                g.apply(mv);
                ply += 1;
            }
        }
    }

    #[test]
    fn determinizations_keep_what_the_seat_knows() {
        let mut g = FogState::of("dark-hex-4").unwrap();
        for m in ["b2", "b2", "c3", "a1", "d4"] {
            g.try_apply(m).unwrap();
        }
        let me = g.mover as usize;
        let mut rng = Rng::new(5);
        for _ in 0..200 {
            let d = determinize(&g, &mut rng);
            assert_eq!(d.stones[me], g.stones[me]);
            assert_eq!(d.stones[1 - me] & g.proven[me], g.proven[me]);
            assert_eq!(d.stones[0] & d.stones[1], 0);
        }
    }

    #[test]
    fn hidden_stones_lie_mostly_where_the_opponent_heads() {
        // Red to move on an empty dark-hex-5 after one turn each: blue holds one
        // unproven stone, which [`aim`] puts on blue's first shortest completion.
        let mut g = FogState::of("dark-hex-5").unwrap();
        g.try_apply("e5").unwrap();
        g.try_apply("c3").unwrap();
        let path = aim(&g, g.stones[0], 0, 1);
        assert_eq!(
            path.count_ones(),
            5,
            "a rank-to-rank path on an empty 5 x 5"
        );
        let mut rng = Rng::new(9);
        let on_path = (0..1000)
            .filter(|_| determinize(&g, &mut rng).stones[1] & path != 0)
            .count();
        // 90% aimed, plus the uniform draws that land on the path (5 of 24 cells).
        let expected = 1000.0 * (0.9 + 0.1 * 5.0 / 24.0);
        assert!(
            (on_path as f64 - expected).abs() < 40.0,
            "{on_path} vs {expected}"
        );
    }

    #[test]
    fn a_fill_gives_the_last_empty_cell_to_the_mover() {
        // dark-hex-4 with d1 the only empty cell: blue holds d2-d4 (d1 joins its
        // file to rank 1), red the rest (d1 joins its rank 1 to file d).
        let mut g = FogState::of("dark-hex-4").unwrap();
        let d1 = 3;
        let blue: Cells = 1 << 7 | 1 << 11 | 1 << 15;
        g.stones = [g.board & !blue & !(1 << d1), blue];
        let mut rng = Rng::new(1);
        g.mover = 0;
        assert_eq!(fill_value(&g, &mut rng), 1.0);
        g.mover = 1;
        assert_eq!(fill_value(&g, &mut rng), 0.0);
    }

    #[test]
    fn it_outscores_sweep_at_dark_hex_4() {
        // Both seat orders on the same seeds: ismcts's score sum over 40 games;
        // above 10 is more than 62.5% of them won (24 with fills; the distance
        // leaves scored 2).
        let total = both_orders_total("dark-hex-4", "ismcts?sims=1000", "sweep", 20, 7);
        assert!(total > 10.0, "ismcts vs sweep over 40 games: {total}");
    }

    #[test]
    fn it_outscores_probe_and_sweep_at_dark_hex_5() {
        for low in ["probe", "sweep"] {
            // Both seat orders on the same seeds: ismcts's score sum over 40 games.
            let total = both_orders_total("dark-hex-5", "ismcts?sims=1000", low, 20, 7);
            // Above 20 is above the ladder's goal: more than 75% of the games won.
            assert!(total > 20.0, "ismcts vs {low} over 40 games: {total}");
        }
    }
}
