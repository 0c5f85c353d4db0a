//! IR built by hand: helpers with slice parameters (the WGSL front-end
//! inlines every helper), short circuits over loads that would fault, and
//! the exact sequence of calls into `Cx` (reads, settled reads, writes,
//! their words and sites) that the twin's code makes.

use super::{Dispatch, FUEL};
use crate::cpu::twin::{BarrierKind, Cx, Fault, Ids, Invocation, Mem, Monitor, Region, SharedMem, StorageView, Targets, Yield};
use ld_compiler::ir::{self, *};
use ld_compiler::Span;
use std::collections::HashMap;
use std::sync::atomic::AtomicU32;

// --- a small builder: span `i` stands at (100 + i, i) in `SITES` ---

fn sites() -> Vec<(u32, u32)> {
    (0..20).map(|i| (100 + i, i)).collect()
}

fn site(i: u32) -> (u32, u32) {
    (100 + i, i)
}

fn ex(kind: ExprKind, ty: Type, span: usize) -> Expr {
    Expr { kind, ty, span: Span::from_index(span) }
}

fn u(v: i64) -> Expr {
    ex(ExprKind::Lit(Lit::Int(v)), Type::U32, 0)
}

fn boolean(b: bool) -> Expr {
    ex(ExprKind::Lit(Lit::Bool(b)), Type::BOOL, 0)
}

fn local(id: LocalId, ty: Type) -> Expr {
    ex(ExprKind::Load(lplace(id, vec![])), ty, 0)
}

fn lplace(id: LocalId, path: Vec<Proj>) -> Place {
    Place { root: Root::Local(id), path }
}

fn mplace(mem: MemRef, index: Expr, path: Vec<Proj>, settled: bool) -> Place {
    Place { root: Root::Mem { mem, index: Box::new(index), settled, own: false }, path }
}

fn load(p: Place, ty: Type, span: usize) -> Expr {
    ex(ExprKind::Load(p), ty, span)
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    let ty = if op.is_comparison() || op.is_logical() { Type::BOOL } else { a.ty.clone() };
    ex(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, 0)
}

fn st(kind: StmtKind, span: usize) -> Stmt {
    Stmt::new(kind, Span::from_index(span))
}

fn set(p: Place, op: Option<BinOp>, v: Expr, span: usize) -> Stmt {
    st(StmtKind::Assign(p, op, v), span)
}

fn locals(tys: &[Type]) -> Vec<Local> {
    tys.iter().enumerate().map(|(i, t)| Local { name: format!("v{i}"), ty: t.clone() }).collect()
}

fn storage(name: &str, elem: Type) -> Param {
    Param { name: name.into(), kind: ParamKind::Storage { elem, access: Access::ReadWrite } }
}

fn kernel(params: Vec<Param>, size: u32, locals: Vec<Local>, block: Block) -> Kernel {
    Kernel { span: Span::DETACHED, workgroup_size: [size, 1, 1], params, shared: vec![], body: Body { locals, block }, bounds: Bounds::Fault }
}

fn pair_struct() -> StructDef {
    StructDef { name: "Pair".into(), fields: vec![("a".into(), Type::U32), ("b".into(), Type::U32)] }
}

fn quad_struct() -> StructDef {
    let fields = ["x", "y", "z", "w"].iter().map(|n| (n.to_string(), Type::U32)).collect();
    StructDef { name: "Quad".into(), fields }
}

fn program(m: &Module) -> super::Kernel {
    super::Kernel::new(m.clone(), sites())
}

// --- helpers and slices ---

