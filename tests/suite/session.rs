//! A whole program checked without code changes (`LD_MODE`, `LD_REPORT`,
//! `LD_EXIT_CODE`): each test runs this test binary again as a child
//! process (only `session_child`, told what to do by `LD_SESSION_CHILD`),
//! so the environment, stderr and the exit status are the real ones.

use ld::{Grid, Mode, Runtime};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Every invocation writes word 0: a write-write race between workgroups.
#[ld::kernel(workgroup_size = 64)]
fn racy(out: &mut [u32]) {
    out[0] = global_id().x;
}

/// Every invocation writes its own word.
#[ld::kernel(workgroup_size = 64)]
fn clean(out: &mut [u32]) {
    out[global_id().x] = global_id().x;
}

/// The racy kernel as a WGSL shader: every invocation writes word 0.
const RACY_WGSL: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn racy(@builtin(global_invocation_id) g: vec3<u32>) {
    out[0] = g.x;
}
";

const CHILD: &str = "LD_SESSION_CHILD";

/// The child program: launches in native mode, as a program that knows
/// nothing of ld's check mode would.
#[test]
fn session_child() {
    let Ok(what) = std::env::var(CHILD) else { return };
    if let Err(e) = program(&what) {
        eprintln!("child error: {e}");
        std::process::exit(2);
    }
}

fn program(what: &str) -> ld::Result<()> {
    let rt = Runtime::new()?;
    let mut out = rt.zeros::<u32>(4 * 64)?;
    let grid = Grid::cover(4 * 64, 64);
    match what {
        "racy" => {
            racy.launch(&rt, grid, &mut out).mode(Mode::Native).run()?;
        }
        "clean" => {
            clean.launch(&rt, grid, &mut out).mode(Mode::Native).run()?;
        }
        "three" => {
            racy.launch(&rt, grid, &mut out).mode(Mode::Native).run()?;
            clean.launch(&rt, grid, &mut out).mode(Mode::Native).run()?;
            clean.launch(&rt, grid, &mut out).run()?;
        }
        "racy then exit" => {
            racy.launch(&rt, grid, &mut out).mode(Mode::Native).run()?;
            println!("the program's last words");
            std::process::exit(0);
        }
        "wgsl" => {
            let shader = ld::Shader::parse(RACY_WGSL.to_string(), "session.wgsl".as_ref())?;
            let kernel = ld::ShaderKernel::new(&shader, "racy", &[])?;
            kernel.launch(&rt, grid, ld::Bindings::new().buffer(0, 0, &mut out))?.mode(Mode::Native).run()?;
        }
        "asks for check" => {
            let run = racy.launch(&rt, grid, &mut out).mode(Mode::Check).run()?;
            assert!(run.report.expect("a check report").has_races());
        }
        _ => panic!("unknown child {what}"),
    }
    Ok(())
}

/// Runs `session_child` doing `what`, with `env` on top of this process's
/// environment (less ld's session variables).
fn child(what: &str, env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "session::session_child", "--nocapture", "--test-threads=1"]);
    for v in ["LD_MODE", "LD_REPORT", "LD_EXIT_CODE"] {
        c.env_remove(v);
    }
    c.env(CHILD, what).envs(env.iter().copied());
    let Output { status, stdout, stderr } = c.output().unwrap();
    (status.code(), String::from_utf8_lossy(&stdout).into_owned(), String::from_utf8_lossy(&stderr).into_owned())
}

/// A fresh directory for one test's report.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ld-session-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The directory holds the report and nothing else (no temporary file left).
fn only_file(dir: &Path) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn ld_mode_check_reports_on_stderr_and_exits_66() {
    let (code, _, err) = child("racy", &[("LD_MODE", "check")]);
    assert_eq!(code, Some(66), "{err}");
    assert_eq!(ld::DEFAULT_EXIT_CODE, 66);
    assert!(err.contains("ld check: kernel `racy`") && err.contains("RACES"), "{err}");
    assert!(err.contains("ld: 1 of 1 checked launches had races\n"), "{err}");
}

