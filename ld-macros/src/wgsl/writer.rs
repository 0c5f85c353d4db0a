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
    /// Check mode: every region run twice on the warps' copies of every
    /// target and checked at its closing barrier; the body is a state
    /// machine so that a region can run again (see `instrument`).
    Instrumented,
    /// Deterministic mode and level 1's second pass: each region runs once
    /// on the warps' copies, folded in warp order at its closing barrier;
    /// the body keeps its structure (see `folded`).
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
    /// The integer operation helpers used (see [`int_op`]).
    int_ops: BTreeSet<(IntOp, Scalar)>,
    /// The scalar types whose `ld_opaque_*` identity function is used (see [`hidden`]).
    opaque_types: BTreeSet<Scalar>,
    /// Instrumented: one function per atomic call site whose result is used.
    pub(super) atomic_sites: Vec<String>,
    /// Instrumented: the kernel's locals, as module-scope private variables,
    /// and their copies at a region's start and after its first pass.
    pub(super) kernel_locals: Vec<String>,
    pub(super) kernel_saves: Vec<(String, String)>,
    /// Folded: barrier statements emitted so far (their index, in source order).
    pub(super) next_barrier: usize,
}

/// Per-function state: local names and the binding of slice parameters.
pub(super) struct Func<'a> {
    pub locals: &'a [Local],
    pub names: Vec<String>,
    pub slices: Vec<Option<MemRef>>,
    pub indent: usize,
    pub out: String,
    /// The instrumented kernel's body: `return` ends the invocation's region run.
    pub in_machine: bool,
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
            opaque_types: BTreeSet::new(),
            atomic_sites: vec![],
            kernel_locals: vec![],
            kernel_saves: vec![],
            next_barrier: 0,
        };
        if variant != Variant::Native {
            w.targets = crate::analysis::targets::list(m).into_iter().enumerate().map(|(t, mem)| (mem, t)).collect();
        }
        if variant == Variant::Instrumented {
            w.kernel_locals = m.kernel.body.locals.iter().map(|l| w.globals.fresh(&l.name)).collect();
            w.kernel_saves = w.kernel_locals.clone().iter().map(|n| (w.globals.fresh(&format!("{n}_0")), w.globals.fresh(&format!("{n}_1")))).collect();
        }
        w
    }

    pub fn module(mut self) -> String {
        let entry = match self.variant {
            Variant::Native => self.entry(),
            Variant::Instrumented => self.entry_instrumented(),
            Variant::Folded => self.entry_folded(),
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
        for s in std::mem::take(&mut self.opaque_types) {
            let t = self.ty(&Type::Scalar(s));
            writeln!(out, "// Hides a constant from WGSL's constant evaluation, which rejects what\n// the GPU computes at run time (a float that is not finite, ...).\nfn ld_opaque_{t}(x: {t}) -> {t} {{\n    return x;\n}}\n").unwrap();
        }
        out.push_str(&helpers);
        out.push_str(&entry);
        out
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
        Func { locals, names, slices, indent: 1, out: String::new(), in_machine: false }
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
        let [x, y, z] = k.workgroup_size;
        format!(
            "@compute @workgroup_size({x}, {y}, {z})\nfn main(\n    @builtin(global_invocation_id) ld_gid: vec3<u32>,\n    @builtin(local_invocation_id) ld_lid: vec3<u32>,\n    @builtin(workgroup_id) ld_wid: vec3<u32>,\n    @builtin(num_workgroups) ld_nwg: vec3<u32>,\n    @builtin(local_invocation_index) ld_lidx: u32,\n) {{\n{}}}\n",
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
        match &s.kind {
            StmtKind::Let(id, Some(e)) => {
                let v = self.expr(f, e);
                let line = format!("{} = {v};", f.names[*id]);
                line_to(f, &line);
            }
            StmtKind::Let(_, None) => {}
            StmtKind::Assign(p, op, v) if self.target_place(f, p).is_some() => {
                let line = self.store_target(f, p, *op, v);
                line_to(f, &line);
            }
            StmtKind::Assign(p, Some(op), v) if int_op(*op, &self.place_type(f, p)).is_some() => {
                let line = self.assign_int_op(f, p, *op, v);
                line_to(f, &line);
            }
            StmtKind::Assign(p, op, v) => {
                let place = self.place(f, p);
                let v = self.expr(f, v);
                let op = match op {
                    None => "=".to_string(),
                    Some(op) => format!("{}=", op.symbol()),
                };
                line_to(f, &format!("{place} {op} {v};"));
            }
            StmtKind::Expr(Expr { kind: ExprKind::Atomic(op, p, args), .. }) if self.variant != Variant::Native => {
                // Replayed passes skip an atomic whose result is unused.
                let x = self.atomic_call(f, *op, p, args);
                line_to(f, &format!("if ld_atomics_live() {{ {}; }}", if *op == AtomicOp::Store { x } else { format!("_ = {x}") }));
            }
            StmtKind::Expr(e) => {
                let x = self.expr(f, e);
                if e.ty == Type::Unit {
                    line_to(f, &format!("{x};"));
                } else {
                    line_to(f, &format!("_ = {x};"));
                }
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
                line_to(f, "loop {");
                f.indent += 1;
                if let Some(c) = &l.cond {
                    let c = self.expr(f, c);
                    line_to(f, &format!("if !{c} {{ break; }}"));
                }
                self.block(f, &l.body);
                if !l.continuing.is_empty() {
                    line_to(f, "continuing {");
                    f.indent += 1;
                    self.block(f, &l.continuing);
                    f.indent -= 1;
                    line_to(f, "}");
                }
                f.indent -= 1;
                line_to(f, "}");
            }
            StmtKind::Break => line_to(f, "break;"),
            StmtKind::Continue => line_to(f, "continue;"),
            // The instrumented kernel runs its body in `ld_run`: leaving it ends the invocation.
            StmtKind::Return(None) if f.in_machine => line_to(f, "ld_pc = LD_DONE; ld_stop = LD_DONE; return;"),
            StmtKind::Return(None) => line_to(f, "return;"),
            StmtKind::Return(Some(e)) => {
                let x = self.expr(f, e);
                line_to(f, &format!("return {x};"));
            }
            // The folded kernel's barriers end a region: the engine folds it.
            StmtKind::Barrier(_) if self.variant == Variant::Folded => {
                let line = format!("ld_fold_region({}u);", self.next_barrier);
                self.next_barrier += 1;
                line_to(f, &line);
            }
            StmtKind::Barrier(BarrierKind::Workgroup) => line_to(f, "workgroupBarrier();"),
            StmtKind::Barrier(BarrierKind::Storage) => line_to(f, "storageBarrier();"),
        }
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
            let place = self.place(f, p);
            let v = self.int_operand(f, op, v);
            return format!("{place} = {call}({place}, {v});");
        }
        let mut whole = p.clone();
        if component.is_some() {
            whole.path.pop();
        }
        let place = self.place(f, &whole);
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

    pub(super) fn place(&mut self, f: &mut Func, p: &Place) -> String {
        self.place_at(f, p, "")
    }

    /// A place; a non-empty `index` replaces its memory index expression.
    pub(super) fn place_at(&mut self, f: &mut Func, p: &Place, index_text: &str) -> String {
        let mut s = match &p.root {
            Root::Local(id) => f.names[*id].clone(),
            Root::Mem { mem, index } => {
                let (_, m) = self.mem_name(f, *mem);
                let i = if index_text.is_empty() { self.expr(f, index) } else { index_text.to_string() };
                self.mem_at(m, &i)
            }
        };
        let mut ty = match &p.root {
            Root::Local(id) => f.locals[*id].ty.clone(),
            Root::Mem { mem, .. } => self.mem_elem(f, *mem),
        };
        for pr in &p.path {
            match (pr, ty.clone()) {
                (Proj::Index(i), Type::Array(e, _)) => {
                    let i = self.expr(f, i);
                    s = format!("{s}[{i}]");
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
            ExprKind::Load(p) if self.target_place(f, p).is_some() => self.load_target(f, p),
            ExprKind::Load(p) => self.place(f, p),
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
            ExprKind::Atomic(op, p, args) if self.variant != Variant::Native => self.atomic_site(f, *op, p, args, &e.ty),
            ExprKind::Atomic(op, p, args) => self.atomic_call(f, *op, p, args),
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
