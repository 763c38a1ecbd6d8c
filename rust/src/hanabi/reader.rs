//! The tolerant move reader: canonical moves (`play 1`, `discard 4`,
//! `hint 2 rank 3`, `hint 2 colour red`) and the obvious variants (`color`,
//! `number`, `hint 2 red`, `hint 2 3`, `p1`, `clue 3 blue`, number words),
//! then the legality checks, each refusal naming what is wrong.
//!
//! The same vocabulary reads a JSON reply's fields ([`read_word`]): the family
//! module maps fields to move text and knows no words of its own.

use super::knowledge::COLOURS;
use super::{Hanabi, HanabiMove, MAX_HINTS};
use crate::error::{CoreError, CoreResult};
use crate::game::Game;

const SHAPE: &str =
    "a move is `play <slot>`, `discard <slot>`, `hint <seat> colour <colour>` or `hint <seat> rank <1-5>`";
const FILLER: [&str; 10] = [
    "slot", "card", "seat", "player", "to", "the", "my", "a", "position", "at",
];
const NUMBER_WORDS: [&str; 10] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
];
const COLOUR_LETTERS: [&str; 5] = ["r", "y", "g", "b", "w"];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verb {
    Play,
    Discard,
    Hint,
}

/// Lower-case runs of letters or of digits: `Play1!` is `play`, `1`.
fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut prev: Option<bool> = None; // Some(true) inside digits, Some(false) inside letters
    for ch in text.chars().flat_map(char::to_lowercase) {
        let kind = if ch.is_ascii_digit() {
            Some(true)
        } else if ch.is_alphabetic() {
            Some(false)
        } else {
            None
        };
        match (kind, prev) {
            (Some(k), Some(p)) if k == p => out.last_mut().expect("a run is open").push(ch),
            (Some(_), _) => out.push(ch.to_string()),
            (None, _) => {}
        }
        prev = kind;
    }
    out.retain(|t| !FILLER.contains(&t.as_str()));
    out
}

