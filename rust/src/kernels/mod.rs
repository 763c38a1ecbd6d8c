//! Hot kernels shared by several games.

pub mod hexgrid;
pub mod paths;
pub mod select;
