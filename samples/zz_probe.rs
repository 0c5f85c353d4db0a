// TEMPORARY probe (not to be committed).
use std::time::Instant;
fn main() {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default())).unwrap();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default())).unwrap();
    let n = 20000u32;
    let mut chain: Vec<u32> = (0..n).map(|i| if i + 1 < n { i + 1 } else { 0 }).collect();
    chain[0] = 1;
    use wgpu::util::DeviceExt;
    let data = device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: None, contents: bytemuck::cast_slice(&chain), usage: wgpu::BufferUsages::STORAGE });
    let out = device.create_buffer(&wgpu::BufferDescriptor { label: None, size: 4 * 64 * 64, usage: wgpu::BufferUsages::STORAGE, mapped_at_creation: false });
    let variants: &[(&str, &str)] = &[
        ("uniform", "u.flag == 1u"),
        ("lane", "(li % 2u) == u.flag"),
        ("lane_and_uniform", "(li < 64u) && u.flag == 1u"),
        ("any_and_uniform", "any(vec4<bool>(li < 64u)) && u.flag == 1u"),
        ("uniform_and_lane", "u.flag == 1u && li < 64u"),
    ];
    for (name, cond) in variants {
        let src = format!(
            "struct U {{ flag: u32, a: u32, b: u32, c: u32 }}
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<uniform> u: U;
@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wid: vec3<u32>) {{
  var acc = 0u;
  if {cond} {{
    var q = 1u;
    loop {{ if q == 0u {{ break; }} q = data[q]; acc += q; }}
  }}
  out[wid.x * 64u + li] = acc;
}}"
        );
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor { label: None, source: wgpu::ShaderSource::Wgsl(src.into()) });
        let pipe = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor { label: None, layout: None, module: &module, entry_point: Some("main"), compilation_options: Default::default(), cache: None });
        for flag in [0u32, 1u32] {
            let ub = device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: None, contents: bytemuck::cast_slice(&[flag, 0, 0, 0]), usage: wgpu::BufferUsages::UNIFORM });
            let bg = device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &pipe.get_bind_group_layout(0), entries: &[
                wgpu::BindGroupEntry { binding: 0, resource: data.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 1, resource: out.as_entire_binding() },
                wgpu::BindGroupEntry { binding: 2, resource: ub.as_entire_binding() },
            ] });
            let mut best = f64::MAX;
            for _ in 0..4 {
                let mut enc = device.create_command_encoder(&Default::default());
                { let mut p = enc.begin_compute_pass(&Default::default()); p.set_pipeline(&pipe); p.set_bind_group(0, &bg, &[]); p.dispatch_workgroups(64, 1, 1); }
                let t = Instant::now();
                queue.submit([enc.finish()]);
                device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
                best = best.min(t.elapsed().as_secs_f64() * 1e3);
            }
            println!("{name:20} flag={flag}: {best:.2} ms");
        }
    }
}
