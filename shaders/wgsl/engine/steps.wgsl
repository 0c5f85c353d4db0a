// The steps check mode runs at a barrier, over the dirty entries: gather
// their words, check them, settle the entries (`ld_settle`, which the fold
// shares), between the engine's own barriers.

// The steps at the end of a region, over the current list of dirty
// entries: the gathering lists the words to visit (`ld_step_gather`), the
// check takes one per invocation, the settling an entry per invocation
// (it records that the check stored every role, MAT, and ends the epochs
// the closing barrier ends). Each is a loop of its own: lavapipe runs every path of a
// loop body whose branch it cannot prove uniform.
fn ld_step_check(close: u32) {
    let cur = ld_list_cur;
    let n = atomicLoad(&ld_items_n);
    for (var i = ld_li; i < n; i += LD_WG_SIZE) {
        ld_check_item(cur, i, close);
    }
}

// The region's i-th word to visit (`ld_step_gather`).
fn ld_check_item(cur: u32, i: u32, close: u32) {
    let j = ld_item(i);
    let item = ld_list_item(cur, j / LD_PAGE);
    let t = item >> 24u;
    let storage = ld_target_storage(t);
    ld_check_word(t, item & 0xffffffu, j % LD_PAGE, storage, ld_target_spans(t), ld_orders(close, storage), close == LD_NONE);
}

// The words the check visits: of the listed entries' words (j: the entry's
// place in the list, times a page, plus the word), those a copy accessed in
// the epoch. A word none accessed holds the base in every copy, no tags and
// no written flag, so its check would find nothing and store what is
// there; lavapipe runs the check's loop for every word it is given,
// masked or not (bplustree's regions touch a word or two of each page).
// Storage entries whose epoch ends before their base was ever stored give
// every word: the base is stored whole (`LD_BVALID`); but not after the
// kernel's last region, where only level 1's publishing reads the base, of
// the touched words alone (`LD_BPART`).
fn ld_step_gather(close: u32) {
    let cur = ld_list_cur;
    let n = atomicLoad(&ld_list_n[cur]) * LD_PAGE;
    for (var j = ld_li; j < n; j += LD_WG_SIZE) {
        let item = ld_list_item(cur, j / LD_PAGE);
        let t = item >> 24u;
        let e = item & 0xffffffu;
        let storage = ld_target_storage(t);
        let f = ld_flags(t, e);
        let ends = ld_orders(close, storage);
        let whole = storage && close != LD_NONE && ends && (f & LD_BVALID) == 0u;
        // An entry no access of this region marked, whose epoch goes on:
        // its words hold no tag, so their checks would find nothing and
        // commit nothing (a storage entry at every `barrier()` after the
        // region that read it): skipping them shortens such kernels' checks.
        let quiet = !ends && (f & LD_HERE) == 0u;
        let m = atomicLoad(&ld_meta[ld_touched_addr(t, e, j % LD_PAGE)]);
        var lone = LD_NONE;
        if !storage {
            lone = ld_lone_copy(t, e, j % LD_PAGE, m);
        }
        if lone != LD_NONE {
            ld_check_lone(t, e, j % LD_PAGE, lone, ends, close == LD_NONE);
        } else if (whole || m != 0u) && !quiet {
            ld_item_push(j);
        }
    }
}

// The slot's list of items (`Config::items_off`, counted by `ld_items_n`):
// the words a region's check visits, and after the kernel those the slots
// shader publishes (`ld_publish_accessed`).
fn ld_item_push(v: u32) {
    ld_val[ld_sv + ld_cfg.items_off + atomicAdd(&ld_items_n, 1u)] = v;
}

fn ld_item(i: u32) -> u32 {
    return ld_val[ld_sv + ld_cfg.items_off + i];
}

fn ld_step_settle(step: u32, close: u32) {
    let cur = ld_list_cur;
    let n = atomicLoad(&ld_list_n[cur]);
    var j = ld_li;
    for (; j < n; j += LD_WG_SIZE) {
        let item = ld_list_item(cur, j);
        let t = item >> 24u;
        ld_settle(t, item & 0xffffffu, step, ld_orders(close, ld_target_storage(t)), close == LD_NONE);
    }
}

fn ld_settle(t: u32, e: u32, step: u32, commit: bool, last: bool) {
    let a = ld_faddr(t, e);
    let f = ld_val[a];
    var g = f;
    // The check stores the base where the epoch ends (storage entries keep
    // their written flags: see `ld_check_word`), of the touched words alone
    // after the last region where it never stored it whole (`LD_BPART`); a
    // fold every role, where it ran.
    if commit {
        let part = last && step == LD_STEP_SETTLE_CHECK && (g & LD_BVALID) == 0u;
        // (The epoch's set of copies ends with it: `ld_copy_set`.)
        g = (g | select(LD_BVALID, LD_BPART, part) | select(0u, LD_MAT, step == LD_STEP_SETTLE_FOLD && !ld_pooled(t))) & ~LD_DIRTY1 & ((1u << LD_COPIES_SHIFT) - 1u);
    }
    // The next region flags it again where it accesses it (`ld_scan`).
    g &= ~LD_HERE;
    ld_val[a] = g;
    // The region's last step carries what is still dirty to the next list.
    if (g & LD_DIRTY1) != 0u {
        ld_list_push(1u - ld_list_cur, t, e);
    }
}

// Check mode at every barrier statement (b) and after the body (LD_NONE):
// the region's accessed entries are listed, checked and settled.
fn ld_check_region(close: u32) {
    ld_sync();
    ld_scan();
    if ld_li == 0u {
        atomicStore(&ld_list_n[1u - ld_list_cur], 0u);
        atomicStore(&ld_items_n, 0u);
    }
    ld_note_region(ld_open, close);
    ld_open = close;
    ld_steps(close);
}

// The check and its settling, each behind barriers; then the other list
// becomes the current one (for every invocation: no barrier).
fn ld_steps(close: u32) {
    ld_sync();
    ld_step_gather(close);
    ld_sync();
    ld_step_check(close);
    ld_sync();
    ld_step_settle(LD_STEP_SETTLE_CHECK, close);
    ld_sync();
    ld_list_cur = 1u - ld_list_cur;
}
