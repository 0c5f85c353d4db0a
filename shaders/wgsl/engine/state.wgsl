// ld's check engine inside the instrumented kernel (paper sections 4.1-4.3).
//
// Every workgroup runs in a scratch slot of its batch. Each privatized
// memory ("target") is a set of *entries*, one per 64-word page: workgroup
// arrays have one per page (direct-mapped), storage buffers get one when the
// workgroup first accesses the page (a hash table of pages). An entry holds
// pages for its *roles*: the base B (what the workgroup's memory held at the
// epoch's start) and each warp copy's page P_c.
// Workgroup arrays are stored whole from the start (MAT). A storage entry
// is claimed mid-pass while other invocations may be reading the page, so
// no one copies it then: a role word is valid where its written-flag page
// holds this dispatch's stamp, else the base (or the user's buffer) stands
// in; the sweeps at the next barrier store every word.
//
// Accessed entries are listed once per region (accesses only mark them), so
// the sweep at a region's end visits only them. The path an invocation
// takes on every access is free of atomics and loops, and everything that
// runs once per region is free of loops but the sweeps: lavapipe runs both
// sides of every branch whose condition is not a constant or a uniform
// (masked), and charges every loop construct it passes through against one
// budget of 65535 iterations per invocation.
//
// The generated kernel provides: LD_WG_SIZE (the invocations that share
// the engine's loops), LD_INVOCATIONS (the kernel's own, the first
// LD_INVOCATIONS of them), LD_DET_WRITERS (whether deterministic mode keeps each
// word's last writer: an override constant of the folded kernel), LD_WIDE
// (check mode: more copies than a mask holds, an override constant),
// LD_CHECK
// (whether it is check mode's state machine or the folded kernel), the kernel's
// ids, `ld_user(t, k)` (word k of storage target t in the user's buffer),
// what it knows of its targets (`ld_target_storage`, `ld_target_spans`,
// `ld_flat_target`) and of its barriers (`ld_orders`).

var<private> ld_wg: u32;
var<private> ld_slot: u32;
var<private> ld_li: u32;
var<private> ld_warp: u32;
var<private> ld_copy: u32;
// The copy whose marks the invocation's accesses set (`ld_mark_addr`).
var<private> ld_mark_copy: u32;
var<private> ld_region: u32;
// The dispatch's configuration is a uniform buffer (`ld_cfg`, the
// targets' at `ld_cfg.t[t]`), read where it is used: a device loads a
// uniform word once for all invocations (lavapipe once per SIMD group),
// where copying it from a storage binding at every invocation's start,
// lane by lane, would be most of a small kernel's launch.

// Where the slot's values and keys start.
var<private> ld_sv: u32;
var<private> ld_sm: u32;
// Targets whose table had no room for a page (reported at the end).
var<private> ld_full_bits: u32;
// Deterministic mode: an access of this invocation completed a lane-order
// conflict (`ld_det_access`; reported at the end).
var<private> ld_lanes_seen: bool;
// The copy's role page, its written-flag page, and its access mark.
var<private> ld_cur_role: u32;
var<private> ld_cur_flag: u32;
var<private> ld_cur_mark: u32;
var<private> ld_cur_wmark: u32;

// The dirty-entry lists: entries accessed since their epoch began. A
// region pushes onto the current list; the region's last step carries the
// entries still dirty over to the other one. Every invocation keeps which
// list is current itself (they all pass the same barriers), so switching
// lists needs no barrier.
var<workgroup> ld_list_n: array<atomic<u32>, 2>;
var<private> ld_list_cur: u32;
// Blocks of the pool taken (deterministic mode at one invocation per warp).
var<workgroup> ld_pool_n: atomic<u32>;
// Check mode: the words the region's check visits (`ld_step_gather`).
var<workgroup> ld_items_n: atomic<u32>;
// The barrier that opened the current region (LD_NONE: the kernel's start).
var<private> ld_open: u32;

// Storage memory is where the copies live: both barriers.
fn ld_sync() {
    storageBarrier();
    workgroupBarrier();
}

// Reported at the kernel's end: tables that had no room, loops cut short.
fn ld_report() {
    if ld_full_bits != 0u {
        ld_status(LD_S_TABLE_FULL);
        atomicOr(&ld_rec[LD_H_STATUS_TARGETS], ld_full_bits);
    }
    if ld_lanes_seen {
        ld_status(LD_S_LANES);
    }
    ld_canary();
}

// Loops cut short (`ld_loops_cut`, codes.wgsl).
fn ld_canary() {
    if ld_loops_cut() {
        ld_status(LD_S_LOOP_LIMIT);
    }
}

fn ld_status(bit: u32) {
    atomicOr(&ld_rec[LD_H_STATUS], bit);
    atomicMin(&ld_rec[LD_H_STATUS_WG], ld_wg);
}
