"use strict";
// Draws the reports embedded in #ld-data (an array of ld::Report as JSON).
// Everything is built with DOM calls (text never becomes markup); the
// drawings are inline SVG, so a dump of the DOM holds what is shown.
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const reports = JSON.parse(document.getElementById("ld-data").textContent);
  const root = document.getElementById("ld-root");
  root.textContent = "";

  // ------------------------------------------------------------ helpers

  // el("div", {class: "x"}, child, "text", [more]...)
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    set(e, attrs);
    add(e, kids);
    return e;
  }
  function sv(tag, attrs, ...kids) {
    const e = document.createElementNS(SVG, tag);
    set(e, attrs);
    add(e, kids);
    return e;
  }
  function set(e, attrs) {
    for (const k in attrs || {}) {
      if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, String(attrs[k]));
    }
  }
  function add(e, kids) {
    for (const k of kids) {
      if (k === null || k === undefined || k === false) continue;
      if (Array.isArray(k)) add(e, k);
      else if (typeof k === "object") e.appendChild(k);
      else e.appendChild(document.createTextNode(String(k)));
    }
  }
  function code(s) {
    return el("code", {}, s);
  }
  function plural(n, one, many) {
    return n + " " + (n === 1 ? one : many || one + "s");
  }
  // The adapter, and how exact mode ran (on the CPU, whatever the runtime).
  function backend(r) {
    return r.backend + (r.mode === "exact" ? " (exact mode: access monitoring on the CPU)" : "");
  }
  function fmt(n) {
    return typeof n === "number" ? n.toLocaleString("en-US") : String(n);
  }
  function wg(w) {
    if (!w) return "wg ?";
    return w[1] === 0 && w[2] === 0 ? "wg " + w[0] : "wg (" + w.join(",") + ")";
  }
  function unitName(u, level) {
    if (!u) return "?";
    if (level === "inter-workgroup" || u.warp === undefined || u.warp === null) return wg(u.workgroup);
    if (level === "intra-warp") return "lanes of warp " + u.warp;
    return "warp " + u.warp;
  }
  function kindName(k) {
    return k === "ww" ? "write-write" : "read-write";
  }
  function regionName(g, level) {
    if (!g || (g.from_line == null && g.to_line == null)) return level && level !== "inter-workgroup" ? "kernel start to kernel end" : "whole dispatch";
    const at = (l, none) => (l == null ? none : "barrier at line " + l);
    return at(g.from_line, "kernel start") + " to " + at(g.to_line, "kernel end");
  }
  function rangesText(words, max) {
    const shown = (words || []).slice(0, max).map((r) => (r[1] - r[0] === 1 ? String(r[0]) : r[0] + ".." + r[1]));
    const more = (words || []).length > max ? " (+" + (words.length - max) + " more ranges)" : "";
    return shown.join(", ") + more;
  }
  function wordCount(words) {
    let n = 0;
    for (const r of words || []) n += r[1] - r[0];
    return n;
  }
  // Light yellow to dark red, t in [0, 1].
  function heat(t) {
    t = Math.max(0, Math.min(1, t));
    const stops = [
      [255, 237, 160],
      [254, 178, 76],
      [240, 59, 32],
      [128, 0, 38],
    ];
    const x = t * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(x));
    const f = x - i;
    const c = stops[i].map((v, k) => Math.round(v + (stops[i + 1][k] - v) * f));
    return "rgb(" + c.join(",") + ")";
  }

  // ------------------------------------------------------------ the page

  const racy = reports.filter((r) => (r.races || []).length > 0 || r.race_records > 0);
  const totalRaces = reports.reduce((n, r) => n + (r.races || []).length, 0);
  document.getElementById("ld-summary").textContent =
    reports.length === 0
      ? "no check reports"
      : plural(reports.length, "launch", "launches") +
        " checked; " +
        (racy.length === 0 ? "no races found" : racy.length + " with races, " + plural(totalRaces, "race") + " in all");

  if (reports.length > 1) {
    const t = el("table", { class: "index" }, el("tr", {}, el("th", {}, "#"), el("th", {}, "kernel"), el("th", {}, "backend"), el("th", {}, "verdict"), el("th", {}, "races")));
    reports.forEach((r, i) => {
      const races = (r.races || []).length;
      t.appendChild(
        el(
          "tr",
          {},
          el("td", { class: "num" }, el("a", { href: "#launch-" + (i + 1) }, String(i + 1))),
          el("td", {}, code(r.kernel)),
          el("td", {}, backend(r)),
          el("td", {}, r.race_records > 0 ? "RACES" : "no races"),
          el("td", { class: "num" }, fmt(races))
        )
      );
    });
    root.appendChild(el("section", { class: "launch" }, el("h2", {}, "Launches"), t));
  }

  reports.forEach((r, i) => root.appendChild(launch(r, i + 1)));

  function launch(r, n) {
    const races = r.races || [];
    const s = el("section", { class: "launch", id: "launch-" + n, "data-kernel": r.kernel });
    const has = r.race_records > 0 || races.length > 0;
    s.appendChild(el("h2", {}, "#" + n + " kernel ", code(r.kernel), el("span", { class: "verdict " + (has ? "racy" : "clean") }, has ? "RACES" : "no races")));
    s.appendChild(
      el(
        "p",
        { class: "meta" },
        "backend: " + backend(r) + " · units: " + fmt(r.workgroups) + " workgroups × " + fmt(r.warps_per_workgroup) + " warps of " + r.warp_size + " invocations",
        r.elapsed_ms != null ? " · checked in " + r.elapsed_ms.toFixed(1) + " ms" : ""
      )
    );
    const counts = [
      ["races", races.length],
      ["regions analysed", r.regions_analyzed],
      ["regions with races", r.regions_with_races],
      ["units involved", r.units_with_races],
      ["words involved", r.words_with_races],
      ["race records", r.race_records],
    ];
    if (r.records_dropped > 0) counts.push(["records counted, not detailed", r.records_dropped]);
    s.appendChild(el("table", { class: "counts" }, counts.map((c) => el("tr", {}, el("td", {}, c[0]), el("td", { class: "num", "data-count": c[0] }, fmt(c[1]))))));
    if (races.some((x) => x.level === "intra-warp")) {
      s.appendChild(
        el("p", { class: "note" }, "Lanes of one warp raced: the other entries (and deterministic output at this warp size) depend on the order the device runs a warp's lanes in.")
      );
    }
    const checked = r.checked || [];
    s.appendChild(el("h3", {}, "Checked"));
    if (checked.length === 0) s.appendChild(el("p", { class: "none" }, "nothing: no memory is written"));
    else
      s.appendChild(
        el(
          "table",
          { class: "checked" },
          el("tr", {}, el("th", {}, "variable"), el("th", {}, "memory"), el("th", {}, "treatment"), el("th", {}, "words")),
          checked.map((c) => el("tr", {}, el("td", {}, code(c.name)), el("td", {}, c.memory), el("td", {}, c.treatment), el("td", { class: "num" }, c.words != null ? fmt(c.words) : "")))
        )
      );
    if (races.length > 0) {
      s.appendChild(el("h3", {}, "Racing words"));
      s.appendChild(strips(r));
      s.appendChild(el("h3", {}, "Who raced with whom"));
      s.appendChild(matrices(r));
      s.appendChild(el("h3", {}, "Regions"));
      s.appendChild(timeline(r));
      s.appendChild(el("h3", {}, "Races"));
      races.forEach((x, k) => s.appendChild(race(x, k + 1, n)));
      if (r.records_dropped > 0) s.appendChild(el("p", { class: "meta" }, fmt(r.records_dropped) + " race records beyond the record buffer were counted but not detailed"));
    }
    const oob = r.out_of_bounds || [];
    if (oob.length > 0) {
      s.appendChild(el("h3", {}, "Indices out of bounds"));
      s.appendChild(
        el("p", { class: "note" }, "The run went on as WGSL allows: a read there gave the array's last element, a write or an atomic there did nothing. Each invocation's first index out of bounds is counted.")
      );
      for (const o of oob) {
        const index = o.min_index === o.max_index ? "index " + o.min_index : "indices " + o.min_index + " to " + o.max_index;
        const box = access({ kind: index + " into " + (o.array ? o.array : "an array") + " of length " + o.len, file: o.file, line: o.line, column: o.column, source: o.source });
        box.classList.add("oob");
        s.appendChild(box);
      }
    }
    if (r.buffers) s.appendChild(el("p", { class: "meta" }, "buffers: " + r.buffers));
    return s;
  }

  // ------------------------------------------------------------ heat strips

  // One strip per variable: its words bucketed along x, each bucket coloured
  // by the number of races on its words.
  function strips(r) {
    const box = el("div", { class: "strips" });
    const races = r.races || [];
    const vars = [];
    for (const c of r.checked || []) if (c.treatment === "privatized" || c.words != null) vars.push({ name: c.name, memory: c.memory, words: c.words });
    for (const x of races) if (!vars.some((v) => v.name === x.variable)) vars.push({ name: x.variable, memory: x.memory, words: null });
    const W = 760;
    for (const v of vars) {
      const mine = races.map((x, k) => [x, k + 1]).filter((p) => p[0].variable === v.name);
      let seen = 0;
      for (const p of mine) for (const w of p[0].words || []) seen = Math.max(seen, w[1]);
      const extent = Math.max(v.words || 0, seen);
      const div = el("div", { class: "strip", "data-variable": v.name });
      const racing = new Set();
      for (const p of mine) for (const w of p[0].words || []) for (let k = w[0]; k < w[1] && racing.size < 1e6; k++) racing.add(k);
      div.appendChild(
        el(
          "div",
          {},
          el("span", { class: "label" }, code(v.name)),
          " (" + v.memory + (v.words != null ? ", " + fmt(v.words) + " words" : "") + "): ",
          mine.length === 0 ? "no races" : plural(mine.length, "race") + " on " + plural(racing.size, "word") + (extent > 0 ? " (" + ((100 * racing.size) / extent).toFixed(1) + "%)" : "")
        )
      );
      if (extent === 0 || mine.length === 0) {
        box.appendChild(div);
        continue;
      }
      const nb = Math.min(extent, 256);
      const lo = (k) => Math.ceil((k * extent) / nb);
      const bucket = (w) => Math.min(nb - 1, Math.floor((w * nb) / extent));
      // Per bucket: the races on its words, its racing words, and the most
      // races on any one of its words (the colour).
      const races_ = new Array(nb).fill(null).map(() => new Set());
      const words = new Array(nb).fill(0);
      const depth = new Array(nb).fill(0);
      const events = [];
      for (const p of mine) {
        for (const w of p[0].words || []) {
          events.push([w[0], 1], [w[1], -1]);
          for (let k = bucket(w[0]); k <= bucket(w[1] - 1); k++) races_[k].add(p[1]);
        }
      }
      events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      let cover = 0;
      for (let e = 0; e < events.length; e++) {
        cover += events[e][1];
        const from = events[e][0];
        const to = e + 1 < events.length ? events[e + 1][0] : from;
        if (cover <= 0 || to <= from) continue;
        for (let k = bucket(from); k <= bucket(to - 1); k++) {
          words[k] += Math.min(to, lo(k + 1)) - Math.max(from, lo(k));
          depth[k] = Math.max(depth[k], cover);
        }
      }
      let most = 1;
      for (const d of depth) most = Math.max(most, d);
      const bw = W / nb;
      const g = sv("svg", { width: W + 60, height: 44, viewBox: "0 0 " + (W + 60) + " 44", role: "img" });
      g.appendChild(sv("rect", { x: 0, y: 0, width: W, height: 22, fill: "#eceff3" }));
      for (let k = 0; k < nb; k++) {
        if (depth[k] === 0) continue;
        const ids = Array.from(races_[k]);
        g.appendChild(
          sv(
            "rect",
            { x: (k * bw).toFixed(2), y: 0, width: Math.max(bw, 1.5).toFixed(2), height: 22, fill: heat(most === 1 ? 0.7 : 0.2 + (0.8 * (depth[k] - 1)) / (most - 1)), "data-races": depth[k] },
            sv("title", {}, "words " + lo(k) + ".." + lo(k + 1) + ": " + fmt(words[k]) + " racing, up to " + plural(depth[k], "race") + " on one word; races #" + ids.slice(0, 10).join(", #") + (ids.length > 10 ? ", ..." : ""))
          )
        );
      }
      g.appendChild(sv("rect", { x: 0, y: 0, width: W, height: 22, fill: "none", stroke: "#9aa3af" }));
      g.appendChild(sv("text", { x: 0, y: 36 }, "0"));
      g.appendChild(sv("text", { x: W, y: 36, "text-anchor": "end" }, fmt(extent)));
      g.appendChild(sv("text", { x: W / 2, y: 36, "text-anchor": "middle", fill: "#5b6472" }, "word offset (" + (extent / nb === 1 ? "one word" : (extent / nb).toFixed(1) + " words") + " per bucket)"));
      div.appendChild(g);
      box.appendChild(div);
    }
    box.appendChild(el("div", { class: "legend" }, "colour: the most races on one word of the bucket, from one (light) to the most on any word (dark); grey: no race; hover a bucket for its words and races"));
    return box;
  }

  // ------------------------------------------------------------ unit matrices

  // Per level, the units that raced: a cell per pair (both writers of a
  // write-write race), on the diagonal a race of one unit (a reader, or
  // the lanes of one warp).
  function matrices(r) {
    const box = el("div", { class: "matrices" });
    const levels = ["inter-workgroup", "inter-warp", "intra-warp"];
    for (const level of levels) {
      const races = (r.races || []).map((x, k) => [x, k + 1]).filter((p) => p[0].level === level);
      if (races.length === 0) continue;
      const key = (u) => (level === "inter-workgroup" ? (u.workgroup || []).join(",") : String(u.warp));
      const units = new Map();
      const cells = new Map();
      for (const p of races) {
        const us = p[0].units || [];
        for (const u of us) {
          const k = key(u);
          if (!units.has(k)) units.set(k, { u: u, n: 0, sort: level === "inter-workgroup" ? u.workgroup[2] * 1e10 + u.workgroup[1] * 1e5 + u.workgroup[0] : u.warp });
          units.get(k).n += 1;
        }
        const a = us[0] ? key(us[0]) : null;
        const b = us[1] ? key(us[1]) : a;
        if (a === null) continue;
        for (const pair of a === b ? [[a, a]] : [[a, b], [b, a]]) {
          const ck = pair[0] + "|" + pair[1];
          if (!cells.has(ck)) cells.set(ck, { races: [], words: 0 });
          const c = cells.get(ck);
          c.races.push(p[1]);
          c.words += wordCount(p[0].words) * Math.max(1, (p[0].workgroups || []).length);
        }
      }
      let list = Array.from(units.entries()).sort((x, y) => x[1].sort - y[1].sort);
      const max = 48;
      let hidden = 0;
      if (list.length > max) {
        hidden = list.length - max;
        list = list
          .slice()
          .sort((x, y) => y[1].n - x[1].n)
          .slice(0, max)
          .sort((x, y) => x[1].sort - y[1].sort);
      }
      const n = list.length;
      const cs = Math.max(10, Math.min(30, Math.floor(520 / n)));
      const label = (e) => unitName(e[1].u, level === "intra-warp" ? "inter-warp" : level);
      const longest = Math.max(...list.map((e) => label(e).length));
      const lw = Math.round(longest * 6.2 + 12);
      const size = lw + n * cs + 10;
      let most = 1;
      for (const c of cells.values()) most = Math.max(most, c.races.length);
      const g = sv("svg", { width: size, height: size, viewBox: "0 0 " + size + " " + size, class: "matrix", "data-level": level, role: "img" });
      list.forEach((e, i) => {
        g.appendChild(sv("text", { x: lw - 4, y: lw + i * cs + cs / 2 + 4, "text-anchor": "end" }, label(e)));
        g.appendChild(sv("text", { x: 0, y: 0, transform: "translate(" + (lw + i * cs + cs / 2 + 4) + "," + (lw - 4) + ") rotate(-60)" }, label(e)));
      });
      list.forEach((ea, i) => {
        list.forEach((eb, j) => {
          const c = cells.get(ea[0] + "|" + eb[0]);
          const attrs = { x: lw + j * cs, y: lw + i * cs, width: cs - 1, height: cs - 1, fill: c ? heat(c.races.length / most) : i === j ? "#e3e7ed" : "#f3f5f8" };
          if (!c) {
            g.appendChild(sv("rect", attrs));
            return;
          }
          attrs["data-races"] = c.races.length;
          g.appendChild(
            sv(
              "rect",
              attrs,
              sv("title", {}, label(ea) + (i === j ? " alone" : " with " + label(eb)) + ": " + plural(c.races.length, "race") + " (#" + c.races.slice(0, 12).join(", #") + (c.races.length > 12 ? ", ..." : "") + "), " + fmt(c.words) + " racing words")
            )
          );
          if (cs >= 16) g.appendChild(sv("text", { x: lw + j * cs + cs / 2 - 0.5, y: lw + i * cs + cs / 2 + 4, "text-anchor": "middle", fill: c.races.length / most > 0.5 ? "#fff" : "#1d2430" }, c.races.length));
        });
      });
      const wgs = new Set();
      for (const p of races) for (const w of p[0].workgroups || []) wgs.add(w.join(","));
      box.appendChild(
        el(
          "div",
          { class: "matrix-box" },
          el("div", {}, el("b", {}, level), ": " + plural(n, "unit") + (hidden ? " shown (" + hidden + " more not shown)" : "") + (wgs.size ? ", the same warps in " + plural(wgs.size, "workgroup") : "")),
          g
        )
      );
    }
    box.appendChild(
      el("div", { class: "legend" }, "cell: races between the row's and the column's unit (the number drawn); diagonal: races of one unit (a reader that saw another unit's write, or lanes of one warp)")
    );
    return box;
  }

  // ------------------------------------------------------------ region timeline

  // The kernel's barriers in source order between its start and end, each
  // race drawn over the region it happened in.
  function timeline(r) {
    const races = r.races || [];
    const bars = (r.barriers || []).map((b) => ({ line: b.line, kind: b.kind }));
    // Older reports carry no barriers: take the lines the regions name.
    for (const x of races) {
      for (const l of [x.region && x.region.from_line, x.region && x.region.to_line]) {
        if (l != null && !bars.some((b) => b.line === l)) bars.push({ line: l, kind: null });
      }
    }
    if (!r.barriers) bars.sort((a, b) => a.line - b.line);
    const pts = ["kernel start"].concat(bars.map((b) => (b.kind === "storage" ? "storage_barrier()" : b.kind === "workgroup" ? "barrier()" : "barrier") + " line " + b.line), ["kernel end"]);
    const idx = (l, none) => {
      if (l == null) return none;
      const i = bars.findIndex((b) => b.line === l);
      return i < 0 ? none : i + 1;
    };
    const W = 760;
    const left = 150;
    const step = (W - 20) / (pts.length - 1);
    const X = (i) => left + 10 + i * step;
    const shown = races.slice(0, 60);
    const rowH = 18;
    const top = 34;
    const H = top + shown.length * rowH + 10;
    const g = sv("svg", { width: left + W + 20, height: H, viewBox: "0 0 " + (left + W + 20) + " " + H, class: "timeline", role: "img" });
    pts.forEach((p, i) => {
      const edge = i === 0 || i === pts.length - 1;
      g.appendChild(sv("line", { x1: X(i), x2: X(i), y1: 22, y2: H - 4, stroke: edge ? "#9aa3af" : bars[i - 1].kind === "storage" ? "#3465a4" : "#1d2430", "stroke-width": edge ? 1 : 2, "stroke-dasharray": edge ? "3,3" : null }));
      g.appendChild(sv("text", { x: X(i), y: 12, "text-anchor": i === 0 ? "start" : i === pts.length - 1 ? "end" : "middle" }, p));
    });
    shown.forEach((x, k) => {
      const y = top + k * rowH;
      const whole = !x.region || (x.region.from_line == null && x.region.to_line == null);
      let a = whole ? 0 : idx(x.region.from_line, 0);
      let b = whole ? pts.length - 1 : idx(x.region.to_line, pts.length - 1);
      const back = b < a;
      if (back) [a, b] = [b, a];
      if (a === b) b = Math.min(pts.length - 1, a + 1);
      const colour = x.kind === "ww" ? "#d7301f" : "#fc8d59";
      g.appendChild(sv("text", { x: left, y: y + 12, "text-anchor": "end" }, "#" + (k + 1) + " " + x.variable + " " + x.kind));
      g.appendChild(
        sv(
          "rect",
          { x: X(a) + 2, y: y + 2, width: Math.max(4, X(b) - X(a) - 4), height: rowH - 5, rx: 3, fill: colour, "fill-opacity": back ? 0.45 : 0.85, stroke: back ? colour : null, "stroke-dasharray": back ? "4,2" : null, "data-race": k + 1 },
          sv("title", {}, "#" + (k + 1) + " " + kindName(x.kind) + " on " + x.variable + " (" + x.level + "), " + regionName(x.region, x.level) + (back ? " (back to an earlier barrier: a loop)" : ""))
        )
      );
    });
    const box = el("div", { class: "timeline-box" }, g);
    if (races.length > shown.length) box.appendChild(el("p", { class: "meta" }, races.length - shown.length + " more races not drawn"));
    box.appendChild(el("div", { class: "legend" }, "dark lines: barrier() (workgroup memory); blue: storage_barrier() (storage memory); dashed bars run back to an earlier barrier (a loop); a bar over the whole kernel is a race between workgroups (nothing orders them)"));
    return box;
  }

  // ------------------------------------------------------------ one race

  function race(x, k, n) {
    const d = el("div", { class: "race " + x.kind, id: "launch-" + n + "-race-" + k, "data-variable": x.variable });
    d.appendChild(el("h4", {}, "#" + k + " ", el("span", { class: "kind" }, kindName(x.kind)), " race on " + x.memory + " ", code(x.variable), " (" + x.level + ")"));
    const rows = [];
    rows.push(["region", regionName(x.region, x.level)]);
    const us = (x.units || []).map((u) => unitName(u, x.level));
    let who = us.join(" and ");
    if (x.evidence === "read" && us.length === 1) who = us[0] + " read another " + (x.level === "inter-workgroup" ? "workgroup" : "warp") + "'s write";
    if (x.evidence === "read-before" && us.length === 1) who = us[0] + " read a word another warp wrote after the barrier";
    rows.push(["units", who]);
    const wgs = x.workgroups || [];
    if (wgs.length) rows.push(["in", plural(wgs.length, "workgroup") + ": " + wgs.slice(0, 8).map(wg).join(", ") + (wgs.length > 8 ? ", ..." : "")]);
    rows.push(["evidence", { writes: "values written differ when the unit runs on the others' writes", read: "a read returned another unit's write of the same epoch", lanes: "lanes of one warp touched the word in one region", "read-before": "a read of an earlier region, before a barrier that does not order the memory, and another unit's write after it" }[x.evidence] || x.evidence]);
    rows.push([x.evidence === "read" || x.evidence === "read-before" || x.evidence === "lanes" ? "words read" : "words", plural(wordCount(x.words), "word") + ": " + rangesText(x.words, 12)]);
    const places = x.places || [];
    if (places.length) {
      const more = wordCount(x.words) - places.length;
      rows.push(["places", el("span", { class: "places" }, places.map((p) => code(p)), more > 0 ? " and " + fmt(more) + " more" : "")]);
    }
    if (x.grouped) rows.push(["round", "found in round " + x.round + " under the memory budget: each unit named stands for the group sharing its copy"]);
    d.appendChild(el("dl", {}, rows.map((row) => [el("dt", {}, row[0]), el("dd", {}, row[1])])));
    if (x.note) d.appendChild(el("div", { class: "note" }, x.note));
    const acc = x.accesses || [];
    if (acc.length === 0) d.appendChild(el("div", { class: "none" }, "no source locations in this report"));
    for (const a of acc) d.appendChild(access(a));
    return d;
  }

  function access(a) {
    const where = [el("b", {}, a.kind || "access"), " at ", code((a.file || "?") + ":" + a.line + ":" + a.column)];
    if (a.unit) where.push(" by " + (a.unit.warp != null ? "warp " + a.unit.warp + " of " + wg(a.unit.workgroup) : wg(a.unit.workgroup)));
    if (a.global_id) where.push(", global id (" + a.global_id.join(", ") + ")");
    if (a.local_id) where.push(", local id (" + a.local_id.join(", ") + ")");
    if (a.count != null && a.count > 1) where.push(" · " + fmt(a.count) + " times");
    const box = el("div", { class: "access", "data-line": a.line }, el("div", { class: "where" }, where));
    if (typeof a.source === "string") {
      // By characters, as Rust's column!() counts them.
      let chars = Array.from(a.source);
      // Without the indentation (up to the column).
      let lead = 0;
      while (lead < chars.length && lead < (a.column || 1) - 1 && /\s/.test(chars[lead])) lead++;
      chars = chars.slice(lead);
      const src = { length: chars.length, slice: (i, j) => chars.slice(i, j).join("") };
      const tabs = (t) => t.replace(/\t/g, "    ");
      const ln = String(a.line) + " | ";
      // Columns count characters from 1 (Rust's column!()).
      const c = Math.max(0, Math.min(src.length, (a.column || 1) - 1 - lead));
      let e = c;
      while (e < chars.length && /[A-Za-z0-9_]/.test(chars[e])) e++;
      if (e === c && c < src.length) e = c + 1;
      box.appendChild(
        el(
          "pre",
          { class: "src" },
          el("span", { class: "ln" }, ln),
          tabs(src.slice(0, c)),
          el("mark", {}, tabs(src.slice(c, e))),
          tabs(src.slice(e)),
          "\n",
          el("span", { class: "ln" }, " ".repeat(ln.length)),
          tabs(src.slice(0, c)).replace(/[^\t]/g, " "),
          el("span", { class: "caret" }, "^")
        )
      );
    }
    return box;
  }

  document.body.dataset.ld = "ok";
})();
