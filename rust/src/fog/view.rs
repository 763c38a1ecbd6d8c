//! The JSON faces of a fog state: the spectator view (the truth), the seat
//! view (the SDK's `view_for`: only what a fog seat may learn, docs/rules/fog.md,
//! allows) and the results. Cells are always algebraic names.

use serde_json::{json, Map, Value};

use super::knowledge::{own_log, seen_empty, Knowledge};
use super::{FogState, Mode, PlyRecord};
use crate::game::{Game, Seat};
use crate::kernels::hexgrid::Mask;

/// Fields every view shares: what the variant is, whose turn it is and the
/// constant ply cap. The global ply count is not among them: in the
/// non-abrupt variants it counts the opponent's collisions, so only spectator
/// views carry it (a seat view carries the seat's own `attempts`).
fn header(g: &FogState) -> Map<String, Value> {
    let v = g.variant();
    let mut m = Map::new();
    m.insert("game".into(), json!(v.id));
    m.insert("variant".into(), json!(v.label()));
    m.insert("original".into(), json!(v.original()));
    m.insert("mode".into(), json!(v.mode.name()));
    m.insert("size".into(), json!(v.size));
    m.insert("abrupt".into(), json!(v.abrupt));
    m.insert("sense".into(), json!(v.sense));
    m.insert("files".into(), json!(v.size));
    m.insert("ranks".into(), json!(v.size));
    m.insert("activeSeat".into(), json!(g.active_seat()));
    m.insert("maxPlies".into(), json!(g.max_plies()));
    m
}

/// The sense part of a ply record, as the sensing seat saw it.
fn sense_report(g: &FogState, r: &PlyRecord) -> Value {
    match r.anchor {
        Some(a) => json!({
            "anchor": g.cell_text(a as usize),
            "stones": g.names(r.sensed_stones as Mask),
            "empty": g.names(r.sensed_empty as Mask),
        }),
        None => Value::Null,
    }
}

/// The revelation records (the SDK's shape) of one ply by `r.seat` (its `attempt`-th): the
/// sensed block (recon hex; identity: the stones and empty cells in it) and the
/// opponent stone a collision found (identity: its owner), each revealed to the
/// mover only. `step` is the mover's own attempt count, never
/// the global ply.
fn ply_revelations(g: &FogState, attempt: usize, r: &PlyRecord) -> Vec<Value> {
    let (me, opp) = (r.seat as usize, 1 - r.seat as usize);
    let record = |what: &str, identity: Value, place: String| {
        json!({
            "kind": "revelation",
            "what": what,
            "identity": identity,
            "where": place,
            "from": {"zone": "board", "visibility": {"kind": "seats", "seats": [opp]}},
            "to": {"zone": "board", "visibility": {"kind": "seats", "seats": [opp, me]}},
            "step": attempt,
            "revealedTo": [me],
        })
    };
    let mut out = Vec::new();
    if let Some(a) = r.anchor {
        let block = json!({
            "stones": g.names(r.sensed_stones as Mask),
            "empty": g.names(r.sensed_empty as Mask),
        });
        out.push(record("sense", block, g.cell_text(a as usize)));
    }
    if r.occupied {
        out.push(record(
            "stone",
            json!({ "owner": opp }),
            g.cell_text(r.cell as usize),
        ));
    }
    out
}

/// Every ply, with its seat's own attempt number (1-based).
fn numbered_plies(g: &FogState) -> impl Iterator<Item = (usize, PlyRecord)> {
    let mut attempts = [0; 2];
    g.history().into_iter().map(move |r| {
        attempts[r.seat as usize] += 1;
        (attempts[r.seat as usize], r)
    })
}

/// The revelation records so far: all of them, or those revealed to `seat`
/// (the other seat's are absent altogether: their number would tell it how
/// often the opponent collided).
fn revelations(g: &FogState, seat: Option<Seat>) -> Vec<Value> {
    numbered_plies(g)
        .filter(|(_, r)| seat.is_none_or(|s| r.seat as usize == s))
        .flat_map(|(attempt, r)| ply_revelations(g, attempt, &r))
        .collect()
}

