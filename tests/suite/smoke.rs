use ld::Runtime;

#[ld::kernel(workgroup_size = 64)]
fn vadd(a: &[f32], b: &[f32], out: &mut [f32], n: u32) {
    let i = global_id().x;
    if i < n {
        out[i] = a[i] + b[i];
    }
}

#[ld::kernel(workgroup_size = 64)]
fn reduce(input: &[u32], out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let lid = local_index();
    tile[lid] = input[global_id().x];
    barrier();
    let mut s = 32u32;
    while s > 0 {
        if lid < s {
            tile[lid] += tile[lid + s];
        }
        barrier();
        s >>= 1;
    }
    if lid == 0 {
        out[workgroup_id().x] = tile[0];
    }
}

#[test]
fn smoke() {
    for rt in [Runtime::new().unwrap(), Runtime::cpu()] {
        let n = 1000usize;
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
        let (da, db) = (rt.upload(&a).unwrap(), rt.upload(&b).unwrap());
        let mut out = rt.zeros::<f32>(n).unwrap();
        vadd.launch(&rt, ld::Grid::cover(n as u64, 64), &da, &db, &mut out, n as u32).run().unwrap();
        let got = out.to_vec().unwrap();
        assert_eq!(got[999], 2997.0, "{:?}", rt.backend());

        let input: Vec<u32> = (0..256).collect();
        let di = rt.upload(&input).unwrap();
        let mut o = rt.zeros::<u32>(4).unwrap();
        reduce.launch(&rt, 4u32, &di, &mut o).run().unwrap();
        let got = o.to_vec().unwrap();
        let want: Vec<u32> = (0..4).map(|w| (w * 64..w * 64 + 64).sum()).collect();
        assert_eq!(got, want, "{:?}", rt.backend());
    }
}
