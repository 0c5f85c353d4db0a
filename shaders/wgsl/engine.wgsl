// ld's check engine inside the instrumented kernel (paper sections 4.1-4.3).
//
// Every workgroup runs in a scratch slot of its batch. Each privatized
// memory ("target") is a set of *entries*, one per 64-word page: workgroup
// arrays have one per page (direct-mapped), storage buffers get one when the
// workgroup first accesses the page (a hash table of pages). An entry holds
// pages for its *roles*: the base B (what the workgroup's memory held at the
// epoch's start) and each warp copy's page P_c.
// Workgroup arrays are stored whole from the start (MAT). A storage entry
// is claimed mid-pass while other invocations may be reading the page, so
// no one copies it then: a role word is valid where its written-flag page
// holds this dispatch's stamp, else the base (or the user's buffer) stands
// in; the sweeps at the next barrier store every word.
//
// Accessed entries are listed once per region (accesses only mark them), so
// the sweep at a region's end visits only them. The path an invocation
// takes on every access is free of atomics and loops, and everything that
// runs once per region is free of loops but the sweeps: lavapipe runs both
// sides of every branch whose condition is not a constant or a uniform
// (masked), and charges every loop construct it passes through against one
// budget of 65535 iterations per invocation.
//
// The generated kernel provides: LD_WG_SIZE (the invocations that share
// the engine's loops), LD_INVOCATIONS (the kernel's own, the first
// LD_INVOCATIONS of them), LD_DET_WRITERS (whether deterministic mode keeps each
// word's last writer: an override constant of the folded kernel), LD_WIDE
// (check mode: more copies than a mask holds, an override constant),
// LD_TAG_GROUPS (the layout's tag words per copy, or 0: an override
// constant of both), LD_CHECK
// (whether it is check mode's state machine or the folded kernel), the kernel's
// ids, `ld_user(t, k)` (word k of storage target t in the user's buffer),
// what it knows of its targets (`ld_target_storage`, `ld_target_spans`,
// `ld_flat_target`) and of its barriers (`ld_orders`).

var<private> ld_wg: u32;
var<private> ld_slot: u32;
var<private> ld_li: u32;
var<private> ld_warp: u32;
var<private> ld_copy: u32;
var<private> ld_region: u32;
// The dispatch's configuration (`ld_c`, and `ld_tc` per target), as each
// invocation holds it: lavapipe loads a storage word lane by lane, bounds
// checked, at every use, and the engine's loops use these at every word
// (bplustree's check took 37% less time, kmeans' and bisect_small's half,
// once they were no longer read from the binding).
var<private> ld_tc: array<LdTarget, LD_TARGETS>;

fn ld_load_config() {
    ld_load_head();
    let n = min(LD_TARGETS, arrayLength(&ld_cfg.t));
    for (var t = 0u; t < n; t++) {
        ld_tc[t] = ld_cfg.t[t];
    }
}

// Where the slot's values and keys start.
var<private> ld_sv: u32;
var<private> ld_sm: u32;
// Targets whose table had no room for a page (reported at the end).
var<private> ld_full_bits: u32;
// The copy's role page, its written-flag page, and its access mark.
var<private> ld_cur_role: u32;
var<private> ld_cur_flag: u32;
var<private> ld_cur_mark: u32;

// The dirty-entry lists: entries accessed since their epoch began. A
// region pushes onto the current list; the region's last step carries the
// entries still dirty over to the other one. Every invocation keeps which
// list is current itself (they all pass the same barriers), so switching
// lists needs no barrier.
var<workgroup> ld_list_n: array<atomic<u32>, 2>;
var<private> ld_list_cur: u32;
// Blocks of the pool taken (deterministic mode at one invocation per warp).
var<workgroup> ld_pool_n: atomic<u32>;
// Check mode: the words the region's check visits (`ld_step_gather`).
var<workgroup> ld_items_n: atomic<u32>;
// The barrier that opened the current region (LD_NONE: the kernel's start).
var<private> ld_open: u32;

// Storage memory is where the copies live: both barriers.
fn ld_sync() {
    storageBarrier();
    workgroupBarrier();
}

// lavapipe ends every loop of an invocation once its loops have run 65535
// iterations in all (gallivm's loop limiter, shared by every loop of a
// shader, never reset), so a result computed after that cannot be trusted.
// The kernel's last loop needs two iterations and a count NIR cannot know:
// if the limiter stopped it after one, some loop was cut short.
// Reported at the kernel's end: tables that had no room, loops cut short.
fn ld_report() {
    if ld_full_bits != 0u {
        ld_status(LD_S_TABLE_FULL);
        atomicOr(&ld_rec[LD_H_STATUS_TARGETS], ld_full_bits);
    }
    ld_canary();
}

fn ld_canary() {
    var i = 0u;
    loop {
        i += 1u;
        if i >= ld_c.canary {
            break;
        }
    }
    if i < ld_c.canary {
        ld_status(LD_S_LOOP_LIMIT);
    }
}

fn ld_status(bit: u32) {
    atomicOr(&ld_rec[LD_H_STATUS], bit);
    atomicMin(&ld_rec[LD_H_STATUS_WG], ld_wg);
}

// ------------------------------------------------------------ addresses

fn ld_vaddr(t: u32, role: u32, e: u32, w: u32) -> u32 {
    return ld_sv + ld_tc[t].values_off + (role * ld_tc[t].entries + e) * LD_PAGE + w;
}

// An entry's flags, and the mark writers leave on it (plain words: flags
// change only behind barriers, one invocation per entry).
fn ld_faddr(t: u32, e: u32) -> u32 {
    return ld_sv + ld_tc[t].flags_off + e;
}

fn ld_taddr(t: u32, e: u32) -> u32 {
    return ld_sv + ld_tc[t].touch_off + e;
}

// A storage table's keys (claimed atomically) and their plain mirror.
fn ld_kaddr(t: u32, e: u32) -> u32 {
    return ld_sm + ld_tc[t].keys_off + e;
}

fn ld_mirror(t: u32, e: u32) -> u32 {
    return ld_sv + ld_tc[t].mirror_off + e;
}

// ------------------------------------------------------------ storage tables

// Fibonacci hashing (the product's top bits; `cap` a power of two): a
// workgroup's pages are mostly runs and strides, which it spreads evenly.
// (The product's low bits, mixed with bits 15 up, put nine consecutive
// pages out of reach of four probes in a table of 32 for 188 of 256
// workgroups: scan's and the scaling example's checks all ran twice.)
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
    let cap = ld_tc[t].entries;
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
// page's. A spurious failure of the weak exchange counts as taken.
fn ld_claim(t: u32, h: u32, page: u32) -> bool {
    let r = atomicCompareExchangeWeak(&ld_meta[ld_kaddr(t, h)], 0u, page + 1u);
    return r.exchanged || r.old_value == page + 1u;
}

