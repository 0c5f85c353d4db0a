//! The engine's per-word steps on the CPU: the same algorithm as
//! `ld-shaders`' `engine.wgsl` (`ld_merge_word`, `ld_compare_word`,
//! `ld_fold_word`), so the CPU reference finds exactly what the GPU finds.
//! On the CPU an entry's role pages are always stored whole (invocations run
//! one at a time, so a page can be filled when it is first written), which
//! is what the GPU's masks and fallbacks amount to.

use ld_shaders::abi::{record, Roles, NONE, PAGE, TAG_GROUPS_MAX, TAG_LANES};

/// One page of a target in a workgroup: its roles (base, union, pass-1 and
/// pass-2 copies; see `ld_shaders::abi::Roles`).
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub roles: Vec<[u32; PAGE as usize]>,
    /// Check mode: per copy and group of 32 lanes, the lanes that wrote each
    /// word in this region's first pass (see `engine.wgsl`'s lane tags).
    pub tags: Vec<[u32; PAGE as usize]>,
    /// Written since the memory's epoch began (pass 1), and in this region's pass 2.
    pub dirty1: bool,
    pub dirty2: bool,
}

impl Entry {
    /// Every role holding `page`.
    pub fn new(roles: Roles, page: [u32; PAGE as usize]) -> Self {
        Entry {
            roles: vec![page; roles.pages as usize],
            tags: vec![[0; PAGE as usize]; (roles.copies * roles.tag_groups) as usize],
            dirty1: false,
            dirty2: false,
        }
    }
}

/// A race seen by a sweep: (kind bits, copy a, copy b, word).
pub(crate) type Seen = (u32, u32, u32, u32);

/// After pass 1 (see `ld_merge_word`): write-write races, the union, pass
/// 2's input. `wrote[c]`: copy c wrote something in this region.
pub(crate) fn merge_word(e: &mut Entry, r: Roles, w: usize, k: u32, spans: bool, wrote: &mut [bool], out: &mut Vec<Seen>) {
    let (p0, q0) = (r.p as usize, r.q as usize);
    let b = e.roles[0][w];
    let start = |e: &Entry, c: usize| if spans { e.roles[q0 + c][w] } else { b };
    let mut u = b;
    let mut last: Option<(u32, bool)> = None;
    for (c, wrote_c) in wrote.iter_mut().enumerate().take(r.copies as usize) {
        let p = e.roles[p0 + c][w];
        let here = p != start(e, c);
        *wrote_c |= here;
        if p != b {
            if let Some((prev, prev_here)) = last {
                if here || prev_here {
                    out.push((if here && prev_here { 0 } else { record::CROSS }, prev, c as u32, k));
                }
            }
            last = Some((c as u32, here));
            u = p;
        }
    }
    for c in 0..r.copies as usize {
        let p = e.roles[p0 + c][w];
        let s = start(e, c);
        e.roles[q0 + c][w] = if p != s {
            s
        } else if p != b {
            p
        } else {
            u
        };
    }
    e.roles[r.u as usize][w] = u;
}

/// After pass 2 (see `ld_compare_word`): read-write races, then the commit
/// (`commit`: the region's barrier ends this memory's epoch) or the next
/// region's start. `writers`: copies that wrote anything in this region.
#[allow(clippy::too_many_arguments)]
pub(crate) fn compare_word(e: &mut Entry, r: Roles, w: usize, k: u32, spans: bool, commit: bool, wrote: &[bool], writers: usize, out: &mut Vec<Seen>) {
    let (p0, q0) = (r.p as usize, r.q as usize);
    let b = e.roles[0][w];
    let u = if e.dirty1 { e.roles[r.u as usize][w] } else { b };
    for (c, &wrote_c) in wrote.iter().enumerate().take(r.copies as usize) {
        let mut p = if e.dirty1 { e.roles[p0 + c][w] } else { b };
        let want = if p != b { p } else { u };
        let cross = spans && writers == wrote_c as usize;
        if e.roles[q0 + c][w] != want {
            out.push((record::RW | if cross { record::CROSS } else { 0 }, c as u32, NONE, k));
        }
        lanes(e, r, w, k, c as u32, p, u, cross, out);
        if commit {
            p = u;
        }
        e.roles[p0 + c][w] = p;
        e.roles[q0 + c][w] = p;
    }
    e.roles[0][w] = if commit { u } else { b };
}

