// Entries: where each role's word of an entry lives, the hash tables of
// storage pages, and what a role word holds (its written flag, else the
// base).

// ------------------------------------------------------------ addresses

fn ld_vaddr(t: u32, role: u32, e: u32, w: u32) -> u32 {
    return ld_sv + ld_cfg.t[t].values_off + (role * ld_cfg.t[t].entries + e) * LD_PAGE + w;
}

// An entry's flags, and the mark writers leave on it (plain words: flags
// change only behind barriers, one invocation per entry).
fn ld_faddr(t: u32, e: u32) -> u32 {
    return ld_sv + ld_cfg.t[t].flags_off + e;
}

fn ld_taddr(t: u32, e: u32) -> u32 {
    return ld_sv + ld_cfg.t[t].touch_off + e;
}

// The mark the running invocation's accesses leave on entry e: its copy's
// where marks are per copy (`Roles::marks`: deterministic mode with lane
// tags, whose fold then visits only the copies that accessed an entry),
// else the entry's one. (With one mark per storage entry, the fold would
// visit every copy there, which lengthens deterministic runs.)
fn ld_mark_addr(t: u32, e: u32) -> u32 {
    return ld_taddr(t, e) + ld_mark_copy * ld_cfg.t[t].entries;
}

// Deterministic mode: set (to 1, by every invocation that finds it so) where
// a fold changed a word of storage entry e, which `ld_publish` then
// publishes: a page no fold changed holds the user's words. Cleared with
// the table (`ld_setup_storage`).
fn ld_changed_addr(t: u32, e: u32) -> u32 {
    return ld_sv + ld_cfg.t[t].changed_off + e;
}

// The marks of entry e, per copy: copy c's at `ld_taddr + c * entries`.
fn ld_marks(t: u32) -> u32 {
    return select(1u, ld_cfg.copies, ld_det_tags());
}

// Deterministic mode: the copies the fold visits for entry e, from its
// flags (`LD_COPIES_SHIFT`), or every copy (LD_NONE) past LD_COPY_BITS.
fn ld_copy_set(f: u32) -> u32 {
    return select(f >> LD_COPIES_SHIFT, LD_NONE, ld_cfg.copies > LD_COPY_BITS || !ld_det_tags());
}

// The first copy of a set (`ld_copy_set`), and the one after c; past the
// last, LD_NONE (at least `ld_cfg.copies`). A select, not a branch, decides
// between a mask and every copy (lavapipe runs both sides of a branch).
fn ld_first_copy(m: u32) -> u32 {
    return select(firstTrailingBit(m), 0u, m == LD_NONE);
}

fn ld_next_copy(m: u32, c: u32) -> u32 {
    let rest = m & ~((2u << min(c, 30u)) - 1u);
    return select(select(firstTrailingBit(rest), LD_NONE, rest == 0u), c + 1u, m == LD_NONE);
}

// A storage table's keys (claimed atomically) and their plain mirror.
fn ld_kaddr(t: u32, e: u32) -> u32 {
    return ld_sm + ld_cfg.t[t].keys_off + e;
}

fn ld_mirror(t: u32, e: u32) -> u32 {
    return ld_sv + ld_cfg.t[t].mirror_off + e;
}

// ------------------------------------------------------------ storage tables

// Fibonacci hashing (the product's top bits; `cap` a power of two): a
// workgroup's pages are mostly runs and strides, which it spreads evenly.
// (The product's low bits instead, mixed with higher ones, can put a
// short run of consecutive pages out of reach of four probes in a small
// table for most workgroups, and every check would then run twice.)
fn ld_hash(page: u32, cap: u32) -> u32 {
    let bits = firstTrailingBit(cap);
    return select((page * 0x9E3779B1u) >> (32u - bits), 0u, bits == 0u);
}

