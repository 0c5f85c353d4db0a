//! The engine's per-word steps on the CPU: the same algorithm as
//! `ld-shaders`' `engine.wgsl` (`ld_merge_word`, `ld_compare_word`,
//! `ld_fold_word`), so the CPU reference finds exactly what the GPU finds.
//! On the CPU an entry's role pages are always stored whole (invocations run
//! one at a time, so a page can be filled when it is first written), which
//! is what the GPU's masks and fallbacks amount to.

use ld_shaders::abi::{record, Roles, NONE, PAGE};

/// One page of a target in a workgroup: its roles (base, union, pass-1 and
/// pass-2 copies; see `ld_shaders::abi::Roles`).
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub roles: Vec<[u32; PAGE as usize]>,
    /// Written since the memory's epoch began (pass 1), and in this region's pass 2.
    pub dirty1: bool,
    pub dirty2: bool,
}

impl Entry {
    /// Every role holding `page`.
    pub fn new(roles: Roles, page: [u32; PAGE as usize]) -> Self {
        Entry { roles: vec![page; roles.pages as usize], dirty1: false, dirty2: false }
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
        if e.roles[q0 + c][w] != want {
            let cross = spans && writers == wrote_c as usize;
            out.push((record::RW | if cross { record::CROSS } else { 0 }, c as u32, NONE, k));
        }
        if commit {
            p = u;
        }
        e.roles[p0 + c][w] = p;
        e.roles[q0 + c][w] = p;
    }
    e.roles[0][w] = if commit { u } else { b };
}

/// Pass 2 read word w of entry `e` as copy c and got `v` (see
/// `ld_check_read`): a value no write of c made but the union holds came
/// from another copy's write in this epoch. The record: kind bits, reader,
/// writer (the last copy that changed the word), word. `wrote[d]`: copy d
/// wrote something in this region (else a barrier lies between).
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_seen(e: &Entry, r: Roles, w: usize, k: u32, c: u32, v: u32, spans: bool, wrote: &[bool]) -> Option<Seen> {
    let b = e.roles[0][w];
    let u = e.roles[r.u as usize][w];
    let p = e.roles[(r.p + c) as usize][w];
    if !e.dirty1 || v == b || v != u || p != b {
        return None;
    }
    let d = (0..r.copies).rev().find(|&d| e.roles[(r.p + d) as usize][w] != b).unwrap_or(NONE);
    let cross = spans && d != NONE && !wrote[d as usize];
    Some((record::RW | record::READ | if cross { record::CROSS } else { 0 }, c, d, k))
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
    fn fold_takes_the_last_copy_that_wrote() {
        let r = Roles::deterministic(3);
        let mut e = entry(r);
        e.roles[1][0] = 4;
        e.roles[3][0] = 6;
        fold_word(&mut e, r, 0);
        assert_eq!(e.roles.iter().map(|p| p[0]).collect::<Vec<_>>(), vec![6, 6, 6, 6]);
    }
}
