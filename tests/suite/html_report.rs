//! The HTML report (`ld::html_report`) in a real headless browser: racy
//! kernels are checked on both backends, their page is loaded in Chromium
//! (`--dump-dom`), and the DOM the page's script built must show the races
//! (variables, counts, places, source lines) without a script error.
//!
//! Without a browser the browser tests skip with a message, unless
//! `LD_REQUIRE_BROWSER=1` (scripts/test.sh sets it after installing one).
//! `LD_BROWSER` names the browser's executable; otherwise the first of
//! `chromium-headless-shell`, `chromium`, `chromium-browser`,
//! `google-chrome` on the `PATH` is used. `LD_HTML_OUT=DIR` keeps the
//! pages there to look at.

use crate::support as common;

#[path = "../../samples/kernels/em.rs"]
#[allow(dead_code)]
mod em;

use ld::{Report, Runtime};
use std::path::PathBuf;
use std::process::Command;

#[ld::kernels]
mod k {
    pub struct Body {
        pub pos: [f32; 2],
        pub mass: f32,
    }

    /// The first lane of each of the two warps writes body 1's mass in each
    /// of two workgroups: a write-write race between warps (word 5) and one
    /// between the workgroups.
    #[kernel(workgroup_size = 64)]
    pub fn masses(bodies: &mut [Body]) {
        let lid = local_index();
        if lid % 32 == 0 {
            bodies[1].mass = (global_id().x + 1) as f32;
        }
    }
}

// ============================================================ the browser

