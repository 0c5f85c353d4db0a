//! The contract between the instrumented WGSL that `ld-macros` emits, the
//! engine's shaders in `wgsl/` and the host (`ld-runtime`): configuration
//! words, binding numbers, flag bits and memory layouts, each defined once
//! here. The Rust structs are what the host uploads; their WGSL twins are
//! generated from the same field lists (`Config::WGSL`), so the two cannot
//! drift apart.

/// Declares a `#[repr(C)]` struct of `u32` fields and its WGSL definition.
macro_rules! abi_struct {
    ($(#[$m:meta])* pub struct $name:ident as $wgsl:literal { $($(#[$fm:meta])* pub $f:ident,)* } $(@tail $tail:literal)?) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $name {
            $($(#[$fm])* pub $f: u32,)*
        }

        impl $name {
            /// The struct in WGSL.
            pub const WGSL: &'static str = concat!("struct ", $wgsl, " {\n", $("    ", stringify!($f), ": u32,\n",)* $($tail,)? "}\n");
            /// Its size in 32-bit words.
            pub const WORDS: usize = [$(stringify!($f)),*].len();
        }
    };
}

abi_struct! {
    /// One dispatch of an instrumented kernel, or of an engine shader
    /// (`@group(1) @binding(CONFIG)`, a uniform buffer), followed by
    /// [`TARGETS_MAX`] [`TargetConfig`]s: one per privatized memory, then
    /// zeros. Uniform, because the configuration is the same for every
    /// invocation of a dispatch: a device loads a word of it once for all
    /// (lavapipe once per SIMD group, where a storage word is loaded lane
    /// by lane), so invocations read it where they use it and hold no
    /// copy of the targets' part.
    pub struct Config as "LdConfig" {
        /// [`MODE_CHECK`] or [`MODE_DETERMINISTIC`].
        pub mode,
        /// Invocations per warp (a level-2 unit).
        pub warp_size,
        /// Copies per workgroup this round (`M`): warp `w` works on copy
        /// `(w / copy_div) % copies`.
        pub copies,
        /// Warps per copy this round: the divisor of that formula.
        pub copy_div,
        /// Memory-adaptive round (1-based), carried into race records.
        pub round,
        /// The dispatch's grid in workgroups, along x.
        pub grid_x,
        /// The grid along y.
        pub grid_y,
        /// The grid along z.
        pub grid_z,
        /// First linear workgroup of this batch, and the batch's size: the
        /// batch's workgroup `i` runs in scratch slot `i`.
        pub wg_offset,
        /// Workgroups in this batch (scratch slots in use).
        pub wg_count,
        /// Race records kept.
        pub rec_cap,
        /// The values buffer starts with the table of regions seen, then
        /// the race records (from `rec_off`); the slots start at `val_base`.
        pub rec_off,
        /// Where the slots start in the values buffer.
        pub val_base,
        /// Barriers in the kernel (`NONE_BARRIER` = this count means "no
        /// barrier": the kernel's start or end).
        pub barriers,
        /// Role pages of an entry, and the first copy's page in it (the
        /// base is page 0). Storage entries add a written-flag page per copy
        /// after them (`set_pages + c`), and in check mode an access page
        /// (`set_pages + copies`, [`Roles::reads`]).
        pub set_pages,
        /// The first copy's role page in an entry ([`Roles::p`]).
        pub role_p,
        /// Scratch words per slot, in the values and the meta buffers.
        pub slot_values,
        /// Scratch words per slot in the meta buffer.
        pub slot_meta,
        /// The slot's two lists of dirty entries (`target << 24 | entry`),
        /// `list_cap` words each, in its values area.
        pub list_off,
        /// Entries each dirty list holds (the slot's entries, all targets').
        pub list_cap,
        /// Check mode: the slot's list of the words a region's check visits
        /// (`list_cap` pages of words, in its values area): the words of
        /// the listed entries that the epoch accessed ([`TargetConfig::touched_off`]).
        pub items_off,
        /// Entries of all targets (their flat numbering, see `first_entry`).
        pub entries_total,
        /// Unique to this dispatch: marks the words written in it.
        pub stamp,
        /// Level-1 page records: capacity, and where the record headers
        /// start in the level-1 meta buffer (after the page list heads).
        pub l1_cap,
        /// Where the level-1 record headers start in the level-1 meta
        /// buffer.
        pub l1_headers,
        /// Level 1: the list of the pages with records, each as its first
        /// record (after the record headers, `l1_cap` words): the sweeps
        /// visit these pages, not every record (most records of a page
        /// many workgroups publish are not its list's head).
        pub l1_pages,
        /// Engine shaders: the target they work on.
        pub target_id,
        /// Always 2: the iterations of the loop that tells whether the device
        /// cut loops short (see `engine/state.wgsl`).
        pub canary,
        /// Tag pages per copy (1, or 0 in deterministic mode at warp size
        /// 1): which lanes of the copy wrote and read each word in the
        /// region ([`lanes`], [`TargetConfig::tags_off`]).
        pub tag_groups,
        /// Deterministic mode at one invocation per warp: the slot's pool
        /// of copy blocks (see [`TargetConfig::pooled`]), its capacity in
        /// blocks and where it starts in the slot's values area.
        pub pool_cap,
        /// Where the pool starts in the slot's values area.
        pub pool_off,
        /// The targets whose configurations follow (the rest of the
        /// [`TARGETS_MAX`] are zeros); also pads the head to a multiple of
        /// 16 bytes, where a uniform buffer's array must start.
        pub targets,
    }
    @tail "    t: array<LdTarget, 32>,\n"
}

abi_struct! {
    /// One privatized memory: a workgroup array (direct-mapped entries, one
    /// per 64-word page) or a storage buffer (entries direct-mapped too when
    /// every page fits, else in a hash table of pages, allocated on a
    /// workgroup's first write).
    pub struct TargetConfig as "LdTarget" {
        /// Logical words of the memory.
        pub words,
        /// Entries per slot (shared: pages; storage: table capacity, a power of two).
        pub entries,
        /// The flat number of its first entry.
        pub first_entry,
        /// Pages per entry (roles, and written flags for storage).
        pub pages,
        /// Inside a slot's values area: the role pages (role-major), the
        /// entries' flags, their access marks and (storage) changed words
        /// and key mirrors.
        pub values_off,
        /// The entries' flags ([`flag`]), a word per entry.
        pub flags_off,
        /// The entries' access marks, one word or one per copy an entry
        /// ([`Roles::marks`]).
        pub touch_off,
        /// Storage: the plain mirror of the table's keys, a word per entry.
        pub mirror_off,
        /// Storage, deterministic mode: per entry a word that a fold sets
        /// where it changed a word of the entry (`ld_changed_addr`), so
        /// that publishing looks at no word of the others.
        pub changed_off,
        /// Storage: the table's keys inside the slot's meta area.
        pub keys_off,
        /// Storage: the heads of the level-1 page lists, one word per page.
        pub heads_off,
        /// Storage: 1 when entry e is page e (no hashing, nothing claimed).
        pub direct,
        /// The entries' lane tags inside the slot's meta area (atomic
        /// words), page `copy * entries + e` ([`lanes`]); in
        /// deterministic mode without tags, each word's last writer
        /// ([`Roles::last_writers`]), page e.
        pub tags_off,
        /// Check mode: per entry a page in the slot's meta area whose word
        /// w holds a bit per copy that accessed word w in the epoch (a bit
        /// for all, past [`MASK_COPIES`] copies): the sweep visits those
        /// words alone, and of each only those copies (the others cannot
        /// have raced and hold the base). Past [`MASK_COPIES`] copies
        /// ([`Roles::epoch_pages`]) a page per copy and entry follows them,
        /// page `entries + copy * entries + e`, whose word w is nonzero
        /// where the copy accessed word w in the epoch.
        pub touched_off,
        /// Storage, deterministic mode at one invocation per warp
        /// ([`Roles::last_writers`]): an entry holds only its base page;
        /// each copy's page of it is a block of the slot's pool, taken at
        /// the copy's first write to the entry in the epoch ([`pool`]).
        /// `ptr_off`: per entry and copy, the block (+ 1) it took
        /// (`ptr_off + e * copies + c`), in the slot's values area.
        pub pooled,
        /// Storage, pooled: where the copies' block pointers start.
        pub ptr_off,
    }
}

/// The pool of copy blocks ([`TargetConfig::pooled`]): hundreds of copies
/// (one per invocation) each hold only the pages they wrote, not a page of
/// every entry the workgroup touched. Block b (from 1) is a copy page, a
/// written-flag page and a header (one more than the address of the
/// pointer that took it, and the dispatch's stamp), each in an array of
/// its own from `Config::pool_off`. A block is the copy's where the header says so
/// (a pointer left from an earlier epoch or dispatch is not); blocks are
/// taken in order and all given back where a barrier ends every storage
/// epoch.
pub mod pool {
    use super::PAGE;
    /// Words of the pool's header array per block.
    pub const HEADER: u32 = 2;
    /// Words one block takes in a slot.
    pub const BLOCK_WORDS: u32 = 2 * PAGE + HEADER;
}

/// The mode of a dispatch: check mode, which finds races.
pub const MODE_CHECK: u32 = 0;
/// The mode of a dispatch: deterministic mode, which folds the copies'
/// writes in a fixed order.
pub const MODE_DETERMINISTIC: u32 = 1;

/// Words per page: the unit of allocation, of dirty tracking, and of
/// level-1 records.
pub const PAGE: u32 = 64;
// Level 1's records hold two bits per word of a page in four words
// (`l1::ACCESS`; `ld_link_record` clears them), and its sweeps move pages
// as vec4s (`LD_LANES` in level1.wgsl is `LD_PAGE / 4`).
const _: () = assert!(PAGE.is_multiple_of(4) && PAGE <= 16 * (l1::WORDS - l1::ACCESS) && l1::WORDS - l1::ACCESS == 4);
/// Invocations per warp when a check names none (a warp on NVIDIA
/// hardware: lanes that run in lockstep, whose mutual races value comparison
/// cannot see), or the largest power of two in a smaller workgroup.
pub const DEFAULT_WARP_SIZE: u32 = 32;
/// No value: no unit, entry, copy or barrier (`LD_NONE` in WGSL).
pub const NONE: u32 = u32::MAX;
/// Workgroups per grid dimension every WebGPU device supports (its
/// default `maxComputeWorkgroupsPerDimension`): the engine's dispatches
/// spread their workgroups over y past it (`LD_MAX_X` in WGSL).
pub const MAX_WORKGROUPS_PER_DIMENSION: u32 = 65535;

/// The grid of a dispatch of `count` workgroups in a line: along x, then
/// over y past [`MAX_WORKGROUPS_PER_DIMENSION`] (the engine's shaders take
/// workgroup `wid.x + wid.y * nwg.x` and skip those past `count`).
pub fn spread(count: u32) -> [u32; 3] {
    [count.min(MAX_WORKGROUPS_PER_DIMENSION), count.div_ceil(MAX_WORKGROUPS_PER_DIMENSION), 1]
}

/// The WGSL `override` constants the kernel variants are specialized by:
/// declared in WGSL from here ([`Override::decl`]) and set by the
/// runtime's pipelines by the same constant ([`Override::set`]), so that
/// the shader and the host cannot name one differently.
///
/// [`Override::decl`]: overrides::Override::decl
/// [`Override::set`]: overrides::Override::set
pub mod overrides {
    /// One `override` constant: its name and WGSL type.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Override {
        /// The name in WGSL (and in the pipeline's constants).
        pub name: &'static str,
        bool: bool,
    }

    impl Override {
        const fn u32(name: &'static str) -> Self {
            Override { name, bool: false }
        }

        const fn bool(name: &'static str) -> Self {
            Override { name, bool: true }
        }

        /// Its WGSL declaration, defaulting to zero (false).
        pub fn decl(self) -> String {
            let (ty, zero) = if self.bool { ("bool", "false") } else { ("u32", "0u") };
            format!("override {}: {ty} = {zero};", self.name)
        }

        /// A WGSL constant of the same name and value `v`, for a variant
        /// that does not vary it.
        pub fn fixed(self, v: u32) -> String {
            if self.bool {
                format!("const {}: bool = {};", self.name, v != 0)
            } else {
                format!("const {}: u32 = {v}u;", self.name)
            }
        }

        /// The pipeline constant that sets it to `v` (a bool: `v != 0`).
        pub fn set(self, v: u32) -> (&'static str, f64) {
            (self.name, if self.bool { (v != 0) as u32 as f64 } else { v as f64 })
        }
    }

    /// The storage targets whose tables are direct-mapped, a bit each
    /// (instrumented and folded kernels): a direct table's accesses
    /// compile without the hash table's probes.
    pub const DIRECT: Override = Override::u32("LD_DIRECT");
    /// The storage targets the launch leaves in place, a bit each (every
    /// variant but the native one): each invocation accesses only its own
    /// element, so they are read and written directly, unchecked.
    pub const IN_PLACE: Override = Override::u32("LD_IN_PLACE");
    /// Check mode with more copies than a mask holds
    /// ([`super::MASK_COPIES`]): races are recorded one by one, not
    /// summarized (the instrumented kernel; a constant in the folded one).
    pub const WIDE: Override = Override::bool("LD_WIDE");
    /// Deterministic mode keeps each word's last writer (the folded
    /// kernel at one invocation per warp; a constant in the instrumented
    /// one).
    pub const DET_WRITERS: Override = Override::bool("LD_DET_WRITERS");
    /// The probe defers writes to the words of workgroup arrays an earlier
    /// run saw shared (deterministic mode).
    pub const DEFER: Override = Override::bool("LD_DEFER");
    /// The probe notes the words of workgroup arrays it saw shared.
    pub const FIND: Override = Override::bool("LD_FIND");
    /// The storage targets whose writes the probe defers, a bit each
    /// (deterministic mode): no tags, a log, stored by `ld_resolve`.
    pub const DEFER_STORAGE: Override = Override::u32("LD_DEFER_STORAGE");
    /// The workgroup arrays the probe defers whole, a bit per target
    /// (deterministic mode): no tags, every write to the log, folded at the
    /// next workgroup barrier.
    pub const DEFER_ARRAYS: Override = Override::u32("LD_DEFER_ARRAYS");
}

/// Bindings of `@group(GROUP)`: the engine's buffers. The kernel's own
/// parameters keep `@group(0)` exactly as in the native shader.
pub mod binding {
    /// The bind group of the engine's buffers.
    pub const GROUP: u32 = 1;
    /// The dispatch's [`super::Config`] (a uniform buffer).
    pub const CONFIG: u32 = 0;
    /// The header: counters and status (atomic words).
    pub const RECORDS: u32 = 1;
    /// Regions seen, race records, then per-slot scratch: the entries' role
    /// pages, flags, marks, key mirrors and dirty lists (plain words).
    pub const VALUES: u32 = 2;
    /// Per-slot scratch: the storage tables' keys (claimed atomically).
    pub const META: u32 = 3;
    /// Level 1: list heads and record headers (atomic).
    pub const L1_META: u32 = 4;
    /// Level 1: each record's 64 words (a workgroup's final page).
    pub const L1_VALUES: u32 = 5;
    /// Level 1: the union of each page, kept at the page's head record.
    pub const L1_UNION: u32 = 6;
    /// Bindings of the group in an instrumented kernel.
    pub const COUNT: u32 = 7;
    /// Engine shaders: the target's user buffer.
    pub const USER: u32 = 7;
}

/// Entry flags.
pub mod flag {
    /// Every role's words are stored (no mask or fallback needed).
    pub const MAT: u32 = 1;
    /// The base role holds the memory's value (else: the user's buffer).
    pub const BVALID: u32 = 2;
    /// Accessed since the memory's epoch began (check mode and
    /// deterministic mode with lane tags list the pages their reads touch
    /// too, so the sweep at the barrier checks and clears their tags).
    pub const DIRTY1: u32 = 4;
    /// Check mode, after the kernel's last region: the base holds the
    /// words the epoch touched (those with a touched mask), the user's
    /// buffer the others (`ld_final_base`). The last check visits only the
    /// touched words: storing the whole base there would make a kernel
    /// whose workgroups each touch a few words of hundreds of pages (bfs's
    /// expand) check every word of every page.
    pub const BPART: u32 = 8;
    /// Written in this dispatch (direct-mapped storage entries: the entry
    /// holds its page; hashed ones know it by their key).
    pub const USED: u32 = 16;
    /// Accessed in the current region (its mark, seen by `ld_scan`); the
    /// settling at the region's end clears it. Where a region's barrier
    /// does not end an entry's epoch (a storage entry at a `barrier()`),
    /// the check visits no word of an entry without it: a word no lane
    /// tagged in the region can have raced in it with nothing, and there
    /// is nothing to commit (`ld_step_gather`).
    pub const HERE: u32 = 32;
    /// Deterministic mode with lane tags, up to [`COPY_BITS`] copies: bit
    /// `COPIES_SHIFT + c`, copy c accessed the entry in its epoch (from
    /// its mark, [`super::Roles::marks`]), so the fold at the epoch's end
    /// visits those copies alone; with more copies, every copy.
    pub const COPIES_SHIFT: u32 = 16;
    /// Copies that bits from [`COPIES_SHIFT`] can name.
    pub const COPY_BITS: u32 = 16;
}

/// The header buffer's words.
pub mod header {
    /// Race record slots taken (kept or not: past `Config::rec_cap` they
    /// are counted, not written).
    pub const COUNT: u32 = 0;
    /// `status::*` bits.
    pub const STATUS: u32 = 1;
    /// Lowest linear workgroup that set a status bit.
    pub const STATUS_WG: u32 = 2;
    /// Bit `t`: target `t`'s table overflowed.
    pub const STATUS_TARGETS: u32 = 3;
    /// Level-1 page records taken.
    pub const L1_COUNT: u32 = 4;
    /// Level 1: the pages with records (their list: `Config::l1_pages`).
    pub const L1_PAGES: u32 = 5;
    /// Race records that [`super::record::SUMMARY`] slots stand for beyond the
    /// slots they take, wrapping (a summary of one race adds -1): `COUNT`
    /// counts slots, `COUNT + EXTRA` the race records, exactly, kept or not.
    pub const EXTRA: u32 = 6;
    /// The probe: bit `t`, target `t` had a word two invocations shared,
    /// one writing (deterministic mode defers such a storage target's
    /// writes in the next run, [`super::probe::STORAGE_LOG`], and such a
    /// workgroup array's whole, [`super::probe::LOG`]).
    pub const SHARED_TARGETS: u32 = 7;
    /// Words of the header.
    pub const WORDS: u32 = 16;
}

/// Status bits of the header's [`header::STATUS`] word: what cut a run
/// short or what the host must act on.
pub mod status {
    /// A storage target's table had no room for a page (which targets:
    /// [`super::header::STATUS_TARGETS`]); the host grows it and runs again.
    pub const TABLE_FULL: u32 = 2;
    /// Level 1's page records ran out; the host grows them and runs again.
    pub const L1_FULL: u32 = 4;
    /// The device cut a loop short (lavapipe's limit on loop iterations).
    pub const LOOP_LIMIT: u32 = 16;
    /// Deterministic mode: lanes of one warp touched a word in one region,
    /// one of them writing, so the result depends on the device's lane
    /// order: the host runs again with one invocation per warp.
    pub const LANES: u32 = 32;
    /// Deterministic mode at one invocation per warp: the pool of copy
    /// blocks ([`super::pool`]) had no room.
    pub const POOL_FULL: u32 = 64;
    /// The probe ([`super::probe`]): two invocations touched a word of a
    /// target, one of them writing, where no barrier ordered them (or, in
    /// storage, anywhere in the launch).
    pub const SHARED: u32 = 128;
    /// The probe: storage words were shared (their targets: the header's
    /// [`super::header::SHARED_TARGETS`], which a deterministic probe can
    /// defer, [`super::probe::STORAGE_LOG`]).
    pub const SHARED_STORAGE: u32 = 256;
    /// The probe could not run as the folded kernel would: an invocation
    /// deferred more writes than a log holds ([`super::probe::LOG`],
    /// [`super::probe::STORAGE_LOG`]) or the records have room for, reached
    /// a storage barrier with writes deferred, or the device cut its loops
    /// short.
    pub const PROBE_CUT: u32 = 512;
    /// The probe: words of workgroup arrays were shared (which a
    /// deterministic probe finds, then defers).
    pub const SHARED_WORKGROUP: u32 = 1024;
}

/// The probe, check and deterministic modes' first run: the kernel once
/// on the user's buffers and workgroup memory, every access to a target
/// tagged, to learn whether any two invocations shared a word (one
/// writing) that the engine would keep apart. Where none did, no check can
/// find a race and that run's result is the folded kernel's: each
/// invocation read only what it or an ordered barrier made, and each word
/// has one writer. A workgroup array's tags are a word per
/// word in workgroup memory, cleared at its barriers; a storage target's
/// are two words per word in the meta buffer (from
/// [`TargetConfig::tags_off`]), never cleared in the launch: the
/// local invocation's code ([`lanes::det`]), then the workgroup's.
pub mod probe {
    /// Bits of a workgroup's number in its code.
    pub const WG_BITS: u32 = 15;
    /// A workgroup code's write bit.
    pub const WG_WRITE: u32 = 1 << (2 * WG_BITS);
    /// Workgroups a launch may have for the probe to tell them apart.
    pub const WORKGROUPS_MAX: u64 = 1 << WG_BITS;
    /// Invocations a workgroup may have for the probe to tell them apart.
    pub const INVOCATIONS_MAX: u32 = 1 << super::lanes::DET_BITS;
    /// Tag words per word of a storage target.
    pub const STORAGE_TAGS: u64 = 2;
    /// Writes an invocation may defer between two workgroup barriers
    /// (deterministic mode's probe, `ld_log_write`).
    pub const LOG: u32 = 16;
    /// Writes an invocation may defer to the words of **deferred storage
    /// targets** (deterministic mode's probe, `ld_slog_write`): the
    /// targets an earlier run saw a word of shared (its
    /// [`super::header::SHARED_TARGETS`]). Every write to such a target is
    /// held until the invocation ends (no workgroup barrier orders storage
    /// in the folded kernel), then those that changed a word become
    /// [`RECORD_WORDS`]-word records in the values buffer (from
    /// `Config::rec_off`, at most `Config::rec_cap`, counted in
    /// `header::COUNT`): the word's key (its first tag word's index in the
    /// meta buffer, which deferred targets leave untagged and which holds
    /// the word's **claim**: the `atomicMax` of the order over the
    /// invocations that changed it), the invocation's **order** (its
    /// workgroup's linear index times the workgroup's size, plus its local
    /// index, plus one) and the value.
    /// The probe's second entry point, `ld_resolve`, then stores each
    /// record whose order is its word's claim: the highest invocation in
    /// the folded kernel's order wins, as its fold at one invocation per
    /// warp and level 1's workgroup order do.
    pub const STORAGE_LOG: u32 = 16;
    /// Words of a deferred storage write's record: key, order, value.
    pub const RECORD_WORDS: u32 = 3;
    /// Invocations of the entry point `ld_resolve` per workgroup, and its
    /// workgroups: a grid-stride loop over the records, whose count only
    /// the device knows.
    pub const RESOLVE_SIZE: u32 = 256;
    /// Workgroups of the entry point `ld_resolve`.
    pub const RESOLVE_WORKGROUPS: u32 = 64;

    /// The probe's meta buffer: the **found** bitmap (a bit per tag word
    /// of the workgroup arrays, `ld_pt`'s index, which has a word for each
    /// word of the arrays two invocations may share, in target order: the
    /// words the run saw shared; first, so that it comes back with the
    /// header), then the **deferred** bitmap (the same bits: deterministic
    /// mode's probe holds every invocation's writes to these in its log
    /// until the next workgroup barrier and folds them there, the highest
    /// invocation that changed a word winning, as the folded kernel at one
    /// invocation per warp does), then the storage targets' tags.
    /// Where each starts, for `shared_words` words of the workgroup arrays
    /// that are targets (at least the tag words: both sides count these).
    pub const fn meta(shared_words: u32) -> Meta {
        let bitmap = shared_words.div_ceil(32);
        Meta { found: 0, deferred: bitmap, bitmap, tags: 2 * bitmap }
    }

    /// [`meta`]'s offsets, in words.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Meta {
        /// The found bitmap.
        pub found: u32,
        /// The deferred bitmap.
        pub deferred: u32,
        /// Words of each bitmap.
        pub bitmap: u32,
        /// The storage targets' tags.
        pub tags: u32,
    }

    /// A workgroup's code (`ld_probe_wg_code`).
    pub const fn wg(wg: u32, write: bool) -> u32 {
        (if write { WG_WRITE } else { 0 }) | super::lanes::code(wg, WG_BITS)
    }

    /// Two workgroups, one writing (`ld_probe_wg_conflict`).
    pub const fn wg_conflict(v: u32) -> bool {
        v & WG_WRITE != 0 && super::lanes::many(v, WG_BITS)
    }
}

