//! Places, as the interpreter finds them (`interp/place.rs`): a local
//! projects to a word offset in the frame, a memory element to `(mem,
//! index, inner)` for `Cx`. Field and component offsets are constants;
//! each array index inside a value is checked inline, and only one out of
//! bounds calls `Cx::index` (a fault, or under WGSL's rule the last
//! element, and a write there skipped).

use super::abi;
use super::emit::{Emitter, Off};
use super::Unsupported;
use crate::cpu::interp::frame::{self, Step};
use crate::cpu::twin::Mem;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, BlockArg, InstBuilder, MemFlagsData, Value};
use ld_compiler::ir::{Expr, Place, Proj, Root, Type};
use ld_compiler::Span;

type R<T> = Result<T, Unsupported>;

/// Where a place's words are.
#[derive(Clone, Copy)]
pub(super) enum Loc {
    /// From this word of the frame.
    Local(Off),
    /// Element `index` (an `i64`) of `mem`, `inner` words (a `u32`) into it.
    Mem { mem: Mem, index: Value, inner: Value },
}

impl<'p> Emitter<'p, '_> {
    /// An index expression widened as the twin widens it: an `i32`
    /// sign-extended, a `u32` not, so a negative index is out of bounds.
    pub fn index(&mut self, e: &Expr) -> R<Value> {
        let w = self.scalar(e)?;
        Ok(if e.ty == Type::I32 { self.b.ins().sextend(types::I64, w) } else { self.b.ins().uextend(types::I64, w) })
    }

    /// The place's location, and its type; `site` is the access's.
    pub fn place(&mut self, p: &Place, site: u64) -> R<(Loc, Type)> {
        let zero = self.iconst(0);
        self.b.def_var(self.clamped, zero);
        match &p.root {
            Root::Local(id) => {
                let (base, ty) = self.local(*id);
                let (off, ty) = self.path(&p.path, ty.clone(), site)?;
                Ok((Loc::Local(Off { dynamic: off.dynamic, at: base + off.at }), ty))
            }
            Root::Mem { mem, index, .. } => {
                let elem = self.mem_elem(*mem).clone();
                let m = self.mem(*mem);
                let index = self.index(index)?;
                let (off, ty) = self.path(&p.path, elem, site)?;
                let inner = match off.dynamic {
                    Some(d) => self.b.ins().iadd_imm_s(d, off.at as i64),
                    None => self.iconst(off.at),
                };
                Ok((Loc::Mem { mem: m, index, inner }, ty))
            }
        }
    }

    /// The path's offset from a value of type `ty` (`frame::steps`), its
    /// indices evaluated and checked left to right, and the type it reaches.
    fn path(&mut self, path: &[Proj], ty: Type, site: u64) -> R<(Off, Type)> {
        let module = self.module;
        let (steps, ty) = frame::steps(self.shapes, module, path, &ty);
        let mut off = Off::at(0);
        for s in steps {
            match s {
                Step::Skip(k) => off.at = off.at.wrapping_add(k),
                Step::Index { index, len, stride } => {
                    let k = self.element(index, len, site)?;
                    let k = self.b.ins().imul_imm_u(k, stride as i64);
                    off.dynamic = Some(match off.dynamic {
                        Some(d) => self.b.ins().iadd(d, k),
                        None => k,
                    });
                }
            }
        }
        Ok((off, ty.clone()))
    }

    /// Index `i` of an array of `n` elements inside a value: itself in
    /// bounds; past them, what `Cx::index` says.
    fn element(&mut self, i: &Expr, n: u32, site: u64) -> R<Value> {
        let i = self.index(i)?;
        let inside = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, i, n as i64);
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        let k = self.b.append_block_param(join, types::I32);
        let fast = self.b.ins().ireduce(types::I32, i);
        self.b.ins().brif(inside, join, &[BlockArg::Value(fast)], slow, &[]);
        self.b.switch_to_block(slow);
        self.b.set_cold_block(slow);
        let (len, at) = (self.iconst(n), self.b.ins().iconst(types::I64, site as i64));
        let r = self.call(abi::index as *const (), self.sigs.index, &[i, len, at]).expect("index returns a word");
        self.unless_fault(r);
        let clamped = self.b.ins().ushr_imm_u(r, 33);
        let clamped = self.b.ins().ireduce(types::I32, clamped);
        let before = self.b.use_var(self.clamped);
        let now = self.b.ins().bor(before, clamped);
        self.b.def_var(self.clamped, now);
        let slow_k = self.b.ins().ireduce(types::I32, r);
        self.b.ins().jump(join, &[BlockArg::Value(slow_k)]);
        self.b.switch_to_block(join);
        Ok(k)
    }

    /// A scalar place's word, read at the load's span.
    pub fn load_word(&mut self, p: &Place, span: Span) -> R<Value> {
        let site = self.site(span);
        if let (Root::Local(id), true) = (&p.root, p.path.is_empty()) {
            let (off, _) = self.local(*id);
            return Ok(self.load_frame(Off::at(off)));
        }
        let (loc, _) = self.place(p, site)?;
        Ok(self.read(loc, settled(p), site))
    }

    /// A place's words into the frame from `at`: memory one word at a time.
    pub fn load_into(&mut self, p: &Place, span: Span, at: u32) -> R<()> {
        let site = self.site(span);
        let (loc, ty) = self.place(p, site)?;
        let k = self.shapes.words(&ty);
        match loc {
            Loc::Local(from) => self.copy_frame(from, Off::at(at), k),
            Loc::Mem { mem, index, inner } => {
                for j in 0..k {
                    let inner = self.b.ins().iadd_imm_s(inner, j as i64);
                    let w = self.read(Loc::Mem { mem, index, inner }, settled(p), site);
                    self.store_frame(Off::at(at + j), w);
                }
            }
        }
        Ok(())
    }

    /// One word; a settled read through `Cx::read_settled`.
    pub fn read(&mut self, loc: Loc, settled: bool, site: u64) -> Value {
        match loc {
            Loc::Local(off) => self.load_frame(off),
            Loc::Mem { mem, index, inner } => {
                let f = if settled { abi::read_settled as *const () } else { abi::read as *const () };
                let (slow, join) = (self.b.create_block(), self.b.create_block());
                let addr = self.in_place(mem, index, inner, slow);
                let r = self.b.append_block_param(join, types::I32);
                let w = self.b.ins().load(types::I32, MemFlagsData::trusted(), addr, 0);
                self.b.ins().jump(join, &[BlockArg::Value(w)]);
                self.b.switch_to_block(slow);
                let out = self.b.create_block();
                let word = self.routed(mem, index, inner, out);
                let (m, settled, at) = (self.iconst(abi::mem_code(mem)), self.iconst(settled as u32), self.b.ins().iconst(types::I64, site as i64));
                let w = self.call(abi::read_routed as *const (), self.sigs.read_routed, &[m, word, settled, at]).expect("a read returns its word");
                self.b.ins().jump(join, &[BlockArg::Value(w)]);
                self.b.switch_to_block(out);
                let w = self.read_shim(f, mem, index, inner, site);
                self.b.ins().jump(join, &[BlockArg::Value(w)]);
                self.b.switch_to_block(join);
                r
            }
        }
    }

    fn read_shim(&mut self, f: *const (), mem: Mem, index: Value, inner: Value, site: u64) -> Value {
        let (m, at) = (self.iconst(abi::mem_code(mem)), self.b.ins().iconst(types::I64, site as i64));
        self.checked(f, self.sigs.read, &[m, index, inner, at])
    }

    /// One word written to memory: in place where it can be, else `Cx::write`.
    fn write_word(&mut self, mem: Mem, index: Value, inner: Value, w: Value, site: u64) {
        let (slow, join) = (self.b.create_block(), self.b.create_block());
        let addr = self.in_place(mem, index, inner, slow);
        self.b.ins().store(MemFlagsData::trusted(), w, addr, 0);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(slow);
        let (m, at) = (self.iconst(abi::mem_code(mem)), self.b.ins().iconst(types::I64, site as i64));
        let out = self.b.create_block();
        let word = self.routed(mem, index, inner, out);
        self.call(abi::write_routed as *const (), self.sigs.write_routed, &[m, word, w, at]);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(out);
        self.checked(abi::write as *const (), self.sigs.write, &[m, index, inner, w, at]);
        self.b.ins().jump(join, &[]);
        self.b.switch_to_block(join);
    }

    /// Whether a write at `loc`, just placed, goes ahead (`Cx::lands`), as a bool word.
    pub fn lands(&mut self, loc: Loc, site: u64) -> Value {
        let clamped = self.b.use_var(self.clamped);
        let placed = self.b.ins().icmp_imm_s(IntCC::Equal, clamped, 0);
        let placed = self.b.ins().uextend(types::I32, placed);
        match loc {
            Loc::Local(_) => placed,
            Loc::Mem { mem, index, .. } => {
                // `Cx::lands` is asked only of a place that was not clamped.
                let (ask, join) = (self.b.create_block(), self.b.create_block());
                let r = self.b.append_block_param(join, types::I32);
                self.b.ins().brif(placed, ask, &[], join, &[BlockArg::Value(placed)]);
                self.b.switch_to_block(ask);
                // In bounds, it lands; past them, `Cx::lands` says.
                let n = self.mem_len(mem);
                let n = self.b.ins().uextend(types::I64, n);
                let inside = self.b.ins().icmp(IntCC::UnsignedLessThan, index, n);
                let (one, slow) = (self.iconst(1), self.b.create_block());
                self.b.ins().brif(inside, join, &[BlockArg::Value(one)], slow, &[]);
                self.b.switch_to_block(slow);
                self.b.set_cold_block(slow);
                let (m, at) = (self.iconst(abi::mem_code(mem)), self.b.ins().iconst(types::I64, site as i64));
                let lands = self.checked(abi::lands as *const (), self.sigs.lands, &[m, index, at]);
                self.b.ins().jump(join, &[BlockArg::Value(lands)]);
                self.b.switch_to_block(join);
                r
            }
        }
    }

    /// Writes `k` words at `loc`, from the frame at `from` or as `word`
    /// (one), unless its place was clamped.
    pub fn write(&mut self, loc: Loc, words: Words, site: u64) {
        let clamped = self.b.use_var(self.clamped);
        let (go, skip) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(clamped, skip, &[], go, &[]);
        self.b.switch_to_block(go);
        let k = match words {
            Words::One(_) => 1,
            Words::Frame(_, k) => k,
        };
        for j in 0..k {
            let w = match words {
                Words::One(w) => w,
                Words::Frame(from, _) => self.load_frame(Off::at(from + j)),
            };
            match loc {
                Loc::Local(off) => self.store_frame(Off { at: off.at + j, ..off }, w),
                Loc::Mem { mem, index, inner } => {
                    let inner = self.b.ins().iadd_imm_s(inner, j as i64);
                    self.write_word(mem, index, inner, w, site);
                }
            }
        }
        self.b.ins().jump(skip, &[]);
        self.b.switch_to_block(skip);
    }
}

/// The words a write stores.
#[derive(Clone, Copy)]
pub(super) enum Words {
    One(Value),
    /// `k` frame words from the first.
    Frame(u32, u32),
}

/// Whether a load of `p` is a settled read (`analysis::settled`).
fn settled(p: &Place) -> bool {
    matches!(p.root, Root::Mem { settled: true, .. })
}