/// `window_sum(s: &[u32], n: u32) -> u32`: 0xDEAD when the window is
/// shorter than `n` (`s.len()`: the memory's length minus the offset),
/// else the sum of its first `n` elements.
fn window_sum() -> Function {
    let (off, n, acc, i) = (0, 1, 2, 3);
    let slice = |index| load(mplace(MemRef::FnSlice(0), index, vec![], false), Type::U32, 0);
    let len = ex(ExprKind::Len(MemRef::FnSlice(0), Some(Box::new(local(off, Type::U32)))), Type::U32, 0);
    let ret = |e| st(StmtKind::Return(Some(e)), 0);
    let body = vec![
        st(StmtKind::If(bin(BinOp::Gt, local(n, Type::U32), len), vec![ret(u(0xDEAD))], vec![]), 0),
        st(StmtKind::Let(acc, None), 0),
        st(StmtKind::Let(i, Some(u(0))), 0),
        st(
            StmtKind::Loop(Loop {
                cond: Some(bin(BinOp::Lt, local(i, Type::U32), local(n, Type::U32))),
                body: vec![set(lplace(acc, vec![]), Some(BinOp::Add), slice(bin(BinOp::Add, local(off, Type::U32), local(i, Type::U32))), 0)],
                continuing: vec![set(lplace(i, vec![]), Some(BinOp::Add), u(1), 0)],
            }),
            0,
        ),
        ret(local(acc, Type::U32)),
    ];
    let params = vec![FnParam::Slice { elem: Type::U32, offset: off }, FnParam::Value(n)];
    Function { name: "window_sum".into(), span: Span::DETACHED, params, ret: Type::U32, body: Body { locals: locals(&[Type::U32; 4]), block: body } }
}

/// `shifted(s: &[u32]) -> u32`: `window_sum(&s[1..], 2)`, a slice of a slice.
fn shifted() -> Function {
    let offset = bin(BinOp::Add, local(0, Type::U32), u(1));
    let call = ex(ExprKind::Call(0, vec![CallArg::Slice { mem: MemRef::FnSlice(0), offset }, CallArg::Value(u(2))]), Type::U32, 0);
    let body = vec![st(StmtKind::Return(Some(call)), 0)];
    let params = vec![FnParam::Slice { elem: Type::U32, offset: 0 }];
    Function { name: "shifted".into(), span: Span::DETACHED, params, ret: Type::U32, body: Body { locals: locals(&[Type::U32]), block: body } }
}

/// `pair(x: u32) -> Pair`: `Pair { a: x * 2, b: x + 1 }`.
fn pair() -> Function {
    let x = || local(0, Type::U32);
    let lit = ex(ExprKind::StructLit(vec![bin(BinOp::Mul, x(), u(2)), bin(BinOp::Add, x(), u(1))]), Type::Struct(0), 0);
    let body = vec![st(StmtKind::Return(Some(lit)), 0)];
    Function {
        name: "pair".into(),
        span: Span::DETACHED,
        params: vec![FnParam::Value(0)],
        ret: Type::Struct(0),
        body: Body { locals: locals(&[Type::U32]), block: body },
    }
}

/// Per invocation `g`: `out[2g] = window_sum(&data[g..], 3)`,
/// `out[2g + 1] = shifted(&data[g..])`, `pairs[g] = pair(g)`,
/// `pairs[g].b += pair(g + 10).a`.
fn helpers_module() -> Module {
    let g = || local(0, Type::U32);
    let gid = ex(ExprKind::Component(Box::new(ex(ExprKind::Builtin(Builtin::GlobalId), Type::UVec3, 0)), 0), Type::U32, 0);
    let data = || CallArg::Slice { mem: MemRef::Param(1), offset: g() };
    let call = |f, args, ty| ex(ExprKind::Call(f, args), ty, 0);
    let out = |k| mplace(MemRef::Param(0), bin(BinOp::Add, bin(BinOp::Mul, g(), u(2)), u(k)), vec![], false);
    let pairs = |path| mplace(MemRef::Param(2), g(), path, false);
    let later = call(2, vec![CallArg::Value(bin(BinOp::Add, g(), u(10)))], Type::Struct(0));
    let block = vec![
        st(StmtKind::Let(0, Some(gid)), 0),
        set(out(0), None, call(0, vec![data(), CallArg::Value(u(3))], Type::U32), 0),
        set(out(1), None, call(1, vec![data()], Type::U32), 0),
        set(pairs(vec![]), None, call(2, vec![CallArg::Value(g())], Type::Struct(0)), 0),
        set(pairs(vec![Proj::Field(1)]), Some(BinOp::Add), ex(ExprKind::Field(Box::new(later), 0), Type::U32, 0), 0),
    ];
    let params = vec![storage("out", Type::U32), storage("data", Type::U32), storage("pairs", Type::Struct(0))];
    Module { structs: vec![pair_struct()], functions: vec![window_sum(), shifted(), pair()], kernel: kernel(params, 4, locals(&[Type::U32]), block) }
}