/// The guard every kernel variant carries (native, instrumented, folded):
/// `@group(0) @binding(guard::binding(params))`, one small buffer per
/// launch (see `wgsl/guard.wgsl`). The host writes the loop budget and
/// where each variant's table of out-of-bounds sites starts; the first
/// invocation that records a fault claims the record.
pub mod guard {
    /// Loop iterations each invocation may start (host-written).
    pub const FUEL: u32 = 0;
    /// 0 until an invocation claims the record (`atomicMax(.., 1)`).
    pub const CLAIM: u32 = 1;
    /// Not 0 once an invocation indexed out of bounds (the tables are worth
    /// reading back).
    pub const SEEN: u32 = 2;
    /// The record, one `vec4<u32>`: `HEAD` = `site << 8 | variant << 4 |
    /// kind` (the site: an index into the variant's site table,
    /// `KernelInfo::sites`), the index an access was out of bounds with,
    /// the linear workgroup and the local index of the invocation. The
    /// invocations that lose the claim write the second record's room.
    pub const REC: u32 = 4;
    /// The record's site, variant and kind.
    pub const HEAD: u32 = REC;
    /// The record's out-of-bounds index.
    pub const INDEX: u32 = REC + 1;
    /// The record's linear workgroup.
    pub const WG: u32 = REC + 2;
    /// The record's local invocation index.
    pub const LOCAL: u32 = REC + 3;
    /// Four words, one per variant (host-written): where the variant's
    /// table of sites starts, in words from [`WORDS`].
    pub const TABLES: u32 = REC + 8;
    /// Words of the guard's header: the fuel, the claim, the seen flag,
    /// padding, two records' room and the tables' starts. The tables
    /// follow.
    pub const WORDS: u32 = TABLES + 4;
    /// A table's entry for one site, [`ENTRY`] words: the smallest and the
    /// largest index out of bounds there (as [`key`] orders them), and the
    /// kinds seen there (bit `1 << kind`). Only an invocation's first
    /// out-of-bounds access is entered.
    pub const ENTRY: u32 = 3;
    /// An entry's smallest key (host-written `u32::MAX` first).
    pub const MIN: u32 = 0;
    /// An entry's largest key.
    pub const MAX: u32 = 1;
    /// An entry's kinds.
    pub const KINDS: u32 = 2;
    /// Kinds: an index past the end (`OOB_SIGNED`: the index is an `i32`),
    /// a loop past the invocation's fuel, a loop the driver ended
    /// (lavapipe's cap on loop iterations).
    pub const OOB: u32 = 1;
    /// Kind: an index past the end where the index is an `i32`.
    pub const OOB_SIGNED: u32 = 2;
    /// Kind: a loop past the invocation's fuel.
    pub const FUEL_OUT: u32 = 3;
    /// Kind: a loop the driver ended.
    pub const CUT: u32 = 4;
    /// Which WGSL text recorded it (its site table): the native kernel.
    pub const NATIVE: u32 = 0;
    /// The instrumented kernel (check mode).
    pub const INSTRUMENTED: u32 = 1;
    /// The folded kernel (deterministic mode).
    pub const FOLDED: u32 = 2;
    /// The probe ([`super::probe`]).
    pub const PROBE: u32 = 3;
    /// Site tables a kernel carries, one per variant.
    pub const VARIANTS: usize = 4;

