// Check mode at a barrier, per word: the write-write check, the tagged
// reads, lanes racing within a warp, silent writes; the union and the
// commit; the races' records (paper Fig. 3).

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
// summary keeps the recording loop off the path up to a mask's copies.
// (A second pass over the words that raced, behind a workgroup flag,
// would run its copy of the check masked at every region, a race-free
// kernel's included.)
fn ld_check_word(t: u32, e: u32, w: u32, storage: bool, spans: bool, commit: bool, last: bool) {
    let x = ld_word_at(t, e, w, storage);
    if x.k >= ld_cfg.t[t].words {
        return;
    }
    let m = ld_cfg.copies;
    var acc = LdCheckAcc(x.b, LD_NONE, false, LD_NONE, false, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u, 0u);
    // The copies' tags are cleared as they are read (after the kernel's
    // last region too: the next batch's workgroups find the meta area
    // zeroed, which the host fills once per check, not once per batch),
    // and where a storage entry's epoch ends their written flags: in the
    // check's loop, but past a mask's copies, where the recording reads
    // them again (lavapipe runs every loop's body at least once, so a loop
    // of its own for the settling would lengthen every check).
    let forget = commit && !x.mat && !last;
    for (var it = ld_copies_first(x); ld_copies_more(x, it); it = ld_copies_next(it)) {
        let c = ld_copies_at(x, it);
        ld_check_copy(x, c, &acc);
        if !LD_WIDE {
            ld_settle_copy(x, c, forget, commit);
        }
    }
    let written = acc.u != x.b;
    if !LD_WIDE {
        let same = acc.m_here & ~acc.m_writes;
        acc.silent = countOneBits(same & ~acc.m_read);
        acc.quiet = countOneBits(same & acc.m_read);
    }
    // A copy that wrote the word the value it held, in this region, races
    // with the copies that read it in this region or touched it earlier in
    // the epoch, as a change would.
    // So does one that wrote it so in an earlier region of the epoch
    // (storage, where its written flag shows it), with this region's reads.
    let silent = acc.silent != 0u;
    let early_silent = acc.early_write != 0u;
    let wrote = written || silent || early_silent;
    // A copy that read the word and wrote it the value it held (`quiet`)
    // races with the other copies' reads: where it is the only one, every
    // reader but itself (it is a reader too).
    let quiet_readers = select(select(0u, acc.readers - 1u, acc.quiet == 1u), acc.readers, acc.quiet > 1u);
    let readers = select(quiet_readers, acc.readers, wrote);
    let here = acc.here != 0u || silent || acc.quiet != 0u;
    let races = acc.pairs + readers + select(0u, acc.silent, written) + acc.intra + select(0u, acc.early, here);
    let cross_reads = spans && !here;
    if LD_WIDE {
        ld_record_word(x, races != 0u, written, wrote, cross_reads, acc.here != 0u, silent, acc.quiet, acc.first, acc.first_here);
    } else {
        ld_record_summary(x, acc, races, written, cross_reads, early_silent);
    }
    // Level 1 checks the workgroup's reads of storage, and its writes of
    // the values words held, against the others' writes (`ld_publish`).
    let access = select(0u, LD_L1_READ, acc.read != 0u) | select(0u, LD_L1_WROTE, acc.wrote != 0u);
    if storage && access != 0u {
        let a = x.a + (ld_cfg.set_pages + m) * x.stride;
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
        // out, so every store an iteration holds costs every check).
        let n = select(0u, m, commit && x.mat && acc.u != x.b);
        for (var c = 0u; c < n; c++) {
            ld_val[x.a + (ld_cfg.role_p + c) * x.stride] = acc.u;
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

// A lone word: a workgroup array's word that one copy alone accessed in
// the epoch, whose lanes did not race on it (up to a mask's copies: past
// them the touched mask does not say which copies accessed it). Nothing
// raced on it (a race takes two copies, or two lanes of one), and the
// union is that copy's word: `ld_check_word` would record nothing and
// store what `ld_check_lone` stores. The copy, or LD_NONE where the word
// is not lone (m: its touched mask).
fn ld_lone_copy(t: u32, e: u32, w: u32, m: u32) -> u32 {
    let mask = ld_touched_copies(m).x;
    if LD_WIDE || countOneBits(mask) != 1u {
        return LD_NONE;
    }
    let c = firstTrailingBit(mask);
    let s = ld_tags_tally(atomicLoad(&ld_meta[ld_tag_addr(t, c, e, w)]));
    return select(LD_NONE, c, ld_lanes_race(s) == 0u);
}

// The check of lone word w of entry e, copy c's, where the region's
// gathering finds it: the copy's tag cleared and, where the epoch ends,
// the word the union (a workgroup array's entries are materialized: every
// copy takes it, but after the kernel's last region), and the epoch
// starts untouched.
fn ld_check_lone(t: u32, e: u32, w: u32, c: u32, commit: bool, last: bool) {
    atomicStore(&ld_meta[ld_tag_addr(t, c, e, w)], 0u);
    if !commit {
        return;
    }
    let b = ld_val[ld_vaddr(t, 0u, e, w)];
    let p = ld_val[ld_vaddr(t, ld_cfg.role_p + c, e, w)];
    let n = select(0u, ld_cfg.copies, !last && p != b);
    for (var c2 = 0u; c2 < n; c2++) {
        ld_val[ld_vaddr(t, ld_cfg.role_p + c2, e, w)] = p;
    }
    ld_val[ld_vaddr(t, 0u, e, w)] = p;
    atomicStore(&ld_meta[ld_touched_addr(t, e, w)], 0u);
}

// The copies a word's check visits, in copy order: those in its touched
// mask, or (more copies than a mask holds) every one. One loop serves both
// (lavapipe runs every loop's body at least once, masked or not, so a
// loop per case would run both for every word). The state: the mask's bits
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
    // touching), that touched it earlier in the epoch only. (Those whose
    // lanes wrote it the value it held are `m_here & !m_writes`, without
    // reading it or after, `silent` and `quiet`.)
    m_writes: u32,
    m_here: u32,
    m_read: u32,
    m_intra: u32,
    m_intra_rw: u32,
    m_early: u32,
    // Nonzero where some copy's lanes wrote the word in this region.
    wrote: u32,
    // Copies that touched the word in an earlier region of the epoch only,
    // and wrote it then the value it held (storage: their written flags).
    early_write: u32,
    // Copies whose lanes read the word and wrote it the value it held in
    // this region (a read-modify-write that changed nothing, such as
    // `x = x.min(limit)` under the limit): a write all the same, which
    // races with the other copies' reads.
    quiet: u32,
}

fn ld_check_copy(x: LdWord, c: u32, acc: ptr<function, LdCheckAcc>) {
    // `ld_copy_word`, its written flag kept (one load: see `early_write`).
    let flagged = !x.mat && ld_val[x.a + (ld_cfg.set_pages + c) * x.stride] == ld_cfg.stamp;
    let p = select(x.b, ld_val[x.a + (ld_cfg.role_p + c) * x.stride], x.mat || flagged);
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
    // Of those, a copy that wrote the word then (a storage copy's written
    // flag; a workgroup array's, its bit in the touched mask's high half)
    // left the value it held: this region's reads race with it.
    let early_write = early && (flagged || ((x.wmask >> c) & 1u) != 0u);
    (*acc).early_write += select(0u, 1u, early_write);
    // Lanes of a copy that wrote the word the value it held (and did not
    // read it) wrote in this region: where another copy changed the word
    // in the epoch, the final value depends on their order, which nothing
    // fixed (write-write; `ld_record_summary`, `check::findings`).
    // Counted here past a mask's copies; up to it, the masks say
    // (`ld_check_word`: fewer operations per copy).
    if LD_WIDE {
        let same = s.x != 0u && !writes;
        (*acc).silent += select(0u, 1u, same && s.z == 0u);
        (*acc).quiet += select(0u, 1u, same && s.z != 0u);
    }
    (*acc).wrote |= s.x;
    if !LD_WIDE {
        let bit = 1u << c;
        (*acc).m_writes |= select(0u, bit, writes);
        (*acc).m_here |= select(0u, bit, here);
        (*acc).m_read |= select(0u, bit, s.z != 0u);
        (*acc).m_intra |= select(0u, bit, lanes == LD_K_INTRA);
        (*acc).m_intra_rw |= select(0u, bit, lanes == (LD_K_RW | LD_K_INTRA));
        (*acc).m_early |= select(0u, bit, early);
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
        ld_val[x.a + (ld_cfg.set_pages + c) * x.stride] = 0u;
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
    if i + 1u < ld_cfg.rec_cap {
        let o2 = ld_cfg.rec_off + (i + 1u) * LD_R_WORDS;
        ld_val[o2 + LD_RS_READS] = acc.m_read;
        ld_val[o2 + LD_RS_INTRA] = acc.m_intra;
        ld_val[o2 + LD_RS_INTRA_RW] = acc.m_intra_rw;
        ld_val[o2 + LD_RS_EARLY] = acc.m_early;
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
fn ld_record_word(x: LdWord, raced: bool, written: bool, wrote: bool, cross_reads: bool, here_writes: bool, silent: bool, quiet: u32, first: u32, first_here: bool) {
    var last = LD_NONE;
    var last_here = false;
    // No copy to visit where the word did not race.
    var it = select(vec2<u32>(0u, x.all), ld_copies_first(x), raced);
    for (; ld_copies_more(x, it); it = ld_copies_next(it)) {
        let c = ld_copies_at(x, it);
        let p = ld_copy_word(x, ld_cfg.role_p + c, ld_cfg.set_pages + c);
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
        } else if s.z != 0u && (wrote || quiet > select(0u, 1u, here)) {
            kind = LD_K_RW | LD_K_READ | select(0u, LD_K_CROSS, cross_reads);
        } else if here && written {
            kind = select(0u, LD_K_CROSS, !first_here);
            a = min(first, c);
            b = max(first, c);
        } else if s.y == 0u && (here_writes || silent || quiet != 0u) && ld_accessed_before(x, c) {
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
