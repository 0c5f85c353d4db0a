//! Text emission of WGSL from the IR.

use super::instrument::WordAccess;
use super::names::Namer;
use crate::ir::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write;

mod consts;
mod expr;
mod stmt;

use consts::*;

/// A helper specialised for the memories bound to its slice parameters.
type Instance = (FnId, Vec<Option<MemRef>>);

/// Which shader to emit: the kernel as written, or the instrumented kernel
/// of check and deterministic modes (see `instrument`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Native,
    /// The native kernel without ld's guard: indices unchecked, loops
    /// without fuel, no guard binding. Plain WGSL as a user would write
    /// it, which the shader front-end reads back (the round trip).
    Plain,
    /// Check mode: each region runs once on the warps' copies of every
    /// target, every access tagged, and is checked at its closing barrier
    /// (see `instrument`).
    Instrumented,
    /// Deterministic mode: each region runs once on the warps' copies,
    /// folded in warp order at its closing barrier; the body keeps its
    /// structure (see `structured`).
    Folded,
    /// The probe of check and deterministic modes: the body on the user's buffers and in
    /// workgroup memory, every access to a target tagged (see `probe`).
    Probe,
}

impl Variant {
    /// The kernel as written (native or plain), not one of the engine's.
    pub(super) fn as_written(self) -> bool {
        matches!(self, Variant::Native | Variant::Plain)
    }
}

pub struct Writer<'m> {
    pub(super) m: &'m Module,
    pub(super) variant: Variant,
    /// Instrumented: the target number of each privatized memory.
    pub(super) targets: HashMap<MemRef, usize>,
    /// Instrumented: typed loaders and storers of target words, by name.
    pub(super) accessors: Vec<String>,
    pub(super) accessor_names: HashMap<(usize, String, WordAccess), String>,
    pub(super) globals: Namer,
    struct_names: Vec<String>,
    /// Each struct's field names, by struct and field.
    pub(super) field_names: Vec<Vec<String>>,
    pub(super) param_names: Vec<String>,
    pub(super) shared_names: Vec<String>,
    /// The uniform block's global.
    pub(super) uniforms_name: String,
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
    /// The probe: the workgroup arrays whose tags each barrier clears
    /// (`analysis::settled::clears`), and the distinct sets of them its
    /// barrier calls name (`ld_probe_region`'s `c`).
    pub(super) clears: Option<crate::analysis::settled::Clears>,
    pub(super) clear_sets: Vec<Vec<MemRef>>,
    /// The probe: each barrier statement's id and address, as written.
    pub(super) barrier_stmts: Vec<(usize, usize)>,
}

/// A place in the kernel's source that the guard checks: an indexed access
/// of a buffer, a shared array or an array inside a value; or a loop.
#[derive(Debug, Clone)]
pub struct Site {
    /// What kind of place the site is.
    pub what: SiteWhat,
    /// The buffer's or shared array's name, as the CPU twin names it
    /// (empty for arrays inside values and for loops).
    pub array: String,
    /// The length an index is checked against, where it is a constant
    /// (shared and inner arrays; a buffer's is its length at launch).
    pub len: Option<u32>,
    /// Where the access or loop stands in the kernel source.
    pub span: crate::Span,
}

