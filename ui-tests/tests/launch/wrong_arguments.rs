//! A kernel's typed launch takes its parameters' types: a buffer of the
//! wrong element type, a read-only borrow of a buffer the kernel writes,
//! and a missing argument are each a compile error at the call.

#[ld::kernel(workgroup_size = 64)]
fn scale(data: &mut [f32], factor: f32) {
    let i = global_id().x;
    data[i] = data[i] * factor;
}

fn main() -> ld::Result<()> {
    let rt = ld::Runtime::cpu();
    let mut words = rt.zeros::<u32>(64)?;
    scale.launch(&rt, 1u32, &mut words, 2.0).run()?;
    let floats = rt.zeros::<f32>(64)?;
    scale.launch(&rt, 1u32, &floats, 2.0).run()?;
    let mut floats = floats;
    scale.launch(&rt, 1u32, &mut floats).run()?;
    Ok(())
}
