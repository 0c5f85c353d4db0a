//! What goes wrong with a launch file, said so that its author can fix it.

use std::path::PathBuf;

/// An error in a launch file or in the shaders it names.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not TOML, or a field is unknown or of the wrong type
    /// (toml's message names the line, the column and the field).
    #[error("{}: {message}", path.display())]
    Toml {
        /// The launch file.
        path: PathBuf,
        /// toml's message, with the line and the field.
        message: String,
    },
    /// A field's value does not fit the file or the shader.
    #[error("{}: `{field}`: {message}", path.display())]
    Field {
        /// The launch file.
        path: PathBuf,
        /// The field, as a path in the file (`dispatch[1].bindings."0:2"`).
        field: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// A flag's value does not fit the shader (a launch made from the
    /// command line's flags).
    #[error("{flag}: {message}")]
    Flag {
        /// The flag: `--bind`, `--override`, ...
        flag: &'static str,
        /// What is wrong and what to do.
        message: String,
    },
    /// naga rejects a shader: its message, with the source line.
    #[error("{message}")]
    Shader {
        /// naga's message, rendered with the shader's path and line.
        message: String,
    },
    /// A dispatch could not be run: ld's error, which says what to do.
    #[error("{}", run_message(*dispatch, kernel, source))]
    Run {
        /// The dispatch's index in the launch file.
        dispatch: usize,
        /// Its shader and entry point.
        kernel: String,
        /// ld's error (boxed: it is large, and rare).
        source: Box<ld_runtime::Error>,
    },
    /// A shader uses a construct ld cannot check (yet): each at its line
    /// and column, with the source line.
    #[error("{message}")]
    Unsupported {
        /// The errors, rendered as rustc renders its own.
        message: String,
    },
}

impl From<ld_compiler::front::ShaderError> for LaunchError {
    fn from(e: ld_compiler::front::ShaderError) -> Self {
        use ld_compiler::front::ShaderError;
        match e {
            ShaderError::Read { path, source } => LaunchError::Read { path, source },
            ShaderError::Invalid { message } => LaunchError::Shader { message },
            ShaderError::Unsupported { message } => LaunchError::Unsupported { message },
            other => LaunchError::Shader { message: other.to_string() },
        }
    }
}

/// A dispatch's error: a shader's, already rendered as rustc renders
/// errors (`error: ...`, the line, a caret), with the dispatch as a note;
/// any other after the dispatch.
fn run_message(dispatch: usize, kernel: &str, source: &ld_runtime::Error) -> String {
    let text = source.to_string();
    match text.strip_prefix("error: ") {
        Some(rendered) => format!("{}   = note: in dispatch {dispatch} ({kernel})", rendered),
        None => format!("dispatch {dispatch} ({kernel}): {text}"),
    }
}
