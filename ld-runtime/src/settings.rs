//! Every `LD_*` environment variable ld reads, parsed and validated in one
//! place, once, when the first runtime starts. The algorithms take their
//! knobs from here (or from the caller's options), never from the
//! environment: a typo such as `LD_GPU_TIMEOUT_SECS=abc` is an error naming
//! the variable instead of a silently ignored value.

use crate::error::{Error, Result};
use crate::launch::Mode;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// The backend `LD_BACKEND` forces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForcedBackend {
    /// A wgpu adapter (`LD_BACKEND=gpu`).
    Gpu,
    /// The CPU reference executor (`LD_BACKEND=cpu`).
    Cpu,
}

/// Which launches `LD_ROUND_TRIP` checks against their round trip
/// (`launch/round_trip.rs`): those on the CPU reference, those on a GPU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RoundTrip {
    /// Launches on the CPU reference (`LD_ROUND_TRIP=cpu`, or `1`).
    pub cpu: bool,
    /// Launches on a GPU (`LD_ROUND_TRIP=gpu`, or `1`).
    pub gpu: bool,
}

/// ld's environment, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// `LD_BACKEND=gpu|cpu`.
    pub backend: Option<ForcedBackend>,
    /// `LD_REQUIRE_GPU=1|true|0|false`: no adapter is an error, not a CPU fallback.
    pub require_gpu: bool,
    /// `LD_ADAPTER=substring`: the adapter whose name contains it (any case).
    pub adapter: Option<String>,
    /// `LD_GPU_TIMEOUT_SECS`: how long one submission may run (default 120 s).
    pub gpu_timeout: Duration,
    /// `LD_CPU_FUEL`: loop iterations per invocation on the CPU executor
    /// before it reports non-termination (default 2^28).
    pub cpu_fuel: u64,
    /// `LD_MODE=check|exact|deterministic|native`: every launch of the process
    /// runs in this mode, whatever the program asked with `Launch::mode`
    /// (the user's run-time request, like running a program under a
    /// sanitizer). The program's `CheckOptions` still apply.
    pub mode: Option<Mode>,
    /// `LD_REPORT=path`: every check report of the process, written to
    /// `path` after each launch that produced one (`.json`: one document,
    /// [`crate::report_document`]; `.html`: a page; else the text reports).
    pub report: Option<PathBuf>,
    /// `LD_EXIT_CODE=1..255`: the exit status of a process that ran with
    /// `LD_MODE=check` (or `exact`) and found races (default 66).
    pub exit_code: i32,
    /// `LD_ROUND_TRIP=1`: every launch of a Rust kernel also runs the
    /// kernel's plain WGSL, read back through the shader front-end, on a
    /// copy of its input, and the two must agree (ld's own test of its
    /// front-end: `launch/round_trip.rs`).
    /// `=cpu` or `=gpu`: only the launches on that backend.
    pub round_trip: RoundTrip,
}

/// The exit status of a process that `LD_MODE=check` found racy, unless
/// `LD_EXIT_CODE` says otherwise.
pub const DEFAULT_EXIT_CODE: i32 = 66;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            backend: None,
            require_gpu: false,
            adapter: None,
            gpu_timeout: Duration::from_secs(120),
            cpu_fuel: 1 << 28,
            mode: None,
            report: None,
            exit_code: DEFAULT_EXIT_CODE,
            round_trip: RoundTrip::default(),
        }
    }
}

/// A variable whose value is not one ld understands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadVar {
    pub var: &'static str,
    pub value: String,
    pub expected: String,
}

impl Settings {
    /// The process's settings, read on first use.
    pub fn get() -> Result<&'static Settings> {
        static CELL: OnceLock<std::result::Result<Settings, BadVar>> = OnceLock::new();
        CELL.get_or_init(|| Settings::parse(|v| std::env::var(v).ok())).as_ref().map_err(|b| Error::Env {
            var: b.var,
            value: b.value.clone(),
            expected: b.expected.clone(),
        })
    }

    /// Settings from `lookup` (the environment, or a test's table). An
    /// empty value counts as unset.
    pub fn parse(lookup: impl Fn(&str) -> Option<String>) -> std::result::Result<Settings, BadVar> {
        let get = |var: &str| lookup(var).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        let bad = |var: &'static str, value: String, expected: &str| BadVar { var, value, expected: expected.to_string() };
        let mut s = Settings::default();
        if let Some(v) = get("LD_BACKEND") {
            s.backend = Some(match v.to_ascii_lowercase().as_str() {
                "gpu" => ForcedBackend::Gpu,
                "cpu" => ForcedBackend::Cpu,
                _ => return Err(bad("LD_BACKEND", v, "`gpu` or `cpu`")),
            });
        }
        let flag = |var: &'static str| match get(var).map(|v| v.to_ascii_lowercase()) {
            None => Ok(false),
            Some(v) if matches!(v.as_str(), "1" | "true" | "yes") => Ok(true),
            Some(v) if matches!(v.as_str(), "0" | "false" | "no") => Ok(false),
            Some(v) => Err(bad(var, v, "`1` or `0`")),
        };
        s.require_gpu = flag("LD_REQUIRE_GPU")?;
        s.round_trip = match get("LD_ROUND_TRIP").map(|v| v.to_ascii_lowercase()).as_deref() {
            Some("cpu") => RoundTrip { cpu: true, gpu: false },
            Some("gpu") => RoundTrip { cpu: false, gpu: true },
            _ => match flag("LD_ROUND_TRIP") {
                Ok(on) => RoundTrip { cpu: on, gpu: on },
                Err(e) => return Err(BadVar { expected: "`1`, `0`, `cpu` or `gpu`".into(), ..e }),
            },
        };
        s.adapter = get("LD_ADAPTER");
        if let Some(v) = get("LD_GPU_TIMEOUT_SECS") {
            s.gpu_timeout = match v.parse::<f64>() {
                Ok(secs) if secs.is_finite() && secs > 0.0 && secs < 1e9 => Duration::from_secs_f64(secs),
                _ => return Err(bad("LD_GPU_TIMEOUT_SECS", v, "a positive number of seconds, such as `120` or `0.5`")),
            };
        }
        if let Some(v) = get("LD_CPU_FUEL") {
            s.cpu_fuel = match v.parse::<u64>() {
                Ok(n) if n > 0 => n,
                _ => return Err(bad("LD_CPU_FUEL", v, "a positive whole number of loop iterations, such as `268435456`")),
            };
        }
        if let Some(v) = get("LD_MODE") {
            let asked = v.to_ascii_lowercase();
            s.mode = Some(match Mode::ALL.into_iter().find(|m| m.name() == asked) {
                Some(m) => m,
                None => return Err(bad("LD_MODE", v, &one_of(&Mode::ALL.map(|m| m.name())))),
            });
        }
        // A path is taken as given (not trimmed: it may end in a space).
        s.report = lookup("LD_REPORT").filter(|v| !v.trim().is_empty()).map(PathBuf::from);
        if let Some(v) = get("LD_EXIT_CODE") {
            s.exit_code = match v.parse::<u8>() {
                Ok(n) if n > 0 => n as i32,
                _ => return Err(bad("LD_EXIT_CODE", v, "an exit status from 1 to 255")),
            };
        }
        Ok(s)
    }
}

