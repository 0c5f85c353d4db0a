// The pool of copy pages of deterministic mode at one invocation per warp.

// ------------------------------------------------------------ the pool
//
// Deterministic mode at one invocation per warp: a storage entry holds
// only its base; copy c's page of it is a block of the slot's pool, taken
// at its first write in the epoch (`ld_pool_write`), so hundreds of
// copies hold the pages they wrote, not one of every page the workgroup
// touched (`abi::pool`).

// Only in the pipeline compiled with LD_DET_WRITERS (the one run at one
// invocation per warp): lavapipe runs both sides of every branch, so every
// other run would pay for the pool's path on each storage access.
fn ld_pooled(t: u32) -> bool {
    return LD_DET_WRITERS && ld_cfg.t[t].pooled != 0u;
}

// Copy c's pointer to its block of entry e (a block from 1; 0: none).
fn ld_ptr_addr(t: u32, e: u32, c: u32) -> u32 {
    return ld_sv + ld_cfg.t[t].ptr_off + e * ld_cfg.copies + c;
}

// Block b's copy page, written-flag page and header.
fn ld_pool_p(b: u32) -> u32 {
    return ld_sv + ld_cfg.pool_off + (b - 1u) * LD_PAGE;
}

fn ld_pool_f(b: u32) -> u32 {
    return ld_sv + ld_cfg.pool_off + (ld_cfg.pool_cap + b - 1u) * LD_PAGE;
}

fn ld_pool_h(b: u32) -> u32 {
    return ld_sv + ld_cfg.pool_off + 2u * ld_cfg.pool_cap * LD_PAGE + (b - 1u) * LD_POOL_HEADER;
}

// Copy c's block of entry e, or 0 where it took none in this epoch: the
// pointer is the copy's only where the block's header names it and this
// dispatch (one left from an earlier epoch or dispatch is not).
fn ld_pool_block(t: u32, e: u32, c: u32) -> u32 {
    let pa = ld_ptr_addr(t, e, c);
    let b = ld_val[pa];
    if b == 0u || b > ld_cfg.pool_cap {
        return 0u;
    }
    let h = ld_pool_h(b);
    return select(0u, b, ld_val[h] == pa + 1u && ld_val[h + 1u] == ld_cfg.stamp);
}

// Copy c's word w of entry e: where it wrote it, its value; else the base.
fn ld_pool_word(t: u32, e: u32, c: u32, w: u32, base: u32) -> u32 {
    let b = ld_pool_block(t, e, c);
    if b != 0u && ld_val[ld_pool_f(b) + w] == ld_cfg.stamp {
        return ld_val[ld_pool_p(b) + w];
    }
    return base;
}

// The invocation's write: into its block, taken first if it has none (a
// full pool drops the write and says so: the host runs again with more).
fn ld_pool_write(t: u32, e: u32, w: u32, v: u32) {
    var b = ld_pool_block(t, e, ld_copy);
    if b == 0u {
        let i = atomicAdd(&ld_pool_n, 1u);
        if i >= ld_cfg.pool_cap {
            ld_status(LD_S_POOL_FULL);
            return;
        }
        b = i + 1u;
        let pa = ld_ptr_addr(t, e, ld_copy);
        let h = ld_pool_h(b);
        ld_val[h] = pa + 1u;
        ld_val[h + 1u] = ld_cfg.stamp;
        ld_val[pa] = b;
    }
    ld_val[ld_pool_p(b) + w] = v;
    ld_val[ld_pool_f(b) + w] = ld_cfg.stamp;
}

// Where a barrier ends every storage epoch, the blocks' pages were folded
// into the bases: every block is given back, its flags and header cleared
// (`n`: the blocks taken, read before the fold's barrier; the count is
// reset behind it, where no invocation takes one).
fn ld_pool_release(n: u32) {
    if ld_li == 0u {
        atomicStore(&ld_pool_n, 0u);
    }
    for (var j = ld_li; j < n * LD_PAGE; j += LD_WG_SIZE) {
        ld_val[ld_pool_f(1u) + j] = 0u;
    }
    for (var j = ld_li; j < n * LD_POOL_HEADER; j += LD_WG_SIZE) {
        ld_val[ld_pool_h(1u) + j] = 0u;
    }
}
