// The probe (`abi::probe`), check and deterministic modes' first run: the
// kernel once on the user's buffers and in workgroup memory, every access
// to a target tagged with the invocation's codes. An access whose atomic
// or completes a pair of invocations, one writing, notes it (ors on one
// word are ordered, so of any such pair the later access sees the earlier
// one's code in the old value it gets back); the invocation sets
// `LD_S_SHARED` where it ends, and the host runs the engine instead (the
// instrumented or the folded kernel).
//
// Deterministic mode's probe may also **defer** workgroup arrays whole
// (`LD_DEFER_ARRAYS`, a bit per target: those an earlier run saw a word of
// shared), or, where that overflowed the log, words of them (`LD_DEFER`,
// the bits of the meta buffer's deferred bitmap, `abi::probe::meta`: the
// words an earlier run saw shared). An invocation's
// writes to them go to its log, its reads see its own last write there or
// else the memory, which holds the region's base (no one writes such a
// word in place); at the next workgroup barrier the highest invocation
// whose value differs from the base wins (`ld_defer_fold`). That is the
// folded kernel's fold at one invocation per warp, and where no lanes
// share a word, at any warp size. A word not deferred that is shared
// notes its bit in the found bitmap, and the host runs again with it
// deferred.
//
// Deterministic mode's probe also defers whole storage targets
// (`LD_DEFER_STORAGE`, a bit per target): those an earlier run saw a word
// of shared (`LD_H_SHARED_TARGETS`). Their writes go to a second log
// (`ld_slog_*`, `abi::probe::STORAGE_LOG`) until the invocation ends, since
// in the folded kernel no workgroup barrier orders storage and no
// workgroup sees another's writes; their reads see the invocation's own
// last write or the memory, which holds the launch's input. At its end
// each invocation claims the words it changed with its order (`ld_order`:
// workgroup, then local index) and records them; `ld_resolve` stores each
// word's highest claimant's value: the folded kernel's fold at one
// invocation per warp, then level 1's in workgroup order.
//
// The generated kernel provides the targets' word functions (`ld_rd{t}`,
// `ld_rs{t}`, `ld_wr{t}`, which call `ld_probe_local` (on their tags in
// `ld_pt`) or `ld_probe_storage`, `ld_deferred`, `ld_log_read`,
// `ld_log_write`; a workgroup array's `ld_ro{t}`, `ld_wo{t}`, which call
// `ld_probe_own`),
// `ld_probe_clear_shared(c)` and `LD_PROBE_CLEAR_ALL`, `ld_probe_noted`
// and `ld_probe_flush_notes` (the known regions, `ld_probe_note`), `ld_defer_fold`,
// `ld_sdefer_end`, `ld_sdefer_pending`, `ld_storage_barrier` and
// `LD_PROBE_DEFERRED`, `LD_PROBE_FOUND` (`abi::probe::meta`).

// This invocation's codes, (read, write): as a lane of its workgroup, and
// as its workgroup.
var<private> ld_pl: vec2<u32>;
var<private> ld_pw: vec2<u32>;
// Shared words seen: of workgroup arrays, of storage; a run cut short (a
// log that overflowed, loops the device ended).
var<private> ld_probe_seen: bool;
// The storage targets, and the workgroup arrays, with a shared word, a
// bit each.
var<private> ld_probe_targets: u32;
var<private> ld_probe_arrays: u32;
var<private> ld_probe_cut: bool;
var<workgroup> ld_probe_status: u32;
// The barrier that opened the running region (LD_NONE: the kernel's start).
var<private> ld_probe_open: u32;
// This invocation's place in the folded kernel's order, plus one.
var<private> ld_order: u32;

fn ld_probe_enter(wg: u32, li: u32) {
    let l = ld_lane_code(li, LD_DET_LANE_BITS);
    ld_pl = vec2<u32>(l, l | LD_DET_WRITE);
    let w = ld_lane_code(wg, LD_PROBE_WG_BITS);
    ld_pw = vec2<u32>(w, w | LD_PROBE_WG_WRITE);
    ld_probe_seen = false;
    ld_probe_targets = 0u;
    ld_probe_arrays = 0u;
    ld_order = wg * LD_WG_SIZE + li + 1u;
    ld_probe_cut = false;
    ld_probe_open = LD_NONE;
}

