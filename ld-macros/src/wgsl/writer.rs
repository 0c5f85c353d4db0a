//! Text emission of WGSL from the IR.

use super::names::Namer;
use crate::ir::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write;

/// A helper specialised for the memories bound to its slice parameters.
type Instance = (FnId, Vec<Option<MemRef>>);

/// Which shader to emit: the kernel as written, or the instrumented kernel
/// of check and deterministic modes (see `instrument`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Native,
    /// Check mode: each region runs once on the warps' copies of every
    /// target, every access tagged, and is checked at its closing barrier
    /// (see `instrument`).
    Instrumented,
    /// Deterministic mode: each region runs once on the warps' copies,
    /// folded in warp order at its closing barrier; the body keeps its
    /// structure (see `structured`).
    Folded,
}

pub struct Writer<'m> {
    pub(super) m: &'m Module,
    pub(super) variant: Variant,
    /// Instrumented: the target number of each privatized memory.
    pub(super) targets: HashMap<MemRef, usize>,
    /// Instrumented: typed loaders and storers of target words, by name.
    pub(super) accessors: Vec<String>,
    pub(super) accessor_names: HashMap<(usize, String, bool), String>,
    pub(super) globals: Namer,
    struct_names: Vec<String>,
    /// Each struct's field names, by struct and field.
    pub(super) field_names: Vec<Vec<String>>,
    pub(super) param_names: Vec<String>,
    pub(super) shared_names: Vec<String>,
    /// Every helper instance the kernel reaches, named before any local is.
    instances: HashMap<Instance, String>,
    queued: HashSet<Instance>,
    queue: Vec<Instance>,
    uses_round: bool,
    uses_powi: bool,
    /// The integer types an `f32` is converted to (`ld_f32_to_*`).
    float_to_int: BTreeSet<Scalar>,
    /// The integer operation helpers used (see [`int_op`]).
    int_ops: BTreeSet<(IntOp, Scalar)>,
    /// The scalar types whose `ld_opaque_*` identity function is used (see [`hidden`]).
    opaque_types: BTreeSet<Scalar>,
    /// Instrumented: one function per atomic call site whose result is used.
    pub(super) atomic_sites: Vec<String>,
    /// Instrumented kernels: barrier statements emitted so far (their index, in source order).
    pub(super) next_barrier: usize,
    /// The guard's sites: every checked index and every loop, numbered as
    /// the WGSL records them (see `ld_shaders`' `guard.wgsl`).
    pub(super) sites: Vec<Site>,
    /// Helpers that may stop the invocation (they hold a loop, or call one
    /// that may): their callers stop after the statement that called them.
    may_halt: HashSet<FnId>,
}

/// A place in the kernel's source that the guard checks: an indexed access
/// of a buffer, a shared array or an array inside a value; or a loop.
pub struct Site {
    pub what: SiteWhat,
    /// The buffer's or shared array's name, as the CPU twin names it
    /// (empty for arrays inside values and for loops).
    pub array: String,
    /// The length an index is checked against, where it is a constant
    /// (shared and inner arrays; a buffer's is its length at launch).
    pub len: Option<u32>,
    pub span: proc_macro2::Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteWhat {
    Buffer,
    Shared,
    Array,
    Loop,
}

/// Per-function state: local names and the binding of slice parameters.
pub(super) struct Func<'a> {
    pub locals: &'a [Local],
    pub names: Vec<String>,
    pub slices: Vec<Option<MemRef>>,
    pub indent: usize,
    pub out: String,
    /// What stops the invocation here (the guard's `ld_halt`): a return
    /// from this function, with a zero value where it returns one.
    pub halt: String,
    /// The flags of the enclosing loops (innermost last): set where the
    /// loop ends by its own hand (see `ld_shaders`' `guard.wgsl`).
    pub loops: Vec<String>,
    pub next_loop: usize,
}

fn uniform_field(name: &str) -> String {
    name.to_string()
}

impl<'m> Writer<'m> {
    pub fn new(m: &'m Module, variant: Variant) -> Self {
        let mut globals = Namer::default();
        for reserved in ["LdUniforms", "LdConfig", "LdTarget", "main"] {
            globals.reserve(reserved);
        }
        let struct_names = m.structs.iter().map(|s| globals.fresh(&s.name)).collect();
        // Members live in their struct's own scope.
        let field_names = m
            .structs
            .iter()
            .map(|s| {
                let mut members = Namer::default();
                s.fields.iter().map(|(f, _)| members.fresh(f)).collect()
            })
            .collect();
        let param_names = m.kernel.params.iter().map(|p| globals.fresh(&p.name)).collect();
        let shared_names = m.kernel.shared.iter().map(|s| globals.fresh(&s.name)).collect();
        // Helpers are named before any function's locals: a local named like
        // a helper it calls would shadow it (`let square = square(x);`).
        let instances = reached_instances(m).into_iter().map(|inst| {
            let name = globals.fresh(&m.functions[inst.0].name);
            (inst, name)
        });
        let instances = instances.collect();
        let mut w = Writer {
            m,
            variant,
            targets: HashMap::new(),
            accessors: vec![],
            accessor_names: HashMap::new(),
            globals,
            struct_names,
            field_names,
            param_names,
            shared_names,
            instances,
            queued: HashSet::new(),
            queue: vec![],
            uses_round: false,
            uses_powi: false,
            int_ops: BTreeSet::new(),
            float_to_int: BTreeSet::new(),
            opaque_types: BTreeSet::new(),
            atomic_sites: vec![],
            next_barrier: 0,
            sites: vec![],
            may_halt: may_halt(m),
        };
        if variant != Variant::Native {
            w.targets = crate::analysis::targets::list(m).into_iter().enumerate().map(|(t, mem)| (mem, t)).collect();
        }
        w
    }

