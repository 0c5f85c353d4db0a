// A workgroup's set-up, the lists of dirty entries, and the region that
// a check's races carry.

// ------------------------------------------------------------ set-up

// Workgroup arrays start zeroed (the host fills their pages with zeros
// before the dispatch), every role stored.
fn ld_setup_shared(t: u32) {
    let e = ld_cfg.t[t].entries;
    var i = ld_li;
    for (; i < e; i += LD_WG_SIZE) {
        ld_val[ld_faddr(t, i)] = LD_MAT | LD_BVALID;
    }
}

// Storage tables start empty: the kernel empties its slot's before the
// body, the tables of every storage target in one loop over their flat
// entries (0..n: storage targets come first). A dispatch of its own per
// target and batch would add dispatches to every launch.
fn ld_setup_storage(n: u32) {
    var j = ld_li;
    for (; j < n; j += LD_WG_SIZE) {
        let t = ld_flat_target(j);
        let i = j - ld_cfg.t[t].first_entry;
        atomicStore(&ld_meta[ld_kaddr(t, i)], 0u);
        ld_val[ld_mirror(t, i)] = 0u;
        ld_val[ld_faddr(t, i)] = 0u;
        ld_val[ld_changed_addr(t, i)] = 0u;
        for (var c = 0u; c < ld_marks(t); c++) {
            ld_val[ld_taddr(t, i) + c * ld_cfg.t[t].entries] = 0u;
        }
    }
}

// After a region: the entries its accesses marked join the current list
// (once per epoch) and are flagged as accessed in the region (`LD_HERE`);
// where marks are per copy, the copies that marked an entry join its
// flags' set for the epoch (`ld_copy_set`).
fn ld_scan() {
    let n = ld_cfg.entries_total;
    var j = ld_li;
    for (; j < n; j += LD_WG_SIZE) {
        let t = ld_flat_target(j);
        let e = j - ld_cfg.t[t].first_entry;
        let copies = ld_scan_marks(t, e);
        if copies != 0u {
            let fa = ld_faddr(t, e);
            let f = ld_val[fa];
            if (f & LD_DIRTY1) == 0u {
                ld_list_push(ld_list_cur, t, e);
            }
            let cset = select(0u, (copies & ((1u << LD_COPY_BITS) - 1u)) << LD_COPIES_SHIFT, ld_det_tags());
            ld_val[fa] = f | LD_DIRTY1 | LD_USED | LD_HERE | cset;
        }
    }
}

// Entry e's marks, cleared: the copies that set one, a bit each (copies
// past 31 share bit 31; one mark per entry: bit 0).
fn ld_scan_marks(t: u32, e: u32) -> u32 {
    let ta = ld_taddr(t, e);
    var m = 0u;
    for (var c = 0u; c < ld_marks(t); c++) {
        let a = ta + c * ld_cfg.t[t].entries;
        if ld_val[a] != 0u {
            ld_val[a] = 0u;
            m |= 1u << min(c, 31u);
        }
    }
    return m;
}

// ------------------------------------------------------------ regions

// What the settling after a step does: after the check, every role of
// the entry is stored; after a fold, only where it committed.
const LD_STEP_SETTLE_CHECK: u32 = 1u;
const LD_STEP_SETTLE_FOLD: u32 = 2u;

fn ld_lists_init() {
    ld_open = LD_NONE;
    ld_list_cur = 0u;
    if ld_li == 0u {
        atomicStore(&ld_list_n[0], 0u);
        atomicStore(&ld_list_n[1], 0u);
    }
}

// The region from barrier `opening` to `closing` (LD_NONE: the kernel's
// start or end) ran: races found in its check carry it, and the table of
// regions seen marks it.
fn ld_note_region(opening: u32, closing: u32) {
    let a = select(opening, LD_NO_BARRIER, opening == LD_NONE);
    let b = select(closing, LD_NO_BARRIER, closing == LD_NONE);
    ld_region = (a << 16u) | b;
    if ld_li == 0u {
        let n = ld_cfg.barriers + 1u;
        ld_val[min(a, ld_cfg.barriers) * n + min(b, ld_cfg.barriers)] = 1u;
    }
}

fn ld_list_push(list: u32, t: u32, e: u32) {
    let i = atomicAdd(&ld_list_n[list], 1u);
    ld_val[ld_sv + ld_cfg.list_off + list * ld_cfg.list_cap + i] = (t << 24u) | e;
}

fn ld_list_item(list: u32, i: u32) -> u32 {
    return ld_val[ld_sv + ld_cfg.list_off + list * ld_cfg.list_cap + i];
}