/// "`a`, `b` or `c`": the values a variable may take, from the list the
/// parser matches against.
fn one_of(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(vars: &[(&str, &str)]) -> std::result::Result<Settings, BadVar> {
        Settings::parse(|name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string()))
    }

    #[test]
    fn nothing_set_gives_the_defaults() {
        assert_eq!(parse(&[]).unwrap(), Settings::default());
        assert_eq!(parse(&[("LD_BACKEND", ""), ("LD_CPU_FUEL", " ")]).unwrap(), Settings::default());
    }

    #[test]
    fn every_variable_is_read() {
        let s = parse(&[
            ("LD_BACKEND", "CPU"),
            ("LD_REQUIRE_GPU", "true"),
            ("LD_ADAPTER", "llvm"),
            ("LD_GPU_TIMEOUT_SECS", "0.5"),
            ("LD_CPU_FUEL", "1000"),
            ("LD_MODE", "Check"),
            ("LD_REPORT", "out/r.json"),
            ("LD_EXIT_CODE", "5"),
            ("LD_ROUND_TRIP", "yes"),
        ])
        .unwrap();
        assert_eq!(
            s,
            Settings {
                backend: Some(ForcedBackend::Cpu),
                require_gpu: true,
                adapter: Some("llvm".into()),
                gpu_timeout: Duration::from_millis(500),
                cpu_fuel: 1000,
                mode: Some(Mode::Check),
                report: Some(PathBuf::from("out/r.json")),
                exit_code: 5,
                round_trip: RoundTrip { cpu: true, gpu: true },
            }
        );
        assert_eq!(parse(&[("LD_ROUND_TRIP", "GPU")]).unwrap().round_trip, RoundTrip { cpu: false, gpu: true });
        assert_eq!(parse(&[("LD_ROUND_TRIP", "cpu")]).unwrap().round_trip, RoundTrip { cpu: true, gpu: false });
        assert_eq!(parse(&[("LD_ROUND_TRIP", "0")]).unwrap().round_trip, RoundTrip::default());
        for (v, m) in [("deterministic", Mode::Deterministic), ("native", Mode::Native), (" check ", Mode::Check)] {
            assert_eq!(parse(&[("LD_MODE", v)]).unwrap().mode, Some(m), "{v}");
        }
        assert_eq!(parse(&[("LD_EXIT_CODE", "255")]).unwrap().exit_code, 255);
    }

    #[test]
    fn bad_values_name_their_variable() {
        for (var, value) in [
            ("LD_BACKEND", "vulkan"),
            ("LD_REQUIRE_GPU", "maybe"),
            ("LD_ROUND_TRIP", "sometimes"),
            ("LD_GPU_TIMEOUT_SECS", "abc"),
            ("LD_GPU_TIMEOUT_SECS", "-1"),
            ("LD_CPU_FUEL", "-5"),
            ("LD_CPU_FUEL", "0"),
            ("LD_MODE", "bogus"),
            ("LD_MODE", "checked"),
            ("LD_EXIT_CODE", "0"),
            ("LD_EXIT_CODE", "256"),
            ("LD_EXIT_CODE", "-1"),
        ] {
            let e = parse(&[(var, value)]).unwrap_err();
            assert_eq!((e.var, e.value.as_str()), (var, value));
            let msg = Error::Env { var: e.var, value: e.value, expected: e.expected }.to_string();
            assert!(msg.starts_with(&format!("{var}={value:?}")), "{msg}");
        }
    }

    #[test]
    fn a_bad_mode_lists_every_mode_the_parser_takes() {
        let e = parse(&[("LD_MODE", "bogus")]).unwrap_err();
        for m in Mode::ALL {
            assert!(e.expected.contains(&format!("`{}`", m.name())), "{}", e.expected);
        }
        assert_eq!(one_of(&["a", "b", "c"]), "`a`, `b` or `c`");
        assert_eq!(one_of(&["a"]), "`a`");
    }
}
