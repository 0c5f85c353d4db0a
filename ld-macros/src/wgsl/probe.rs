//! The probe of check and deterministic modes (`ld_shaders::abi::probe`):
//! the kernel body as the instrumented kernels write it (the same
//! accessors, the same exact float arithmetic, a barrier statement a call
//! of the engine), but its targets are the user's buffers and words of
//! workgroup memory, each access tagged with the invocation's codes
//! (`wgsl/probe.wgsl`). Where no two invocations shared a word, one
//! writing, the probe's result is the folded kernel's and no check can
//! find a race, at the cost of a run with an atomic per access.

use super::writer::Writer;
use crate::ir::*;
use std::fmt::Write;

impl Writer<'_> {
    /// The probe's declarations: the contract's bindings, the invocation's
    /// ids, the exact float functions, the tags, the targets' words.
    pub(super) fn probe_prelude(&mut self) -> String {
        let wg: u32 = self.m.kernel.workgroup_size.iter().product();
        let mut out = ld_shaders::abi::wgsl_prelude();
        writeln!(out, "const LD_WG_SIZE: u32 = {wg}u;\n").unwrap();
        out.push_str(&self.invocation_ids());
        out.push_str(ld_shaders::EXACT);
        out.push('\n');
        out.push_str(ld_shaders::PROBE);
        out.push('\n');
        let mut targets: Vec<(MemRef, usize)> = self.targets.iter().map(|(m, t)| (*m, *t)).collect();
        targets.sort_by_key(|(_, t)| *t);
        // No two invocations of a workgroup touch a word of these
        // (`analysis::targets::own_element`): no tag among them.
        let own = crate::analysis::targets::own_element(self.m);
        // The workgroup arrays' tags, one array for all (one loop clears
        // them: lavapipe runs every loop's body at least once).
        let mut tag_words = 0u32;
        for (mem, t) in targets {
            let own = own >> t & 1 != 0;
            match mem {
                MemRef::Param(p) => {
                    // (The parameters carry ld's prefix: a buffer may be named `k` or `v`.)
                    let name = &self.param_names[p];
                    let tag = if own { "ld_probe_wg" } else { "ld_probe_storage" };
                    writeln!(
                        out,
                        "fn ld_rd{t}(ld_k: u32) -> u32 {{\n    if !ld_in_place({t}u) {{\n        {tag}({t}u, ld_k, 0u);\n    }}\n    return {name}[ld_k];\n}}\n\n\
                         // The read of a compound assignment, which its write's tag stands for.\n\
                         fn ld_rs{t}(ld_k: u32) -> u32 {{\n    return {name}[ld_k];\n}}\n\n\
                         fn ld_wr{t}(ld_k: u32, ld_v: u32) {{\n    if !ld_in_place({t}u) {{\n        {tag}({t}u, ld_k, 1u);\n    }}\n    {name}[ld_k] = ld_v;\n}}\n"
                    )
                    .unwrap();
                }
                MemRef::Shared(a) => {
                    let sh = &self.m.kernel.shared[a];
                    let words = sh.len * sh.elem.words(self.m);
                    writeln!(out, "var<workgroup> ld_w{t}: array<u32, {words}>;").unwrap();
                    // (Its tags from `tag_words` on, in the one array of them.)
                    let at = tag_words;
                    let tag = |code: &str| {
                        if own {
                            String::new()
                        } else {
                            format!("ld_probe_local(atomicOr(&ld_pt[{at}u + ld_k], {code}), {code});\n    ")
                        }
                    };
                    if !own {
                        tag_words += words;
                    }
                    writeln!(
                        out,
                        "\nfn ld_rd{t}(ld_k: u32) -> u32 {{\n    {}return ld_w{t}[ld_k];\n}}\n\n\
                         // A settled read (`analysis::settled`: no write meets it), or the\n\
                         // read of a compound assignment, which its write's tag stands for.\n\
                         fn ld_rs{t}(ld_k: u32) -> u32 {{\n    return ld_w{t}[ld_k];\n}}\n\n\
                         fn ld_wr{t}(ld_k: u32, ld_v: u32) {{\n    {}ld_w{t}[ld_k] = ld_v;\n}}\n",
                        tag("ld_pl.x"),
                        tag("ld_pl.y"),
                    )
                    .unwrap();
                }
                MemRef::FnSlice(_) => unreachable!("targets are kernel memories"),
            }
        }
        if tag_words > 0 {
            writeln!(out, "var<workgroup> ld_pt: array<atomic<u32>, {tag_words}>;\n").unwrap();
        }
        let clear = if tag_words > 0 {
            format!("    for (var ld_k = ld_lidx; ld_k < {tag_words}u; ld_k += LD_WG_SIZE) {{\n        atomicStore(&ld_pt[ld_k], 0u);\n    }}\n")
        } else {
            String::new()
        };
        writeln!(out, "fn ld_probe_clear_shared() {{\n{clear}}}\n").unwrap();
        for a in std::mem::take(&mut self.accessors) {
            out.push_str(&a);
        }
        out.push_str(&self.barrier_kinds());
        out
    }

    /// `main` and `ld_body`: one workgroup of the dispatch's batch per
    /// workgroup, its ids from the configuration's grid (a one-dimensional
    /// workgroup, as the instrumented kernels declare).
    pub(super) fn entry_probe(&mut self) -> String {
        let k = &self.m.kernel;
        let mut f = self.func(&k.body.locals, vec![]);
        self.declare_locals(&mut f, &[]);
        self.block(&mut f, &k.body.block);
        let n: u32 = self.m.kernel.workgroup_size.iter().product();
        format!(
            "fn ld_body() {{\n{body}}}\n\n\
             @compute @workgroup_size({n})\n\
             fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n    \
             let s = wid.x + wid.y * nwg.x;\n    if s >= ld_cfg.wg_count {{\n        return;\n    }}\n    \
             let wg = ld_cfg.wg_offset + s;\n    ld_set_ids(wg, li);\n    \
             ld_guard_enter(wg, li);\n    ld_probe_enter(wg, li);\n    if ld_probe_skip(li) {{\n        return;\n    }}\n    \
             ld_body();\n    ld_probe_note(LD_NONE);\n    ld_probe_end();\n    ld_guard_flush();\n}}\n",
            body = f.out,
        )
    }
}