// Once an invocation has found a shared word that makes the run useless,
// the workgroups that start later skip their work: the run is discarded
// anyway. In deterministic mode only a run cut short does (the run goes
// on to find the shared words and targets, which the next run defers).
// (One load per workgroup, shared so that the barriers stay uniform.)
fn ld_probe_skip(li: u32) -> bool {
    if li == 0u {
        ld_probe_status = atomicLoad(&ld_rec[LD_H_STATUS]);
    }
    let useless = select(LD_S_SHARED, LD_S_PROBE_CUT, ld_cfg.mode == LD_MODE_DET);
    return (workgroupUniformLoad(&ld_probe_status) & useless) != 0u;
}

// Whether an or of codes holds two invocations, one writing.
fn ld_probe_pair(v: u32) -> bool {
    return ((v & LD_DET_WRITE) != 0u) & ld_lanes_many(v, LD_DET_LANE_BITS);
}

// An untagged access of element i of a workgroup array, which the macro
// expects at the invocation's own residue (`Root::Mem::own`: its local
// index plus a multiple of the workgroup's invocations, which no other
// invocation's index meets). Where it is not (its index wrapped, say),
// the run cannot say whether another invocation shared the word: it is
// cut short, and the engine runs.
fn ld_probe_own(i: u32) {
    ld_probe_cut = ld_probe_cut | (i % LD_WG_SIZE != ld_lidx);
}

// Workgroup array t's tag word's old value, or'ed with this access's code
// (selects: lavapipe would run a branch here at every access).
fn ld_probe_local(t: u32, old: u32, code: u32) {
    let pair = ld_probe_pair(old | code);
    ld_probe_seen = ld_probe_seen | pair;
    ld_probe_arrays = ld_probe_arrays | select(0u, 1u << t, pair);
}

// Tag word f of the workgroup arrays (`ld_pt`) held a pair where it was
// cleared (`LD_FIND`): the run shared the word, whose bit the found bitmap
// notes. (Tested where the tags are cleared, at a workgroup barrier and at
// the kernel's end, once every invocation is past its accesses: the or of
// every code the region left.)
fn ld_probe_found(f: u32) {
    ld_probe_seen = true;
    atomicOr(&ld_meta[LD_PROBE_FOUND + (f >> 5u)], 1u << (f & 31u));
}

// Word k of storage target t, read (w = 0) or written (w = 1): its tag
// among the workgroup's invocations, then among the launch's workgroups.
fn ld_probe_storage(t: u32, k: u32, w: u32) {
    let l = ld_pl[w];
    let pair = ld_probe_pair(atomicOr(&ld_meta[ld_cfg.t[t].tags_off + 2u * k], l) | l);
    ld_probe_targets = ld_probe_targets | select(0u, 1u << t, pair);
    ld_probe_wg(t, k, w);
}

// Its tag among the launch's workgroups alone (a target no two
// invocations of a workgroup share a word of).
fn ld_probe_wg(t: u32, k: u32, w: u32) {
    let g = ld_pw[w];
    let v = atomicOr(&ld_meta[ld_cfg.t[t].tags_off + 2u * k + 1u], g) | g;
    let pair = ((v & LD_PROBE_WG_WRITE) != 0u) & ld_lanes_many(v, LD_PROBE_WG_BITS);
    ld_probe_targets = ld_probe_targets | select(0u, 1u << t, pair);
}

// The probe's variants are specialized by override constants, declared
// from `abi::overrides` and set by the runtime's pipeline (`Variant::Probe`),
// so that each pipeline compiles only its own paths:
// - LD_IN_PLACE: the storage targets the launch leaves in place, a bit
//   each: every invocation of the dispatch touches only its own element,
//   so nothing is shared and nothing is tagged;
// - LD_DEFER: deterministic mode's probe with words of workgroup arrays to
//   defer; LD_FIND: one that notes the words it saw shared;
// - LD_DEFER_ARRAYS: the workgroup arrays deterministic mode's probe defers
//   whole, a bit per target: no tags, every write to the log, folded at the
//   next workgroup barrier;
// - LD_DEFER_STORAGE: the storage targets whose writes it defers, a bit
//   each: no tags, a log (`ld_slog_*`).

fn ld_in_place(t: u32) -> bool {
    return ((LD_IN_PLACE >> t) & 1u) != 0u;
}

fn ld_defers_array(t: u32) -> bool {
    return ((LD_DEFER_ARRAYS >> t) & 1u) != 0u;
}