    /// The guard's binding in `@group(0)`: after the parameters and the
    /// uniform block.
    pub fn binding(params: usize) -> u32 {
        params as u32 + 1
    }

    /// An out-of-bounds index as the tables order it: a `u32` as itself,
    /// an `i32` (`signed`) moved so that unsigned order is signed order.
    pub fn key(index: u32, signed: bool) -> u32 {
        if signed {
            index ^ 0x8000_0000
        } else {
            index
        }
    }

    /// The index a [`key`] stands for.
    pub fn index(key: u32, signed: bool) -> i64 {
        if signed {
            (key ^ 0x8000_0000) as i32 as i64
        } else {
            key as i64
        }
    }
}

/// A race record: [`record::WORDS`] words.
pub mod record {
    /// The race's kind bits ([`RW`], [`CROSS`], [`LEVEL1`], ...).
    pub const KIND: u32 = 0;
    /// The target the word belongs to.
    pub const TARGET: u32 = 1;
    /// The linear workgroup of a race inside one (level 2).
    pub const WG: u32 = 2;
    /// One unit of the race: a copy (level 2) or a linear workgroup
    /// (level 1); [`super::NONE`] for none.
    pub const A: u32 = 3;
    /// The other unit of the race, as [`A`].
    pub const B: u32 = 4;
    /// The word of the target.
    pub const WORD: u32 = 5;
    /// `from << 16 | to`, barrier indices, `0xffff` for the kernel's start or end.
    pub const REGION: u32 = 6;
    /// The memory-adaptive round that found it (`Config::round`).
    pub const ROUND: u32 = 7;
    /// Words of a record.
    pub const WORDS: u32 = 8;
    /// Kind bit: a read-write race (else write-write).
    pub const RW: u32 = 1;
    /// Kind bit: the two accesses lie in different regions of the epoch,
    /// across a barrier that does not order the memory.
    pub const CROSS: u32 = 2;
    /// Kind bit: a race between workgroups (level 1).
    pub const LEVEL1: u32 = 4;
    /// Read-write, seen at the read: a unit read a word another unit wrote
    /// in the epoch (`A` the reader).
    pub const READ: u32 = 8;
    /// Lanes of one warp (`A` the copy) touched the word in one region, one
    /// of them writing: seen by the lane tags, whatever the values.
    pub const INTRA: u32 = 16;
    /// Read-write, seen at the write: a unit touched a word in an earlier
    /// region of the epoch, across a barrier that does not order it, and
    /// left it as it was; another unit writes it in this region (`A` the
    /// earlier one).
    pub const BEFORE: u32 = 256;
    /// [`REGION`]'s barrier index for the kernel's start or end.
    pub const NO_BARRIER: u32 = 0xffff;
    /// A word's races summarized (check mode, at most [`super::MASK_COPIES`]
    /// copies): [`summary::SLOTS`] slots, the first a record's (`KIND`,
    /// `TARGET`, `WG`, `WORD`, `REGION`, `ROUND`) with `A` the copies (a
    /// bit each) that wrote the word in the epoch and `B` those whose lanes
    /// wrote it in the region, the second [`summary`]'s masks. The host
    /// turns it into one record per race (`check::findings`), as the CPU's
    /// sweep makes them: the kernel has no loop over copies to record them.
    pub const SUMMARY: u32 = 32;
    /// A summary's kind bits: the word's union differs from its base (some
    /// copy wrote it); reads that raced cross a barrier (no writer wrote
    /// the word in the region).
    pub const WRITTEN: u32 = 64;
    /// A summary's kind bit: its reads that raced cross a barrier.
    pub const CROSS_READS: u32 = 128;
    /// A summary's kind bit: a copy that touched the word in an earlier
    /// region of the epoch, not in this one, wrote it then, leaving the
    /// value it held (storage: its written flag): the copies that read the
    /// word in this region raced with that write across the barrier.
    pub const EARLY_WRITE: u32 = 512;

