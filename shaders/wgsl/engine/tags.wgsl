// Lane tags: which lanes of a copy wrote and read each word in a region
// (check mode: every access; deterministic mode: where lanes share a copy).

// ------------------------------------------------------------ lane tags
//
// Per copy and word, a tag word into which every access of a region ors
// its lane's code (`abi::lanes`: the lane's index and its complement, so
// that an or of codes shows two lanes where its halves share a bit), set
// by an atomic or, so the word does not depend on the order the lanes ran
// in.
//
// Check mode tags every access to a target; the sweep at the region's end
// (`ld_check_word`) reads the tags of each word complete and clears them.
// Per copy and word they show whether its lanes wrote it (so whether the
// copy wrote it in this region) and whether a lane read it: a read of a word
// another copy wrote in the epoch raced with that write, wherever the value
// went next (a register, an atomic, a branch); and, as lanes of one warp
// share its copy and values cannot separate them, two lanes of the copy
// writing the word, or one reading what another wrote, race within the
// warp. An access pays one atomic or: the checks run once per word in the
// sweep, not at every read. (A word per 16 lanes, the lanes' bits, would
// take two words per copy for a warp of 32, twice the ors' and the sweep's
// loads and stores.)

// The lane's index in its warp. Warp sizes are powers of two (the launch
// checks): a mask, where a remainder by a run-time value is a division per
// lane at every access on a CPU.
fn ld_lane() -> u32 {
    return ld_li & (ld_cfg.warp_size - 1u);
}

// The tag word of copy c, entry e, word w.
fn ld_tag_addr(t: u32, c: u32, e: u32, w: u32) -> u32 {
    return ld_sm + ld_cfg.t[t].tags_off + (c * ld_cfg.t[t].entries + e) * LD_PAGE + w;
}

// Check mode: the copies that accessed entry e's word w in the epoch, a
// bit each (`ld_cur_mark`).
fn ld_touched_addr(t: u32, e: u32, w: u32) -> u32 {
    return ld_sm + ld_cfg.t[t].touched_off + e * LD_PAGE + w;
}

// Past a mask's copies (LD_WIDE): whether copy c accessed entry e's word
// w in the epoch, a page per copy after the touched page.
fn ld_epoch_addr(t: u32, c: u32, e: u32, w: u32) -> u32 {
    return ld_sm + ld_cfg.t[t].touched_off + ((1u + c) * ld_cfg.t[t].entries + e) * LD_PAGE + w;
}

