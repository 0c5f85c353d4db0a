//! Bad launches get errors that name what is wrong and what to do.

use crate::support as common;

use ld::{Error, Grid, Runtime};

#[ld::kernel(workgroup_size = 64)]
fn copy(src: &[u32], dst: &mut [u32], n: u32) {
    let i = global_id().x;
    if i < n {
        dst[i] = src[i];
    }
}

#[ld::kernel(workgroup_size = 64)]
fn off_by_one(dst: &mut [u32]) {
    let i = global_id().x;
    dst[i + 1] = i;
}

#[ld::kernel(workgroup_size = 1)]
fn spin(flag: &[u32], out: &mut [u32]) {
    let mut x = 0u32;
    while flag[0] == 0 {
        x += 1;
    }
    out[0] = x;
}

use common::runtimes;

fn msg(r: ld::Result<ld::Run>) -> (Error, String) {
    let e = r.expect_err("launch should fail");
    let s = e.to_string();
    (e, s)
}

#[test]
fn wrong_argument_count_names_the_signature() {
    for rt in runtimes() {
        let src = rt.upload(&[1u32; 64]).unwrap();
        let (e, s) = msg(rt.launch(copy, 1u32, (&src,)).run());
        assert!(matches!(e, Error::ArgCount { expected: 3, given: 1, .. }), "{s}");
        assert!(s.contains("copy(src: &[u32], dst: &mut [u32], n: u32)"), "{s}");
    }
}

#[test]
fn wrong_element_type_is_named() {
    for rt in runtimes() {
        let src = rt.upload(&[1.0f32; 64]).unwrap();
        let mut dst = rt.zeros::<u32>(64).unwrap();
        let (e, s) = msg(rt.launch(copy, 1u32, (&src, &mut dst, 64u32)).run());
        assert!(matches!(e, Error::Arg { index: 0, param: "src", .. }), "{s}");
        assert!(s.contains("f32") && s.contains("u32"), "{s}");
    }
}

#[test]
fn written_buffer_must_be_passed_mut() {
    for rt in runtimes() {
        let src = rt.upload(&[1u32; 64]).unwrap();
        let dst = rt.zeros::<u32>(64).unwrap();
        let (e, s) = msg(rt.launch(copy, 1u32, (&src, &dst, 64u32)).run());
        assert!(matches!(e, Error::Arg { index: 1, param: "dst", .. }), "{s}");
        assert!(s.contains("&mut"), "{s}");
    }
}

#[test]
fn scalar_type_mismatch_and_literal_leniency() {
    for rt in runtimes() {
        let src = rt.upload(&[7u32; 64]).unwrap();
        let mut dst = rt.zeros::<u32>(64).unwrap();
        let (e, s) = msg(rt.launch(copy, 1u32, (&src, &mut dst, 1.5f32)).run());
        assert!(matches!(e, Error::Arg { index: 2, param: "n", .. }), "{s}");
        let (_, s) = msg(rt.launch(copy, 1u32, (&src, &mut dst, -1)).run());
        assert!(s.contains("i32"), "{s}");
        // A non-negative i32 literal is accepted for a u32 parameter.
        rt.launch(copy, 1u32, (&src, &mut dst, 64)).run().unwrap();
        assert_eq!(dst.to_vec().unwrap(), vec![7u32; 64]);
    }
}

#[test]
fn empty_buffers_and_bad_grids_are_rejected() {
    for rt in runtimes() {
        let src = rt.upload::<u32>(&[]).unwrap();
        let mut dst = rt.zeros::<u32>(64).unwrap();
        let (_, s) = msg(copy.launch(&rt, 1u32, &src, &mut dst, 0u32).run());
        assert!(s.contains("empty"), "{s}");
        let src = rt.upload(&[1u32; 64]).unwrap();
        let (e, s) = msg(copy.launch(&rt, 0u32, &src, &mut dst, 64u32).run());
        assert!(matches!(e, Error::Grid { .. }), "{s}");
        let (e, s) = msg(copy.launch(&rt, Grid([1 << 20, 1, 1]), &src, &mut dst, 64u32).run());
        assert!(matches!(e, Error::Grid { .. }) && s.contains("per dimension"), "{s}");
    }
}

