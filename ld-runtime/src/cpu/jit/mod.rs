//! Native code for kernels that exist only at run time: the CPU reference
//! for loaded shaders, compiled with Cranelift when the shader is loaded,
//! where the interpreter (`cpu::interp`) would otherwise run them. It is
//! the interpreter's semantics compiled rather than walked: the same
//! lowered state machine (`ld_compiler::lower::machine`), the same frame
//! of words (`interp::frame`), the same order of evaluation, and the same
//! calls into `Cx` at the same sites (through `abi`'s shims), so every
//! executor mode drives a compiled invocation as it drives a twin's.
//!
//! A kernel's blocks become one function, `step(state, cx, memories,
//! uniforms)`, which runs from the invocation's next block (the first
//! word of its state, the frame after it) to the next barrier or the end,
//! keeps where it goes on, and says which (`DONE`, `FAULT`, or the
//! barrier it stopped at: `Stop`). Helpers
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

use super::executor::WorkgroupError;
use super::group::{Group, Round};
use super::interp::frame::Shapes;
#[cfg(test)]
use super::twin::Invocation;
use super::twin::{BarrierKind, Cx, Fault, InPlace, Yield};
use crate::kernel::NewGroup;
use cranelift_codegen::ir::{types, AbiParam, UserFuncName};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{Linkage, Module as _};
use ld_compiler::ir::Module;
use ld_compiler::lower;

/// `step`'s result when the invocation has ended.
const DONE: u64 = u64::MAX;
/// `step`'s result when it faulted (the fault is in `Cx::fault`).
const FAULT: u64 = u64::MAX - 1;