    /// The module's WGSL, and the guard's sites in it.
    pub fn module(mut self) -> (String, Vec<Site>) {
        let entry = match self.variant {
            Variant::Native => self.entry(),
            Variant::Instrumented => self.entry_structured("ld_check_region"),
            Variant::Folded => self.entry_structured("ld_fold_region"),
        };
        let mut helpers = String::new();
        let mut done = 0;
        while done < self.queue.len() {
            let inst = self.queue[done].clone();
            done += 1;
            helpers.push_str(&self.helper(&inst));
        }
        let mut out = String::new();
        for ((s, name), fields) in self.m.structs.iter().zip(&self.struct_names).zip(&self.field_names) {
            writeln!(out, "struct {name} {{").unwrap();
            for ((_, t), f) in s.fields.iter().zip(fields) {
                writeln!(out, "    {f}: {},", self.ty(t)).unwrap();
            }
            writeln!(out, "}}\n").unwrap();
        }
        let uniforms: Vec<(usize, &Param)> = self.m.kernel.params.iter().enumerate().filter(|(_, p)| matches!(p.kind, ParamKind::Uniform { .. })).collect();
        if !uniforms.is_empty() {
            writeln!(out, "struct LdUniforms {{").unwrap();
            for (i, p) in &uniforms {
                let ParamKind::Uniform { ty } = p.kind else { unreachable!() };
                writeln!(out, "    {}: {},", uniform_field(&self.param_names[*i]), self.ty(&Type::Scalar(ty))).unwrap();
            }
            writeln!(out, "}}\n").unwrap();
        }
        for (i, p) in self.m.kernel.params.iter().enumerate() {
            let name = &self.param_names[i];
            match &p.kind {
                // The instrumented kernel reads a target's words (never writes them).
                ParamKind::Storage { .. } if self.targets.contains_key(&MemRef::Param(i)) => {
                    writeln!(out, "@group(0) @binding({i}) var<storage, read_write> {name}: array<u32>;").unwrap();
                }
                ParamKind::Storage { elem, access } => {
                    let acc = if *access == Access::Read { "read" } else { "read_write" };
                    writeln!(out, "@group(0) @binding({i}) var<storage, {acc}> {name}: array<{}>;", self.ty(elem)).unwrap();
                }
                ParamKind::Atomic { elem } => {
                    writeln!(out, "@group(0) @binding({i}) var<storage, read_write> {name}: array<atomic<{}>>;", self.ty(&Type::Scalar(*elem))).unwrap();
                }
                ParamKind::Uniform { .. } => {}
            }
        }
        if !uniforms.is_empty() {
            writeln!(out, "@group(0) @binding({}) var<uniform> ld_uniforms: LdUniforms;", self.m.kernel.params.len()).unwrap();
        }
        for (a, (sh, name)) in self.m.kernel.shared.iter().zip(&self.shared_names).enumerate() {
            // Targets live in the engine's copies; atomic arrays stay real.
            if !self.targets.contains_key(&MemRef::Shared(a)) {
                writeln!(out, "var<workgroup> {name}: array<{}, {}>;", self.ty(&sh.elem), sh.len).unwrap();
            }
        }
        let variant = match self.variant {
            Variant::Native => ld_shaders::abi::guard::NATIVE,
            Variant::Instrumented => ld_shaders::abi::guard::INSTRUMENTED,
            Variant::Folded => ld_shaders::abi::guard::FOLDED,
        };
        out.push_str(&ld_shaders::abi::guard_prelude(self.m.kernel.params.len(), variant));
        if self.variant != Variant::Native {
            out.push_str(&self.instrumented_prelude());
        }
        out.push('\n');
        for s in std::mem::take(&mut self.atomic_sites) {
            out.push_str(&s);
        }
        if self.uses_round {
            out.push_str("// Rust's f32::round: halfway cases away from zero (WGSL's round goes to even).\nfn ld_round(x: f32) -> f32 {\n    let t = trunc(x);\n    return select(t, t + sign(x), abs(x - t) >= 0.5);\n}\n\n");
        }
        if self.uses_powi {
            out.push_str("// Rust's f32::powi: WGSL's pow is undefined for negative bases.\nfn ld_powi(x: f32, n: i32) -> f32 {\n    let p = pow(abs(x), f32(n));\n    return select(p, -p, x < 0.0 && (n & 1) != 0);\n}\n\n");
        }
        for (op, s) in std::mem::take(&mut self.int_ops) {
            out.push_str(&int_op_fn(op, s));
        }
        for s in std::mem::take(&mut self.float_to_int) {
            let t = self.ty(&Type::Scalar(s));
            let zero = if s == Scalar::U32 { "0u" } else { "0i" };
            writeln!(out, "// Rust's `as {t}` of a NaN is 0 (WGSL leaves it to the device: lavapipe's\n// i32 of a NaN is i32::MIN). The NaN test is on the bits: drivers may fold `x != x`.\nfn ld_f32_to_{t}(x: f32) -> {t} {{\n    return select({t}(x), {zero}, (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u);\n}}\n").unwrap();
        }
        for s in std::mem::take(&mut self.opaque_types) {
            let t = self.ty(&Type::Scalar(s));
            writeln!(out, "// Hides a constant from WGSL's constant evaluation, which rejects what\n// the GPU computes at run time (a float that is not finite, ...).\nfn ld_opaque_{t}(x: {t}) -> {t} {{\n    return x;\n}}\n").unwrap();
        }
        out.push_str(&helpers);
        out.push_str(&entry);
        (out, self.sites)
    }

    /// The guard's number for a site.
    pub(super) fn site(&mut self, what: SiteWhat, array: &str, len: Option<u32>, span: proc_macro2::Span) -> u32 {
        self.sites.push(Site { what, array: array.to_string(), len, span });
        self.sites.len() as u32 - 1
    }

    /// The site of an access to memory `m` (a buffer or a shared array).
    pub(super) fn mem_site(&mut self, m: MemRef, span: proc_macro2::Span) -> u32 {
        match m {
            MemRef::Param(p) => {
                let name = self.m.kernel.params[p].name.clone();
                self.site(SiteWhat::Buffer, &name, None, span)
            }
            MemRef::Shared(a) => {
                let (name, len) = (self.m.kernel.shared[a].name.clone(), self.m.kernel.shared[a].len);
                self.site(SiteWhat::Shared, &name, Some(len), span)
            }
            MemRef::FnSlice(_) => unreachable!("slices are bound before rendering"),
        }
    }

    /// The length of memory `m` in elements, as WGSL computes it.
    pub(super) fn mem_len(&self, m: MemRef) -> String {
        match m {
            MemRef::Shared(a) => format!("{}u", self.m.kernel.shared[a].len),
            // The instrumented kernels bind a target as its words.
            MemRef::Param(p) if self.targets.contains_key(&m) => format!("(arrayLength(&{}) / {}u)", self.param_names[p], self.mem_elem_words(p)),
            MemRef::Param(p) => format!("arrayLength(&{})", self.param_names[p]),
            MemRef::FnSlice(_) => unreachable!("slices are bound before rendering"),
        }
    }

    /// `i` checked against `len` (see `ld_idx`): in bounds, itself; past
    /// the end, noted, and the last element.
    pub(super) fn checked_index(&mut self, i: &Expr, text: String, len: &str, site: u32) -> String {
        let f = if i.ty == Type::I32 { "ld_idx_i" } else { "ld_idx" };
        format!("{f}({text}, {len}, {site}u)")
    }