// Whether the run holds writes of workgroup arrays in the log.
fn ld_defers_words() -> bool {
    return LD_DEFER || LD_DEFER_ARRAYS != 0u;
}

fn ld_defers(t: u32) -> bool {
    return ((LD_DEFER_STORAGE >> t) & 1u) != 0u;
}

// The log's key of word k of storage target t: its first tag word, which
// a deferred target leaves untagged and which holds the word's claim.
fn ld_skey(t: u32, k: u32) -> u32 {
    return ld_cfg.t[t].tags_off + 2u * k;
}

// At the invocation's end: the words of deferred storage targets it
// changed are claimed with its order and recorded (key, order, value) for
// `ld_resolve`; a record past the capacity cuts the run short.
fn ld_sdefer_record(m: u32, v: u32) {
    atomicMax(&ld_meta[m], ld_order);
    let r = atomicAdd(&ld_rec[LD_H_COUNT], 1u);
    if r < ld_cfg.rec_cap {
        let at = ld_cfg.rec_off + r * LD_PROBE_RECORD_WORDS;
        ld_val[at] = m;
        ld_val[at + 1u] = ld_order;
        ld_val[at + 2u] = v;
    } else {
        ld_probe_cut = true;
    }
}

// Whether tag word f of the workgroup arrays is deferred.
fn ld_deferred(f: u32) -> bool {
    return LD_DEFER && ((atomicLoad(&ld_meta[LD_PROBE_DEFERRED + (f >> 5u)]) >> (f & 31u)) & 1u) != 0u;
}

// The region from the last barrier to `close` (LD_NONE: the kernel's end)
// ran: the table of regions seen marks it, as the instrumented kernel's
// `ld_note_region` does, so that a check the probe answers reports the
// regions the folded or instrumented kernel would. `note`: LD_KNOWN where
// the macro knows the barriers that can come before `close`, and the call
// (`ld_probe_note_{b}`) set the region's bit of the invocation's
// `ld_probe_noted` (no memory access: lavapipe would run a masked store
// at every barrier), which `ld_probe_flush_notes` writes
// once, at the end; else LD_NONE.
const LD_KNOWN: u32 = 0u;

fn ld_probe_note(close: u32, note: u32) {
    if note == LD_NONE && ld_lidx == 0u {
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
// `c`: the set of arrays whose tags it clears (`ld_probe_clear_shared`);
// `note`: see `ld_probe_note`.
fn ld_probe_region(b: u32, c: u32, note: u32) {
    ld_probe_note(b, note);
    if ld_storage_barrier(b) {
        // The folded kernel's lanes of a warp share its copy: a warp's
        // write of a workgroup array before a storage barrier is seen by
        // its other lanes after it, where the deferred write would not be;
        // its storage writes fold there, which the storage log's do not.
        // Such a run is left to the engine.
        ld_probe_cut = ld_probe_cut | (ld_defers_words() && ld_defer_pending()) | ld_sdefer_pending();
        storageBarrier();
    } else {
        workgroupBarrier();
        ld_probe_clear_shared(c);
        workgroupBarrier();
        if ld_defers_words() {
            ld_defer_fold();
        }
    }
}

// The kernel's end: where the probe finds words, the last region's tags
// are tested (every invocation is past its accesses); the deferred storage
// writes are recorded; what the invocation saw is reported.
fn ld_probe_end() {
    if LD_FIND {
        workgroupBarrier();
        ld_probe_clear_shared(LD_PROBE_CLEAR_ALL);
    }
    ld_sdefer_end();
    ld_probe_flush_notes();
    // Where the device cut loops short, the run cannot be trusted.
    ld_probe_cut = ld_probe_cut | ld_loops_cut();
    let storage = ld_probe_targets != 0u;
    var bits = select(0u, LD_S_SHARED, ld_probe_seen || storage || ld_probe_cut);
    bits |= select(0u, LD_S_SHARED_STORAGE, storage);
    bits |= select(0u, LD_S_SHARED_WORKGROUP, ld_probe_seen);
    bits |= select(0u, LD_S_PROBE_CUT, ld_probe_cut);
    if bits != 0u {
        atomicOr(&ld_rec[LD_H_STATUS], bits);
    }
    if storage || ld_probe_seen {
        atomicOr(&ld_rec[LD_H_SHARED_TARGETS], ld_probe_targets | ld_probe_arrays);
    }
}
