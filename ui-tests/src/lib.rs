//! Nothing to link: this crate holds `tests/compile_fail.rs`, whose cases
//! show how `#[ld::kernel]`'s compile errors render through rustc.

#![warn(missing_docs)]