/// The kinds of guard site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteWhat {
    /// An indexed access of a storage buffer (directly or through a helper's slice).
    Buffer,
    /// An indexed access of a workgroup array.
    Shared,
    /// An index into a fixed-size array held in a value.
    Array,
    /// A loop: each iteration it starts spends the guard's fuel.
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
    /// The plain kernel: scalar locals bound once (`bound_once`), written
    /// as WGSL `let`s where the IR binds them, as a shader would write
    /// them (the front-end's analyses then see them bound once too).
    pub lets: HashSet<LocalId>,
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
        // (Shaders may not name a global `ld_*`: the plain kernel's
        // uniform block is a name of its own.)
        let uniforms_name = if variant == Variant::Plain { globals.fresh("uniforms") } else { "ld_uniforms".to_string() };
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
            uniforms_name,
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
            may_halt: if variant == Variant::Plain { HashSet::new() } else { may_halt(m) },
            clears: (variant == Variant::Probe).then(|| crate::analysis::settled::clears(m)),
            clear_sets: vec![],
            barrier_stmts: vec![],
        };
        if !variant.as_written() {
            w.targets = crate::analysis::targets::list(m).into_iter().enumerate().map(|(t, mem)| (mem, t)).collect();
        }
        w
    }

    /// The module's WGSL, and the guard's sites in it.
    pub fn module(mut self) -> (String, Vec<Site>) {
        let entry = match self.variant {
            Variant::Native | Variant::Plain => self.entry(),
            Variant::Instrumented => self.entry_structured("ld_check_region"),
            Variant::Folded => self.entry_structured("ld_fold_region"),
            Variant::Probe => self.entry_probe(),
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
            writeln!(out, "@group(0) @binding({}) var<uniform> {}: LdUniforms;", self.m.kernel.params.len(), self.uniforms_name).unwrap();
        }
        for (a, (sh, name)) in self.m.kernel.shared.iter().zip(&self.shared_names).enumerate() {
            // Targets live in the engine's copies (the probe's in words of
            // its own, `probe_prelude`); atomic arrays stay real.
            if !self.targets.contains_key(&MemRef::Shared(a)) {
                writeln!(out, "var<workgroup> {name}: array<{}, {}>;", self.ty(&sh.elem), sh.len).unwrap();
            }
        }
        let variant = match self.variant {
            Variant::Native | Variant::Plain => ld_shaders::abi::guard::NATIVE,
            Variant::Instrumented => ld_shaders::abi::guard::INSTRUMENTED,
            Variant::Folded => ld_shaders::abi::guard::FOLDED,
            Variant::Probe => ld_shaders::abi::guard::PROBE,
        };
        let faults = self.m.kernel.bounds == crate::ir::Bounds::Fault;
        if self.variant != Variant::Plain {
            out.push_str(&ld_shaders::abi::guard_prelude(self.m.kernel.params.len(), variant, faults));
        }
        match self.variant {
            Variant::Native | Variant::Plain => {}
            Variant::Probe => out.push_str(&self.probe_prelude()),
            _ => out.push_str(&self.instrumented_prelude()),
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
    pub(super) fn site(&mut self, what: SiteWhat, array: &str, len: Option<u32>, span: crate::Span) -> u32 {
        self.sites.push(Site { what, array: array.to_string(), len, span });
        self.sites.len() as u32 - 1
    }

    /// The site of an access to memory `m` (a buffer or a shared array).
    pub(super) fn mem_site(&mut self, m: MemRef, span: crate::Span) -> u32 {
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
        if self.variant == Variant::Plain {
            return text;
        }
        let f = if i.ty == Type::I32 { "ld_idx_i" } else { "ld_idx" };
        format!("{f}({text}, {len}, {site}u)")
    }

    /// Whether a write at index `i` (a let) may go ahead (see `ld_ok`).
    pub(super) fn index_ok(&self, ty: &Type, i: &str, len: &str, site: u32) -> String {
        if self.variant == Variant::Plain {
            return "true".to_string();
        }
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
        Func { locals, names, slices, indent: 1, out: String::new(), halt: "return;".into(), loops: vec![], next_loop: 0, lets: HashSet::new() }
    }

    pub(super) fn declare_locals(&self, f: &mut Func, skip: &[LocalId]) {
        for (i, l) in f.locals.iter().enumerate() {
            if !skip.contains(&i) {
                let line = format!("var {}: {};", f.names[i], self.ty(&l.ty));
                line_to(f, &line);
            }
        }
    }

    /// The scalar locals of `block` bound once, for the plain kernel.
    fn plain_lets(&self, locals: &[Local], block: &[Stmt]) -> HashSet<LocalId> {
        if self.variant != Variant::Plain {
            return HashSet::new();
        }
        let once = crate::analysis::targets::bound_once_in(block);
        once.into_iter().map(|(id, _)| id).filter(|&id| matches!(locals[id].ty, Type::Scalar(_))).collect()
    }

    fn entry(&mut self) -> String {
        let k = &self.m.kernel;
        let mut f = self.func(&k.body.locals, vec![]);
        f.lets = self.plain_lets(&k.body.locals, &k.body.block);
        let skip: Vec<LocalId> = f.lets.iter().copied().collect();
        self.declare_locals(&mut f, &skip);
        self.block(&mut f, &k.body.block);
        // The body is a function of its own, so that every way out of it
        // (its end, a `return`, the guard stopping it) passes the guard's
        // one recording of the invocation's fault.
        let [x, y, z] = k.workgroup_size;
        if self.variant == Variant::Plain {
            // (The body in the entry point itself: no guard to pass on
            // the way out, and the builtins are the entry point's own.)
            return format!(
                "@compute @workgroup_size({x}, {y}, {z})\nfn main(\n    @builtin(global_invocation_id) ld_gid: vec3<u32>,\n    @builtin(local_invocation_id) ld_lid: vec3<u32>,\n    @builtin(workgroup_id) ld_wid: vec3<u32>,\n    @builtin(num_workgroups) ld_nwg: vec3<u32>,\n    @builtin(local_invocation_index) ld_lidx: u32,\n) {{\n{}}}\n",
                f.out
            );
        }
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
        f.lets = self.plain_lets(&fun.body.locals, &fun.body.block);
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
        let skip: Vec<LocalId> = f.lets.iter().copied().collect();
        self.declare_locals(&mut f, &skip);
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
