//! WGSL back end. `native` emits the kernel as written: structured control
//! flow, one dispatch, no overhead. Every emitted module is validated by
//! naga at expansion time (`validate`), so a kernel that compiles is a
//! kernel wgpu accepts.

mod check;
mod names;
mod validate;
mod writer;

pub use validate::validate;

use crate::ir::Module;

/// Bind group layout shared with the runtime: storage and atomic parameters
/// are bound at their parameter index, and the scalar parameters, packed in
/// order as 32-bit words, at binding `params.len()`.
pub fn native(m: &Module) -> String {
    writer::Writer::new(m, writer::Variant::Native, vec![]).module()
}

/// Check mode's level-1 shader; `private[i]`: parameter `i` is privatized.
pub fn level1(m: &Module, private: Vec<bool>) -> String {
    writer::Writer::new(m, writer::Variant::Level1, private).module()
}

/// Check mode's level-2 shader (one region per dispatch); with `wg_copies`
/// the warps' copies of shared arrays live in workgroup memory.
pub fn level2(m: &Module, private: Vec<bool>, wg_copies: bool) -> String {
    let mut w = writer::Writer::new(m, writer::Variant::Level2, private);
    w.wg_copies = wg_copies;
    w.module()
}
