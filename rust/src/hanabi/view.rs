//! JSON views. `full` is the spectator's (every card face-up with its holder's
//! knowledge, the deck order); `for_seat` is the SDK's `view_for`: the seat's own
//! cards as knowledge only, the deck as a count, everything else public.
//!
//! `for_seat` is built from the seat's `SeatView` (plus the public history),
//! the same input the baselines read, so it cannot show the seat's own cards.
//! What another seat knows is shown as its hints only: its true candidate sets
//! derive from the cards IT sees, which include the viewer's own hand, so
//! showing them would leak the viewer's cards. Its chop is the one the viewer
//! can infer (`SeatView::chop`), the one the baselines act on.
//!
//! Both views carry `revelations`: one record (the SDK's
//! `create_information_revelation` shape) per card played or discarded, the
//! moment a card becomes known to its holder, the one seat that could not see it.

use serde_json::{json, Map, Value};

use super::knowledge::{
    self, bit, card_name, known_dead, known_playable, names, CardId, Knowledge, Seen, Table,
};
use super::{Card, Effect, Hanabi, HanabiMove, LogEntry, MAX_FUSES, MAX_HINTS, MAX_TURNS};
use crate::game::{Game, Seat};

fn fireworks(g: &Hanabi) -> Value {
    let mut m = Map::new();
    for (c, name) in knowledge::COLOURS.iter().enumerate() {
        m.insert((*name).into(), json!(g.fireworks()[c]));
    }
    Value::Object(m)
}

/// The pile grouped by identity, in deck order: `{"red 3": 2, ...}`.
fn discard_grouped(g: &Hanabi) -> Value {
    let mut m = Map::new();
    for (id, &n) in g.discarded().iter().enumerate() {
        if n > 0 {
            m.insert(card_name(id as CardId), json!(n));
        }
    }
    Value::Object(m)
}

/// The hints a card has received (public).
fn hints(k: &Knowledge) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "colour".into(),
        json!(k.colour.map(|c| knowledge::COLOURS[c as usize])),
    );
    m.insert("rank".into(), json!(k.rank.map(|r| r + 1)));
    let not_colours: Vec<&str> = (0..5)
        .filter(|c| k.not_colours & (1 << c) != 0)
        .map(|c| knowledge::COLOURS[c])
        .collect();
    let not_ranks: Vec<u8> = (0..5u8)
        .filter(|r| k.not_ranks & (1 << r) != 0)
        .map(|r| r + 1)
        .collect();
    m.insert("notColours".into(), json!(not_colours));
    m.insert("notRanks".into(), json!(not_ranks));
    m.insert("touched".into(), json!(k.touched));
    m
}

/// A card's knowledge from its holder's point of view: hints plus the derived candidate set.
fn holder_knowledge(
    table: &Table,
    seen: &Seen,
    hand: &[Knowledge],
    cands: &[u32],
    slot: usize,
) -> Value {
    let mut m = hints(&hand[slot]);
    let cand = cands[slot];
    let mut copies = Map::new();
    for id in (0..knowledge::NUM_IDS as CardId).filter(|&id| cand & bit(id) != 0) {
        copies.insert(
            card_name(id),
            json!(knowledge::remaining_copies(seen, hand, slot, id)),
        );
    }
    m.insert("candidates".into(), json!(names(cand)));
    m.insert("remainingCopies".into(), Value::Object(copies));
    m.insert("knownPlayable".into(), json!(known_playable(table, cand)));
    m.insert("knownDead".into(), json!(known_dead(table, cand)));
    Value::Object(m)
}

struct HolderFacts {
    know: Vec<Knowledge>,
    cands: Vec<u32>,
    seen: Seen,
    chop: Option<usize>,
}

/// A holder's knowledge of its own hand, given the copies `seen` says it sees.
fn facts(table: &Table, know: &[Knowledge], seen: Seen) -> HolderFacts {
    let mut cands = vec![0u32; know.len()];
    knowledge::candidates(seen, know, &mut cands);
    let chop = knowledge::chop(table, know, &cands);
    HolderFacts {
        know: know.to_vec(),
        cands,
        seen,
        chop,
    }
}

