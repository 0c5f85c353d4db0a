// What the engine's kernels and the probe share.
//
// An invocation's code in `bits` bits (its number and the number's
// complement), and whether an or of codes holds two invocations or more
// (`abi::lanes::code`, `abi::lanes::many`): the lane tags of the engine
// (`engine/tags.wgsl`) and the probe's (`probe.wgsl`).
fn ld_lane_code(lane: u32, bits: u32) -> u32 {
    let m = (1u << bits) - 1u;
    let l = lane & m;
    return l | ((~l & m) << bits);
}

fn ld_lanes_many(v: u32, bits: u32) -> bool {
    return (v & (v >> bits) & ((1u << bits) - 1u)) != 0u;
}

// lavapipe ends every loop of an invocation once its loops have run 65535
// iterations in all (gallivm's loop limiter, shared by every loop of a
// shader, never reset), so a result computed after that cannot be trusted.
// A last loop needs two iterations and a count NIR cannot know
// (`canary`, always 2): if the limiter stopped it after one, some loop was
// cut short.
fn ld_loops_cut() -> bool {
    var i = 0u;
    loop {
        i += 1u;
        if i >= ld_cfg.canary {
            break;
        }
    }
    return i < ld_cfg.canary;
}
