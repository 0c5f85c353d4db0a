//! ld's kernel compiler, without a front-end.
//!
//! A front-end builds a kernel's [`ir::Module`] (`#[ld::kernel]` from Rust
//! source at compile time); this crate does the rest, the same for every
//! front-end: [`analysis`] checks what the IR's types cannot express
//! (barrier uniformity, the engine's target count) and finds what the
//! engine may skip, [`lower`] turns control flow into the blocks the CPU
//! twin suspends at barriers, and [`wgsl`] writes each variant a mode runs
//! (native, instrumented, folded, probe), validated by naga; [`compile`]
//! runs them in order. [`front`] is the front-end for shaders: a naga
//! module (WGSL, GLSL, SPIR-V) to the IR.
//!
//! The IR names source places by [`Span`], an index that only the
//! front-end that built it can turn into a file, line and column, and
//! problems come back as [`Diagnostic`]s at those spans: the compiler
//! knows nothing of syn or of naga's front-ends.
#![warn(missing_docs)]

pub mod analysis;
mod compile;
mod diagnostic;
pub mod front;
pub mod ir;
pub mod lower;
mod span;
pub mod wgsl;

pub use compile::{compile, Compiled, Facts};
pub use diagnostic::{Diagnostic, Diagnostics};
pub use span::Span;
