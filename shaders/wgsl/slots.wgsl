// The engine's work on a batch's slots that is not the kernel's own, for one
// storage target (`ld_cfg.target_id`) at a time: one workgroup per slot,
// one invocation per word of a page. After a batch ran, `publish` turns the
// slot's pages into level-1 records. Kept out of the instrumented kernel,
// these loops are compiled once per device, not once per kernel. (The
// kernel empties its tables itself, `ld_setup_storage`.)
//
// The engine's functions come from engine/ (`ENGINE`); what a kernel would
// provide, this module provides for the one bound target.

@group(0) @binding(0) var<storage, read_write> ld_user_buf: array<u32>;
@group(0) @binding(1) var<storage, read_write> ld_args: array<u32>;

const LD_WG_SIZE: u32 = 64u;
const LD_INVOCATIONS: u32 = 64u;
const LD_DET_WRITERS: bool = false;
const LD_CHECK: bool = false;
const LD_WIDE: bool = false;
const LD_LANE_SAFE: u32 = 0u;

fn ld_user(t: u32, k: u32) -> u32 {
    if k < arrayLength(&ld_user_buf) {
        return ld_user_buf[k];
    }
    return 0u;
}

fn ld_target_storage(t: u32) -> bool {
    return true;
}

// Kernels compile this in (`LD_DIRECT`); the slots shader serves every layout.
fn ld_direct(t: u32) -> bool {
    return ld_cfg.t[t].direct != 0u;
}

// The rest of a kernel's side is not used here.
fn ld_pass_bases() {}
fn ld_target_spans(t: u32) -> bool {
    return false;
}
fn ld_flat_target(j: u32) -> u32 {
    return ld_cfg.target_id;
}
fn ld_orders(end: u32, storage: bool) -> bool {
    return true;
}

// Slot s of the batch, as the kernel's `ld_enter` sets it up.
fn ld_enter_slot(s: u32, li: u32) {
    ld_sv = ld_cfg.val_base + s * ld_cfg.slot_values;
    ld_sm = s * ld_cfg.slot_meta;
    ld_li = li;
    ld_wg = ld_cfg.wg_offset + s;
    // Level 1 has no barrier regions.
    ld_region = (LD_NO_BARRIER << 16u) | LD_NO_BARRIER;
}

fn ld_slot_of(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + wid.y * nwg.x;
}

fn ld_publish_slot(wid: vec3<u32>, nwg: vec3<u32>, li: u32, check: bool) {
    let s = ld_slot_of(wid, nwg);
    if s >= ld_cfg.wg_count {
        return;
    }
    ld_enter_slot(s, li);
    ld_publish(ld_cfg.target_id, check);
    ld_canary();
}

// Check mode: the pages the workgroup accessed, with the words it accessed.
@compute @workgroup_size(64)
fn publish(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    ld_publish_slot(wid, nwg, li, true);
}

// Deterministic mode: the pages a fold changed, whole.
@compute @workgroup_size(64)
fn publish_changed(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    ld_publish_slot(wid, nwg, li, false);
}