fn number(tok: &str) -> Option<u32> {
    if let Some(i) = NUMBER_WORDS.iter().position(|w| *w == tok) {
        return Some(i as u32);
    }
    let digits = tok.strip_suffix('s').unwrap_or(tok);
    if digits.is_empty() || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `threes` and `3s` name rank 3 as well.
fn rank_word(tok: &str) -> Option<u32> {
    number(tok).or(match tok {
        "ones" => Some(1),
        "twos" => Some(2),
        "threes" => Some(3),
        "fours" => Some(4),
        "fives" => Some(5),
        _ => None,
    })
}

fn colour_word(tok: &str) -> Option<u8> {
    let singular = tok.strip_suffix('s').filter(|s| s.len() > 1).unwrap_or(tok);
    COLOURS
        .iter()
        .position(|c| *c == tok || *c == singular)
        .or_else(|| COLOUR_LETTERS.iter().position(|c| *c == tok))
        .map(|c| c as u8)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum HintKind {
    Colour,
    Rank,
}

fn hint_kind(tok: &str) -> Option<HintKind> {
    match tok {
        "colour" | "color" | "colours" | "colors" => Some(HintKind::Colour),
        "rank" | "number" | "num" | "value" | "ranks" | "numbers" => Some(HintKind::Rank),
        _ => None,
    }
}

/// A slot or seat number as a reply field gives it: `2`, `#2`, `two`, `slot 2`, `seat 2`.
fn field_number(text: &str) -> Option<u32> {
    let s = text.trim().to_lowercase();
    let s = s.strip_prefix('#').unwrap_or(&s);
    let s = ["slot", "seat", "player"]
        .iter()
        .find_map(|p| s.strip_prefix(p))
        .unwrap_or(s)
        .trim_start();
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().ok();
    }
    NUMBER_WORDS.iter().position(|w| *w == s).map(|i| i as u32)
}

/// One word of a JSON reply's field in canonical form, or `None` when this
/// reader does not know it. `kind` is `action` (play, discard or hint), `number`
/// (a slot or seat), `hintType` (colour or rank), `colour` or `rank` (1-5).
pub fn read_word(kind: &str, text: &str) -> Option<String> {
    let tok = text.trim().to_lowercase();
    match kind {
        "action" => verb(&tok).map(|v| {
            match v {
                Verb::Play => "play",
                Verb::Discard => "discard",
                Verb::Hint => "hint",
            }
            .to_string()
        }),
        "number" => field_number(&tok).map(|n| n.to_string()),
        "hintType" => hint_kind(&tok).map(|k| {
            match k {
                HintKind::Colour => "colour",
                HintKind::Rank => "rank",
            }
            .to_string()
        }),
        "colour" => colour_word(&tok).map(|c| COLOURS[c as usize].to_string()),
        "rank" => rank_word(tok.strip_suffix(".0").unwrap_or(&tok))
            .filter(|r| (1..=5).contains(r))
            .map(|r| r.to_string()),
        _ => None,
    }
}

fn verb(tok: &str) -> Option<Verb> {
    match tok {
        "play" | "p" | "plays" => Some(Verb::Play),
        "discard" | "d" | "discards" | "drop" | "throw" => Some(Verb::Discard),
        "hint" | "h" | "clue" | "tell" | "hints" | "clues" | "give" => Some(Verb::Hint),
        _ => None,
    }
}

pub(super) fn read_move(g: &Hanabi, text: &str) -> CoreResult<HanabiMove> {
    if g.is_over() {
        return Err(g.over_error(text));
    }
    let unparseable =
        |why: &str| CoreError::unparseable(text, format!("{why}; {SHAPE}"), g.legal_names());
    let toks = tokens(text);
    let Some(v) = toks.first().and_then(|t| verb(t)) else {
        return Err(unparseable("no play, discard or hint found"));
    };
    let rest = &toks[1..];
    let mv = match v {
        Verb::Play | Verb::Discard => {
            let [slot] = rest else {
                let name = if v == Verb::Play { "play" } else { "discard" };
                return Err(unparseable(&format!(
                    "`{name}` takes exactly one slot number"
                )));
            };
            let slot = number(slot)
                .ok_or_else(|| unparseable(&format!("{slot:?} is not a slot number")))?;
            let slot = check_slot(g, text, slot)?;
            if v == Verb::Play {
                HanabiMove::Play(slot)
            } else {
                HanabiMove::Discard(slot)
            }
        }
        Verb::Hint => read_hint(g, text, rest, &unparseable)?,
    };
    check(g, text, mv)?;
    Ok(mv)
}

fn read_hint(
    g: &Hanabi,
    text: &str,
    rest: &[String],
    unparseable: &dyn Fn(&str) -> CoreError,
) -> CoreResult<HanabiMove> {
    let (target, value) = match rest {
        [t, v] => (t, (None, v)),
        [t, k, v] => (t, (Some(k.as_str()), v)),
        _ => {
            return Err(unparseable(
                "`hint` takes a seat number, then `colour <colour>` or `rank <1-5>`",
            ))
        }
    };
    let target =
        number(target).ok_or_else(|| unparseable(&format!("{target:?} is not a seat number")))?;
    let n = g.seats() as u32;
    if target >= n {
        return Err(CoreError::illegal(
            text,
            format!("seat {target} does not exist; seats are 0-{}", n - 1),
            g.legal_names(),
        ));
    }
    let target = target as u8;
    let (kind, v) = value;
    let as_rank = || {
        rank_word(v)
            .filter(|r| (1..=5).contains(r))
            .map(|r| HanabiMove::HintRank {
                target,
                rank: (r - 1) as u8,
            })
    };
    let as_colour = || colour_word(v).map(|colour| HanabiMove::HintColour { target, colour });
    match kind.map(|k| (k, hint_kind(k))) {
        Some((_, Some(HintKind::Colour))) => as_colour().ok_or_else(|| {
            unparseable(&format!(
                "{v:?} is not a colour (red, yellow, green, blue, white)"
            ))
        }),
        Some((_, Some(HintKind::Rank))) => {
            as_rank().ok_or_else(|| unparseable(&format!("{v:?} is not a rank (1-5)")))
        }
        Some((k, None)) => Err(unparseable(&format!(
            "{k:?} is not a hint kind (colour or rank)"
        ))),
        None => as_colour()
            .or_else(as_rank)
            .ok_or_else(|| unparseable(&format!("{v:?} is neither a colour nor a rank 1-5"))),
    }
}

fn check_slot(g: &Hanabi, text: &str, slot: u32) -> CoreResult<u8> {
    let n = g.hand(g.mover()).len() as u32;
    if slot == 0 || slot > n {
        return Err(CoreError::illegal(
            text,
            format!("slot {slot} does not exist: you hold {n} cards, slots 1-{n} (slot 1 is the newest)"),
            g.legal_names(),
        ));
    }
    Ok((slot - 1) as u8)
}

/// The rules a well-formed move can break.
fn check(g: &Hanabi, text: &str, mv: HanabiMove) -> CoreResult<()> {
    let me = g.mover();
    let illegal = |why: String| Err(CoreError::illegal(text, why, g.legal_names()));
    match mv {
        HanabiMove::Play(_) => Ok(()),
        HanabiMove::Discard(_) if g.hint_tokens() >= MAX_HINTS => illegal(format!(
            "discarding is not allowed with all {MAX_HINTS} hint tokens in the box"
        )),
        HanabiMove::Discard(_) => Ok(()),
        HanabiMove::HintColour { target, .. } | HanabiMove::HintRank { target, .. } => {
            if target as usize == me {
                return illegal(format!("a hint goes to another seat; you are seat {me}"));
            }
            if g.hint_tokens() == 0 {
                return illegal("no hint tokens left: play or discard".to_string());
            }
            if g.hint_touches(mv) == 0 {
                let what = match mv {
                    HanabiMove::HintColour { colour, .. } => {
                        format!("{} card", COLOURS[colour as usize])
                    }
                    HanabiMove::HintRank { rank, .. } => format!("card of rank {}", rank + 1),
                    _ => unreachable!("only hints reach here"),
                };
                return illegal(format!(
                    "seat {target} holds no {what}: a hint must name at least one card"
                ));
            }
            Ok(())
        }
    }
}
