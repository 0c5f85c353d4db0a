//! Racing words named by element and field (`Race::places`): a buffer of
//! kernel structs, a `[u32]` buffer, a workgroup array of structs and one
//! of arrays, the same on the GPU and on the CPU.

use crate::support as common;

use ld::{RaceKind, Report, Runtime};

#[ld::kernels]
mod k {
    pub struct Body {
        pub pos: [f32; 2],
        pub mass: f32,
    }

    pub struct Cell {
        pub n: u32,
        pub body: Body,
    }

    /// The first lane of each of the two warps writes body 1's mass: a
    /// write-write race between warps on word 5 (`bodies[1].mass`).
    #[kernel(workgroup_size = 64)]
    pub fn mass(bodies: &mut [Body]) {
        let lid = local_index();
        if lid % 32 == 0 {
            bodies[1].mass = lid as f32 + 1.0;
        }
    }

    /// Both warps write the second coordinate of body 3 and bin 17.
    #[kernel(workgroup_size = 64)]
    pub fn pos(bodies: &mut [Body], hist: &mut [u32]) {
        let lid = local_index();
        if lid % 32 == 0 {
            bodies[3].pos[1] = lid as f32 + 2.0;
            hist[17] = lid + 5;
        }
    }

    /// Workgroup arrays: both warps write `cells[2].body.pos[0]` and
    /// `rows[1][3]`, then everything is copied out.
    #[kernel(workgroup_size = 64)]
    pub fn shared_places(out: &mut [f32]) {
        let cells = shared::<[Cell; 4]>();
        let rows = shared::<[[u32; 4]; 4]>();
        let lid = local_index();
        if lid % 32 == 0 {
            cells[2].body.pos[0] = lid as f32 + 3.0;
            rows[1][3] = lid + 7;
        }
        barrier();
        if lid == 0 {
            out[0] = cells[2].body.pos[0] + rows[1][3] as f32;
        }
    }
}

fn check(rt: &Runtime, which: &str) -> Report {
    let body = k::Body { pos: [0.5, 0.25], mass: 2.0 };
    let mut bodies = rt.upload(&[body; 8]).unwrap();
    let mut hist = rt.upload(&[0u32; 32]).unwrap();
    let mut out = rt.upload(&[0f32; 4]).unwrap();
    let grid = 1u32;
    let launch = match which {
        "mass" => k::mass.launch(rt, grid, &mut bodies),
        "pos" => k::pos.launch(rt, grid, &mut bodies, &mut hist),
        _ => k::shared_places.launch(rt, grid, &mut out),
    };
    launch.check().unwrap()
}

/// `(variable, places)` of every write-write race, on every backend, all equal.
fn places(which: &str) -> Vec<(String, Vec<String>)> {
    let got: Vec<Vec<(String, Vec<String>)>> = common::runtimes()
        .iter()
        .map(|rt| {
            let r = check(rt, which);
            println!("{r}\n{}", r.to_json());
            r.races.iter().filter(|x| x.kind == RaceKind::WriteWrite).map(|x| (x.variable.clone(), x.places.clone())).collect()
        })
        .collect();
    for g in &got[1..] {
        assert_eq!(g, &got[0], "GPU and CPU name the same places");
    }
    got[0].clone()
}

fn owned(v: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
    v.iter().map(|(n, p)| (n.to_string(), p.iter().map(|s| s.to_string()).collect())).collect()
}

#[test]
fn a_struct_field_of_a_buffer() {
    assert_eq!(places("mass"), owned(&[("bodies", &["bodies[1].mass"])]));
}

#[test]
fn an_array_field_and_a_scalar_buffer() {
    let mut got = places("pos");
    got.sort();
    assert_eq!(got, owned(&[("bodies", &["bodies[3].pos[1]"]), ("hist", &["hist[17]"])]));
}

#[test]
fn workgroup_arrays_of_structs_and_arrays() {
    let mut got = places("shared");
    got.sort();
    assert_eq!(got, owned(&[("cells", &["cells[2].body.pos[0]"]), ("rows", &["rows[1][3]"])]));
}

#[test]
fn places_are_serialized_and_absent_when_empty() {
    let r = check(&Runtime::cpu(), "mass");
    let json = r.to_json();
    assert!(json.contains("\"places\": [\n        \"bodies[1].mass\"\n      ]"), "{json}");
    assert!(json.contains("\"barriers\": []"), "{json}");
    let r = check(&Runtime::cpu(), "shared");
    let barriers: Vec<(u32, ld::Memory)> = r.barriers.iter().map(|b| (b.line, b.kind)).collect();
    assert_eq!(barriers.len(), 1, "{json}");
    assert_eq!(barriers[0].1, ld::Memory::Workgroup);
}
