//! WGSL identifiers for Rust names: unique within their scope and never a
//! word WGSL reserves or gives a meaning.
//!
//! A user name equal to a WGSL keyword or reserved word does not parse, and
//! one equal to a predeclared name shadows it: a module-scope `read` turns
//! ld's own `var<storage, read>` into an error, a local `min` the next call
//! to `min`. naga keeps both lists for its WGSL writer
//! (`naga::keywords::wgsl`); [`CONTEXTUAL`] adds the words WGSL gives a
//! meaning only in context, which naga's lists leave out.

use std::collections::HashSet;
use std::sync::LazyLock;

/// Words with a meaning in some context that naga's `RESERVED` and
/// `BUILTIN_IDENTIFIERS` leave out: none of them breaks what ld emits
/// (attribute and built-in value names are not resolved as identifiers),
/// but a name that never equals a WGSL word cannot start to when ld emits
/// more, or when naga resolves more of them.
#[rustfmt::skip]
pub const CONTEXTUAL: &[&str] = &[
    // the entry point ld declares
    "main",
    // attributes
    "align", "binding", "blend_src", "builtin", "compute", "early_depth_test", "fragment", "group", "id",
    "interpolate", "invariant", "location", "mesh", "must_use", "payload", "per_primitive", "size", "task",
    "vertex", "workgroup_size", "any_hit", "closest_hit", "incoming_payload", "miss", "ray_generation",
    // built-in values
    "vertex_index", "instance_index", "position", "front_facing", "frag_depth", "sample_index", "sample_mask",
    "local_invocation_id", "local_invocation_index", "global_invocation_id", "workgroup_id", "num_workgroups",
    "subgroup_invocation_id", "subgroup_size", "subgroup_id", "num_subgroups", "primitive_index", "view_index",
    "clip_distances", "draw_index", "barycentric", "barycentric_no_perspective", "cull_primitive",
    "point_index", "line_indices", "triangle_indices", "vertex_count", "primitive_count", "vertices",
    "primitives", "mesh_task_size",
    // interpolation types and sampling
    "perspective", "linear", "flat", "center", "centroid", "sample", "first", "either",
    // diagnostics: severities and rules
    "error", "warning", "info", "off", "derivative_uniformity", "subgroup_uniformity",
    // extensions (`enable`, `requires`)
    "dual_source_blending", "subgroups", "readonly_and_readwrite_storage_textures",
    "packed_4x8_integer_dot_product", "unrestricted_pointer_parameters", "pointer_composite_access",
    "wgpu_binding_array", "wgpu_int16", "wgpu_mesh_shader", "wgpu_ray_query", "wgpu_ray_query_vertex_return",
    "wgpu_per_vertex",
    // naga's address spaces and types beyond the standard ones
    "immediate", "push_constant", "task_payload", "ray_payload", "incoming_ray_payload", "binding_array",
    "acceleration_structure", "ray_query", "i16", "u16", "coop_mat8x8", "coop_mat16x16",
    // predeclared type aliases
    "vec2i", "vec3i", "vec4i", "vec2u", "vec3u", "vec4u", "vec2f", "vec3f", "vec4f", "vec2h", "vec3h", "vec4h",
    "mat2x2f", "mat2x3f", "mat2x4f", "mat3x2f", "mat3x3f", "mat3x4f", "mat4x2f", "mat4x3f", "mat4x4f",
    "mat2x2h", "mat2x3h", "mat2x4h", "mat3x2h", "mat3x3h", "mat3x4h", "mat4x2h", "mat4x3h", "mat4x4h",
];

