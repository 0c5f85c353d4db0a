// The probe (`abi::probe`), check and deterministic modes' first run: the
// kernel once on the user's buffers and in workgroup memory, every access
// to a target tagged with the invocation's codes. An access whose atomic
// or completes a pair of invocations, one writing, notes it; the
// invocation sets `LD_S_SHARED` where it ends, and the host runs the
// engine instead (the instrumented or the folded kernel). Ors on one word
// are ordered, so of any such pair the later access sees the earlier one's
// code in the old value it gets back.
//
// The generated kernel provides the targets' word functions (`ld_rd{t}`,
// `ld_rs{t}`, `ld_wr{t}`, which call `ld_probe_local` or
// `ld_probe_storage`), `ld_probe_clear_shared` and `ld_storage_barrier`.

// This invocation's codes, (read, write): as a lane of its workgroup, and
// as its workgroup.
var<private> ld_pl: vec2<u32>;
var<private> ld_pw: vec2<u32>;
var<private> ld_probe_seen: bool;
var<workgroup> ld_probe_status: u32;
// The barrier that opened the running region (LD_NONE: the kernel's start).
var<private> ld_probe_open: u32;

fn ld_probe_enter(wg: u32, li: u32) {
    let l = ld_lane_code(li, LD_DET_LANE_BITS);
    ld_pl = vec2<u32>(l, l | LD_DET_WRITE);
    let w = ld_lane_code(wg, LD_PROBE_WG_BITS);
    ld_pw = vec2<u32>(w, w | LD_PROBE_WG_WRITE);
    ld_probe_seen = false;
    ld_probe_open = LD_NONE;
}

// Once an invocation has found a shared word, the workgroups that start
// later skip their work: the run is discarded anyway. (One load per
// workgroup, shared so that the barriers stay uniform.)
fn ld_probe_skip(li: u32) -> bool {
    if li == 0u {
        ld_probe_status = atomicLoad(&ld_rec[LD_H_STATUS]);
    }
    return (workgroupUniformLoad(&ld_probe_status) & LD_S_SHARED) != 0u;
}

// A workgroup array's tag word's old value, or'ed with this access's code.
fn ld_probe_local(old: u32, code: u32) {
    let v = old | code;
    ld_probe_seen = ld_probe_seen | (((v & LD_DET_WRITE) != 0u) & ld_lanes_many(v, LD_DET_LANE_BITS));
}

// Word k of storage target t, read (w = 0) or written (w = 1): its tag
// among the workgroup's invocations, then among the launch's workgroups.
fn ld_probe_storage(t: u32, k: u32, w: u32) {
    let l = ld_pl[w];
    ld_probe_local(atomicOr(&ld_meta[ld_cfg.t[t].tags_off + 2u * k], l), l);
    ld_probe_wg(t, k, w);
}

// Its tag among the launch's workgroups alone (a target no two
// invocations of a workgroup share a word of).
fn ld_probe_wg(t: u32, k: u32, w: u32) {
    let g = ld_pw[w];
    let v = atomicOr(&ld_meta[ld_cfg.t[t].tags_off + 2u * k + 1u], g) | g;
    ld_probe_seen = ld_probe_seen | (((v & LD_PROBE_WG_WRITE) != 0u) & ld_lanes_many(v, LD_PROBE_WG_BITS));
}

// The storage targets the launch leaves in place, a bit each (the
// runtime's pipeline sets it from the layout, `Variant::Probe`): every
// invocation of the dispatch touches only its own element, so nothing is
// shared and nothing is tagged.
override LD_IN_PLACE: u32 = 0u;

fn ld_in_place(t: u32) -> bool {
    return ((LD_IN_PLACE >> t) & 1u) != 0u;
}

// The region from the last barrier to `close` (LD_NONE: the kernel's end)
// ran: the table of regions seen marks it, as the instrumented kernel's
// `ld_note_region` does, so that a check the probe answers reports the
// regions the folded or instrumented kernel would.
fn ld_probe_note(close: u32) {
    if ld_lidx == 0u {
        let a = min(select(ld_probe_open, LD_NO_BARRIER, ld_probe_open == LD_NONE), ld_cfg.barriers);
        let b = min(select(close, LD_NO_BARRIER, close == LD_NONE), ld_cfg.barriers);
        ld_val[a * (ld_cfg.barriers + 1u) + b] = 1u;
    }
    ld_probe_open = close;
}

// Where the kernel has a barrier statement: a storage barrier orders only
// storage, whose tags last the launch; a workgroup barrier ends the
// workgroup arrays' region, so their tags are cleared once every
// invocation is past its accesses and before any goes on.
fn ld_probe_region(b: u32) {
    ld_probe_note(b);
    if ld_storage_barrier(b) {
        storageBarrier();
    } else {
        workgroupBarrier();
        ld_probe_clear_shared();
        workgroupBarrier();
    }
}

fn ld_probe_end() {
    if ld_probe_seen {
        atomicOr(&ld_rec[LD_H_STATUS], LD_S_SHARED);
    }
}