/// Helpers get their slices bound to the caller's memory at the caller's
/// offset (a helper's own slice passed on, shifted), return early, and
/// return structs whose fields the caller takes.
#[test]
fn helpers_take_slices_return_early_and_return_structs() {
    let k = program(&helpers_module());
    let data: Vec<u32> = vec![1, 2, 3, 4, 5];
    let mut bufs = [("out", vec![0; 8]), ("data", data.clone()), ("pairs", vec![0; 8])];
    k.run(Dispatch { grid: [1, 1, 1], buffers: &mut bufs, uniforms: &[], fuel: FUEL }).unwrap();
    let window = |from: usize, n: usize| if data.len() - from < n { 0xDEAD } else { data[from..from + n].iter().sum() };
    let out: Vec<u32> = (0..4).flat_map(|g| [window(g, 3), window(g + 1, 2)]).collect();
    assert_eq!(bufs[0].1, out);
    assert_eq!(out[6..], [0xDEAD, 0xDEAD], "the last invocation's windows are short");
    let pairs: Vec<u32> = (0..4).flat_map(|g| [2 * g, (g + 1) + 2 * (g + 10)]).collect();
    assert_eq!(bufs[2].1, pairs);
}

// --- the calls into `Cx` ---

/// A call `Cx` made to the engine's memories, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Call {
    Read(Mem, u32),
    Settled(Mem, u32),
    Write(Mem, u32, u32),
}

/// Targets owning every memory: they record each call and hold the words.
#[derive(Default)]
struct Words {
    words: HashMap<(Mem, u32), u32>,
    calls: Vec<Call>,
}

impl Targets for Words {
    fn enter(&mut self, _: u32) {}
    fn owns(&self, _: Mem) -> bool {
        true
    }
    fn read(&mut self, mem: Mem, word: u32) -> u32 {
        self.calls.push(Call::Read(mem, word));
        self.words.get(&(mem, word)).copied().unwrap_or(0)
    }
    fn read_settled(&mut self, mem: Mem, word: u32) -> u32 {
        self.calls.push(Call::Settled(mem, word));
        self.words.get(&(mem, word)).copied().unwrap_or(0)
    }
    fn write(&mut self, mem: Mem, word: u32, value: u32) {
        self.calls.push(Call::Write(mem, word, value));
        self.words.insert((mem, word), value);
    }
}

/// An access as a monitor is told of it: (mem, word, words, write, site).
type Seen = (Mem, u32, u32, bool, (u32, u32));

/// A monitor recording each access.
#[derive(Default)]
struct Sites(Vec<Seen>);

impl Monitor for Sites {
    fn enter(&mut self, _: u32) {}
    fn access(&mut self, mem: Mem, word: u32, words: u32, write: bool, site: (u32, u32)) {
        self.0.push((mem, word, words, write, site));
    }
}

/// One step of one invocation (workgroup 0, local index 0, no workgroup memory).
fn step(
    inv: &mut dyn crate::cpu::twin::Invocation,
    views: &[Option<StorageView>],
    uniforms: &[u32],
    fuel: u64,
    t: &mut Words,
    m: &mut Sites,
) -> Result<Yield, Fault> {
    let mut shared: [SharedMem; 0] = [];
    let region = Region::new(Some(&*t), Some(&*m), views, &mut shared);
    let mut cx = Cx::new(Ids::default(), views, &mut shared, uniforms, fuel, Some(t), Some(m), &region);
    inv.step(&mut cx)
}

