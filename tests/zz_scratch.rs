mod common;
#[ld::kernel(workgroup_size = 64)]
fn lg(x: &[f32], out: &mut [f32]) {
    let i = global_id().x;
    if i < x.len() { out[2*i] = x[i].ln(); out[2*i+1] = x[i].log2(); }
}
#[test]
fn m() {
    let rt = common::gpu().unwrap();
    let n = 1<<16;
    let x: Vec<f32> = (0..n).map(|i| 0.01 + 1000.0 * (i as f32 / n as f32)).chain((0..n).map(|i| 0.5 + 1.5*(i as f32/n as f32))).collect();
    let dx = rt.upload(&x).unwrap();
    let mut o = rt.zeros::<f32>(2*x.len()).unwrap();
    rt.launch(lg, ld::Grid::cover(x.len() as u64, 64), (&dx, &mut o)).run().unwrap();
    let o = o.to_vec().unwrap();
    let (mut a_in, mut u_out) = ([0f32;2], [0u32;2]);
    for (i, &v) in x.iter().enumerate() {
        for k in 0..2 {
            let w = if k == 0 { v.ln() } else { v.log2() };
            let g = o[2*i+k];
            if (0.5..=2.0).contains(&v) { a_in[k] = a_in[k].max((g-w).abs()); } else { u_out[k] = u_out[k].max(common::ulps(g,w)); }
        }
    }
    eprintln!("inside abs {:?} (2^-21={}), outside ulps {:?}", a_in, 2f32.powi(-21), u_out);
}
