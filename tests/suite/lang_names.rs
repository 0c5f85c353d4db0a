//! User names that are WGSL words. Every word WGSL reserves or gives a
//! meaning (naga's lists of keywords, reserved words and predeclared names,
//! and ld's own list of words with a meaning in context) that Rust accepts as
//! an identifier names a local, a helper function, a helper's parameter and a
//! struct field below; a sample of them names buffers, a uniform, workgroup
//! arrays and structs. ld renames them in every WGSL it emits; a name left as
//! is fails the build (naga rejects the WGSL at expansion) or shadows what ld
//! emits.
//!
//! Each kernel runs natively, in check mode (levels 1 and 2: the grid has
//! several workgroups) and in deterministic mode, on the GPU and on the CPU
//! twin; the outputs must be identical and equal what the host computes, and
//! check mode must find no race.
#![allow(non_snake_case, non_camel_case_types, non_upper_case_globals)]

use crate::support as common;

use common::{both, expect};
use ld::{Grid, Launch, Mode};

const N: usize = 256;
const WG: u32 = 64;
const MODES: [Mode; 3] = [Mode::Native, Mode::Check, Mode::Deterministic];

/// Runs a launch in `mode`; check mode must find no race.
fn run_in(launch: Launch<'_>, mode: Mode) {
    let run = launch.mode(mode).run().unwrap();
    if let Some(r) = run.report {
        assert!(!r.has_races(), "{r}");
    }
}

