//! ld's check engine in WGSL, and the contract between it, the
//! `#[ld::kernel]` compiler (which splices [`ENGINE`] into every
//! instrumented kernel) and the runtime (which lays out and uploads what
//! [`abi`] describes).
//!
//! - `wgsl/engine/`: what runs inside an instrumented kernel, one file per
//!   concept, in the order [`ENGINE`] splices them: the state
//!   (`state.wgsl`), entries and their roles (`entries.wgsl`, `pool.wgsl`),
//!   the accessors of the warps' copies (`access.wgsl`) and their lane tags
//!   (`tags.wgsl`), and at each of its barriers the steps (`regions.wgsl`,
//!   `steps.wgsl`, `words.wgsl`) of the check (write-write, tagged reads,
//!   the union, the commit: `check.wgsl`, `records.wgsl`) or deterministic
//!   mode's ordered fold (`fold.wgsl`); level 1's records (`publish.wgsl`).
//! - `wgsl/slots.wgsl`: the engine's dispatches around each batch of
//!   workgroups, one per storage target: emptying the slots' tables before
//!   it, turning their pages into level-1 records after it.
//! - `wgsl/level1.wgsl`: the dispatches after the kernel's run: the
//!   write-write check and union across workgroups, and the final fold.
//! - `wgsl/probe.wgsl`: the probe, the kernel run on the user's buffers
//!   with every access to a target tagged ([`abi::probe`]); with the
//!   engine, it shares `wgsl/codes.wgsl` (an invocation's tag code, the canary of
//!   loops cut short).

#![warn(missing_docs)]

pub mod abi;

/// The engine's functions, spliced into every instrumented kernel after
/// [`abi::wgsl_prelude`] and the kernel's own `LD_WG_SIZE`,
/// `LD_DET_WRITERS`, `LD_WIDE`, `LD_CHECK` and `ld_user`.
pub const ENGINE: &str = concat!(
    include_str!("../wgsl/codes.wgsl"),
    include_str!("../wgsl/engine/state.wgsl"),
    include_str!("../wgsl/engine/entries.wgsl"),
    include_str!("../wgsl/engine/pool.wgsl"),
    include_str!("../wgsl/engine/access.wgsl"),
    include_str!("../wgsl/engine/tags.wgsl"),
    include_str!("../wgsl/engine/records.wgsl"),
    include_str!("../wgsl/engine/regions.wgsl"),
    include_str!("../wgsl/engine/steps.wgsl"),
    include_str!("../wgsl/engine/words.wgsl"),
    include_str!("../wgsl/engine/check.wgsl"),
    include_str!("../wgsl/engine/fold.wgsl"),
    include_str!("../wgsl/engine/publish.wgsl"),
);

/// Check and deterministic modes' float arithmetic, bit for bit the CPU's
/// (products rounded on their own, division and square root from integer
/// operations), spliced into every instrumented kernel after [`ENGINE`].
pub const EXACT: &str = include_str!("../wgsl/exact.wgsl");

/// The probe (`abi::probe`), check and deterministic modes' first run: the tags of a run on the
/// user's buffers, spliced into the probe kernel after [`abi::wgsl_prelude`]
/// and [`EXACT`], by way of [`probe`].
pub const PROBE: &str = concat!(include_str!("../wgsl/codes.wgsl"), include_str!("../wgsl/probe.wgsl"));

/// [`PROBE`] after the declarations of the `override` constants it is
/// specialized by ([`abi::overrides`]).
pub fn probe() -> String {
    use abi::overrides::*;
    let decls: Vec<String> = [IN_PLACE, DEFER, FIND, DEFER_STORAGE, DEFER_ARRAYS].iter().map(|o| o.decl()).collect();
    format!("{}\n{PROBE}", decls.join("\n"))
}

/// The guard's functions (bounds checks, loop fuel), in every kernel
/// variant after [`abi::guard_prelude`]'s declarations.
pub const GUARD: &str = include_str!("../wgsl/guard.wgsl");

/// Level 1's merge, fold and indirect-dispatch sizing (entry points `merge`,
/// `fold`, `args`), after [`abi::prelude`] for [`abi::View::Level1`].
pub const LEVEL1: &str = include_str!("../wgsl/level1.wgsl");