    /// A summary's second slot: the copies a lane of which read the word,
    /// whose lanes raced with two writing ([`INTRA`]), with one writing
    /// and another touching (`RW | INTRA`), that touched the word in
    /// an earlier region of the epoch and neither changed it nor touched
    /// it in this one (`EARLY`: where another copy wrote it in this
    /// region, that access raced with the write across the barrier), and
    /// whose lanes wrote it in this region, leaving the value it held,
    /// without reading it (`SILENT`: where another copy changed it in the
    /// epoch, the two writes raced).
    pub mod summary {
        /// The copies a lane of which read the word.
        pub const READS: u32 = 0;
        /// The copies whose lanes raced, two writing.
        pub const INTRA: u32 = 1;
        /// The copies whose lanes raced, one writing, another touching.
        pub const INTRA_RW: u32 = 2;
        /// The copies that touched the word in an earlier region of the
        /// epoch only, leaving it as it was (`EARLY`).
        pub const EARLY: u32 = 3;
        /// Record slots a summary takes.
        pub const SLOTS: u32 = 2;
    }
}

/// A level-1 record header.
pub mod l1 {
    /// The storage target of the record's page.
    pub const TARGET: u32 = 0;
    /// The page of the target.
    pub const PAGE: u32 = 1;
    /// The linear workgroup that published it.
    pub const WG: u32 = 2;
    /// Next record of the same page, plus one (0: end).
    pub const NEXT_PAGE: u32 = 3;
    /// Check mode: how the workgroup accessed the page's words, two bits
    /// per word (word w: bits `2 * (w % 16)` on in word `ACCESS + w / 16`):
    /// [`READ`] where it read the word, [`WROTE`] where its lanes wrote it,
    /// whatever the value (a write that left the word as it was races with
    /// the other workgroups' accesses too). One atomic or per word.
    pub const ACCESS: u32 = 4;
    /// Words of a record header.
    pub const WORDS: u32 = 8;
    /// [`ACCESS`] bit: the workgroup read the word.
    pub const READ: u32 = 1;
    /// [`ACCESS`] bit: the workgroup's lanes wrote the word.
    pub const WROTE: u32 = 2;
}

