//! What a kernel's generated CPU twin sees: `Cx`, the invocation's view of
//! its ids and of memory. Every access goes through `Cx` so that it is
//! bounds-checked (as the generated WGSL checks itself) and so the executor decides
//! which words back each buffer.

// The CPU twin's plumbing: reached by `#[ld::kernel]` expansions through the hidden
// `__private` module, not part of the documented API.
#![allow(missing_docs)]

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// One invocation of a kernel's twin, suspended between `step`s.
pub trait Invocation: Send {
    /// Runs until the next barrier or the end of the kernel.
    fn step(&mut self, cx: &mut Cx<'_>) -> Result<Yield, Fault>;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// Waiting at barrier `id` (ids are unique per barrier in the kernel).
    Barrier {
        kind: BarrierKind,
        id: u32,
    },
    Done,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarrierKind {
    Workgroup,
    Storage,
}

impl From<ld_compiler::ir::BarrierKind> for BarrierKind {
    fn from(k: ld_compiler::ir::BarrierKind) -> Self {
        match k {
            ld_compiler::ir::BarrierKind::Workgroup => BarrierKind::Workgroup,
            ld_compiler::ir::BarrierKind::Storage => BarrierKind::Storage,
        }
    }
}

/// Which memory an access addresses: a buffer (by kernel parameter index)
/// or a workgroup array (by declaration index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mem {
    Storage(usize),
    Shared(usize),
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct UVec3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl UVec3 {
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        UVec3 { x, y, z }
    }
}

/// The builtin ids of one invocation.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ids {
    pub global_id: UVec3,
    pub local_id: UVec3,
    pub workgroup_id: UVec3,
    pub num_workgroups: UVec3,
    pub local_index: u32,
    pub workgroup_size: UVec3,
}

/// A buffer as the executor binds it: words shared by all workgroups.
#[derive(Clone, Copy)]
pub struct StorageView<'a> {
    pub words: &'a [AtomicU32],
    pub elem_words: u32,
    /// Length in elements.
    pub len: u32,
}

/// One workgroup array of one workgroup.
pub struct SharedMem {
    pub words: Vec<u32>,
    pub elem_words: u32,
    pub len: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Load,
    Store,
    Add,
    Sub,
    Max,
    Min,
    And,
    Or,
    Xor,
    Exchange,
    CompareExchange,
}

impl From<ld_compiler::ir::AtomicOp> for AtomicOp {
    fn from(op: ld_compiler::ir::AtomicOp) -> Self {
        use ld_compiler::ir::AtomicOp as A;
        match op {
            A::Load => AtomicOp::Load,
            A::Store => AtomicOp::Store,
            A::Add => AtomicOp::Add,
            A::Sub => AtomicOp::Sub,
            A::Max => AtomicOp::Max,
            A::Min => AtomicOp::Min,
            A::And => AtomicOp::And,
            A::Or => AtomicOp::Or,
            A::Xor => AtomicOp::Xor,
            A::Exchange => AtomicOp::Exchange,
            A::CompareExchange => AtomicOp::CompareExchange,
        }
    }
}

/// Why an invocation stopped. `site` is the kernel source (line, column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    OutOfBounds {
        mem: Option<Mem>,
        index: i64,
        len: u32,
        site: (u32, u32),
    },
    /// The loop at `site` was to start an iteration with no fuel left.
    OutOfFuel {
        site: (u32, u32),
    },
}

/// Check and deterministic modes: the memories the engine privatizes, as
/// the running invocation sees them (its warp's copy, in its pass).
pub trait Targets {
    /// The invocation whose accesses follow (by local index).
    fn enter(&mut self, local_index: u32);
    /// Whether accesses to `mem` go through the engine.
    fn owns(&self, mem: Mem) -> bool;
    fn read(&mut self, mem: Mem, word: u32) -> u32;
    /// A read no write of its memory can meet in its epoch (the macro's
    /// `analysis::settled`): the warp's copy, without tags.
    fn read_settled(&mut self, mem: Mem, word: u32) -> u32;
    fn write(&mut self, mem: Mem, word: u32, value: u32);
}

/// Access monitoring (exact mode, and the source re-run of a check): told
/// every access to a kernel memory with its source site, as it happens.
pub trait Monitor {
    /// The invocation whose accesses follow (by local index).
    fn enter(&mut self, local_index: u32);
    /// Whether it is told the accesses to `mem` at all (asked once per
    /// workgroup and region: `Routed`).
    fn watches(&self, mem: Mem) -> bool {
        let _ = mem;
        true
    }
    /// `words` words from `word` of `mem`, read or written at `site`.
    fn access(&mut self, mem: Mem, word: u32, words: u32, write: bool, site: (u32, u32));
}

