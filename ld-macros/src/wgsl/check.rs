//! Check mode's instrumented WGSL. Both variants redirect every access to a
//! privatized memory to the running unit's copy (`ld_base_*`), clamp the
//! index to the logical length so a stray access cannot reach another unit's
//! copy, and log the atomic results the kernel uses so pass 2 replays them.
//!
//! - Level 1 is the kernel as written (real barriers and workgroup memory);
//!   only storage targets move, to the workgroup's copy.
//! - Level 2 runs one region per dispatch: the lowered state machine runs
//!   until the next barrier, then saves its locals and position to
//!   `ld_state` and returns; the host sweeps the copies between dispatches.
//!   Shared arrays live in storage, one copy per warp of each workgroup.
//!
//! Extra bindings, after the scalar block at `params.len()`: `+1` `ld_cfg`
//! (the check's configuration words, see `ld-runtime`'s `check::gpu`),
//! `+2` `ld_state`, `+3` `ld_log`, `+4` `ld_flags`, `+5` `ld_yield`, `+6`
//! `ld_dirty`, then one per shared array.

use super::writer::{line_to, Func, Variant, Writer};
use crate::ir::*;
use crate::lower::{self, Term};
use std::fmt::Write;

/// Configuration word indices (must match the runtime).
/// 0 pass, 1 level-1 copies, 2 level-1 divisor, 3 warp size, 4 level-2
/// copies per workgroup, 5 atomic log size, 6 invocations, 7/8 state load/save
/// offsets, 9 save, 10 level-2 divisor, 12 first workgroup of the batch, 13
/// workgroups in the batch; per parameter from 16: length, single copy; then
/// dirty-page offsets and pages per memory.
pub const CFG_PARAMS: u32 = 16;

