//! Checks on the typed IR that Rust's type system cannot express.

pub mod in_place;
mod residue;
pub mod settled;
pub mod targets;
pub mod uniformity;
