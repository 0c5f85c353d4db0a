//! Every benchmark sample at a small size, on the GPU and on the CPU:
//! native output of the race-free variant verified against its host
//! computation, the check-mode
//! verdict (race?, type, scope) of the variant the paper ran equal to the
//! paper's (or to the documented difference), the fixed variant clean,
//! GPU and CPU reports identical, and deterministic outputs identical.

use crate::{apps, common};

use common::app::{App, Flags};
use common::table::Row;
use ld::Mode;

/// The integration tests' helpers (`common` here is the samples' own).
use crate::support as testing;
use testing::runtimes;

fn flags(fixed: bool, size: f64) -> Flags {
    Flags { fixed, ..Flags::at_size(size) }
}

/// The whole contract of one sample at `size`.
fn sample<A: App>(size: f64) {
    let mut verdicts = Vec::new();
    for rt in runtimes() {
        for fixed in [false, true] {
            let f = flags(fixed, size);
            let mut app = A::new(&rt, &f).unwrap();
            app.run(&rt, &f, Mode::Native).unwrap();
            let v = app.verify().unwrap();
            // A racy variant's native output depends on the schedule (backprop's
            // write-back lands before or after another workgroup reads it).
            assert!(v.ok || !fixed, "{} (fixed: {fixed}) on {}: {}", A::NAME, rt.backend(), v.detail);
            let reports = app.run(&rt, &f, Mode::Check).unwrap();
            let row = Row::from_reports::<A>(&reports, 0.0, 0.0, 0.0);
            if fixed {
                assert!(
                    !row.race,
                    "{} --fixed reports races on {}:\n{}",
                    A::NAME,
                    rt.backend(),
                    reports.iter().map(|r| r.to_string()).collect::<Vec<_>>().join("\n")
                );
            } else {
                // The paper's verdict, or ours where DIFFERS explains why it differs.
                let want = A::OURS.unwrap_or(A::PAPER);
                assert_eq!(A::OURS.is_some(), !A::DIFFERS.is_empty(), "{}: a differing verdict is stated and explained", A::NAME);
                assert_eq!((row.race, row.kind(), row.scope()), (want.race, want.kind.to_string(), want.scope.to_string()), "{} on {}", A::NAME, rt.backend());
            }
            verdicts.push((fixed, reports.iter().map(|r| r.verdict()).collect::<Vec<_>>()));
        }
    }
    // Exact mode (access monitoring) on the CPU: what the check found on
    // the racy variant, it finds too.
    let rt = testing::cpu();
    let f = flags(false, size);
    let mut app = A::new(&rt, &f).unwrap();
    let checked = app.run(&rt, &f, Mode::Check).unwrap();
    let mut app = A::new(&rt, &f).unwrap();
    let exact = app.run(&rt, &f, Mode::Exact).unwrap();
    assert_eq!(checked.len(), exact.len(), "{}: one exact report per launch", A::NAME);
    for (c, e) in checked.iter().zip(&exact) {
        testing::contained_in_exact(c, e).unwrap_or_else(|m| panic!("{}: {m}", A::NAME));
    }
    // Two variants per backend: the GPU's, where one ran, after the CPU's.
    if verdicts.len() == 4 {
        for i in 2..4 {
            assert_eq!(verdicts[i], verdicts[i - 2], "{}: GPU and CPU reports differ", A::NAME);
        }
    }
    // Deterministic mode on the variant the paper ran: one output on every
    // backend and run (on a GPU the first run probes and defers what the
    // kernels share, the second starts from what the first found).
    let mut outputs = Vec::new();
    for rt in runtimes() {
        for _ in 0..2 {
            let f = flags(false, size);
            let mut app = A::new(&rt, &f).unwrap();
            app.run(&rt, &f, Mode::Deterministic).unwrap();
            outputs.push((rt.backend().to_string(), app.verify().unwrap().checksum));
        }
    }
    for (b, sum) in &outputs[1..] {
        assert_eq!(*sum, outputs[0].1, "{}: deterministic output on {b} differs from {}'s", A::NAME, outputs[0].0);
    }
}

macro_rules! sample_test {
    ($t:path, $name:ident, $small:expr) => {
        #[test]
        fn $name() {
            sample::<$t>($small);
        }
    };
}
apps::for_each_app!(sample_test);

/// The paper's racy EM kernel: its report names the racing writes in
/// samples/ by line and column, with the source line and a caret under the
/// access, on every backend.
#[test]
fn em_report_points_at_the_racing_writes() {
    for rt in runtimes() {
        let f = flags(false, 0.05);
        let mut app = apps::em::Em::new(&rt, &f).unwrap();
        let reports = app.run(&rt, &f, Mode::Check).unwrap();
        let racy: Vec<&ld::Report> = reports.iter().filter(|r| r.has_races()).collect();
        assert!(!racy.is_empty(), "em races on {}", rt.backend());
        for r in racy {
            for race in &r.races {
                let w = race.accesses.iter().find(|a| a.kind == ld::AccessKind::Write).unwrap_or_else(|| panic!("{race:?}"));
                assert!(w.file.contains("samples/") && w.file.ends_with("kernels/em.rs") && w.line > 0 && w.column > 0, "{w:?}");
                assert!(w.source.contains("dist[cnt] = ") || w.source.contains("temp1[cnt] = "), "{w:?}");
            }
            let text = r.to_string();
            assert!(text.contains("kernels/em.rs:") && text.contains("dist[cnt] = data[i * DIM + cnt]") && text.contains("^^^^^^^^^"), "{text}");
        }
    }
}
