//! The emitter: a Cranelift function builder with what every part of a
//! kernel's compilation needs: the frame and its temporaries, the shims'
//! signatures, faults, sites, and the functions being inlined (`Scope`).
//! `build` compiles the kernel's blocks into `step`.

use super::abi::{self, Op};
use super::{Stop, Unsupported, DONE, FAULT};
use crate::cpu::interp::frame::{param_elem, uniform_words, Layout, Shapes};
use crate::cpu::twin::{InPlace, Mem};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, Block, Function, InstBuilder, MemFlagsData, SigRef, Signature, Type as Ct, Value};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch, Variable};
use ld_compiler::ir::{FnParam, Local, LocalId, MemRef, Module, ParamKind, Type};
use ld_compiler::lower::{Machine, Term};
use ld_compiler::Span;
use std::mem::offset_of;

/// What `build` made besides the code.
pub(super) struct Built {
    pub frame_words: usize,
    pub uniform_words: usize,
    /// Words per element of each memory, as the code has them
    /// (`elem_words`).
    pub elem_words: Vec<u32>,
    /// Boxed: the code holds each one's address while the vector grows.
    #[allow(clippy::vec_box)]
    pub ops: Vec<Box<Op>>,
}

/// Compiles the kernel's blocks into `func`, `step`'s body.
pub(super) fn build(
    func: &mut Function,
    fcx: &mut FunctionBuilderContext,
    module: &Module,
    shapes: &Shapes,
    sites: &[(u32, u32)],
    machine: &Machine,
    config: cranelift_codegen::isa::TargetFrontendConfig,
) -> Result<Built, Unsupported> {
    let ptr = config.pointer_type();
    let call_conv = func.signature.call_conv;
    let mut b = FunctionBuilder::new(func, fcx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let [state, cx, in_place, uniforms] = b.block_params(entry).try_into().expect("step takes four parameters");
    // The invocation's state: the block to run (`super::PC`), then the frame.
    let pc = b.ins().load(types::I32, MemFlagsData::trusted(), state, 0);
    let clamped = b.declare_var(types::I32);
    let zero = b.ins().iconst(types::I32, 0);
    b.def_var(clamped, zero);
    let (fault, done) = (b.create_block(), b.create_block());
    let sigs = Sigs::new(&mut b, ptr, call_conv);
    let layout = Layout::new(&module.kernel.body, shapes);
    let top = layout.words() as u32;
    let kernel = Scope { base: 0, layout, locals: &module.kernel.body.locals, params: &[], slices: Vec::new(), ret: None };
    let mut e = Emitter {
        b,
        module,
        shapes,
        sites,
        param_elems: module.kernel.params.iter().map(|p| param_elem(&p.kind)).collect(),
        elem_words: elem_words(module),
        uniform_index: uniform_words(module),
        uniform_words: 0,
        ptr,
        state,
        cx,
        uniforms,
        in_place,
        fault,
        done,
        clamped,
        sigs,
        ops: Vec::new(),
        top,
        frame_words: top,
        scopes: vec![kernel],
        loops: Vec::new(),
    };
    let blocks: Vec<Block> = machine.blocks.iter().map(|_| e.b.create_block()).collect();
    let mut switch = Switch::new();
    for (i, blk) in blocks.iter().enumerate() {
        switch.set_entry(i as u128, *blk);
    }
    switch.emit(&mut e.b, pc, done);
    for (mb, blk) in machine.blocks.iter().zip(&blocks) {
        e.b.switch_to_block(*blk);
        e.block(&mb.stmts)?;
        e.term(&mb.term, &blocks)?;
    }
    e.b.switch_to_block(done);
    let r = e.b.ins().iconst(types::I64, DONE as i64);
    e.set_pc(DONE as u32);
    e.b.ins().return_(&[r]);
    e.b.switch_to_block(fault);
    let r = e.b.ins().iconst(types::I64, FAULT as i64);
    e.b.ins().return_(&[r]);
    e.b.seal_all_blocks();
    let Emitter { b, frame_words, uniform_words, elem_words, ops, .. } = e;
    b.finalize(config);
    Ok(Built { frame_words: frame_words as usize, uniform_words, elem_words, ops })
}

/// Words per element of each memory, in `InPlace::slot` order (0 for a
/// uniform, which has none): the code multiplies by them as constants,
/// and `Jitted::fits` checks that each step's memories agree.
fn elem_words(module: &Module) -> Vec<u32> {
    let params = module.kernel.params.iter().map(|p| match p.kind {
        ParamKind::Uniform { .. } => 0,
        _ => param_elem(&p.kind).words(module),
    });
    params.chain(module.kernel.shared.iter().map(|s| s.elem.words(module))).collect()
}

/// The byte offset from the state of frame word `at`.
fn frame_at(at: u32) -> i32 {
    ((super::PC as u32 + at) * 4) as i32
}

/// The shims' signatures, imported once.
pub(super) struct Sigs {
    pub read: SigRef,
    pub write: SigRef,
    pub read_routed: SigRef,
    pub write_routed: SigRef,
    pub lands: SigRef,
    pub atomic: SigRef,
    pub index: SigRef,
    pub out_of_fuel: SigRef,
    pub op: SigRef,
}

impl Sigs {
    fn new(b: &mut FunctionBuilder, ptr: Ct, cc: CallConv) -> Sigs {
        use types::{I32, I64};
        let mut sig = |params: &[Ct], ret: Option<Ct>| {
            let mut s = Signature::new(cc);
            s.params.extend(params.iter().map(|t| AbiParam::new(*t)));
            s.returns.extend(ret.map(AbiParam::new));
            b.import_signature(s)
        };
        Sigs {
            read: sig(&[ptr, I32, I64, I32, I64], Some(I64)),
            write: sig(&[ptr, I32, I64, I32, I32, I64], Some(I64)),
            read_routed: sig(&[ptr, I32, I32, I32, I64], Some(I32)),
            write_routed: sig(&[ptr, I32, I32, I32, I64], None),
            lands: sig(&[ptr, I32, I64, I64], Some(I64)),
            atomic: sig(&[ptr, I32, I64, I32, I32, I32, I32, I32, I64], Some(I64)),
            index: sig(&[ptr, I64, I32, I64], Some(I64)),
            out_of_fuel: sig(&[ptr, I64], None),
            op: sig(&[ptr, I32, I32, I32], Some(I32)),
        }
    }
}

/// A function being compiled: the kernel, or a helper inlined at a call.
pub(super) struct Scope<'p> {
    /// Its frame's first word in the kernel's frame.
    pub base: u32,
    pub layout: Layout,
    pub locals: &'p [Local],
    /// A helper's parameters (none for the kernel).
    pub params: &'p [FnParam],
    /// The memory each slice parameter is bound to, by parameter index.
    pub slices: Vec<Option<Mem>>,
    /// A helper's exit, and where its return value goes.
    pub ret: Option<(Block, u32)>,
}