    /// Whether a write at index `i` (a let) may go ahead (see `ld_ok`).
    pub(super) fn index_ok(&self, ty: &Type, i: &str, len: &str, site: u32) -> String {
        let f = if *ty == Type::I32 { "ld_ok_i" } else { "ld_ok" };
        format!("{f}({i}, {len}, {site}u)")
    }

    /// The target number of a memory, in the instrumented kernel.
    pub(super) fn target_of(&self, f: &Func, m: MemRef) -> Option<usize> {
        let (_, m) = self.mem_name(f, m);
        self.targets.get(&m).copied()
    }

    /// Element `i` of a memory that is not privatized.
    pub(super) fn mem_at(&self, m: MemRef, i: &str) -> String {
        match m {
            MemRef::Param(p) => format!("{}[{i}]", self.param_names[p]),
            MemRef::Shared(a) => format!("{}[{i}]", self.shared_names[a]),
            MemRef::FnSlice(_) => unreachable!("slices are bound before rendering"),
        }
    }

    pub fn ty(&self, t: &Type) -> String {
        match t {
            Type::Unit => "void".into(),
            Type::Scalar(Scalar::U32) => "u32".into(),
            Type::Scalar(Scalar::I32) => "i32".into(),
            Type::Scalar(Scalar::F32) => "f32".into(),
            Type::Scalar(Scalar::Bool) => "bool".into(),
            Type::UVec3 => "vec3<u32>".into(),
            Type::Array(e, n) => format!("array<{}, {n}>", self.ty(e)),
            Type::Struct(id) => self.struct_names[*id].clone(),
            Type::Atomic(s) => format!("atomic<{}>", self.ty(&Type::Scalar(*s))),
            Type::Var(_) => unreachable!(),
        }
    }