/// The lane's index as the tags see it (see `ld_lane`): lanes further apart
/// than the tag words hold share a bit.
pub(crate) fn tag_lane(local: u32, warp_size: u32) -> u32 {
    (local % warp_size) % (TAG_LANES * TAG_GROUPS_MAX)
}

/// `lane` of copy c wrote (`write`) or read word w: its bit in the tags
/// (see `ld_tag_bit`); returns the tag word's old value.
fn tag(e: &mut Entry, r: Roles, w: usize, c: u32, lane: u32, write: bool) -> u32 {
    let me = 1u32 << (lane % TAG_LANES);
    let word = &mut e.tags[(c * r.tag_groups + lane / TAG_LANES) as usize][w];
    let old = *word;
    *word |= if write { me } else { me << 16 };
    old
}

/// Check mode: pass 1 tags writes, pass 2 reads of entries written in the
/// epoch (see `ld_on_write`, `ld_on_read`).
pub(crate) fn tag_access(e: &mut Entry, r: Roles, w: usize, c: u32, lane: u32, write: bool) {
    if r.tag_groups != 0 && (write || e.dirty1) {
        tag(e, r, w, c, lane, write);
    }
}

/// The compare step, per word and copy (see `ld_copy_lanes`): copy c's tags,
/// cleared, become an intra-warp race (two lanes wrote; two touched, one
/// writing) and a racy read (a lane read what the copy left at the base and
/// another copy changed).
#[allow(clippy::too_many_arguments)]
fn lanes(e: &mut Entry, r: Roles, w: usize, k: u32, c: u32, p: u32, u: u32, cross: bool, out: &mut Vec<Seen>) {
    let (mut wrote, mut all, mut read) = (0, 0, 0);
    for g in 0..r.tag_groups {
        let v = std::mem::take(&mut e.tags[(c * r.tag_groups + g) as usize][w]);
        wrote += (v & 0xffff).count_ones();
        all += ((v | v >> 16) & 0xffff).count_ones();
        read |= v >> 16;
    }
    if r.tag_groups == 0 {
        return;
    }
    if wrote >= 2 {
        out.push((record::INTRA, c, NONE, k));
    } else if wrote != 0 && all >= 2 {
        out.push((record::RW | record::INTRA, c, NONE, k));
    }
    let b = e.roles[0][w];
    if read != 0 && e.dirty1 && p == b && u != b {
        out.push((record::RW | record::READ | if cross { record::CROSS } else { 0 }, c, NONE, k));
    }
}

/// Deterministic mode (see `ld_det_access`): tags `lane`'s access to word w
/// of copy c; whether another lane of c wrote it, or (`write`) read it, in
/// this region.
pub(crate) fn det_access(e: &mut Entry, r: Roles, w: usize, c: u32, lane: u32, write: bool) -> bool {
    let me = 1u32 << (lane % TAG_LANES);
    let mut others = tag(e, r, w, c, lane, write) & !(me | me << 16);
    for g in (0..r.tag_groups).filter(|&g| g != lane / TAG_LANES) {
        others |= e.tags[(c * r.tag_groups + g) as usize][w];
    }
    others & 0xffff != 0 || (write && others >> 16 != 0)
}

/// Deterministic mode at a region's end: every tag is done.
pub(crate) fn det_clear(e: &mut Entry) {
    e.tags.iter_mut().for_each(|t| *t = [0; PAGE as usize]);
}

