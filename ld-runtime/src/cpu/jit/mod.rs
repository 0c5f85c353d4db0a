//! Native code for kernels that exist only at run time: the CPU reference
//! for loaded shaders, compiled with Cranelift when the shader is loaded,
//! where the interpreter (`cpu::interp`) would otherwise run them. It is
//! the interpreter's semantics compiled rather than walked: the same
//! lowered state machine (`ld_compiler::lower::machine`), the same frame
//! of words (`interp::frame`), the same order of evaluation, and the same
//! calls into `Cx` at the same sites (through `abi`'s shims), so every
//! executor mode drives a compiled invocation as it drives a twin's.
//!
//! A kernel's blocks become one function, `step(frame, cx, pc)`, which
//! runs from block `pc` to the next barrier or the end and says which
//! (`DONE`, `FAULT`, or the block whose barrier it stopped at). Helpers
//! are inlined at each call, their frames laid out above the caller's
//! (WGSL has no recursion). A statement's scalar values live in
//! registers; locals and aggregates live in the frame.
//!
//! Where the host has no Cranelift back end, `Jitted::new` says so and
//! the loader uses the interpreter.

mod abi;
mod emit;
mod expr;
mod place;
mod stmt;

#[cfg(test)]
mod tests;

use super::interp::frame::{Frame, Shapes};
use super::twin::{BarrierKind, Cx, Fault, Invocation, Yield};
use abi::JitCx;
use cranelift_codegen::ir::{types, AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module as _};
use ld_compiler::ir::Module;
use ld_compiler::lower::{self, Term};

/// `step`'s result when the invocation has ended.
const DONE: u32 = u32::MAX;
/// `step`'s result when it faulted (the fault is in `JitCx::fault`).
const FAULT: u32 = u32::MAX - 1;

type Step = unsafe extern "C" fn(frame: *mut u32, cx: *mut JitCx, pc: u32) -> u32;

/// A kernel compiled to native code: shared by every invocation.
pub struct Jitted {
    step: Step,
    /// The kernel's frame, in words: its locals, then the temporaries
    /// and inlined helpers' frames above them.
    frame_words: usize,
    /// Each block's barrier, for those that end at one: (kind, next block, id).
    barriers: Vec<Option<(BarrierKind, u32, u32)>>,
    /// Words of the uniform block the code reads at most.
    uniform_words: usize,
    /// The descriptors of out-of-line operations the code points at.
    #[allow(clippy::vec_box)]
    _ops: Vec<Box<abi::Op>>,
}

/// Why a kernel was not compiled.
#[derive(Debug)]
pub struct Unsupported(pub String);

impl Jitted {
    /// `module` and `sites` as `interp::Program::new` takes them.
    pub fn new(module: &Module, sites: &[(u32, u32)]) -> Result<Jitted, Unsupported> {
        let isa = isa()?;
        let mut jit = JITModule::new(JITBuilder::with_isa(isa, cranelift_module::default_libcall_names()));
        let mut ctx = jit.make_context();
        let ptr = jit.target_config().pointer_type();
        let sig = &mut ctx.func.signature;
        sig.params.extend([AbiParam::new(ptr), AbiParam::new(ptr), AbiParam::new(types::I32)]);
        sig.returns.push(AbiParam::new(types::I32));
        let id = jit.declare_function("step", Linkage::Export, &ctx.func.signature).map_err(|e| Unsupported(e.to_string()))?;
        ctx.func.name = UserFuncName::user(0, id.as_u32());
        let machine = lower::machine(&module.kernel.body.block);
        let shapes = Shapes::new(module);
        let mut fcx = FunctionBuilderContext::new();
        let built = emit::build(&mut ctx.func, &mut fcx, module, &shapes, sites, &machine, jit.target_config())?;
        jit.define_function(id, &mut ctx).map_err(|e| Unsupported(format!("{e:?}")))?;
        jit.finalize_definitions().map_err(|e| Unsupported(e.to_string()))?;
        // SAFETY: the function was declared with `Step`'s signature.
        let step = unsafe { std::mem::transmute::<*const u8, Step>(jit.get_finalized_function(id)) };
        // The code lives as long as the process, as the loaded kernel's
        // description does.
        std::mem::forget(jit);
        let barriers = machine.blocks.iter().map(|b| match b.term {
            Term::Barrier(kind, next, index, _) => Some((kind.into(), next as u32, index as u32)),
            _ => None,
        });
        Ok(Jitted { step, frame_words: built.frame_words, barriers: barriers.collect(), uniform_words: built.uniform_words, _ops: built.ops })
    }

    /// A fresh invocation (block 0, every local zeroed).
    pub fn invocation(&'static self) -> Box<dyn Invocation> {
        Box::new(Native { prog: self, pc: 0, frame: Frame::new(self.frame_words) })
    }
}

/// The host's code generator, tuned for speed.
fn isa() -> Result<cranelift_codegen::isa::OwnedTargetIsa, Unsupported> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| f.set(k, v).map_err(|e| Unsupported(e.to_string()));
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    let builder = cranelift_native::builder().map_err(|e| Unsupported(format!("no code generator for this host: {e}")))?;
    builder.finish(settings::Flags::new(flags)).map_err(|e| Unsupported(e.to_string()))
}

/// One invocation suspended between steps.
struct Native {
    prog: &'static Jitted,
    pc: u32,
    frame: Frame,
}

impl Invocation for Native {
    fn step(&mut self, cx: &mut Cx<'_>) -> Result<Yield, Fault> {
        if self.pc == DONE {
            return Ok(Yield::Done);
        }
        assert!(cx.uniforms.len() >= self.prog.uniform_words, "the uniform block is smaller than the kernel reads");
        let mut j = JitCx::new(cx);
        // SAFETY: the frame has the words the code addresses, `j` lives
        // through the call, and the code reads no uniform word past the
        // block (asserted above).
        let frame = self.frame.words(self.prog.frame_words).as_mut_ptr();
        let r = unsafe { (self.prog.step)(frame, &mut j, self.pc) };
        let fault = j.fault.take();
        match r {
            DONE => {
                self.pc = DONE;
                Ok(Yield::Done)
            }
            FAULT => Err(fault.expect("a faulting step keeps its fault")),
            b => {
                let (kind, next, id) = self.prog.barriers[b as usize].expect("a step stops at a barrier");
                self.pc = next;
                Ok(Yield::Barrier { kind, id })
            }
        }
    }
}

/// Executors share one program among threads and move invocations
/// between them.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Jitted>();
};