/// A word offset into the frame: a run-time part (a `u32` value), if
/// any, plus a constant.
#[derive(Clone, Copy)]
pub(super) struct Off {
    pub dynamic: Option<Value>,
    pub at: u32,
}

impl Off {
    pub fn at(at: u32) -> Off {
        Off { dynamic: None, at }
    }
}

pub(super) struct Emitter<'p, 'b> {
    pub b: FunctionBuilder<'b>,
    pub module: &'p Module,
    pub shapes: &'p Shapes,
    sites: &'p [(u32, u32)],
    /// Each kernel parameter's element type as places see it.
    pub param_elems: Vec<Type>,
    /// Words per element of each memory (`elem_words`).
    elem_words: Vec<u32>,
    /// Each kernel parameter's word in the uniform block.
    uniform_index: Vec<usize>,
    /// Words of the uniform block read, at most.
    uniform_words: usize,
    pub ptr: Ct,
    /// The invocation's state: its next block, then its frame
    /// (addressed `PC` words in: `frame_at`).
    state: Value,
    /// The step's `Cx`, the uniform block, and the memories in place.
    cx: Value,
    uniforms: Value,
    in_place: Value,
    /// Returns `FAULT`.
    fault: Block,
    /// Returns `DONE`.
    pub done: Block,
    /// The last place found had an index clamped under WGSL's rule: a
    /// write there is skipped (the interpreter's `Eval::clamped`).
    pub clamped: Variable,
    pub sigs: Sigs,
    #[allow(clippy::vec_box)]
    ops: Vec<Box<Op>>,
    /// The first frame word no temporary or inlined frame holds.
    top: u32,
    frame_words: u32,
    /// The kernel, then each helper being inlined into it.
    pub scopes: Vec<Scope<'p>>,
    /// Each enclosing loop: where `continue` and `break` go.
    pub loops: Vec<(Block, Block)>,
}

