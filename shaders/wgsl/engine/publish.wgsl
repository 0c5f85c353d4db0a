// Level 1's records, made from a slot's entries after the batch.

// ------------------------------------------------------------ level 1

// Level 1's records are made in the slots shader (slots.wgsl), one
// workgroup of LD_PAGE invocations per slot, one
// invocation per word of a page: they are loops over pages, which the
// kernel would run with one invocation per page (a page's words one after
// another) and which lavapipe would compile into every kernel. (Run by the
// kernel after its last region instead, with all its invocations and no
// dispatch of its own, they would save a dispatch but cost the kernel
// more than the dispatch costs.)

// The slot's pages that changed a word of the user's buffer, or (check
// mode) whose words the workgroup read or its lanes wrote, whatever the
// value, become level-1 records, linked per page (the CPU reference
// publishes the same): the entries (one invocation per entry), a record
// per marked entry, then its words (check mode: those the workgroup
// accessed, `ld_publish_accessed`) and access bits. An entry's mark holds
// its record (LD_NONE where level 1's records ran out). In check mode
// every entry the table holds was accessed (an access claims it, and its
// check leaves the access's bit in the access page), so every one is
// marked; in deterministic mode those a fold changed a word of
// (`ld_changed_addr`), where a pass over every word of every entry would
// be much of the publishing (a kernel's reads may claim most of its
// entries).
// `check`: a constant at each entry point (slots.wgsl), so that each
// pipeline compiles its own mode's path alone (lavapipe runs every path,
// masked).
fn ld_publish(t: u32, check: bool) {
    if ld_li == 0u {
        atomicStore(&ld_list_n[0], 0u);
        atomicStore(&ld_list_n[1], 0u);
        atomicStore(&ld_items_n, 0u);
    }
    workgroupBarrier();
    for (var e = ld_li; e < ld_cfg.t[t].entries; e += LD_WG_SIZE) {
        if ld_entry_key(t, e) != 0u {
            ld_val[ld_taddr(t, e)] = select(0u, 1u, check || ld_val[ld_changed_addr(t, e)] != 0u);
            ld_list_push(0u, t, e);
        }
        // The table's key is done with (the mirror names the page from
        // here on): the next batch finds the meta area zeroed.
        if !ld_direct(t) {
            atomicStore(&ld_meta[ld_kaddr(t, e)], 0u);
        }
    }
    ld_sync();
    let listed = atomicLoad(&ld_list_n[0]);
    for (var i = ld_li; i < listed; i += LD_WG_SIZE) {
        let e = ld_list_item(0u, i) & 0xffffffu;
        if ld_val[ld_taddr(t, e)] != 0u {
            let r = atomicAdd(&ld_rec[LD_H_L1_COUNT], 1u);
            if r < ld_cfg.l1_cap {
                ld_link_record(t, r, ld_key_page(t, e));
                ld_val[ld_taddr(t, e)] = r;
                ld_list_push(1u, t, e);
            } else {
                ld_val[ld_taddr(t, e)] = LD_NONE;
                ld_status(LD_S_L1_FULL);
            }
        }
    }
    ld_sync();
    if check {
        ld_publish_accessed(t);
    } else {
        ld_publish_pages(t);
    }
}

// Deterministic mode: every word of each page a fold changed.
fn ld_publish_pages(t: u32) {
    let m = atomicLoad(&ld_list_n[1]) * LD_PAGE;
    for (var j = ld_li; j < m; j += LD_WG_SIZE) {
        let e = ld_list_item(1u, j / LD_PAGE) & 0xffffffu;
        let w = j % LD_PAGE;
        let k = ld_key_page(t, e) * LD_PAGE + w;
        ld_l1v[ld_val[ld_taddr(t, e)] * LD_PAGE + w] = ld_base(t, e, w, k, ld_flags(t, e));
    }
}

