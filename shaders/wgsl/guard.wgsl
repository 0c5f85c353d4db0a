// The kernel guards itself (in every variant: native, instrumented, folded).
//
// Every indexed access checks its index against the length it knows
// (`ld_idx`, `ld_ok`): an access out of bounds is noted, a read gives the
// last element instead and a write (or an atomic) is skipped. Where the
// kernel's language makes that a fault (`LD_G_OOB_FAULTS`: Rust's rule)
// the invocation's first one claims the record; either way it enters the
// variant's table of sites (WGSL's rule: the run goes on, and the host
// reports where). Every loop spends one unit
// of fuel each time it starts an iteration, and notes whether it ended by
// its own hand (its condition, a `break`); one that did not ran out of
// fuel, or was ended by the driver (lavapipe ends every loop of an
// invocation once its loops have run 65535 iterations in all), and the
// invocation stops (`ld_stopped`). The fast path has no atomics and no
// branch but the write's own: an invocation keeps its first fault in
// private variables (selects) and records it once, when it ends
// (`ld_guard_flush`); the first invocation to record claims the launch's
// record, which the host turns into an error naming the site.
//
// The generated kernel provides `ld_guard` (the binding), `LD_G_*`, and
// calls `ld_guard_enter` before the body and `ld_guard_flush` after it
// (the body is a function of its own: every return leads there).

var<private> ld_fuel: u32;
var<private> ld_halt: bool;
// The invocation's first stop (kind 0: none), and its first index out of
// bounds: kind, site, index. (An invocation stops after any index out of
// bounds it had, so where out of bounds is a fault it was the first.)
var<private> ld_f: vec3<u32>;
var<private> ld_o: vec3<u32>;
// The invocation: its linear workgroup and its local index.
var<private> ld_g_wg: u32;
var<private> ld_g_li: u32;

fn ld_guard_enter(wg: u32, li: u32) {
    ld_g_wg = wg;
    ld_g_li = li;
    ld_fuel = ld_guard.fuel;
    ld_halt = false;
    ld_f = vec3<u32>(0u);
    ld_o = vec3<u32>(0u);
}

// Notes an index out of bounds where `bad`, unless the invocation has one:
// selects, no branch (lavapipe runs both sides of a branch it cannot prove
// uniform).
fn ld_note(bad: bool, kind: u32, site: u32, index: u32) {
    ld_o = select(ld_o, vec3<u32>(kind, site, index), bad & (ld_o.x == 0u));
}

// An index into `len` elements; past the end, noted, and the last element.
fn ld_idx(i: u32, len: u32, site: u32) -> u32 {
    ld_note(i >= len, LD_G_OOB, site, i);
    return min(i, len - 1u);
}

fn ld_idx_i(i: i32, len: u32, site: u32) -> u32 {
    let u = bitcast<u32>(i);
    ld_note(u >= len, LD_G_OOB_SIGNED, site, u);
    return min(u, len - 1u);
}

// Whether a write may go ahead; past the end, noted.
fn ld_ok(i: u32, len: u32, site: u32) -> bool {
    ld_note(i >= len, LD_G_OOB, site, i);
    return i < len;
}

fn ld_ok_i(i: i32, len: u32, site: u32) -> bool {
    let u = bitcast<u32>(i);
    ld_note(u >= len, LD_G_OOB_SIGNED, site, u);
    return u < len;
}

// A loop at `site` ended without its condition or a `break` ending it:
// out of fuel, or the driver ended it. The invocation stops (the caller
// returns, and its callers after it); a stop that only propagates notes
// nothing new.
fn ld_stopped(site: u32) {
    let kind = select(LD_G_CUT, LD_G_FUEL, ld_fuel == 0u);
    ld_f = select(ld_f, vec3<u32>(kind, site, 0u), !ld_halt & (ld_f.x == 0u));
    ld_halt = true;
}

// Records the invocation's first index out of bounds in the variant's
// table (the smallest and largest index there, by `abi::guard::key`, and
// the kinds), and its first fault, if it has one and no invocation
// recorded before it: once per invocation, where it ends. The first to
// claim the record writes it, the others the room after it: no branch on
// the claim, and one store (lavapipe runs every branch it cannot prove
// uniform for every invocation, masked, and a storage access lane by lane).
// The host knows the length an index was out of bounds of from the site.
fn ld_guard_flush() {
    if ld_o.x != 0u {
        let e = ld_guard.tables[LD_G_VARIANT] + ld_o.y * LD_G_ENTRY;
        let key = select(ld_o.z, ld_o.z ^ 0x80000000u, ld_o.x == LD_G_OOB_SIGNED);
        atomicMin(&ld_guard.oob[e + LD_G_MIN], key);
        atomicMax(&ld_guard.oob[e + LD_G_MAX], key);
        atomicOr(&ld_guard.oob[e + LD_G_KINDS], 1u << ld_o.x);
        atomicMax(&ld_guard.seen, 1u);
    }
    let f = select(ld_f, ld_o, LD_G_OOB_FAULTS & (ld_o.x != 0u));
    if f.x != 0u {
        let at = atomicMax(&ld_guard.claim, 1u);
        ld_guard.rec[at] = vec4<u32>((f.y << 8u) | (LD_G_VARIANT << 4u) | f.x, f.z, ld_g_wg, ld_g_li);
    }
}