/// The memories whose accesses a `Cx` routes through its monitor or its
/// targets (`Monitor::watches`, `Targets::owns`, asked once per workgroup
/// and region), a bit per parameter and per workgroup array (those past 64
/// always): the others it reads and writes in place, inline. (Routed
/// through both at every access, every read of a tile would be a call,
/// most of the cost of a tight loop in the CPU twin.)
#[derive(Clone, Copy, Default)]
pub(crate) struct Routed([u64; 2]);

impl Routed {
    pub(crate) fn of(targets: Option<&dyn Targets>, monitor: Option<&dyn Monitor>, params: usize, arrays: usize) -> Routed {
        let routed = |mem: Mem| targets.is_some_and(|t| t.owns(mem)) || monitor.is_some_and(|m| m.watches(mem));
        let mask = |n: usize, mem: fn(usize) -> Mem| (0..n.min(64)).filter(|&i| routed(mem(i))).fold(0u64, |b, i| b | 1 << i);
        Routed([mask(params, Mem::Storage), mask(arrays, Mem::Shared)])
    }

    #[inline]
    fn has(self, mem: Mem) -> bool {
        let (mask, i) = match mem {
            Mem::Storage(i) => (self.0[0], i),
            Mem::Shared(i) => (self.0[1], i),
        };
        i >= 64 || mask >> i & 1 != 0
    }
}

/// A memory's words as code outside `Cx` (a loaded kernel's native code)
/// reads and writes them in place: the words `Cx::read_in_place` and
/// `Cx::write_in_place` touch. `repr(C)`: that code reads the fields at
/// their offsets.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct InPlace {
    pub words: *mut u32,
    /// Elements reached in place: the memory's length, or 0 where `Cx`
    /// routes its accesses (so every access goes through `Cx`).
    pub bound: u32,
    /// The memory's length in elements (`Cx::len`).
    pub len: u32,
    pub elem_words: u32,
}

impl InPlace {
    /// Memory `mem`'s place in `Region::in_place` for a kernel of
    /// `params` parameters: the buffers, then the workgroup arrays.
    pub(crate) fn slot(mem: Mem, params: usize) -> usize {
        match mem {
            Mem::Storage(i) => i,
            Mem::Shared(i) => params + i,
        }
    }
}

/// What the invocations of one workgroup share through one region (from
/// a barrier to the next): which memories `Cx` routes, and every memory's
/// words in place. Made once per region, since neither changes inside one
/// (and made per step, they cost a loaded kernel more than its work).
pub(crate) struct Region {
    routed: Routed,
    in_place: Vec<InPlace>,
}

impl Region {
    pub(crate) fn new(targets: Option<&dyn Targets>, monitor: Option<&dyn Monitor>, storage: &[Option<StorageView<'_>>], shared: &mut [SharedMem]) -> Region {
        let routed = Routed::of(targets, monitor, storage.len(), shared.len());
        let place = |mem: Mem, words: *mut u32, len: u32, elem_words: u32| InPlace { words, bound: if routed.has(mem) { 0 } else { len }, len, elem_words };
        let buffers = storage.iter().enumerate().map(|(i, v)| match v {
            // An `AtomicU32` has `u32`'s layout; a relaxed access is a
            // plain one on every target the code is made for.
            Some(v) => place(Mem::Storage(i), v.words.as_ptr() as *mut u32, v.len, v.elem_words),
            None => place(Mem::Storage(i), std::ptr::null_mut(), 0, 1),
        });
        let arrays = shared.iter_mut().enumerate().map(|(i, a)| place(Mem::Shared(i), a.words.as_mut_ptr(), a.len, a.elem_words));
        Region { routed, in_place: buffers.chain(arrays).collect() }
    }

    pub(crate) fn in_place(&self) -> &[InPlace] {
        &self.in_place
    }
}

pub struct Cx<'a> {
    pub ids: Ids,
    pub(crate) storage: &'a [Option<StorageView<'a>>],
    pub(crate) shared: &'a mut [SharedMem],
    pub(crate) uniforms: &'a [u32],
    pub(crate) fuel: u64,
    pub(crate) targets: Option<&'a mut dyn Targets>,
    pub(crate) monitor: Option<&'a mut dyn Monitor>,
    routed: Routed,
    /// Every memory's words in place (`Region`).
    pub(crate) in_place: &'a [InPlace],
    /// An index out of bounds goes on as WGSL's rule says (`Bounds::Clamp`:
    /// a read gives the last element, a write or an atomic is skipped)
    /// instead of faulting.
    clamp: bool,
    /// The invocation's first index out of bounds, under `clamp`, where it
    /// had none in an earlier step (`quiet` says it had).
    pub(crate) noted: Option<Fault>,
    quiet: bool,
    /// Where a step that cannot return its fault (native code, whose
    /// shims call `Cx`) leaves it for its caller.
    pub(crate) fault: Option<Fault>,
}

