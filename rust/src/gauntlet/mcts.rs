//! `mcts?sims=N`: UCT with uniform random rollouts for the gauntlet games.
//!
//! Before searching, the root is settled by tactics the rollouts would need
//! many simulations to see: a move that wins at once is played at once, and
//! moves after which the opponent has a winning reply are dropped (unless every
//! move allows one). Then `sims` simulations run over the remaining root moves:
//! select by UCB1 (c = 1 on rewards in 0..1, OpenSpiel's `uct_c = 2` on -1..1;
//! quoridor 0.5),
//! expand every child of a leaf at once in a shuffled order (unvisited children
//! are tried in that order), play a rollout to the end (uniform random moves,
//! [`Gauntlet::rollout_move`]; quoridor's rollouts mostly step along a shortest
//! path; the game's own ply cap and adjudication settle it), and back the
//! result up. Quoridor cuts its rollouts short (see [`Tuning`]): after a few
//! plies the state is valued by the standings, which measure what decides the
//! game (the gap in shortest-path lengths), instead of by a long noisy walk. The
//! most visited root move is played; ties go to the earlier child in the
//! shuffled order, so the choice is a function of the state and the decision's
//! stream alone.
//!
//! Every decision searches afresh from its state. A tree kept across plies
//! would make a move depend on the seat's earlier searches, which the Python
//! runner (it asks for one move of one state) and a replay recheck cannot
//! re-derive; a fresh search gives the same move in the batch simulator, in the
//! runner and in a recheck.

use super::Gauntlet;
use crate::game::Seat;
use crate::policy::Params;
use crate::rng::Rng;

/// How a game's search is tuned (measured on the ladder, `bench/ladder.py`).
struct Tuning {
    /// UCB1 exploration constant on rewards in 0..1.
    uct_c: f32,
    /// Rollout plies before the state is valued by [`standing_value`]; 0: play
    /// every rollout to the end.
    rollout_plies: u32,
}

/// Every game but quoridor: UCB1 with c = 1, full rollouts.
const PLAIN: Tuning = Tuning {
    uct_c: 1.0,
    rollout_plies: 0,
};

/// Quoridor: its standings (shortest-path lengths, walls in hand) value a state
/// well, and a rollout of a hundred plies mostly adds noise; cut at 8 plies and
/// searched more greedily, `mcts?sims=1000` went from 86% to 96.5% against the
/// tactician (both seat orders, 200 games).
const QUORIDOR: Tuning = Tuning {
    uct_c: 0.5,
    rollout_plies: 8,
};

fn tuning(id: &str) -> &'static Tuning {
    match id {
        "quoridor" => &QUORIDOR,
        _ => &PLAIN,
    }
}

/// Standing points (quoridor: 10 per step of path length) that the side to
/// move is worth, and the logistic scale of the standing gap.
const TEMPO: f32 = 5.0;
const STANDING_SCALE: f32 = 10.0;

/// One tree node: the move that led here and the statistics of the seat that
/// played it.
struct Node<M> {
    mv: M,
    /// Seat that played `mv`.
    mover: u8,
    visits: u32,
    /// Sum of rewards (win 1, draw 0.5, loss 0) for `mover`.
    reward: f32,
    /// Children occupy `first..first + count` of the arena; count 0: not expanded.
    first: u32,
    count: u32,
}

/// The `mcts` baseline (see the module doc).
pub fn mcts<G: Gauntlet>(g: &G, rng: &mut Rng, params: &Params) -> G::Move {
    let me = g
        .active_seat()
        .expect("mcts asked to move in a settled game");
    let moves = g.legal_moves();
    let wins: Vec<G::Move> = moves
        .iter()
        .copied()
        .filter(|&mv| winner_after(g, mv) == Some(me))
        .collect();
    if !wins.is_empty() {
        return rng.pick(&wins);
    }
    let safe: Vec<G::Move> = moves
        .iter()
        .copied()
        .filter(|&mv| !opponent_wins_next(g, mv))
        .collect();
    let roots = if safe.is_empty() { moves } else { safe };
    if roots.len() == 1 {
        return roots[0];
    }
    search(g, roots, params.sims, tuning(g.id()), rng)
}