#[test]
fn buffers_of_another_runtime_are_rejected() {
    let Some(gpu) = common::gpu() else { return };
    let cpu = common::cpu();
    let src = cpu.upload(&[1u32; 64]).unwrap();
    let mut dst = gpu.zeros::<u32>(64).unwrap();
    let (_, s) = msg(copy.launch(&gpu, 1u32, &src, &mut dst, 64u32).run());
    assert!(s.contains("another runtime"), "{s}");
}

#[test]
fn out_of_bounds_names_invocation_buffer_index_and_line() {
    let rt = common::cpu();
    let mut dst = rt.zeros::<u32>(64).unwrap();
    let (e, s) = msg(off_by_one.launch(&rt, 1u32, &mut dst).run());
    assert!(matches!(e, Error::Fault { kernel: "off_by_one", .. }), "{s}");
    assert!(s.contains("global id (63, 0, 0)"), "{s}");
    assert!(s.contains("index 64") && s.contains("`dst`") && s.contains("length 64"), "{s}");
    assert!(s.contains(&format!("line {}", line_of("dst[i + 1] = i;"))), "{s}");
    assert!(s.contains("partial results"), "{s}");
}

#[test]
fn non_termination_is_reported_on_the_cpu() {
    let rt = common::cpu();
    let flag = rt.zeros::<u32>(1).unwrap();
    let mut out = rt.zeros::<u32>(1).unwrap();
    let (e, s) = msg(spin.launch(&rt, 1u32, &flag, &mut out).max_loop_iterations(10_000).run());
    assert!(matches!(e, Error::Fault { .. }), "{s}");
    assert!(s.contains("never terminates") && s.contains("10000"), "{s}");
}

#[test]
fn buffer_write_keeps_length() {
    for rt in runtimes() {
        let mut b = rt.zeros::<u32>(4).unwrap();
        let e = b.write(&[1, 2, 3]).unwrap_err();
        assert!(matches!(e, Error::LengthMismatch { got: 4, expected: 3, .. }), "{e}");
        b.write(&[1, 2, 3, 4]).unwrap();
        assert_eq!(b.to_vec().unwrap(), vec![1, 2, 3, 4]);
    }
}

fn line_of(needle: &str) -> usize {
    include_str!("runtime_errors.rs").lines().position(|l| l.contains(needle) && !l.contains("line_of")).unwrap() + 1
}

/// Every workgroup writes its own 256 words.
#[ld::kernel(workgroup_size = 64)]
fn fill_own(out: &mut [u32]) {
    for k in 0..4u32 {
        out[workgroup_id().x * 256 + k * 64 + local_index()] = k;
    }
}

#[test]
fn check_mode_that_cannot_fit_names_the_limit_and_the_bytes() {
    for rt in runtimes() {
        // 256 workgroups x 256 words: 256 KiB of pages, four times the budget.
        let mut out = rt.zeros::<u32>(256 * 256).unwrap();
        let opts = ld::CheckOptions::default().memory_budget(64 << 10);
        let e = fill_own.launch(&rt, 256u32, &mut out).mode(ld::Mode::Check).check_options(opts).run().unwrap_err();
        let s = e.to_string();
        assert!(matches!(e, Error::CheckMemory { limit: 65536, .. }), "{s}");
        assert!(s.contains("memory budget of 65536 bytes") && s.contains("needs"), "{s}");
        // The same launch checks within a budget four times larger.
        let opts = ld::CheckOptions::default().memory_budget(1 << 20);
        let r = fill_own.launch(&rt, 256u32, &mut out).mode(ld::Mode::Check).check_options(opts).run().unwrap();
        assert!(!r.report.unwrap().has_races());
    }
}