// The page's entry, claimed if new (at most two exchanges: this is inlined
// at every write, and lavapipe runs it for every invocation); LD_NONE when
// the probes found no room: the host then runs the check again with a
// larger table.
fn ld_insert(t: u32, page: u32) -> u32 {
    if ld_direct(t) {
        return page;
    }
    var e = ld_find(t, page);
    if e == LD_NONE {
        let cap = ld_tc[t].entries;
        let h = ld_hash(page, cap);
        // The first two slots whose mirror says free (a slot another
        // invocation is claiming right now fails its exchange).
        var a = LD_NONE;
        var b = LD_NONE;
        for (var i = 0u; i < 4u; i++) {
            let s = (h + i) & (cap - 1u);
            let free = ld_val[ld_mirror(t, s)] == 0u;
            b = select(b, s, free && a != LD_NONE && b == LD_NONE);
            a = select(a, s, free && a == LD_NONE);
        }
        if a != LD_NONE && ld_claim(t, a, page) {
            e = a;
        } else if b != LD_NONE && ld_claim(t, b, page) {
            e = b;
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
    if (f & LD_MAT) != 0u || ld_val[ld_vaddr(t, flag, e, w)] == ld_c.stamp {
        return ld_val[ld_vaddr(t, role, e, w)];
    }
    return ld_base(t, e, w, k, f);
}

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
    return LD_DET_WRITERS && ld_tc[t].pooled != 0u;
}

// Copy c's pointer to its block of entry e (a block from 1; 0: none).
fn ld_ptr_addr(t: u32, e: u32, c: u32) -> u32 {
    return ld_sv + ld_tc[t].ptr_off + e * ld_c.copies + c;
}

// Block b's copy page, written-flag page and header.
fn ld_pool_p(b: u32) -> u32 {
    return ld_sv + ld_c.pool_off + (b - 1u) * LD_PAGE;
}

fn ld_pool_f(b: u32) -> u32 {
    return ld_sv + ld_c.pool_off + (ld_c.pool_cap + b - 1u) * LD_PAGE;
}

fn ld_pool_h(b: u32) -> u32 {
    return ld_sv + ld_c.pool_off + 2u * ld_c.pool_cap * LD_PAGE + (b - 1u) * LD_POOL_HEADER;
}

// Copy c's block of entry e, or 0 where it took none in this epoch: the
// pointer is the copy's only where the block's header names it and this
// dispatch (one left from an earlier epoch or dispatch is not).
fn ld_pool_block(t: u32, e: u32, c: u32) -> u32 {
    let pa = ld_ptr_addr(t, e, c);
    let b = ld_val[pa];
    if b == 0u || b > ld_c.pool_cap {
        return 0u;
    }
    let h = ld_pool_h(b);
    return select(0u, b, ld_val[h] == pa + 1u && ld_val[h + 1u] == ld_c.stamp);
}

// Copy c's word w of entry e: where it wrote it, its value; else the base.
fn ld_pool_word(t: u32, e: u32, c: u32, w: u32, base: u32) -> u32 {
    let b = ld_pool_block(t, e, c);
    if b != 0u && ld_val[ld_pool_f(b) + w] == ld_c.stamp {
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
        if i >= ld_c.pool_cap {
            ld_status(LD_S_POOL_FULL);
            return;
        }
        b = i + 1u;
        let pa = ld_ptr_addr(t, e, ld_copy);
        let h = ld_pool_h(b);
        ld_val[h] = pa + 1u;
        ld_val[h + 1u] = ld_c.stamp;
        ld_val[pa] = b;
    }
    ld_val[ld_pool_p(b) + w] = v;
    ld_val[ld_pool_f(b) + w] = ld_c.stamp;
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

fn ld_list_push(list: u32, t: u32, e: u32) {
    let i = atomicAdd(&ld_list_n[list], 1u);
    ld_val[ld_sv + ld_c.list_off + list * ld_c.list_cap + i] = (t << 24u) | e;
}

fn ld_list_item(list: u32, i: u32) -> u32 {
    return ld_val[ld_sv + ld_c.list_off + list * ld_c.list_cap + i];
}

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

// ------------------------------------------------------------ lane tags
//
// Per copy and word, a tag word per 16 lanes: the lanes that wrote it (low
// half) and read it (high half), set by an atomic or, so the sets do not
// depend on the order the lanes ran in.
//
// Check mode tags every access to a target; the sweep at the region's end
// (`ld_check_word`) reads the tags of each word complete and clears them.
// Per copy and word they show which lanes wrote it (so whether the copy
// wrote it in this region) and whether a lane read it: a read of a word
// another copy wrote in the epoch raced with that write, wherever the value
// went next (a register, an atomic, a branch); and, as lanes of one warp
// share its copy and values cannot separate them, two lanes of the copy
// writing the word, or one reading what another wrote, race within the
// warp. An access pays one atomic or: the checks run once per word in the
// sweep, not at every read.

// The lane's index in its warp, up to the lanes the tags hold (beyond that,
// lanes alias, which can only hide a race). Warp sizes are powers of two
// (the launch checks): a mask, where a remainder by a run-time value is a
// division per lane at every access on a CPU.
fn ld_lane() -> u32 {
    return ld_li & (ld_c.warp_size - 1u) & (LD_TAG_LANES * LD_TAG_GROUPS_MAX - 1u);
}

// Tag words per copy and word: the pipeline's LD_TAG_GROUPS where it sets
// it, so that the branches on it below compile away (lavapipe runs every
// branch, masked: the tally and clearing of four words where two are used
// cost 4% of a check), else the configuration's.
fn ld_tag_groups() -> u32 {
    return select(ld_c.tag_groups, LD_TAG_GROUPS, LD_TAG_GROUPS != 0u);
}

// The tag word of copy c, lane group g, entry e, word w.
fn ld_tag_addr(t: u32, c: u32, g: u32, e: u32, w: u32) -> u32 {
    return ld_sm + ld_tc[t].tags_off + ((c * ld_tag_groups() + g) * ld_tc[t].entries + e) * LD_PAGE + w;
}

// Check mode: the copies that accessed entry e's word w in the epoch, a
// bit each (`ld_cur_mark`).
fn ld_touched_addr(t: u32, e: u32, w: u32) -> u32 {
    return ld_sm + ld_tc[t].touched_off + e * LD_PAGE + w;
}

// Past a mask's copies (LD_WIDE): whether copy c accessed entry e's word
// w in the epoch, a page per copy after the touched page.
fn ld_epoch_addr(t: u32, c: u32, e: u32, w: u32) -> u32 {
    return ld_sm + ld_tc[t].touched_off + ((1u + c) * ld_tc[t].entries + e) * LD_PAGE + w;
}

// This lane's bit in its tag word: writer, or reader.
fn ld_tag_bit(write: bool) -> u32 {
    let me = 1u << (ld_lane() % LD_TAG_LANES);
    return select(me << 16u, me, write);
}

// Whether reads tag (and so claim and mark their pages): check mode, and
// deterministic mode with lane tags.
fn ld_tags_reads() -> bool {
    return LD_CHECK || ld_det_tags();
}

// The kernel's hooks on every access to a target. In check mode an access
// marks its entry (a read too, so the sweep at the region's end visits its
// tags) and sets its copy's bit in the word's touched mask (which copies
// the sweep visits for the word: one atomic or, where a mark per entry and
// copy cost a store per access and a loop per entry at every barrier).
fn ld_on_read(t: u32, e: u32, w: u32) {
    if LD_CHECK {
        ld_check_access(t, e, w, false);
        ld_val[ld_taddr(t, e)] = 1u;
    }
    ld_det_access(t, e, w, false);
}

fn ld_on_write(t: u32, e: u32, w: u32) {
    if LD_CHECK {
        ld_check_access(t, e, w, true);
    }
    ld_det_access(t, e, w, true);
    if ld_det_writers() {
        atomicMax(&ld_meta[ld_writer_addr(t, e, w)], ld_copy + 1u);
    }
}

// Check mode: the access's lane tag, its copy's bit in the touched mask,
// and past a mask's copies its copy's epoch page.
fn ld_check_access(t: u32, e: u32, w: u32, write: bool) {
    atomicOr(&ld_meta[ld_tag_addr(t, ld_copy, ld_lane() / LD_TAG_LANES, e, w)], ld_tag_bit(write));
    atomicOr(&ld_meta[ld_touched_addr(t, e, w)], 1u << ld_cur_mark);
    if LD_WIDE {
        atomicStore(&ld_meta[ld_epoch_addr(t, ld_copy, e, w)], 1u);
    }
}

// Deterministic mode without lane tags (one invocation per warp) keeps
// each word's last writer in copy order (`Roles::last_writers`): the fold
// of hundreds of copies starts there. Only in the pipeline compiled with
// LD_DET_WRITERS: lavapipe would run the atomic on every write of every
// other run too, masked (em's deterministic run took 8% longer). The
// runtime compiles that pipeline for exactly those layouts
// (`Variant::FoldedWriters`), so the constant alone decides, and the
// fold's path for the other kind of run compiles away.
fn ld_det_writers() -> bool {
    return LD_DET_WRITERS;
}

fn ld_writer_addr(t: u32, e: u32, w: u32) -> u32 {
    return ld_sm + ld_tc[t].tags_off + e * LD_PAGE + w;
}

// One tag word into a copy's tally: lanes that wrote (x), lanes that
// touched (y), lanes that read (z, as bits).
fn ld_tally(s: vec3<u32>, v: u32) -> vec3<u32> {
    return vec3<u32>(s.x + countOneBits(v & 0xffffu), s.y + countOneBits((v | (v >> 16u)) & 0xffffu), s.z | (v >> 16u));
}

// Copy c's tags of a word, tallied (see `ld_tally`). Up to four words,
// without a loop (lavapipe charges every loop the sweep passes through,
// for every word).
fn ld_copy_tags(x: LdWord, c: u32) -> vec3<u32> {
    let a = x.tag + c * ld_tag_groups() * x.tag_stride;
    var s = ld_tally(vec3<u32>(0u), atomicLoad(&ld_meta[a]));
    if ld_tag_groups() > 1u {
        s = ld_tally(s, atomicLoad(&ld_meta[a + x.tag_stride]));
    }
    if ld_tag_groups() > 2u {
        s = ld_tally(s, atomicLoad(&ld_meta[a + 2u * x.tag_stride]));
        if ld_tag_groups() > 3u {
            s = ld_tally(s, atomicLoad(&ld_meta[a + 3u * x.tag_stride]));
        }
    }
    return s;
}

// The region is done with copy c's tags of a word. The sweep alone touches
// them (one invocation per word, behind the region's barrier), so plain
// stores do: an exchange costs lavapipe a read-modify-write per lane.
fn ld_clear_tags(x: LdWord, c: u32) {
    let a = x.tag + c * ld_tag_groups() * x.tag_stride;
    atomicStore(&ld_meta[a], 0u);
    if ld_tag_groups() > 1u {
        atomicStore(&ld_meta[a + x.tag_stride], 0u);
    }
    if ld_tag_groups() > 2u {
        atomicStore(&ld_meta[a + 2u * x.tag_stride], 0u);
        if ld_tag_groups() > 3u {
            atomicStore(&ld_meta[a + 3u * x.tag_stride], 0u);
        }
    }
}

// Deterministic mode has one pass: every access tags, and the old value of
// the atomic or shows whichever access of two came first. Two lanes of a
// copy touching a word in a region, one writing, make the result depend on
// the device's lane order: the status says so and the host runs again at
// warp size 1. Reads claim their storage pages too (a tag needs an entry),
// and mark them, so the fold clears their tags at the region's end. The
// folded kernel without LD_DET_WRITERS runs exactly the layouts with tags
// (`Variant::Folded`): constants decide, and the other paths compile away
// (lavapipe ran them masked: scan's deterministic run 0.75-0.85 times
// without them, em's 0.85-0.9).
fn ld_det_tags() -> bool {
    return !LD_CHECK && !LD_DET_WRITERS;
}

fn ld_det_access(t: u32, e: u32, w: u32, write: bool) {
    if !ld_det_tags() {
        return;
    }
    let g = ld_lane() / LD_TAG_LANES;
    let bit = ld_tag_bit(write);
    let me = bit | (bit >> 16u) | (bit << 16u);
    let old = atomicOr(&ld_meta[ld_tag_addr(t, ld_copy, g, e, w)], bit);
    // The other groups' words (no loop on the access path). Of two, the
    // other is 1 - g: one load, where a test per group ran both, masked
    // (the pipeline's LD_TAG_GROUPS decides which code is compiled).
    let a = ld_tag_addr(t, ld_copy, 0u, e, w);
    let stride = ld_tc[t].entries * LD_PAGE;
    var o = 0u;
    if ld_tag_groups() == 2u {
        o = atomicLoad(&ld_meta[a + (1u - g) * stride]);
    } else if ld_tag_groups() > 2u {
        o = ld_det_other(a, stride, 0u, g) | ld_det_other(a, stride, 1u, g) | ld_det_other(a, stride, 2u, g) | ld_det_other(a, stride, 3u, g);
    }
    let others = (old & ~me) | o;
    if (others & 0xffffu) != 0u || (write && (others >> 16u) != 0u) {
        ld_status(LD_S_LANES);
    }
    if !write {
        ld_val[ld_taddr(t, e)] = 1u;
    }
}

fn ld_det_other(a: u32, stride: u32, h: u32, g: u32) -> u32 {
    if h == g || h >= ld_tag_groups() {
        return 0u;
    }
    return atomicLoad(&ld_meta[a + h * stride]);
}

// The fold, per word of every listed entry: the region's tags are done.
fn ld_det_clear(t: u32, e: u32, w: u32) {
    // Every copy's and group's tag word of (e, w): one stride apart.
    let n = ld_c.copies * ld_tag_groups();
    let a = ld_tag_addr(t, 0u, 0u, e, w);
    let stride = ld_tc[t].entries * LD_PAGE;
    var i = 0u;
    for (; i < n; i += 4u) {
        atomicStore(&ld_meta[a + i * stride], 0u);
        if i + 1u < n {
            atomicStore(&ld_meta[a + (i + 1u) * stride], 0u);
        }
        if i + 2u < n {
            atomicStore(&ld_meta[a + (i + 2u) * stride], 0u);
        }
        if i + 3u < n {
            atomicStore(&ld_meta[a + (i + 3u) * stride], 0u);
        }
    }
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

// The invocation's accesses go to its copy's page P_c.
fn ld_begin_copy() {
    ld_cur_role = ld_c.role_p + ld_copy;
    ld_cur_flag = ld_c.set_pages + ld_copy;
    ld_cur_mark = select(0u, ld_copy, ld_c.copies <= LD_MASK_COPIES);
    ld_pass_bases();
}

// ------------------------------------------------------------ records

fn ld_record(kind: u32, t: u32, a: u32, b: u32, k: u32) {
    ld_record_at(atomicAdd(&ld_rec[LD_H_COUNT], 1u), kind, t, a, b, k);
}

// Record slot i, where the buffer has it: a race of this workgroup's
// region (a summary's first slot too, `ld_record_summary`).
fn ld_record_at(i: u32, kind: u32, t: u32, a: u32, b: u32, k: u32) {
    if i < ld_c.rec_cap {
        let o = ld_c.rec_off + i * LD_R_WORDS;
        ld_val[o + LD_R_KIND] = kind;
        ld_val[o + LD_R_TARGET] = t;
        ld_val[o + LD_R_WG] = ld_wg;
        ld_val[o + LD_R_A] = a;
        ld_val[o + LD_R_B] = b;
        ld_val[o + LD_R_WORD] = k;
        ld_val[o + LD_R_REGION] = ld_region;
        ld_val[o + LD_R_ROUND] = ld_c.round;
    }
}

// ------------------------------------------------------------ set-up

// Workgroup arrays start zeroed (the host fills their pages with zeros
// before the dispatch), every role stored.
fn ld_setup_shared(t: u32) {
    let e = ld_tc[t].entries;
    var i = ld_li;
    for (; i < e; i += LD_WG_SIZE) {
        ld_val[ld_faddr(t, i)] = LD_MAT | LD_BVALID;
    }
}

// Storage tables start empty: the kernel empties its slot's before the
// body, the tables of every storage target in one loop over their flat
// entries (0..n: storage targets come first). A dispatch of its own per
// target and batch cost bfs 20 dispatches a launch, 3-5% of its check.
fn ld_setup_storage(n: u32) {
    var j = ld_li;
    for (; j < n; j += LD_WG_SIZE) {
        let t = ld_flat_target(j);
        let i = j - ld_tc[t].first_entry;
        atomicStore(&ld_meta[ld_kaddr(t, i)], 0u);
        ld_val[ld_mirror(t, i)] = 0u;
        ld_val[ld_faddr(t, i)] = 0u;
        ld_val[ld_taddr(t, i)] = 0u;
    }
}

// After a region: the entries its accesses marked join the current list
// (once per epoch).
fn ld_scan() {
    let n = ld_c.entries_total;
    var j = ld_li;
    for (; j < n; j += LD_WG_SIZE) {
        let t = ld_flat_target(j);
        let e = j - ld_tc[t].first_entry;
        let ta = ld_taddr(t, e);
        if ld_val[ta] != 0u {
            ld_val[ta] = 0u;
            let fa = ld_faddr(t, e);
            let f = ld_val[fa];
            if (f & LD_DIRTY1) == 0u {
                ld_list_push(ld_list_cur, t, e);
            }
            ld_val[fa] = f | LD_DIRTY1 | LD_USED;
        }
    }
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
        let n = ld_c.barriers + 1u;
        ld_val[min(a, ld_c.barriers) * n + min(b, ld_c.barriers)] = 1u;
    }
}

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
    // The target, and its lane tags (copy c, group g at `tag + (c * groups + g) * tag_stride`).
    t: u32,
    tag: u32,
    tag_stride: u32,
    // The word of the memory, whether every role is stored, and the base.
    k: u32,
    mat: bool,
    b: u32,
    // Check mode: the copies that accessed the word in the epoch (a mask),
    // or (more copies than a mask holds) how many to visit from copy 0.
    mask: u32,
    all: u32,
    // Deterministic mode: the entry and word, and whether the copies' pages
    // are pool blocks.
    e: u32,
    w: u32,
    pooled: bool,
}

fn ld_word_at(t: u32, e: u32, w: u32, storage: bool) -> LdWord {
    var x: LdWord;
    x.stride = ld_tc[t].entries * LD_PAGE;
    x.a = ld_sv + ld_tc[t].values_off + e * LD_PAGE + w;
    x.t = t;
    x.tag = ld_tag_addr(t, 0u, 0u, e, w);
    x.tag_stride = ld_tc[t].entries * LD_PAGE;
    x.k = ld_word(t, e, w, storage);
    let f = ld_flags(t, e);
    x.mat = (f & LD_MAT) != 0u;
    x.b = ld_base(t, e, w, x.k, f);
    if LD_CHECK {
        x.mask = atomicLoad(&ld_meta[ld_touched_addr(t, e, w)]);
    }
    x.all = select(0u, ld_c.copies, ld_c.copies > LD_MASK_COPIES);
    x.e = e;
    x.w = w;
    x.pooled = ld_pooled(t);
    return x;
}

// Deterministic mode: copy c's word, as its page or block holds it.
fn ld_copy_of(x: LdWord, c: u32) -> u32 {
    if x.pooled {
        return ld_pool_word(x.t, x.e, c, x.w, x.b);
    }
    return ld_copy_word(x, ld_c.role_p + c, ld_c.set_pages + c);
}

// Copy c's page `role`, flagged in page `flag`: the stored word, or the
// base where the copy has not written it.
fn ld_copy_word(x: LdWord, role: u32, flag: u32) -> u32 {
    let v = ld_val[x.a + role * x.stride];
    let written = x.mat || ld_val[x.a + flag * x.stride] == ld_c.stamp;
    return select(x.b, v, written);
}

// At the barrier that ends a region (paper Fig. 3, with the reads that the
// paper's second pass would re-run tagged in the one pass instead), per
// word of every entry accessed in the epoch: copy c wrote word k in the
// epoch iff P_c != B, in this region iff a lane of c tagged it written.
// Two epoch writers, one of them in this region, race write-write (CROSS:
// in different regions). A copy that read the word in this region and
// left it at the base, while another copy wrote it in the epoch, raced
// with that write whatever the value went into next (a register, an
// atomic, a branch, memory): nothing orders a read and a write of one
// epoch (CROSS: every writer wrote it in an earlier region, across a
// barrier that does not order this memory). A copy that touched it only
// in an earlier region of the epoch, or whose lanes wrote it the value it
// held, races with another copy's write of this region, or change of the
// epoch (`ld_check_copy`). Lanes of one copy that wrote
// it twice, or read what another wrote, race within the warp. The region's
// tags are then cleared (but after the kernel's last region: the host
// clears them before each dispatch), and the epoch ends (commit: B = P_c =
// U, the last writer's value) or goes on.
//
// Only the copies that accessed the word in the epoch (`x.mask`, its
// touched mask) can have written it or hold tags: the loops visit them
// alone, one iteration each. The others hold the base: where the epoch
// ends and the word changed, a materialized entry's copies all take the
// union (a storage entry's copies read the base where they did not write:
// the visited ones forget their writes).
//
// A word that raced is recorded where it is found: as a summary of what
// the check found per copy, a bit each (`ld_record_summary`), which the
// host turns into one record per race; past a mask's copies (the
// pipeline's LD_WIDE), by a loop over its copies that runs no iteration
// for a word that did not (`ld_record_word`). lavapipe runs every function
// a kernel inlines, and every loop body at least once, masked or not, so
// what costs is the code on the path, not how often it is taken: the
// recording loop was 17% of bisect_small's check and 13% of radix_sort's.
// (Before it, a second pass over the words that raced, behind a workgroup
// flag, recorded them: its copy of the check ran masked at every region, a
// third of a race-free kernel's check.)
fn ld_check_word(t: u32, e: u32, w: u32, storage: bool, spans: bool, commit: bool, last: bool) {
    let x = ld_word_at(t, e, w, storage);
    if x.k >= ld_tc[t].words {
        return;
    }
    let m = ld_c.copies;
    var acc = LdCheckAcc(x.b, LD_NONE, false, LD_NONE, false, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    // The copies' tags are cleared as they are read (after the kernel's
    // last region too: the next batch's workgroups find the meta area
    // zeroed, which the host fills once per check, not once per batch),
    // and where a storage entry's epoch ends their written flags: in the
    // check's loop, but past a mask's copies, where the recording reads
    // them again (lavapipe runs every loop's body at least once: as a loop
    // of its own, the settling made checks 1.02-1.03 times as long).
    let forget = commit && !x.mat && !last;
    for (var it = ld_copies_first(x); ld_copies_more(x, it); it = ld_copies_next(it)) {
        let c = ld_copies_at(x, it);
        ld_check_copy(x, c, &acc);
        if !LD_WIDE {
            ld_settle_copy(x, c, forget, commit);
        }
    }
    let written = acc.u != x.b;
    // A copy that wrote the word the value it held, in this region, races
    // with the copies that read it in this region or touched it earlier in
    // the epoch, as a change would.
    // So does one that wrote it so in an earlier region of the epoch
    // (storage, where its written flag shows it), with this region's reads.
    let silent = acc.silent != 0u;
    let early_silent = acc.early_write != 0u;
    let wrote = written || silent || early_silent;
    let races = acc.pairs + select(0u, acc.readers, wrote) + select(0u, acc.silent, written) + acc.intra + select(0u, acc.early, acc.here != 0u || silent);
    let cross_reads = spans && acc.here == 0u && !silent;
    if LD_WIDE {
        ld_record_word(x, races != 0u, written, wrote, cross_reads, acc.here != 0u, silent, acc.first, acc.first_here);
    } else {
        ld_record_summary(x, acc, races, written, cross_reads, early_silent);
    }
    // Level 1 checks the workgroup's reads of storage, and its writes of
    // the values words held, against the others' writes (`ld_publish`).
    let access = select(0u, LD_L1_READ, acc.read != 0u) | select(0u, LD_L1_WROTE, acc.wrote != 0u);
    if storage && access != 0u {
        let a = x.a + (ld_c.set_pages + m) * x.stride;
        ld_val[a] = ld_access_word(ld_val[a]) | access;
    }
    if LD_WIDE {
        for (var it = ld_copies_first(x); ld_copies_more(x, it); it = ld_copies_next(it)) {
            ld_settle_copy(x, ld_copies_at(x, it), forget, commit);
        }
    }
    if !last {
        // A loop that runs no iteration where nothing is to store (lavapipe
        // would run the body of an `if`, masked), one store per iteration
        // (it runs an unrolled body whole, masked where the copies run
        // out: eight stores an iteration cost bisect_small 11% and scan 10%
        // of their checks).
        let n = select(0u, m, commit && x.mat && acc.u != x.b);
        for (var c = 0u; c < n; c++) {
            ld_val[x.a + (ld_c.role_p + c) * x.stride] = acc.u;
        }
    }
    if commit {
        ld_val[x.a] = acc.u;
        // A new epoch starts with the word untouched. After the kernel's
        // last region a storage word's mask says whether its base is
        // stored (`LD_BPART`, `ld_final_base`): publishing clears it.
        if !last || !storage {
            atomicStore(&ld_meta[ld_touched_addr(t, e, w)], 0u);
        }
    }
}

// The copies a word's check visits, in copy order: those in its touched
// mask, or (more copies than a mask holds) every one. One loop serves both
// (lavapipe runs every loop's body at least once, masked or not: a loop
// per case cost kmeans a fifth of its check). The state: the mask's bits
// left, and how many copies were visited.
fn ld_copies_first(x: LdWord) -> vec2<u32> {
    return vec2<u32>(x.mask, 0u);
}

fn ld_copies_more(x: LdWord, it: vec2<u32>) -> bool {
    return select(it.x != 0u, it.y < x.all, x.all != 0u);
}

fn ld_copies_at(x: LdWord, it: vec2<u32>) -> u32 {
    return select(firstTrailingBit(it.x), it.y, x.all != 0u);
}

fn ld_copies_next(it: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(it.x & (it.x - 1u), it.y + 1u);
}

// What checking a word's copies in copy order carries from one to the next.
struct LdCheckAcc {
    // The union: the last writer's value.
    u: u32,
    last: u32,
    last_here: bool,
    // The epoch's first writer in copy order, and whether it wrote in this
    // region (a silent write's partner).
    first: u32,
    first_here: bool,
    // Write-write pairs; copies that read the word and left it at the base;
    // epoch writers that wrote it in this region; copies whose lanes raced;
    // copies that read it.
    pairs: u32,
    readers: u32,
    here: u32,
    intra: u32,
    read: u32,
    early: u32,
    silent: u32,
    // The copies (a bit each, up to a mask's: `ld_record_summary`) that
    // wrote the word in the epoch, whose lanes wrote it in the region, that
    // read it, whose lanes raced (two writing; one writing, another
    // touching), that touched it earlier in the epoch only, and whose lanes
    // wrote it the value it held, without reading it.
    m_writes: u32,
    m_here: u32,
    m_read: u32,
    m_intra: u32,
    m_intra_rw: u32,
    m_early: u32,
    m_silent: u32,
    // Nonzero where some copy's lanes wrote the word in this region.
    wrote: u32,
    // Copies that touched the word in an earlier region of the epoch only,
    // and wrote it then the value it held (storage: their written flags).
    early_write: u32,
}

fn ld_check_copy(x: LdWord, c: u32, acc: ptr<function, LdCheckAcc>) {
    // `ld_copy_word`, its written flag kept (one load: see `early_write`).
    let flagged = !x.mat && ld_val[x.a + (ld_c.set_pages + c) * x.stride] == ld_c.stamp;
    let p = select(x.b, ld_val[x.a + (ld_c.role_p + c) * x.stride], x.mat || flagged);
    let s = ld_copy_tags(x, c);
    let here = s.x != 0u;
    let writes = p != x.b;
    let pair = writes && (*acc).last != LD_NONE && (here || (*acc).last_here);
    let first = writes && (*acc).first == LD_NONE;
    (*acc).first_here = select((*acc).first_here, here, first);
    (*acc).first = select((*acc).first, c, first);
    (*acc).pairs += select(0u, 1u, pair);
    (*acc).last = select((*acc).last, c, writes);
    (*acc).last_here = select((*acc).last_here, here, writes);
    (*acc).u = select((*acc).u, p, writes);
    (*acc).readers += select(0u, 1u, s.z != 0u && !writes);
    (*acc).here += select(0u, 1u, writes && here);
    let lanes = ld_lanes_race(s);
    (*acc).intra += select(0u, 1u, lanes != 0u);
    (*acc).read += select(0u, 1u, s.z != 0u);
    // A copy in the word's touched mask with no tag in this region touched
    // it in an earlier region of the epoch, across a barrier that does not
    // order this memory; where it left the word at the base and another
    // copy writes it in this region, that access raced with the write
    // (write-after-read: the value the copy saw went wherever it went, and
    // nothing ordered it before the write). Past a mask's copies, where
    // the check visits every copy, its epoch page says whether it touched
    // the word (`ld_accessed_before`).
    let early = s.y == 0u && !writes && ld_accessed_before(x, c);
    (*acc).early += select(0u, 1u, early);
    // Of those, a storage copy whose written flag is set wrote the word
    // then, leaving the value it held: this region's reads race with it.
    let early_write = early && flagged;
    (*acc).early_write += select(0u, 1u, early_write);
    // Lanes of a copy that wrote the word the value it held (and did not
    // read it) wrote in this region: where another copy changed the word
    // in the epoch, the final value depends on their order, which nothing
    // fixed (write-write; `ld_record_summary`, `check::findings`).
    let silent = s.x != 0u && !writes && s.z == 0u;
    (*acc).silent += select(0u, 1u, silent);
    (*acc).wrote |= s.x;
    if !LD_WIDE {
        let bit = 1u << c;
        (*acc).m_writes |= select(0u, bit, writes);
        (*acc).m_here |= select(0u, bit, here);
        (*acc).m_read |= select(0u, bit, s.z != 0u);
        (*acc).m_intra |= select(0u, bit, lanes == LD_K_INTRA);
        (*acc).m_intra_rw |= select(0u, bit, lanes == (LD_K_RW | LD_K_INTRA));
        (*acc).m_early |= select(0u, bit, early);
        (*acc).m_silent |= select(0u, bit, silent);
    }
}

// Whether copy c accessed the word in the epoch: every copy the check
// visits did (its touched mask), but past a mask's copies, where it visits
// them all, the copy's epoch page says.
fn ld_accessed_before(x: LdWord, c: u32) -> bool {
    if LD_WIDE {
        return atomicLoad(&ld_meta[ld_epoch_addr(x.t, c, x.e, x.w)]) != 0u;
    }
    return true;
}

// A copy's tally as an intra-warp race: two lanes wrote the word
// (LD_K_INTRA), or two touched it, one writing (also LD_K_RW); 0: none.
fn ld_lanes_race(s: vec3<u32>) -> u32 {
    if s.x >= 2u {
        return LD_K_INTRA;
    }
    return select(0u, LD_K_RW | LD_K_INTRA, s.x != 0u && s.y >= 2u);
}

// The region is done with copy c's word: its tags are cleared, and where
// a storage entry's epoch ends (`forget`), its written flag (the copy then
// reads the base, the union).
fn ld_settle_copy(x: LdWord, c: u32, forget: bool, commit: bool) {
    ld_clear_tags(x, c);
    if LD_WIDE && commit {
        atomicStore(&ld_meta[ld_epoch_addr(x.t, c, x.e, x.w)], 0u);
    }
    if forget {
        ld_val[x.a + (ld_c.set_pages + c) * x.stride] = 0u;
    }
}

// A word that raced (`races` records), summarized in two record slots
// (`abi::record::SUMMARY`): the host makes the records `ld_record_word`
// would. The slots' count goes up by two and `LD_H_EXTRA` by the rest,
// so the host knows how many races there were even where the record
// buffer is full; a summary whose second slot is past the buffer is
// counted, not kept.
fn ld_record_summary(x: LdWord, acc: LdCheckAcc, races: u32, written: bool, cross_reads: bool, early_silent: bool) {
    if races == 0u {
        return;
    }
    let i = atomicAdd(&ld_rec[LD_H_COUNT], LD_RS_SLOTS);
    atomicAdd(&ld_rec[LD_H_EXTRA], races - LD_RS_SLOTS);
    let kind = LD_K_SUMMARY | select(0u, LD_K_WRITTEN, written) | select(0u, LD_K_CROSS_READS, cross_reads) | select(0u, LD_K_EARLY_WRITE, early_silent);
    ld_record_at(i, kind, x.t, acc.m_writes, acc.m_here, x.k);
    if i + 1u < ld_c.rec_cap {
        let o2 = ld_c.rec_off + (i + 1u) * LD_R_WORDS;
        ld_val[o2 + LD_RS_READS] = acc.m_read;
        ld_val[o2 + LD_RS_INTRA] = acc.m_intra;
        ld_val[o2 + LD_RS_INTRA_RW] = acc.m_intra_rw;
        ld_val[o2 + LD_RS_EARLY] = acc.m_early;
        ld_val[o2 + LD_RS_SILENT] = acc.m_silent;
    }
}

// Past a mask's copies: the races of a word that raced (none: no
// iteration), per copy in copy order, as `ld_check_word` found them: the
// copy's write-write race with the epoch's previous writer (one of them
// writing in this region; CROSS: not both), its read of a word another
// copy wrote (`wrote`: the union is not the base, so some copy changed it
// (`written`), or some copy wrote it the value it held, in this region
// (`silent`) or an earlier one), its write of the value the word held,
// with the epoch's first writer (`first`), its earlier access of the
// epoch, where a copy writes the word in this region, and its lanes' race
// (`check::findings::records` on the host).
fn ld_record_word(x: LdWord, raced: bool, written: bool, wrote: bool, cross_reads: bool, here_writes: bool, silent: bool, first: u32, first_here: bool) {
    var last = LD_NONE;
    var last_here = false;
    // No copy to visit where the word did not race.
    var it = select(vec2<u32>(0u, x.all), ld_copies_first(x), raced);
    for (; ld_copies_more(x, it); it = ld_copies_next(it)) {
        let c = ld_copies_at(x, it);
        let p = ld_copy_word(x, ld_c.role_p + c, ld_c.set_pages + c);
        let s = ld_copy_tags(x, c);
        let here = s.x != 0u;
        var kind = LD_NONE;
        var a = c;
        var b = LD_NONE;
        if p != x.b {
            if last != LD_NONE && (here || last_here) {
                kind = select(0u, LD_K_CROSS, !(here && last_here));
                a = last;
                b = c;
            }
            last = c;
            last_here = here;
        } else if s.z != 0u && wrote {
            kind = LD_K_RW | LD_K_READ | select(0u, LD_K_CROSS, cross_reads);
        } else if here && written {
            kind = select(0u, LD_K_CROSS, !first_here);
            a = min(first, c);
            b = max(first, c);
        } else if s.y == 0u && (here_writes || silent) && ld_accessed_before(x, c) {
            kind = LD_K_RW | LD_K_BEFORE | LD_K_CROSS;
        }
        if kind != LD_NONE {
            ld_record(kind, x.t, a, b, x.k);
        }
        let lanes = ld_lanes_race(s);
        if lanes != 0u {
            ld_record(lanes, x.t, c, LD_NONE, x.k);
        }
    }
}

// Deterministic mode at the end of an epoch: the copies' writes merge in
// copy order (a later copy wins a word several wrote). The copies start
// the next region from the result (`copies`), but after the kernel's last
// region only the base is read (`ld_publish`): storing
// every copy there took bfs's rerun at one invocation per warp (256 copies)
// as long again as the fold itself.
fn ld_fold_word(t: u32, e: u32, w: u32, storage: bool, copies: bool) {
    let x = ld_word_at(t, e, w, storage);
    if x.k >= ld_tc[t].words {
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
        var c = 0u;
        for (; c < ld_c.copies; c++) {
            let p = ld_copy_of(x, c);
            u = select(u, p, p != x.b);
        }
    }
    ld_val[x.a] = u;
    // (Pooled copies read the base where their blocks are given back.
    // Where the word kept the base's value in a materialized entry, every
    // copy holds it already: a copy that wrote another value would be the
    // union. An entry that is not yet materialized becomes so here: its
    // copies' pages hold what earlier epochs left where nothing wrote.)
    let n = select(0u, ld_c.copies, copies && !x.pooled && (u != x.b || !x.mat));
    for (var c2 = 0u; c2 < n; c2++) {
        ld_val[x.a + (ld_c.role_p + c2) * x.stride] = u;
    }
}

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
    let j = ld_val[ld_sv + ld_c.items_off + i];
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
        let whole = storage && close != LD_NONE && ld_orders(close, storage) && (ld_flags(t, e) & LD_BVALID) == 0u;
        if whole || atomicLoad(&ld_meta[ld_touched_addr(t, e, j % LD_PAGE)]) != 0u {
            ld_val[ld_sv + ld_c.items_off + atomicAdd(&ld_items_n, 1u)] = j;
        }
    }
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
        g = (g | select(LD_BVALID, LD_BPART, part) | select(0u, LD_MAT, step == LD_STEP_SETTLE_FOLD && !ld_pooled(t))) & ~LD_DIRTY1;
    }
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
    let blocks = min(atomicLoad(&ld_pool_n), ld_c.pool_cap);
    var j = ld_li;
    for (; j < len * LD_PAGE; j += LD_WG_SIZE) {
        let item = ld_list_item(cur, j / LD_PAGE);
        let t = item >> 24u;
        let storage = ld_target_storage(t);
        if ld_orders(close, storage) {
            ld_fold_word(t, item & 0xffffffu, j % LD_PAGE, storage, close != LD_NONE);
        }
        if ld_det_tags() {
            ld_det_clear(t, item & 0xffffffu, j % LD_PAGE);
        }
    }
    ld_sync();
    // (Only layouts with last writers have a pool: the constant compiles
    // the release away in the other folded kernel.)
    if LD_DET_WRITERS && close != LD_NONE && ld_orders(close, true) && ld_c.pool_cap != 0u {
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

// ------------------------------------------------------------ level 1

// Level 1's records are made in the slots shader (slots.wgsl), one
// workgroup of LD_PAGE invocations per slot, one
// invocation per word of a page: they are loops over pages, which the
// kernel would run with one invocation per page (a page's words one after
// another) and which lavapipe would compile into every kernel.

// The slot's pages that changed a word of the user's buffer, or (check
// mode) whose words the workgroup read or its lanes wrote, whatever the
// value, become level-1 records, linked per page (the CPU reference
// publishes the same): the entries (one
// invocation per entry), the words that changed or were accessed (one per
// word: the entry's mark), a record per marked entry, then their words and
// access bits. An entry's mark holds its record.
fn ld_publish(t: u32) {
    if ld_li == 0u {
        atomicStore(&ld_list_n[0], 0u);
        atomicStore(&ld_list_n[1], 0u);
    }
    workgroupBarrier();
    for (var e = ld_li; e < ld_tc[t].entries; e += LD_WG_SIZE) {
        if ld_entry_key(t, e) != 0u {
            ld_val[ld_taddr(t, e)] = 0u;
            ld_list_push(0u, t, e);
        }
        // The table's key is done with (the mirror names the page from
        // here on): the next batch finds the meta area zeroed.
        if !ld_direct(t) {
            atomicStore(&ld_meta[ld_kaddr(t, e)], 0u);
        }
    }
    ld_sync();
    let words = ld_tc[t].words;
    let n = atomicLoad(&ld_list_n[0]) * LD_PAGE;
    for (var j = ld_li; j < n; j += LD_WG_SIZE) {
        let e = ld_list_item(0u, j / LD_PAGE) & 0xffffffu;
        let w = j % LD_PAGE;
        let k = ld_key_page(t, e) * LD_PAGE + w;
        if k < words && (ld_final_base(t, e, w, k) != ld_user(t, k) || ld_word_access(t, e, w) != 0u) {
            ld_val[ld_taddr(t, e)] = 1u;
        }
    }
    ld_sync();
    let listed = atomicLoad(&ld_list_n[0]);
    for (var i = ld_li; i < listed; i += LD_WG_SIZE) {
        let e = ld_list_item(0u, i) & 0xffffffu;
        if ld_val[ld_taddr(t, e)] != 0u {
            let r = atomicAdd(&ld_rec[LD_H_L1_COUNT], 1u);
            if r < ld_c.l1_cap {
                ld_link_record(t, r, ld_key_page(t, e));
                ld_val[ld_taddr(t, e)] = r;
                ld_list_push(1u, t, e);
            } else {
                ld_status(LD_S_L1_FULL);
            }
        }
    }
    ld_sync();
    let m = atomicLoad(&ld_list_n[1]) * LD_PAGE;
    for (var j = ld_li; j < m; j += LD_WG_SIZE) {
        let e = ld_list_item(1u, j / LD_PAGE) & 0xffffffu;
        let r = ld_val[ld_taddr(t, e)];
        let w = j % LD_PAGE;
        ld_l1v[r * LD_PAGE + w] = ld_final_base(t, e, w, ld_key_page(t, e) * LD_PAGE + w);
        let bits = ld_word_access(t, e, w);
        if bits != 0u {
            atomicOr(&ld_l1[ld_c.l1_headers + r * LD_L1_WORDS + LD_L1_ACCESS + w / 16u], bits << (2u * (w % 16u)));
        }
    }
    // Check mode: the touched masks the kernel left for `ld_final_base`
    // are done with, as the keys.
    ld_sync();
    let cleared = select(0u, n, ld_c.mode == LD_MODE_CHECK);
    for (var j = ld_li; j < cleared; j += LD_WG_SIZE) {
        let e = ld_list_item(0u, j / LD_PAGE) & 0xffffffu;
        atomicStore(&ld_meta[ld_touched_addr(t, e, j % LD_PAGE)], 0u);
    }
}

// The base of word w (word k of the memory) after the kernel: where the
// last check stored only the touched words (`LD_BPART`), the user's word
// stands in for the others (the touched masks stay until `ld_publish`
// clears them).
fn ld_final_base(t: u32, e: u32, w: u32, k: u32) -> u32 {
    let f = ld_flags(t, e);
    if (f & LD_BPART) != 0u && atomicLoad(&ld_meta[ld_touched_addr(t, e, w)]) != 0u {
        return ld_val[ld_vaddr(t, 0u, e, w)];
    }
    return ld_base(t, e, w, k, f);
}

// Check mode: how the workgroup accessed word w of storage entry e
// (`abi::l1::READ`, `WROTE`; see `ld_check_word`). Its access page holds
// the bits beside the dispatch's stamp (its low 30 bits), so that a word
// marked by an earlier dispatch reads as not accessed, with no clearing.
fn ld_word_access(t: u32, e: u32, w: u32) -> u32 {
    if ld_c.mode != LD_MODE_CHECK {
        return 0u;
    }
    return ld_access_word(ld_val[ld_vaddr(t, ld_c.set_pages + ld_c.copies, e, w)]) & 3u;
}

// An access word as this dispatch's: its bits where its stamp is the
// dispatch's, else none, stamped.
fn ld_access_word(v: u32) -> u32 {
    let stamp = ld_c.stamp << 2u;
    return stamp | select(0u, v & 3u, (v & ~3u) == stamp);
}

fn ld_link_record(t: u32, r: u32, page: u32) {
    let h = ld_c.l1_headers + r * LD_L1_WORDS;
    atomicStore(&ld_l1[h + LD_L1_TARGET], t);
    atomicStore(&ld_l1[h + LD_L1_PAGE], page);
    atomicStore(&ld_l1[h + LD_L1_WG], ld_wg);
    let next = atomicExchange(&ld_l1[ld_tc[t].heads_off + page], r + 1u);
    atomicStore(&ld_l1[h + LD_L1_NEXT_PAGE], next);
    // The page's first record lists the page for level 1's sweeps.
    if next == 0u {
        atomicStore(&ld_l1[ld_c.l1_pages + atomicAdd(&ld_rec[LD_H_L1_PAGES], 1u)], r);
    }
    // The access bits (`abi::l1::ACCESS`; no loop: lavapipe caps them).
    atomicStore(&ld_l1[h + LD_L1_ACCESS], 0u);
    atomicStore(&ld_l1[h + LD_L1_ACCESS + 1u], 0u);
    atomicStore(&ld_l1[h + LD_L1_ACCESS + 2u], 0u);
    atomicStore(&ld_l1[h + LD_L1_ACCESS + 3u], 0u);
}