/// The roles of an entry: which of its pages holds what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Roles {
    /// Copies per workgroup (`M`).
    pub copies: u32,
    /// Role pages of an entry: the base and one per copy.
    pub pages: u32,
    /// The first copy's page (the base is page 0).
    pub p: u32,
    /// Written-flag pages a storage entry adds (one per copy).
    pub flags: u32,
    /// Check mode: the page a storage entry adds after its flags (its
    /// **access page**), where each word the workgroup read or its lanes
    /// wrote holds the dispatch's stamp and [`l1::READ`] | [`l1::WROTE`]
    /// (level 1's checks of reads and of writes that left a word as it
    /// was; engine/publish.wgsl's `ld_word_access`).
    pub reads: u32,
    /// Lane-tag pages per copy (in the meta area; see [`Config::tag_groups`]).
    pub tag_groups: u32,
    /// Check mode (lane tags at every warp size: its read checks use them).
    pub check: bool,
}

impl Roles {
    /// Check mode: the epoch's base and `M` copies (one pass per region:
    /// the lane tags, not a second run, show the reads that raced).
    pub fn check(copies: u32) -> Roles {
        Roles { copies, pages: 1 + copies, p: 1, flags: copies, reads: 1, tag_groups: 0, check: true }
    }

    /// Deterministic mode: base and `M` copies.
    pub fn deterministic(copies: u32) -> Roles {
        Roles { check: false, reads: 0, ..Roles::check(copies) }
    }

    /// With lane tags for warps of `warp_size` invocations: a word per
    /// copy and word ([`lanes`]). Check mode always tags (its read checks
    /// use them); deterministic mode needs none at warp size 1, where no
    /// two lanes share a copy.
    pub fn tagged(self, warp_size: u32) -> Roles {
        Roles { tag_groups: (self.check || warp_size > 1) as u32, ..self }
    }

    /// Deterministic mode without lane tags (one invocation per warp: as
    /// many copies as invocations) keeps each word's last writer (copy + 1,
    /// by `atomicMax`), where the fold starts looking instead of at the
    /// last of hundreds of copies (`LD_DET_WRITERS`).
    pub fn last_writers(self) -> bool {
        !self.check && self.tag_groups == 0
    }

    /// Marks per entry (a word each, set by the accesses of a region, which
    /// list the entry at its end): deterministic mode with lane tags marks
    /// per copy, so that its fold visits the copies that accessed the
    /// entry ([`flag::COPIES_SHIFT`]); a word per copy and entry, where
    /// a mask would cost every access an atomic or.
    pub fn marks(self) -> u32 {
        if !self.check && self.tag_groups != 0 {
            self.copies
        } else {
            1
        }
    }

    /// Pages per entry in the meta area: the lane tags and (check mode)
    /// the touched page and the epoch pages, or one page of last writers
    /// ([`Roles::last_writers`]).
    pub fn meta_pages(self) -> u32 {
        if self.last_writers() {
            1
        } else {
            self.copies * self.tag_groups + self.check as u32 + self.epoch_pages()
        }
    }

    /// Check mode past a mask's copies, where the touched mask holds one
    /// bit for all: a page per copy of the words it accessed in the epoch
    /// (a read before a barrier that does not order it, written by another
    /// copy after it, is found by these).
    pub fn epoch_pages(self) -> u32 {
        if self.check && self.copies > MASK_COPIES {
            self.copies
        } else {
            0
        }
    }
}

/// Copies a word's touched mask holds (a word of bits): with more, check
/// mode's sweep visits every copy of a touched word.
pub const MASK_COPIES: u32 = 32;

/// Copies up to which a touched mask also says which copies wrote the word
/// in the epoch: bit `16 + c`, set by the same atomic or as the copy's
/// touched bit `c`, so it costs nothing. Workgroup arrays have no written
/// flags, so this is where a silent write before a barrier that does not
/// order them shows; past it, such a write is missed.
pub const WROTE_MASK_COPIES: u32 = 16;

/// Lane tags: per copy and word, one word into which every access of a
/// region ors its lane's code, so that the word says, whatever order the
/// lanes ran in, which kinds of accesses two lanes of the copy made.
///
/// A lane's code is its index `l` and the index's complement, `l | !l <<
/// bits`: lanes of one index or the same bits, and two lanes that differ in
/// some bit set it in both halves, so an or of codes shows two lanes or
/// more where its halves share a bit ([`lanes::many`]).
///
/// - Deterministic mode ([`lanes::det`]): the code of every access in
///   [`lanes::DET_BITS`] bits each (any warp a workgroup holds: 256
///   invocations at most), and [`lanes::DET_WRITE`] for a write. Two lanes,
///   one writing, is a lane-order conflict ([`lanes::det_conflict`]).
/// - Check mode ([`lanes::check`]): the code of every access (bits
///   `0..2 * CHECK_BITS`), a writer's code again above it
///   ([`lanes::CHECK_WRITERS`]) and [`lanes::CHECK_READ`] for a read, in
///   [`lanes::CHECK_BITS`] bits each: lanes 128 apart share a code, which
///   can only hide a race between them. [`lanes::tally`] reads the word.
pub mod lanes {
    /// Bits of a lane's index in deterministic mode's codes.
    pub const DET_BITS: u32 = 8;
    /// A deterministic tag's write bit.
    pub const DET_WRITE: u32 = 1 << (2 * DET_BITS);
    /// Bits of a lane's index in check mode's codes.
    pub const CHECK_BITS: u32 = 7;
    /// Where check mode's writers' codes start.
    pub const CHECK_WRITERS: u32 = 2 * CHECK_BITS;
    /// A check-mode tag's read bit.
    pub const CHECK_READ: u32 = 1 << (4 * CHECK_BITS);

    /// A lane's code in `bits` bits (`ld_lane_code`).
    pub const fn code(lane: u32, bits: u32) -> u32 {
        let m = (1 << bits) - 1;
        let l = lane & m;
        l | ((!l & m) << bits)
    }

    /// Whether an or of codes of `bits` bits holds two lanes or more
    /// (`ld_lanes_many`).
    pub const fn many(v: u32, bits: u32) -> bool {
        v & (v >> bits) & ((1 << bits) - 1) != 0
    }

    /// A deterministic access's code (`ld_det_code`).
    pub const fn det(lane: u32, write: bool) -> u32 {
        (if write { DET_WRITE } else { 0 }) | code(lane, DET_BITS)
    }

    /// Two lanes, one writing (`ld_det_conflict`).
    pub const fn det_conflict(v: u32) -> bool {
        v & DET_WRITE != 0 && many(v, DET_BITS)
    }

    /// A check-mode access's code (`ld_check_code`).
    pub const fn check(lane: u32, write: bool) -> u32 {
        let c = code(lane, CHECK_BITS);
        c | if write { c << CHECK_WRITERS } else { CHECK_READ }
    }

    /// A check-mode tag word, tallied (`ld_tags_tally`): lanes that wrote
    /// and lanes that touched the word (0, 1, or 2 for two or more), and
    /// whether a lane read it.
    pub const fn tally(v: u32) -> (u32, u32, bool) {
        let half = (1 << CHECK_WRITERS) - 1;
        let (all, wrote) = (v & half, (v >> CHECK_WRITERS) & half);
        (count(wrote), count(all), v & CHECK_READ != 0)
    }

