//! The instrumented kernels of check and deterministic modes: the kernel
//! checks (or folds) itself at its barriers (paper sections 4.1-4.4), in
//! one dispatch per batch of workgroups.
//!
//! The body keeps its structure (`structured.rs`): each region runs once on
//! every warp's copies, and each barrier statement becomes the engine's
//! work on the region it closes: check mode's sweep compares the copies
//! and the lane tags of every access and commits where the barrier ends an
//! epoch; deterministic mode folds. Every
//! access to a target (a written storage buffer or a workgroup array) goes
//! through the engine (`ld-shaders`' `wgsl/engine/`) to the running warp's
//! copy, one 32-bit word at a time. The contract with the runtime (bindings,
//! configuration, layouts) is `ld_shaders::abi`.

use super::writer::{Func, SiteWhat, Writer};
use crate::ir::*;
use crate::lower::{self, Term};
use ld_shaders::abi::overrides::{DET_WRITERS, DIRECT, IN_PLACE, WIDE};
use std::fmt::Write;

/// How an accessor reaches a target's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum WordAccess {
    Read,
    /// A read no write can meet (`analysis::settled`): no tags.
    SettledRead,
    Write,
    /// The probe's accesses no other invocation meets (`Root::Mem::own`):
    /// no tag, their residue checked.
    OwnRead,
    OwnWrite,
}

impl WordAccess {
    fn is_store(self) -> bool {
        matches!(self, WordAccess::Write | WordAccess::OwnWrite)
    }

    /// The function of a target's words it calls (`ld_rd{t}`, ...).
    fn word_fn(self) -> &'static str {
        match self {
            WordAccess::Read => "ld_rd",
            WordAccess::SettledRead => "ld_rs",
            WordAccess::Write => "ld_wr",
            WordAccess::OwnRead => "ld_ro",
            WordAccess::OwnWrite => "ld_wo",
        }
    }
}

