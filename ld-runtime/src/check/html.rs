//! A check report as one self-contained HTML page: the reports are embedded
//! as JSON (what [`Report::to_json`] writes) and drawn by the page's own
//! script (no network, no dependency): per launch a header, a heat strip of
//! racing words per variable, the unit × unit matrix of who raced with
//! whom, the region timeline between the kernel's barriers, and each race
//! with its places and, where the report has them, its source lines.
//!
//! The page marks itself when its script is done (`<body data-ld="ok">`)
//! and shows any script error in an element `#ld-error`, which
//! tests/suite/html_report.rs reads back from a headless browser.

use super::report::Report;

const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// The reports of a run as one HTML page (UTF-8, self-contained).
pub fn render(reports: &[Report]) -> String {
    let json = serde_json::to_string(reports).expect("reports serialize");
    render_json(&json)
}

/// The page for reports already serialized: a JSON array of reports as
/// [`Report::to_json`] writes them (saved by an earlier run, or by another
/// version of ld: fields the page does not know are ignored, and `places`,
/// `accesses`, `barriers` and `words` may be absent).
pub fn render_json(json: &str) -> String {
    let title = title(json);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<script>\n{ONERROR}</script>\n<header id=\"ld-top\"><h1>{title}</h1><p id=\"ld-summary\"></p></header>\n<main id=\"ld-root\"><noscript>This report is drawn by JavaScript; the data is in the <code>ld-data</code> block of this file.</noscript></main>\n<script type=\"application/json\" id=\"ld-data\">{}</script>\n<script>\n{SCRIPT}</script>\n</body>\n</html>\n",
        embed(json)
    )
}

/// Errors of the page's script, shown in the page and marked for tests
/// (installed before the script that draws, so it sees that one's errors).
const ONERROR: &str = r#"window.onerror = function (msg, src, line, col) {
  var e = document.getElementById("ld-error");
  if (!e) {
    e = document.createElement("pre");
    e.id = "ld-error";
    e.className = "ld-error";
    document.body.insertBefore(e, document.body.firstChild);
  }
  e.textContent += "report script error: " + msg + " (line " + line + ":" + col + ")\n";
  document.body.dataset.ldError = "1";
};
"#;

/// JSON inside a `<script>` element: `<` only occurs inside JSON strings,
/// where `\u003c` means the same, so no `</script>` or `<!--` can end or
/// change the element.
fn embed(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// `ld check: kernel a, kernel b`, HTML-escaped.
fn title(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
    let mut names: Vec<String> = Vec::new();
    for r in v.as_array().into_iter().flatten() {
        if let Some(k) = r.get("kernel").and_then(|k| k.as_str()) {
            if !names.iter().any(|n| n == k) {
                names.push(k.to_string());
            }
        }
    }
    let t = match names.len() {
        0 => "ld check report".to_string(),
        1..=3 => format!("ld check: {}", names.join(", ")),
        n => format!("ld check: {}, ... ({n} kernels)", names[..3].join(", ")),
    };
    escape(&t)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_cannot_close_its_script_element() {
        let json = r#"[{"kernel":"</script><script>alert(1)</script><!--","races":[]}]"#;
        let html = render_json(json);
        let start = html.find("id=\"ld-data\">").unwrap();
        let end = start + html[start..].find("</script>").unwrap();
        let block = &html[start + "id=\"ld-data\">".len()..end];
        assert!(!block.contains('<'), "{block}");
        // The embedded text is still the same JSON.
        let back: serde_json::Value = serde_json::from_str(block).unwrap();
        assert_eq!(back[0]["kernel"], "</script><script>alert(1)</script><!--");
        assert!(html.contains("<title>ld check: &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--</title>"), "{html}");
    }

    #[test]
    fn a_page_without_reports() {
        let html = render_json("[]");
        assert!(html.contains("<title>ld check report</title>"));
        assert!(html.contains("<script type=\"application/json\" id=\"ld-data\">[]</script>"));
    }
}