impl Writer<'_> {
    fn common_prelude(&self) -> String {
        let p = self.m.kernel.params.len();
        let mut out = String::new();
        writeln!(out, "@group(0) @binding({}) var<storage, read> ld_cfg: array<u32>;", p + 1).unwrap();
        writeln!(out, "@group(0) @binding({}) var<storage, read_write> ld_log: array<u32>;", p + 3).unwrap();
        writeln!(out, "@group(0) @binding({}) var<storage, read_write> ld_flags: array<atomic<u32>>;", p + 4).unwrap();
        out.push_str("var<private> ld_inv: u32;\nvar<private> ld_wgl: u32;\nvar<private> ld_warp: u32;\nvar<private> ld_li: u32;\nvar<private> ld_acount: u32;\n");
        // Level 2: the workgroup's place in its batch, the warp's copy this round.
        out.push_str("var<private> ld_grp: u32;\nvar<private> ld_copy: u32;\n");
        for (i, private) in self.private.iter().enumerate() {
            if *private {
                writeln!(out, "var<private> ld_base_{i}: u32;\nvar<private> ld_len_{i}: u32;").unwrap();
            }
        }
        out.push_str(
            "// Pass 1 logs the atomic results an invocation uses; pass 2 replays them.\n\
             fn ld_record(r: u32) {\n    if ld_acount < ld_cfg[5] {\n        ld_log[ld_acount * ld_cfg[6] + ld_inv] = r;\n    } else {\n        atomicStore(&ld_flags[0], 1u);\n        atomicMin(&ld_flags[1], ld_inv);\n    }\n    ld_acount += 1u;\n}\n\n\
             fn ld_replay() -> u32 {\n    var v = 0u;\n    if ld_acount < ld_cfg[5] {\n        v = ld_log[ld_acount * ld_cfg[6] + ld_inv];\n    }\n    ld_acount += 1u;\n    return v;\n}\n\n",
        );
        out
    }

    /// `ld_init`: ids, and each privatized memory's copy for this unit.
    fn init_fn(&self, bases: &str) -> String {
        let wg: u32 = self.m.kernel.workgroup_size.iter().product();
        let mut out = String::from("fn ld_init(gid: vec3<u32>, lid: vec3<u32>, wid: vec3<u32>, nwg: vec3<u32>, lidx: u32) {\n");
        writeln!(out, "    ld_wgl = wid.x + wid.y * nwg.x + wid.z * nwg.x * nwg.y;\n    ld_inv = ld_wgl * {wg}u + lidx;\n    ld_li = lidx;\n    ld_warp = lidx / ld_cfg[3];\n    ld_acount = 0u;\n    ld_grp = ld_wgl - ld_cfg[12];\n    ld_copy = (ld_warp / max(ld_cfg[10], 1u)) % max(ld_cfg[4], 1u);").unwrap();
        for (i, private) in self.private.iter().enumerate() {
            if *private {
                let (len, single) = (CFG_PARAMS + 2 * i as u32, CFG_PARAMS + 2 * i as u32 + 1);
                writeln!(out, "    ld_len_{i} = ld_cfg[{len}];").unwrap();
                writeln!(out, "    ld_base_{i} = select({}, {}, ld_cfg[{single}] == 1u) * ld_len_{i};", bases_for(bases, "many"), bases_for(bases, "single")).unwrap();
            }
        }
        out.push_str(&self.shared_bases());
        out.push_str("}\n\n");
        out
    }

    pub(super) fn prelude_level1(&self) -> String {
        let mut out = self.common_prelude();
        out.push_str(&self.init_fn("l1"));
        out
    }

    pub(super) fn prelude_level2(&mut self) -> String {
        let p = self.m.kernel.params.len();
        let mut out = self.common_prelude();
        writeln!(out, "@group(0) @binding({}) var<storage, read_write> ld_state: array<u32>;", p + 2).unwrap();
        writeln!(out, "@group(0) @binding({}) var<storage, read_write> ld_yield: array<u32>;", p + 5).unwrap();
        writeln!(out, "@group(0) @binding({}) var<storage, read_write> ld_dirty: array<u32>;", p + 6).unwrap();
        for (a, (s, name)) in self.m.kernel.shared.iter().zip(&self.shared_names).enumerate() {
            writeln!(out, "@group(0) @binding({}) var<storage, read_write> {name}: array<{}>;", p + 7 + a, self.ty(&s.elem)).unwrap();
            writeln!(out, "var<private> ld_shbase_{a}: u32;").unwrap();
        }
        // Pages (64 words) a workgroup writes in an epoch; sweeps skip the rest.
        let np = self.m.kernel.params.len() as u32;
        let dirty = |cfg: u32, ew: u32, len: &str| {
            format!(
                "    let w = min(k, {len} - 1u) * {ew}u;\n    let o = ld_cfg[{cfg}] + ld_grp * ld_cfg[{}];\n    ld_dirty[o + w / 64u] = 1u;\n    ld_dirty[o + (w + {}u) / 64u] = 1u;\n",
                cfg + 1,
                ew - 1
            )
        };
        for (i, private) in self.private.iter().enumerate() {
            if *private {
                let ParamKind::Storage { elem, .. } = &self.m.kernel.params[i].kind else { continue };
                let body = dirty(CFG_PARAMS + 2 * np + 2 * i as u32, elem.words(self.m), &format!("ld_len_{i}"));
                writeln!(out, "fn ld_mark_p{i}(k: u32) {{\n{body}}}\n").unwrap();
            }
        }
        for (a, s) in self.m.kernel.shared.iter().enumerate() {
            if self.shared_target(a) {
                let body = dirty(CFG_PARAMS + 4 * np + 2 * a as u32, s.elem.words(self.m), &format!("{}u", s.len));
                writeln!(out, "fn ld_mark_s{a}(k: u32) {{\n{body}}}\n").unwrap();
            }
        }
        out.push_str("const LD_DONE: u32 = 0xffffffffu;\nvar<private> ld_pc: u32;\nvar<private> ld_stop: u32;\n");
        if self.wg_copies {
            out.push_str(&self.workgroup_copies());
        }
        for (l, name) in self.m.kernel.body.locals.iter().zip(&self.kernel_locals) {
            writeln!(out, "var<private> {name}: {};", self.ty(&l.ty)).unwrap();
        }
        out.push_str(&self.init_fn("l2"));
        // Locals and position travel between dispatches through `ld_state`.
        let mut save = String::from("fn ld_save() {\n    ld_state[ld_cfg[8] + ld_inv] = ld_pc;\n");
        let mut load = String::from("fn ld_load() {\n    ld_pc = ld_state[ld_cfg[7] + ld_inv];\n");
        let mut word = 1u32;
        let mut loops = 0;
        for (l, name) in self.m.kernel.body.locals.iter().zip(self.kernel_locals.clone()) {
            self.serialize(&mut save, &mut load, &name, &l.ty, &format!("{word}u"), &mut loops);
            word += l.ty.words(self.m).max(1);
        }
        save.push_str("}\n\n");
        load.push_str("}\n\n");
        out.push_str(&save);
        out.push_str(&load);
        out.push_str("fn ld_exit() {\n    if ld_cfg[9] == 1u {\n        ld_save();\n        if ld_li == 0u {\n            ld_yield[ld_wgl] = ld_stop;\n        }\n    }\n}\n\n");
        out
    }

    /// The warps' copies of each shared array in workgroup memory (sized by
    /// the `LD_WARPS` override), filled from the storage copy set before the
    /// region and written back after it, marking the pages that changed.
    fn workgroup_copies(&self) -> String {
        let wg: u32 = self.m.kernel.workgroup_size.iter().product();
        let mut out = String::from("override LD_WARPS: u32 = 1u;\n");
        let (mut cin, mut cout) = (String::from("fn ld_copy_in() {\n"), String::from("fn ld_copy_out() {\n"));
        for (a, s) in self.m.kernel.shared.iter().enumerate() {
            if !self.shared_target(a) {
                continue;
            }
            let (len, name, ty) = (s.len, &self.shared_names[a], self.ty(&s.elem));
            writeln!(out, "var<workgroup> ld_wc_{a}: array<{ty}, LD_WARPS * {len}u>;").unwrap();
            let slot = "(ld_grp * (2u + 2u * ld_cfg[4]) + 2u + j / {len}u + select(0u, ld_cfg[4], ld_cfg[0] == 2u)) * {len}u + j % {len}u";
            let at = slot.replace("{len}", &len.to_string());
            writeln!(cin, "    for (var j = ld_li; j < LD_WARPS * {len}u; j += {wg}u) {{\n        ld_wc_{a}[j] = {name}[{at}];\n    }}").unwrap();
            let changed = if matches!(s.elem, Type::Scalar(_)) { format!("ld_wc_{a}[j] != {name}[{at}]") } else { "true".to_string() };
            writeln!(cout, "    for (var j = ld_li; j < LD_WARPS * {len}u; j += {wg}u) {{\n        if {changed} {{\n            {name}[{at}] = ld_wc_{a}[j];\n            ld_mark_s{a}(j % {len}u);\n        }}\n    }}").unwrap();
        }
        cin.push_str("    workgroupBarrier();\n}\n\n");
        cout.push_str("}\n\n");
        out.push_str(&cin);
        out.push_str(&cout);
        out
    }

    fn shared_bases(&self) -> String {
        if self.variant != Variant::Level2 {
            return String::new();
        }
        let mut out = String::new();
        for (a, s) in self.m.kernel.shared.iter().enumerate() {
            let base = match s.elem {
                // Atomic arrays are real (one per workgroup), never copied.
                Type::Atomic(_) => "ld_grp".to_string(),
                _ => "ld_grp * (2u + 2u * ld_cfg[4]) + 2u + ld_copy + select(0u, ld_cfg[4], ld_cfg[0] == 2u)".to_string(),
            };
            writeln!(out, "    ld_shbase_{a} = ({base}) * {}u;", s.len).unwrap();
        }
        out
    }

    /// Statements that store (`save`) and restore (`load`) one local as
    /// words `off..` of the invocation's state, structure-of-arrays.
    fn serialize(&self, save: &mut String, load: &mut String, x: &str, ty: &Type, off: &str, loops: &mut usize) {
        let slot = |half: u32, off: &str| format!("ld_state[ld_cfg[{half}] + ({off}) * ld_cfg[6] + ld_inv]");
        match ty {
            Type::Scalar(s) => {
                let (to, from) = match s {
                    Scalar::U32 => (x.to_string(), slot(7, off)),
                    Scalar::Bool => (format!("select(0u, 1u, {x})"), format!("{} != 0u", slot(7, off))),
                    _ => (format!("bitcast<u32>({x})"), format!("bitcast<{}>({})", self.ty(ty), slot(7, off))),
                };
                writeln!(save, "    {} = {to};", slot(8, off)).unwrap();
                writeln!(load, "    {x} = {from};").unwrap();
            }
            Type::UVec3 => {
                for (c, n) in ["x", "y", "z"].iter().enumerate() {
                    self.serialize(save, load, &format!("{x}.{n}"), &Type::U32, &format!("{off} + {c}u"), loops);
                }
            }
            Type::Array(e, n) => {
                let j = format!("ld_j{}", *loops);
                *loops += 1;
                let ew = e.words(self.m);
                let (mut s2, mut l2) = (String::new(), String::new());
                self.serialize(&mut s2, &mut l2, &format!("{x}[{j}]"), e, &format!("{off} + {j} * {ew}u"), loops);
                writeln!(save, "    for (var {j} = 0u; {j} < {n}u; {j}++) {{\n{s2}    }}").unwrap();
                writeln!(load, "    for (var {j} = 0u; {j} < {n}u; {j}++) {{\n{l2}    }}").unwrap();
            }
            Type::Struct(id) => {
                let def = &self.m.structs[*id];
                for (f, (fname, fty)) in def.fields.iter().enumerate() {
                    let fo = def.field_offset(self.m, f);
                    self.serialize(save, load, &format!("{x}.{fname}"), fty, &format!("{off} + {fo}u"), loops);
                }
            }
            Type::Unit | Type::Atomic(_) | Type::Var(_) => {}
        }
    }

    pub(super) fn entry_level2(&mut self) -> String {
        let k = &self.m.kernel;
        let machine = lower::machine(&k.body.block);
        let mut f = self.func(&k.body.locals, vec![]);
        f.names = self.kernel_locals.clone();
        f.l2_kernel = true;
        f.indent = 3;
        let mut body = String::new();
        for (id, b) in machine.blocks.iter().enumerate() {
            f.out.clear();
            self.block(&mut f, &b.stmts);
            match &b.term {
                Term::Return => line_to(&mut f, "ld_pc = LD_DONE;\n            ld_stop = LD_DONE;"),
                Term::Goto(t) => line_to(&mut f, &format!("ld_pc = {t}u;")),
                Term::Branch(c, a, e) => {
                    let c = self.expr(&mut f, c);
                    line_to(&mut f, &format!("if {c} {{ ld_pc = {a}u; }} else {{ ld_pc = {e}u; }}"));
                }
                // Yield ids are barrier ids plus one (0 means "still running").
                Term::Barrier(_, next, _) => line_to(&mut f, &format!("ld_pc = {next}u;\n            ld_stop = {}u;", id + 1)),
            }
            writeln!(body, "        case {id}u: {{\n{}        }}", f.out).unwrap();
        }
        let [x, y, z] = k.workgroup_size;
        // Every invocation, finished or not, takes part in the copies.
        let (copy_in, copy_out) = if self.wg_copies { ("    ld_copy_in();\n", "    workgroupBarrier();\n    ld_copy_out();\n") } else { ("", "") };
        format!(
            "var<private> ld_gid: vec3<u32>;\nvar<private> ld_lid: vec3<u32>;\nvar<private> ld_wid: vec3<u32>;\nvar<private> ld_nwg: vec3<u32>;\nvar<private> ld_lidx: u32;\n\n\
             // The region: blocks of the lowered kernel until the next barrier.\n\
             fn ld_run() {{\n    while ld_stop == 0u {{\n        switch ld_pc {{\n{body}        default: {{\n            ld_pc = LD_DONE;\n            ld_stop = LD_DONE;\n        }}\n        }}\n    }}\n}}\n\n\
             @compute @workgroup_size({x}, {y}, {z})\nfn main(\n    @builtin(global_invocation_id) b_gid: vec3<u32>,\n    @builtin(local_invocation_id) b_lid: vec3<u32>,\n    @builtin(workgroup_id) b_wid: vec3<u32>,\n    @builtin(num_workgroups) b_nwg: vec3<u32>,\n    @builtin(local_invocation_index) b_lidx: u32,\n) {{\n    ld_gid = b_gid;\n    ld_lid = b_lid;\n    ld_wid = b_wid;\n    ld_nwg = b_nwg;\n    ld_lidx = b_lidx;\n    ld_init(ld_gid, ld_lid, ld_wid, ld_nwg, ld_lidx);\n    if ld_grp >= ld_cfg[13] {{\n        return;\n    }}\n    ld_load();\n    ld_stop = 0u;\n{copy_in}    if ld_pc == LD_DONE {{\n        ld_stop = LD_DONE;\n    }}\n    ld_run();\n{copy_out}    ld_exit();\n}}\n"
        )
    }

    /// An atomic whose result the kernel uses: a function per call site that
    /// records the result in pass 1 and replays it in pass 2.
    pub(super) fn atomic_site(&mut self, f: &mut Func, op: AtomicOp, p: &Place, args: &[Expr], ty: &Type) -> String {
        let Root::Mem { mem, index } = &p.root else { unreachable!("atomics live in memory") };
        let (_, m) = self.mem_name(f, *mem);
        let i = self.expr(f, index);
        let xs: Vec<String> = args.iter().map(|a| self.expr(f, a)).collect();
        let t = self.ty(ty);
        let n = self.atomic_sites.len();
        let target = self.mem_at(m, "ld_i");
        let call = atomic_op(op, &target, &["ld_a", "ld_b"][..xs.len()]);
        let params: Vec<String> = ["ld_a", "ld_b"][..xs.len()].iter().map(|a| format!(", {a}: {t}")).collect();
        self.atomic_sites.push(format!(
            "fn ld_atomic_{n}(ld_i: u32{}) -> {t} {{\n    if ld_cfg[0] == 2u {{\n        return bitcast<{t}>(ld_replay());\n    }}\n    let r = {call};\n    ld_record(bitcast<u32>(r));\n    return r;\n}}\n\n",
            params.concat()
        ));
        let mut call_args = vec![format!("u32({i})")];
        call_args.extend(xs);
        format!("ld_atomic_{n}({})", call_args.join(", "))
    }

    /// The bare atomic call (native code, and statement position in check variants).
    pub(super) fn atomic_call(&mut self, f: &mut Func, op: AtomicOp, p: &Place, args: &[Expr]) -> String {
        let Root::Mem { mem, index } = &p.root else { unreachable!("atomics live in memory") };
        let (_, m) = self.mem_name(f, *mem);
        let i = self.expr(f, index);
        let xs: Vec<String> = args.iter().map(|a| self.expr(f, a)).collect();
        let target = self.mem_at(m, &i);
        let refs: Vec<&str> = xs.iter().map(|s| s.as_str()).collect();
        atomic_op(op, &target, &refs)
    }
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

/// The copy a unit uses. Every copy set is `[base, union, copies, pass-2
/// copies]`: at level 1 the copies are the units' (the workgroup mapped to
/// its copy by the round plan, `(unit / div) % m`), at level 2 the warps' of
/// each workgroup. Pass 2 runs on the pass-2 copies, so pass 1's stay.
fn bases_for(variant: &str, which: &str) -> &'static str {
    match (variant, which) {
        ("l1", "many") => "2u + (ld_wgl / ld_cfg[2]) % ld_cfg[1] + select(0u, ld_cfg[1], ld_cfg[0] == 2u)",
        ("l1", _) => "2u + select(0u, 1u, ld_cfg[0] == 2u)",
        (_, "many") => "ld_grp * (2u + 2u * ld_cfg[4]) + 2u + ld_copy + select(0u, ld_cfg[4], ld_cfg[0] == 2u)",
        _ => "2u + select(0u, 1u, ld_cfg[0] == 2u)",
    }
}
