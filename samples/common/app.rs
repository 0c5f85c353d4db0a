//! The frame every benchmark sample shares: its flags, how it runs natively
//! or in check mode, and how it reports. A sample is an `App`: it generates
//! its inputs from a fixed seed, runs its kernels (every launch in the mode
//! asked for), and verifies its native output against a plain-Rust host
//! computation.

use super::{median, ms};
use ld::{CheckOptions, Launch, Mode, Report, Runtime};
use std::time::{Duration, Instant};

/// Flags every sample takes (`cargo run --release --example NAME -- --help`).
#[derive(clap::Args, Debug, Clone)]
pub struct Flags {
    /// Run the corrected kernel instead of the racy one the paper ran.
    #[arg(long)]
    pub fixed: bool,
    /// Run on the CPU reference executor instead of the GPU.
    #[arg(long)]
    pub cpu: bool,
    /// Check for data races (exit status 3 when races are found).
    #[arg(long)]
    pub check: bool,
    /// Run deterministically: the same output bits on every run and backend.
    #[arg(long, conflicts_with = "check")]
    pub deterministic: bool,
    /// Check by access monitoring on the CPU (exact mode: every access
    /// watched, slow); with table6, measure it beside check mode.
    #[arg(long, conflicts_with = "deterministic")]
    pub exact: bool,
    /// Print the check reports as one JSON document (`{"schema": 1,
    /// "tool": "ld", "launches": [...]}`, as `LD_REPORT=x.json` writes).
    #[arg(long)]
    pub json: bool,
    /// Also write the check reports as one self-contained HTML page
    /// (open it in a browser).
    #[arg(long, value_name = "PATH", requires = "check")]
    pub html: Option<std::path::PathBuf>,
    /// Invocations per warp in check mode (a power of two; default: 32, or
    /// the workgroup when smaller).
    #[arg(long)]
    pub warp_size: Option<u32>,
    /// Memory for check mode's private copies (the warps are checked in
    /// rounds to fit it), e.g. `64MiB`, `512KiB`, `1GiB` or bytes.
    #[arg(long, value_parser = parse_bytes)]
    pub memory_budget: Option<u64>,
    /// Check at most this many rounds (trading coverage for time).
    #[arg(long)]
    pub max_rounds: Option<u32>,
    /// Always run the check engine (or deterministic mode's folded kernel),
    /// without the probe that answers launches no two invocations of
    /// which share a word (`CheckOptions::probe`).
    #[arg(long)]
    pub no_probe: bool,
    /// Print check mode's plan (copies, rounds, bytes, P(found)) of each
    /// kernel before it first runs.
    #[arg(long, requires = "check")]
    pub plan: bool,
    /// Scale of the generated inputs (1.0: the sample's realistic default).
    #[arg(long, default_value_t = 1.0)]
    pub size: f64,
    /// Timed repetitions (medians are reported).
    #[arg(long, default_value_t = 5)]
    pub runs: u32,
}

impl Flags {
    /// Every flag at its default, the inputs at `size` (the harnesses' runs).
    pub fn at_size(size: f64) -> Flags {
        Flags {
            fixed: false,
            cpu: false,
            check: false,
            deterministic: false,
            exact: false,
            json: false,
            html: None,
            warp_size: None,
            memory_budget: None,
            max_rounds: None,
            no_probe: false,
            plan: false,
            size,
            runs: 1,
        }
    }

    /// `n` scaled by `--size`, at least `min`.
    pub fn scaled(&self, n: usize, min: usize) -> usize {
        ((n as f64 * self.size) as usize).max(min)
    }

    pub fn check_options(&self) -> CheckOptions {
        CheckOptions::default().warp_size(self.warp_size).memory_budget(self.memory_budget).max_rounds(self.max_rounds).probe(!self.no_probe)
    }
}

/// `64MiB`, `512KiB`, `2GiB`, `1000`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mul) = [("GiB", 1u64 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10), ("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1000), ("B", 1)]
        .iter()
        .find_map(|(suf, m)| t.strip_suffix(suf).map(|n| (n.trim(), *m)))
        .unwrap_or((t, 1));
    num.parse::<f64>().map(|n| (n * mul as f64) as u64).map_err(|_| format!("`{s}` is not a size: write e.g. 64MiB"))
}

/// The paper's Table VI row for a program.
#[derive(Clone, Copy, Debug)]
pub struct PaperRow {
    pub race: bool,
    /// The race was injected by the paper's authors (scan, kmeans).
    pub injected: bool,
    /// `"rw"`, `"ww"`, `"rw,ww"` or `""`.
    pub kind: &'static str,
    /// `"shared"`, `"global"` or `""`.
    pub scope: &'static str,
}

/// What a native run's verification found.
pub struct Verified {
    pub ok: bool,
    pub detail: String,
    pub checksum: u64,
}