    /// How many lanes an or of check-mode codes holds: 0, 1, or 2 for two
    /// or more.
    const fn count(x: u32) -> u32 {
        if x == 0 {
            0
        } else if many(x, CHECK_BITS) {
            2
        } else {
            1
        }
    }
}

/// A privatized memory as the planner sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A workgroup array of `words` words.
    Shared {
        /// Its words.
        words: u32,
    },
    /// A storage buffer of `words` words, with a table of `entries` pages
    /// per workgroup: a power of two, or `direct`: one entry per page.
    Storage {
        /// Its words.
        words: u32,
        /// Entries of its table per workgroup.
        entries: u32,
        /// Whether entry e is page e (no hashing).
        direct: bool,
    },
}

impl Shape {
    /// Logical words of the memory.
    pub fn words(&self) -> u32 {
        match *self {
            Shape::Shared { words } | Shape::Storage { words, .. } => words,
        }
    }

    /// Entries per slot: a workgroup array's pages, a storage table's
    /// capacity.
    pub fn entries(&self) -> u32 {
        match *self {
            Shape::Shared { words } => words.div_ceil(PAGE).max(1),
            Shape::Storage { entries, .. } => entries,
        }
    }

    /// Pages of the whole memory (the length of its level-1 head list).
    pub fn pages(&self) -> u32 {
        self.words().div_ceil(PAGE).max(1)
    }
}

/// Where every target lives in a slot, and the slot's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotLayout {
    /// Every target's configuration, in target order.
    pub targets: Vec<TargetConfig>,
    /// Scratch words per slot in the values buffer.
    pub slot_values: u64,
    /// Scratch words per slot in the meta buffer.
    pub slot_meta: u64,
    /// The dirty-entry lists: where they start in the slot's values area.
    pub list_off: u64,
    /// Entries each dirty list holds.
    pub list_cap: u64,
    /// Check mode: the words the region's check visits (`list_cap` pages).
    pub items_off: u64,
    /// Words of level-1 list heads: per storage target one per page.
    pub heads: u64,
    /// Where the workgroup arrays' pages and marks start in a slot: they
    /// run to `list_off` and start every dispatch zeroed, which the host
    /// does (a buffer fill, not a store per word from the kernel).
    pub zero_from: u64,
    /// The pool of copy blocks (0 blocks: none), after the lists.
    pub pool_cap: u32,
    /// Where the pool starts in the slot's values area.
    pub pool_off: u64,
}

/// Lays out one slot: per target its entries' role pages (role-major),
/// flags, marks, (storage) changed words and key mirrors, then the two
/// dirty-entry lists, in the values area; the storage tables' keys and the
/// lane tags in the meta area. With
/// `pool_blocks` (deterministic mode at one invocation per warp: see
/// [`TargetConfig::pooled`]), storage entries hold only their base, a
/// pointer per copy, and the slot ends with the pool.
pub fn slot_layout(shapes: &[Shape], roles: Roles, pool_blocks: u32) -> SlotLayout {
    let (mut values, mut meta, mut heads, mut first) = (0u64, 0u64, 0u64, 0u64);
    let mut targets = Vec::new();
    let mut zero_from = None;
    let pooled = roles.last_writers() && pool_blocks > 0;
    for s in shapes {
        let e = s.entries() as u64;
        let storage = matches!(s, Shape::Storage { .. });
        if !storage && zero_from.is_none() {
            zero_from = Some(values);
        }
        assert!(!storage || zero_from.is_none(), "storage targets come before workgroup arrays");
        let pages = match (storage, pooled) {
            (true, true) => 1,
            (true, false) => roles.pages + roles.flags + roles.reads,
            (false, _) => roles.pages,
        };
        let direct = matches!(s, Shape::Storage { direct: true, .. }) as u32;
        let mut t =
            TargetConfig { words: s.words(), entries: e as u32, first_entry: first as u32, pages, values_off: values as u32, direct, ..Default::default() };
        values += e * pages as u64 * PAGE as u64;
        t.flags_off = values as u32;
        t.touch_off = (values + e) as u32;
        values += e + e * roles.marks() as u64;
        if storage {
            t.changed_off = values as u32;
            values += e;
            t.mirror_off = values as u32;
            values += e;
            t.keys_off = meta as u32;
            meta += e;
            t.heads_off = heads as u32;
            // (A target left in place has no entries, and publishes no page.)
            heads += if e == 0 { 0 } else { s.pages() as u64 };
            if pooled {
                (t.pooled, t.ptr_off) = (1, values as u32);
                values += e * roles.copies as u64;
            }
        }
        t.tags_off = meta as u32;
        t.touched_off = (meta + e * (roles.copies * roles.tag_groups) as u64 * PAGE as u64) as u32;
        meta += e * roles.meta_pages() as u64 * PAGE as u64;
        first += e;
        targets.push(t);
    }
    let pool = if pooled && targets.iter().any(|t| t.pooled != 0) { pool_blocks } else { 0 };
    let items = if roles.check { first * PAGE as u64 } else { 0 };
    let items_off = values + 2 * first;
    SlotLayout {
        targets,
        slot_values: items_off + items + pool as u64 * pool::BLOCK_WORDS as u64,
        slot_meta: meta.max(1),
        list_off: values,
        list_cap: first,
        items_off,
        heads,
        zero_from: zero_from.unwrap_or(values),
        pool_cap: pool,
        pool_off: items_off + items,
    }
}

/// The guard's WGSL for a kernel with `params` parameters, recorded as
/// `variant`: its struct, binding, constants and functions
/// (`wgsl/guard.wgsl`). Every kernel variant starts with it. `faults`: an
/// index out of bounds claims the record, as a fault (Rust's rule); else
/// it is only entered in the variant's table (WGSL's).
pub fn guard_prelude(params: usize, variant: u32, faults: bool) -> String {
    use std::fmt::Write;
    // (The struct's words are `guard`'s: `FUEL`, `CLAIM`, `SEEN`, a word
    // of padding, the two records from `REC`, `TABLES`, then the tables.)
    let mut s = format!(
        "struct LdGuard {{\n    fuel: u32,\n    claim: atomic<u32>,\n    seen: atomic<u32>,\n    pad: u32,\n    rec: array<vec4<u32>, 2>,\n    tables: vec4<u32>,\n    oob: array<atomic<u32>>,\n}}\n\n@group(0) @binding({}) var<storage, read_write> ld_guard: LdGuard;\n",
        guard::binding(params)
    );
    let consts: &[(&str, u32)] = &[
        ("LD_G_OOB", guard::OOB),
        ("LD_G_OOB_SIGNED", guard::OOB_SIGNED),
        ("LD_G_FUEL", guard::FUEL_OUT),
        ("LD_G_CUT", guard::CUT),
        ("LD_G_VARIANT", variant),
        ("LD_G_ENTRY", guard::ENTRY),
        ("LD_G_MIN", guard::MIN),
        ("LD_G_MAX", guard::MAX),
        ("LD_G_KINDS", guard::KINDS),
    ];
    for (name, v) in consts {
        writeln!(s, "const {name}: u32 = {v}u;").unwrap();
    }
    writeln!(s, "const LD_G_OOB_FAULTS: bool = {faults};").unwrap();
    s.push_str(crate::GUARD);
    s
}

/// The WGSL of the contract: structs, constants and the group-1 bindings
/// every instrumented kernel and engine shader declares.
pub fn wgsl_prelude() -> String {
    prelude(View::Engine)
}

/// How a shader sees level 1's buffers. Level 1's own sweeps run after the
/// lists are built, so they read them as plain words (a CPU driver runs an
/// atomic load lane by lane), and they move whole pages as `vec4<u32>` (a
/// record's page is 256 bytes, so both views address the same bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The engine's shaders and instrumented kernels: atomic list words,
    /// pages as `u32`s.
    Engine,
    /// Level 1's sweeps: plain list words, pages as `vec4<u32>`s.
    Level1,
}