#[test]
fn ld_mode_and_ld_report_cover_programs_that_launch_wgsl_shaders() {
    let (code, _, err) = child("wgsl", &[("LD_MODE", "check")]);
    assert_eq!(code, Some(66), "{err}");
    assert!(err.contains("ld check: kernel `racy`") && err.contains("session.wgsl:5:5") && err.contains("out[0] = g.x;"), "{err}");
    let dir = scratch("wgsl");
    let path = dir.join("r.json");
    let (code, _, err) = child("wgsl", &[("LD_MODE", "check"), ("LD_REPORT", path.to_str().unwrap())]);
    assert_eq!(code, Some(66), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let race = &doc["launches"][0]["races"][0];
    assert_eq!((&race["variable"], &race["kind"]), (&serde_json::json!("out"), &serde_json::json!("ww")), "{doc:#}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ld_exit_code_sets_the_status() {
    let (code, _, err) = child("racy", &[("LD_MODE", "check"), ("LD_EXIT_CODE", "5")]);
    assert_eq!(code, Some(5), "{err}");
}

#[test]
fn std_process_exit_gets_the_status_too() {
    let (code, out, err) = child("racy then exit", &[("LD_MODE", "check")]);
    assert_eq!(code, Some(66), "{err}");
    assert!(out.contains("the program's last words"), "stdout is flushed: {out}");
}

#[test]
fn a_race_free_program_exits_0() {
    let (code, _, err) = child("clean", &[("LD_MODE", "check")]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("ld check: kernel `clean`") && err.contains("no races found"), "{err}");
    assert!(err.contains("ld: 0 of 1 checked launches had races"), "{err}");
}

#[test]
fn without_ld_mode_nothing_changes() {
    let (code, _, err) = child("racy", &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("ld check") && !err.contains("checked launches"), "{err}");
    let (code, _, err) = child("racy", &[("LD_MODE", "deterministic")]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("ld check") && !err.contains("checked launches"), "{err}");
}

#[test]
fn ld_report_json_is_one_document() {
    let dir = scratch("json");
    let path = dir.join("x.json");
    let (code, _, err) = child("three", &[("LD_MODE", "check"), ("LD_REPORT", path.to_str().unwrap())]);
    assert_eq!(code, Some(66), "{err}");
    assert!(!err.contains("ld check: kernel"), "with LD_REPORT the reports go to the file only: {err}");
    assert!(err.contains(&format!("ld: 1 of 3 checked launches had races (report: {})", path.display())), "{err}");
    assert_eq!(only_file(&dir), path);
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["tool"], "ld");
    let launches = doc["launches"].as_array().unwrap();
    let kernels: Vec<&str> = launches.iter().map(|l| l["kernel"].as_str().unwrap()).collect();
    assert_eq!(kernels, ["racy", "clean", "clean"]);
    assert!(launches[0]["race_records"].as_u64().unwrap() > 0 && launches[1]["race_records"] == 0, "{doc:#}");
    // The same shape as the library's document of the same reports.
    let empty = ld::report_document(&[]).to_value();
    assert_eq!((&empty["schema"], &empty["tool"]), (&doc["schema"], &doc["tool"]));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ld_report_alone_collects_what_the_program_checks_and_keeps_its_status() {
    let dir = scratch("alone");
    let path = dir.join("r.json");
    let (code, _, err) = child("asks for check", &[("LD_REPORT", path.to_str().unwrap())]);
    assert_eq!(code, Some(0), "the exit status is LD_MODE=check's: {err}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["launches"].as_array().unwrap().len(), 1, "{doc:#}");
    // A program that checks nothing still leaves a (empty) document.
    let (code, _, err) = child("clean", &[("LD_REPORT", path.to_str().unwrap())]);
    assert_eq!(code, Some(0), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc, serde_json::json!({"schema": 1, "tool": "ld", "launches": []}));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ld_report_text_and_html() {
    let dir = scratch("text");
    for name in ["r.txt", "r.html"] {
        let path = dir.join(name);
        let (code, _, err) = child("racy", &[("LD_MODE", "check"), ("LD_REPORT", path.to_str().unwrap())]);
        assert_eq!(code, Some(66), "{err}");
        let text = std::fs::read_to_string(&path).unwrap();
        if name.ends_with(".html") {
            // The page (ld::html_report) with the report embedded as JSON.
            assert!(text.starts_with("<!DOCTYPE html>") && text.contains("\"kernel\":\"racy\"") && text.contains("</html>"), "{text}");
        } else {
            assert!(text.starts_with("ld check: kernel `racy`") && text.contains("RACES"), "{text}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unwritable_report_is_an_error_at_the_first_launch() {
    let (code, _, err) = child("racy", &[("LD_MODE", "check"), ("LD_REPORT", "/nonexistent-ld-dir/r.json")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("child error: could not write the check report LD_REPORT=\"/nonexistent-ld-dir/r.json\""), "{err}");
}

#[test]
fn a_bad_ld_mode_is_an_error_naming_it() {
    let (code, _, err) = child("racy", &[("LD_MODE", "bogus")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("child error: LD_MODE=\"bogus\" is not valid"), "{err}");
    let (code, _, err) = child("racy", &[("LD_MODE", "check"), ("LD_EXIT_CODE", "300")]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("LD_EXIT_CODE=\"300\""), "{err}");
}