/// The slots' dispatch after a batch (entry point `publish`),
/// after [`abi::wgsl_prelude`], with [`ENGINE`].
pub const SLOTS: &str = include_str!("../wgsl/slots.wgsl");

/// The full source of the slots shader module.
pub fn slots_module() -> String {
    format!("{}\n{}\n{}", abi::wgsl_prelude(), SLOTS, ENGINE)
}

/// The full source of the level-1 shader module.
pub fn level1_module() -> String {
    format!("{}\n{}", abi::prelude(abi::View::Level1), LEVEL1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validate(src: &str) {
        let module = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| panic!("{}", e.emit_to_string(src)));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
            .validate(&module)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(src)));
    }

    #[test]
    fn level1_shader_validates() {
        validate(&level1_module());
    }

    #[test]
    fn slots_shader_validates() {
        validate(&slots_module());
    }

    /// The probe with the smallest kernel-side pieces it needs.
    #[test]
    fn probe_validates() {
        let kernel = "const LD_WG_SIZE: u32 = 64u;\nfn ld_sdefer_pending() -> bool { return false; }\nfn ld_sdefer_end() { ld_sdefer_record(ld_skey(0u, 1u), 2u); }\nvar<workgroup> ld_pt0: array<atomic<u32>, 64>;\nconst LD_PROBE_CLEAR_ALL: u32 = 0u;\nvar<private> ld_probe_noted: array<u32, 1>;\nfn ld_probe_flush_notes() {}\nfn ld_probe_clear_shared(c: u32) { if c == 0u && LD_FIND && ld_probe_pair(atomicExchange(&ld_pt0[0], 0u)) { ld_probe_found(0u); } }\nfn ld_storage_barrier(b: u32) -> bool { return b == 1u; }\n\
            const LD_PROBE_FOUND: u32 = 0u;\nconst LD_PROBE_DEFERRED: u32 = 2u;\nfn ld_defer_fold() {}\nfn ld_defer_pending() -> bool { return false; }\n\
            var<private> ld_lidx: u32;\n@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) li: u32) { ld_probe_enter(0u, li); ld_probe_note(LD_NONE, LD_NONE); if ld_probe_skip(li) { return; } ld_probe_local(0u, atomicOr(&ld_pt0[li], ld_pl.x), ld_pl.x); ld_probe_storage(1u, li, 1u); ld_probe_own(li); ld_probe_region(0u, 0u, LD_KNOWN); ld_probe_end(); }\n";
        validate(&format!("{}\n{}\n{kernel}", abi::wgsl_prelude(), probe()));
    }

    /// The engine with the smallest kernel-side pieces it needs.
    #[test]
    fn engine_validates() {
        let kernel = "const LD_WG_SIZE: u32 = 64u;\nconst LD_INVOCATIONS: u32 = 64u;\nconst LD_DET_WRITERS: bool = false;\nconst LD_WIDE: bool = false;\nconst LD_LANE_SAFE: u32 = 0u;\nconst LD_CHECK: bool = true;\nfn ld_user(t: u32, k: u32) -> u32 { return k; }\n\
            fn ld_pass_bases() {}\nfn ld_target_storage(t: u32) -> bool { return t == 1u; }\nfn ld_direct(t: u32) -> bool { return false; }\nfn ld_target_spans(t: u32) -> bool { return false; }\nfn ld_flat_target(j: u32) -> u32 { return select(0u, 1u, j >= ld_cfg.t[1].first_entry); }\nfn ld_orders(end: u32, storage: bool) -> bool { return end == LD_NONE || storage; }\n\
            @compute @workgroup_size(64) fn main() { ld_setup_storage(4u); ld_setup_shared(0u); ld_steps(3u); ld_fold_region(LD_NONE); ld_publish(1u, true); ld_check_region(2u); ld_note_region(0u, 1u); ld_storage_write(1u, 3u, ld_storage_read(1u, 2u)); ld_begin_copy(); ld_report(); }\n";
        validate(&format!("{}\n{kernel}\n{ENGINE}", abi::wgsl_prelude()));
    }
}