// Tables are probed four slots deep, without a loop (see the top); a page
// further away counts as a full table, which the host then grows. A
// direct-mapped table holds page p in entry p: `ld_direct` is a constant
// in a kernel, so its accesses compile without the probes (lavapipe runs
// both sides of a branch, not one chosen at run time).
fn ld_find(t: u32, page: u32) -> u32 {
    if ld_direct(t) {
        return page;
    }
    let cap = ld_cfg.t[t].entries;
    let h = ld_hash(page, cap);
    let key = page + 1u;
    let h1 = (h + 1u) & (cap - 1u);
    let h2 = (h + 2u) & (cap - 1u);
    let h3 = (h + 3u) & (cap - 1u);
    // Every slot is looked at: a mirror another invocation has not written
    // yet must not hide the page's own slot further on.
    var e = LD_NONE;
    if ld_val[ld_mirror(t, h3)] == key {
        e = h3;
    }
    if ld_val[ld_mirror(t, h2)] == key {
        e = h2;
    }
    if ld_val[ld_mirror(t, h1)] == key {
        e = h1;
    }
    if ld_val[ld_mirror(t, h)] == key {
        e = h;
    }
    return e;
}

// Claims slot h for the page: whether it is now (or already was) the
// page's. The weak exchange is retried where it failed spuriously (the
// slot still free): every invocation that inserts a page must stop at
// the same slot.
fn ld_claim(t: u32, h: u32, page: u32) -> bool {
    var r = atomicCompareExchangeWeak(&ld_meta[ld_kaddr(t, h)], 0u, page + 1u);
    for (var n = 0u; n < 64u && !r.exchanged && r.old_value == 0u; n++) {
        r = atomicCompareExchangeWeak(&ld_meta[ld_kaddr(t, h)], 0u, page + 1u);
    }
    return r.exchanged || r.old_value == page + 1u;
}

// The page's entry, claimed if new: the first of its four slots, in probe
// order, whose key is free or the page's (keys are only ever set within a
// dispatch, so every invocation inserting the page stops at the same one);
// LD_NONE when all four hold other pages: the host then runs the check
// again with a larger table. A slot whose mirror names another page is
// passed without an exchange. (Claiming the first two slots whose mirror
// says free would give a page two entries where one invocation sees a
// slot's mirror set between its lookup and its scan, which a GPU's
// concurrent warps do: a workgroup would then race with itself, its reads
// in one entry and its writes in the other. lavapipe runs a workgroup's
// invocations in lockstep groups one after another, and never shows it.)
fn ld_insert(t: u32, page: u32) -> u32 {
    if ld_direct(t) {
        return page;
    }
    var e = ld_find(t, page);
    if e == LD_NONE {
        let cap = ld_cfg.t[t].entries;
        let h = ld_hash(page, cap);
        for (var i = 0u; i < 4u; i++) {
            let s = (h + i) & (cap - 1u);
            let m = ld_val[ld_mirror(t, s)];
            if e == LD_NONE && (m == page + 1u || (m == 0u && ld_claim(t, s, page))) {
                e = s;
            }
        }
        if e == LD_NONE {
            ld_full_bits |= 1u << t;
            return e;
        }
        ld_val[ld_mirror(t, e)] = page + 1u;
    }
    return e;
}

fn ld_key_page(t: u32, e: u32) -> u32 {
    if ld_direct(t) {
        return e;
    }
    return ld_val[ld_mirror(t, e)] - 1u;
}

// An entry's key: its page + 1, or 0 while it holds none.
fn ld_entry_key(t: u32, e: u32) -> u32 {
    let used = select(0u, e + 1u, (ld_flags(t, e) & LD_USED) != 0u);
    if ld_direct(t) {
        return used;
    }
    return atomicLoad(&ld_meta[ld_kaddr(t, e)]);
}

// ------------------------------------------------------------ roles

fn ld_flags(t: u32, e: u32) -> u32 {
    return ld_val[ld_faddr(t, e)];
}

// The base role of word w (word k of the memory).
fn ld_base(t: u32, e: u32, w: u32, k: u32, f: u32) -> u32 {
    if (f & LD_BVALID) != 0u {
        return ld_val[ld_vaddr(t, 0u, e, w)];
    }
    return ld_user(t, k);
}

// A pass's role page (`role`, written-flag page `flag`): its word where
// stored, else the base.
fn ld_get(t: u32, e: u32, role: u32, flag: u32, w: u32, k: u32) -> u32 {
    let f = ld_flags(t, e);
    if (f & LD_MAT) != 0u || ld_val[ld_vaddr(t, flag, e, w)] == ld_cfg.stamp {
        return ld_val[ld_vaddr(t, role, e, w)];
    }
    return ld_base(t, e, w, k, f);
}
