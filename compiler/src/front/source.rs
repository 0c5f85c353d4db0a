//! A shader's errors as naga and rustc print them: the message, the file,
//! line and column, the source line and a caret under the construct.

use std::fmt::Write;

/// Why a shader cannot be checked: each error at its place in the source.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// The errors, in the order found (never empty).
    pub errors: Vec<(naga::Span, String)>,
}

impl Rejected {
    pub(crate) fn one(span: naga::Span, message: impl Into<String>) -> Rejected {
        Rejected { errors: vec![(span, message.into())] }
    }

    /// Every error, rendered against the shader's `text` read from `path`.
    pub fn render(&self, path: &str, text: &str) -> String {
        let mut out = String::new();
        for (span, message) in &self.errors {
            out += &render(path, text, *span, message);
        }
        out
    }
}

/// The 1-based line and column (in characters) where `span` starts, or
/// `None` for a span naga did not record.
pub fn line_column(text: &str, span: naga::Span) -> Option<(u32, u32)> {
    let range = span.to_range()?;
    let start = range.start.min(text.len());
    let before = text.get(..start)?;
    let line = before.matches('\n').count() as u32 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = text[line_start..start].chars().count() as u32 + 1;
    Some((line, column))
}

/// One error: `error: message`, ` --> path:line:column`, the line, a caret.
pub fn render(path: &str, text: &str, span: naga::Span, message: &str) -> String {
    let mut out = format!("error: {message}\n");
    let Some((line, column)) = line_column(text, span) else {
        let _ = writeln!(out, "  --> {path}");
        return out;
    };
    let source_line = text.lines().nth(line as usize - 1).unwrap_or("");
    let width = line.to_string().len();
    let pad = " ".repeat(width);
    let range = span.to_range().unwrap_or(0..0);
    let len = text.get(range).map_or(1, |s| s.lines().next().unwrap_or("").chars().count().max(1));
    let _ = writeln!(out, "{pad}--> {path}:{line}:{column}");
    let _ = writeln!(out, "{pad} |");
    let _ = writeln!(out, "{line} | {source_line}");
    let _ = writeln!(out, "{pad} | {}{}", " ".repeat(column as usize - 1), "^".repeat(len));
    out
}
