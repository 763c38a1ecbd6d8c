//! The one error type of the core. The Python layer maps it to exceptions
//! (`coworld.IllegalMove`, `coworld.ConfigError`); nothing here knows Python.

use thiserror::Error;

/// Why a move was refused: the episode runner records the distinction as the
/// failure `cause` (`unparseable` vs `illegal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoveFault {
    /// The text is not a move of this game at all.
    Unparseable,
    /// A well-formed move that the rules forbid here (or the game is over).
    Illegal,
}

impl MoveFault {
    pub fn name(self) -> &'static str {
        match self {
            MoveFault::Unparseable => "unparseable",
            MoveFault::Illegal => "illegal",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CoreError {
    #[error("{} move {text:?}: {reason}; legal moves: {}", fault.name(), list(legal))]
    Move {
        fault: MoveFault,
        text: String,
        reason: String,
        legal: Vec<String>,
    },
    #[error("config field `{field}`: {reason}")]
    Config { field: String, reason: String },
}

fn list(legal: &[String]) -> String {
    if legal.is_empty() {
        "none (the game is over)".to_string()
    } else {
        legal.join(", ")
    }
}

impl CoreError {
    pub fn unparseable(text: &str, reason: impl Into<String>, legal: Vec<String>) -> Self {
        CoreError::Move {
            fault: MoveFault::Unparseable,
            text: text.to_string(),
            reason: reason.into(),
            legal,
        }
    }
    pub fn illegal(text: &str, reason: impl Into<String>, legal: Vec<String>) -> Self {
        CoreError::Move {
            fault: MoveFault::Illegal,
            text: text.to_string(),
            reason: reason.into(),
            legal,
        }
    }
    pub fn config(field: impl Into<String>, reason: impl Into<String>) -> Self {
        CoreError::Config {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

pub type CoreResult<T> = Result<T, CoreError>;