/// A value that lives in memory as consecutive 32-bit words.
pub trait Words: Copy {
    const WORDS: u32;
    fn from_words<F: FnMut(u32) -> u32>(f: &mut F) -> Self;
    fn to_words<F: FnMut(u32, u32)>(&self, f: &mut F);
    /// Names word `word` (< `WORDS`) of a value of this type as the path
    /// that reaches it, appended to `out`: `.mass`, `[1]`, `.pos[1]`;
    /// nothing for a scalar. Reports name racing words with it.
    fn place(word: u32, out: &mut String) {
        let _ = (word, out);
    }
}

impl Words for u32 {
    const WORDS: u32 = 1;
    #[inline]
    fn from_words<F: FnMut(u32) -> u32>(f: &mut F) -> Self {
        f(0)
    }
    #[inline]
    fn to_words<F: FnMut(u32, u32)>(&self, f: &mut F) {
        f(0, *self)
    }
}

impl Words for i32 {
    const WORDS: u32 = 1;
    #[inline]
    fn from_words<F: FnMut(u32) -> u32>(f: &mut F) -> Self {
        f(0) as i32
    }
    #[inline]
    fn to_words<F: FnMut(u32, u32)>(&self, f: &mut F) {
        f(0, *self as u32)
    }
}

impl Words for f32 {
    const WORDS: u32 = 1;
    #[inline]
    fn from_words<F: FnMut(u32) -> u32>(f: &mut F) -> Self {
        f32::from_bits(f(0))
    }
    #[inline]
    fn to_words<F: FnMut(u32, u32)>(&self, f: &mut F) {
        f(0, self.to_bits())
    }
}

impl<T: Words, const N: usize> Words for [T; N] {
    const WORDS: u32 = T::WORDS * N as u32;
    fn from_words<F: FnMut(u32) -> u32>(f: &mut F) -> Self {
        std::array::from_fn(|i| T::from_words(&mut |k| f(i as u32 * T::WORDS + k)))
    }
    fn to_words<F: FnMut(u32, u32)>(&self, f: &mut F) {
        for (i, x) in self.iter().enumerate() {
            x.to_words(&mut |k, w| f(i as u32 * T::WORDS + k, w));
        }
    }
    fn place(word: u32, out: &mut String) {
        use std::fmt::Write;
        let each = T::WORDS.max(1);
        let _ = write!(out, "[{}]", word / each);
        T::place(word % each, out);
    }
}

/// Zero value of any kernel type (WGSL zero-initialises variables).
#[inline]
pub fn zeroed<T: bytemuck::Zeroable>() -> T {
    T::zeroed()
}

/// Bounds check for arrays inside locals or buffer elements.
#[inline]
pub fn idx(i: i64, n: u32, site: (u32, u32)) -> Result<usize, Fault> {
    if i >= 0 && i < n as i64 {
        Ok(i as usize)
    } else {
        Err(Fault::OutOfBounds { mem: None, index: i, len: n, site })
    }
}