fn own_hand(table: &Table, f: &HolderFacts) -> Value {
    let cards: Vec<Value> = (0..f.know.len())
        .map(|k| {
            json!({
                "slot": k + 1,
                "chop": f.chop == Some(k),
                "knowledge": holder_knowledge(table, &f.seen, &f.know, &f.cands, k),
            })
        })
        .collect();
    Value::Array(cards)
}

fn log_entry(g: &Hanabi, e: &LogEntry) -> Value {
    let mut m = Map::new();
    m.insert("turn".into(), json!(e.turn));
    m.insert("seat".into(), json!(e.seat));
    m.insert("move".into(), json!(g.move_name(e.mv)));
    let (result, card) = match e.effect {
        Effect::Played(id) => ("played", Some(id)),
        Effect::Misplayed(id) => ("misplayed", Some(id)),
        Effect::Discarded(id) => ("discarded", Some(id)),
        Effect::Hinted { .. } => ("hinted", None),
    };
    m.insert("result".into(), json!(result));
    if let Some(id) = card {
        m.insert("card".into(), json!(card_name(id)));
        m.insert("drew".into(), json!(e.drew));
    }
    if let Effect::Hinted { touched } = e.effect {
        let target = match e.mv {
            HanabiMove::HintColour { target, .. } | HanabiMove::HintRank { target, .. } => target,
            _ => 0,
        };
        m.insert("target".into(), json!(target));
        let slots: Vec<u8> = (0..8u8)
            .filter(|k| touched & (1 << k) != 0)
            .map(|k| k + 1)
            .collect();
        m.insert("touched".into(), json!(slots));
    }
    Value::Object(m)
}

/// Everything public, shared by both views.
fn public(g: &Hanabi) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("game".into(), json!("hanabi"));
    m.insert("seats".into(), json!(g.seats()));
    m.insert("activeSeat".into(), json!(g.active_seat()));
    m.insert("turn".into(), json!(g.turn()));
    m.insert("maxTurns".into(), json!(MAX_TURNS));
    m.insert("score".into(), json!(g.fireworks_score()));
    m.insert("hintTokens".into(), json!(g.hint_tokens()));
    m.insert("maxHintTokens".into(), json!(MAX_HINTS));
    m.insert("fuses".into(), json!(g.fuses()));
    m.insert("maxFuses".into(), json!(MAX_FUSES));
    m.insert("deckCount".into(), json!(g.deck_count()));
    m.insert("finalTurnsLeft".into(), json!(g.final_turns()));
    m.insert("fireworks".into(), fireworks(g));
    m.insert(
        "discard".into(),
        json!(g.pile().iter().map(|&id| card_name(id)).collect::<Vec<_>>()),
    );
    m.insert("discardGrouped".into(), discard_grouped(g));
    m.insert(
        "log".into(),
        Value::Array(g.log().iter().map(|e| log_entry(g, e)).collect()),
    );
    m.insert(
        "revelations".into(),
        Value::Array(g.log().iter().filter_map(|e| revelation(g, e)).collect()),
    );
    m
}

/// The revelation record of a play or a discard: the card leaves its holder's
/// hand (seen by every other seat) for the fireworks or the discard pile
/// (public), so its holder learns it. `step` is the turn of the move.
fn revelation(g: &Hanabi, e: &LogEntry) -> Option<Value> {
    let (id, zone) = match e.effect {
        Effect::Played(id) => (id, "fireworks"),
        Effect::Misplayed(id) | Effect::Discarded(id) => (id, "discard"),
        Effect::Hinted { .. } => return None,
    };
    let slot = match e.mv {
        HanabiMove::Play(k) | HanabiMove::Discard(k) => k + 1,
        _ => return None,
    };
    let holder = e.seat as usize;
    let others: Vec<usize> = (0..g.seats()).filter(|&s| s != holder).collect();
    Some(json!({
        "kind": "revelation",
        "what": "card",
        "identity": card_name(id),
        "where": {"seat": holder, "slot": slot},
        "from": {
            "zone": format!("hand:{holder}"),
            "visibility": {"kind": "seats", "seats": others},
        },
        "to": {"zone": zone, "visibility": {"kind": "public"}},
        "step": e.turn,
        "revealedTo": [holder],
    }))
}

