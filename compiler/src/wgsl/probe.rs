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
        out.push_str(&ld_shaders::probe());
        out.push('\n');
        let mut targets: Vec<(MemRef, usize)> = self.targets.iter().map(|(m, t)| (*m, *t)).collect();
        targets.sort_by_key(|(_, t)| *t);
        // No two invocations of a workgroup touch a word of these
        // (`analysis::targets::own_element`): no tag among them.
        let own = crate::analysis::targets::own_element(self.m);
        let one_value = crate::analysis::targets::one_value(self.m);
        // (target, parameter name) of the storage targets.
        let mut storage: Vec<(usize, String)> = Vec::new();
        // The workgroup arrays' tags, one array for all (one loop clears
        // them: lavapipe runs every loop's body at least once).
        let mut tag_words = 0u32;
        // (target, first tag word) of the arrays with tags.
        let mut arrays: Vec<(usize, u32)> = Vec::new();
        // (array, first tag word, words) of the arrays with tags.
        let mut ranges: Vec<(MemRef, u32, u32)> = Vec::new();
        // The arrays with an access tagged, neither settled nor own.
        let tagged = self.clears.as_ref().map(|c| c.tagged.clone()).unwrap_or_default();
        let meta = ld_shaders::abi::probe::meta(self.shared_target_words());
        writeln!(out, "const LD_PROBE_DEFERRED: u32 = {}u;\nconst LD_PROBE_FOUND: u32 = {}u;\n", meta.deferred, meta.found).unwrap();
        for (mem, t) in targets {
            let own = own >> t & 1 != 0;
            match mem {
                MemRef::Param(p) => {
                    // (The parameters carry ld's prefix: a buffer may be named `k` or `v`.)
                    let name = &self.param_names[p];
                    storage.push((t, name.clone()));
                    let tag = if own { "ld_probe_wg" } else { "ld_probe_storage" };
                    // Lanes storing one value leave the same memory in any
                    // order, and no invocation reads it: deterministic mode
                    // need not tag it.
                    let tagged =
                        if one_value >> t & 1 != 0 { format!("!ld_in_place({t}u) && ld_cfg.mode != LD_MODE_DET") } else { format!("!ld_in_place({t}u)") };
                    let log_read = format!("    if ld_defers({t}u) {{\n        return ld_slog_read(ld_skey({t}u, ld_k), {name}[ld_k]);\n    }}\n");
                    writeln!(
                        out,
                        "fn ld_rd{t}(ld_k: u32) -> u32 {{\n{log_read}    if {tagged} {{\n        {tag}({t}u, ld_k, 0u);\n    }}\n    return {name}[ld_k];\n}}\n\n\
                         // The read of a compound assignment, which its write's tag stands for.\n\
                         fn ld_rs{t}(ld_k: u32) -> u32 {{\n{log_read}    return {name}[ld_k];\n}}\n\n\
                         fn ld_wr{t}(ld_k: u32, ld_v: u32) {{\n    if ld_defers({t}u) {{\n        ld_slog_write(ld_skey({t}u, ld_k), ld_v);\n        return;\n    }}\n    \
                         if {tagged} {{\n        {tag}({t}u, ld_k, 1u);\n    }}\n    {name}[ld_k] = ld_v;\n}}\n"
                    )
                    .unwrap();
                }
                MemRef::Shared(a) => {
                    let sh = &self.m.kernel.shared[a];
                    let ew = sh.elem.words(self.m);
                    let words = sh.len * ew;
                    writeln!(out, "var<workgroup> ld_w{t}: array<u32, {words}>;").unwrap();
                    // The accesses no other invocation meets
                    // (`Root::Mem::own`): no tag, their residue checked.
                    let residue = format!("    ld_probe_own(ld_k / {ew}u);\n");
                    if own || !tagged.contains(&mem) {
                        // No access tagged: no tags, nothing deferred (no
                        // run can find a word of it shared).
                        writeln!(
                            out,
                            "\nfn ld_rd{t}(ld_k: u32) -> u32 {{\n    return ld_w{t}[ld_k];\n}}\n\n\
                             fn ld_rs{t}(ld_k: u32) -> u32 {{\n    return ld_w{t}[ld_k];\n}}\n\n\
                             fn ld_wr{t}(ld_k: u32, ld_v: u32) {{\n    ld_w{t}[ld_k] = ld_v;\n}}\n\n\
                             fn ld_ro{t}(ld_k: u32) -> u32 {{\n{residue}    return ld_w{t}[ld_k];\n}}\n\n\
                             fn ld_wo{t}(ld_k: u32, ld_v: u32) {{\n{residue}    ld_w{t}[ld_k] = ld_v;\n}}\n"
                        )
                        .unwrap();
                        continue;
                    }
                    // (Its tags from `tag_words` on, in the one array of them.)
                    let at = tag_words;
                    tag_words += words;
                    arrays.push((t, at));
                    ranges.push((mem, at, words));
                    // An array deferred whole (`ld_defers_array`, a pipeline
                    // constant) takes the log's path alone: its tags and the
                    // bitmap's load compile away.
                    let deferred = |then: &str| format!("    if ld_defers_array({t}u) {{\n{then}    }}\n    if ld_deferred(ld_f) {{\n{then}    }}\n");
                    let read = deferred(&format!("        return ld_log_read(ld_f, ld_w{t}[ld_k]);\n"));
                    let write = deferred("        ld_log_write(ld_f, ld_v);\n        return;\n");
                    writeln!(
                        out,
                        "\nfn ld_rd{t}(ld_k: u32) -> u32 {{\n    let ld_f = {at}u + ld_k;\n{}    \
                         ld_probe_local({t}u, atomicOr(&ld_pt[ld_f], ld_pl.x), ld_pl.x);\n    return ld_w{t}[ld_k];\n}}\n\n\
                         // A settled read (`analysis::settled`: no write meets it), or the\n\
                         // read of a compound assignment, which its write's tag stands for.\n\
                         fn ld_rs{t}(ld_k: u32) -> u32 {{\n    let ld_f = {at}u + ld_k;\n{}    return ld_w{t}[ld_k];\n}}\n\n\
                         fn ld_wr{t}(ld_k: u32, ld_v: u32) {{\n    let ld_f = {at}u + ld_k;\n{}    \
                         ld_probe_local({t}u, atomicOr(&ld_pt[ld_f], ld_pl.y), ld_pl.y);\n    ld_w{t}[ld_k] = ld_v;\n}}\n\n\
                         fn ld_ro{t}(ld_k: u32) -> u32 {{\n    let ld_f = {at}u + ld_k;\n{}{residue}    return ld_w{t}[ld_k];\n}}\n\n\
                         fn ld_wo{t}(ld_k: u32, ld_v: u32) {{\n    let ld_f = {at}u + ld_k;\n{}{residue}    ld_w{t}[ld_k] = ld_v;\n}}\n",
                        read, read, write, read, write,
                    )
                    .unwrap();
                }
                MemRef::FnSlice(_) => unreachable!("targets are kernel memories"),
            }
        }
        if tag_words > 0 {
            writeln!(out, "var<workgroup> ld_pt: array<atomic<u32>, {tag_words}>;\n").unwrap();
        }
        out.push_str(&self.probe_clears(&ranges));
        out.push_str(&self.probe_notes());
        out.push_str(&deferral(&arrays, tag_words));
        out.push_str(&storage_deferral(&storage));
        for a in std::mem::take(&mut self.accessors) {
            out.push_str(&a);
        }
        out.push_str(&self.barrier_kinds());
        out
    }

    /// `ld_probe_clear_shared(c)`: clears the tags of the arrays of set `c`
    /// (`Writer::clear_sets`, named by each barrier's call; `ranges`: each
    /// tagged array's tags), one loop per run of adjacent arrays; and
    /// `LD_PROBE_CLEAR_ALL`, the set of every tagged array (the kernel's
    /// end, where the probe finds shared words). Each barrier clears only
    /// the arrays a tagged access may have reached since the barrier
    /// before (clearing tags no access has set would be much of a probe's
    /// time).
    fn probe_clears(&mut self, ranges: &[(MemRef, u32, u32)]) -> String {
        let all_id = self.clear_set(ranges.iter().map(|r| r.0).collect());
        let mut body = String::new();
        for (id, set) in self.clear_sets.iter().enumerate() {
            // Runs of adjacent tag ranges (the arrays' tags lie in target order).
            let mut runs: Vec<(u32, u32)> = Vec::new();
            for &(_, at, words) in ranges.iter().filter(|r| set.contains(&r.0)) {
                match runs.last_mut() {
                    Some(last) if last.0 + last.1 == at => last.1 += words,
                    _ => runs.push((at, words)),
                }
            }
            if runs.is_empty() {
                continue;
            }
            writeln!(body, "    if ld_c == {id}u {{").unwrap();
            for (at, words) in runs {
                writeln!(
                    body,
                    "        for (var ld_i = ld_lidx; ld_i < {words}u; ld_i += LD_WG_SIZE) {{\n            let ld_k = {at}u + ld_i;\n            \
                     if LD_FIND {{\n                if ld_probe_pair(atomicExchange(&ld_pt[ld_k], 0u)) {{\n                    ld_probe_found(ld_k);\n                }}\n            }} else {{\n                atomicStore(&ld_pt[ld_k], 0u);\n            }}\n        }}"
                )
                .unwrap();
            }
            writeln!(body, "    }}").unwrap();
        }
        format!("const LD_PROBE_CLEAR_ALL: u32 = {all_id}u;\n\nfn ld_probe_clear_shared(ld_c: u32) {{\n{body}}}\n\n")
    }

    /// The number of a set of arrays whose tags a barrier clears (sorted
    /// by target), in `Writer::clear_sets`.
    pub(super) fn clear_set(&mut self, set: Vec<MemRef>) -> usize {
        match self.clear_sets.iter().position(|x| *x == set) {
            Some(i) => i,
            None => {
                self.clear_sets.push(set);
                self.clear_sets.len() - 1
            }
        }
    }

    /// The regions each barrier call may close, where the barriers before
    /// it are known (`analysis::settled::Clears::opened_by`): each such
    /// region has a bit of the invocation's `ld_probe_noted`, which
    /// `ld_probe_note_{id}` sets by the barrier before (`ld_probe_open`, a
    /// select per candidate: no memory access) and returns LD_KNOWN
    /// (else it returns LD_NONE: `ld_probe_note` marks the table itself);
    /// `ld_probe_flush_notes` marks the table from the bits at the
    /// kernel's end.
    fn probe_notes(&self) -> String {
        let nb = self.next_barrier;
        let no_barrier = ld_shaders::abi::record::NO_BARRIER as usize;
        let opened_by = self.clears.as_ref().map(|c| &c.opened_by);
        let id_of = |addr: usize| self.barrier_stmts.iter().find(|(_, a)| *a == addr).map(|(id, _)| *id);
        // Each known region (its place in the table) and its bit.
        let mut slots: Vec<usize> = Vec::new();
        let mut out = String::new();
        for &(id, addr) in &self.barrier_stmts {
            let opens: Option<Vec<usize>> = opened_by.and_then(|o| o.get(&addr)).and_then(|v| {
                v.iter()
                    .map(|o| match o {
                        None => Some(no_barrier),
                        Some(o) => id_of(*o),
                    })
                    .collect()
            });
            let Some(opens) = opens.filter(|v| !v.is_empty()) else {
                writeln!(out, "fn ld_probe_note_{id}() -> u32 {{\n    return LD_NONE;\n}}\n").unwrap();
                continue;
            };
            let mut body = String::new();
            for a in opens {
                let region = a.min(nb) * (nb + 1) + id;
                let k = slots.iter().position(|r| *r == region).unwrap_or_else(|| {
                    slots.push(region);
                    slots.len() - 1
                });
                let open = if a == no_barrier { "LD_NONE".to_string() } else { format!("{a}u") };
                writeln!(body, "    ld_probe_noted[{}] |= select(0u, {}u, ld_probe_open == {open});", k / 32, 1u32 << (k % 32)).unwrap();
            }
            writeln!(out, "fn ld_probe_note_{id}() -> u32 {{\n{body}    return LD_KNOWN;\n}}\n").unwrap();
        }
        let mut flush = String::new();
        for (k, region) in slots.iter().enumerate() {
            writeln!(flush, "        if ((ld_probe_noted[{}] >> {}u) & 1u) != 0u {{\n            ld_val[{region}u] = 1u;\n        }}", k / 32, k % 32).unwrap();
        }
        writeln!(out, "var<private> ld_probe_noted: array<u32, {}>;\n", slots.len().div_ceil(32).max(1)).unwrap();
        writeln!(out, "fn ld_probe_flush_notes() {{\n    if ld_lidx == 0u {{\n{flush}    }}\n}}\n").unwrap();
        out
    }

    /// Words of the workgroup arrays that are targets: what the probe's
    /// bitmaps cover (`abi::probe::meta`; the host counts the same).
    fn shared_target_words(&self) -> u32 {
        let words = |m: &MemRef| match *m {
            MemRef::Shared(a) => self.m.kernel.shared[a].len * self.m.kernel.shared[a].elem.words(self.m),
            _ => 0,
        };
        self.targets.keys().map(words).sum()
    }

    /// `main` and `ld_body`: one workgroup of the dispatch's batch per
    /// workgroup, its ids from the configuration's grid (a one-dimensional
    /// workgroup, as the instrumented kernels declare).
    pub(super) fn entry_probe(&mut self) -> String {
        let k = &self.m.kernel;
        let mut f = self.func(&k.body.locals, vec![]);
        self.declare_locals(&mut f, &[]);
        self.block(&mut f, &k.body.block);
        format!(
            "fn ld_body() {{\n{body}}}\n\n\
             @compute @workgroup_size(LD_WG_SIZE)\n\
             fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n    \
             let s = wid.x + wid.y * nwg.x;\n    if s >= ld_cfg.wg_count {{\n        return;\n    }}\n    \
             let wg = ld_cfg.wg_offset + s;\n    ld_set_ids(wg, li);\n    \
             ld_guard_enter(wg, li);\n    ld_probe_enter(wg, li);\n    if ld_probe_skip(li) {{\n        return;\n    }}\n    \
             ld_body();\n    ld_probe_note(LD_NONE, LD_NONE);\n    ld_probe_end();\n    ld_guard_flush();\n}}\n",
            body = f.out,
        )
    }
}

