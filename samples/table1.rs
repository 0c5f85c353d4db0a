//! Reproduces the paper's Table I from ld's round planner: checking 960
//! warps under budgets from full privatization down to two copies — passes,
//! memory overhead (copies) and the probability of finding a race between a
//! random pair within the rounds run (Eq. 1). ld runs each region once per
//! round, so its passes are half the paper's.
//!
//! `cargo run --release --example table1 -- [--units 960]`

use clap::Parser;
use ld::LevelPlan;

#[derive(Parser)]
#[command(about = "The paper's Table I, computed by ld's round planner")]
struct Args {
    /// Units (warps) to check.
    #[arg(long, default_value_t = 960)]
    units: u64,
}

fn main() {
    let args = Args::parse();
    let n = args.units;
    println!("Table I: the time-space-accuracy trade-off for race checking among {n} warps");
    println!("{:>8} {:>8} {:>8} {:>14} {:>12}", "# warps", "# rounds", "# passes", "mem. overhead", "probability");
    let mut rows: Vec<(LevelPlan, f64)> = Vec::new();
    for copies in [n, 31, 10, 6, 4, 2] {
        let p = LevelPlan::new(n, copies, None);
        rows.push((p, p.p_within(p.rounds)));
    }
    let two = LevelPlan::new(n, 2, None);
    for k in [5, 4, 3, 2] {
        rows.push((LevelPlan::new(n, 2, Some(k)), two.p_within(k)));
    }
    for (p, prob) in rows {
        println!("{:>8} {:>8} {:>8} {:>13}x {:>11.0}%", p.units, p.rounds_run, p.passes(), p.copies, 100.0 * prob);
    }
}