/// `let v = data[1]` (settled); `out[v.x] += data[0].y`; a condition
/// whose loads `&&`/`||` skip; `out[0] = u32(false & data[2].z == 7)`;
/// `data[out[3]] = data[2]`; with the uniform set, `out[arr[9]] = data[50].w`.
fn order_module() -> Module {
    let (data, out) = (MemRef::Param(0), MemRef::Param(1));
    let quad = Type::Struct(0);
    let field = |p: Place, f| Place { path: [p.path, vec![Proj::Field(f)]].concat(), ..p };
    let word = |i, f, span| load(field(mplace(data, u(i), vec![], false), f), Type::U32, span);
    let skipped = bin(
        BinOp::Or,
        bin(BinOp::And, boolean(false), bin(BinOp::Eq, word(100, 0, 7), u(0))),
        bin(BinOp::Or, boolean(true), bin(BinOp::Eq, word(101, 0, 7), u(0))),
    );
    let both = ex(ExprKind::Cast(Scalar::U32, Box::new(bin(BinOp::BitAnd, boolean(false), bin(BinOp::Eq, word(2, 2, 8), u(7))))), Type::U32, 0);
    let flag = bin(BinOp::Ne, ex(ExprKind::Uniform(2), Type::U32, 0), u(0));
    let bad_place = mplace(out, load(lplace(1, vec![Proj::Index(Box::new(u(9)))]), Type::U32, 11), vec![], false);
    let block = vec![
        st(StmtKind::Let(0, Some(load(mplace(data, u(1), vec![], true), quad.clone(), 2))), 1),
        set(mplace(out, load(lplace(0, vec![Proj::Field(0)]), Type::U32, 4), vec![], false), Some(BinOp::Add), word(0, 1, 5), 3),
        st(StmtKind::If(skipped, vec![set(mplace(out, u(0), vec![], false), None, both, 9)], vec![]), 6),
        set(
            mplace(data, load(mplace(out, u(3), vec![], false), Type::U32, 15), vec![], false),
            None,
            load(mplace(data, u(2), vec![], false), quad.clone(), 14),
            16,
        ),
        st(StmtKind::If(flag, vec![set(bad_place, None, word(50, 3, 12), 10)], vec![]), 13),
    ];
    let params = vec![storage("data", quad.clone()), storage("out", Type::U32), Param { name: "flag".into(), kind: ParamKind::Uniform { ty: Scalar::U32 } }];
    Module { structs: vec![quad_struct()], functions: vec![], kernel: kernel(params, 1, locals(&[quad, Type::Array(Box::new(Type::U32), 8)]), block) }
}

/// The calls into `Cx` in the twin's order: an aggregate's words one by
/// one (settled where the IR says), an assignment's value before its place
/// and a compound one's read before its write, each at its site; `&&` and
/// `||` skip their right side, `&` does not; a fault in the value comes
/// before one in the place. Native code, which reaches memories `Cx`
/// routes through its own shims, makes the same calls.
#[test]
fn cx_sees_the_twins_accesses_in_the_twins_order() {
    let k = program(&order_module());
    let backing: [Vec<AtomicU32>; 2] = [(0..12).map(|_| AtomicU32::new(0)).collect(), (0..4).map(|_| AtomicU32::new(0)).collect()];
    let views = [Some(StorageView { words: &backing[0], elem_words: 4, len: 3 }), Some(StorageView { words: &backing[1], elem_words: 1, len: 4 }), None];
    let (d, o) = (Mem::Storage(0), Mem::Storage(1));
    let data = [10, 11, 12, 13, 2, 21, 22, 23, 30, 31, 7, 33];
    // The interpreter, then native code: the same calls at the same sites.
    let (interpreted, native) = (|| k.program.invocation(), || k.native.invocation());
    for new in [&interpreted as &dyn Fn() -> Box<dyn Invocation>, &native] {
        let run = |flag: u32| {
            let mut t = Words::default();
            t.words.extend(data.iter().enumerate().map(|(i, &w)| ((d, i as u32), w)));
            t.words.insert((o, 2), 100);
            let mut m = Sites::default();
            let r = step(&mut *new(), &views, &[flag], FUEL, &mut t, &mut m);
            (r, t, m)
        };
        let (r, t, m) = run(0);
        assert_eq!(r, Ok(Yield::Done));
        use Call::*;
        let mut calls = vec![Settled(d, 4), Settled(d, 5), Settled(d, 6), Settled(d, 7), Read(d, 1), Read(o, 2), Write(o, 2, 111), Read(d, 10), Write(o, 0, 0)];
        calls.extend((8..12).map(|w| Read(d, w)).chain([Read(o, 3)]).chain((0..4).map(|w| Write(d, w, data[8 + w as usize]))));
        assert_eq!(t.calls, calls);
        let mut sites: Vec<_> = (4..8).map(|w| (d, w, 1, false, site(2))).collect();
        sites.extend([(d, 1, 1, false, site(5)), (o, 2, 1, false, site(3)), (o, 2, 1, true, site(3)), (d, 10, 1, false, site(8)), (o, 0, 1, true, site(9))]);
        sites.extend((8..12).map(|w| (d, w, 1, false, site(14))).chain([(o, 3, 1, false, site(15))]).chain((0..4).map(|w| (d, w, 1, true, site(16)))));
        assert_eq!(m.0, sites);
        let (r, _, _) = run(1);
        assert_eq!(r, Err(Fault::OutOfBounds { mem: Some(d), index: 50, len: 3, site: site(12) }));
    }
}

