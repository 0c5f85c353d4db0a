// A word of an entry as the sweeps at a barrier see it (`LdWord`): its
// roles' addresses and a copy's value.

// ------------------------------------------------------------ sweeps

// The word of entry e's word w.
fn ld_word(t: u32, e: u32, w: u32, storage: bool) -> u32 {
    if storage {
        return ld_key_page(t, e) * LD_PAGE + w;
    }
    return e * LD_PAGE + w;
}

// Where the roles of one word of an entry lie: role r at `a + r * stride`.
struct LdWord {
    a: u32,
    stride: u32,
    // The target, and its lane tags (copy c's at `tag + c * tag_stride`).
    t: u32,
    tag: u32,
    tag_stride: u32,
    // The word of the memory, whether every role is stored, and the base.
    k: u32,
    mat: bool,
    b: u32,
    // Check mode: the copies that accessed the word in the epoch (a mask),
    // or (more copies than a mask holds) how many to visit from copy 0;
    // up to LD_WROTE_MASK_COPIES copies, those that wrote it in the epoch.
    mask: u32,
    wmask: u32,
    all: u32,
    // Deterministic mode: the entry and word, whether the copies' pages
    // are pool blocks, and the copies that accessed the entry in the epoch
    // (`ld_copy_set`).
    e: u32,
    w: u32,
    pooled: bool,
    cset: u32,
}

fn ld_word_at(t: u32, e: u32, w: u32, storage: bool) -> LdWord {
    var x: LdWord;
    x.stride = ld_cfg.t[t].entries * LD_PAGE;
    x.a = ld_sv + ld_cfg.t[t].values_off + e * LD_PAGE + w;
    x.t = t;
    x.tag = ld_tag_addr(t, 0u, e, w);
    x.tag_stride = ld_cfg.t[t].entries * LD_PAGE;
    x.k = ld_word(t, e, w, storage);
    let f = ld_flags(t, e);
    x.mat = (f & LD_MAT) != 0u;
    x.b = ld_base(t, e, w, x.k, f);
    if LD_CHECK {
        let m = ld_touched_copies(atomicLoad(&ld_meta[ld_touched_addr(t, e, w)]));
        x.mask = m.x;
        x.wmask = m.y;
    }
    x.all = select(0u, ld_cfg.copies, ld_cfg.copies > LD_MASK_COPIES);
    x.e = e;
    x.w = w;
    x.pooled = ld_pooled(t);
    x.cset = ld_copy_set(f);
    return x;
}

// A word's touched mask (`ld_check_access`) as the copies that accessed
// it in the epoch (x) and, up to LD_WROTE_MASK_COPIES copies, those that
// wrote it (y).
fn ld_touched_copies(m: u32) -> vec2<u32> {
    let halves = ld_cfg.copies <= LD_WROTE_MASK_COPIES;
    let mask = select(m, (m | (m >> LD_WROTE_MASK_COPIES)) & ((1u << LD_WROTE_MASK_COPIES) - 1u), halves);
    return vec2<u32>(mask, select(0u, m >> LD_WROTE_MASK_COPIES, halves));
}

// Deterministic mode: copy c's word, as its page or block holds it.
fn ld_copy_of(x: LdWord, c: u32) -> u32 {
    if x.pooled {
        return ld_pool_word(x.t, x.e, c, x.w, x.b);
    }
    return ld_copy_word(x, ld_cfg.role_p + c, ld_cfg.set_pages + c);
}

// Copy c's page `role`, flagged in page `flag`: the stored word, or the
// base where the copy has not written it.
fn ld_copy_word(x: LdWord, role: u32, flag: u32) -> u32 {
    let v = ld_val[x.a + role * x.stride];
    let written = x.mat || ld_val[x.a + flag * x.stride] == ld_cfg.stamp;
    return select(x.b, v, written);
}