fn result_word(r: &PlyRecord) -> &'static str {
    if r.occupied {
        "occupied"
    } else {
        "placed"
    }
}

/// One entry of a seat's referee log: its own attempt number (1-based) and what
/// the referee told it.
fn log_entry(g: &FogState, attempt: usize, r: &PlyRecord) -> Value {
    let mut m = Map::new();
    m.insert("attempt".into(), json!(attempt));
    if g.variant().sense > 0 {
        m.insert("sense".into(), sense_report(g, r));
    }
    m.insert("cell".into(), json!(g.cell_text(r.cell as usize)));
    m.insert("result".into(), json!(result_word(r)));
    Value::Object(m)
}

fn seen_empty_json(g: &FogState, seat: Seat) -> Value {
    let mut m = Map::new();
    for (c, attempt) in seen_empty(g, seat) {
        m.insert(g.cell_text(c), json!(attempt));
    }
    Value::Object(m)
}

fn legal_attempts_json(g: &FogState, k: &Knowledge) -> Value {
    if g.is_terminal() {
        return json!([]);
    }
    json!(g.names(k.legal_attempts()))
}

fn legal_anchors_json(g: &FogState) -> Value {
    if g.is_terminal() {
        return json!([]);
    }
    json!(g.names(g.legal_anchors()))
}

/// The outcome as a seat learns it when the game ends: who won and how.
fn public_outcome(g: &FogState) -> Value {
    match g.outcome() {
        None => Value::Null,
        Some(o) => json!({
            "reason": o.ending.reason(),
            "ending": o.ending.name(),
            "score": o.score,
            "winner": o.winner,
        }),
    }
}

/// The SDK's `view_for`: own stones, proven opponent stones, the seat's own
/// referee log, its legal attempts and anchors, its believed `distToWin`, the
/// public counters and whose turn it is. Never the opponent's stones it has not
/// proven, never the opponent's plies, never the true `distToWin`.
pub fn seat(g: &FogState, seat: Seat) -> Value {
    let k = g.knowledge(seat);
    let mut m = header(g);
    m.insert("seat".into(), json!(seat));
    m.insert("attempts".into(), json!(g.attempts(seat)));
    m.insert("ownStones".into(), json!(g.names(k.own)));
    m.insert("provenStones".into(), json!(g.names(k.proven)));
    if g.variant().sense > 0 {
        m.insert("seenEmpty".into(), seen_empty_json(g, seat));
    }
    let log: Vec<Value> = own_log(g, seat)
        .map(|(ply, r)| log_entry(g, ply, &r))
        .collect();
    m.insert("log".into(), json!(log));
    m.insert("legalAttempts".into(), legal_attempts_json(g, &k));
    m.insert("legalSenseAnchors".into(), legal_anchors_json(g));
    m.insert("believedDistToWin".into(), json!(k.believed_dist()));
    m.insert("revelations".into(), json!(revelations(g, Some(seat))));
    m.insert("outcome".into(), public_outcome(g));
    Value::Object(m)
}

/// Per-ply events for spectators, the true `distToWin` after each ply included.
fn events(g: &FogState) -> Vec<Value> {
    let mut stones: [Mask; 2] = [0; 2];
    let history: Vec<(usize, PlyRecord)> = numbered_plies(g).collect();
    history
        .iter()
        .enumerate()
        .map(|(ply, (attempt, r))| {
            let s = r.seat as usize;
            if !r.occupied {
                stones[s] |= 1 << r.cell;
            }
            let dist = [
                g.dist(stones[0], stones[1], 0),
                g.dist(stones[1], stones[0], 1),
            ];
            let mut m = Map::new();
            m.insert("ply".into(), json!(ply));
            m.insert("seat".into(), json!(s));
            if g.variant().sense > 0 {
                m.insert("sense".into(), sense_report(g, r));
            }
            m.insert("cell".into(), json!(g.cell_text(r.cell as usize)));
            m.insert("result".into(), json!(result_word(r)));
            m.insert("distToWin".into(), json!(dist));
            if r.guess != 0 {
                m.insert("guess".into(), json!(g.names(r.guess as Mask)));
            }
            let revealed = ply_revelations(g, *attempt, r);
            if !revealed.is_empty() {
                m.insert("revelations".into(), json!(revealed));
            }
            if ply + 1 == history.len() {
                insert_win(g, &mut m);
            }
            Value::Object(m)
        })
        .collect()
}

