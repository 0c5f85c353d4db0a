// Structs in an `#[ld::kernels]` module: a struct field that is an array
// and one that is another struct, struct literals, field access through a
// buffer element and through a helper's result, and a module const.
#[ld::kernels]
mod physics {
    pub struct Vec2 {
        pub x: f32,
        pub y: f32,
    }

    pub struct Body {
        pub pos: Vec2,
        pub vel: Vec2,
        pub history: [f32; 4],
        pub id: u32,
    }

    const DT: f32 = 0.01;

    fn advance(b: Body) -> Body {
        let pos = Vec2 {
            x: b.pos.x + b.vel.x * DT,
            y: b.pos.y + b.vel.y * DT,
        };
        let mut history = b.history;
        history[b.id % 4] = pos.x;
        Body {
            pos,
            vel: b.vel,
            history,
            id: b.id,
        }
    }

    #[kernel(workgroup_size = 64)]
    pub fn step(bodies: &mut [Body]) {
        let i = global_id().x;
        if i < bodies.len() {
            bodies[i] = advance(bodies[i]);
            bodies[i].vel.y -= 9.81 * DT;
        }
    }

    #[kernel(workgroup_size = 32)]
    pub fn energy(bodies: &[Body], out: &mut [f32]) {
        let i = global_id().x;
        if i < bodies.len() {
            let v = bodies[i].vel;
            out[i] = 0.5 * (v.x * v.x + v.y * v.y);
        }
    }
}