// Check mode: this lane's code for its tag word (`abi::lanes::check`):
// its code as an access, again as a writer, or the read bit.
fn ld_check_code(write: bool) -> u32 {
    let c = ld_lane_code(ld_lane(), LD_CHECK_LANE_BITS);
    return c | select(LD_CHECK_READ, c << LD_CHECK_WRITERS, write);
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
// copy would cost a store per access and a loop per entry at every
// barrier).
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
// `ld_word_at`), and past a mask's copies its copy's epoch page. The tag
// word's old value shows an earlier access of the copy in this region (a
// writer's, for a write): the first such access in the word's order of
// ors saw none and sets the bit, and nothing clears either before the
// region's barrier, so the others leave it (a loop that updates one word
// pays one or for it per region, not one per iteration).
fn ld_check_access(t: u32, e: u32, w: u32, write: bool) {
    let old = atomicOr(&ld_meta[ld_tag_addr(t, ld_copy, e, w)], ld_check_code(write));
    let seen = select(old != 0u, (old >> LD_CHECK_WRITERS) != 0u, write);
    if !seen {
        atomicOr(&ld_meta[ld_touched_addr(t, e, w)], 1u << select(ld_cur_mark, ld_cur_wmark, write));
        if LD_WIDE {
            atomicStore(&ld_meta[ld_epoch_addr(t, ld_copy, e, w)], 1u);
        }
    }
}

// Deterministic mode without lane tags (one invocation per warp) keeps
// each word's last writer in copy order (`Roles::last_writers`): the fold
// of hundreds of copies starts there. Only in the pipeline compiled with
// LD_DET_WRITERS: lavapipe would run the atomic on every write of every
// other run too, masked. The
// runtime compiles that pipeline for exactly those layouts
// (`Variant::FoldedWriters`), so the constant alone decides, and the
// fold's path for the other kind of run compiles away.
fn ld_det_writers() -> bool {
    return LD_DET_WRITERS;
}

fn ld_writer_addr(t: u32, e: u32, w: u32) -> u32 {
    return ld_sm + ld_cfg.t[t].tags_off + e * LD_PAGE + w;
}

// Copy c's tag word of a word, tallied (`abi::lanes::tally`): lanes that
// wrote it (x) and that touched it (y), 0, 1 or 2 for two or more, and
// whether a lane read it (z).
fn ld_copy_tags(x: LdWord, c: u32) -> vec3<u32> {
    return ld_tags_tally(atomicLoad(&ld_meta[x.tag + c * x.tag_stride]));
}

fn ld_tags_tally(v: u32) -> vec3<u32> {
    let half = (1u << LD_CHECK_WRITERS) - 1u;
    return vec3<u32>(ld_lanes_count((v >> LD_CHECK_WRITERS) & half), ld_lanes_count(v & half), select(0u, 1u, (v & LD_CHECK_READ) != 0u));
}

fn ld_lanes_count(v: u32) -> u32 {
    return select(select(1u, 2u, ld_lanes_many(v, LD_CHECK_LANE_BITS)), 0u, v == 0u);
}

// The region is done with copy c's tags of a word. The sweep alone
// touches them at the region's end (one invocation per word, behind the
// region's barrier), so a plain store clears them: an exchange costs
// lavapipe a read-modify-write per lane.
fn ld_clear_tags(x: LdWord, c: u32) {
    atomicStore(&ld_meta[x.tag + c * x.tag_stride], 0u);
}

// Deterministic mode has one pass: every access tags. Two lanes of a
// copy touching a word in a region, one writing, make the result depend
// on the device's lane order. Each access ors its lane's code into one
// tag word per copy and word (`ld_det_code`): the word's accesses are
// ordered (one atomic location), and a region's accesses conflict as soon
// as those so far do, so the access whose or completes a conflict sees it
// in the old value (`ld_det_conflict`, check mode's test of an intra-warp
// race). It notes it (`ld_lanes_seen`, in the status at the end) and the
// host runs again at warp size 1; the fold only clears the tags at the
// barrier (`ld_fold_word`). (Reading them there, a word per 16 lanes,
// would be a large part of a kernel's run; reading the old value and the
// other lane groups' words at every access would cost every run, and
// across groups would rely on an order between atomics on different words
// that relaxed atomics do not promise.)
// Reads claim their storage pages too (a tag needs an entry), and mark
// them, so the fold visits their tags at the region's end. The folded
// kernel without LD_DET_WRITERS runs exactly the layouts with tags
// (`Variant::Folded`): constants decide, and the other paths compile away
// (lavapipe would run them masked).
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
    let code = ld_det_code(write);
    let old = atomicOr(&ld_meta[ld_tag_addr(t, ld_copy, e, w)], code);
    ld_lanes_seen = ld_lanes_seen || ld_det_conflict(old | code);
    if !write {
        ld_val[ld_mark_addr(t, e)] = 1u;
    }
}

// The lane's code in a deterministic tag word (`abi::lanes::det`), and
// whether an or of them shows a lane-order conflict
// (`abi::lanes::det_conflict`).
fn ld_det_code(write: bool) -> u32 {
    return select(0u, LD_DET_WRITE, write) | ld_lane_code(ld_lane(), LD_DET_LANE_BITS);
}

fn ld_det_conflict(v: u32) -> bool {
    return (v & LD_DET_WRITE) != 0u && ld_lanes_many(v, LD_DET_LANE_BITS);
}