    pub(super) fn func<'a>(&self, locals: &'a [Local], slices: Vec<Option<MemRef>>) -> Func<'a> {
        let mut names = self.globals.clone();
        let names = locals.iter().map(|l| names.fresh(&l.name)).collect();
        Func { locals, names, slices, indent: 1, out: String::new(), halt: "return;".into(), loops: vec![], next_loop: 0 }
    }

    pub(super) fn declare_locals(&self, f: &mut Func, skip: &[LocalId]) {
        for (i, l) in f.locals.iter().enumerate() {
            if !skip.contains(&i) {
                let line = format!("var {}: {};", f.names[i], self.ty(&l.ty));
                line_to(f, &line);
            }
        }
    }

    fn entry(&mut self) -> String {
        let k = &self.m.kernel;
        let mut f = self.func(&k.body.locals, vec![]);
        self.declare_locals(&mut f, &[]);
        self.block(&mut f, &k.body.block);
        // The body is a function of its own, so that every way out of it
        // (its end, a `return`, the guard stopping it) passes the guard's
        // one recording of the invocation's fault.
        let [x, y, z] = k.workgroup_size;
        format!(
            "fn ld_kernel(ld_gid: vec3<u32>, ld_lid: vec3<u32>, ld_wid: vec3<u32>, ld_nwg: vec3<u32>, ld_lidx: u32) {{\n{}}}\n\n\
             @compute @workgroup_size({x}, {y}, {z})\nfn main(\n    @builtin(global_invocation_id) ld_gid: vec3<u32>,\n    @builtin(local_invocation_id) ld_lid: vec3<u32>,\n    @builtin(workgroup_id) ld_wid: vec3<u32>,\n    @builtin(num_workgroups) ld_nwg: vec3<u32>,\n    @builtin(local_invocation_index) ld_lidx: u32,\n) {{\n    ld_guard_enter(ld_wid.x + ld_nwg.x * (ld_wid.y + ld_nwg.y * ld_wid.z), ld_lidx);\n    ld_kernel(ld_gid, ld_lid, ld_wid, ld_nwg, ld_lidx);\n    ld_guard_flush();\n}}\n",
            f.out
        )
    }

    /// The name of a helper instance, queued for emission on first use.
    fn instance(&mut self, inst: Instance) -> String {
        let name = self.instances.get(&inst).expect("instances are found up front").clone();
        if self.queued.insert(inst.clone()) {
            self.queue.push(inst);
        }
        name
    }

    fn helper(&mut self, inst: &Instance) -> String {
        let fun = &self.m.functions[inst.0];
        let name = self.instances[inst].clone();
        let mut f = self.func(&fun.body.locals, inst.1.clone());
        if fun.ret != Type::Unit {
            f.halt = format!("return {}();", self.ty(&fun.ret));
        }
        let mut params = Vec::new();
        let mut copies = Vec::new();
        for (i, p) in fun.params.iter().enumerate() {
            let (local, ty) = match p {
                FnParam::Value(l) => (*l, fun.body.locals[*l].ty.clone()),
                FnParam::Slice { offset, .. } => (*offset, Type::U32),
            };
            let pname = format!("ld_p{i}");
            params.push(format!("{pname}: {}", self.ty(&ty)));
            copies.push(format!("{} = {pname};", f.names[local]));
        }
        self.declare_locals(&mut f, &[]);
        for c in copies {
            line_to(&mut f, &c);
        }
        self.block(&mut f, &fun.body.block);
        let ret = if fun.ret == Type::Unit { String::new() } else { format!(" -> {}", self.ty(&fun.ret)) };
        format!("fn {name}({}){ret} {{\n{}}}\n\n", params.join(", "), f.out)
    }

    pub(super) fn block(&mut self, f: &mut Func, b: &[Stmt]) {
        for s in b {
            self.stmt(f, s);
        }
    }

    fn stmt(&mut self, f: &mut Func, s: &Stmt) {
        self.stmt_only(f, s);
        // A helper that stopped the invocation returned a zero value: the
        // caller stops after the statement that called it.
        if own_exprs(s).iter().any(|e| calls_any(e, &self.may_halt)) {
            let line = format!("if ld_halt {{ {} }}", f.halt);
            line_to(f, &line);
        }
    }

    fn stmt_only(&mut self, f: &mut Func, s: &Stmt) {
        match &s.kind {
            StmtKind::Let(id, Some(e)) => {
                let v = self.expr(f, e);
                let line = format!("{} = {v};", f.names[*id]);
                line_to(f, &line);
            }
            StmtKind::Let(_, None) => {}
            StmtKind::Assign(p, op, v) if !indices(p).is_empty() => {
                let line = self.guarded_assign(f, p, *op, v, s.span);
                line_to(f, &line);
            }
            StmtKind::Assign(p, Some(op), v) if int_op(*op, &self.place_type(f, p)).is_some() => {
                let line = self.assign_int_op(f, p, *op, v);
                line_to(f, &line);
            }
            StmtKind::Assign(p, op, v) => {
                let place = self.place(f, p, s.span);
                let v = self.expr(f, v);
                let op = match op {
                    None => "=".to_string(),
                    Some(op) => format!("{}=", op.symbol()),
                };
                line_to(f, &format!("{place} {op} {v};"));
            }
            StmtKind::Expr(e @ Expr { kind: ExprKind::Atomic(op, ..), .. }) if self.variant != Variant::Native => {
                let x = self.atomic_site(f, e, if *op == AtomicOp::Store { &Type::Unit } else { &e.ty });
                line_to(f, &format!("{};", if *op == AtomicOp::Store { x } else { format!("_ = {x}") }));
            }
            StmtKind::Expr(e) => {
                let x = self.expr(f, e);
                if e.ty == Type::Unit {
                    line_to(f, &format!("{x};"));
                } else {
                    line_to(f, &format!("_ = {x};"));
                }
            }
            // A choice between two barriers (`if c { storage_barrier() }
            // else { barrier() }`) ends the region at one call site, the
            // barrier chosen by value: the condition is uniform (the macro
            // proves it), and lavapipe would run both arms' region code,
            // one of them masked (bplustree's check: 275 -> 205 ms).
            StmtKind::If(c, a, b) if self.variant != Variant::Native && is_one_barrier(a) && is_one_barrier(b) => {
                let c = self.expr(f, c);
                let (then, other) = (self.next_barrier, self.next_barrier + 1);
                self.next_barrier += 2;
                let line = format!("{}(select({other}u, {then}u, {c}));", self.region_call());
                line_to(f, &line);
            }
            StmtKind::If(c, a, b) => {
                let c = self.expr(f, c);
                line_to(f, &format!("if {c} {{"));
                f.indent += 1;
                self.block(f, a);
                f.indent -= 1;
                if b.is_empty() {
                    line_to(f, "}");
                } else {
                    line_to(f, "} else {");
                    f.indent += 1;
                    self.block(f, b);
                    f.indent -= 1;
                    line_to(f, "}");
                }
            }
            StmtKind::Loop(l) => {
                // The guard (`ld_shaders`' guard.wgsl): every iteration the
                // loop starts spends fuel; the flag says the loop ended by
                // its own hand (its condition, a `break`). Without it, the
                // loop ran out of fuel or the driver ended it: the
                // invocation stops.
                let site = self.site(SiteWhat::Loop, "", None, s.span);
                let flag = format!("ld_e{}", f.next_loop);
                f.next_loop += 1;
                line_to(f, &format!("var {flag} = false;"));
                line_to(f, "loop {");
                f.indent += 1;
                line_to(f, "if ld_fuel == 0u { break; }");
                line_to(f, "ld_fuel -= 1u;");
                if let Some(c) = &l.cond {
                    let c = self.expr(f, c);
                    line_to(f, &format!("if !{c} {{ {flag} = true; break; }}"));
                }
                f.loops.push(flag.clone());
                self.block(f, &l.body);
                f.loops.pop();
                if !l.continuing.is_empty() {
                    line_to(f, "continuing {");
                    f.indent += 1;
                    // (Generated counter updates: no call that could stop.)
                    for c in &l.continuing {
                        self.stmt_only(f, c);
                    }
                    f.indent -= 1;
                    line_to(f, "}");
                }
                f.indent -= 1;
                line_to(f, "}");
                let line = format!("if !{flag} {{ ld_stopped({site}u); {} }}", f.halt);
                line_to(f, &line);
            }
            StmtKind::Break => match f.loops.last() {
                Some(flag) => {
                    let line = format!("{flag} = true; break;");
                    line_to(f, &line);
                }
                None => line_to(f, "break;"),
            },
            StmtKind::Continue => line_to(f, "continue;"),
            StmtKind::Return(None) => line_to(f, "return;"),
            StmtKind::Return(Some(e)) => {
                let x = self.expr(f, e);
                line_to(f, &format!("return {x};"));
            }
            // The instrumented kernels' barriers end a region: the engine
            // checks it, or folds it.
            StmtKind::Barrier(_) if self.variant != Variant::Native => {
                let line = format!("{}({}u);", self.region_call(), self.next_barrier);
                self.next_barrier += 1;
                line_to(f, &line);
            }
            StmtKind::Barrier(BarrierKind::Workgroup) => line_to(f, "workgroupBarrier();"),
            StmtKind::Barrier(BarrierKind::Storage) => line_to(f, "storageBarrier();"),
        }
    }

    /// What an instrumented kernel calls where a region ends: the check,
    /// or (deterministic mode's folded kernel) the fold.
    fn region_call(&self) -> &'static str {
        if self.variant == Variant::Folded {
            "ld_fold_region"
        } else {
            "ld_check_region"
        }
    }

    /// An assignment to a place with indices, guarded: the value first, then
    /// the indices (as the CPU twin evaluates them), each bound once; the
    /// write happens only if every index is in bounds (else the guard notes
    /// the first that is not, in the CPU twin's order: for a memory, the
    /// indices inside its element before the element's).
    fn guarded_assign(&mut self, f: &mut Func, p: &Place, op: Option<BinOp>, v: &Expr, span: proc_macro2::Span) -> String {
        let ty = self.place_type(f, p);
        let value = match op {
            Some(o) => self.int_operand(f, o, v),
            None => self.expr(f, v),
        };
        let mut lets = vec![format!("let ld_v = {value};")];
        let mut texts = Vec::new();
        let mut checks = Vec::new();
        for (k, (i, len, site)) in self.index_sites(f, p, span).into_iter().enumerate() {
            let t = self.expr(f, i);
            lets.push(format!("let ld_i{k} = {t};"));
            checks.push(self.index_ok(&i.ty, &format!("ld_i{k}"), &len, site));
            texts.push(format!("ld_i{k}"));
        }
        if matches!(p.root, Root::Mem { .. }) {
            checks.rotate_left(1);
        }
        // A helper that stopped the invocation gave a zero value: no write.
        if std::iter::once(v).chain(indices(p)).any(|e| calls_any(e, &self.may_halt)) {
            lets.push(format!("if ld_halt {{ {} }}", f.halt));
        }
        let write = match self.target_place(f, p) {
            Some(t) => {
                let (addr, ty) = self.word_addr(f, p, Some(&texts), span);
                let store = self.accessor(t, &ty, true);
                match op {
                    None => format!("{store}({addr}, ld_v);"),
                    Some(o) => {
                        let load = self.accessor(t, &ty, false);
                        let new = match (int_op(o, &ty), &ty) {
                            (Some(_), Type::Scalar(s)) => format!("{}({load}(ld_a), ld_v)", self.int_op_call(o, *s)),
                            _ => format!("({load}(ld_a) {} ld_v)", o.symbol()),
                        };
                        format!("let ld_a = {addr}; {store}(ld_a, {new});")
                    }
                }
            }
            None => {
                let place = self.place_at(f, p, span, Some(&texts));
                match (op, &ty) {
                    (None, _) => format!("{place} = ld_v;"),
                    (Some(o), Type::Scalar(s)) if int_op(o, &ty).is_some() => format!("{place} = {}({place}, ld_v);", self.int_op_call(o, *s)),
                    (Some(o), _) => format!("{place} {}= ld_v;", o.symbol()),
                }
            }
        };
        format!("{{ {} if {} {{ {write} }} }}", lets.join(" "), checks.join(" && "))
    }

    /// Each index of a place, in evaluation order (the memory's, then
    /// those inside the value), with the length it must be below and its
    /// site.
    fn index_sites<'p>(&mut self, f: &Func, p: &'p Place, span: proc_macro2::Span) -> Vec<(&'p Expr, String, u32)> {
        let mut out = Vec::new();
        let mut ty = match &p.root {
            Root::Local(id) => f.locals[*id].ty.clone(),
            Root::Mem { mem, index } => {
                let (_, m) = self.mem_name(f, *mem);
                let len = self.mem_len(m);
                let site = self.mem_site(m, span);
                out.push((&**index, len, site));
                self.mem_elem(f, *mem)
            }
        };
        for pr in &p.path {
            ty = match (pr, ty) {
                (Proj::Index(i), Type::Array(e, n)) => {
                    let site = self.site(SiteWhat::Array, "", Some(n), span);
                    out.push((&**i, format!("{n}u"), site));
                    *e
                }
                (Proj::Field(i), Type::Struct(sid)) => self.m.structs[sid].fields[*i].1.clone(),
                (Proj::Component(_), _) => Type::U32,
                _ => unreachable!("ill-typed projection"),
            };
        }
        out
    }

    /// `place op= v` for an operation emitted as a helper call (see
    /// [`int_op`]): the place is evaluated once, before `v`, as `op=` does.
    fn assign_int_op(&mut self, f: &mut Func, p: &Place, op: BinOp, v: &Expr) -> String {
        let Type::Scalar(s) = self.place_type(f, p) else { unreachable!("integer operations act on scalars") };
        let call = self.int_op_call(op, s);
        // Only a place without indices can be written twice as is; a vector
        // component (the last projection) has no address.
        let component = match p.path.last() {
            Some(Proj::Component(c)) => Some(["x", "y", "z"][*c as usize]),
            _ => None,
        };
        let pure = matches!(p.root, Root::Local(_)) && !p.path.iter().any(|pr| matches!(pr, Proj::Index(_)));
        if pure {
            let place = self.place(f, p, proc_macro2::Span::call_site());
            let v = self.int_operand(f, op, v);
            return format!("{place} = {call}({place}, {v});");
        }
        let mut whole = p.clone();
        if component.is_some() {
            whole.path.pop();
        }
        let place = self.place(f, &whole, proc_macro2::Span::call_site());
        let v = self.int_operand(f, op, v);
        let at = match component {
            Some(c) => format!("(*ld_p).{c}"),
            None => "*ld_p".to_string(),
        };
        format!("{{ let ld_p = &{place}; {at} = {call}({at}, {v}); }}")
    }

    /// The right operand of an integer operation helper: shift amounts are
    /// `u32` (a literal one written as such).
    pub(super) fn int_operand(&mut self, f: &mut Func, op: BinOp, v: &Expr) -> String {
        if op.is_shift() && v.ty != Type::U32 {
            if let ExprKind::Lit(l) = v.kind {
                return lit(l, &Type::U32);
            }
            return format!("u32({})", self.expr(f, v));
        }
        self.expr(f, v)
    }

    /// The name of the helper computing `op` on `s`, emitted once.
    pub(super) fn int_op_call(&mut self, op: BinOp, s: Scalar) -> String {
        let o = int_op(op, &Type::Scalar(s)).expect("an integer operation helper");
        self.int_ops.insert((o, s));
        int_op_name(o, s)
    }

    /// `x`, or, where `hide`, `x` behind an identity function (see [`hidden`]).
    fn opaque(&mut self, x: String, ty: &Type, hide: bool) -> String {
        match ty {
            Type::Scalar(s) if hide => {
                self.opaque_types.insert(*s);
                format!("ld_opaque_{}({x})", self.ty(ty))
            }
            _ => x,
        }
    }

    pub(super) fn mem_name(&self, f: &Func, m: MemRef) -> (String, MemRef) {
        let m = match m {
            MemRef::FnSlice(i) => f.slices[i].expect("bound slice"),
            m => m,
        };
        match m {
            MemRef::Param(i) => (self.param_names[i].clone(), m),
            MemRef::Shared(i) => (self.shared_names[i].clone(), m),
            MemRef::FnSlice(_) => unreachable!(),
        }
    }

    /// A place to read, every index checked by the guard (see `ld_idx`).
    pub(super) fn place(&mut self, f: &mut Func, p: &Place, span: proc_macro2::Span) -> String {
        self.place_at(f, p, span, None)
    }

    /// A place; `idx`: the texts of its indices, already checked (see
    /// [`Writer::index_sites`]), else each index is checked as it is read.
    pub(super) fn place_at(&mut self, f: &mut Func, p: &Place, span: proc_macro2::Span, idx: Option<&[String]>) -> String {
        let mut next = 0;
        let mut index = |w: &mut Self, f: &mut Func, i: &Expr, len: String, site: &dyn Fn(&mut Self) -> u32| match idx {
            Some(texts) => {
                next += 1;
                texts[next - 1].clone()
            }
            None => {
                let t = w.expr(f, i);
                let site = site(w);
                w.checked_index(i, t, &len, site)
            }
        };
        let mut s = match &p.root {
            Root::Local(id) => f.names[*id].clone(),
            Root::Mem { mem, index: i } => {
                let (_, m) = self.mem_name(f, *mem);
                let len = self.mem_len(m);
                let t = index(self, f, i, len, &|w: &mut Self| w.mem_site(m, span));
                self.mem_at(m, &t)
            }
        };
        let mut ty = match &p.root {
            Root::Local(id) => f.locals[*id].ty.clone(),
            Root::Mem { mem, .. } => self.mem_elem(f, *mem),
        };
        for pr in &p.path {
            match (pr, ty.clone()) {
                (Proj::Index(i), Type::Array(e, n)) => {
                    let t = index(self, f, i, format!("{n}u"), &|w: &mut Self| w.site(SiteWhat::Array, "", Some(n), span));
                    s = format!("{s}[{t}]");
                    ty = *e;
                }
                (Proj::Field(i), Type::Struct(sid)) => {
                    s = format!("{s}.{}", self.field_names[sid][*i]);
                    ty = self.m.structs[sid].fields[*i].1.clone();
                }
                (Proj::Component(c), _) => {
                    s = format!("{s}.{}", ["x", "y", "z"][*c as usize]);
                    ty = Type::U32;
                }
                _ => unreachable!("ill-typed projection"),
            }
        }
        s
    }

    /// The type of the value at a place.
    pub(super) fn place_type(&self, f: &Func, p: &Place) -> Type {
        let mut ty = match &p.root {
            Root::Local(id) => f.locals[*id].ty.clone(),
            Root::Mem { mem, .. } => self.mem_elem(f, *mem),
        };
        for pr in &p.path {
            ty = match (pr, ty) {
                (Proj::Index(_), Type::Array(e, _)) => *e,
                (Proj::Field(i), Type::Struct(sid)) => self.m.structs[sid].fields[*i].1.clone(),
                (Proj::Component(_), _) => Type::U32,
                _ => unreachable!("ill-typed projection"),
            };
        }
        ty
    }

    pub(super) fn mem_elem(&self, f: &Func, m: MemRef) -> Type {
        let (_, m) = self.mem_name(f, m);
        match m {
            MemRef::Param(i) => match &self.m.kernel.params[i].kind {
                ParamKind::Storage { elem, .. } => elem.clone(),
                ParamKind::Atomic { elem } => Type::Atomic(*elem),
                ParamKind::Uniform { .. } => unreachable!(),
            },
            MemRef::Shared(i) => self.m.kernel.shared[i].elem.clone(),
            MemRef::FnSlice(_) => unreachable!(),
        }
    }

    pub(super) fn expr(&mut self, f: &mut Func, e: &Expr) -> String {
        match &e.kind {
            ExprKind::Lit(l) => lit(*l, &e.ty),
            ExprKind::Load(p) if self.target_place(f, p).is_some() => self.load_target(f, p, e.span),
            ExprKind::Load(p) => self.place(f, p, e.span),
            ExprKind::Uniform(i) => format!("ld_uniforms.{}", uniform_field(&self.param_names[*i])),
            ExprKind::Builtin(b) => match b {
                Builtin::GlobalId => "ld_gid".into(),
                Builtin::LocalId => "ld_lid".into(),
                Builtin::WorkgroupId => "ld_wid".into(),
                Builtin::NumWorkgroups => "ld_nwg".into(),
                Builtin::LocalIndex => "ld_lidx".into(),
                Builtin::WorkgroupSize => {
                    let [x, y, z] = self.m.kernel.workgroup_size;
                    format!("vec3<u32>({x}u, {y}u, {z}u)")
                }
            },
            ExprKind::Unary(op, a) => {
                let x = self.expr(f, a);
                let x = self.opaque(x, &a.ty, hidden(e));
                match op {
                    UnOp::Neg => format!("(-{x})"),
                    UnOp::Not if a.ty == Type::BOOL => format!("(!{x})"),
                    UnOp::Not => format!("(~{x})"),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(f, a);
                match (int_op(*op, &a.ty), &a.ty) {
                    (Some(_), Type::Scalar(s)) => {
                        let y = self.int_operand(f, *op, b);
                        let call = self.int_op_call(*op, *s);
                        format!("{call}({x}, {y})")
                    }
                    _ => {
                        let x = self.opaque(x, &a.ty, hidden(e));
                        let y = self.expr(f, b);
                        format!("({x} {} {y})", op.symbol())
                    }
                }
            }
            ExprKind::Cast(to, a) => {
                let x = self.expr(f, a);
                if a.ty == Type::Scalar(*to) {
                    x
                } else if a.ty == Type::F32 && to.is_integer() {
                    self.float_to_int.insert(*to);
                    format!("ld_f32_to_{}({x})", self.ty(&Type::Scalar(*to)))
                } else {
                    format!("{}({x})", self.ty(&Type::Scalar(*to)))
                }
            }
            ExprKind::Intrinsic(i, args) => {
                let mut xs: Vec<String> = args.iter().map(|a| self.expr(f, a)).collect();
                let first = std::mem::take(&mut xs[0]);
                xs[0] = self.opaque(first, &args[0].ty, hidden(e));
                self.intrinsic(*i, &args[0].ty, &xs)
            }
            ExprKind::Call(id, args) => {
                let mut binding = Vec::new();
                let mut xs = Vec::new();
                for a in args {
                    match a {
                        CallArg::Value(v) => {
                            binding.push(None);
                            xs.push(self.expr(f, v));
                        }
                        CallArg::Slice { mem, offset } => {
                            let (_, m) = self.mem_name(f, *mem);
                            binding.push(Some(m));
                            xs.push(self.expr(f, offset));
                        }
                    }
                }
                let name = self.instance((*id, binding));
                format!("{name}({})", xs.join(", "))
            }
            ExprKind::Atomic(..) => self.atomic_site(f, e, &e.ty),
            ExprKind::Component(a, c) => {
                let x = self.expr(f, a);
                format!("{x}.{}", ["x", "y", "z"][*c as usize])
            }
            ExprKind::Field(a, i) => {
                let x = self.expr(f, a);
                let Type::Struct(s) = a.ty else { unreachable!() };
                format!("{x}.{}", self.field_names[s][*i])
            }
            ExprKind::Len(m, off) => {
                let (name, m) = self.mem_name(f, *m);
                let len = match m {
                    MemRef::Shared(i) => format!("{}u", self.m.kernel.shared[i].len),
                    // The instrumented kernel binds a target as its words.
                    MemRef::Param(i) if self.targets.contains_key(&m) => {
                        format!("(arrayLength(&{name}) / {}u)", self.mem_elem_words(i))
                    }
                    _ => format!("arrayLength(&{name})"),
                };
                match off {
                    Some(o) => {
                        let o = self.expr(f, o);
                        format!("({len} - {o})")
                    }
                    None => len,
                }
            }
            ExprKind::StructLit(xs) => {
                let vals: Vec<String> = xs.iter().map(|x| self.expr(f, x)).collect();
                format!("{}({})", self.ty(&e.ty), vals.join(", "))
            }
            ExprKind::ArrayLit(xs) => {
                let vals: Vec<String> = xs.iter().map(|x| self.expr(f, x)).collect();
                format!("{}({})", self.ty(&e.ty), vals.join(", "))
            }
            ExprKind::ArrayRepeat(x, n) => {
                let zero = matches!(x.kind, ExprKind::Lit(Lit::Int(0)) | ExprKind::Lit(Lit::Bool(false)))
                    || matches!(x.kind, ExprKind::Lit(Lit::Float(v)) if v.to_bits() == 0);
                if zero {
                    return format!("{}()", self.ty(&e.ty));
                }
                let v = self.expr(f, x);
                let vals = vec![v; *n as usize];
                format!("{}({})", self.ty(&e.ty), vals.join(", "))
            }
        }
    }

    fn intrinsic(&mut self, i: Intrinsic, ty: &Type, xs: &[String]) -> String {
        use Intrinsic::*;
        let call = |name: &str| format!("{name}({})", xs.join(", "));
        let as_u32 = |name: &str| {
            let c = format!("{name}({})", xs[0]);
            if *ty == Type::U32 {
                c
            } else {
                format!("u32({c})")
            }
        };
        match i {
            Abs => call("abs"),
            Min => call("min"),
            Max => call("max"),
            Clamp => call("clamp"),
            Sqrt => call("sqrt"),
            Exp => call("exp"),
            Exp2 => call("exp2"),
            Log => call("log"),
            Log2 => call("log2"),
            Pow => call("pow"),
            Powi => {
                self.uses_powi = true;
                call("ld_powi")
            }
            Sin => call("sin"),
            Cos => call("cos"),
            Tan => call("tan"),
            Atan2 => call("atan2"),
            Floor => call("floor"),
            Ceil => call("ceil"),
            Round => {
                self.uses_round = true;
                call("ld_round")
            }
            RoundTiesEven => call("round"),
            Trunc => call("trunc"),
            Fract => format!("({} - trunc({}))", xs[0], xs[0]),
            Fma => call("fma"),
            CountOneBits => as_u32("countOneBits"),
            LeadingZeros => as_u32("countLeadingZeros"),
            TrailingZeros => as_u32("countTrailingZeros"),
            ReverseBits => call("reverseBits"),
            Bitcast(s) => format!("bitcast<{}>({})", self.ty(&Type::Scalar(s)), xs[0]),
        }
    }
}

