//! coworld's core: every game rule, the hot kernels, the scripted baselines and
//! the batch simulator, in plain Rust. The Python face lives in `python` (the
//! `python` feature) and only converts.

pub mod catalog;
pub mod error;
pub mod fog;
pub mod game;
pub mod gauntlet;
pub mod hanabi;
pub mod kernels;
pub mod policy;
pub mod registry;
pub mod rng;
pub mod simulate;
pub mod vecenv;

#[cfg(feature = "python")]
mod python;
#[cfg(feature = "python")]
mod python_vecenv;

#[cfg(test)]
mod random_sim;

pub use error::{CoreError, CoreResult, MoveFault};
pub use game::{Ending, Game, Outcome, Seat};
pub use registry::{State, GAMES};