impl<'a> Cx<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        ids: Ids,
        storage: &'a [Option<StorageView<'a>>],
        shared: &'a mut [SharedMem],
        uniforms: &'a [u32],
        fuel: u64,
        targets: Option<&'a mut dyn Targets>,
        monitor: Option<&'a mut dyn Monitor>,
        region: &'a Region,
    ) -> Self {
        let (routed, in_place) = (region.routed, &region.in_place[..]);
        Cx { ids, storage, shared, uniforms, fuel, targets, monitor, routed, in_place, clamp: false, noted: None, quiet: false, fault: None }
    }

    /// Indices out of bounds go on under WGSL's rule (`clamp`), and
    /// whether the invocation already noted one (`quiet`).
    pub(crate) fn bounds(mut self, clamp: bool, quiet: bool) -> Self {
        (self.clamp, self.quiet) = (clamp, quiet);
        self
    }

    /// Index `i` of an array of `n` elements inside a value (a local, or
    /// an element of memory): in bounds, itself; past the end, a fault, or
    /// under WGSL's rule the last element, noted, and `true` (a write
    /// there is skipped).
    pub(crate) fn index(&mut self, i: i64, n: u32, site: (u32, u32)) -> Result<(u32, bool), Fault> {
        match idx(i, n, site) {
            Ok(k) => Ok((k as u32, false)),
            Err(f) if self.clamp => {
                self.note(f);
                Ok((n.saturating_sub(1), true))
            }
            Err(f) => Err(f),
        }
    }

    /// Keeps the invocation's first index out of bounds.
    #[cold]
    fn note(&mut self, f: Fault) {
        if self.noted.is_none() && !self.quiet {
            self.noted = Some(f);
        }
    }

    pub(crate) fn fuel_left(&self) -> u64 {
        self.fuel
    }

    /// Counts one loop iteration (the loop at `site` starts one); runs out
    /// on non-terminating kernels.
    #[inline]
    pub fn tick(&mut self, site: (u32, u32)) -> Result<(), Fault> {
        if self.fuel == 0 {
            return Err(Fault::OutOfFuel { site });
        }
        self.fuel -= 1;
        Ok(())
    }

    #[inline]
    pub fn uniform(&self, word: usize) -> u32 {
        self.uniforms[word]
    }

    #[inline]
    pub fn len(&self, mem: Mem) -> u32 {
        match mem {
            Mem::Storage(i) => self.view(i).len,
            Mem::Shared(i) => self.shared[i].len,
        }
    }

    #[inline]
    fn view(&self, i: usize) -> &StorageView<'a> {
        self.storage[i].as_ref().expect("storage parameter is bound")
    }

    /// First word of element `index`, `inner` words in, if in bounds.
    /// Past the end under WGSL's rule: for a read (`write` false), the
    /// last element's; for a write or an atomic, `None` (it is skipped).
    #[inline]
    fn word(&mut self, mem: Mem, index: i64, inner: u32, site: (u32, u32), write: bool) -> Result<Option<usize>, Fault> {
        let (len, ew) = match mem {
            Mem::Storage(i) => {
                let v = self.view(i);
                (v.len, v.elem_words)
            }
            Mem::Shared(i) => (self.shared[i].len, self.shared[i].elem_words),
        };
        let mut index = index;
        if index < 0 || index >= len as i64 {
            let f = Fault::OutOfBounds { mem: Some(mem), index, len, site };
            if !self.clamp {
                return Err(f);
            }
            self.note(f);
            if write {
                return Ok(None);
            }
            index = len as i64 - 1;
        }
        Ok(Some(index as usize * ew as usize + inner as usize))
    }

    /// Whether a write to element `index` of `mem` goes ahead: in bounds;
    /// past the end, a fault, or under WGSL's rule noted and skipped.
    pub(crate) fn lands(&mut self, mem: Mem, index: i64, site: (u32, u32)) -> Result<bool, Fault> {
        Ok(self.word(mem, index, 0, site, true)?.is_some())
    }

    #[inline]
    pub fn read<T: Words>(&mut self, mem: Mem, index: i64, inner: u32, site: (u32, u32)) -> Result<T, Fault> {
        self.read_as(mem, index, inner, site, false)
    }

    /// A settled read (see [`Targets::read_settled`]).
    #[inline]
    pub fn read_settled<T: Words>(&mut self, mem: Mem, index: i64, inner: u32, site: (u32, u32)) -> Result<T, Fault> {
        self.read_as(mem, index, inner, site, true)
    }

    #[inline(always)]
    fn read_as<T: Words>(&mut self, mem: Mem, index: i64, inner: u32, site: (u32, u32), settled: bool) -> Result<T, Fault> {
        let w = self.word(mem, index, inner, site, false)?.expect("a read always has a word");
        if self.routed.has(mem) {
            return Ok(self.read_routed(mem, w, site, settled));
        }
        Ok(self.read_in_place(mem, w))
    }

    /// A read the monitor is told of, or the targets make: out of line,
    /// so the twin's loops stay small.
    #[inline(never)]
    fn read_routed<T: Words>(&mut self, mem: Mem, w: usize, site: (u32, u32), settled: bool) -> T {
        self.routed_read(mem, w, site, settled)
    }

    /// `read_routed`'s body, for callers that are out of line themselves
    /// (native code's shims).
    #[inline(always)]
    pub(crate) fn routed_read<T: Words>(&mut self, mem: Mem, w: usize, site: (u32, u32), settled: bool) -> T {
        if let Some(m) = self.monitor.as_deref_mut() {
            m.access(mem, w as u32, T::WORDS, false, site);
        }
        if let Some(t) = self.targets.as_deref_mut().filter(|t| t.owns(mem)) {
            if settled {
                return T::from_words(&mut |k| t.read_settled(mem, w as u32 + k));
            }
            return T::from_words(&mut |k| t.read(mem, w as u32 + k));
        }
        self.read_in_place(mem, w)
    }

    #[inline(always)]
    fn read_in_place<T: Words>(&self, mem: Mem, w: usize) -> T {
        match mem {
            Mem::Storage(i) => {
                let words = self.view(i).words;
                T::from_words(&mut |k| words[w + k as usize].load(Relaxed))
            }
            Mem::Shared(i) => {
                let words = &self.shared[i].words;
                T::from_words(&mut |k| words[w + k as usize])
            }
        }
    }

    #[inline(always)]
    pub fn write<T: Words>(&mut self, mem: Mem, index: i64, inner: u32, value: T, site: (u32, u32)) -> Result<(), Fault> {
        let Some(w) = self.word(mem, index, inner, site, true)? else {
            return Ok(());
        };
        if self.routed.has(mem) {
            self.write_routed(mem, w, value, site);
            return Ok(());
        }
        self.write_in_place(mem, w, value);
        Ok(())
    }

    /// A write the monitor is told of, or the targets take: out of line,
    /// so the twin's loops stay small.
    #[inline(never)]
    fn write_routed<T: Words>(&mut self, mem: Mem, w: usize, value: T, site: (u32, u32)) {
        self.routed_write(mem, w, value, site)
    }

    /// `write_routed`'s body, for callers that are out of line themselves
    /// (native code's shims).
    #[inline(always)]
    pub(crate) fn routed_write<T: Words>(&mut self, mem: Mem, w: usize, value: T, site: (u32, u32)) {
        if let Some(m) = self.monitor.as_deref_mut() {
            m.access(mem, w as u32, T::WORDS, true, site);
        }
        if let Some(t) = self.targets.as_deref_mut().filter(|t| t.owns(mem)) {
            value.to_words(&mut |k, x| t.write(mem, w as u32 + k, x));
            return;
        }
        self.write_in_place(mem, w, value);
    }

    #[inline(always)]
    fn write_in_place<T: Words>(&mut self, mem: Mem, w: usize, value: T) {
        match mem {
            Mem::Storage(i) => {
                let words = self.view(i).words;
                value.to_words(&mut |k, x| words[w + k as usize].store(x, Relaxed));
            }
            Mem::Shared(i) => {
                let words = &mut self.shared[i].words;
                value.to_words(&mut |k, x| words[w + k as usize] = x);
            }
        }
    }

    /// An atomic read-modify-write on one word; returns the old value
    /// (`Store` returns 0). `signed` selects `i32` ordering for min/max.
    /// Atomics are never privatized: every mode runs each one once.
    #[allow(clippy::too_many_arguments)]
    pub fn atomic(&mut self, mem: Mem, index: i64, inner: u32, op: AtomicOp, signed: bool, a: u32, b: u32, site: (u32, u32)) -> Result<u32, Fault> {
        let Some(w) = self.word(mem, index, inner, site, true)? else {
            return Ok(0);
        };
        let apply = |old: u32| -> u32 {
            match op {
                AtomicOp::Load => old,
                AtomicOp::Store | AtomicOp::Exchange => a,
                AtomicOp::Add => old.wrapping_add(a),
                AtomicOp::Sub => old.wrapping_sub(a),
                AtomicOp::Max if signed => (old as i32).max(a as i32) as u32,
                AtomicOp::Min if signed => (old as i32).min(a as i32) as u32,
                AtomicOp::Max => old.max(a),
                AtomicOp::Min => old.min(a),
                AtomicOp::And => old & a,
                AtomicOp::Or => old | a,
                AtomicOp::Xor => old ^ a,
                AtomicOp::CompareExchange => {
                    if old == a {
                        b
                    } else {
                        old
                    }
                }
            }
        };
        let old = match mem {
            Mem::Storage(i) => {
                let cell = &self.view(i).words[w];
                match op {
                    AtomicOp::Load => cell.load(Relaxed),
                    AtomicOp::Store => {
                        cell.store(a, Relaxed);
                        0
                    }
                    _ => cell.fetch_update(Relaxed, Relaxed, |old| Some(apply(old))).unwrap(),
                }
            }
            Mem::Shared(i) => {
                let cell = &mut self.shared[i].words[w];
                let old = *cell;
                *cell = apply(old);
                old
            }
        };
        Ok(if op == AtomicOp::Store { 0 } else { old })
    }
}