/// An integer operation ld emits as a call to a helper of its own.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum IntOp {
    Div,
    Rem,
    Shl,
    Shr,
}

/// The helper for `op` on a value of type `ty`, if it needs one: integer
/// division, remainder and shifts, always. WGSL rejects at shader creation
/// what KERNELS.md defines for them when operands are constants (and
/// `#[ld::kernels]` consts reach WGSL as literals): naga's constant
/// evaluator a divisor of zero, `i32::MIN / -1`, a shift amount of 32 or
/// more, bits shifted out of a constant; its validator a constant zero
/// divisor or shift amount of 32 or more even beside a run-time operand. A
/// helper's operands are parameters, never constants, and its body spells
/// out KERNELS.md's results rather than leave them to the back end:
/// `x / 0 == x`, `x % 0 == 0`, `MIN / -1 == MIN`, `MIN % -1 == 0`, amounts
/// taken mod 32, as the CPU twin computes them.
pub(super) fn int_op(op: BinOp, ty: &Type) -> Option<IntOp> {
    if !matches!(ty, Type::Scalar(s) if s.is_integer()) {
        return None;
    }
    Some(match op {
        BinOp::Div => IntOp::Div,
        BinOp::Rem => IntOp::Rem,
        BinOp::Shl => IntOp::Shl,
        BinOp::Shr => IntOp::Shr,
        _ => return None,
    })
}