/// [`wgsl_prelude`] for the shaders of `view`.
pub fn prelude(view: View) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    s.push_str(TargetConfig::WGSL);
    s.push('\n');
    s.push_str(Config::WGSL);
    s.push('\n');
    let consts: &[(&str, u32)] = &[
        ("LD_MODE_CHECK", MODE_CHECK),
        ("LD_MODE_DETERMINISTIC", MODE_DETERMINISTIC),
        ("LD_MODE_DET", MODE_DETERMINISTIC),
        ("LD_PAGE", PAGE),
        ("LD_NONE", NONE),
        ("LD_MAX_X", MAX_WORKGROUPS_PER_DIMENSION),
        ("LD_MAT", flag::MAT),
        ("LD_BVALID", flag::BVALID),
        ("LD_DIRTY1", flag::DIRTY1),
        ("LD_BPART", flag::BPART),
        ("LD_USED", flag::USED),
        ("LD_HERE", flag::HERE),
        ("LD_COPIES_SHIFT", flag::COPIES_SHIFT),
        ("LD_COPY_BITS", flag::COPY_BITS),
        ("LD_H_COUNT", header::COUNT),
        ("LD_H_STATUS", header::STATUS),
        ("LD_H_STATUS_WG", header::STATUS_WG),
        ("LD_H_STATUS_TARGETS", header::STATUS_TARGETS),
        ("LD_H_L1_COUNT", header::L1_COUNT),
        ("LD_H_L1_PAGES", header::L1_PAGES),
        ("LD_H_EXTRA", header::EXTRA),
        ("LD_H_SHARED_TARGETS", header::SHARED_TARGETS),
        ("LD_H_WORDS", header::WORDS),
        ("LD_S_TABLE_FULL", status::TABLE_FULL),
        ("LD_S_L1_FULL", status::L1_FULL),
        ("LD_S_LOOP_LIMIT", status::LOOP_LIMIT),
        ("LD_S_LANES", status::LANES),
        ("LD_S_POOL_FULL", status::POOL_FULL),
        ("LD_S_SHARED", status::SHARED),
        ("LD_S_SHARED_STORAGE", status::SHARED_STORAGE),
        ("LD_S_PROBE_CUT", status::PROBE_CUT),
        ("LD_S_SHARED_WORKGROUP", status::SHARED_WORKGROUP),
        ("LD_PROBE_WG_BITS", probe::WG_BITS),
        ("LD_PROBE_WG_WRITE", probe::WG_WRITE),
        ("LD_PROBE_RECORD_WORDS", probe::RECORD_WORDS),
        ("LD_PROBE_RESOLVE_SIZE", probe::RESOLVE_SIZE),
        ("LD_POOL_HEADER", pool::HEADER),
        ("LD_DET_LANE_BITS", lanes::DET_BITS),
        ("LD_DET_WRITE", lanes::DET_WRITE),
        ("LD_CHECK_LANE_BITS", lanes::CHECK_BITS),
        ("LD_CHECK_WRITERS", lanes::CHECK_WRITERS),
        ("LD_CHECK_READ", lanes::CHECK_READ),
        ("LD_MASK_COPIES", MASK_COPIES),
        ("LD_WROTE_MASK_COPIES", WROTE_MASK_COPIES),
        ("LD_R_KIND", record::KIND),
        ("LD_R_TARGET", record::TARGET),
        ("LD_R_WG", record::WG),
        ("LD_R_A", record::A),
        ("LD_R_B", record::B),
        ("LD_R_WORD", record::WORD),
        ("LD_R_REGION", record::REGION),
        ("LD_R_ROUND", record::ROUND),
        ("LD_R_WORDS", record::WORDS),
        ("LD_K_RW", record::RW),
        ("LD_K_CROSS", record::CROSS),
        ("LD_K_LEVEL1", record::LEVEL1),
        ("LD_K_READ", record::READ),
        ("LD_K_INTRA", record::INTRA),
        ("LD_K_SUMMARY", record::SUMMARY),
        ("LD_K_WRITTEN", record::WRITTEN),
        ("LD_K_CROSS_READS", record::CROSS_READS),
        ("LD_K_BEFORE", record::BEFORE),
        ("LD_K_EARLY_WRITE", record::EARLY_WRITE),
        ("LD_RS_READS", record::summary::READS),
        ("LD_RS_INTRA", record::summary::INTRA),
        ("LD_RS_INTRA_RW", record::summary::INTRA_RW),
        ("LD_RS_EARLY", record::summary::EARLY),
        ("LD_RS_SLOTS", record::summary::SLOTS),
        ("LD_L1_TARGET", l1::TARGET),
        ("LD_L1_PAGE", l1::PAGE),
        ("LD_L1_WG", l1::WG),
        ("LD_L1_WORDS", l1::WORDS),
        ("LD_L1_NEXT_PAGE", l1::NEXT_PAGE),
        ("LD_L1_ACCESS", l1::ACCESS),
        ("LD_L1_READ", l1::READ),
        ("LD_L1_WROTE", l1::WROTE),
        ("LD_NO_BARRIER", record::NO_BARRIER),
    ];
    for (name, v) in consts {
        writeln!(s, "const {name}: u32 = {v}u;").unwrap();
    }
    let g = binding::GROUP;
    let decl = [
        (binding::CONFIG, "var<uniform> ld_cfg: LdConfig;"),
        (binding::RECORDS, "var<storage, read_write> ld_rec: array<atomic<u32>>;"),
        (binding::VALUES, "var<storage, read_write> ld_val: array<u32>;"),
        (binding::META, "var<storage, read_write> ld_meta: array<atomic<u32>>;"),
        (binding::L1_META, "var<storage, read_write> ld_l1: array<LIST_ELEM>;"),
        (binding::L1_VALUES, "var<storage, read_write> ld_l1v: array<PAGE_ELEM>;"),
        (binding::L1_UNION, "var<storage, read_write> ld_l1u: array<PAGE_ELEM>;"),
    ];
    let (list, page) = if view == View::Level1 { ("u32", "vec4<u32>") } else { ("atomic<u32>", "u32") };
    for (b, d) in decl {
        writeln!(s, "@group({g}) @binding({b}) {}", d.replace("LIST_ELEM", list).replace("PAGE_ELEM", page)).unwrap();
    }
    s
}

/// Targets a kernel may privatize: the status holds a bit per target whose
/// table was full, and every dispatch's configuration holds this many
/// targets' (`LdConfig::t`, a uniform buffer's array of a fixed length).
pub const TARGETS_MAX: u32 = 32;

// A uniform buffer's arrays start at, and step by, multiples of 16 bytes.
const _: () = assert!(Config::WORDS.is_multiple_of(4) && TargetConfig::WORDS.is_multiple_of(4));

