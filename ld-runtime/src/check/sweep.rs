//! The engine's per-word steps on the CPU: the same algorithm as
//! `ld-shaders`' `engine/check.wgsl` and `engine/fold.wgsl` (`ld_check_word`, `ld_fold_word`), so the
//! CPU reference finds exactly what the GPU finds. On the CPU an entry's
//! role pages are always stored whole (invocations run one at a time, so a
//! page can be filled when it is first accessed), which is what the GPU's
//! masks and fallbacks amount to.

use super::findings::{self, Finding};
use ld_shaders::abi::{lanes, record, Roles, PAGE};

/// One page of a target in a workgroup: its roles (the base, then each
/// copy's page; see `ld_shaders::abi::Roles`).
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub roles: Vec<[u32; PAGE as usize]>,
    /// Per copy and group of 16 lanes, the lanes that wrote (low half) and
    /// read (high half) each word in this region (see `engine/tags.wgsl`'s lane
    /// tags).
    pub tags: Vec<[u32; PAGE as usize]>,
    /// Per copy, the words it touched in the epoch, a bit each (the GPU's
    /// touched mask, or past `MASK_COPIES` copies its epoch pages).
    pub touched: Vec<u64>,
    /// Per copy, the words of the entry it wrote in the epoch, a bit each
    /// (the GPU's written flags; for workgroup arrays, whose roles are
    /// stored whole, its touched masks' high halves, kept up to
    /// `abi::WROTE_MASK_COPIES` copies).
    pub wrote_epoch: Vec<u64>,
    /// Accessed since the memory's epoch began.
    pub dirty1: bool,
    /// Check mode: the words the workgroup read (level 1's read-write check).
    pub read: u64,
    /// Check mode: the words the workgroup's lanes wrote, whatever the
    /// value (level 1's check of writes that left a word as it was).
    pub wrote: u64,
    /// Deterministic mode: a fold changed a word (the GPU's changed word,
    /// `ld_changed_addr`): level 1 publishes the page.
    pub changed: bool,
}

impl Entry {
    /// Every role holding `page`.
    pub fn new(roles: Roles, page: [u32; PAGE as usize]) -> Self {
        let tags = vec![[0; PAGE as usize]; (roles.copies * roles.tag_groups) as usize];
        Entry {
            roles: vec![page; roles.pages as usize],
            tags,
            touched: vec![0; roles.copies as usize],
            wrote_epoch: vec![0; roles.copies as usize],
            dirty1: false,
            read: 0,
            wrote: 0,
            changed: false,
        }
    }
}

/// A race seen by a sweep: (kind bits, copy a, copy b, word).
pub(crate) type Seen = (u32, u32, u32, u32);

/// Copy c's tags of a word, tallied (see `ld_copy_tags`, `abi::lanes::tally`):
/// lanes that wrote and lanes that touched it (0, 1, or 2 for two or more),
/// whether a lane read.
#[derive(Clone, Copy)]
struct Tally {
    wrote: u32,
    touched: u32,
    read: bool,
}

impl Tally {
    fn of(e: &Entry, w: usize, c: usize) -> Tally {
        let v = e.tags.get(c).map_or(0, |t| t[w]);
        let (wrote, touched, read) = lanes::tally(v);
        Tally { wrote, touched, read }
    }

    /// An intra-warp race (see `ld_lanes_race`): two lanes wrote the word,
    /// or two touched it, one writing.
    fn race(self) -> Option<u32> {
        if self.wrote >= 2 {
            Some(record::INTRA)
        } else {
            (self.wrote != 0 && self.touched >= 2).then_some(record::RW | record::INTRA)
        }
    }
}

/// At the barrier that ends a region (see `ld_check_word`): write-write
/// races (two epoch writers, one of them in this region), reads of a word
/// another copy wrote in the epoch, intra-warp races; then the region's
/// tags are cleared, and the epoch commits (`commit`) or goes on.
pub(crate) fn check_word(e: &mut Entry, r: Roles, w: usize, k: u32, spans: bool, commit: bool, out: &mut Vec<Seen>) {
    let (p0, copies) = (r.p as usize, r.copies as usize);
    let b = e.roles[0][w];
    let mut early_silent = false;
    let found: Vec<(u32, Finding)> = (0..copies)
        .map(|c| {
            let t = Tally::of(e, w, c);
            let writes = e.roles[p0 + c][w] != b;
            let early = e.touched[c] >> w & 1 != 0 && t.touched == 0 && !writes;
            early_silent |= early && e.wrote_epoch[c] >> w & 1 != 0;
            (c as u32, Finding { writes, here: t.wrote != 0, read: t.read, early, lanes: t.race().unwrap_or(0) })
        })
        .collect();
    // The union: the last writer's value.
    let u = found.iter().rev().find(|(_, f)| f.writes).map_or(b, |&(c, _)| e.roles[p0 + c as usize][w]);
    let here_writes = found.iter().any(|(_, f)| f.writes && f.here);
    let silent_here = found.iter().any(|(_, f)| f.silent());
    let first_writer = found.iter().find(|(_, f)| f.writes).map(|&(c, f)| (c, f.here));
    let quiet = found.iter().filter(|(_, f)| f.quiet()).count() as u32;
    let cross_reads = spans && !here_writes && !silent_here && quiet == 0;
    let words = findings::Written { written: u != b, cross_reads, here_writes, silent_here, first_writer, early_silent, quiet };
    findings::records(found, words, |kind, a, c| out.push((kind, a, c, k)));
    if commit {
        e.touched.iter_mut().chain(&mut e.wrote_epoch).for_each(|m| *m &= !(1u64 << w));
    }
    for c in 0..copies {
        if commit {
            e.roles[p0 + c][w] = u;
        }
        if let Some(t) = e.tags.get_mut(c) {
            t[w] = 0;
        }
    }
    if commit {
        e.roles[0][w] = u;
    }
}