fn int_op_name(op: IntOp, s: Scalar) -> String {
    let op = match op {
        IntOp::Div => "div",
        IntOp::Rem => "rem",
        IntOp::Shl => "shl",
        IntOp::Shr => "shr",
    };
    format!("ld_{op}_{}", s.rust_name())
}

/// The WGSL of an integer operation helper (see [`int_op`]).
fn int_op_fn(op: IntOp, s: Scalar) -> String {
    let name = int_op_name(op, s);
    let t = s.rust_name();
    let body = match (op, s) {
        // Dividing by one gives KERNELS.md's quotient (x) and remainder (0).
        (IntOp::Div | IntOp::Rem, Scalar::U32) => format!("a {} select(b, 1u, b == 0u)", if op == IntOp::Div { "/" } else { "%" }),
        (IntOp::Div | IntOp::Rem, _) => {
            format!("a {} select(b, 1i, b == 0i || (a == -2147483647i - 1i && b == -1i))", if op == IntOp::Div { "/" } else { "%" })
        }
        (IntOp::Shl, _) => "a << (b & 31u)".to_string(),
        (IntOp::Shr, _) => "a >> (b & 31u)".to_string(),
    };
    let b = if matches!(op, IntOp::Shl | IntOp::Shr) { "u32" } else { t };
    format!("fn {name}(a: {t}, b: {b}) -> {t} {{\n    return {body};\n}}\n\n")
}