impl<'p> Emitter<'p, '_> {
    /// Where `span` stands in the source, as shims take it.
    pub fn site(&self, span: Span) -> u64 {
        abi::site_code(span.index().and_then(|i| self.sites.get(i)).copied().unwrap_or((0, 0)))
    }

    pub fn scope(&self) -> &Scope<'p> {
        self.scopes.last().expect("a function is being compiled")
    }

    /// The first frame word of local `id` of the current function, and its type.
    pub fn local(&self, id: LocalId) -> (u32, &'p Type) {
        let s = self.scope();
        (s.base + s.layout.offset(id), &s.locals[id].ty)
    }

    /// The memory `m` names here (a slice parameter: the one its call bound).
    pub fn mem(&self, m: MemRef) -> Mem {
        match m {
            MemRef::Param(i) => Mem::Storage(i),
            MemRef::Shared(i) => Mem::Shared(i),
            MemRef::FnSlice(i) => self.scope().slices[i].expect("slice parameter bound by the call"),
        }
    }

    /// The element type of memory `m`.
    pub fn mem_elem(&self, m: MemRef) -> &Type {
        match m {
            MemRef::Param(i) => &self.param_elems[i],
            MemRef::Shared(i) => &self.module.kernel.shared[i].elem,
            MemRef::FnSlice(i) => match &self.scope().params[i] {
                FnParam::Slice { elem, .. } => elem,
                FnParam::Value(_) => unreachable!("parameter {i} is not a slice"),
            },
        }
    }

    /// `words` frame words for a temporary, until `release`.
    pub fn temp(&mut self, words: u32) -> u32 {
        let at = self.top;
        self.top += words;
        self.frame_words = self.frame_words.max(self.top);
        at
    }

    /// The temporaries' top, to `release` to.
    pub fn mark(&self) -> u32 {
        self.top
    }

    pub fn release(&mut self, mark: u32) {
        self.top = mark;
    }

    fn frame_addr(&mut self, off: Off) -> Value {
        match off.dynamic {
            None => self.state,
            Some(d) => {
                let d = self.b.ins().uextend(types::I64, d);
                let d = self.b.ins().ishl_imm_u(d, 2);
                self.b.ins().iadd(self.state, d)
            }
        }
    }

    /// The frame word at `off`.
    pub fn load_frame(&mut self, off: Off) -> Value {
        let a = self.frame_addr(off);
        self.b.ins().load(types::I32, MemFlagsData::trusted(), a, frame_at(off.at))
    }

    pub fn store_frame(&mut self, off: Off, v: Value) {
        let a = self.frame_addr(off);
        self.b.ins().store(MemFlagsData::trusted(), v, a, frame_at(off.at));
    }

    /// Copies `k` words between frame offsets (forwards, as the
    /// interpreter's slice copies do for disjoint runs).
    pub fn copy_frame(&mut self, from: Off, to: Off, k: u32) {
        for j in 0..k {
            let v = self.load_frame(Off { at: from.at + j, ..from });
            self.store_frame(Off { at: to.at + j, ..to }, v);
        }
    }

    /// Zeroes `k` frame words from `at`.
    pub fn zero_frame(&mut self, at: u32, k: u32) {
        let z = self.b.ins().iconst(types::I32, 0);
        for j in 0..k {
            self.store_frame(Off::at(at + j), z);
        }
    }

    pub fn iconst(&mut self, v: u32) -> Value {
        self.b.ins().iconst(types::I32, v as i64)
    }

    /// Word `k` of the invocation's ids (`abi::id_offset`).
    pub fn id(&mut self, k: u32) -> Value {
        self.b.ins().load(types::I32, MemFlagsData::trusted(), self.cx, abi::id_offset(k) as i32)
    }

    /// Kernel parameter `i`'s word in the uniform block.
    pub fn uniform(&mut self, i: usize) -> Value {
        let w = self.uniform_index[i];
        self.uniform_words = self.uniform_words.max(w + 1);
        self.b.ins().load(types::I32, MemFlagsData::trusted(), self.uniforms, (w * 4) as i32)
    }

    /// Spends one iteration's fuel at `site`, or faults.
    pub fn tick(&mut self, site: u64) {
        let (cx, off) = (self.cx, abi::FUEL_OFFSET as i32);
        let fuel = self.b.ins().load(types::I64, MemFlagsData::trusted(), cx, off);
        let (ok, empty) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(fuel, ok, &[], empty, &[]);
        self.b.switch_to_block(empty);
        self.b.set_cold_block(empty);
        let s = self.b.ins().iconst(types::I64, site as i64);
        self.call(abi::out_of_fuel as *const (), self.sigs.out_of_fuel, &[s]);
        self.b.ins().jump(self.fault, &[]);
        self.b.switch_to_block(ok);
        let left = self.b.ins().iadd_imm_s(fuel, -1);
        self.b.ins().store(MemFlagsData::trusted(), left, cx, off);
    }

    /// Calls shim `f` (its address) with the step's `Cx` first.
    pub fn call(&mut self, f: *const (), sig: SigRef, args: &[Value]) -> Option<Value> {
        let callee = self.b.ins().iconst(self.ptr, f as usize as i64);
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(self.cx);
        all.extend_from_slice(args);
        let inst = self.b.ins().call_indirect(sig, callee, &all);
        self.b.inst_results(inst).first().copied()
    }

    /// A fallible shim's call: its word, or on to `FAULT`.
    pub fn checked(&mut self, f: *const (), sig: SigRef, args: &[Value]) -> Value {
        let r = self.call(f, sig, args).expect("a fallible shim returns its result");
        self.unless_fault(r);
        self.b.ins().ireduce(types::I32, r)
    }

    /// Goes on to `FAULT` where shim result `r` has its fault bit.
    pub fn unless_fault(&mut self, r: Value) {
        let f = self.b.ins().ushr_imm_u(r, 32);
        let f = self.b.ins().band_imm_u(f, 1);
        let ok = self.b.create_block();
        self.b.ins().brif(f, self.fault, &[], ok, &[]);
        self.b.switch_to_block(ok);
    }

    /// Branches on whether word `inner` of element `index` (an `i64`) of
    /// `mem` is reached in place (`InPlace`): in bounds, of a memory `Cx`
    /// does not route, as `Cx::word` and `read_in_place` decide. On to
    /// the word's address, where it is; to `slow` otherwise.
    pub fn in_place(&mut self, mem: Mem, index: Value, inner: Value, slow: Block) -> Value {
        let w = self.word_below(mem, offset_of!(InPlace, bound), index, inner, slow);
        let words = self.in_place_field(mem, offset_of!(InPlace, words), self.ptr);
        let w = self.b.ins().uextend(types::I64, w);
        let w = self.b.ins().ishl_imm_u(w, 2);
        self.b.ins().iadd(words, w)
    }

    /// After `in_place` sent an access to its `slow` block: where the
    /// element is in bounds (so `Cx` routes the memory), on to the word's
    /// index in the memory, for `Cx::routed_read` or `routed_write`; to
    /// `out` otherwise, where `Cx` decides (a fault, or WGSL's rule).
    pub fn routed(&mut self, mem: Mem, index: Value, inner: Value, out: Block) -> Value {
        self.word_below(mem, offset_of!(InPlace, len), index, inner, out)
    }

    /// Where `index` is below the `InPlace` field at `limit` (a bound or
    /// a length), on to word `inner` of that element, as a word index in
    /// the memory; to `outside` (made cold) otherwise.
    fn word_below(&mut self, mem: Mem, limit: usize, index: Value, inner: Value, outside: Block) -> Value {
        let limit = self.in_place_field(mem, limit, types::I32);
        let limit = self.b.ins().uextend(types::I64, limit);
        let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, index, limit);
        let below = self.b.create_block();
        self.b.ins().brif(inside, below, &[], outside, &[]);
        self.b.set_cold_block(outside);
        self.b.switch_to_block(below);
        let ew = self.elem_words[InPlace::slot(mem, self.module.kernel.params.len())];
        let i = self.b.ins().ireduce(types::I32, index);
        let w = self.b.ins().imul_imm_u(i, ew as i64);
        self.b.ins().iadd(w, inner)
    }

    /// A field of memory `mem`'s `InPlace`, which holds for the step.
    fn in_place_field(&mut self, mem: Mem, field: usize, ty: Ct) -> Value {
        let slot = InPlace::slot(mem, self.module.kernel.params.len());
        let at = slot * std::mem::size_of::<InPlace>() + field;
        self.b.ins().load(ty, MemFlagsData::trusted().with_readonly(), self.in_place, at as i32)
    }

    /// A memory's length in elements (`Cx::len`).
    pub fn mem_len(&mut self, mem: Mem) -> Value {
        self.in_place_field(mem, offset_of!(InPlace, len), types::I32)
    }

    /// An out-of-line operation's descriptor, as the `op` shim takes it.
    pub fn op(&mut self, op: Op, args: [Value; 3]) -> Value {
        let op = Box::new(op);
        let p = self.b.ins().iconst(self.ptr, &*op as *const Op as i64);
        self.ops.push(op);
        let callee = self.b.ins().iconst(self.ptr, abi::op as *const () as usize as i64);
        let inst = self.b.ins().call_indirect(self.sigs.op, callee, &[p, args[0], args[1], args[2]]);
        self.b.inst_results(inst)[0]
    }

    /// After a jump: code that follows it is unreachable, and goes into a
    /// block of its own.
    pub fn unreachable_after(&mut self) {
        let dead = self.b.create_block();
        self.b.switch_to_block(dead);
    }

    /// Where the invocation goes on at its next step: block `pc` (or
    /// nowhere, `DONE`).
    fn set_pc(&mut self, pc: u32) {
        let pc = self.iconst(pc);
        self.b.ins().store(MemFlagsData::trusted(), pc, self.state, 0);
    }

    /// A kernel block's terminator.
    fn term(&mut self, term: &Term, blocks: &[Block]) -> Result<(), Unsupported> {
        match term {
            Term::Return => {
                self.b.ins().jump(self.done, &[]);
            }
            Term::Goto(t) => {
                self.b.ins().jump(blocks[*t], &[]);
            }
            Term::Branch(c, a, b, tick) => {
                if let Some(span) = tick {
                    let s = self.site(*span);
                    self.tick(s);
                }
                let c = self.scalar(c)?;
                self.b.ins().brif(c, blocks[*a], &[], blocks[*b], &[]);
            }
            Term::Barrier(kind, next, id, _) => {
                self.set_pc(*next as u32);
                let r = Stop::code((*kind).into(), *id as u32);
                let r = self.b.ins().iconst(types::I64, r as i64);
                self.b.ins().return_(&[r]);
            }
        }
        Ok(())
    }
}
