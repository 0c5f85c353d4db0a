// Lane tags: which lanes of a copy wrote and read each word in a region
// (check mode: every access; deterministic mode: where lanes share a copy).

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

// Check mode: the access's lane tag, its copy's bit in the touched mask
// (a write's in the mask's high half, up to LD_WROTE_MASK_COPIES copies:
// `ld_word_at`), and past a mask's copies its copy's epoch page.
fn ld_check_access(t: u32, e: u32, w: u32, write: bool) {
    atomicOr(&ld_meta[ld_tag_addr(t, ld_copy, ld_lane() / LD_TAG_LANES, e, w)], ld_tag_bit(write));
    atomicOr(&ld_meta[ld_touched_addr(t, e, w)], 1u << select(ld_cur_mark, ld_cur_wmark, write));
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

// Copy c's tags of a word, tallied (see `ld_tally`).
fn ld_copy_tags(x: LdWord, c: u32) -> vec3<u32> {
    return ld_tags_tally(x.tag + c * ld_tag_groups() * x.tag_stride, x.tag_stride);
}

// A copy's tag words of one word (the first at a, the others a stride
// apart), tallied. Up to four words, without a loop (lavapipe charges
// every loop the sweep passes through, for every word).
fn ld_tags_tally(a: u32, stride: u32) -> vec3<u32> {
    var s = ld_tally(vec3<u32>(0u), atomicLoad(&ld_meta[a]));
    if ld_tag_groups() > 1u {
        s = ld_tally(s, atomicLoad(&ld_meta[a + stride]));
    }
    if ld_tag_groups() > 2u {
        s = ld_tally(s, atomicLoad(&ld_meta[a + 2u * stride]));
        if ld_tag_groups() > 3u {
            s = ld_tally(s, atomicLoad(&ld_meta[a + 3u * stride]));
        }
    }
    return s;
}

// The region is done with copy c's tags of a word.
fn ld_clear_tags(x: LdWord, c: u32) {
    ld_tags_clear(x.tag + c * ld_tag_groups() * x.tag_stride, x.tag_stride);
}

// The sweep alone touches a word's tags at the region's end (one
// invocation per word, behind the region's barrier), so plain stores
// clear them: an exchange costs lavapipe a read-modify-write per lane.
fn ld_tags_clear(a: u32, stride: u32) {
    atomicStore(&ld_meta[a], 0u);
    if ld_tag_groups() > 1u {
        atomicStore(&ld_meta[a + stride], 0u);
    }
    if ld_tag_groups() > 2u {
        atomicStore(&ld_meta[a + 2u * stride], 0u);
        if ld_tag_groups() > 3u {
            atomicStore(&ld_meta[a + 3u * stride], 0u);
        }
    }
}

// Deterministic mode has one pass: every access tags. Two lanes of a
// copy touching a word in a region, one writing, make the result depend
// on the device's lane order; the fold finds them in the region's tags,
// complete at its barrier (`ld_det_clear`), by the test check mode's sweep
// makes of an intra-warp race (`ld_lanes_race`), and the host runs again
// at warp size 1. An access pays its atomic or alone: looking at the old
// value and the other lane groups' words at every access cost 10-18% of
// the deterministic runs (table6), and across lane groups relied on an
// order between the groups' atomics that relaxed atomics do not promise.
// Reads claim their storage pages too (a tag needs an entry), and mark
// them, so the fold visits their tags at the region's end. The folded
// kernel without LD_DET_WRITERS runs exactly the layouts with tags
// (`Variant::Folded`): constants decide, and the other paths compile away
// (lavapipe ran them masked: scan's deterministic run 0.75-0.85 times
// without them, em's 0.85-0.9).
fn ld_det_tags() -> bool {
    return !LD_CHECK && !LD_DET_WRITERS;
}

// A target lanes cannot conflict on (`LD_LANE_SAFE`) is not tagged: one
// the kernel only stores one literal value to (a flag such as `over[0] =
// 1`: its lanes' stores in any order leave the same word, so they do not
// send the run to one invocation per warp, bfs's `update`), or only
// accesses at the invocation's own element (no two lanes touch one word:
// their tags would find nothing).
fn ld_det_access(t: u32, e: u32, w: u32, write: bool) {
    if !ld_det_tags() || ((LD_LANE_SAFE >> t) & 1u) != 0u {
        return;
    }
    atomicOr(&ld_meta[ld_tag_addr(t, ld_copy, ld_lane() / LD_TAG_LANES, e, w)], ld_tag_bit(write));
    if !write {
        ld_val[ld_mark_addr(t, e)] = 1u;
    }
}

// The fold, per word of every listed entry: the region's tags are
// complete. Only the copies that accessed the entry in the epoch (`cset`,
// `ld_copy_set`) can have tagged it.
fn ld_det_clear(t: u32, e: u32, w: u32, cset: u32) {
    let stride = ld_tc[t].entries * LD_PAGE;
    let a = ld_tag_addr(t, 0u, 0u, e, w);
    let step = ld_tag_groups() * stride;
    var race = 0u;
    for (var c = ld_first_copy(cset); c < ld_c.copies; c = ld_next_copy(cset, c)) {
        race |= ld_det_copy_done(a + c * step, stride);
    }
    if race != 0u {
        ld_status(LD_S_LANES);
    }
}

// One copy's tags of a word at the region's end: its lanes' race, if any
// (`ld_lanes_race`), and the tags cleared.
fn ld_det_copy_done(a: u32, stride: u32) -> u32 {
    let r = ld_lanes_race(ld_tags_tally(a, stride));
    ld_tags_clear(a, stride);
    return r;
}