/// The configuration's bytes: the head (its `targets` counted here), then
/// `targets` and zeros up to [`TARGETS_MAX`] (a uniform binding covers the
/// array's fixed length).
pub fn config_bytes(head: Config, targets: &[TargetConfig]) -> Vec<u8> {
    assert!(targets.len() <= TARGETS_MAX as usize, "at most TARGETS_MAX targets");
    let head = Config { targets: targets.len() as u32, ..head };
    let mut bytes = bytemuck::bytes_of(&head).to_vec();
    for t in targets {
        bytes.extend_from_slice(bytemuck::bytes_of(t));
    }
    bytes.resize((Config::WORDS + TARGETS_MAX as usize * TargetConfig::WORDS) * 4, 0);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_of_workgroups_spreads_over_y_only_past_the_limit() {
        assert_eq!(spread(1), [1, 1, 1]);
        assert_eq!(spread(MAX_WORKGROUPS_PER_DIMENSION), [MAX_WORKGROUPS_PER_DIMENSION, 1, 1]);
        assert_eq!(spread(MAX_WORKGROUPS_PER_DIMENSION + 1), [MAX_WORKGROUPS_PER_DIMENSION, 2, 1]);
    }

    /// The or of lanes' codes, in either mode.
    fn or(codes: impl IntoIterator<Item = u32>) -> u32 {
        codes.into_iter().fold(0, |v, c| v | c)
    }

    /// The probe's workgroup codes tell every pair of the workgroups it
    /// takes apart, and a workgroup alone is never two.
    #[test]
    fn probe_workgroup_codes_find_two_workgroups_one_writing() {
        let last = probe::WORKGROUPS_MAX as u32 - 1;
        for (a, b) in [(0, 1), (3, 5), (0, last), (last - 1, last), (1 << 14, 1)] {
            assert!(probe::wg_conflict(or([probe::wg(a, true), probe::wg(b, false)])), "{a} {b}");
            assert!(probe::wg_conflict(or([probe::wg(a, false), probe::wg(b, false), probe::wg(a, true)])), "{a} {b}");
            assert!(!probe::wg_conflict(or([probe::wg(a, false), probe::wg(b, false)])), "{a} {b}: readers only");
            assert!(!probe::wg_conflict(or([probe::wg(a, true), probe::wg(a, false), probe::wg(a, true)])), "{a} alone");
        }
        // The local codes are deterministic mode's lane codes: a workgroup's
        // invocations all told apart.
        assert!(lanes::det_conflict(or([lanes::det(0, true), lanes::det(probe::INVOCATIONS_MAX - 1, false)])));
    }

    #[test]
    fn check_tags_tally_writers_touches_and_reads() {
        let w = |l| lanes::check(l, true);
        let r = |l| lanes::check(l, false);
        assert_eq!(lanes::tally(0), (0, 0, false));
        assert_eq!(lanes::tally(or([w(3), w(3), r(3)])), (1, 1, true));
        assert_eq!(lanes::tally(or([w(3), r(5)])), (1, 2, true));
        assert_eq!(lanes::tally(or([w(3), w(20)])), (2, 2, false));
        assert_eq!(lanes::tally(or([r(0), r(127)])), (0, 2, true));
        assert_eq!(lanes::tally(or([w(31), r(0), r(1)])), (1, 2, true));
        // Lanes 128 apart share a code: a race between them is missed,
        // never made up.
        assert_eq!(lanes::tally(or([w(0), w(128)])), (1, 1, false));
    }

    #[test]
    fn det_tags_see_two_lanes_one_writing() {
        let d = lanes::det;
        assert!(!lanes::det_conflict(or([d(7, true), d(7, false)])));
        assert!(!lanes::det_conflict(or([d(2, false), d(9, false), d(255, false)])));
        assert!(lanes::det_conflict(or([d(0, true), d(128, false)])));
        assert!(lanes::det_conflict(or([d(255, true), d(127, true)])));
        // Every pair of distinct lanes of a 256-lane warp.
        for a in 0..256 {
            for b in (a + 1)..256 {
                assert!(lanes::many(lanes::code(a, lanes::DET_BITS) | lanes::code(b, lanes::DET_BITS), lanes::DET_BITS));
            }
        }
    }

    #[test]
    fn structs_have_their_field_count_in_words() {
        assert_eq!(std::mem::size_of::<Config>(), 4 * Config::WORDS);
        assert_eq!(std::mem::size_of::<TargetConfig>(), 4 * TargetConfig::WORDS);
        assert!(Config::WGSL.starts_with("struct LdConfig {\n    mode: u32,"));
        assert!(Config::WGSL.ends_with(&format!("    t: array<LdTarget, {TARGETS_MAX}>,\n}}\n")));
        let bytes = config_bytes(Config::default(), &[TargetConfig { words: 7, ..Default::default() }]);
        assert_eq!(bytes.len(), (Config::WORDS + TARGETS_MAX as usize * TargetConfig::WORDS) * 4);
        assert_eq!(bytes[Config::WORDS * 4], 7);
        assert_eq!(bytemuck::pod_read_unaligned::<Config>(&bytes[..Config::WORDS * 4]).targets, 1);
    }

    /// The guard's struct is as large as `guard::WORDS` say, and its
    /// WGSL validates.
    #[test]
    fn the_guard_is_its_words() {
        let src = format!("{}\n@compute @workgroup_size(1) fn main() {{ ld_guard_enter(0u, 0u); _ = ld_idx(3u, 2u, 0u); if ld_ok_i(-1i, 2u, 1u) {{}} ld_stopped(2u); ld_guard_flush(); }}\n", guard_prelude(2, guard::NATIVE, true));
        let module = naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{}", e.emit_to_string(&src)));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all()).validate(&module).unwrap();
        let ty = module.global_variables.iter().find(|(_, g)| g.name.as_deref() == Some("ld_guard")).unwrap().1.ty;
        let naga::TypeInner::Struct { members, .. } = &module.types[ty].inner else { panic!("the guard is a struct") };
        let offset = |name: &str| members.iter().find(|m| m.name.as_deref() == Some(name)).unwrap().offset;
        let words =
            [("fuel", guard::FUEL), ("claim", guard::CLAIM), ("seen", guard::SEEN), ("rec", guard::REC), ("tables", guard::TABLES), ("oob", guard::WORDS)];
        for (name, word) in words {
            assert_eq!(offset(name), 4 * word, "{name}");
        }
    }

    /// An index's key orders `u32`s as themselves and `i32`s as signed.
    #[test]
    fn keys_order_indices_and_give_them_back() {
        let signed = [-5i32, -1, 0, 3, i32::MAX].map(|i| guard::key(i as u32, true));
        assert!(signed.windows(2).all(|w| w[0] < w[1]), "{signed:?}");
        assert_eq!(signed.map(|k| guard::index(k, true)), [-5, -1, 0, 3, i32::MAX as i64]);
        assert_eq!(guard::index(guard::key(u32::MAX, false), false), u32::MAX as i64);
    }

    #[test]
    fn slots_place_targets_one_after_another() {
        let l = slot_layout(&[Shape::Storage { words: 1000, entries: 8, direct: false }, Shape::Shared { words: 100 }], Roles::check(2), 0);
        let (a, b) = (&l.targets[0], &l.targets[1]);
        // Storage: 8 entries of 1 + 2 role pages, 2 written-flag pages and
        // an access page; per entry its flags, access mark, changed word
        // and key mirror.
        assert_eq!((a.entries, a.pages, a.first_entry, a.direct), (8, 6, 0, 0));
        assert_eq!((b.entries, b.pages, b.first_entry), (2, 3, 8));
        assert_eq!(a.flags_off, 8 * 6 * 64);
        assert_eq!(a.touch_off, a.flags_off + 8);
        assert_eq!(a.changed_off, a.flags_off + 16);
        assert_eq!(a.mirror_off, a.flags_off + 24);
        assert_eq!(b.values_off, a.mirror_off + 8);
        assert_eq!(l.zero_from, b.values_off as u64);
        assert_eq!(b.flags_off, b.values_off + 2 * 3 * 64);
        assert_eq!(l.list_off, b.flags_off as u64 + 2 * 2);
        // The words a region's check visits: a page per entry.
        assert_eq!(l.items_off, l.list_off + 2 * 10);
        assert_eq!(l.slot_values, l.items_off + 10 * 64);
        // Meta: the storage keys, then per target its lane tags (none
        // without `tagged`) and touched pages.
        assert_eq!((a.keys_off, l.list_cap), (0, 10));
        assert_eq!((a.tags_off, a.touched_off, b.tags_off), (8, 8, 8 + 8 * 64));
        assert_eq!(l.slot_meta, 8 + 10 * 64);
        assert_eq!(l.heads, 16);
    }

    #[test]
    fn past_a_masks_copies_check_mode_keeps_an_epoch_page_per_copy() {
        let wide = Roles::check(MASK_COPIES + 32).tagged(1);
        assert_eq!(wide.epoch_pages(), MASK_COPIES + 32);
        assert_eq!(wide.meta_pages(), (MASK_COPIES + 32) * 2 + 1);
        assert_eq!(Roles::check(MASK_COPIES).tagged(1).epoch_pages(), 0);
        assert_eq!(Roles::deterministic(MASK_COPIES + 32).tagged(32).epoch_pages(), 0);
    }

    #[test]
    fn one_invocation_per_warp_pools_the_storage_copies() {
        let roles = Roles::deterministic(64).tagged(1);
        assert!(roles.last_writers());
        let l = slot_layout(&[Shape::Storage { words: 1000, entries: 8, direct: false }, Shape::Shared { words: 100 }], roles, 10);
        let (a, b) = (&l.targets[0], &l.targets[1]);
        // The storage entries hold their base alone and a pointer per copy;
        // the workgroup array keeps a page per copy.
        assert_eq!((a.pages, a.pooled, b.pages, b.pooled), (1, 1, 65, 0));
        assert_eq!(a.ptr_off, a.mirror_off + 8);
        assert_eq!(b.values_off, a.ptr_off + 8 * 64);
        assert_eq!((l.pool_cap, l.pool_off), (10, l.list_off + 2 * 10));
        assert_eq!(l.slot_values, l.pool_off + 10 * pool::BLOCK_WORDS as u64);
        // Without a pool (check mode) nothing is pooled.
        let c = slot_layout(&[Shape::Storage { words: 1000, entries: 8, direct: false }], Roles::check(2), 10);
        assert_eq!((c.targets[0].pooled, c.pool_cap), (0, 0));
    }
}
