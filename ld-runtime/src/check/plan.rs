//! The memory-adaptive round plan (paper section 4.5, Fig. 5, Eq. 1).
//!
//! Full privatization needs one copy per unit. With `M` copies for `N` units,
//! round `r` (1-based) of `R = ceil(log_M N)` gives unit `u` the copy of its
//! r-th base-`M` digit, `(u / M^(R-r)) % M`: units sharing a copy in a round
//! differ in an earlier or later digit, so every pair is separated in some
//! round, and a race between two units is found in the first round where
//! their digits differ. `P_k = N (1 - M^-k) / (N - 1)` is the chance that a
//! random racing pair is separated within `k` rounds.

use serde::Serialize;

/// One level's plan: units, copies and rounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LevelPlan {
    /// Units at this level (workgroups, or warps per workgroup).
    pub units: u64,
    /// Private copies per round (`M`).
    pub copies: u64,
    /// Rounds that separate every pair (`ceil(log_M N)`).
    pub rounds: u32,
    /// Rounds that will run (at most `max_rounds`).
    pub rounds_run: u32,
}

impl LevelPlan {
    /// The plan for `units` units sharing `copies` copies, in at most
    /// `max_rounds` rounds.
    pub fn new(units: u64, copies: u64, max_rounds: Option<u32>) -> Self {
        let copies = copies.clamp(1, units.max(1));
        let rounds = rounds(units, copies);
        LevelPlan { units, copies, rounds, rounds_run: max_rounds.map_or(rounds, |k| k.clamp(1, rounds)) }
    }

    /// Runs rounds `1..=rounds_run` in order, stopping after the first that
    /// finds races (`round` returns true) unless `all_rounds`: the paper's
    /// policy, in one place for both levels and both backends.
    pub fn run_rounds<E>(&self, all_rounds: bool, mut round: impl FnMut(u32) -> Result<bool, E>) -> Result<(), E> {
        for r in 1..=self.rounds_run {
            if round(r)? && !all_rounds {
                break;
            }
        }
        Ok(())
    }

    /// Kernel runs per region: one per round (the paper's Table I counts
    /// two, its second pass re-running each region; ld's check tags the
    /// reads in the one run instead).
    pub fn passes(&self) -> u32 {
        self.rounds_run
    }

    /// The copy of `unit` in `round` (1-based).
    pub fn copy_of(&self, unit: u64, round: u32) -> u64 {
        (unit / self.divisor(round)) % self.copies
    }

    /// `M^(R - round)`: units per digit step in `round`.
    pub fn divisor(&self, round: u32) -> u64 {
        self.copies.saturating_pow(self.rounds - round)
    }

    /// The first unit sharing `copy` in `round` (how reports name a group).
    pub fn first_unit(&self, copy: u64, round: u32) -> u64 {
        copy * self.divisor(round)
    }

    /// Whether a copy in `round` holds exactly one unit.
    pub fn exact(&self, round: u32) -> bool {
        self.divisor(round) == 1 && self.copies >= self.units
    }

    /// Whether `max_rounds` stopped short of the rounds that separate every
    /// pair (some warps shared a copy in every round run).
    pub fn cut_short(&self) -> bool {
        self.rounds_run < self.rounds
    }

    /// Eq. 1: the probability that a random racing pair is separated
    /// (hence its race found) within `k` rounds.
    pub fn p_within(&self, k: u32) -> f64 {
        let (n, m) = (self.units as f64, self.copies as f64);
        if self.units <= 1 {
            return 1.0;
        }
        (n * (1.0 - m.powi(-(k as i32))) / (n - 1.0)).min(1.0)
    }
}

