//! An interpreter of ld's kernel IR: the CPU reference for kernels that
//! exist only at run time (shaders loaded from WGSL), which have no CPU
//! twin compiled from the IR by `#[ld::kernel]`, on a host Cranelift has
//! no back end for (elsewhere `cpu::jit` compiles them to native code,
//! and this module's tests check that code against it). It runs the same IR with
//! the twin's semantics exactly (`ld-macros/src/cpu`): the same lowered
//! state machine (`ld_compiler::lower::machine`), suspended at barriers;
//! the same arithmetic; the same order of evaluation; and the same calls
//! into `Cx` (bounds checks, fuel, memory routing) at the same sites, so
//! every executor mode (native, check, deterministic, exact) drives an
//! interpreted invocation as it drives a twin's.
//!
//! The IR is compiled once per program into closures (`eval.rs`): every
//! offset, type, site and memory the IR names is resolved then, and an
//! invocation only calls closures over its frame of 32-bit words
//! (`frame.rs`). `arith.rs` is WGSL's arithmetic on words; `expr.rs`,
//! `place.rs`, `stmt.rs` and `call.rs` compile the IR's expressions,
//! places, statements and helper calls, `machine.rs` the kernel's blocks.

pub(in crate::cpu) mod arith;
mod call;
mod eval;
mod expr;
pub(in crate::cpu) mod frame;
mod machine;
mod place;
mod stmt;

#[cfg(test)]
mod tests;

use super::group::{Each, Group};
#[cfg(test)]
use super::twin::Invocation;
use eval::{Compiler, Scope};
use frame::{param_elem, uniform_words, Layout, Shapes};
use ld_compiler::ir::{Body, FnParam, Module, Type};
use ld_compiler::lower;

/// A kernel's IR compiled for interpretation: shared by every invocation.
pub struct Program {
    /// The kernel body's blocks.
    blocks: Vec<machine::KBlock>,
    /// The kernel's frame, in words.
    kernel_words: usize,
    /// Each helper, by `FnId`.
    helpers: Vec<call::Helper>,
}

impl Program {
    /// `module`: a compiled kernel's IR (`ld_compiler::Compiled::settled`);
    /// `sites[i]`: the (line, column) that span index `i` stands for
    /// (`ld_compiler::Span::index()`); a detached span or an index past the
    /// table is (0, 0).
    pub fn new(module: Module, sites: Vec<(u32, u32)>) -> Program {
        let shapes = Shapes::new(&module);
        let param_elems: Vec<Type> = module.kernel.params.iter().map(|p| param_elem(&p.kind)).collect();
        let uniform_words = uniform_words(&module);
        let whole = Whole { module: &module, shapes: &shapes, param_elems: &param_elems, uniform_words: &uniform_words, sites: &sites };
        let helpers = module.functions.iter().enumerate().map(|(f, func)| whole.compile(&func.body, &func.params, false, |c| c.helper(f))).collect();
        let machine = lower::machine(&module.kernel.body.block);
        let kernel_words = Layout::new(&module.kernel.body, &shapes).words();
        let blocks = whole.compile(&module.kernel.body, &[], true, |c| machine.blocks.iter().map(|b| c.kernel_block(b)).collect());
        Program { blocks, kernel_words, helpers }
    }

    /// A workgroup of `n` fresh invocations (pc 0, every local zeroed),
    /// as the twin's `ld_new_group`.
    pub fn new_group(&'static self, n: usize) -> Box<dyn Group> {
        Each::boxed(n, || machine::Interp::new(self))
    }

    /// One fresh invocation, for tests that drive their own schedule.
    #[cfg(test)]
    pub fn invocation(&'static self) -> Box<dyn Invocation> {
        Box::new(machine::Interp::new(self))
    }
}

/// What every function's compilation reads of the module.
struct Whole<'p> {
    module: &'p Module,
    shapes: &'p Shapes,
    param_elems: &'p [Type],
    uniform_words: &'p [usize],
    sites: &'p [(u32, u32)],
}

impl Whole<'_> {
    /// `f` run on a compiler of the function with `body` and `params`.
    fn compile<T>(&self, body: &Body, params: &[FnParam], kernel: bool, f: impl FnOnce(&Compiler) -> T) -> T {
        let layout = Layout::new(body, self.shapes);
        let scope = Scope { locals: &body.locals, layout: &layout, params, kernel };
        f(&Compiler { module: self.module, shapes: self.shapes, param_elems: self.param_elems, uniform_words: self.uniform_words, sites: self.sites, scope })
    }
}

/// Executors share one program among threads and move invocations
/// between them.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Program>();
};
