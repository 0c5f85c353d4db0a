// Deterministic mode at a barrier: the written words fold in copy order.

// Deterministic mode at the end of a region: where it ends the word's
// epoch (`fold`), the copies' writes merge in copy order (a later copy
// wins a word several wrote); and with lane tags, the region is done with
// them. The copies start
// the next region from the result (`copies`), but after the kernel's last
// region only the base is read (`ld_publish`): storing
// every copy there would cost a run at one invocation per warp (hundreds of
// copies) as much again as the fold itself.
fn ld_fold_word(t: u32, e: u32, w: u32, storage: bool, fold: bool, copies: bool) {
    let x = ld_word_at(t, e, w, storage);
    if x.k >= ld_cfg.t[t].words {
        return;
    }
    var u = x.b;
    if ld_det_writers() {
        // Down from the last writer to the last copy whose word differs
        // from the base (a copy may have written the base's value back).
        let a = ld_writer_addr(t, e, w);
        var c = atomicLoad(&ld_meta[a]);
        atomicStore(&ld_meta[a], 0u);
        for (; c > 0u; c--) {
            let p = ld_copy_of(x, c - 1u);
            if p != x.b {
                u = p;
                break;
            }
        }
    } else {
        // The copies that accessed the entry in the epoch, in copy order:
        // the others hold the base. The region is done with their lane
        // tags (`ld_det_access`), in the same loop (a loop of its own over
        // the copies is no faster). (The layouts with last writers
        // have no tags: `ld_fold_region` calls this there only to fold.)
        for (var c = ld_first_copy(x.cset); c < ld_cfg.copies; c = ld_next_copy(x.cset, c)) {
            if fold {
                let p = ld_copy_of(x, c);
                u = select(u, p, p != x.b);
            }
            if ld_det_tags() {
                ld_clear_tags(x, c);
            }
        }
    }
    if !fold {
        return;
    }
    ld_val[x.a] = u;
    if storage && u != x.b {
        ld_val[ld_changed_addr(t, e)] = 1u;
    }
    // (Pooled copies read the base where their blocks are given back.
    // Where the word kept the base's value in a materialized entry, every
    // copy holds it already: a copy that wrote another value would be the
    // union. An entry that is not yet materialized becomes so here: its
    // copies' pages hold what earlier epochs left where nothing wrote.)
    let n = select(0u, ld_cfg.copies, copies && !x.pooled && (u != x.b || !x.mat));
    for (var c2 = 0u; c2 < n; c2++) {
        ld_val[x.a + (ld_cfg.role_p + c2) * x.stride] = u;
    }
}

// Deterministic mode (the folded kernel), at
// every barrier and at the end: the region's written entries are listed;
// where the closing barrier ends their epoch, their words fold in copy
// order and the entries settle; the entries still dirty carry over to the
// other list.
fn ld_fold_region(close: u32) {
    ld_sync();
    ld_scan();
    if ld_li == 0u {
        atomicStore(&ld_list_n[1u - ld_list_cur], 0u);
    }
    ld_sync();
    let cur = ld_list_cur;
    let len = atomicLoad(&ld_list_n[cur]);
    let blocks = min(atomicLoad(&ld_pool_n), ld_cfg.pool_cap);
    var j = ld_li;
    for (; j < len * LD_PAGE; j += LD_WG_SIZE) {
        let item = ld_list_item(cur, j / LD_PAGE);
        let t = item >> 24u;
        let storage = ld_target_storage(t);
        let fold = ld_orders(close, storage);
        // (A storage word's lane tags last its epoch: lanes of a warp share
        // the copy across workgroup barriers, so two of them touching it in
        // the epoch, one writing, is a conflict; `ld_det_access`.)
        if fold || (ld_det_tags() && !storage) {
            ld_fold_word(t, item & 0xffffffu, j % LD_PAGE, storage, fold, close != LD_NONE);
        }
    }
    ld_sync();
    // (Only layouts with last writers have a pool: the constant compiles
    // the release away in the other folded kernel.)
    if LD_DET_WRITERS && close != LD_NONE && ld_orders(close, true) && ld_cfg.pool_cap != 0u {
        ld_pool_release(blocks);
    }
    var i = ld_li;
    for (; i < len; i += LD_WG_SIZE) {
        let item = ld_list_item(cur, i);
        let t = item >> 24u;
        ld_settle(t, item & 0xffffffu, LD_STEP_SETTLE_FOLD, ld_orders(close, ld_target_storage(t)), close == LD_NONE);
    }
    ld_sync();
    ld_list_cur = 1u - cur;
}

// Deterministic mode: once a workgroup has found lanes of a warp sharing a
// word (`ld_det_access`), the host discards the run and runs the kernel
// again at warp size 1, so the workgroups that start after that skip their
// work (lavapipe runs a dispatch's workgroups a few at a time; on a GPU
// most have started). One load for the whole workgroup, so the barriers
// that follow stay uniform.
var<workgroup> ld_skip_wg: u32;

fn ld_skip() -> bool {
    if LD_CHECK || LD_DET_WRITERS {
        return false;
    }
    if ld_li == 0u {
        ld_skip_wg = atomicLoad(&ld_rec[LD_H_STATUS]) & LD_S_LANES;
    }
    return workgroupUniformLoad(&ld_skip_wg) != 0u;
}