/// Deterministic mode at an epoch's end (see `ld_fold_word`): the copies'
/// writes in copy order, a later copy winning.
pub(crate) fn fold_word(e: &mut Entry, r: Roles, w: usize) {
    let b = e.roles[0][w];
    let mut u = b;
    for c in 0..r.copies as usize {
        let p = e.roles[r.p as usize + c][w];
        if p != b {
            u = p;
        }
    }
    e.roles[0][w] = u;
    for c in 0..r.copies as usize {
        e.roles[r.p as usize + c][w] = u;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(r: Roles) -> Entry {
        Entry::new(r, [0; PAGE as usize])
    }

    #[test]
    fn two_writers_of_a_word_race_and_the_later_wins() {
        let r = Roles::check(2);
        let mut e = entry(r);
        e.dirty1 = true;
        e.roles[2][0] = 5; // copy 0
        e.roles[3][0] = 7; // copy 1
        e.roles[3][1] = 2;
        let (mut out, mut wrote) = (vec![], vec![false; 2]);
        for w in 0..2 {
            merge_word(&mut e, r, w, w as u32, false, &mut wrote, &mut out);
        }
        assert_eq!(out, vec![(0, 0, 1, 0)]);
        assert_eq!((e.roles[1][0], e.roles[1][1]), (7, 2));
        // Pass-2 inputs: own writes reverted, the others' visible.
        assert_eq!((e.roles[4][0], e.roles[4][1]), (0, 2));
        assert_eq!((e.roles[5][0], e.roles[5][1]), (0, 0));
        assert_eq!(wrote, vec![true, true]);
    }

    #[test]
    fn a_changed_second_pass_is_a_read_write_race() {
        let r = Roles::check(2);
        let mut e = entry(r);
        e.dirty1 = true;
        e.roles[2][0] = 3; // copy 0 wrote word 0
        let (mut out, mut wrote) = (vec![], vec![false; 2]);
        merge_word(&mut e, r, 0, 0, false, &mut wrote, &mut out);
        merge_word(&mut e, r, 1, 1, false, &mut wrote, &mut out);
        // Pass 2: copy 0 writes the same, copy 1 computed word 1 from word 0.
        e.roles[4][0] = 3;
        e.roles[5][1] = 9;
        compare_word(&mut e, r, 0, 0, false, true, &wrote, 1, &mut out);
        compare_word(&mut e, r, 1, 1, false, true, &wrote, 1, &mut out);
        assert_eq!(out, vec![(record::RW, 1, NONE, 1)]);
        assert_eq!(e.roles[0][0], 3, "committed");
    }

    #[test]
    fn lane_tags_see_a_conflict_in_either_order() {
        let r = Roles::deterministic(2).tagged(32);
        // (lane, write) pairs of copy 1 on word 3, in both orders.
        for accesses in [[(4, false), (20, true)], [(20, true), (4, false)], [(7, true), (7, false)], [(2, false), (9, false)]] {
            let mut e = entry(r);
            let seen: Vec<bool> = accesses.iter().map(|&(lane, write)| det_access(&mut e, r, 3, 1, lane, write)).collect();
            let conflict = accesses[0].0 != accesses[1].0 && (accesses[0].1 || accesses[1].1);
            assert_eq!(seen.iter().any(|s| *s), conflict, "{accesses:?}");
            det_clear(&mut e);
            assert!(e.tags.iter().all(|t| t.iter().all(|w| *w == 0)));
        }
    }

    #[test]
    fn lane_tags_find_intra_warp_races_and_racy_reads() {
        let r = Roles::check(2).tagged(32);
        let mut e = entry(r);
        e.dirty1 = true;
        // Word 0: lanes 3 and 20 of copy 1 write. Word 1: lane 3 writes,
        // lane 5 reads. Word 2: copy 0 changed it, lane 7 of copy 1 read it.
        for (w, lane, write) in [(0, 3, true), (0, 20, true), (1, 3, true), (1, 5, false), (1, 3, false), (2, 7, false)] {
            tag_access(&mut e, r, w, 1, lane, write);
        }
        e.roles[1][2] = 9; // the union
        let mut out = vec![];
        for w in 0..3 {
            let u = e.roles[1][w];
            lanes(&mut e, r, w, w as u32, 1, 0, u, false, &mut out);
        }
        assert_eq!(out, vec![(record::INTRA, 1, NONE, 0), (record::RW | record::INTRA, 1, NONE, 1), (record::RW | record::READ, 1, NONE, 2)]);
        assert!(e.tags.iter().all(|t| t.iter().all(|w| *w == 0)), "cleared for the next region");
    }

    #[test]
    fn fold_takes_the_last_copy_that_wrote() {
        let r = Roles::deterministic(3);
        let mut e = entry(r);
        e.roles[1][0] = 4;
        e.roles[3][0] = 6;
        fold_word(&mut e, r, 0);
        assert_eq!(e.roles.iter().map(|p| p[0]).collect::<Vec<_>>(), vec![6, 6, 6, 6]);
    }
}
