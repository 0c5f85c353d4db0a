//! The shader front-end: a compute entry point of a naga module (read from
//! WGSL, or from GLSL or SPIR-V by naga's own front-ends) → the kernel IR
//! the Rust dialect's front-end also builds, so every analysis, writer and
//! mode works on shaders unchanged.
//!
//! The translation keeps naga's semantics exactly or refuses: a construct
//! the IR cannot express (a vector type, a texture, a padded layout, a
//! subgroup operation) is a [`Rejected`] error at its line and column,
//! never an approximation. Helper functions are inlined into the kernel
//! (WGSL has no recursion), so the analyses see one body, as they would
//! in a kernel written in one piece; `var<private>` globals become the
//! kernel's locals for the same reason.
//!
//! The IR's [`Span`](crate::Span)s index [`Kernel::spans`], naga's byte
//! ranges of the source.

mod body;
mod expr;
mod globals;
mod loops;
mod matrices;
mod packing;
mod shader;
mod source;
mod types;
mod vectors;
pub mod words;

#[cfg(test)]
mod tests;

pub use globals::ParamSource;
pub use shader::{Shader, ShaderError};
pub use source::{line_column, render, Rejected};
pub use vectors::wgsl_name;

use crate::ir;
use naga::Handle;
use std::collections::HashMap;

/// A shader's entry point as a kernel.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// The kernel, as the Rust dialect's front-end would build it.
    pub module: ir::Module,
    /// Where each IR parameter comes from in the shader's bindings, by
    /// parameter index.
    pub params: Vec<ParamSource>,
    /// naga's span behind each of the IR's [`Span`](crate::Span)s.
    pub spans: Vec<naga::Span>,
    /// By parameter index: the layout of a buffer read word by word
    /// (`words.rs`), which names its words.
    pub layouts: Vec<Option<words::Layout>>,
    /// The kernel's plain stores into memory of atomic words, which no
    /// check watches: where other invocations may reach that memory (the
    /// dispatch's for storage, the workgroup's for workgroup memory), the
    /// kernel is refused (`words.rs` says why).
    pub atomic_memory_stores: Vec<words::UncheckedStore>,
    /// By workgroup variable: whether it is one value, not an array
    /// (`var<workgroup> total: Sums`), its words named from the variable
    /// (`total.b`, not `total[0].b`).
    pub shared_one: Vec<bool>,
}

type R<T> = Result<T, Rejected>;

/// Translates entry point `entry` of `module` (validated: `info` is
/// naga's analysis of it, override constants already applied).
pub fn translate(module: &naga::Module, info: &naga::valid::ModuleInfo, entry: &str) -> R<Kernel> {
    let Some(index) = module.entry_points.iter().position(|e| e.name == entry) else {
        let names: Vec<&str> = module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute).map(|e| e.name.as_str()).collect();
        return Err(Rejected::one(naga::Span::default(), format!("no entry point `{entry}`; the shader's compute entry points: {}", names.join(", "))));
    };
    let ep = &module.entry_points[index];
    if ep.stage != naga::ShaderStage::Compute {
        return Err(Rejected::one(naga::Span::default(), format!("`{entry}` is a {:?} entry point: ld checks compute shaders", ep.stage)));
    }
    if ep.workgroup_size_overrides.is_some() {
        return Err(Rejected::one(naga::Span::default(), format!("`{entry}`'s workgroup size depends on override constants: set them first")));
    }
    let mut cx = Cx::new(module, info);
    let ep_info = info.get_entry_point(index);
    cx.globals(ep_info)?;
    let kernel = cx.kernel(ep, ep_info)?;
    let Cx { structs, spans, sources, mut layouts, atomic_memory_stores, globals, .. } = cx;
    let layouts = (0..sources.len()).map(|p| layouts.remove(&p)).collect();
    let one = |i: usize| globals.values().any(|g| matches!(g, globals::Global::Shared { index, single: true, .. } if *index == i));
    let shared_one = (0..kernel.shared.len()).map(one).collect();
    Ok(Kernel { module: ir::Module { structs, functions: Vec::new(), kernel }, params: sources, spans, layouts, atomic_memory_stores, shared_one })
}

/// The translation's state: the naga module, and the IR's tables as they
/// grow.
struct Cx<'a> {
    naga: &'a naga::Module,
    info: &'a naga::valid::ModuleInfo,
    structs: Vec<ir::StructDef>,
    struct_ids: HashMap<Handle<naga::Type>, ir::StructId>,
    spans: Vec<naga::Span>,
    globals: HashMap<Handle<naga::GlobalVariable>, globals::Global>,
    params: Vec<ir::Param>,
    sources: Vec<ParamSource>,
    shared: Vec<ir::SharedVar>,
    /// The struct standing for each vector type (`vectors.rs`).
    vectors: HashMap<(ir::Scalar, u32), ir::StructId>,
    /// The kernel's local for each `var<private>`.
    private_locals: HashMap<Handle<naga::GlobalVariable>, ir::LocalId>,
    /// For a struct WGSL's layout pads (`types.rs`): the IR field of each
    /// of its members; the other fields are the padding.
    members: HashMap<ir::StructId, Vec<usize>>,
    /// The layout of each buffer parameter read word by word.
    layouts: HashMap<usize, words::Layout>,
    /// Plain stores into memory of atomic words (`Kernel`'s field).
    atomic_memory_stores: Vec<words::UncheckedStore>,
    /// Uniform arrays and vectors indexed at run time, each copied into a
    /// local at the kernel's start (`expr.rs`): by first scalar and type.
    uniform_copies: Vec<((usize, ir::Type), ir::LocalId, ir::Stmt)>,
}

impl<'a> Cx<'a> {
    fn new(naga: &'a naga::Module, info: &'a naga::valid::ModuleInfo) -> Self {
        Cx {
            naga,
            info,
            structs: Vec::new(),
            struct_ids: HashMap::new(),
            spans: Vec::new(),
            globals: HashMap::new(),
            params: Vec::new(),
            sources: Vec::new(),
            shared: Vec::new(),
            private_locals: HashMap::new(),
            vectors: HashMap::new(),
            members: HashMap::new(),
            layouts: HashMap::new(),
            atomic_memory_stores: Vec::new(),
            uniform_copies: Vec::new(),
        }
    }

    /// The IR's span for naga's `span`.
    fn span(&mut self, span: naga::Span) -> crate::Span {
        self.spans.push(span);
        crate::Span::from_index(self.spans.len() - 1)
    }

    fn reject(&self, at: naga::Span, message: impl Into<String>) -> Rejected {
        Rejected::one(at, message)
    }
}