type Step = unsafe extern "C" fn(state: *mut u32, cx: *mut Cx<'static>, memories: *const InPlace, uniforms: *const u32) -> u64;

/// Words of an invocation's state before its frame: the block its next
/// step runs (`DONE` once it has ended).
const PC: usize = 1;

/// A barrier `step` stopped at, as it returns it: the barrier's id, its
/// kind in the top bit. (Returned whole, so no table is read after each
/// step.)
struct Stop;

impl Stop {
    const STORAGE: u64 = 1 << 63;

    fn code(kind: BarrierKind, id: u32) -> u64 {
        let kind = if kind == BarrierKind::Storage { Stop::STORAGE } else { 0 };
        id as u64 | kind
    }

    fn decode(r: u64) -> Yield {
        let kind = if r & Stop::STORAGE != 0 { BarrierKind::Storage } else { BarrierKind::Workgroup };
        Yield::Barrier { kind, id: r as u32 }
    }
}

/// A kernel compiled to native code: shared by every invocation.
pub struct Jitted {
    step: Step,
    /// The kernel's frame, in words: its locals, then the temporaries
    /// and inlined helpers' frames above them.
    frame_words: usize,
    /// Words of the uniform block the code reads at most.
    uniform_words: usize,
    /// Words per element of each of the kernel's memories (its
    /// parameters, then its workgroup arrays), as the code has them.
    elem_words: Vec<u32>,
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
        sig.params.extend([AbiParam::new(ptr); 4]);
        sig.returns.push(AbiParam::new(types::I64));
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
        Ok(Jitted { step, frame_words: built.frame_words, uniform_words: built.uniform_words, elem_words: built.elem_words, _ops: built.ops })
    }

    /// How the kernel's workgroups are made: each invocation fresh (block
    /// 0, every local zeroed), its state inline where it is small.
    /// (Invocations are made by the million and each step starts by
    /// reading one.)
    pub fn new_group(&'static self) -> NewGroup {
        fn make<S: AsMut<[u32]> + Send + 'static>(prog: &'static Jitted, state: impl Fn() -> S + Send + Sync + 'static) -> NewGroup {
            Box::leak(Box::new(move |n| Box::new(Natives { prog, states: (0..n).map(|_| state()).collect() }) as Box<dyn Group>))
        }
        match PC + self.frame_words {
            0..=6 => make(self, || [0u32; 6]),
            7..=14 => make(self, || [0u32; 14]),
            n => make(self, move || vec![0u32; n]),
        }
    }

    /// One fresh invocation, for tests that drive their own schedule.
    #[cfg(test)]
    pub fn invocation(&'static self) -> Box<dyn Invocation> {
        Box::new(Native { prog: self, state: vec![0u32; PC + self.frame_words] })
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

/// A workgroup's invocations: each one's state (`S`), the block it goes
/// on at (`PC`), then its frame, of at least the kernel's `frame_words`.
struct Natives<S> {
    prog: &'static Jitted,
    states: Vec<S>,
}

impl<S: AsMut<[u32]> + Send> Group for Natives<S> {
    fn region(&mut self, round: &mut Round<'_, '_>) -> Result<(), WorkgroupError> {
        let prog = self.prog;
        let (uniforms, memories) = round.memories();
        prog.fits(uniforms, memories);
        // SAFETY: each state was made for `prog`, and each step's `Cx`
        // holds the uniform block and memories just checked.
        round.each(&mut self.states, |state, cx| unsafe { prog.enter(state.as_mut(), cx) })
    }
}

impl Jitted {
    /// Checks that a region's uniform block and memories are what the
    /// code reads: enough words and memories, each memory's elements as
    /// wide as the code's constants say. Anything else is a bug in the
    /// launch, and the code would read past them.
    fn fits(&self, uniforms: &[u32], memories: &[InPlace]) {
        let wide = |(m, &w): (&InPlace, &u32)| w == 0 || m.elem_words == w;
        if uniforms.len() < self.uniform_words || memories.len() < self.elem_words.len() || !memories.iter().zip(&self.elem_words).all(wide) {
            unfit(self, uniforms, memories);
        }
    }

    /// Runs one invocation's step.
    ///
    /// # Safety
    /// `state` was made for this program, and `cx`'s uniform block and
    /// memories passed `fits`.
    #[inline(always)]
    unsafe fn enter(&self, state: &mut [u32], cx: &mut Cx<'_>) -> Result<Yield, Fault> {
        let (uniforms, memories) = (cx.uniforms.as_ptr(), cx.in_place.as_ptr());
        // SAFETY: the state has the words the code addresses (as it was
        // made), `cx` lives through the call (the code keeps no pointer
        // to it), and the code reads no uniform word past the block nor
        // memory past those it has (the caller checked). An ended
        // invocation's step returns `DONE`.
        let r = unsafe { (self.step)(state.as_mut_ptr(), (cx as *mut Cx<'_>).cast(), memories, uniforms) };
        if r == DONE {
            return Ok(Yield::Done);
        }
        if r < FAULT {
            return Ok(Stop::decode(r));
        }
        match cx.fault.take() {
            Some(f) => Err(f),
            None => unreachable!("a faulting step keeps its fault"),
        }
    }
}

/// A step given other memories than the code reads: a bug in the launch.
#[cold]
#[inline(never)]
fn unfit(prog: &Jitted, uniforms: &[u32], memories: &[InPlace]) -> ! {
    let widths: Vec<u32> = memories.iter().map(|m| m.elem_words).collect();
    panic!(
        "the kernel reads {} uniform words and {} memories of {:?} words per element; the step has {} and {:?}",
        prog.uniform_words,
        prog.elem_words.len(),
        prog.elem_words,
        uniforms.len(),
        widths
    )
}

/// One invocation alone, for tests that drive their own schedule.
#[cfg(test)]
struct Native {
    prog: &'static Jitted,
    state: Vec<u32>,
}

#[cfg(test)]
impl Invocation for Native {
    fn step(&mut self, cx: &mut Cx<'_>) -> Result<Yield, Fault> {
        self.prog.fits(cx.uniforms, cx.in_place);
        // SAFETY: the state was made for the program; the memories fit.
        unsafe { self.prog.enter(&mut self.state, cx) }
    }
}

/// Executors share one program among threads and move invocations
/// between them.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Jitted>();
};