/// A benchmark program as a sample.
pub trait App: Sized {
    const NAME: &'static str;
    const ABOUT: &'static str;
    const PAPER: PaperRow;
    /// Why our verdict differs from the paper's, when it does (shown by table6).
    const DIFFERS: &'static str = "";
    /// Our verdict where it differs from the paper's (tests assert it).
    const OURS: Option<PaperRow> = None;
    /// Inputs from a fixed seed, at the size `flags.size` asks for.
    fn new(rt: &Runtime, flags: &Flags) -> ld::Result<Self>;
    /// One execution of the program: every launch in `mode` (use `launch`);
    /// returns the check reports, one per launch (none in native mode).
    fn run(&mut self, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<Vec<Report>>;
    /// After a native run: the output against a host computation.
    fn verify(&self) -> ld::Result<Verified>;
}

/// Runs one launch in `mode`, keeping its report.
pub fn launch(l: Launch<'_>, flags: &Flags, mode: Mode, reports: &mut Vec<Report>) -> ld::Result<()> {
    let l = l.mode(mode).check_options(flags.check_options());
    if flags.plan && mode == Mode::Check {
        // Once per distinct plan, not at every timed run.
        static SHOWN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        let plan = l.plan()?.to_string();
        let mut shown = SHOWN.lock().unwrap();
        if !shown.contains(&plan) {
            eprintln!("{plan}");
            shown.push(plan);
        }
    }
    let run = l.run()?;
    reports.extend(run.report);
    Ok(())
}

/// Median wall time of `runs` executions, and the last one's reports.
pub fn timed<A: App>(app: &mut A, rt: &Runtime, flags: &Flags, mode: Mode) -> ld::Result<(Duration, Vec<Report>)> {
    Ok(timed_interleaved(app, rt, flags, &[mode])?.pop().unwrap())
}

/// `timed` for several modes, interleaved: each round runs every mode once
/// in turn, so that all see the same machine (native runs all made first
/// moved table6's native medians by up to 2x between runs of the table).
/// Per mode, in order: the median, and the last run's reports.
///
/// An untimed round comes first: a kernel's first launch in a mode
/// compiles its pipelines, which is not what a check costs each time (on
/// lavapipe without Mesa's shader cache, compiling takes several times as
/// long as the run). Exact mode compiles nothing.
pub fn timed_interleaved<A: App>(app: &mut A, rt: &Runtime, flags: &Flags, modes: &[Mode]) -> ld::Result<Vec<(Duration, Vec<Report>)>> {
    for &mode in modes.iter().filter(|m| **m != Mode::Exact) {
        app.run(rt, flags, mode)?;
    }
    let mut times = vec![Vec::new(); modes.len()];
    let mut reports = vec![Vec::new(); modes.len()];
    for _ in 0..flags.runs.max(1) {
        for (i, &mode) in modes.iter().enumerate() {
            let t = Instant::now();
            reports[i] = app.run(rt, flags, mode)?;
            times[i].push(t.elapsed());
        }
    }
    Ok(times.into_iter().map(median).zip(reports).collect())
}

#[derive(clap::Parser)]
struct Cli {
    #[command(flatten)]
    flags: Flags,
}

/// The sample's `main`: native run with verification, or check mode.
/// Exit status: 0 (verified / no race), 3 (races found), 1 (error or wrong output).
pub fn main<A: App>() -> ! {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().name(A::NAME).about(A::ABOUT).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let code = match run::<A>(&cli.flags) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}: error: {e}", A::NAME);
            1
        }
    };
    std::process::exit(code)
}

fn run<A: App>(flags: &Flags) -> ld::Result<i32> {
    let rt = super::runtime(flags.cpu)?;
    let mut app = A::new(&rt, flags)?;
    let variant = if flags.fixed { "fixed" } else { "as in the paper" };
    let (native, _) = timed(&mut app, &rt, flags, Mode::Native)?;
    if flags.deterministic {
        let (det, _) = timed(&mut app, &rt, flags, Mode::Deterministic)?;
        let v = app.verify()?;
        println!(
            "{}: backend={} | variant={variant} | deterministic {:.3} ms vs native {:.3} ms: slowdown {:.1}x (median of {}) | checksum {:016x} | output {}: {}",
            A::NAME,
            rt.backend(),
            ms(det),
            ms(native),
            det.as_secs_f64() / native.as_secs_f64(),
            flags.runs.max(1),
            v.checksum,
            if v.ok { "verified" } else { "differs from the host (a racy program's deterministic result)" },
            v.detail
        );
        return Ok(0);
    }
    if !flags.check && !flags.exact {
        let v = app.verify()?;
        println!(
            "{}: backend={} | variant={variant} | native {:.3} ms (median of {}) | checksum {:016x} | output {}: {}",
            A::NAME,
            rt.backend(),
            ms(native),
            flags.runs.max(1),
            v.checksum,
            if v.ok { "verified" } else { "WRONG" },
            v.detail
        );
        return Ok(if v.ok { 0 } else { 1 });
    }
    let mode = if flags.exact { Mode::Exact } else { Mode::Check };
    let (checked, reports) = timed(&mut app, &rt, flags, mode)?;
    if flags.json {
        // One document for the process, the shape `LD_REPORT=x.json` writes.
        println!("{}", ld::report_document(&reports).to_json());
    } else {
        for r in &reports {
            println!("{r}");
        }
    }
    if let Some(path) = &flags.html {
        if let Err(e) = std::fs::write(path, ld::html_report(&reports)) {
            eprintln!("{}: error: cannot write the HTML report to {}: {e}", A::NAME, path.display());
            return Ok(1);
        }
        eprintln!("{}: HTML report written to {}", A::NAME, path.display());
    }
    if !flags.json {
        println!(
            "{}: native {:.3} ms, {} {:.3} ms, slowdown {:.1}x (median of {} runs each, same device, same process)",
            A::NAME,
            ms(native),
            if flags.exact { "exact mode (CPU access monitoring)" } else { "checked" },
            ms(checked),
            checked.as_secs_f64() / native.as_secs_f64(),
            flags.runs.max(1)
        );
    }
    Ok(if reports.iter().any(|r| r.has_races()) { 3 } else { 0 })
}
