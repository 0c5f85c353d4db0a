//! A whole program checked without code changes, as under a sanitizer:
//! `LD_MODE` forces every launch's mode, `LD_REPORT` collects every check
//! report of the process into one file, and a process that `LD_MODE=check`
//! found racy exits with `LD_EXIT_CODE` (default 66) at its end.
//!
//! `Launch::run` calls [`mode`] before a launch and [`finished`] after it;
//! nothing else here is reached from the launch path. The settings come
//! from `settings.rs` (nothing here reads the environment). Without
//! `LD_MODE` and `LD_REPORT` both calls return at once and the process is
//! left alone.

use crate::check::report::Report;
use crate::error::{Error, Result};
use crate::launch::Mode;
use crate::settings::Settings;
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, Once, OnceLock};

/// The version of [`ReportDocument`]'s shape.
pub const REPORT_SCHEMA: u32 = 1;

/// Check reports as one JSON document: `{"schema": 1, "tool": "ld",
/// "launches": [report, ...]}`, each report as [`Report::to_json`] writes
/// it. `LD_REPORT=x.json` and the samples' `--json` write this shape.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ReportDocument<'a> {
    /// [`REPORT_SCHEMA`].
    pub schema: u32,
    /// `"ld"`.
    pub tool: &'static str,
    /// One report per checked launch, in the order they finished.
    pub launches: &'a [Report],
}

impl ReportDocument<'_> {
    /// The document, pretty-printed (fields in the order above).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("reports serialize")
    }

    /// The document as a JSON value.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("reports serialize")
    }
}

/// `reports` as one JSON document (see [`ReportDocument`]).
pub fn report_document(reports: &[Report]) -> ReportDocument<'_> {
    ReportDocument { schema: REPORT_SCHEMA, tool: "ld", launches: reports }
}

/// Checked launches seen, and how many of them had races.
static CHECKED: AtomicU64 = AtomicU64::new(0);
static RACY: AtomicU64 = AtomicU64::new(0);
/// The reports `LD_REPORT` collects; `None` until the file was first written.
static REPORTS: OnceLock<Mutex<Option<Vec<Report>>>> = OnceLock::new();
static AT_EXIT: Once = Once::new();
static FORCED_NOTE: Once = Once::new();

/// The mode a launch runs in: `LD_MODE`'s, else the one the program asked
/// for. With `LD_REPORT`, the first launch of the process creates the file
/// (with no launches yet), so an unwritable path fails at once.
pub(crate) fn mode(asked: Mode) -> Result<Mode> {
    let s = Settings::get()?;
    if let Some(path) = &s.report {
        let mut reports = collected();
        if reports.is_none() {
            write(path, &[])?;
            *reports = Some(Vec::new());
        }
    }
    Ok(match s.mode {
        Some(forced) => {
            FORCED_NOTE.call_once(|| {
                log::info!("ld: LD_MODE={}: every launch of this process runs in {} mode, whatever the program asks", forced.name(), forced.name())
            });
            forced
        }
        None => asked,
    })
}

/// A launch finished with `report` (check mode's): with `LD_REPORT` it is
/// added to the file (rewritten whole: a later crash leaves a complete
/// document), else with `LD_MODE=check` it is printed on stderr. The first
/// such report arranges the summary line and exit status at exit.
pub(crate) fn finished(report: Option<&Report>) -> Result<()> {
    let s = Settings::get()?;
    let Some(report) = report else { return Ok(()) };
    if s.report.is_none() && !checking(s) {
        return Ok(());
    }
    CHECKED.fetch_add(1, Relaxed);
    if report.has_races() {
        RACY.fetch_add(1, Relaxed);
    }
    AT_EXIT.call_once(|| {
        // SAFETY: `at_exit` is a plain `extern "C" fn` that does not unwind.
        if unsafe { libc::atexit(at_exit) } != 0 {
            log::warn!("ld: could not register the exit handler: no summary line or racy exit status at exit");
        }
    });
    match &s.report {
        Some(path) => {
            let mut reports = collected();
            let all = reports.get_or_insert_with(Vec::new);
            all.push(report.clone());
            write(path, all)
        }
        None => {
            let _ = writeln!(std::io::stderr().lock(), "{report}");
            Ok(())
        }
    }
}

fn collected() -> std::sync::MutexGuard<'static, Option<Vec<Report>>> {
    // A panic while holding the lock left the list as it was: keep it.
    REPORTS.get_or_init(|| Mutex::new(None)).lock().unwrap_or_else(|p| p.into_inner())
}

/// At the process's exit (`main` returning or `std::process::exit`): the
/// summary line, then, when `LD_MODE=check` saw races, `_exit` with
/// `LD_EXIT_CODE`, as a sanitizer does.
extern "C" fn at_exit() {
    let (checked, racy) = (CHECKED.load(Relaxed), RACY.load(Relaxed));
    let Ok(s) = Settings::get() else { return };
    let report = s.report.as_ref().map_or_else(String::new, |p| format!(" (report: {})", p.display()));
    let _ = std::io::stdout().flush();
    let _ = writeln!(std::io::stderr(), "ld: {racy} of {checked} checked launches had races{report}");
    if racy > 0 && checking(s) {
        let _ = std::io::stderr().flush();
        // SAFETY: flushing every C stream and ending the process are what
        // `exit` would do next; `_exit` skips the remaining handlers.
        unsafe {
            libc::fflush(std::ptr::null_mut());
            libc::_exit(s.exit_code);
        }
    }
}

/// `LD_MODE=check` or `exact`: the process is run to find races.
fn checking(s: &Settings) -> bool {
    matches!(s.mode, Some(Mode::Check | Mode::Exact))
}

/// Replaces the file at `path` with `reports`, through a temporary file in
/// the same directory, so a reader never sees half a document.
fn write(path: &Path, reports: &[Report]) -> Result<()> {
    let err = |source| Error::Report { path: path.to_path_buf(), source };
    let Some(file) = path.file_name() else {
        return Err(err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")));
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".{}.{}.tmp", file.to_string_lossy(), std::process::id()));
    std::fs::write(&tmp, render(path, reports)).and_then(|()| std::fs::rename(&tmp, path)).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(e)
    })
}

/// The file's contents, in the format its extension names.
fn render(path: &Path, reports: &[Report]) -> String {
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("json") => report_document(reports).to_json() + "\n",
        Some("html" | "htm") => crate::check::html::render(reports),
        _ => reports.iter().map(|r| format!("{r}\n\n")).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_format_follows_the_extension() {
        let doc: serde_json::Value = serde_json::from_str(&render(Path::new("r.JSON"), &[])).unwrap();
        assert_eq!(doc, serde_json::json!({"schema": 1, "tool": "ld", "launches": []}));
        let html = render(Path::new("a/r.html"), &[]);
        assert!(html.to_ascii_lowercase().starts_with("<!doctype html>"), "{html}");
        assert_eq!(render(Path::new("r.txt"), &[]), "");
    }

    #[test]
    fn an_unwritable_path_is_an_error_naming_it() {
        let path = Path::new("/nonexistent-ld-dir/r.json");
        let e = write(path, &[]).unwrap_err();
        assert!(matches!(&e, Error::Report { path: p, .. } if p == path), "{e:?}");
        assert!(e.to_string().contains("/nonexistent-ld-dir/r.json"), "{e}");
    }
}