fn browser() -> Option<PathBuf> {
    if let Some(b) = std::env::var_os("LD_BROWSER") {
        return Some(PathBuf::from(b));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    if std::env::var("LD_REQUIRE_BROWSER").is_ok_and(|v| v == "1") {
        panic!("LD_REQUIRE_BROWSER=1 but no chromium found on the PATH (install chromium-headless-shell or chromium, or set LD_BROWSER)");
    }
    eprintln!("note: HTML report browser test skipped: no chromium on the PATH (set LD_REQUIRE_BROWSER=1 to fail instead)");
    None
}

/// The DOM after the page's script ran, and the browser's stderr.
fn dump(browser: &PathBuf, html: &str, name: &str) -> (String, String) {
    let dir = std::env::temp_dir().join(format!("ld-html-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("report.html");
    std::fs::write(&file, html).unwrap();
    if let Some(keep) = std::env::var_os("LD_HTML_OUT") {
        std::fs::write(PathBuf::from(keep).join(format!("{name}.html")), html).unwrap();
    }
    let out = Command::new(browser)
        .args(["--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0", "--no-first-run"])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.display()))
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", browser.display()));
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{} failed ({}):\n{err}", browser.display(), out.status);
    let _ = std::fs::remove_dir_all(&dir);
    (dom, err)
}

/// The page loaded and its script finished without an error.
fn assert_clean(dom: &str, err: &str) {
    assert!(!dom.contains("id=\"ld-error\""), "the page's script failed:\n{dom}");
    assert!(dom.contains("data-ld=\"ok\""), "the page's script did not finish:\n{dom}\n{err}");
    assert!(!err.contains("Uncaught"), "a script error in the browser's log:\n{err}");
}

// ============================================================ the kernels

fn masses(rt: &Runtime) -> Report {
    let body = k::Body { pos: [0.5, 0.25], mass: 2.0 };
    let mut bodies = rt.upload(&[body; 8]).unwrap();
    k::masses.launch(rt, 2u32, &mut bodies).check().unwrap()
}

/// The paper's racy EM kernel (as tests/suite/em_check.rs runs it).
fn em(rt: &Runtime) -> Report {
    const N: u32 = 4096;
    const K: u32 = 4;
    const BLOCKS: u32 = 2;
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
    let (d, m, c) = (rt.upload(&data).unwrap(), rt.upload(&memb).unwrap(), rt.upload(&cent).unwrap());
    let mut out = rt.zeros::<f32>((K * BLOCKS * 10) as usize).unwrap();
    em::m_count.launch(rt, (BLOCKS, K), &d, &m, &c, &mut out, N, em::RACY).check().unwrap()
}

// ============================================================ the tests

#[test]
fn a_struct_buffer_race_in_the_browser() {
    let reports: Vec<Report> = common::runtimes().iter().map(masses).collect();
    for r in &reports {
        assert!(r.races.iter().any(|x| x.places == ["bodies[1].mass"]), "{r}");
    }
    let html = ld::html_report(&reports);
    let Some(b) = browser() else { return };
    let (dom, err) = dump(&b, &html, "struct");
    assert_clean(&dom, &err);
    for r in &reports {
        assert!(dom.contains(&format!("backend: {}", r.backend)), "{dom}");
    }
    assert!(dom.contains("<code>bodies[1].mass</code>"), "the place of the racing word:\n{dom}");
    assert!(dom.contains("class=\"strip\" data-variable=\"bodies\""), "a heat strip for bodies:\n{dom}");
    assert!(dom.contains("class=\"matrix\" data-level=\"inter-warp\""), "{dom}");
    assert!(dom.contains("class=\"matrix\" data-level=\"inter-workgroup\""), "{dom}");
    assert!(dom.contains("class=\"timeline\""), "{dom}");
    // The counts as the report has them.
    let races = reports[0].races.len();
    assert!(dom.contains(&format!("data-count=\"races\">{races}<")), "{races} races:\n{dom}");
    assert!(dom.contains("write-write"), "{dom}");
    // The racing write in the source, its expression marked (the DOM, not
    // the script's text: the script holds its own strings too).
    assert!(dom.contains("<mark>bodies</mark>[1].mass = (global_id().x + 1) as f32;"), "{dom}");
    assert!(!dom.contains("class=\"none\">no source locations"), "{dom}");
}

/// em's write-write race on `s_float`, with its source lines, and again as
/// an older report without `places`, `barriers`, `words` or `accesses`.
#[test]
fn the_em_race_in_the_browser() {
    let reports: Vec<Report> = common::runtimes().iter().map(em).collect();
    let r = &reports[0];
    let ww = r.races.iter().find(|x| x.variable == "s_float" && x.kind == ld::RaceKind::WriteWrite).unwrap_or_else(|| panic!("{r}"));
    assert_eq!(ww.places.first().map(String::as_str), Some("s_float[0]"), "{r}");
    // The report's own source accesses (a check re-runs the racing
    // workgroups on the CPU to find them).
    let w = ww.accesses.iter().find(|a| a.kind == ld::AccessKind::Write).unwrap_or_else(|| panic!("{ww:?}"));
    assert!(w.file.ends_with("kernels/em.rs") && (w.source.contains("dist[cnt] = ") || w.source.contains("temp1[cnt] = ")), "{w:?}");
    let mut json: serde_json::Value = serde_json::from_str(&serde_json::to_string(&reports).unwrap()).unwrap();
    let html = ld::html_report_json(&json.to_string());
    let Some(b) = browser() else { return };
    let (dom, err) = dump(&b, &html, "em");
    assert_clean(&dom, &err);
    assert!(dom.contains("<code>m_count</code>"), "{dom}");
    assert!(dom.contains("class=\"strip\" data-variable=\"s_float\""), "{dom}");
    assert!(dom.contains("<code>s_float[0]</code>"), "{dom}");
    assert!(dom.contains(&format!("data-count=\"races\">{}<", r.races.len())), "{dom}");
    assert!(dom.contains(&format!("data-count=\"words involved\">{}<", r.words_with_races)), "{dom}");
    // Every barrier of the kernel on the timeline.
    assert!(!r.barriers.is_empty());
    for b in &r.barriers {
        assert!(dom.contains(&format!("barrier() line {}<", b.line)), "barrier at line {}:\n{dom}", b.line);
    }
    // The source line, its column marked, and who wrote.
    assert!(dom.contains(&format!("{}:{}:{}", w.file, w.line, w.column)), "{dom}");
    let marked = if w.source.contains("dist[cnt] = ") { "<mark>dist</mark>[cnt] = data" } else { "<mark>temp1</mark>[cnt] = dist[cnt] * x;" };
    assert!(dom.contains(marked), "{marked} in\n{dom}");
    assert!(dom.contains("by warp 4 of wg 0"), "{dom}");

    // An older report: none of the optional fields.
    for report in json.as_array_mut().unwrap() {
        report.as_object_mut().unwrap().remove("barriers");
        for c in report["checked"].as_array_mut().unwrap() {
            c.as_object_mut().unwrap().remove("words");
        }
        for race in report["races"].as_array_mut().unwrap() {
            let race = race.as_object_mut().unwrap();
            race.remove("places");
            race.remove("accesses");
        }
    }
    let (dom, err) = dump(&b, &ld::html_report_json(&json.to_string()), "em-old");
    assert_clean(&dom, &err);
    assert!(dom.contains("class=\"strip\" data-variable=\"s_float\""), "{dom}");
    assert!(dom.contains("class=\"none\">no source locations in this report"), "{dom}");
}

/// A shader's indices out of bounds, under the races: each with its
/// source line, the access marked, and the indices.
#[test]
fn indices_out_of_bounds_in_the_browser() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\n@compute @workgroup_size(8)\nfn main(@builtin(global_invocation_id) g: vec3<u32>) {\n    out[g.x + 6u] = g.x;\n}\n";
    let shader = ld::Shader::parse(src.to_string(), "past.wgsl".as_ref()).unwrap();
    let kernel = ld::ShaderKernel::new(&shader, "main", &[]).unwrap();
    let rt = Runtime::cpu();
    let mut out = rt.zeros::<u32>(8).unwrap();
    let r = kernel.launch(&rt, [1, 1, 1], ld::Bindings::new().buffer(0, 0, &mut out)).unwrap().check().unwrap();
    assert_eq!(out.to_vec().unwrap(), [0, 0, 0, 0, 0, 0, 0, 1], "writes past the end skipped");
    let html = ld::html_report(std::slice::from_ref(&r));
    let Some(b) = browser() else { return };
    let (dom, err) = dump(&b, &html, "oob");
    assert_clean(&dom, &err);
    assert!(dom.contains("Indices out of bounds"), "{dom}");
    assert!(dom.contains("indices 8 to 13 into out of length 8") && dom.contains("past.wgsl:5:5"), "{dom}");
    assert!(dom.contains("<mark>out</mark>[g.x + 6u] = g.x;"), "{dom}");
}