#[test]
fn faults_are_typed() {
    let rt = common::cpu();
    let mut dst = rt.zeros::<u32>(64).unwrap();
    let (e, _) = msg(off_by_one.launch(&rt, 1u32, &mut dst).run());
    let line = line_of("dst[i + 1] = i;") as u32;
    assert!(
        matches!(e, Error::Fault { kind: ld::FaultKind::OutOfBounds { ref array, index: 64, len: 64, line: l, .. }, .. } if array == "dst" && l == line),
        "{e:?}"
    );
    let flag = rt.zeros::<u32>(1).unwrap();
    let mut out = rt.zeros::<u32>(1).unwrap();
    let (e, _) = msg(spin.launch(&rt, 1u32, &flag, &mut out).max_loop_iterations(500).run());
    assert!(matches!(e, Error::Fault { kind: ld::FaultKind::NonTermination { fuel: 500, .. }, .. }), "{e:?}");
}

#[test]
fn a_negative_i32_for_a_u32_says_so() {
    for rt in runtimes() {
        let src = rt.upload(&[7u32; 64]).unwrap();
        let mut dst = rt.zeros::<u32>(64).unwrap();
        let (e, s) = msg(rt.launch(copy, 1u32, (&src, &mut dst, -5)).run());
        assert!(matches!(e, Error::Arg { index: 2, .. }) && s.contains("-5, a negative `i32`") && s.contains("4294967295"), "{s}");
    }
}

#[test]
fn check_options_that_cannot_mean_what_they_say_are_errors() {
    let rt = common::cpu();
    let src = rt.upload(&[7u32; 64]).unwrap();
    for (opts, option) in [
        (ld::CheckOptions::default().max_rounds(0), "max_rounds"),
        (ld::CheckOptions::default().max_records(0), "max_records"),
        (ld::CheckOptions::default().copies(1), "copies"),
        (ld::CheckOptions::default().memory_budget(0), "memory_budget"),
    ] {
        let mut dst = rt.zeros::<u32>(64).unwrap();
        let (e, s) = msg(copy.launch(&rt, 1u32, &src, &mut dst, 64u32).mode(ld::Mode::Check).check_options(opts).run());
        assert!(matches!(e, Error::BadOption { option: o, .. } if o == option), "{s}");
        assert!(s.starts_with(&format!("CheckOptions::{option} = ")), "{s}");
        assert_eq!(dst.to_vec().unwrap(), vec![0u32; 64], "nothing ran");
    }
}

#[test]
fn an_adapter_name_that_matches_nothing_lists_the_adapters() {
    let Some(gpu) = common::gpu() else { return };
    let settings = ld::Settings { adapter: Some("no such adapter".into()), ..Default::default() };
    let e = Runtime::with_settings(&settings).unwrap_err();
    let s = e.to_string();
    assert!(matches!(e, Error::NoMatchingAdapter { ref found, .. } if !found.is_empty()), "{s}");
    let ld::Backend::Gpu { adapter } = gpu.backend() else { unreachable!() };
    let name = adapter.split(" (").next().unwrap();
    assert!(s.contains("LD_ADAPTER=\"no such adapter\"") && s.contains(name), "{s}");
    // Part of a real name, in any case, picks that adapter.
    let settings = ld::Settings { adapter: Some(name[..name.len().min(6)].to_uppercase()), ..Default::default() };
    assert!(Runtime::with_settings(&settings).unwrap().is_gpu());
}

#[ld::kernel(workgroup_size = 4)]
fn number_items(out: &mut [u32]) {
    let i = global_id().x + global_id().y * num_workgroups().x * 4;
    if i < out.len() {
        out[i] = i * 3;
    }
}

#[test]
fn cover_2d_runs_more_than_65535_workgroups() {
    let items = 4 * 65535 + 4 * 7 + 2;
    let g = Grid::cover_2d(items as u64, 4);
    assert_eq!(g.0, [65535, 2, 1]);
    for rt in runtimes() {
        let mut out = rt.zeros::<u32>(items).unwrap();
        number_items.launch(&rt, g, &mut out).run().unwrap();
        let got = out.to_vec().unwrap();
        assert!(got.iter().enumerate().all(|(i, &v)| v == i as u32 * 3), "{:?}", rt.backend());
        // One dimension past the device's limit is an error that says what to do.
        let (e, s) = msg(number_items.launch(&rt, Grid::cover(items as u64, 4), &mut out).run());
        assert!(matches!(e, Error::Grid { .. }) && s.contains("65535"), "{s}");
    }
}
