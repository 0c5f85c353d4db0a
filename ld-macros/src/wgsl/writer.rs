//! Text emission of WGSL from the IR.

use super::names::Namer;
use crate::ir::*;
use std::collections::HashMap;
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
    pub(super) param_names: Vec<String>,
    pub(super) shared_names: Vec<String>,
    instances: HashMap<Instance, String>,
    queue: Vec<Instance>,
    uses_round: bool,
    uses_powi: bool,
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
        let param_names = m.kernel.params.iter().map(|p| globals.fresh(&p.name)).collect();
        let shared_names = m.kernel.shared.iter().map(|s| globals.fresh(&s.name)).collect();
        let mut w = Writer {
            m,
            variant,
            targets: HashMap::new(),
            accessors: vec![],
            accessor_names: HashMap::new(),
            globals,
            struct_names,
            param_names,
            shared_names,
            instances: HashMap::new(),
            queue: vec![],
            uses_round: false,
            uses_powi: false,
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
        for (s, name) in self.m.structs.iter().zip(&self.struct_names) {
            writeln!(out, "struct {name} {{").unwrap();
            for (f, t) in &s.fields {
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

    fn instance(&mut self, inst: Instance) -> String {
        if let Some(n) = self.instances.get(&inst) {
            return n.clone();
        }
        let name = self.globals.fresh(&self.m.functions[inst.0].name);
        self.instances.insert(inst.clone(), name.clone());
        self.queue.push(inst);
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
            StmtKind::Assign(p, op, v) => {
                let place = self.place(f, p);
                let lit_shift = op.and_then(|o| shift_amount(o, v));
                let mut v = lit_shift.clone().unwrap_or_else(|| self.expr(f, v));
                let op = match op {
                    None => "=".to_string(),
                    Some(op) => {
                        if op.is_shift() && lit_shift.is_none() {
                            v = format!("u32({v})");
                        }
                        format!("{}=", op.symbol())
                    }
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
                    let (name, fty) = &self.m.structs[sid].fields[*i];
                    s = format!("{s}.{name}");
                    ty = fty.clone();
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
                Builtin::GlobalId => "ld_gid",
                Builtin::LocalId => "ld_lid",
                Builtin::WorkgroupId => "ld_wid",
                Builtin::NumWorkgroups => "ld_nwg",
                Builtin::LocalIndex => "ld_lidx",
            }
            .into(),
            ExprKind::Unary(op, a) => {
                let x = self.expr(f, a);
                match op {
                    UnOp::Neg => format!("(-{x})"),
                    UnOp::Not if a.ty == Type::BOOL => format!("(!{x})"),
                    UnOp::Not => format!("(~{x})"),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(f, a);
                let y = shift_amount(*op, b).unwrap_or_else(|| self.expr(f, b));
                if op.is_shift() && b.ty != Type::U32 && !matches!(b.kind, ExprKind::Lit(_)) {
                    format!("({x} {} u32({y}))", op.symbol())
                } else {
                    format!("({x} {} {y})", op.symbol())
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
                let xs: Vec<String> = args.iter().map(|a| self.expr(f, a)).collect();
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
                format!("{x}.{}", self.m.structs[s].fields[*i].0)
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

/// A literal shift amount, masked to its low five bits as WGSL does at run
/// time (naga rejects a constant amount of 32 or more).
fn shift_amount(op: BinOp, amount: &Expr) -> Option<String> {
    match amount.kind {
        ExprKind::Lit(Lit::Int(v)) if op.is_shift() => Some(format!("{}u", (v as u32) & 31)),
        _ => None,
    }
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