// Check mode: the words the workgroup accessed, with their access bits;
// a record's other words are left as they were, and level 1 reads none
// of them (`ld_held` in level1.wgsl): a word the workgroup did not access
// holds the user's value in its base. The words are listed first (their
// access word, a load each), so the work of a record (its value, the
// bits) is per accessed word: bfs's `expand` touches a few words of each
// page it claims, and publishing every word of them would be much of its
// check. The listing also clears the touched masks the kernel left for
// the base (`ld_final_base`), noting each in the listed word's top bit.
fn ld_publish_accessed(t: u32) {
    let n0 = atomicLoad(&ld_list_n[0]) * LD_PAGE;
    for (var j = ld_li; j < n0; j += LD_WG_SIZE) {
        let e = ld_list_item(0u, j / LD_PAGE) & 0xffffffu;
        let w = j % LD_PAGE;
        let ta = ld_touched_addr(t, e, w);
        let touched = atomicLoad(&ld_meta[ta]) != 0u;
        atomicStore(&ld_meta[ta], 0u);
        if ld_word_access(t, e, w) != 0u && ld_val[ld_taddr(t, e)] != LD_NONE {
            ld_item_push(j | select(0u, LD_ITEM_TOUCHED, touched));
        }
    }
    ld_sync();
    let n = atomicLoad(&ld_items_n);
    for (var i = ld_li; i < n; i += LD_WG_SIZE) {
        let item = ld_item(i);
        let j = item & ~LD_ITEM_TOUCHED;
        let e = ld_list_item(0u, j / LD_PAGE) & 0xffffffu;
        let w = j % LD_PAGE;
        let r = ld_val[ld_taddr(t, e)];
        let k = ld_key_page(t, e) * LD_PAGE + w;
        ld_l1v[r * LD_PAGE + w] = ld_final_base(t, e, w, k, (item & LD_ITEM_TOUCHED) != 0u);
        atomicOr(&ld_l1[ld_cfg.l1_headers + r * LD_L1_WORDS + LD_L1_ACCESS + w / 16u], ld_word_access(t, e, w) << (2u * (w % 16u)));
    }
}

// A listed word whose touched mask was set (`ld_publish_accessed`).
const LD_ITEM_TOUCHED: u32 = 0x80000000u;

// The base of word w (word k of the memory) after the kernel: where the
// last check stored only the touched words (`LD_BPART`), the user's word
// stands in for the others (`touched`: the word's touched mask, which
// the kernel leaves for `ld_publish` to clear).
fn ld_final_base(t: u32, e: u32, w: u32, k: u32, touched: bool) -> u32 {
    let f = ld_flags(t, e);
    if (f & LD_BPART) != 0u && touched {
        return ld_val[ld_vaddr(t, 0u, e, w)];
    }
    return ld_base(t, e, w, k, f);
}

// Check mode: how the workgroup accessed word w of storage entry e
// (`abi::l1::READ`, `WROTE`; see `ld_check_word`). Its access page holds
// the bits beside the dispatch's stamp (its low 30 bits), so that a word
// marked by an earlier dispatch reads as not accessed, with no clearing.
fn ld_word_access(t: u32, e: u32, w: u32) -> u32 {
    return ld_access_word(ld_val[ld_vaddr(t, ld_cfg.set_pages + ld_cfg.copies, e, w)]) & 3u;
}

// An access word as this dispatch's: its bits where its stamp is the
// dispatch's, else none, stamped.
fn ld_access_word(v: u32) -> u32 {
    let stamp = ld_cfg.stamp << 2u;
    return stamp | select(0u, v & 3u, (v & ~3u) == stamp);
}

fn ld_link_record(t: u32, r: u32, page: u32) {
    let h = ld_cfg.l1_headers + r * LD_L1_WORDS;
    atomicStore(&ld_l1[h + LD_L1_TARGET], t);
    atomicStore(&ld_l1[h + LD_L1_PAGE], page);
    atomicStore(&ld_l1[h + LD_L1_WG], ld_wg);
    let next = atomicExchange(&ld_l1[ld_cfg.t[t].heads_off + page], r + 1u);
    atomicStore(&ld_l1[h + LD_L1_NEXT_PAGE], next);
    // The page's first record lists the page for level 1's sweeps.
    if next == 0u {
        atomicStore(&ld_l1[ld_cfg.l1_pages + atomicAdd(&ld_rec[LD_H_L1_PAGES], 1u)], r);
    }
    // The access bits (`abi::l1::ACCESS`; no loop: lavapipe caps them).
    atomicStore(&ld_l1[h + LD_L1_ACCESS], 0u);
    atomicStore(&ld_l1[h + LD_L1_ACCESS + 1u], 0u);
    atomicStore(&ld_l1[h + LD_L1_ACCESS + 2u], 0u);
    atomicStore(&ld_l1[h + LD_L1_ACCESS + 3u], 0u);
}