/// Deterministic mode's deferred words (`shaders/wgsl/probe.wgsl`): the
/// invocation's log of its writes to them (`ld_log_read`, `ld_log_write`),
/// and the fold at a workgroup barrier (`ld_defer_fold`) over the arrays
/// with tags (`arrays`: target, first tag word). The search of the log at
/// every access is unrolled into selects (lavapipe runs loops there more
/// slowly, and it counts every loop iteration against one budget per
/// invocation); the fold, once per barrier, loops over the entries.
fn deferral(arrays: &[(usize, u32)], tag_words: u32) -> String {
    let n = ld_shaders::abi::probe::LOG;
    if arrays.is_empty() {
        return "fn ld_defer_fold() {\n}\n\nfn ld_defer_pending() -> bool {\n    return false;\n}\n\n".to_string();
    }
    let mut out = format!(
        "var<private> ld_log_k: array<u32, {n}>;\nvar<private> ld_log_v: array<u32, {n}>;\nvar<private> ld_log_n: u32;\n\n\
         fn ld_defer_pending() -> bool {{\n    return ld_log_n > 0u;\n}}\n\n"
    );
    // Tag word f's array and word.
    let words: Vec<(String, String)> = arrays
        .iter()
        .enumerate()
        .map(|(i, &(t, at))| (format!("f < {}u", arrays.get(i + 1).map_or(tag_words, |a| a.1)), format!("ld_w{t}[f - {at}u]")))
        .collect();
    out.push_str(&by_key("ld_defer", "f", "v", &words));
    out.push_str(&log_access("ld_log", n));
    // Every invocation's tags were cleared and it is past its accesses:
    // the highest invocation that changed a word claims it, then stores it.
    out.push_str(
        "fn ld_defer_fold() {\n    for (var i = 0u; i < ld_log_n; i++) {\n        let f = ld_log_k[i] - 1u;\n        if ld_log_v[i] != ld_defer_base(f) {\n            atomicMax(&ld_pt[f], ld_lidx + 1u);\n        }\n    }\n    workgroupBarrier();\n\
         for (var i = 0u; i < ld_log_n; i++) {\n        let f = ld_log_k[i] - 1u;\n        if atomicLoad(&ld_pt[f]) == ld_lidx + 1u {\n            ld_defer_store(f, ld_log_v[i]);\n        }\n    }\n",
    );
    // (The claims are cleared for the next fold, and so that the tags'
    // test, where it clears them, finds no code there.)
    out.push_str(
        "    workgroupBarrier();\n    for (var i = 0u; i < ld_log_n; i++) {\n        atomicStore(&ld_pt[ld_log_k[i] - 1u], 0u);\n        ld_log_k[i] = 0u;\n    }\n    ld_log_n = 0u;\n}\n\n",
    );
    out
}