/// Calls `$then!` with every word (generated from `naga::keywords::wgsl`
/// and `ld-macros`' `CONTEXTUAL`, less Rust's keywords; a unit test of
/// `ld-macros` checks the namer renames each of them), the words ld's kernel
/// language calls a built-in function of its own in brackets (no helper may
/// take their names).
macro_rules! with_words {
    ($then:ident) => {
        $then! {
            [shared workgroup_id num_workgroups workgroup_size]
            alias case const_assert continuing default diagnostic discard enable requires switch var
            NULL active alignas alignof asm asm_fragment attribute auto cast catch class co_await
            co_return co_yield coherent column_major common compile compile_fragment concept
            const_cast consteval constexpr constinit debugger decltype delete demote
            demote_to_helper dynamic_cast explicit export extends external fallthrough filter
            finally friend from fxgroup get goto groupshared highp implements import inline
            instanceof interface layout lowp macro_rules mediump meta module mutable namespace new
            nil noexcept noinline nointerpolation non_coherent noncoherent noperspective null
            nullptr of operator package packoffset partition pass patch pixelfragment precise
            precision premerge protected public readonly regardless register reinterpret_cast
            require resource restrict set sizeof smooth snorm static_assert static_cast std
            subroutine target template this thread_local throw typedef typeid typename union unless
            unorm using varying volatile wgsl with writeonly bool i32 u32 f32 f16 array atomic vec2
            vec3 vec4 mat2x2 mat2x3 mat2x4 mat3x2 mat3x3 mat3x4 mat4x2 mat4x3 mat4x4 ptr sampler
            sampler_comparison texture_1d texture_2d texture_2d_array texture_3d texture_cube
            texture_cube_array texture_multisampled_2d texture_depth_multisampled_2d
            texture_external texture_storage_1d texture_storage_2d texture_storage_2d_array
            texture_storage_3d texture_depth_2d texture_depth_2d_array texture_depth_cube
            texture_depth_cube_array read write read_write function private workgroup uniform
            storage rgba8unorm rgba8snorm rgba8uint rgba8sint rgba16unorm rgba16snorm rgba16uint
            rgba16sint rgba16float rg8unorm rg8snorm rg8uint rg8sint rg16unorm rg16snorm rg16uint
            rg16sint rg16float r32uint r32sint r32float rg32uint rg32sint rg32float rgba32uint
            rgba32sint rgba32float bgra8unorm r8unorm r8snorm r8uint r8sint r16unorm r16snorm
            r16uint r16sint r16float rgb10a2unorm rgb10a2uint rg11b10ufloat bitcast all any select
            arrayLength abs acos acosh asin asinh atan atanh atan2 ceil clamp cos cosh
            countLeadingZeros countOneBits countTrailingZeros cross degrees determinant distance dot
            dot4U8Packed dot4I8Packed exp exp2 extractBits faceForward firstLeadingBit
            firstTrailingBit floor fma fract frexp insertBits inverseSqrt ldexp length log log2 max
            min mix modf normalize pow quantizeToF16 radians reflect refract reverseBits round
            saturate sign sin sinh smoothstep sqrt step tan tanh transpose trunc dpdx dpdxCoarse
            dpdxFine dpdy dpdyCoarse dpdyFine fwidth fwidthCoarse fwidthFine textureDimensions
            textureGather textureGatherCompare textureLoad textureNumLayers textureNumLevels
            textureNumSamples textureSample textureSampleBias textureSampleCompare
            textureSampleCompareLevel textureSampleGrad textureSampleLevel
            textureSampleBaseClampToEdge textureStore atomicLoad atomicStore atomicAdd atomicSub
            atomicMax atomicMin atomicAnd atomicOr atomicXor atomicExchange
            atomicCompareExchangeWeak pack4x8snorm pack4x8unorm pack4xI8 pack4xU8 pack4xI8Clamp
            pack4xU8Clamp pack2x16snorm pack2x16unorm pack2x16float unpack4x8snorm unpack4x8unorm
            unpack4xI8 unpack4xU8 unpack2x16snorm unpack2x16unorm unpack2x16float storageBarrier
            textureBarrier workgroupBarrier workgroupUniformLoad subgroupAdd subgroupExclusiveAdd
            subgroupInclusiveAdd subgroupAll subgroupAnd subgroupAny subgroupBallot
            subgroupBroadcast subgroupBroadcastFirst subgroupElect subgroupMax subgroupMin
            subgroupMul subgroupExclusiveMul subgroupInclusiveMul subgroupOr subgroupShuffle
            subgroupShuffleDown subgroupShuffleUp subgroupShuffleXor subgroupXor quadBroadcast
            quadSwapDiagonal quadSwapX quadSwapY i64 u64 f64 push_constant r64uint main align
            binding blend_src builtin compute early_depth_test fragment group id interpolate
            invariant location mesh must_use payload per_primitive size task vertex
            any_hit closest_hit incoming_payload miss ray_generation vertex_index instance_index
            position front_facing frag_depth sample_index sample_mask local_invocation_id
            local_invocation_index global_invocation_id
            subgroup_invocation_id subgroup_size subgroup_id num_subgroups primitive_index
            view_index clip_distances draw_index barycentric barycentric_no_perspective
            cull_primitive point_index line_indices triangle_indices vertex_count primitive_count
            vertices primitives mesh_task_size perspective linear flat center centroid sample first
            either error warning info off derivative_uniformity subgroup_uniformity
            dual_source_blending subgroups readonly_and_readwrite_storage_textures
            packed_4x8_integer_dot_product unrestricted_pointer_parameters pointer_composite_access
            wgpu_binding_array wgpu_int16 wgpu_mesh_shader wgpu_ray_query
            wgpu_ray_query_vertex_return wgpu_per_vertex immediate task_payload ray_payload
            incoming_ray_payload binding_array acceleration_structure ray_query i16 u16 coop_mat8x8
            coop_mat16x16 vec2i vec3i vec4i vec2u vec3u vec4u vec2f vec3f vec4f vec2h vec3h vec4h
            mat2x2f mat2x3f mat2x4f mat3x2f mat3x3f mat3x4f mat4x2f mat4x3f mat4x4f mat2x2h mat2x3h
            mat2x4h mat3x2h mat3x3h mat3x4h mat4x2h mat4x3h mat4x4h
        }
    };
}