/// The page without a browser: the reports are embedded as JSON that no
/// string of theirs can end early.
#[test]
fn the_page_embeds_the_reports_as_json() {
    let mut r = masses(&Runtime::cpu());
    r.kernel = "</script><script>alert(1)</script>".into();
    r.races[0].variable = "<!-- x".into();
    let html = ld::html_report(std::slice::from_ref(&r));
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(!html.contains("http://") || !html.contains("src=\"http"), "nothing from the network");
    assert!(!html.contains("<script src") && !html.contains("<link"), "self-contained");
    let open = "<script type=\"application/json\" id=\"ld-data\">";
    let start = html.find(open).unwrap() + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    let block = &html[start..end];
    assert!(!block.contains('<'), "{block}");
    let back: serde_json::Value = serde_json::from_str(block).unwrap();
    let want: serde_json::Value = serde_json::from_str(&format!("[{}]", r.to_json())).unwrap();
    assert_eq!(back, want);
    assert!(html.contains("<title>ld check: &lt;/script&gt;"), "the title is escaped");
    assert_eq!(html.matches("</script>").count(), 3, "onerror, data and drawing scripts only");
    if let Some(b) = browser() {
        let (dom, err) = dump(&b, &html, "escape");
        assert_clean(&dom, &err);
        assert!(dom.contains("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</code>"), "the name shown as text:\n{dom}");
    }
}
