//! Every benchmark sample at a small size, on the GPU and on the CPU:
//! native output of the race-free variant verified against its host
//! computation, the check-mode
//! verdict (race?, type, scope) of the variant the paper ran equal to the
//! paper's (or to the documented difference), the fixed variant clean, and
//! GPU and CPU reports identical.

#[path = "../samples/common/mod.rs"]
mod common;

#[path = "../samples/apps/all.rs"]
#[allow(dead_code)]
mod apps;

use common::app::{App, Flags};
use common::table::Row;
use ld::Mode;

/// The integration tests' helpers (`common` here is the samples' own).
#[path = "common/mod.rs"]
mod testing;
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
    let half = verdicts.len() / 2;
    for i in half..verdicts.len() {
        assert_eq!(verdicts[i], verdicts[i - half], "{}: GPU and CPU reports differ", A::NAME);
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
