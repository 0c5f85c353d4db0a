// Race records, into the slot's record area.

// ------------------------------------------------------------ records

fn ld_record(kind: u32, t: u32, a: u32, b: u32, k: u32) {
    ld_record_at(atomicAdd(&ld_rec[LD_H_COUNT], 1u), kind, t, a, b, k);
}

// Record slot i, where the buffer has it: a race of this workgroup's
// region (a summary's first slot too, `ld_record_summary`).
fn ld_record_at(i: u32, kind: u32, t: u32, a: u32, b: u32, k: u32) {
    if i < ld_cfg.rec_cap {
        let o = ld_cfg.rec_off + i * LD_R_WORDS;
        ld_val[o + LD_R_KIND] = kind;
        ld_val[o + LD_R_TARGET] = t;
        ld_val[o + LD_R_WG] = ld_wg;
        ld_val[o + LD_R_A] = a;
        ld_val[o + LD_R_B] = b;
        ld_val[o + LD_R_WORD] = k;
        ld_val[o + LD_R_REGION] = ld_region;
        ld_val[o + LD_R_ROUND] = ld_cfg.round;
    }
}
