//! The checking sweeps on the CPU: the same word-level algorithm as the
//! WGSL in `shaders/`, so the CPU reference finds exactly what the GPU finds.
//!
//! Per region and per memory, with `B` the epoch base (the state at the last
//! barrier that orders this memory), `R_w` warp `w`'s copy at region start,
//! `P_w` its copy after pass 1 and `U` the union:
//! - `merge`: unit `w` wrote word `k` in the epoch iff `P_w[k] != B[k]`, in
//!   this region iff `P_w[k] != R_w[k]`; two epoch writers, one of them in
//!   this region, are a write-write race. `U[k]` takes the last writer's
//!   value (unit order). Pass 2's input for `w` is `U`, except that words `w`
//!   wrote in this region go back to `R_w[k]`.
//! - `compare`: after pass 2, a copy that differs from `U` is a unit whose
//!   result changed when it saw the other units' writes: a read-write race.

use super::report::RaceKind;
use std::ops::Range;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

pub type Words = [AtomicU32];

/// A racing observation in copy terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Obs {
    pub kind: RaceKind,
    pub a: u32,
    pub b: Option<u32>,
    pub word: u32,
    /// The conflicting accesses lie in different regions of one epoch, i.e.
    /// on both sides of a barrier that does not order this memory.
    pub cross: bool,
}

#[inline]
fn ld(w: &Words, k: usize) -> u32 {
    w[k].load(Relaxed)
}

#[inline]
fn st(w: &Words, k: usize, v: u32) {
    w[k].store(v, Relaxed)
}

/// Fused write-write check + union + pass-2 set-up over `range`.
/// `start[w]` is `R_w` (`None`: every copy started at `B`); pass 2's input
/// is written to `q_out[w]`, which may be `start[w]` or `cur[w]`.
pub fn merge(base: &Words, start: Option<&[&Words]>, cur: &[&Words], union: &Words, q_out: &[&Words], range: Range<usize>, out: &mut Vec<Obs>, wrote: &mut [bool]) {
    let n = cur.len();
    let mut region_wrote = vec![false; n];
    for k in range {
        let b = ld(base, k);
        let mut u = b;
        let mut last: Option<(usize, bool)> = None;
        for w in 0..n {
            let p = ld(cur[w], k);
            let r = start.map(|s| ld(s[w], k)).unwrap_or(b);
            region_wrote[w] = p != r;
            if p != b {
                let here = p != r;
                if let Some((prev, prev_here)) = last {
                    if here || prev_here {
                        out.push(Obs { kind: RaceKind::WriteWrite, a: prev as u32, b: Some(w as u32), word: k as u32, cross: !(here && prev_here) });
                    }
                }
                last = Some((w, here));
                u = p;
            }
        }
        st(union, k, u);
        for w in 0..n {
            wrote[w] |= region_wrote[w];
            let q = if region_wrote[w] { start.map(|s| ld(s[w], k)).unwrap_or(b) } else { u };
            st(q_out[w], k, q);
        }
    }
}

/// Read-write check after pass 2 over `range`: copy `w`'s own epoch writes
/// (`cur[w][k] != base[k]`) must come back unchanged, every other word must
/// read as the union. `wrote[w]`: unit `w` wrote any memory in this region;
/// with `cross`, a changed unit none of whose peers wrote anything in this
/// region must have read an earlier region's write across a barrier.
#[allow(clippy::too_many_arguments)]
pub fn compare(base: &Words, union: &Words, cur: &[&Words], q: &[&Words], range: Range<usize>, wrote: &[bool], cross: bool, out: &mut Vec<Obs>) {
    let writers = wrote.iter().filter(|w| **w).count();
    for k in range {
        let (b, u) = (ld(base, k), ld(union, k));
        for (w, c) in q.iter().enumerate() {
            let p = ld(cur[w], k);
            let want = if p != b { p } else { u };
            if ld(c, k) != want {
                let others = writers - wrote[w] as usize;
                out.push(Obs { kind: RaceKind::ReadWrite, a: w as u32, b: None, word: k as u32, cross: cross && others == 0 });
            }
        }
    }
}

/// `dst = src` over `range`.
pub fn copy(dst: &Words, src: &Words, range: Range<usize>) {
    for k in range {
        st(dst, k, ld(src, k));
    }
}

pub fn words_from(v: &[u32]) -> Vec<AtomicU32> {
    v.iter().map(|&x| AtomicU32::new(x)).collect()
}

pub fn clone_words(w: &Words) -> Vec<AtomicU32> {
    w.iter().map(|x| AtomicU32::new(x.load(Relaxed))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(v: &[u32]) -> Vec<AtomicU32> {
        words_from(v)
    }
    fn get(v: &Words) -> Vec<u32> {
        v.iter().map(|x| x.load(Relaxed)).collect()
    }

    #[test]
    fn two_writers_of_a_word_race_and_the_later_wins() {
        let base = w(&[0, 0, 0]);
        let (p0, p1) = (w(&[5, 0, 1]), w(&[7, 2, 0]));
        let u = w(&[0; 3]);
        let mut obs = vec![];
        let mut wrote = vec![false; 2];
        merge(&base, None, &[&p0, &p1], &u, &[&p0, &p1], 0..3, &mut obs, &mut wrote);
        assert_eq!(obs, vec![Obs { kind: RaceKind::WriteWrite, a: 0, b: Some(1), word: 0, cross: false }]);
        assert_eq!(get(&u), vec![7, 2, 1]);
        // pass-2 inputs: own writes reverted, others' writes visible
        assert_eq!(get(&p0), vec![0, 2, 0]);
        assert_eq!(get(&p1), vec![0, 0, 1]);
        assert_eq!(wrote, vec![true, true]);
    }

    #[test]
    fn epoch_writes_from_earlier_regions_are_not_reported_again() {
        let base = w(&[0, 0]);
        // warp 0 wrote word 0 in an earlier region (start already has it).
        let (s0, s1) = (w(&[3, 0]), w(&[0, 0]));
        let (p0, p1) = (w(&[3, 0]), w(&[0, 4]));
        let u = w(&[0; 2]);
        let mut obs = vec![];
        let mut wrote = vec![false; 2];
        merge(&base, Some(&[&s0, &s1]), &[&p0, &p1], &u, &[&s0, &s1], 0..2, &mut obs, &mut wrote);
        assert!(obs.is_empty());
        assert_eq!(get(&u), vec![3, 4]);
        assert_eq!(get(&s0), vec![3, 4]);
        assert_eq!(get(&s1), vec![3, 0]);
        assert_eq!(wrote, vec![false, true]);
        // Pass 2 changed nothing: warp 1 rewrote its word, warp 0 left the union.
        let (q0, q1) = (w(&[3, 4]), w(&[3, 4]));
        let mut obs = vec![];
        compare(&base, &u, &[&p0, &p1], &[&q0, &q1], 0..2, &wrote, true, &mut obs);
        assert!(obs.is_empty(), "{obs:?}");
        // Warp 0's pass 2 saw warp 1's write and changed its own word.
        let q0 = w(&[9, 4]);
        compare(&base, &u, &[&p0, &p1], &[&q0, &q1], 0..2, &wrote, true, &mut obs);
        assert_eq!(obs, vec![Obs { kind: RaceKind::ReadWrite, a: 0, b: None, word: 0, cross: false }]);
    }
}
