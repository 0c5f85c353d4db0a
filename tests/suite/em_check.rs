//! The paper's running example: em's write-write race on the shared array
//! is found on the GPU and on the CPU with identical reports, the fixed
//! kernel checks clean, and its buffers then equal a native run's.

use crate::support as common;

#[path = "../../samples/kernels/em.rs"]
#[allow(dead_code)]
mod kernels;

use ld::{CheckOptions, Mode, RaceKind, Report, Runtime};

const N: u32 = 4096;
const K: u32 = 4;
const BLOCKS: u32 = 2;

/// Distinct pseudo-random values: a racing write of the value already there
/// is invisible to value comparison, so the inputs avoid repeats.
fn inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut s = 0x2545_f491u32;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        (s >> 8) as f32 / (1u32 << 24) as f32
    };
    let data: Vec<f32> = (0..N * 3).map(|_| next() * 20.0 - 10.0).collect();
    let memb: Vec<f32> = (0..K * N).map(|_| next()).collect();
    let cent: Vec<f32> = (0..K * 3).map(|_| next() * 20.0 - 10.0).collect();
    (data, memb, cent)
}

/// Runs em racy or fixed; returns the check report (if `check`) and the output.
fn run(rt: &Runtime, fixed: bool, check: bool) -> (Option<Report>, Vec<f32>) {
    let (d, m, c) = inputs();
    let (d, m, c) = (rt.upload(&d).unwrap(), rt.upload(&m).unwrap(), rt.upload(&c).unwrap());
    let mut out = rt.zeros::<f32>((K * BLOCKS * 10) as usize).unwrap();
    let mask = if fixed { kernels::FIXED } else { kernels::RACY };
    let launch = kernels::m_count.launch(rt, (BLOCKS, K), &d, &m, &c, &mut out, N, mask);
    let launch = if check { launch.mode(Mode::Check).check_options(CheckOptions::default()) } else { launch };
    let r = launch.run().unwrap();
    (r.report, out.to_vec().unwrap())
}

use common::runtimes;

#[test]
fn racy_em_has_the_papers_write_write_race_on_shared_memory() {
    let reports: Vec<Report> = runtimes().iter().map(|rt| run(rt, false, true).0.unwrap()).collect();
    for r in &reports {
        let ww = r.races.iter().find(|x| x.kind == RaceKind::WriteWrite).unwrap_or_else(|| panic!("no ww race:\n{r}"));
        assert_eq!(ww.variable, "s_float", "{r}");
        assert_eq!(format!("{:?}", ww.memory), "Workgroup");
        assert_eq!(format!("{:?}", ww.level), "InterWarp");
        // Invocations lid and lid + 128 share their windows: warps w and w + 4.
        assert_eq!(ww.units.iter().map(|u| u.warp.unwrap()).collect::<Vec<_>>(), vec![0, 4], "{r}");
        assert_eq!(ww.words, vec![(0, 96), (768, 864)], "{r}");
        assert_eq!(r.words_with_races, 768, "{r}");
    }
    for r in &reports[1..] {
        assert_eq!(r.verdict(), reports[0].verdict(), "GPU and CPU reports differ:\n{}\n{}", r, reports[0]);
    }
}

#[test]
fn fixed_em_checks_clean_and_keeps_the_native_result() {
    for rt in runtimes() {
        let (report, checked) = run(&rt, true, true);
        let report = report.unwrap();
        assert!(!report.has_races(), "{report}");
        assert_eq!(report.regions_analyzed, 7, "{report}");
        let (_, native) = run(&rt, true, false);
        assert_eq!(checked.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), native.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    }
}

#[test]
fn report_serializes_to_json() {
    let (report, _) = run(&common::cpu(), false, true);
    let json = report.unwrap().to_json();
    assert!(json.contains("\"kind\": \"ww\"") && json.contains("\"memory\": \"workgroup\"") && json.contains("\"level\": \"inter-warp\""), "{json}");
}
