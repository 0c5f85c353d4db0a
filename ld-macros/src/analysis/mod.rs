//! Checks on the typed IR that Rust's type system cannot express.

pub mod targets;
pub mod uniformity;