/// Every word a user name must not be: WGSL's keywords and reserved words,
/// its predeclared types, enumerants and built-in functions, and
/// [`CONTEXTUAL`].
pub fn reserved() -> &'static HashSet<&'static str> {
    static ALL: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
        use naga::keywords::wgsl::{BUILTIN_IDENTIFIERS, RESERVED};
        RESERVED.iter().chain(BUILTIN_IDENTIFIERS).chain(CONTEXTUAL).copied().collect()
    });
    &ALL
}

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
        let base = if name.is_empty() || name == "_" || reserved().contains(name) || name.starts_with("__") {
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

#[cfg(test)]
mod tests {
    use super::*;
    use naga::keywords::wgsl::{BUILTIN_IDENTIFIERS, RESERVED};

    fn every_word() -> impl Iterator<Item = &'static str> {
        RESERVED.iter().chain(BUILTIN_IDENTIFIERS).chain(CONTEXTUAL).copied()
    }

    #[test]
    fn the_list_holds_what_ld_emits_and_names_kernels_met() {
        let words = "read write read_write storage uniform workgroup private function vec2 vec3 f32 u32 \
            i32 bool array atomic atomicAdd atomicCompareExchangeWeak arrayLength select bitcast \
            workgroupBarrier storageBarrier countOneBits rgba8unorm target binding group builtin \
            compute workgroup_size global_invocation_id main vec3u";
        for w in words.split_whitespace() {
            assert!(reserved().contains(w), "`{w}` is not in the list");
        }
    }

    #[test]
    fn namer_renames_every_word_of_the_list() {
        let mut words = 0;
        for w in every_word() {
            let got = Namer::default().fresh(w);
            assert_ne!(got, w, "`{w}` kept");
            assert!(!reserved().contains(got.as_str()), "`{w}` became `{got}`, also a WGSL word");
            words += 1;
        }
        assert!(words > 450, "only {words} words");
        // Unique in one scope, beside user names equal to the renamed ones.
        let mut n = Namer::default();
        let mut seen = HashSet::new();
        for w in every_word().flat_map(|w| [format!("{w}_"), w.to_string(), w.to_string()]) {
            assert!(seen.insert(n.fresh(&w)), "`{w}` got a name already given");
        }
    }

    /// naga accepts every renamed word as a module-scope variable, a
    /// function, a struct and a struct member beside the declarations ld
    /// emits, which a plain word breaks (`var<storage, read>` once `read`
    /// is declared).
    #[test]
    fn renamed_words_are_wgsl_identifiers_that_shadow_nothing() {
        let module = |rename: bool| {
            let mut globals = Namer::default();
            let mut members = Namer::default();
            let fresh = |n: &mut Namer, w: &str| if rename { n.fresh(w) } else { w.to_string() };
            let mut out = String::from(
                "@group(0) @binding(0) var<storage, read> ld_in: array<u32>;\n\
                 @group(0) @binding(1) var<storage, read_write> ld_out: array<atomic<u32>>;\n\
                 var<workgroup> ld_tile: array<u32, 64>;\n\
                 var<private> ld_v: vec3<u32>;\n",
            );
            let mut fields = String::new();
            for w in ["read", "storage"].into_iter().chain(if rename { every_word().collect() } else { vec![] }) {
                let (var, func, ty) = (fresh(&mut globals, w), fresh(&mut globals, w), fresh(&mut globals, w));
                out += &format!("var<private> {var}: u32;\nfn {func}() {{}}\nstruct {ty} {{ x: u32 }}\n");
                fields += &format!("    {}: f32,\n", fresh(&mut members, w));
            }
            out += &format!(
                "struct LdAll {{\n{fields}}}\n\
                 @compute @workgroup_size(64)\n\
                 fn main(@builtin(local_invocation_index) ld_li: u32) {{\n    \
                 ld_tile[ld_li] = min(ld_in[ld_li], arrayLength(&ld_in)) + bitcast<u32>(select(1.0, 2.0, ld_li == 0u));\n    \
                 workgroupBarrier();\n    \
                 atomicAdd(&ld_out[0], ld_tile[0] + ld_v.x);\n}}\n"
            );
            out
        };
        let parse = |src: &str| naga::front::wgsl::parse_str(src).map_err(|e| e.emit_to_string(src));
        let renamed = module(true);
        let m = parse(&renamed).unwrap_or_else(|e| panic!("{e}"));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::default())
            .validate(&m)
            .unwrap_or_else(|e| panic!("{}", e.emit_to_string(&renamed)));
        // The control: the words as they are.
        assert!(parse(&module(false)).is_err(), "naga accepts `read` and `storage` declared beside `var<storage, read>`");
    }
}
