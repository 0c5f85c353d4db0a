//! The body of the instrumented kernels: the kernel body keeps its
//! structure, its targets live on the warps' copies, and every barrier
//! statement becomes the engine's work on the region it closes: check
//! mode's `ld_check_region(b)` (paper sections 4.1-4.3), or in the folded
//! kernel of deterministic mode `ld_fold_region(b)`, where the workgroup folds the region's writes in
//! warp order (section 4.4). No region runs twice, so nothing is saved and
//! no state machine is needed: the body runs as fast as the accessors let
//! it. Barriers are workgroup-uniform (the uniformity analysis proves it),
//! so the engine's own barriers inside are too; an invocation that returns
//! early returns from `ld_body` and joins the last region's work in `main`.

use super::writer::{Func, Writer};

impl Writer<'_> {
    /// `main` and `ld_body`; `region` is the engine's function each barrier
    /// statement calls, and `main` after the body (with `LD_NONE`).
    pub(super) fn entry_structured(&mut self, region: &str) -> String {
        let k = &self.m.kernel;
        let mut f: Func = self.func(&k.body.locals, vec![]);
        self.declare_locals(&mut f, &[]);
        self.block(&mut f, &k.body.block);
        // One dimension: `ld_enter` derives the local id from the index, and
        // lavapipe runs each row of a 2-D or 3-D workgroup in SIMD groups of
        // its own, partly empty when a row is shorter than its 8 lanes.
        let n = k.workgroup_size.iter().product::<u32>();
        let steps = self.steps();
        let common = self.entry_common();
        format!(
            "{common}// The kernel body, each barrier ending the region it closes.\n\
             fn ld_body() {{\n{body}}}\n\n\
             @compute @workgroup_size({n})\n\
             fn main(@builtin(local_invocation_index) ld_b_li: u32, @builtin(workgroup_id) ld_b_wid: vec3<u32>, @builtin(num_workgroups) ld_b_nwg: vec3<u32>) {{\n    let ld_s = ld_b_wid.x + ld_b_wid.y * ld_b_nwg.x;\n    if ld_s >= ld_cfg.wg_count {{\n        return;\n    }}\n    ld_enter(ld_s, ld_b_li);\n{setup}    if ld_skip() {{\n        return;\n    }}\n    ld_lists_init();\n    ld_sync();\n    ld_begin_copy();\n    ld_body();\n    {region}(LD_NONE);\n    ld_guard_flush();\n    ld_report();\n}}\n",
            body = f.out,
            setup = steps.setup,
        )
    }
}