/// A hand face up, each card with `card_extra(slot)`.
fn face_up(
    hand: &[Card],
    table: &Table,
    card_extra: impl Fn(usize) -> Map<String, Value>,
) -> Value {
    let cards: Vec<Value> = hand
        .iter()
        .map(|c| c.id)
        .enumerate()
        .map(|(k, id)| {
            let mut m = Map::new();
            m.insert("slot".into(), json!(k + 1));
            m.insert("card".into(), json!(card_name(id)));
            m.insert("critical".into(), json!(table.critical & bit(id) != 0));
            m.append(&mut card_extra(k));
            Value::Object(m)
        })
        .collect();
    Value::Array(cards)
}

pub(super) fn full(g: &Hanabi) -> Value {
    let table = g.table();
    let mut m = public(g);
    let mut hands = Vec::new();
    let mut chops = Vec::new();
    for seat in 0..g.seats() {
        let (know, n) = g.knowledge_of(seat);
        let f = facts(&table, &know[..n], g.seen_by(&table, seat));
        hands.push(face_up(g.hand(seat), &table, |k| {
            let mut e = Map::new();
            e.insert("chop".into(), json!(f.chop == Some(k)));
            e.insert(
                "knowledge".into(),
                holder_knowledge(&table, &f.seen, &f.know, &f.cands, k),
            );
            e
        }));
        chops.push(json!(f.chop.map(|k| k + 1)));
    }
    m.insert("hands".into(), Value::Array(hands));
    m.insert("chop".into(), Value::Array(chops));
    m.insert(
        "deck".into(),
        json!(g
            .deck_order()
            .iter()
            .map(|&id| card_name(id))
            .collect::<Vec<_>>()),
    );
    m.insert("legalMoves".into(), json!(g.legal_names()));
    Value::Object(m)
}

pub(super) fn for_seat(g: &Hanabi, seat: Seat) -> Value {
    let v = g.seat_view(seat);
    let table = v.table();
    let mut m = public(g);
    m.insert("you".into(), json!(seat));
    let mut hands = Vec::new();
    let mut chops = Vec::new();
    for s in 0..v.seats() {
        // The seat's own knowledge, or another seat's as the seat can infer it.
        let (know, n) = v.knowledge(s);
        let f = facts(table, &know[..n], v.seen_with(s));
        if s == seat {
            hands.push(own_hand(table, &f));
        } else {
            hands.push(face_up(v.cards(s), table, |k| {
                let mut e = Map::new();
                e.insert("chop".into(), json!(f.chop == Some(k)));
                e.insert("hints".into(), Value::Object(hints(&f.know[k])));
                e
            }));
        }
        chops.push(json!(f.chop.map(|k| k + 1)));
    }
    m.insert("hands".into(), Value::Array(hands));
    m.insert("chop".into(), Value::Array(chops));
    let legal = if g.active_seat() == Some(seat) {
        g.legal_names()
    } else {
        Vec::new()
    };
    m.insert("legalMoves".into(), json!(legal));
    Value::Object(m)
}

pub(super) fn results(g: &Hanabi) -> Option<Value> {
    let o = g.outcome()?;
    let mut m = o.to_json(g.plies());
    let (misplays, discards, hints_given) = g.counters();
    m.insert("game".into(), json!("hanabi"));
    m.insert("seats".into(), json!(g.seats()));
    m.insert("fireworks".into(), fireworks(g));
    m.insert("hintTokens".into(), json!(g.hint_tokens()));
    m.insert("fusesLeft".into(), json!(g.fuses()));
    m.insert("deckCount".into(), json!(g.deck_count()));
    m.insert("misplays".into(), json!(misplays));
    m.insert("discards".into(), json!(discards));
    m.insert("hintsGiven".into(), json!(hints_given));
    m.insert("turns".into(), json!(g.turn()));
    Some(Value::Object(m))
}