/// A deferral's memory by key (`ld_defer`, `ld_sdefer`): `{prefix}_base`
/// reads, and `{prefix}_store` writes, the word `words` names for a key
/// (`key`, the value `value`): the first (test of the key, the word's
/// place) whose test holds.
fn by_key(prefix: &str, key: &str, value: &str, words: &[(String, String)]) -> String {
    let mut base = format!("fn {prefix}_base({key}: u32) -> u32 {{\n");
    let mut store = format!("fn {prefix}_store({key}: u32, {value}: u32) {{\n");
    for (test, place) in words {
        let _ = writeln!(base, "    if {test} {{\n        return {place};\n    }}");
        let _ = writeln!(store, "    if {test} {{\n        {place} = {value};\n        return;\n    }}");
    }
    base.push_str("    return 0u;\n}\n\n");
    store.push_str("}\n\n");
    base + &store
}

/// A log's search (`ld_log`, `ld_slog`: `{log}_read`, `{log}_write` over
/// `{log}_k`, `{log}_v`, `{log}_n`, `n` entries), unrolled into selects
/// (lavapipe runs loops there more slowly, and it counts every loop
/// iteration against one budget per invocation). An entry's key is its
/// word plus one, so that an unused entry (0, as private memory starts and
/// as the fold leaves it) matches no word without a test of the entry's
/// index. A write past the last entry cuts the run short.
fn log_access(log: &str, n: u32) -> String {
    let mut out = format!(
        "// The invocation's own last write of f, else `base`.\nfn {log}_read(f: u32, base: u32) -> u32 {{\n    let key = f + 1u;\n    var v = base;\n"
    );
    for i in 0..n {
        let _ = writeln!(out, "    v = select(v, {log}_v[{i}], {log}_k[{i}] == key);");
    }
    out.push_str("    return v;\n}\n\n");
    let _ = writeln!(out, "fn {log}_write(f: u32, v: u32) {{\n    let key = f + 1u;\n    var at = {log}_n;");
    for i in 0..n {
        let _ = writeln!(out, "    at = select(at, {i}u, {log}_k[{i}] == key);");
    }
    let _ = writeln!(
        out,
        "    if at < {n}u {{\n        {log}_k[at] = key;\n        {log}_v[at] = v;\n        {log}_n = max({log}_n, at + 1u);\n    }} else {{\n        ld_probe_cut = true;\n    }}\n}}\n"
    );
    out
}