/// `winPath` (hex, source edge first) or `line` (tic-tac-toe) when the game was won.
fn insert_win(g: &FogState, m: &mut Map<String, Value>) {
    if let Some(cells) = g.winning_cells() {
        let names: Vec<String> = cells.iter().map(|&c| g.cell_text(c)).collect();
        let key = match g.variant().mode {
            Mode::DarkHex => "winPath",
            Mode::PhantomTtt => "line",
        };
        m.insert(key.into(), json!(names));
    }
}

fn per_seat<T: serde::Serialize>(f: impl Fn(Seat) -> T) -> Value {
    json!([f(0), f(1)])
}

/// Everything, for spectators and replays.
pub fn spectator(g: &FogState) -> Value {
    let mut m = header(g);
    m.insert("plies".into(), json!(g.plies()));
    let mut stones = Map::new();
    for c in g.file_major(g.stones(0) | g.stones(1)) {
        let owner = usize::from(g.stones(1) >> c & 1 == 1);
        stones.insert(g.cell_text(c), json!(owner));
    }
    m.insert("stones".into(), Value::Object(stones));
    let knowledge: Vec<Value> = (0..2)
        .map(|s| {
            let mut k = Map::new();
            k.insert("proven".into(), json!(g.names(g.proven(s))));
            if g.variant().sense > 0 {
                k.insert("seenEmpty".into(), seen_empty_json(g, s));
            }
            k.insert("believedDistToWin".into(), json!(g.believed_dist(s)));
            k.insert(
                "log".into(),
                json!(own_log(g, s)
                    .map(|(ply, r)| log_entry(g, ply, &r))
                    .collect::<Vec<_>>()),
            );
            Value::Object(k)
        })
        .collect();
    m.insert("knowledge".into(), json!(knowledge));
    m.insert("distToWin".into(), per_seat(|s| g.true_dist(s)));
    m.insert("probes".into(), per_seat(|s| g.probes(s)));
    m.insert("discovered".into(), per_seat(|s| g.discovered(s)));
    m.insert("guessesMade".into(), per_seat(|s| g.guesses_made(s)));
    m.insert("guessAccuracy".into(), per_seat(|s| g.guess_accuracy(s)));
    let active = g.active_seat();
    m.insert(
        "legalAttempts".into(),
        match active {
            Some(s) => legal_attempts_json(g, &g.knowledge(s)),
            None => json!([]),
        },
    );
    m.insert("legalSenseAnchors".into(), legal_anchors_json(g));
    m.insert("events".into(), json!(events(g)));
    m.insert("revelations".into(), json!(revelations(g, None)));
    m.insert("results".into(), g.results().unwrap_or(Value::Null));
    Value::Object(m)
}

/// `results` once settled: the outcome, the true `distToWin` and the audit counters.
pub fn results(g: &FogState) -> Option<Value> {
    let o = g.outcome()?;
    let v = g.variant();
    let mut m = o.to_json(g.plies());
    m.insert("game".into(), json!(v.id));
    m.insert("variant".into(), json!(v.label()));
    m.insert("original".into(), json!(v.original()));
    m.insert("distToWin".into(), per_seat(|s| g.true_dist(s)));
    m.insert("probes".into(), per_seat(|s| g.probes(s)));
    m.insert("discovered".into(), per_seat(|s| g.discovered(s)));
    m.insert("guessesMade".into(), per_seat(|s| g.guesses_made(s)));
    m.insert("guessAccuracy".into(), per_seat(|s| g.guess_accuracy(s)));
    insert_win(g, &mut m);
    Some(Value::Object(m))
}