/// Whether WGSL's constant evaluation can reject this operation for some
/// constant operands: a float result that is not finite (`1.0 / 0.0`,
/// `f32::MAX * 2.0`, `(-1.0f32).sqrt()`), `clamp` with `low > high`.
/// (Integer `+ - *` and negation wrap in constant evaluation, as at run
/// time; division, remainder and shifts are helper calls, see [`int_op`].)
fn may_reject(e: &Expr) -> bool {
    match &e.kind {
        // Calls to ld's own functions, never constant.
        ExprKind::Intrinsic(Intrinsic::Powi | Intrinsic::Round, _) => false,
        ExprKind::Intrinsic(Intrinsic::Clamp, _) => true,
        ExprKind::Unary(..) | ExprKind::Binary(..) | ExprKind::Intrinsic(..) => e.ty == Type::F32,
        _ => false,
    }
}

/// The operands of an operation `may_reject` covers.
fn operands(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Unary(_, a) => vec![a],
        ExprKind::Binary(_, a, b) => vec![a, b],
        ExprKind::Intrinsic(_, xs) => xs.iter().collect(),
        _ => vec![],
    }
}

/// Whether `e` is an operation WGSL's constant evaluation would reject, or
/// might: its first operand then goes through an identity function
/// (`ld_opaque_f32`), so that the GPU computes it at run time, as the CPU
/// twin does. Float arithmetic whose result ld can compute here and finds
/// finite stays a constant.
fn hidden(e: &Expr) -> bool {
    may_reject(e) && operands(e).into_iter().all(is_const) && !fold_f32(e).is_some_and(f32::is_finite)
}

