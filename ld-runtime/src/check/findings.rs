//! What a word's check finds of each copy, and the race records that
//! follow from it: one description for both backends. The GPU's kernel
//! sends a word that raced as a summary, a bit per copy
//! (`abi::record::SUMMARY`, made by `engine/check.wgsl`'s `ld_record_summary`),
//! which [`expand`] turns into records; the CPU's sweep hands its findings
//! to [`records`] directly. (A kernel with more copies than a mask holds
//! records its races one by one, in `ld_record_word`, the same way.)

use ld_shaders::abi::{record, NONE};

const W: usize = record::WORDS as usize;

/// What a word's check found of one copy.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Finding {
    /// The copy's word differs from the base: it wrote the word in the epoch.
    pub writes: bool,
    /// A lane of the copy wrote the word in this region (its lane tags).
    pub here: bool,
    /// A lane of the copy read the word in this region.
    pub read: bool,
    /// The copy touched the word in an earlier region of the epoch (across
    /// a barrier that does not order it), not in this one, and left it at
    /// the base.
    pub early: bool,
    /// Its lanes raced: [`record::INTRA`] (two wrote), `RW | INTRA` (one
    /// wrote, another touched), or 0.
    pub lanes: u32,
}

impl Finding {
    /// Lanes of the copy wrote the word in this region, leaving the value
    /// it held, and none read it.
    pub fn silent(&self) -> bool {
        self.here && !self.writes && !self.read
    }

    /// Lanes of the copy read the word and wrote it the value it held in
    /// this region (a read-modify-write that changed nothing).
    pub fn quiet(&self) -> bool {
        self.here && !self.writes && self.read
    }
}

/// A word's races, in copy order, as `push(kind, a, b)`: each epoch
/// writer's write-write race with the one before it, where either wrote
/// in this region (`CROSS`: not both); a read by a copy that left the word
/// at the base, where some copy wrote it (`written`; `CROSS` where
/// `cross_reads`); an earlier access of the epoch by a copy that left the
/// word at the base, where another copy wrote it in this region
/// (`here_writes`: a write-after-read across the barrier, `CROSS`); a
/// write of the value the word held, where another copy changed it (with
/// the epoch's first writer, `CROSS` where that one wrote it in an earlier
/// region); a read where another copy read the word and wrote it the value
/// it held (`quiet`); the races of a copy's lanes.
pub(crate) fn records(found: impl IntoIterator<Item = (u32, Finding)>, words: Written, mut push: impl FnMut(u32, u32, u32)) {
    let mut last: Option<(u32, bool)> = None;
    for (c, f) in found {
        if f.writes {
            if let Some((prev, prev_here)) = last.filter(|&(_, prev_here)| f.here || prev_here) {
                push(if f.here && prev_here { 0 } else { record::CROSS }, prev, c);
            }
            last = Some((c, f.here));
        } else if f.read && (words.written || words.silent_here || words.early_silent || words.quiet > u32::from(f.quiet())) {
            push(record::RW | record::READ | if words.cross_reads { record::CROSS } else { 0 }, c, NONE);
        } else if f.early && (words.here_writes || words.silent_here || words.quiet != 0) {
            push(record::RW | record::BEFORE | record::CROSS, c, NONE);
        } else if let Some((first, first_here)) = words.first_writer.filter(|_| f.silent()) {
            // The pair in unit order (the silent writer may come first).
            push(if first_here { 0 } else { record::CROSS }, first.min(c), first.max(c));
        }
        if f.lanes != 0 {
            push(f.lanes, c, NONE);
        }
    }
}

/// What a word's check found of all its copies together: some copy wrote
/// it in the epoch (its union is not its base); reads that raced cross a
/// barrier (no copy wrote it in this region, whatever the value); some
/// copy changed it in this region; some copy wrote it in this region the
/// value it held, without reading it (a silent write: the copies that read
/// the word in this region, or touched it earlier in the epoch, race with
/// it as with a change); the first copy, in copy order, that changed it in
/// the epoch, and whether it wrote it in this region; some copy that did
/// not touch it in this region wrote it silently in an earlier one of the
/// epoch (storage: the reads of this region race with that write); how
/// many copies read it and wrote it the value it held in this region.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Written {
    pub written: bool,
    pub cross_reads: bool,
    pub here_writes: bool,
    pub silent_here: bool,
    pub first_writer: Option<(u32, bool)>,
    pub early_silent: bool,
    pub quiet: u32,
}