/// The lane's index in its warp (see `ld_lane`).
pub(crate) fn tag_lane(local: u32, warp_size: u32) -> u32 {
    local % warp_size
}

/// `lane` of copy c wrote (`write`) or read word w: its code in the copy's
/// tag word (`abi::lanes`: check mode's, or deterministic mode's; see
/// `ld_check_access`, `ld_det_access`).
pub(crate) fn tag(e: &mut Entry, r: Roles, w: usize, c: u32, lane: u32, write: bool) {
    e.touched[c as usize] |= 1 << w;
    e.tags[c as usize][w] |= if r.check { lanes::check(lane, write) } else { lanes::det(lane, write) };
}

/// Deterministic mode at a region's end (see `ld_det_access`): whether
/// two lanes of a copy touched a word, one writing
/// (`abi::lanes::det_conflict`, check mode's test of an intra-warp race);
/// every tag is done.
pub(crate) fn det_clear(e: &mut Entry) -> bool {
    let conflict = e.tags.iter().any(|t| t.iter().any(|&v| lanes::det_conflict(v)));
    e.tags.iter_mut().for_each(|t| *t = [0; PAGE as usize]);
    conflict
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
    e.changed |= u != b;
    for c in 0..r.copies as usize {
        e.roles[r.p as usize + c][w] = u;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ld_shaders::abi::NONE;

    fn entry(r: Roles) -> Entry {
        Entry::new(r, [0; PAGE as usize])
    }

    /// Copy c's lane writes word w with v (as the engine's accessors do).
    fn write(e: &mut Entry, r: Roles, w: usize, c: u32, lane: u32, v: u32) {
        e.roles[(r.p + c) as usize][w] = v;
        tag(e, r, w, c, lane, true);
    }

    fn check(e: &mut Entry, r: Roles, words: usize, spans: bool, commit: bool) -> Vec<Seen> {
        let mut out = vec![];
        for w in 0..words {
            check_word(e, r, w, w as u32, spans, commit, &mut out);
        }
        out
    }

    #[test]
    fn two_writers_of_a_word_race_and_the_later_wins() {
        let r = Roles::check(2).tagged(1);
        let mut e = entry(r);
        write(&mut e, r, 0, 0, 0, 5);
        write(&mut e, r, 0, 1, 0, 7);
        write(&mut e, r, 1, 1, 0, 2);
        assert_eq!(check(&mut e, r, 2, false, true), vec![(0, 0, 1, 0)]);
        // Committed: the base and every copy hold the union.
        assert_eq!(e.roles.iter().map(|p| (p[0], p[1])).collect::<Vec<_>>(), vec![(7, 2); 3]);
        assert!(e.tags.iter().all(|t| t.iter().all(|w| *w == 0)), "cleared for the next region");
    }

    #[test]
    fn a_read_of_another_copys_write_is_a_read_write_race() {
        let r = Roles::check(2).tagged(1);
        let mut e = entry(r);
        // Copy 0 writes word 0, copy 1 reads it; copy 1 reads word 1, which
        // no one writes; copy 0 reads its own write to word 2.
        write(&mut e, r, 0, 0, 0, 3);
        tag(&mut e, r, 0, 1, 0, false);
        tag(&mut e, r, 1, 1, 0, false);
        write(&mut e, r, 2, 0, 0, 4);
        tag(&mut e, r, 2, 0, 0, false);
        assert_eq!(check(&mut e, r, 3, false, false), vec![(record::RW | record::READ, 1, NONE, 0)]);
        // Not committed: each copy keeps its own view, the base stays.
        assert_eq!((e.roles[0][0], e.roles[1][0], e.roles[2][0]), (0, 3, 0));
    }

    #[test]
    fn a_write_of_an_earlier_region_races_across_the_barrier() {
        let r = Roles::check(2).tagged(1);
        let mut e = entry(r);
        // An earlier region of the epoch: copy 0 wrote words 0 and 1.
        write(&mut e, r, 0, 0, 0, 3);
        write(&mut e, r, 1, 0, 0, 6);
        assert_eq!(check(&mut e, r, 2, true, false), vec![]);
        // This region: copy 1 reads word 0 and writes word 1.
        tag(&mut e, r, 0, 1, 0, false);
        write(&mut e, r, 1, 1, 0, 8);
        let cross = record::CROSS;
        assert_eq!(check(&mut e, r, 2, true, true), vec![(record::RW | record::READ | cross, 1, NONE, 0), (cross, 0, 1, 1)]);
    }

    #[test]
    fn a_read_of_an_earlier_region_races_with_a_write_after_the_barrier() {
        let r = Roles::check(2).tagged(1);
        let mut e = entry(r);
        // An earlier region of the epoch: copy 0 reads words 0 and 1, copy
        // 1 reads word 2.
        for (w, c) in [(0, 0), (1, 0), (2, 1)] {
            tag(&mut e, r, w, c, 0, false);
        }
        assert_eq!(check(&mut e, r, 3, true, false), vec![]);
        // This region: copy 1 writes words 0 and 2 (its own earlier read),
        // copy 0 writes word 1.
        write(&mut e, r, 0, 1, 0, 5);
        write(&mut e, r, 1, 0, 0, 6);
        write(&mut e, r, 2, 1, 0, 7);
        let before = record::RW | record::BEFORE | record::CROSS;
        assert_eq!(check(&mut e, r, 3, true, true), vec![(before, 0, NONE, 0)]);
        // The epoch ended: the next one starts with no word touched.
        assert!(e.touched.iter().all(|t| *t == 0));
        write(&mut e, r, 0, 1, 0, 8);
        assert_eq!(check(&mut e, r, 1, true, true), vec![]);
    }

    #[test]
    fn a_write_of_the_value_a_word_held_races_with_a_change() {
        let r = Roles::check(3).tagged(1);
        let mut e = entry(r);
        // Word 0: copy 1 changes it, copies 0 and 2 write the value it held
        // (copy 2 also reads it: a read of a changed word). Word 1: copies
        // 0 and 1 both write the value it held: no change, no race seen.
        write(&mut e, r, 0, 1, 0, 5);
        write(&mut e, r, 0, 0, 0, 0);
        write(&mut e, r, 0, 2, 0, 0);
        tag(&mut e, r, 0, 2, 0, false);
        write(&mut e, r, 1, 0, 0, 0);
        write(&mut e, r, 1, 1, 0, 0);
        // (The pairs in unit order.)
        assert_eq!(check(&mut e, r, 2, false, true), vec![(0, 0, 1, 0), (record::RW | record::READ, 2, NONE, 0)]);
        // The silent write in a later region than the change: across the barrier.
        write(&mut e, r, 0, 1, 0, 9);
        assert_eq!(check(&mut e, r, 1, true, false), vec![]);
        write(&mut e, r, 0, 0, 0, 5);
        assert_eq!(check(&mut e, r, 1, true, false), vec![(record::CROSS, 0, 1, 0)]);
    }

    #[test]
    fn lane_tags_see_a_conflict_in_either_order() {
        // (lane, write) pairs of copy 1 on word 3, in both orders, in warps
        // of 32 and of 128 and 256 lanes, where lanes 64 or 128 apart
        // shared a bit of check mode's tags.
        let pairs = [[(4, false), (20, true)], [(20, true), (4, false)], [(7, true), (7, false)], [(2, false), (9, false)], [(3, true), (19, true)]];
        let wide = [[(0, true), (64, false)], [(1, true), (129, true)], [(200, false), (200, true)], [(255, false), (127, false)]];
        let cases = pairs.iter().map(|a| (32, a)).chain(wide.iter().map(|a| (256, a)));
        for (warp, accesses) in cases {
            let r = Roles::deterministic(2).tagged(warp);
            assert_eq!(r.tag_groups, 1, "one word of lane codes");
            let mut e = entry(r);
            for &(lane, write) in accesses {
                tag(&mut e, r, 3, 1, lane, write);
            }
            let conflict = accesses[0].0 != accesses[1].0 && (accesses[0].1 || accesses[1].1);
            assert_eq!(det_clear(&mut e), conflict, "{accesses:?}");
            assert!(e.tags.iter().all(|t| t.iter().all(|w| *w == 0)));
            assert!(!det_clear(&mut e), "{accesses:?}: the tags were cleared");
        }
    }

    #[test]
    fn lane_tags_find_intra_warp_races_and_racy_reads() {
        let r = Roles::check(2).tagged(32);
        let mut e = entry(r);
        // Word 0: lanes 3 and 20 of copy 1 write. Word 1: lane 3 writes,
        // lane 5 reads. Word 2: copy 0 changed it, lane 7 of copy 1 read it.
        for (w, lane, v) in [(0, 3, 1), (0, 20, 2), (1, 3, 4)] {
            write(&mut e, r, w, 1, lane, v);
        }
        for (w, lane) in [(1, 5), (1, 3), (2, 7)] {
            tag(&mut e, r, w, 1, lane, false);
        }
        write(&mut e, r, 2, 0, 0, 9);
        let out = check(&mut e, r, 3, false, true);
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