/// The value of constant float arithmetic, computed in `f32` as naga's
/// constant evaluator does; `None` for anything else.
fn fold_f32(e: &Expr) -> Option<f32> {
    Some(match &e.kind {
        ExprKind::Lit(Lit::Float(x)) => *x,
        ExprKind::Cast(Scalar::F32, a) => match (&a.kind, &a.ty) {
            (ExprKind::Lit(Lit::Int(v)), Type::Scalar(Scalar::U32)) => *v as u32 as f32,
            (ExprKind::Lit(Lit::Int(v)), Type::Scalar(Scalar::I32)) => *v as i32 as f32,
            _ => fold_f32(a)?,
        },
        ExprKind::Unary(UnOp::Neg, a) => -fold_f32(a)?,
        ExprKind::Binary(op, a, b) if e.ty == Type::F32 => {
            let (x, y) = (fold_f32(a)?, fold_f32(b)?);
            match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// Whether the WGSL of `e` is a const-expression (may err towards `true`:
/// that only hides one more constant).
fn is_const(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lit(_) => true,
        // Hidden, or with a run-time operand, unless it folds to a finite float.
        _ if may_reject(e) => operands(e).into_iter().all(is_const) && fold_f32(e).is_some_and(f32::is_finite),
        ExprKind::Binary(op, a, _) if int_op(*op, &a.ty).is_some() => false,
        ExprKind::Intrinsic(Intrinsic::Powi | Intrinsic::Round, _) => false,
        ExprKind::Unary(_, a) | ExprKind::Cast(_, a) | ExprKind::Component(a, _) | ExprKind::Field(a, _) | ExprKind::ArrayRepeat(a, _) => is_const(a),
        ExprKind::Binary(_, a, b) => is_const(a) && is_const(b),
        ExprKind::Intrinsic(_, xs) | ExprKind::StructLit(xs) | ExprKind::ArrayLit(xs) => xs.iter().all(is_const),
        // A workgroup array's length is a literal.
        ExprKind::Len(_, off) => off.as_deref().is_none_or(is_const),
        ExprKind::Load(_) | ExprKind::Uniform(_) | ExprKind::Builtin(_) | ExprKind::Call(..) | ExprKind::Atomic(..) => false,
    }
}

/// The indices of a place, in evaluation order: the memory's element,
/// then those of arrays inside the value.
pub(super) fn indices(p: &Place) -> Vec<&Expr> {
    let mut out = Vec::new();
    if let Root::Mem { index, .. } = &p.root {
        out.push(&**index);
    }
    for pr in &p.path {
        if let Proj::Index(i) = pr {
            out.push(&**i);
        }
    }
    out
}

/// A statement's own expressions (not those of the blocks inside it).
fn own_exprs(s: &Stmt) -> Vec<Expr> {
    match &s.kind {
        StmtKind::Let(_, Some(e)) | StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::If(e, _, _) => vec![e.clone()],
        StmtKind::Assign(p, _, v) => indices(p).into_iter().cloned().chain([v.clone()]).collect(),
        StmtKind::Loop(l) => l.cond.iter().cloned().collect(),
        _ => vec![],
    }
}

/// Whether `e` calls one of `fns`.
fn calls_any(e: &Expr, fns: &HashSet<FnId>) -> bool {
    let mut found = false;
    crate::ir::visit::expr_mut(&mut e.clone(), &mut |x| found |= matches!(&x.kind, ExprKind::Call(id, _) if fns.contains(id)));
    found
}

/// The helpers that may stop the invocation: those holding a loop (which
/// the guard stops when it runs out of fuel or the driver ends it), and
/// those calling one.
fn may_halt(m: &Module) -> HashSet<FnId> {
    let mut set: HashSet<FnId> = HashSet::new();
    loop {
        let before = set.len();
        for (id, fun) in m.functions.iter().enumerate() {
            let mut halts = false;
            walk_stmts(&fun.body.block, &mut |s| halts |= matches!(s.kind, StmtKind::Loop(_)));
            crate::ir::visit::exprs(&fun.body.block, &mut |x| halts |= matches!(&x.kind, ExprKind::Call(c, _) if set.contains(c)));
            if halts {
                set.insert(id);
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// Every helper instance the kernel reaches, in the order its calls are
/// met: a helper for each binding of its slice parameters.
fn reached_instances(m: &Module) -> Vec<Instance> {
    let mut found: Vec<Instance> = vec![];
    let mut todo: Vec<(&Block, Vec<Option<MemRef>>)> = vec![(&m.kernel.body.block, vec![])];
    while let Some((block, slices)) = todo.pop() {
        let mut calls = vec![];
        crate::ir::visit::exprs(block, &mut |e| {
            if let ExprKind::Call(id, args) = &e.kind {
                let binding = args
                    .iter()
                    .map(|a| match a {
                        CallArg::Value(_) => None,
                        CallArg::Slice { mem: MemRef::FnSlice(i), .. } => Some(slices[*i].expect("bound slice")),
                        CallArg::Slice { mem, .. } => Some(*mem),
                    })
                    .collect();
                calls.push((*id, binding));
            }
        });
        for inst in calls {
            if !found.contains(&inst) {
                found.push(inst.clone());
                todo.push((&m.functions[inst.0].body.block, inst.1));
            }
        }
    }
    found
}

pub(super) fn line_to(f: &mut Func, line: &str) {
    for _ in 0..f.indent {
        f.out.push_str("    ");
    }
    f.out.push_str(line);
    f.out.push('\n');
}

pub fn lit(l: Lit, ty: &Type) -> String {
    match (l, ty) {
        (Lit::Int(v), Type::Scalar(Scalar::U32)) => format!("{}u", v as u32),
        (Lit::Int(v), _) => {
            let v = v as i32;
            if v == i32::MIN {
                "(-2147483647i - 1i)".into()
            } else if v < 0 {
                format!("(-{}i)", -(v as i64))
            } else {
                format!("{v}i")
            }
        }
        (Lit::Float(x), _) => {
            let s = format!("{:?}", x.abs());
            let s = if s.contains('.') || s.contains('e') { s } else { format!("{s}.0") };
            if x.is_sign_negative() {
                format!("(-{s}f)")
            } else {
                format!("{s}f")
            }
        }
        (Lit::Bool(b), _) => b.to_string(),
    }
}

/// A block that is one barrier and nothing else.
fn is_one_barrier(b: &Block) -> bool {
    matches!(b.as_slice(), [Stmt { kind: StmtKind::Barrier(_), .. }])
}
