//! WGSL identifiers for Rust names: unique within their scope and never a
//! WGSL keyword or reserved word.

use std::collections::HashSet;

const RESERVED: &[&str] = &[
    // keywords
    "alias", "break", "case", "const", "const_assert", "continue", "continuing", "default", "diagnostic", "discard", "else", "enable",
    "false", "fn", "for", "if", "let", "loop", "override", "requires", "return", "struct", "switch", "true", "var", "while",
    // types and builtin functions that read as names
    "array", "atomic", "bool", "f16", "f32", "i32", "u32", "mat2x2", "mat3x3", "mat4x4", "ptr", "sampler", "vec2", "vec3", "vec4",
    "select", "min", "max", "abs", "clamp", "sqrt", "exp", "exp2", "log", "log2", "pow", "sin", "cos", "tan", "floor", "ceil",
    "round", "trunc", "fract", "fma", "sign", "dot", "cross", "length", "distance", "normalize", "mix", "step", "bitcast", "all", "any",
    "arrayLength", "workgroupBarrier", "storageBarrier", "main",
    // reserved words
    "NULL", "Self", "abstract", "active", "alignas", "alignof", "as", "asm", "asm_fragment", "async", "attribute", "auto", "await",
    "become", "binding_array", "cast", "catch", "class", "co_await", "co_return", "co_yield", "coherent", "column_major", "common",
    "compile", "compile_fragment", "concept", "const_cast", "consteval", "constexpr", "constinit", "crate", "debugger", "decltype",
    "delete", "demote", "demote_to_helper", "do", "dynamic_cast", "enum", "explicit", "export", "extends", "extern", "external",
    "fallthrough", "filter", "final", "finally", "friend", "from", "fxgroup", "get", "goto", "groupshared", "highp", "impl", "implements",
    "import", "inline", "instanceof", "interface", "layout", "lowp", "macro", "macro_rules", "match", "mediump", "meta", "mod", "module",
    "move", "mut", "mutable", "namespace", "new", "nil", "noexcept", "noinline", "nointerpolation", "non_coherent", "noncoherent",
    "noperspective", "null", "nullptr", "of", "operator", "package", "packoffset", "partition", "pass", "patch", "pixelfragment",
    "precise", "precision", "premerge", "priv", "protected", "pub", "public", "readonly", "ref", "regardless", "register",
    "reinterpret_cast", "require", "resource", "restrict", "self", "set", "shared", "sizeof", "smooth", "snorm", "static",
    "static_assert", "static_cast", "std", "subroutine", "super", "target", "template", "this", "thread_local", "throw", "trait", "try",
    "type", "typedef", "typeid", "typename", "typeof", "union", "unless", "unorm", "unsafe", "unsized", "use", "using", "varying",
    "virtual", "volatile", "wgsl", "where", "with", "writeonly", "yield",
];

/// Hands out identifiers: `name`, then `name_1`, `name_2`, ... on reuse.
#[derive(Clone, Default)]
pub struct Namer {
    used: HashSet<String>,
}

impl Namer {
    /// Claims one of ld's own names as is.
    pub fn reserve(&mut self, name: &str) {
        self.used.insert(name.to_string());
    }

    /// A name for a user identifier; ld's own prefix (`ld_`, `LD_`) is
    /// kept free for what ld declares.
    pub fn fresh(&mut self, name: &str) -> String {
        let base = if name.is_empty() || name == "_" || RESERVED.contains(&name) || name.starts_with("__") {
            format!("{}_", name.trim_start_matches('_'))
        } else if name.to_ascii_lowercase().starts_with("ld_") {
            format!("u{name}")
        } else {
            name.to_string()
        };
        let base = if base == "_" { "v_".to_string() } else { base };
        if self.used.insert(base.clone()) {
            return base;
        }
        (1..).map(|i| format!("{base}_{i}")).find(|n| self.used.insert(n.clone())).unwrap()
    }
}
