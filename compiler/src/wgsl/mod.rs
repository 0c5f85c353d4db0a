//! WGSL back end. `native` emits the kernel as written: structured control
//! flow, one dispatch, no overhead. `instrumented` emits the kernel that
//! check mode runs (see `instrument`), `folded` the one of deterministic
//! mode (both: `instrument`, `structured`). Every emitted
//! module is validated by naga at expansion time (`validate`), so a kernel
//! that compiles is a kernel wgpu accepts.

mod instrument;
mod names;
mod probe;
mod structured;
mod validate;
mod writer;

pub use instrument::barriers;
pub use validate::validate;
pub use writer::{Site, SiteWhat};

use crate::ir::Module;

/// Bind group layout shared with the runtime: storage and atomic parameters
/// are bound at their parameter index, and the scalar parameters, packed in
/// order as 32-bit words, at binding `params.len()`.
/// Each emitter returns the WGSL and the guard's sites in it (see
/// `ld_shaders`' `guard.wgsl`): the table the runtime names a fault's
/// place from.
pub fn native(m: &Module) -> (String, Vec<Site>) {
    writer::Writer::new(m, writer::Variant::Native).module()
}

/// The native kernel as plain WGSL, without ld's guard (indices
/// unchecked, loops without fuel, no guard binding): what a user would
/// write, which the shader front-end reads back.
pub fn plain(m: &Module) -> String {
    writer::Writer::new(m, writer::Variant::Plain).module().0
}

/// The instrumented kernel: the same `@group(0)` as the native one (targets
/// bound as their 32-bit words), the engine's buffers in `@group(1)`.
pub fn instrumented(m: &Module) -> (String, Vec<Site>) {
    writer::Writer::new(m, writer::Variant::Instrumented).module()
}

/// The folded kernel of deterministic mode: the same bindings as the
/// instrumented one (see `structured`).
pub fn folded(m: &Module) -> (String, Vec<Site>) {
    writer::Writer::new(m, writer::Variant::Folded).module()
}

/// The probe of check and deterministic modes: the same bindings as the instrumented
/// kernel (see `probe`).
pub fn probe(m: &Module) -> (String, Vec<Site>) {
    writer::Writer::new(m, writer::Variant::Probe).module()
}