impl Writer<'_> {
    /// How a read (or a store: `write`) of place `p` reaches its target's
    /// words: a settled read untagged (`analysis::settled`), and the
    /// probe's own accesses with their residue checked (`Root::Mem::own`),
    /// where the place is a workgroup array (a helper's slice may be bound
    /// to a buffer at another call, whose reads level 1 needs).
    pub(super) fn word_access(&self, f: &Func, p: &Place, write: bool) -> WordAccess {
        let Root::Mem { mem, settled, own, .. } = &p.root else { unreachable!("targets are memories") };
        let shared = matches!(self.mem_name(f, *mem).1, MemRef::Shared(_));
        let probe = self.variant == super::writer::Variant::Probe;
        match (write, shared && *settled, shared && *own && probe) {
            (false, true, _) => WordAccess::SettledRead,
            (false, false, true) => WordAccess::OwnRead,
            (false, false, false) => WordAccess::Read,
            (true, _, true) => WordAccess::OwnWrite,
            (true, _, false) => WordAccess::Write,
        }
    }

    /// The target a place lives in, if it is privatized.
    pub(super) fn target_place(&self, f: &Func, p: &Place) -> Option<usize> {
        match &p.root {
            Root::Mem { mem, .. } => self.target_of(f, *mem),
            Root::Local(_) => None,
        }
    }

    pub(super) fn mem_elem_words(&self, param: usize) -> u32 {
        match &self.m.kernel.params[param].kind {
            ParamKind::Storage { elem, .. } => elem.words(self.m),
            _ => 1,
        }
    }

    /// The first word of a place in its target, and the place's type.
    /// `idx`: the texts of its indices, already checked by the guard (see
    /// `Writer::index_sites`); else each index is checked as it is read
    /// (past the end: noted, and the last element read instead).
    pub(super) fn word_addr(&mut self, f: &mut Func, p: &Place, idx: Option<&[String]>, span: crate::Span) -> (String, Type) {
        let Root::Mem { mem, index, .. } = &p.root else { unreachable!("targets are memories") };
        let (_, m) = self.mem_name(f, *mem);
        let elem = self.mem_elem(f, *mem);
        let ew = elem.words(self.m);
        let mut texts = idx.map(|v| v.iter());
        let i = match texts.as_mut() {
            Some(t) => format!("u32({})", t.next().unwrap()),
            None => {
                let len = self.mem_len(m);
                let t = self.expr(f, index);
                let site = self.mem_site(m, span);
                self.checked_index(index, t, &len, site)
            }
        };
        let mut addr = format!("{i} * {ew}u");
        let mut ty = elem;
        for pr in &p.path {
            match (pr, ty.clone()) {
                (Proj::Field(fi), Type::Struct(sid)) => {
                    let def = &self.m.structs[sid];
                    write!(addr, " + {}u", def.field_offset(self.m, *fi)).unwrap();
                    ty = def.fields[*fi].1.clone();
                }
                (Proj::Index(e), Type::Array(el, n)) => {
                    let x = match texts.as_mut() {
                        Some(t) => format!("u32({})", t.next().unwrap()),
                        None => {
                            let x = self.expr(f, e);
                            let site = self.site(SiteWhat::Array, "", Some(n), span);
                            self.checked_index(e, x, &format!("{n}u"), site)
                        }
                    };
                    write!(addr, " + {x} * {}u", el.words(self.m)).unwrap();
                    ty = *el;
                }
                (Proj::Component(c), _) => {
                    write!(addr, " + {c}u").unwrap();
                    ty = Type::U32;
                }
                _ => unreachable!("ill-typed projection"),
            }
        }
        (format!("({addr})"), ty)
    }

    pub(super) fn load_target(&mut self, f: &mut Func, p: &Place, span: crate::Span) -> String {
        let t = self.target_place(f, p).unwrap();
        let (addr, ty) = self.word_addr(f, p, None, span);
        let load = self.accessor(t, &ty, self.word_access(f, p, false));
        format!("{load}({addr})")
    }

    /// A function loading (or storing) a value of `ty` at a word of target `t`.
    pub(super) fn accessor(&mut self, t: usize, ty: &Type, how: WordAccess) -> String {
        let store = how.is_store();
        let key = (t, self.ty(ty), how);
        if let Some(n) = self.accessor_names.get(&key) {
            return n.clone();
        }
        let name = format!("ld_{}{t}_{}", if store { "st" } else { "ld" }, self.accessor_names.len());
        self.accessor_names.insert(key, name.clone());
        let wty = self.ty(ty);
        // Parameters and locals carry ld's prefix: `wty` may name a user
        // struct, which a plain `a` or `v` could shadow.
        let body = match ty {
            Type::Scalar(s) => {
                let word = how.word_fn();
                let (from, to) = match s {
                    Scalar::U32 => ("ld_v".to_string(), format!("{word}{t}(ld_a)")),
                    Scalar::Bool => ("select(0u, 1u, ld_v)".to_string(), format!("{word}{t}(ld_a) != 0u")),
                    _ => ("bitcast<u32>(ld_v)".to_string(), format!("bitcast<{wty}>({word}{t}(ld_a))")),
                };
                if store {
                    format!("    {word}{t}(ld_a, {from});\n")
                } else {
                    format!("    return {to};\n")
                }
            }
            Type::Struct(sid) => {
                let def = &self.m.structs[*sid];
                let mut parts = Vec::new();
                for (i, (_, fty)) in def.fields.iter().enumerate() {
                    let off = def.field_offset(self.m, i);
                    let inner = self.accessor(t, fty, how);
                    let fname = &self.field_names[*sid][i];
                    parts.push(if store { format!("    {inner}(ld_a + {off}u, ld_v.{fname});\n") } else { format!("{inner}(ld_a + {off}u)") });
                }
                if store {
                    parts.concat()
                } else {
                    format!("    return {wty}({});\n", parts.join(", "))
                }
            }
            Type::Array(el, n) => {
                let inner = self.accessor(t, el, how);
                let ew = el.words(self.m);
                if store {
                    format!("    for (var ld_j = 0u; ld_j < {n}u; ld_j++) {{\n        {inner}(ld_a + ld_j * {ew}u, ld_v[ld_j]);\n    }}\n")
                } else {
                    format!("    var ld_v: {wty};\n    for (var ld_j = 0u; ld_j < {n}u; ld_j++) {{\n        ld_v[ld_j] = {inner}(ld_a + ld_j * {ew}u);\n    }}\n    return ld_v;\n")
                }
            }
            Type::Unit | Type::UVec3 | Type::Atomic(_) | Type::Var(_) => {
                unreachable!("not a memory element type")
            }
        };
        let sig = if store { format!("fn {name}(ld_a: u32, ld_v: {wty})") } else { format!("fn {name}(ld_a: u32) -> {wty}") };
        self.accessors.push(format!("{sig} {{\n{body}}}\n\n"));
        name
    }

    /// Everything the instrumented kernel declares besides the kernel's own
    /// bindings and structs: the contract, the engine, the targets' word
    /// accessors, the kernel's locals.
    pub(super) fn instrumented_prelude(&mut self) -> String {
        let k = &self.m.kernel;
        let wg: u32 = k.workgroup_size.iter().product();
        let mut out = ld_shaders::abi::wgsl_prelude();
        let check = self.variant == super::writer::Variant::Instrumented;
        writeln!(
            out,
            "const LD_WG_SIZE: u32 = {wg}u;\nconst LD_INVOCATIONS: u32 = {wg}u;\n{}\n{}\nconst LD_CHECK: bool = {check};\n",
            // Each set by the runtime's pipeline in the variant it varies in
            // (`Variant::FoldedWriters`, `Variant::Instrumented`).
            if check { DET_WRITERS.fixed(0) } else { DET_WRITERS.decl() },
            if check { WIDE.decl() } else { WIDE.fixed(0) },
        )
        .unwrap();
        out.push_str(&self.invocation_ids());
        // The dispatch's input words of each storage target (the parameters
        // carry ld's prefix: a buffer may be named `t` or `k`).
        let mut user = String::from("fn ld_user(ld_t: u32, ld_k: u32) -> u32 {\n");
        let mut access = String::new();
        let mut bases = String::new();
        let mut targets: Vec<(MemRef, usize)> = self.targets.iter().map(|(m, t)| (*m, *t)).collect();
        targets.sort_by_key(|(_, t)| *t);
        for (mem, t) in targets {
            if let MemRef::Param(p) = mem {
                let name = &self.param_names[p];
                writeln!(user, "    if ld_t == {t}u && ld_k < arrayLength(&{name}) {{\n        return {name}[ld_k];\n    }}").unwrap();
                // A target left in place (`LD_IN_PLACE`) is the user's buffer itself
                // (the parameters carry ld's prefix: a buffer may be named `k` or `v`).
                writeln!(
                    access,
                    "fn ld_rd{t}(ld_k: u32) -> u32 {{\n    if ld_in_place({t}u) {{\n        return {name}[ld_k];\n    }}\n    return ld_storage_read({t}u, ld_k);\n}}\n\nfn ld_wr{t}(ld_k: u32, ld_v: u32) {{\n    if ld_in_place({t}u) {{\n        {name}[ld_k] = ld_v;\n        return;\n    }}\n    ld_storage_write({t}u, ld_k, ld_v);\n}}\n"
                )
                .unwrap();
            } else {
                // A workgroup array's words lie in order from the pass's role base.
                writeln!(access, "var<private> ld_b{t}: u32;\nvar<private> ld_tb{t}: u32;\n\nfn ld_rd{t}(k: u32) -> u32 {{\n    let v = ld_val[ld_b{t} + k];\n    ld_on_read({t}u, k / LD_PAGE, k % LD_PAGE);\n    return v;\n}}\n\n// A settled read (`analysis::settled`): no write meets it.\nfn ld_rs{t}(k: u32) -> u32 {{\n    return ld_val[ld_b{t} + k];\n}}\n\nfn ld_wr{t}(k: u32, v: u32) {{\n    ld_val[ld_b{t} + k] = v;\n    ld_val[ld_tb{t} + k / LD_PAGE] = 1u;\n    ld_on_write({t}u, k / LD_PAGE, k % LD_PAGE);\n}}\n").unwrap();
                writeln!(bases, "    ld_b{t} = ld_vaddr({t}u, ld_cur_role, 0u, 0u);\n    ld_tb{t} = ld_mark_addr({t}u, 0u);").unwrap();
            }
        }
        access.push_str(&format!("fn ld_pass_bases() {{\n{bases}}}\n\n"));
        user.push_str("    return 0u;\n}\n\n");
        out.push_str(&user);
        out.push_str(ld_shaders::ENGINE);
        out.push('\n');
        out.push_str(ld_shaders::EXACT);
        out.push('\n');
        out.push_str(&access);
        for a in std::mem::take(&mut self.accessors) {
            out.push_str(&a);
        }
        out.push_str(&self.barrier_kinds());
        out.push_str(&self.target_kinds());
        out
    }

    /// What the engine asks of the kernel's targets: which are storage
    /// buffers, whose epochs span regions, and which target a flat entry
    /// number belongs to.
    fn target_kinds(&self) -> String {
        let mut out = String::new();
        // Which targets are storage buffers, and whose epochs span regions
        // (barriers of the other kind split them).
        let kinds = barriers(self.m);
        let has = |kind: BarrierKind| kinds.iter().any(|(k, _)| *k == kind);
        let mut storage = Vec::new();
        let mut spans = Vec::new();
        for (mem, t) in &self.targets {
            let st = matches!(mem, MemRef::Param(_));
            if st {
                storage.push(*t);
            }
            if has(if st { BarrierKind::Workgroup } else { BarrierKind::Storage }) {
                spans.push(*t);
            }
        }
        // (Where every target is of one kind, a constant: the engine's
        // paths for the other kind compile away, where lavapipe would run
        // them masked.)
        let all = self.targets.len();
        let test = |list: &mut Vec<usize>| {
            list.sort();
            if list.is_empty() {
                "false".to_string()
            } else if list.len() == all {
                "true".to_string()
            } else {
                list.iter().map(|t| format!("t == {t}u")).collect::<Vec<_>>().join(" || ")
            }
        };
        writeln!(
            out,
            "fn ld_target_storage(t: u32) -> bool {{\n    return {};\n}}\n\nfn ld_target_spans(t: u32) -> bool {{\n    return {};\n}}\n\n\
             // The storage targets whose tables are direct-mapped, a bit each: set\n\
             // by the runtime's pipeline from the layout (`Variant`), so that a\n\
             // direct table's accesses compile without the hash table's probes.\n\
             {}\n\n\
             fn ld_direct(t: u32) -> bool {{\n    return ((LD_DIRECT >> t) & 1u) != 0u;\n}}\n\n\
             // The storage targets the launch leaves in place, a bit each\n\
             // (`KernelInfo::in_place` on its grid, `Variant`): each invocation\n\
             // accesses only its own element, so they are read and written\n\
             // directly, unchecked.\n\
             {}\n\n\
             fn ld_in_place(t: u32) -> bool {{\n    return ((LD_IN_PLACE >> t) & 1u) != 0u;\n}}\n\n\
             // The targets lanes of a warp cannot conflict on\n\
             // (`analysis::targets::lane_safe`): deterministic mode does not tag them.\n\
             const LD_LANE_SAFE: u32 = {}u;\n",
            test(&mut storage),
            test(&mut spans),
            DIRECT.decl(),
            IN_PLACE.decl(),
            crate::analysis::targets::lane_safe(self.m)
        )
        .unwrap();
        // The target of a flat entry number (targets' entries are numbered in order).
        let mut flat = String::from("fn ld_flat_target(j: u32) -> u32 {\n    var t = 0u;\n");
        for t in 1..self.targets.len() {
            writeln!(flat, "    if j >= ld_cfg.t[{t}u].first_entry {{\n        t = {t}u;\n    }}").unwrap();
        }
        flat.push_str("    return t;\n}\n\n");
        out.push_str(&flat);
        out
    }

    /// `ld_storage_barrier(b)`: whether barrier index `b` is a storageBarrier.
    pub(super) fn barrier_kinds(&self) -> String {
        let storage: Vec<String> =
            barriers(self.m).iter().enumerate().filter(|(_, (k, _))| *k == BarrierKind::Storage).map(|(i, _)| format!("b == {i}u")).collect();
        let test = if storage.is_empty() { "false".to_string() } else { storage.join(" || ") };
        format!("fn ld_storage_barrier(b: u32) -> bool {{\n    return {test};\n}}\n\n")
    }

    /// What both instrumented entry points share: the invocation's ids and
    /// copy (`ld_enter`), and which barriers end which epochs (`ld_orders`).
    pub(super) fn entry_common(&self) -> String {
        "fn ld_enter(slot: u32, li: u32) {\n    ld_slot = slot;\n    ld_sv = ld_cfg.val_base + slot * ld_cfg.slot_values;\n    ld_sm = slot * ld_cfg.slot_meta;\n    ld_li = li;\n    ld_wg = ld_cfg.wg_offset + slot;\n    ld_set_ids(ld_wg, li);\n    ld_warp = li >> firstTrailingBit(ld_cfg.warp_size);\n    ld_copy = (ld_warp / max(ld_cfg.copy_div, 1u)) % max(ld_cfg.copies, 1u);\n    ld_guard_enter(ld_wg, li);\n}\n\n\
         // Whether a region ending at `end` ends the epoch of a memory kind.\n\
         fn ld_orders(end: u32, storage: bool) -> bool {\n    return end == LD_NONE || ld_storage_barrier(end) == storage;\n}\n\n"
            .to_string()
    }

    /// The invocation's ids as the body reads them (`ld_gid`, ...), and
    /// `ld_set_ids`, which derives them from the linear workgroup and the
    /// local index: the instrumented kernels and the probe declare a
    /// one-dimensional workgroup (see `structured`) and run a batch of the
    /// grid's workgroups per dispatch.
    pub(super) fn invocation_ids(&self) -> String {
        let [x, y, z] = self.m.kernel.workgroup_size;
        format!(
            "var<private> ld_gid: vec3<u32>;\nvar<private> ld_lid: vec3<u32>;\nvar<private> ld_wid: vec3<u32>;\nvar<private> ld_nwg: vec3<u32>;\nvar<private> ld_lidx: u32;\n\n\
             fn ld_set_ids(wg: u32, li: u32) {{\n    let g = vec3<u32>(ld_cfg.grid_x, ld_cfg.grid_y, ld_cfg.grid_z);\n    ld_wid = vec3<u32>(wg % g.x, (wg / g.x) % g.y, wg / (g.x * g.y));\n    ld_lid = vec3<u32>(li % {x}u, (li / {x}u) % {y}u, li / {xy}u);\n    ld_gid = ld_wid * vec3<u32>({x}u, {y}u, {z}u) + ld_lid;\n    ld_nwg = g;\n    ld_lidx = li;\n}}\n\n",
            xy = x * y,
        )
    }

    /// The engine calls `main` makes for the targets before the body.
    pub(super) fn steps(&self) -> Steps {
        // Storage targets come first (`analysis::targets::list`): their
        // tables' entries are the flat entries before the first workgroup
        // array's, emptied in one loop. One loop over the workgroup arrays,
        // not a call per array: lavapipe compiles every inlined copy of the
        // engine's loops.
        let storage = self.targets.keys().filter(|m| matches!(m, MemRef::Param(_))).count();
        let all = self.targets.len();
        let over = |lo: usize, hi: usize, call: &str, pad: &str| {
            if lo == hi {
                return String::new();
            }
            format!("{pad}for (var ld_t = {lo}u; ld_t < {hi}u; ld_t++) {{\n{pad}    {call}(ld_t);\n{pad}}}\n")
        };
        let tables = match storage {
            0 => String::new(),
            s if s == all => "    ld_setup_storage(ld_cfg.entries_total);\n".to_string(),
            s => format!("    ld_setup_storage(ld_cfg.t[{s}u].first_entry);\n"),
        };
        Steps { setup: tables + &over(storage, all, "ld_setup_shared", "    ") }
    }

    /// An atomic: a function per call site that checks the index (an
    /// atomic past the end is noted and not performed) and runs it. Atomics
    /// are never privatized: every mode runs each one once.
    pub(super) fn atomic_site(&mut self, f: &mut Func, e: &Expr, ty: &Type) -> String {
        let ExprKind::Atomic(op, p, args) = &e.kind else { unreachable!("an atomic call") };
        let (op, span) = (*op, e.span);
        let Root::Mem { mem, index, .. } = &p.root else { unreachable!("atomics live in memory") };
        let (_, m) = self.mem_name(f, *mem);
        let i = self.expr(f, index);
        let xs: Vec<String> = args.iter().map(|a| self.expr(f, a)).collect();
        let Type::Atomic(elem) = self.mem_elem(f, *mem) else { unreachable!("atomics live in atomic arrays") };
        let et = self.ty(&Type::Scalar(elem));
        let n = self.atomic_sites.len();
        let target = self.mem_at(m, "ld_i");
        let call = atomic_op(op, &target, &["ld_x", "ld_y"][..xs.len()]);
        let params: Vec<String> = ["ld_x", "ld_y"][..xs.len()].iter().map(|a| format!(", {a}: {et}")).collect();
        let len = self.mem_len(m);
        let site = self.mem_site(m, span);
        let ok = self.index_ok(&index.ty, "ld_i", &len, site);
        let it = self.ty(&index.ty);
        let body = if self.variant == super::writer::Variant::Plain {
            // No guard; a compare-exchange retried as a shader writes it.
            match (op, ty) {
                (AtomicOp::CompareExchange, _) => format!(
                    "    var ld_old: {et};\n    loop {{\n        let ld_r = atomicCompareExchangeWeak(&{target}, ld_x, ld_y);\n        ld_old = ld_r.old_value;\n        if ld_r.exchanged || ld_old != ld_x {{\n            break;\n        }}\n    }}\n    return ld_old;\n"
                ),
                (_, Type::Unit) => format!("    {call};\n"),
                _ => format!("    return {call};\n"),
            }
        } else if op == AtomicOp::CompareExchange {
            // WGSL's compare-exchange is weak: it may fail without storing
            // while the element holds `current`, which the old value alone
            // cannot tell from success. Retried until it stores or sees
            // another value, the operation is the strong one the CPU twin
            // runs (a GPU whose exchange is strong never retries).
            let weak = format!("atomicCompareExchangeWeak(&{target}, ld_x, ld_y)");
            format!(
                "    if !{ok} {{\n        return {et}();\n    }}\n    var ld_r = {weak};\n    loop {{\n        if ld_r.exchanged || ld_r.old_value != ld_x {{\n            break;\n        }}\n        ld_r = {weak};\n    }}\n    return ld_r.old_value;\n"
            )
        } else if *ty == Type::Unit {
            format!("    if {ok} {{\n        {call};\n    }}\n")
        } else {
            let t = self.ty(ty);
            format!("    if !{ok} {{\n        return {t}();\n    }}\n    return {call};\n")
        };
        let ret = if op == AtomicOp::CompareExchange {
            format!(" -> {et}")
        } else if *ty == Type::Unit {
            String::new()
        } else {
            format!(" -> {}", self.ty(ty))
        };
        self.atomic_sites.push(format!("fn ld_atomic_{n}(ld_i: {it}{}){ret} {{\n{body}}}\n\n", params.concat()));
        let mut call_args = vec![i];
        call_args.extend(xs);
        format!("ld_atomic_{n}({})", call_args.join(", "))
    }
}