fn winner_after<G: Gauntlet>(g: &G, mv: G::Move) -> Option<Seat> {
    let mut next = g.clone();
    next.apply(mv);
    next.outcome().and_then(|o| o.winner)
}

/// After `mv`, can the opponent win with its very next move?
fn opponent_wins_next<G: Gauntlet>(g: &G, mv: G::Move) -> bool {
    let mut next = g.clone();
    next.apply(mv);
    let Some(opp) = next.active_seat() else {
        return false;
    };
    next.legal_moves()
        .into_iter()
        .any(|reply| winner_after(&next, reply) == Some(opp))
}

/// UCT from `g` over the root moves `roots`; the most visited one.
fn search<G: Gauntlet>(
    g: &G,
    mut roots: Vec<G::Move>,
    sims: u32,
    tuning: &Tuning,
    rng: &mut Rng,
) -> G::Move {
    let me = g.active_seat().expect("search from a live state") as u8;
    rng.shuffle(&mut roots);
    let mut tree: Vec<Node<G::Move>> = Vec::with_capacity(roots.len() + sims as usize * 8);
    tree.push(Node {
        mv: roots[0],
        mover: 1 - me,
        visits: 0,
        reward: 0.0,
        first: 1,
        count: roots.len() as u32,
    });
    tree.extend(roots.iter().map(|&mv| leaf(mv, me)));
    let mut path: Vec<usize> = Vec::with_capacity(64);
    let mut buffer = Vec::new();
    for _ in 0..sims {
        let mut state = g.clone();
        path.clear();
        let mut at = 0;
        path.push(at);
        // Select down to a node not yet expanded (or a settled one).
        while tree[at].count > 0 {
            at = select(&tree, at, tuning.uct_c);
            state.apply(tree[at].mv);
            path.push(at);
        }
        // Expand a visited live leaf and step into its first (shuffled) child.
        if tree[at].visits > 0 {
            if let Some(seat) = state.active_seat() {
                buffer.clear();
                state.legal_moves_into(&mut buffer);
                rng.shuffle(&mut buffer);
                tree[at].first = tree.len() as u32;
                tree[at].count = buffer.len() as u32;
                tree.extend(buffer.iter().map(|&mv| leaf(mv, seat as u8)));
                at = tree[at].first as usize;
                state.apply(tree[at].mv);
                path.push(at);
            }
        }
        let value0 = rollout(&mut state, tuning.rollout_plies, rng);
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
    let root = &tree[0];
    let children = &tree[root.first as usize..(root.first + root.count) as usize];
    let mut best = 0;
    for (i, c) in children.iter().enumerate() {
        if c.visits > children[best].visits {
            best = i;
        }
    }
    children[best].mv
}

/// Plays `state` on by rollout moves (at most `plies` of them, 0: to the end);
/// seat 0's reward: 1 win, 0.5 draw, 0 loss, or [`standing_value`] if unsettled.
fn rollout<G: Gauntlet>(state: &mut G, plies: u32, rng: &mut Rng) -> f32 {
    let mut played = 0;
    while state.active_seat().is_some() && (plies == 0 || played < plies) {
        let mv = state.rollout_move(rng);
        state.apply(mv);
        played += 1;
    }
    match state.outcome() {
        Some(o) => (o.score[0] + 1) as f32 * 0.5,
        None => standing_value(state),
    }
}

/// Seat 0's value of a live state: a logistic in the standing gap, the side to
/// move credited with [`TEMPO`].
fn standing_value<G: Gauntlet>(state: &G) -> f32 {
    let tempo = if state.active_seat() == Some(0) {
        TEMPO
    } else {
        -TEMPO
    };
    let gap = (state.standing(0) - state.standing(1)) as f32 + tempo;
    1.0 / (1.0 + (-gap / STANDING_SCALE).exp())
}

fn leaf<M>(mv: M, mover: u8) -> Node<M> {
    Node {
        mv,
        mover,
        visits: 0,
        reward: 0.0,
        first: 0,
        count: 0,
    }
}

/// The child of `at` with the highest UCB1; an unvisited child first, in order.
#[inline]
fn select<M>(tree: &[Node<M>], at: usize, uct_c: f32) -> usize {
    let node = &tree[at];
    let first = node.first as usize;
    let log_n = (node.visits.max(1) as f32).ln();
    let mut best = first;
    let mut best_value = f32::NEG_INFINITY;
    for (i, c) in tree[first..first + node.count as usize].iter().enumerate() {
        if c.visits == 0 {
            return first + i;
        }
        let n = c.visits as f32;
        let value = c.reward / n + uct_c * (log_n / n).sqrt();
        if value > best_value {
            best_value = value;
            best = first + i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::gauntlet::connect_four::ConnectFour;
    use crate::gauntlet::hex::Hex;
    use crate::policy::Player;
    use crate::simulate::both_orders_total;

    fn play(g: &mut impl Game, moves: &[&str]) {
        for m in moves {
            g.try_apply(m).unwrap();
        }
    }

    #[test]
    fn takes_an_immediate_win() {
        let mut g = ConnectFour::new();
        play(&mut g, &["a", "b", "a", "b", "a", "b"]);
        let p = Player::<ConnectFour>::new("mcts?sims=10").unwrap();
        for ply in 0..20 {
            assert_eq!(
                g.move_name(p.choose(&g, &mut Rng::for_decision(1, ply))),
                "a"
            );
        }
    }

    #[test]
    fn blocks_a_forced_reply() {
        let mut g = ConnectFour::new();
        // Red threatens a vertical four in file c; yellow must block there.
        play(&mut g, &["c", "a", "c", "g", "c"]);
        let p = Player::<ConnectFour>::new("mcts?sims=10").unwrap();
        for ply in 0..20 {
            assert_eq!(
                g.move_name(p.choose(&g, &mut Rng::for_decision(2, ply))),
                "c"
            );
        }
    }

    #[test]
    fn the_move_is_a_function_of_state_and_stream() {
        let mut g = Hex::new();
        play(&mut g, &["d4", "c5"]);
        let p = Player::<Hex>::new("mcts?sims=300").unwrap();
        let a = p.choose(&g, &mut Rng::for_decision(9, 2));
        let b = p.choose(&g.clone(), &mut Rng::for_decision(9, 2));
        assert_eq!(a, b);
        assert!(g.legal_moves().contains(&a));
    }

    #[test]
    fn more_simulations_beat_fewer_at_connect_four() {
        // Both seat orders on the same seeds: the stronger side's total score.
        let strong = both_orders_total("connect-four", "mcts?sims=400", "mcts?sims=20", 40, 5);
        assert!(strong > 40.0, "mcts 400 vs 20 over 80 games: {strong}");
    }

    #[test]
    fn quoridor_rollouts_are_cut_and_valued_by_the_standings() {
        use crate::gauntlet::quoridor::Quoridor;
        let mut g = Quoridor::new();
        let mut rng = Rng::new(3);
        let mut state = g.clone();
        let v = rollout(&mut state, tuning("quoridor").rollout_plies, &mut rng);
        assert_eq!(state.plies(), 8, "a cut rollout plays 8 plies");
        assert!(v > 0.0 && v < 1.0, "an unsettled state is valued: {v}");
        // Equal paths: only the tempo of the side to move counts.
        assert!(standing_value(&g) > 0.5);
        // Seat 0 steps forward twice while seat 1 steps aside: seat 0 is ahead.
        play(&mut g, &["e2", "d9", "e3", "e9"]);
        assert!(g.standing(0) > g.standing(1));
        assert!(standing_value(&g) > 0.8, "{}", standing_value(&g));
    }
}
