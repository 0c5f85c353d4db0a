//! An interpreter of ld's kernel IR: the CPU reference for kernels that
//! exist only at run time (shaders loaded from WGSL), which have no CPU
//! twin compiled from the IR by `#[ld::kernel]`. It runs the same IR with
//! the twin's semantics exactly (`ld-macros/src/cpu`): the same lowered
//! state machine (`ld_compiler::lower::machine`), suspended at barriers;
//! the same arithmetic; the same order of evaluation; and the same calls
//! into `Cx` (bounds checks, fuel, memory routing) at the same sites, so
//! every executor mode (native, check, deterministic, exact) drives an
//! interpreted invocation as it drives a twin's.
//!
//! Values are 32-bit words (`frame.rs`); `arith.rs` is WGSL's arithmetic
//! on them, `expr.rs`, `place.rs`, `stmt.rs` and `call.rs` the IR's
//! expressions, places, statements and helper calls, `machine.rs` the
//! kernel's blocks.

mod arith;
mod call;
mod eval;
mod expr;
mod frame;
mod machine;
mod place;
mod stmt;

#[cfg(test)]
mod tests;

use super::twin::Invocation;
use eval::Scope;
use frame::{Layout, Shapes};
use ld_compiler::ir::{Module, ParamKind, Type};
use ld_compiler::lower::{self, Machine};
use ld_compiler::Span;

/// A kernel's IR prepared for interpretation: shared by every invocation.
pub struct Program {
    module: Module,
    /// The kernel body's blocks.
    machine: Machine,
    shapes: Shapes,
    /// The kernel's locals in its frame.
    kernel: Layout,
    /// Each helper's locals in its frames, by `FnId`.
    helpers: Vec<Layout>,
    /// Each kernel parameter's element type as places see it (`Unit` for
    /// a uniform, which has none).
    param_elems: Vec<Type>,
    /// Each kernel parameter's word in the uniform block (the twin's
    /// `uniform_word`: the uniforms before it).
    uniform_words: Vec<usize>,
    sites: Vec<(u32, u32)>,
}

impl Program {
    /// `module`: a compiled kernel's IR (`ld_compiler::Compiled::settled`);
    /// `sites[i]`: the (line, column) that span index `i` stands for
    /// (`ld_compiler::Span::index()`); a detached span or an index past the
    /// table is (0, 0).
    pub fn new(module: Module, sites: Vec<(u32, u32)>) -> Program {
        let shapes = Shapes::new(&module);
        let machine = lower::machine(&module.kernel.body.block);
        let kernel = Layout::new(&module.kernel.body, &shapes);
        let helpers = module.functions.iter().map(|f| Layout::new(&f.body, &shapes)).collect();
        let param_elems = module.kernel.params.iter().map(|p| param_elem(&p.kind)).collect();
        let uniform_words = uniform_words(&module.kernel.params);
        Program { module, machine, shapes, kernel, helpers, param_elems, uniform_words, sites }
    }

    /// A fresh invocation (pc 0, every local zeroed), as the twin's
    /// `ld_new_invocation`.
    pub fn invocation(&'static self) -> Box<dyn Invocation> {
        Box::new(machine::Interp::new(self))
    }

    /// Where `span` stands in the source; (0, 0) where no one knows.
    fn site(&self, span: Span) -> (u32, u32) {
        span.index().and_then(|i| self.sites.get(i)).copied().unwrap_or((0, 0))
    }

    fn kernel_scope(&self) -> Scope<'_> {
        Scope { locals: &self.module.kernel.body.locals, layout: &self.kernel, params: &[], kernel: true }
    }
}

fn param_elem(kind: &ParamKind) -> Type {
    match kind {
        ParamKind::Storage { elem, .. } => elem.clone(),
        ParamKind::Atomic { elem } => Type::Atomic(*elem),
        ParamKind::Uniform { .. } => Type::Unit,
    }
}

fn uniform_words(params: &[ld_compiler::ir::Param]) -> Vec<usize> {
    let mut before = 0;
    params
        .iter()
        .map(|p| {
            let w = before;
            before += matches!(p.kind, ParamKind::Uniform { .. }) as usize;
            w
        })
        .collect()
}

/// Executors share one program among threads and move invocations
/// between them.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Program>();
};
