// The kernel's own reads and writes of its targets, through its warp's
// copy: what every access pays.

// ------------------------------------------------------------ the kernel's accesses

// Workgroup arrays: every entry is stored whole.
fn ld_shared_read(t: u32, k: u32) -> u32 {
    return ld_val[ld_vaddr(t, ld_cur_role, k / LD_PAGE, k % LD_PAGE)];
}

fn ld_shared_write(t: u32, k: u32, v: u32) {
    let e = k / LD_PAGE;
    ld_val[ld_vaddr(t, ld_cur_role, e, k % LD_PAGE)] = v;
    ld_val[ld_taddr(t, e)] = 1u;
}

fn ld_storage_read(t: u32, k: u32) -> u32 {
    // Reads that tag claim their page (a tag needs an entry). One call or
    // the other (check mode's kernel compiles the first alone: a lookup
    // and then a claim would probe the table twice).
    var e: u32;
    if ld_tags_reads() {
        e = ld_insert(t, k / LD_PAGE);
    } else {
        e = ld_find(t, k / LD_PAGE);
    }
    if !ld_direct(t) && e == LD_NONE {
        return ld_user(t, k);
    }
    var v: u32;
    if ld_pooled(t) {
        v = ld_pool_word(t, e, ld_copy, k % LD_PAGE, ld_base(t, e, k % LD_PAGE, k, ld_flags(t, e)));
    } else {
        v = ld_get(t, e, ld_cur_role, ld_cur_flag, k % LD_PAGE, k);
    }
    ld_on_read(t, e, k % LD_PAGE);
    return v;
}

fn ld_storage_write(t: u32, k: u32, v: u32) {
    let e = ld_insert(t, k / LD_PAGE);
    if ld_direct(t) || e != LD_NONE {
        let w = k % LD_PAGE;
        if ld_pooled(t) {
            ld_pool_write(t, e, w, v);
        } else {
            ld_val[ld_vaddr(t, ld_cur_role, e, w)] = v;
            ld_val[ld_vaddr(t, ld_cur_flag, e, w)] = ld_c.stamp;
        }
        ld_val[ld_taddr(t, e)] = 1u;
        ld_on_write(t, e, w);
    }
}

// The invocation's accesses go to its copy's page P_c.
fn ld_begin_copy() {
    ld_cur_role = ld_c.role_p + ld_copy;
    ld_cur_flag = ld_c.set_pages + ld_copy;
    ld_cur_mark = select(0u, ld_copy, ld_c.copies <= LD_MASK_COPIES);
    ld_cur_wmark = ld_cur_mark + select(0u, LD_WROTE_MASK_COPIES, ld_c.copies <= LD_WROTE_MASK_COPIES);
    ld_pass_bases();
}