// --- locals ---

/// `arr = [7; 4]`; three iterations of `{ let x; x += 1; arr[k] += x; }`
/// (a `let` without a value keeps the local's value); `arr[3] *= p.b`;
/// `p = Pair { a: p.b, b: p.a }` (the value before the write);
/// `out[0] = arr`, `out[1] = [p.a, p.b, Pair { a: 1, b: 2 }.b, workgroup_size.x]`.
fn locals_module() -> Module {
    let arr_ty = Type::Array(Box::new(Type::U32), 4);
    let (arr, k, x, p) = (0, 1, 2, 3);
    let at_k = || lplace(arr, vec![Proj::Index(Box::new(local(k, Type::U32)))]);
    let pf = |f| load(lplace(p, vec![Proj::Field(f)]), Type::U32, 0);
    let lit = |a, b| ex(ExprKind::StructLit(vec![a, b]), Type::Struct(0), 0);
    let size_x = ex(ExprKind::Component(Box::new(ex(ExprKind::Builtin(Builtin::WorkgroupSize), Type::UVec3, 0)), 0), Type::U32, 0);
    let second = ex(ExprKind::ArrayLit(vec![pf(0), pf(1), ex(ExprKind::Field(Box::new(lit(u(1), u(2))), 1), Type::U32, 0), size_x]), arr_ty.clone(), 0);
    let body = vec![st(StmtKind::Let(x, None), 0), set(lplace(x, vec![]), Some(BinOp::Add), u(1), 0), set(at_k(), Some(BinOp::Add), local(x, Type::U32), 0)];
    let out = |i| mplace(MemRef::Param(0), u(i), vec![], false);
    let block = vec![
        st(StmtKind::Let(arr, Some(ex(ExprKind::ArrayRepeat(Box::new(u(7)), 4), arr_ty.clone(), 0))), 0),
        st(StmtKind::Let(k, Some(u(0))), 0),
        st(
            StmtKind::Loop(Loop {
                cond: Some(bin(BinOp::Lt, local(k, Type::U32), u(3))),
                body,
                continuing: vec![set(lplace(k, vec![]), Some(BinOp::Add), u(1), 0)],
            }),
            0,
        ),
        st(StmtKind::Let(p, Some(lit(u(5), u(6)))), 0),
        set(lplace(arr, vec![Proj::Index(Box::new(u(3)))]), Some(BinOp::Mul), pf(1), 0),
        st(StmtKind::Let(p, Some(lit(pf(1), pf(0)))), 0),
        set(out(0), None, local(arr, arr_ty.clone()), 0),
        set(out(1), None, second, 0),
    ];
    let params = vec![storage("out", arr_ty.clone())];
    Module { structs: vec![pair_struct()], functions: vec![], kernel: kernel(params, 1, locals(&[arr_ty, Type::U32, Type::U32, Type::Struct(0)]), block) }
}

/// Aggregates move between locals and memory whole; a `let` without a
/// value leaves its local alone; a value is computed before it is stored.
#[test]
fn locals_hold_aggregates_word_for_word() {
    let k = program(&locals_module());
    let mut bufs = [("out", vec![0; 8])];
    k.run(Dispatch { grid: [1, 1, 1], buffers: &mut bufs, uniforms: &[], fuel: FUEL }).unwrap();
    assert_eq!(bufs[0].1, [8, 9, 10, 42, 6, 5, 2, 1]);
}