/// The kernel's record slots as race records: summaries expanded (one
/// whose second slot lies past the buffer is left out: its races are in
/// the count, `header::EXTRA`), every other record as it is.
pub(crate) fn expand(slots: &[[u32; W]]) -> Vec<[u32; W]> {
    let mut out = Vec::with_capacity(slots.len());
    let mut i = 0;
    while i < slots.len() {
        let first = slots[i];
        let kind = first[record::KIND as usize];
        if kind & record::SUMMARY == 0 {
            out.push(first);
            i += 1;
            continue;
        }
        if let Some(second) = slots.get(i + 1) {
            let at = |s: &[u32; W], f: u32| s[f as usize];
            let (writes, here) = (at(&first, record::A), at(&first, record::B));
            let (reads, intra, intra_rw) = (at(second, record::summary::READS), at(second, record::summary::INTRA), at(second, record::summary::INTRA_RW));
            let early = at(second, record::summary::EARLY);
            // Copies whose lanes wrote the word the value it held, without
            // reading it (silent) or after reading it (quiet).
            let (silent, quiet) = (here & !writes & !reads, here & !writes & reads);
            let bit = |mask: u32, c: u32| mask >> c & 1 != 0;
            let found = (0..u32::BITS).filter(|&c| bit(writes | reads | intra | intra_rw | early | silent, c)).map(|c| {
                let lanes = if bit(intra, c) {
                    record::INTRA
                } else if bit(intra_rw, c) {
                    record::RW | record::INTRA
                } else {
                    0
                };
                (c, Finding { writes: bit(writes, c), here: bit(here, c), read: bit(reads, c), early: bit(early, c), lanes })
            });
            let first_writer = (writes != 0).then(|| writes.trailing_zeros()).map(|c| (c, bit(here, c)));
            let words = Written {
                written: kind & record::WRITTEN != 0,
                cross_reads: kind & record::CROSS_READS != 0,
                here_writes: writes & here != 0,
                silent_here: silent != 0,
                first_writer,
                early_silent: kind & record::EARLY_WRITE != 0,
                quiet: quiet.count_ones(),
            };
            records(found, words, |kind, a, b| {
                let mut r = first;
                r[record::KIND as usize] = kind;
                r[record::A as usize] = a;
                r[record::B as usize] = b;
                out.push(r);
            });
        }
        i += record::summary::SLOTS as usize;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(kind: u32, writes: u32, here: u32, reads: u32, intra: u32, intra_rw: u32) -> [[u32; W]; 2] {
        let mut first = [0, 3, 9, writes, here, 130, 7, 1];
        first[record::KIND as usize] = record::SUMMARY | kind;
        let mut second = [0; W];
        second[record::summary::READS as usize] = reads;
        second[record::summary::INTRA as usize] = intra;
        second[record::summary::INTRA_RW as usize] = intra_rw;
        [first, second]
    }

    /// `s` with one more mask of its second slot (`record::summary`'s `field`).
    fn with(mut s: [[u32; W]; 2], field: u32, mask: u32) -> [[u32; W]; 2] {
        s[1][field as usize] = mask;
        s
    }

    /// (kind, a, b) of each record, the rest checked to be the summary's.
    fn races(records: &[[u32; W]]) -> Vec<(u32, u32, u32)> {
        for r in records {
            assert_eq!((r[1], r[2], r[5], r[6], r[7]), (3, 9, 130, 7, 1), "the word's target, workgroup, word, region and round");
        }
        records.iter().map(|r| (r[0], r[3], r[4])).collect()
    }

    #[test]
    fn a_summary_becomes_a_record_per_race_in_copy_order() {
        // Copies 0, 2 and 5 wrote the word (2 and 5 in this region), copy 1
        // read it, copy 5's lanes raced with two writing, copy 6's with
        // one writing and another reading.
        let s = summary(record::WRITTEN, 0b100101, 0b100100, 0b1000010, 0b100000, 0b1000000);
        let got = races(&expand(&s));
        let cross = record::CROSS;
        let read = record::RW | record::READ;
        let lanes_rw = record::RW | record::INTRA;
        assert_eq!(got, vec![(read, 1, NONE), (cross, 0, 2), (0, 2, 5), (record::INTRA, 5, NONE), (read, 6, NONE), (lanes_rw, 6, NONE)]);
        // Reads race only where some copy wrote the word; across a barrier
        // where no writer wrote it in this region.
        assert_eq!(races(&expand(&summary(0, 0b1, 0, 0b10, 0, 0))), vec![]);
        assert_eq!(races(&expand(&summary(record::WRITTEN | record::CROSS_READS, 0b1, 0, 0b10, 0, 0))), vec![(read | cross, 1, NONE)]);
    }

    #[test]
    fn an_earlier_access_races_only_with_a_write_in_this_region() {
        let before = record::RW | record::BEFORE | record::CROSS;
        // Copies 1 and 3 touched the word in an earlier region; copy 2
        // writes it in this one.
        let s = with(summary(record::WRITTEN, 0b100, 0b100, 0, 0, 0), record::summary::EARLY, 0b1010);
        assert_eq!(races(&expand(&s)), vec![(before, 1, NONE), (before, 3, NONE)]);
        // Copy 2 wrote it in an earlier region too: no write here, no race
        // of the earlier accesses (the region that had both saw it).
        let s = with(summary(record::WRITTEN, 0b100, 0, 0, 0, 0), record::summary::EARLY, 0b1010);
        assert_eq!(races(&expand(&s)), vec![]);
    }

    #[test]
    fn a_silent_write_races_with_the_epochs_first_writer() {
        // Copies 1 and 4 changed the word (4 in this region), copy 2 wrote
        // it the value it held in this region, copy 3 did and read it too.
        let s = summary(record::WRITTEN, 0b10010, 0b11100, 0b1000, 0, 0);
        let read = record::RW | record::READ;
        assert_eq!(races(&expand(&s)), vec![(record::CROSS, 1, 2), (read, 3, NONE), (record::CROSS, 1, 4)]);
        // No copy changed it: nothing to race with.
        let s = summary(0, 0, 0b110, 0, 0, 0);
        assert_eq!(races(&expand(&s)), vec![]);
    }

    #[test]
    fn a_quiet_write_races_with_other_copies_reads() {
        let read = record::RW | record::READ;
        // Copy 1 read the word and wrote it the value it held; copy 0 read it.
        assert_eq!(races(&expand(&summary(0, 0, 0b10, 0b11, 0, 0))), vec![(read, 0, NONE)]);
        // Alone, copy 1 races with nobody; two such copies race with each other.
        assert_eq!(races(&expand(&summary(0, 0, 0b10, 0b10, 0, 0))), vec![]);
        assert_eq!(races(&expand(&summary(0, 0, 0b110, 0b110, 0, 0))), vec![(read, 1, NONE), (read, 2, NONE)]);
    }

    #[test]
    fn a_silent_write_races_with_reads_here_and_accesses_before() {
        let (read, before) = (record::RW | record::READ, record::RW | record::BEFORE | record::CROSS);
        // Copy 2 wrote the word the value it held in this region; copy 0
        // read it here, copy 3 touched it in an earlier region.
        let s = with(summary(0, 0, 0b100, 0b1, 0, 0), record::summary::EARLY, 0b1000);
        assert_eq!(races(&expand(&s)), vec![(read, 0, NONE), (before, 3, NONE)]);
        // Copy 3 wrote it so in an earlier region (its written flag): copy
        // 0's read here races with it, across the barrier.
        let s = with(summary(record::EARLY_WRITE | record::CROSS_READS, 0, 0, 0b1, 0, 0), record::summary::EARLY, 0b1000);
        assert_eq!(races(&expand(&s)), vec![(read | record::CROSS, 0, NONE)]);
        // Without it, a read and an earlier access are no race.
        let s = with(summary(record::CROSS_READS, 0, 0, 0b1, 0, 0), record::summary::EARLY, 0b1000);
        assert_eq!(races(&expand(&s)), vec![]);
    }

    #[test]
    fn records_around_summaries_pass_and_a_summary_cut_short_is_left_out() {
        let plain = [record::LEVEL1, 3, 9, 2, 4, 130, 7, 1];
        let s = summary(0, 0b11, 0b10, 0, 0, 0);
        let got = expand(&[plain, s[0], s[1], plain, s[0]]);
        assert_eq!(got.len(), 3);
        assert_eq!((got[0], got[2]), (plain, plain));
        // Copy 0 wrote the word in an earlier region, copy 1 in this one.
        assert_eq!(races(&got[1..2]), vec![(record::CROSS, 0, 1)]);
    }
}