macro_rules! word_kernels {
    ([$($b:ident)*] $($w:ident)*) => {
        /// The words in brackets, then the others.
        const LD_WORDS: &[&str] = &[$(stringify!($b)),*];
        const WORDS: &[&str] = &[$(stringify!($w)),*];

        /// Every word a local: declared, updated and read.
        #[ld::kernel(workgroup_size = 64)]
        fn word_locals(out: &mut [u32]) {
            let i = global_id().x;
            if i < out.len() {
                let mut acc = i;
                $(
                    let mut $b = acc * 3 + 1;
                    $b ^= acc >> 3;
                    acc += $b;
                )*
                $(
                    let mut $w = acc * 3 + 1;
                    $w ^= acc >> 3;
                    acc += $w;
                )*
                out[i] = acc;
            }
        }

        /// Every word a helper function whose parameter has the same name.
        #[ld::kernel(workgroup_size = 64)]
        fn word_helpers(out: &mut [u32]) {
            $(
                fn $w($w: u32) -> u32 {
                    $w * 5 + 3
                }
            )*
            let i = global_id().x;
            if i < out.len() {
                let mut acc = i;
                $(
                    acc = $w(acc) ^ i;
                )*
                out[i] = acc;
            }
        }

        #[ld::kernels]
        mod words {
            /// A struct named like a WGSL type, its fields like an access
            /// mode, an address space and a built-in function.
            pub struct vec3 {
                pub read: u32,
                pub storage: f32,
                pub atomicAdd: i32,
            }

            /// Named like the parameters and loop counter of check mode's
            /// accessors for a target of this type.
            pub struct a {
                pub v: u32,
                pub j: [u32; 2],
            }

            /// Every word a field. (Read only: as a check-mode target, a
            /// struct this large takes lavapipe minutes to compile.)
            pub struct workgroup {
                $(pub $b: u32,)*
                $(pub $w: u32,)*
            }

            const read_write: u32 = 7;

            /// A window helper, one instance per array it is called with.
            fn tally(w: &[u32], k: u32) -> u32 {
                w[k] + 1
            }

            /// Buffers named like access modes, an address space and a
            /// built-in function (`t` and `k`: the parameters of check
            /// mode's `ld_user`), a uniform named like an address space,
            /// workgroup arrays named like address spaces.
            #[kernel(workgroup_size = 64)]
            pub fn word_params(read: &[workgroup], write: &mut [vec3], storage: &mut [u32], t: &mut [u32], k: &mut [a], atomicAdd: &[AtomicU32], uniform: u32) {
                let private = shared::<[u32; 64]>();
                let function = shared::<[u32; 64]>();
                let i = global_id().x;
                let lid = local_index();
                private[lid] = i * 3;
                function[lid] = i + uniform;
                barrier();
                if i < storage.len() {
                    // Locals named like the helper's two instances.
                    let tally_1 = tally(&function[..], lid);
                    let tally = tally(&private[..], lid);
                    let e = read[i];
                    let mut sum = 0u32;
                    $(
                        sum = sum * 31 + e.$b;
                    )*
                    $(
                        sum = sum * 31 + e.$w;
                    )*
                    let mut v = write[i];
                    v.read += sum;
                    v.storage *= 2.0;
                    v.atomicAdd = -v.atomicAdd;
                    write[i] = v;
                    storage[i] = v.read + v.storage as u32 + v.atomicAdd as u32 + read_write + tally + tally_1 + uniform;
                    t[i] = i * 2 + 1;
                    let mut x = k[i];
                    x.v += i;
                    x.j[1] = x.j[0] ^ i;
                    k[i] = x;
                    atomicAdd[i % 4].fetch_add(1);
                }
            }
        }

        /// A `words::workgroup` whose fields, in order, are `i * 1000 + 1`,
        /// `i * 1000 + 2`, ...
        fn numbered(i: u32) -> words::workgroup {
            let mut n = i * 1000;
            let mut next = || {
                n += 1;
                n
            };
            words::workgroup { $($b: next(),)* $($w: next(),)* }
        }
    };
}

with_words!(word_kernels);

#[test]
fn every_word_names_a_local() {
    let want: Vec<u32> = (0..N as u32)
        .map(|i| {
            let mut acc = i;
            for _ in LD_WORDS.iter().chain(WORDS) {
                let mut w = acc.wrapping_mul(3).wrapping_add(1);
                w ^= acc >> 3;
                acc = acc.wrapping_add(w);
            }
            acc
        })
        .collect();
    for mode in MODES {
        let what = format!("word_locals, {mode:?}");
        let got = both(&what, |rt| {
            let mut out = rt.zeros::<u32>(N).unwrap();
            run_in(word_locals.launch(rt, Grid::cover(N as u64, WG), &mut out), mode);
            out.to_vec().unwrap()
        });
        expect(&what, &got, &want);
    }
}