// --- the machine ---

/// Two barriers; a loop of two iterations at span 5 (structured: its
/// condition is `k < 2`); a loop with no end around a barrier (exploded:
/// its head branches) at `span`.
fn spin(span: Span) -> Module {
    let k = || local(0, Type::U32);
    let counted = Loop { cond: Some(bin(BinOp::Lt, k(), u(2))), body: vec![set(lplace(0, vec![]), Some(BinOp::Add), u(1), 0)], continuing: vec![] };
    let endless = Loop { cond: None, body: vec![st(StmtKind::Barrier(ir::BarrierKind::Workgroup), 3)], continuing: vec![] };
    let block = vec![
        st(StmtKind::Barrier(ir::BarrierKind::Workgroup), 1),
        st(StmtKind::Barrier(ir::BarrierKind::Storage), 2),
        st(StmtKind::Loop(counted), 5),
        Stmt::new(StmtKind::Loop(endless), span),
    ];
    Module { structs: vec![], functions: vec![], kernel: kernel(vec![], 1, locals(&[Type::U32]), block) }
}

/// Barriers suspend the invocation with their kind and their index. A
/// structured loop spends fuel before testing its condition (3 for two
/// iterations), an exploded one at its head; a site no one knows (a
/// detached span, an index past the table) is (0, 0).
#[test]
fn barriers_yield_their_kind_and_index_and_loops_spend_fuel_at_their_site() {
    use BarrierKind::{Storage, Workgroup};
    for (span, at) in [(Span::from_index(4), site(4)), (Span::DETACHED, (0, 0)), (Span::from_index(500), (0, 0))] {
        let k = program(&spin(span));
        let (mut t, mut m) = (Words::default(), Sites::default());
        let mut go = |inv: &mut Box<dyn crate::cpu::twin::Invocation>, fuel| step(&mut **inv, &[], &[], fuel, &mut t, &mut m);
        let mut inv = k.program.invocation();
        assert_eq!(go(&mut inv, 0), Ok(Yield::Barrier { kind: Workgroup, id: 0 }));
        assert_eq!(go(&mut inv, 0), Ok(Yield::Barrier { kind: Storage, id: 1 }));
        assert_eq!(go(&mut inv, 4), Ok(Yield::Barrier { kind: Workgroup, id: 2 }));
        assert_eq!(go(&mut inv, 1), Ok(Yield::Barrier { kind: Workgroup, id: 2 }));
        assert_eq!(go(&mut inv, 0), Err(Fault::OutOfFuel { site: at }));
        let mut short = k.program.invocation();
        go(&mut short, 0).unwrap();
        go(&mut short, 0).unwrap();
        assert_eq!(go(&mut short, 2), Err(Fault::OutOfFuel { site: site(5) }));
    }
}

/// `return` in the kernel ends the invocation, which stays done.
#[test]
fn a_returned_invocation_stays_done() {
    let out = mplace(MemRef::Param(0), u(0), vec![], false);
    let block = vec![
        st(StmtKind::Barrier(ir::BarrierKind::Storage), 1),
        set(out.clone(), Some(BinOp::Add), u(1), 0),
        st(StmtKind::If(boolean(true), vec![st(StmtKind::Return(None), 0)], vec![]), 0),
        set(out, Some(BinOp::Add), u(10), 0),
    ];
    let m = Module { structs: vec![], functions: vec![], kernel: kernel(vec![storage("out", Type::U32)], 1, vec![], block) };
    let k = program(&m);
    let backing = [AtomicU32::new(0)];
    let views = [Some(StorageView { words: &backing, elem_words: 1, len: 1 })];
    let mut inv = k.program.invocation();
    let (mut t, mut s) = (Words::default(), Sites::default());
    assert_eq!(step(&mut *inv, &views, &[], 0, &mut t, &mut s), Ok(Yield::Barrier { kind: BarrierKind::Storage, id: 0 }));
    for _ in 0..2 {
        assert_eq!(step(&mut *inv, &views, &[], 0, &mut t, &mut s), Ok(Yield::Done));
    }
    assert_eq!(t.words.get(&(Mem::Storage(0), 0)), Some(&1));
}