/// Deterministic mode's deferred storage targets (`LD_DEFER_STORAGE`,
/// `shaders/wgsl/probe.wgsl`): the invocation's storage log, the words'
/// bases and stores by key (`ld_skey`: the targets' tag words lie in
/// target order), the records at the invocation's end (`ld_sdefer_end`)
/// and the entry point that stores each word's highest claimant's value
/// (`ld_resolve`). `storage`: (target, parameter name).
fn storage_deferral(storage: &[(usize, String)]) -> String {
    if storage.is_empty() {
        return "fn ld_sdefer_pending() -> bool {\n    return false;\n}\n\nfn ld_sdefer_end() {\n}\n\n".to_string();
    }
    let n = ld_shaders::abi::probe::STORAGE_LOG;
    let mut out = format!(
        "var<private> ld_slog_k: array<u32, {n}>;\nvar<private> ld_slog_v: array<u32, {n}>;\nvar<private> ld_slog_n: u32;\n\n\
         fn ld_sdefer_pending() -> bool {{\n    return ld_slog_n > 0u;\n}}\n\n"
    );
    out.push_str(&log_access("ld_slog", n));
    // Key m's target and word: a deferred target's tags hold it.
    // (Their names carry ld's prefix: a buffer may be named `m` or `v`.)
    let words: Vec<(String, String)> = storage
        .iter()
        .map(|(t, name)| {
            let within = format!("ld_defers({t}u) && ld_m >= ld_cfg.t[{t}].tags_off && ld_m < ld_skey({t}u, ld_cfg.t[{t}].words)");
            (within, format!("{name}[(ld_m - ld_cfg.t[{t}].tags_off) / 2u]"))
        })
        .collect();
    out.push_str(&by_key("ld_sdefer", "ld_m", "ld_x", &words));
    out.push_str(
        "fn ld_sdefer_end() {\n    for (var i = 0u; i < ld_slog_n; i++) {\n        let m = ld_slog_k[i] - 1u;\n        if ld_slog_v[i] != ld_sdefer_base(m) {\n            ld_sdefer_record(m, ld_slog_v[i]);\n        }\n    }\n    ld_slog_n = 0u;\n}\n\n",
    );
    // A grid-stride loop: only the device knows how many records there are.
    // (A device that cut it short makes the run no answer, as the probe's.)
    out.push_str(
        "@compute @workgroup_size(LD_PROBE_RESOLVE_SIZE)\n\
         fn ld_resolve(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {\n    \
         let n = min(atomicLoad(&ld_rec[LD_H_COUNT]), ld_cfg.rec_cap);\n    \
         for (var r = gid.x; r < n; r += nwg.x * LD_PROBE_RESOLVE_SIZE) {\n        \
         let at = ld_cfg.rec_off + r * LD_PROBE_RECORD_WORDS;\n        \
         if atomicLoad(&ld_meta[ld_val[at]]) == ld_val[at + 1u] {\n            ld_sdefer_store(ld_val[at], ld_val[at + 2u]);\n        }\n    }\n    \
         if ld_loops_cut() {\n        atomicOr(&ld_rec[LD_H_STATUS], LD_S_SHARED | LD_S_PROBE_CUT);\n    }\n}\n\n",
    );
    out
}