/// What `main` runs for the targets before the body.
pub(super) struct Steps {
    pub setup: String,
}

/// The kernel's barriers by index (their statements' order in the body):
/// kind and span. The index is what the engine, the CPU twin and the
/// runtime's reports call a barrier.
pub fn barriers(m: &Module) -> Vec<(BarrierKind, crate::Span)> {
    let machine = lower::machine(&m.kernel.body.block);
    let mut out: Vec<(usize, BarrierKind, crate::Span)> =
        machine.blocks.iter().filter_map(|b| if let Term::Barrier(kind, _, i, span) = b.term { Some((i, kind, span)) } else { None }).collect();
    out.sort_by_key(|b| b.0);
    out.into_iter().map(|(_, k, s)| (k, s)).collect()
}

/// WGSL's call for an atomic operation on `target`.
pub(super) fn atomic_op(op: AtomicOp, target: &str, xs: &[&str]) -> String {
    match op {
        AtomicOp::Load => format!("atomicLoad(&{target})"),
        AtomicOp::Store => format!("atomicStore(&{target}, {})", xs[0]),
        AtomicOp::CompareExchange => format!("atomicCompareExchangeWeak(&{target}, {}, {}).old_value", xs[0], xs[1]),
        op => {
            let name = match op {
                AtomicOp::Add => "atomicAdd",
                AtomicOp::Sub => "atomicSub",
                AtomicOp::Max => "atomicMax",
                AtomicOp::Min => "atomicMin",
                AtomicOp::And => "atomicAnd",
                AtomicOp::Or => "atomicOr",
                AtomicOp::Xor => "atomicXor",
                AtomicOp::Exchange => "atomicExchange",
                _ => unreachable!(),
            };
            format!("{name}(&{target}, {})", xs[0])
        }
    }
}