/// Smallest `R` with `M^R >= N`.
pub fn rounds(units: u64, copies: u64) -> u32 {
    if units <= 1 || copies >= units {
        return 1;
    }
    let mut r = 0;
    let mut reach = 1u64;
    while reach < units {
        reach = reach.saturating_mul(copies.max(2));
        r += 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's Table I rows: `units` warps under budgets of `copies`,
    /// with the probability of finding a race within each count of rounds.
    fn table1(units: u64) -> Vec<(LevelPlan, f64)> {
        let mut out = Vec::new();
        for copies in [units, 31, 10, 6, 4, 2] {
            let p = LevelPlan::new(units, copies, None);
            out.push((p, p.p_within(p.rounds)));
        }
        let two = LevelPlan::new(units, 2, None);
        for k in [5, 4, 3, 2] {
            out.push((LevelPlan::new(units, 2, Some(k)), two.p_within(k)));
        }
        out
    }

    /// Fig. 5: N = 8 units, M = 2 copies.
    fn first_round(p: &LevelPlan, a: u64, b: u64) -> u32 {
        (1..=p.rounds).find(|&r| p.copy_of(a, r) != p.copy_of(b, r)).unwrap()
    }

    #[test]
    fn figure5_three_rounds() {
        let p = LevelPlan::new(8, 2, None);
        assert_eq!(p.rounds, 3);
        assert_eq!(first_round(&p, 1, 5), 1);
        assert_eq!(first_round(&p, 1, 3), 2);
        assert_eq!(first_round(&p, 0, 1), 3);
        assert_eq!((0..8).map(|u| p.copy_of(u, 1)).collect::<Vec<_>>(), vec![0, 0, 0, 0, 1, 1, 1, 1]);
        assert_eq!((0..8).map(|u| p.copy_of(u, 2)).collect::<Vec<_>>(), vec![0, 0, 1, 1, 0, 0, 1, 1]);
    }

    #[test]
    fn every_pair_is_separated_by_the_last_round() {
        for (n, m) in [(960, 2), (960, 31), (1000, 10), (7, 3), (33, 32)] {
            let p = LevelPlan::new(n, m, None);
            for a in 0..n.min(40) {
                for b in a + 1..n {
                    assert!((1..=p.rounds).any(|r| p.copy_of(a, r) != p.copy_of(b, r)), "{n} {m} {a} {b}");
                }
            }
            assert!((p.p_within(p.rounds) - 1.0).abs() < 1e-9 || n > m.pow(p.rounds));
        }
    }

    #[test]
    fn table1_matches_the_paper() {
        let rows = table1(960);
        let passes: Vec<u32> = rows.iter().map(|(p, _)| p.passes()).collect();
        // Half the paper's passes: one run per round, not two.
        assert_eq!(passes, vec![1, 2, 3, 4, 5, 10, 5, 4, 3, 2]);
        let pct: Vec<u32> = rows.iter().map(|(_, p)| (p * 100.0).round() as u32).collect();
        assert_eq!(pct, vec![100, 100, 100, 100, 100, 100, 97, 94, 88, 75]);
    }
}

/// A launch's check plan under a memory budget.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Plan {
    /// Bytes the engine may allocate.
    pub budget: u64,
    /// Level 1: every workgroup on its own copy, which holds only the pages
    /// it accesses, so one round always suffices; `None` when nothing can race
    /// between workgroups (no written storage buffer, or one workgroup).
    pub level1: Option<LevelPlan>,
    /// Level 2: the warps of a workgroup; copies in workgroup-sized scratch
    /// slots, rounds when fewer copies than warps fit.
    pub level2: LevelPlan,
    /// Workgroups per dispatch (their scratch slots fit the budget and a binding).
    pub batch: u64,
    /// Bytes allocated: scratch slots of one batch, race
    /// records and level-1 pages.
    pub bytes: u64,
}

impl std::fmt::Display for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |b: u64| b as f64 / (1 << 20) as f64;
        writeln!(f, "check plan under a budget of {:.1} MiB ({:.1} MiB allocated):", mib(self.budget), mib(self.bytes))?;
        if let Some(p) = &self.level1 {
            writeln!(f, "  level 1 (workgroups): {} units, each on its own copy of the pages it accesses, 1 round, no pass of its own", p.units)?;
        }
        let p = &self.level2;
        write!(
            f,
            "  level 2 (warps of a workgroup): {} units, {} copies, {} of {} rounds, {} pass{} per region; P(found) by round:",
            p.units,
            p.copies,
            p.rounds_run,
            p.rounds,
            p.passes(),
            if p.passes() == 1 { "" } else { "es" }
        )?;
        for k in 1..=p.rounds_run {
            write!(f, " {:.0}%", 100.0 * p.p_within(k))?;
        }
        write!(f, "; workgroups in batches of {}", self.batch)
    }
}
