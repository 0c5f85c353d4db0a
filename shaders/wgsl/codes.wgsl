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