#[test]
fn every_word_names_a_helper_and_its_parameter() {
    let want: Vec<u32> = (0..N as u32)
        .map(|i| {
            let mut acc = i;
            for _ in WORDS {
                acc = acc.wrapping_mul(5).wrapping_add(3) ^ i;
            }
            acc
        })
        .collect();
    for mode in MODES {
        let what = format!("word_helpers, {mode:?}");
        let got = both(&what, |rt| {
            let mut out = rt.zeros::<u32>(N).unwrap();
            run_in(word_helpers.launch(rt, Grid::cover(N as u64, WG), &mut out), mode);
            out.to_vec().unwrap()
        });
        expect(&what, &got, &want);
    }
}

#[test]
fn words_name_fields_structs_buffers_uniforms_and_workgroup_arrays() {
    use words::{a, vec3};
    let uniform = 11u32;
    let read: Vec<words::workgroup> = (0..N as u32).map(numbered).collect();
    let write0: Vec<vec3> = (0..N as u32).map(|i| vec3 { read: i * 7, storage: i as f32 + 0.5, atomicAdd: 3 - i as i32 }).collect();
    let k0: Vec<a> = (0..N as u32).map(|i| a { v: i ^ 5, j: [i * 9, 0] }).collect();
    let fields = (LD_WORDS.len() + WORDS.len()) as u32;
    let want_write: Vec<vec3> = (0..N as u32)
        .map(|i| {
            let sum = (1..=fields).fold(0u32, |s, n| s.wrapping_mul(31).wrapping_add(i * 1000 + n));
            let w = &write0[i as usize];
            vec3 { read: w.read.wrapping_add(sum), storage: w.storage * 2.0, atomicAdd: -w.atomicAdd }
        })
        .collect();
    let want_storage: Vec<u32> = (0..N as u32)
        .map(|i| {
            let v = &want_write[i as usize];
            let (tally, tally_1) = (i * 3 + 1, i + uniform + 1);
            // Wrapping, as kernels add: `atomicAdd` may be negative.
            [v.read, v.storage as u32, v.atomicAdd as u32, 7, tally, tally_1, uniform].iter().fold(0u32, |s, x| s.wrapping_add(*x))
        })
        .collect();
    let want_t: Vec<u32> = (0..N as u32).map(|i| i * 2 + 1).collect();
    let want_k: Vec<a> = k0.iter().enumerate().map(|(i, x)| a { v: x.v + i as u32, j: [x.j[0], x.j[0] ^ i as u32] }).collect();
    let want_bins = vec![(N / 4) as u32; 4];
    for mode in MODES {
        let what = format!("word_params, {mode:?}");
        let got = both(&what, |rt| {
            let r = rt.upload(&read).unwrap();
            let mut write = rt.upload(&write0).unwrap();
            let mut storage = rt.zeros::<u32>(N).unwrap();
            let mut t = rt.zeros::<u32>(N).unwrap();
            let mut k = rt.upload(&k0).unwrap();
            let mut bins = rt.zeros::<u32>(4).unwrap();
            let args = (&r, &mut write, &mut storage, &mut t, &mut k, &mut bins, uniform);
            run_in(rt.launch(words::word_params, Grid::cover(N as u64, WG), args), mode);
            vec![(write.to_vec().unwrap(), storage.to_vec().unwrap(), t.to_vec().unwrap(), k.to_vec().unwrap(), bins.to_vec().unwrap())]
        });
        let (write, storage, t, k, bins) = &got[0];
        expect(&format!("{what}: write"), write, &want_write);
        expect(&format!("{what}: storage"), storage, &want_storage);
        expect(&format!("{what}: t"), t, &want_t);
        expect(&format!("{what}: k"), k, &want_k);
        expect(&format!("{what}: atomicAdd"), bins, &want_bins);
    }
}
