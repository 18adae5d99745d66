"use strict";
(async function () {
  const SVG = "http://www.w3.org/2000/svg";
  const el = (tag, props = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c);
    return node;
  };
  const svgEl = (tag, attrs = {}, text) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };

  async function unpack(id) {
    const b64 = document.getElementById(id).textContent.trim();
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  // Leaderboard: sort by a column on click (numbers by their data-value, text otherwise).
  document.querySelectorAll("table.sortable th").forEach((th, col) => {
    th.addEventListener("click", () => {
      const body = th.closest("table").tBodies[0];
      const desc = !th.classList.contains("desc");
      th.parentNode.querySelectorAll("th").forEach((h) => h.classList.remove("asc", "desc"));
      th.classList.add(desc ? "desc" : "asc");
      const key = (row) => {
        const cell = row.cells[col];
        if (th.dataset.sort === "num") { const v = parseFloat(cell.dataset.value); return isNaN(v) ? -Infinity : v; }
        return cell.textContent.trim().toLowerCase();
      };
      const rows = [...body.rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * (desc ? -1 : 1));
      rows.forEach((r) => body.append(r));
    });
  });
  const reportedToggle = document.getElementById("show-reported");
  if (reportedToggle) reportedToggle.addEventListener("change", () => document.body.classList.toggle("hide-reported", !reportedToggle.checked));

  // Comparison: one block of tables per baseline; the select shows one.
  const baseline = document.getElementById("baseline");
  if (baseline) baseline.addEventListener("change", () => {
    document.querySelectorAll(".versus").forEach((v) => v.classList.toggle("shown", v.dataset.baseline === baseline.value));
  });

  const data = await unpack("report-data");
  const { runs, queries, entities, relations, types } = data;
  const byId = new Map(queries.map((q) => [q.id, q]));
  const form = document.getElementById("filters");
  const f = form.elements;
  const option = (value, text) => el("option", { value: String(value), text: String(text) });
  [...new Set(queries.map((q) => q.hops))].sort((a, b) => a - b).forEach((h) => f.hops.append(option(h, h)));
  runs.forEach((r, i) => f.run.append(option(i, r.label)));
  [...new Set(queries.flatMap((q) => q.runs.map((r) => r.rule || "")))].filter(Boolean).sort().forEach((r) => f.rule.append(option(r, r)));
  const monsters = new Map(queries.map((q) => [q.mid, q.monster]));
  [...monsters].sort((a, b) => a[1].localeCompare(b[1])).forEach(([id, n]) => f.monster.append(option(id, n)));

  // State lives in the URL fragment: #subtask=IV&hops=2&run=0&wrong&rule=…&monster=…&disagree&search=text&q=query-id
  const FIELDS = ["subtask", "hops", "run", "rule", "monster", "search", "q"];
  // A malformed escape in a hand-edited link ("%E0%A4") is taken as it is, not as a reason to stop.
  function decoded(text) {
    try { return decodeURIComponent(text); } catch (error) { return text; }
  }
  function readState() {
    const state = { subtask: "", hops: "", run: "", rule: "", monster: "", outcome: "", disagree: false, search: "", q: "" };
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      if (!part) continue;
      const [k, ...rest] = part.split("=");
      const key = decoded(k), value = decoded(rest.join("=").replace(/\+/g, " "));
      if (key === "wrong" || key === "right") state.outcome = key;
      else if (key === "disagree") state.disagree = true;
      else if (FIELDS.includes(key)) state[key] = value;
    }
    return state;
  }
  const filtering = (s) => FIELDS.some((k) => k !== "q" && s[k]) || s.outcome || s.disagree;
  function writeState(state, scroll) {
    const parts = [];
    for (const k of FIELDS) if (state[k]) parts.push(`${k}=${encodeURIComponent(state[k])}`);
    if (state.outcome) parts.push(state.outcome);
    if (state.disagree) parts.push("disagree");
    const hash = parts.length ? "#" + parts.join("&") : "";
    if (hash !== location.hash) history.pushState(null, "", hash || location.pathname + location.search);
    render(scroll);
  }

  const correctIn = (q, i) => q.runs[i].predicted && q.runs[i].correct;
  function keep(q, s) {
    if (s.subtask && q.subtask !== s.subtask) return false;
    if (s.hops && String(q.hops) !== s.hops) return false;
    if (s.monster && q.mid !== s.monster) return false;
    const chosen = s.run === "" ? runs.map((_, i) => i) : [Number(s.run)];
    const ruled = s.rule ? chosen.filter((i) => q.runs[i] && q.runs[i].rule === s.rule) : chosen;
    if (!ruled.length) return false;
    if (s.outcome === "wrong" && !ruled.some((i) => !correctIn(q, i))) return false;
    if (s.outcome === "right" && !ruled.every((i) => correctIn(q, i))) return false;
    if (s.disagree && new Set(q.runs.map((_, i) => correctIn(q, i))).size < 2) return false;
    if (s.search) {
      const text = [q.id, q.question, q.answer, q.perception || "", q.extra || ""].join(" ").toLowerCase();
      if (!text.includes(s.search.toLowerCase())) return false;
    }
    return true;
  }

  // A run's mark: a chip in the run's colour with ✓ (right), ✗ (wrong) or – (no prediction).
  function mark(i, kind, what) {
    const m = el("span", { class: `mark ${kind}`, text: kind === "right" ? "✓" : kind === "wrong" ? "✗" : "–" });
    m.style.setProperty("--run", runs[i].colour);
    m.title = `${runs[i].label}: ${what}`;
    return m;
  }
  const outcome = (q, i) => (!q.runs[i].predicted ? "none" : q.runs[i].correct ? "right" : "wrong");

  const name = (id) => (entities[id] ? entities[id][0] : id);
  const key = (path) => path.join(">");

  function pathItem(path, truthPaths, truthHops) {
    const li = el("li", { class: "path" });
    path.forEach((id, k) => {
      if (k > 0) {
        const ok = truthHops.has(path[k - 1] + ">" + id);
        li.append(el("span", { class: ok ? "hop-ok" : "hop-off", text: " → ", title: ok ? "hop on a ground-truth path" : "hop off the ground truth" }));
      }
      li.append(el("span", { text: name(id), title: id }));
    });
    li.classList.add(truthPaths.has(key(path)) ? "match" : "miss");
    return li;
  }

  // ---- The subgraph of a query, drawn when it is opened ------------------------------------
  const GREY = "#7f8c8d";
  const textWidth = (() => {
    const ctx = document.createElement("canvas").getContext("2d");
    return (text, font) => { ctx.font = font; return ctx.measureText(text).width; };
  })();

  function subgraph(q) {
    const drawn = q.runs.map((r) => (r.predicted ? r.paths.slice(0, data.drawn) : []).filter((p) => p.every((id) => id in entities)));
    const truth = q.truth.filter((p) => p.every((id) => id in entities));
    const column = new Map(), order = [];
    for (const p of [...truth, ...drawn.flat()]) {
      p.forEach((id, hop) => {
        if (!column.has(id)) order.push(id);
        column.set(id, Math.min(column.has(id) ? column.get(id) : hop, hop));
      });
    }
    const edges = new Map();
    const edge = (a, b) => { const k = a + ">" + b; if (!edges.has(k)) edges.set(k, { a, b, truth: false, runs: [] }); return edges.get(k); };
    truth.forEach((p) => p.slice(1).forEach((id, k) => { edge(p[k], id).truth = true; }));
    drawn.forEach((paths, i) => paths.forEach((p) => p.slice(1).forEach((id, k) => {
      const e = edge(p[k], id); if (!e.runs.includes(i)) e.runs.push(i);
    })));
    // The label: the name, and the monster when another entity in the picture has the same name.
    const count = new Map();
    order.forEach((id) => count.set(name(id), (count.get(name(id)) || 0) + 1));
    const label = (id) => { const [n, , owner] = entities[id]; return count.get(n) > 1 && owner ? `${n} (${owner})` : n; };
    const FONT = "13px system-ui, sans-serif", PADX = 10, H = 28, GAP_Y = 12, GAP_X = 78, M = 14;
    const columns = [];
    order.forEach((id) => { const c = column.get(id); (columns[c] = columns[c] || []).push(id); });
    const box = new Map();
    const heights = columns.map((ids) => (ids || []).length * (H + GAP_Y) - GAP_Y);
    const height = Math.max(...heights, H) + 2 * M;
    let x = M;
    columns.forEach((ids = []) => {
      const w = Math.max(...ids.map((id) => textWidth(label(id), FONT) + 2 * PADX), 40);
      let y = (height - (ids.length * (H + GAP_Y) - GAP_Y)) / 2;
      ids.forEach((id) => { box.set(id, { x, y, w, h: H }); y += H + GAP_Y; });
      x += w + GAP_X;
    });
    const width = x - GAP_X + M + 40;
    const legendRows = 1 + runs.length;
    const full = height + 18 * legendRows + 10;
    const svg = svgEl("svg", { viewBox: `0 0 ${Math.ceil(width)} ${Math.ceil(full)}`, class: "kg", role: "img",
      "font-family": "system-ui, sans-serif", "font-size": 13, "aria-label": `subgraph of ${q.id}` });
    svg.style.maxWidth = Math.ceil(width) + "px";
    const defs = svgEl("defs");
    const colours = [GREY, ...runs.map((r) => r.colour)];
    colours.forEach((c, k) => {
      const m = svgEl("marker", { id: `arrow-${k}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" });
      m.append(svgEl("path", { d: "M0,0 L10,5 L0,10 z", fill: c }));
      defs.append(m);
    });
    svg.append(defs);
    const curve = (a, b, dy) => {
      const A = box.get(a), B = box.get(b);
      const y1 = A.y + A.h / 2 + dy, y2 = B.y + B.h / 2 + dy;
      if (B.x > A.x + A.w) {
        const x1 = A.x + A.w, x2 = B.x - 2, bend = Math.max((x2 - x1) / 2, 20);
        return `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`;
      }
      const x1 = A.x + A.w, x2 = B.x + B.w + 2, reach = Math.max(x1, x2) + 26 + Math.min(Math.abs(y2 - y1) / 6, 30);
      return `M${x1},${y1} C${reach},${y1} ${reach},${y2} ${x2},${y2}`;
    };
    for (const e of edges.values()) {
      const cls = e.truth && e.runs.length ? "found" : e.truth ? "missed" : "extra";
      const g = svgEl("g", { class: cls });
      const who = e.runs.map((i) => runs[i].label).join(", ");
      const rel = relations[e.a + ">" + e.b] || `${name(e.a)} → ${name(e.b)} (no such relation)`;
      g.append(svgEl("title", {}, `${rel}\n${e.truth ? "ground truth" : "not ground truth"}${who ? "; retrieved by " + who : "; retrieved by no run"}`));
      if (e.truth) g.append(svgEl("path", { d: curve(e.a, e.b, 0), fill: "none", stroke: GREY, "stroke-width": e.runs.length ? 7 : 2,
        "stroke-opacity": e.runs.length ? 0.28 : 0.9, "stroke-dasharray": e.runs.length ? "" : "6 4",
        "marker-end": e.runs.length ? "" : "url(#arrow-0)" }));
      e.runs.forEach((i, k) => {
        const dy = (k - (e.runs.length - 1) / 2) * 3;
        g.append(svgEl("path", { d: curve(e.a, e.b, dy), fill: "none", stroke: runs[i].colour, "stroke-width": 2,
          "marker-end": `url(#arrow-${i + 1})` }));
      });
      svg.append(g);
    }
    const truthNodes = new Set(truth.flat());
    for (const [id, b] of box) {
      const [n, type, owner] = entities[id];
      const colour = types[type] || "#555";
      const g = svgEl("g", { class: truthNodes.has(id) ? "truth" : "retrieved", "data-id": id });
      g.append(svgEl("title", {}, `${n} (${type.replace(/_/g, " ")}${owner ? ", " + owner : ""})`));
      g.append(svgEl("rect", { x: b.x, y: b.y, width: b.w, height: b.h, rx: 6, fill: "#fff" }));
      g.append(svgEl("rect", { x: b.x, y: b.y, width: b.w, height: b.h, rx: 6, fill: colour, "fill-opacity": 0.12,
        stroke: colour, "stroke-width": truthNodes.has(id) ? 2.4 : 1.2, "stroke-dasharray": truthNodes.has(id) ? "" : "4 3" }));
      g.append(svgEl("text", { x: b.x + b.w / 2, y: b.y + b.h / 2 + 4.5, "text-anchor": "middle" }, label(id)));
      svg.append(g);
    }
    let ly = height + 16;
    const legendLine = (colour, text, dashed, wide) => {
      svg.append(svgEl("line", { x1: M, x2: M + 26, y1: ly - 4, y2: ly - 4, stroke: colour, "stroke-width": wide ? 7 : 2,
        "stroke-opacity": wide ? 0.28 : 1, "stroke-dasharray": dashed ? "6 4" : "" }));
      svg.append(svgEl("text", { x: M + 34, y: ly }, text));
      ly += 18;
    };
    legendLine(GREY, "ground truth (grey band; dashed where no run retrieved it); solid box = on a ground-truth path", false, true);
    runs.forEach((r) => legendLine(r.colour, `retrieved by ${r.label}`));
    return svg;
  }

  function typeLegend(q) {
    const used = new Set([...q.truth.flat(), ...q.runs.flatMap((r) => (r.predicted ? r.paths.slice(0, data.drawn).flat() : []))]
      .filter((id) => id in entities).map((id) => entities[id][1]));
    const list = el("ul", { class: "legend types" });
    [...used].forEach((t) => {
      const s = el("span", { class: "swatch" }); s.style.background = types[t] || "#555";
      list.append(el("li", {}, s, t.replace(/_/g, " ")));
    });
    return list;
  }

  function detail(q) {
    const box = document.getElementById("detail");
    box.replaceChildren();
    const truthPaths = new Set(q.truth.map(key));
    const truthHops = new Set(q.truth.flatMap((p) => p.slice(1).map((id, k) => p[k] + ">" + id)));
    const title = el("h3", { text: `${q.id} · sub-task ${q.subtask} · ${q.hops} hop${q.hops === 1 ? "" : "s"} · ${q.monster}` });
    q.runs.forEach((_, i) => title.append(mark(i, outcome(q, i), { right: "right", wrong: "wrong", none: "no prediction" }[outcome(q, i)])));
    box.append(title);
    box.append(el("h4", { text: "Question as the model saw it" }), el("pre", { class: "question", text: q.question }));
    const answers = el("table", { class: "answers" });
    answers.append(el("tr", {}, el("th", { text: "Reference" }), el("td", { class: "reference", text: q.answer }), el("td")));
    q.runs.forEach((r, i) => {
      const who = el("th", {});
      const sw = el("span", { class: "swatch" }); sw.style.background = runs[i].colour;
      who.append(sw, runs[i].label);
      const verdict = !r.predicted ? "– no prediction" : `${r.correct ? "✓ accepted" : "✗ not accepted"}${r.rule ? " (" + r.rule + ")" : ""}` +
        ` · P ${(100 * r.precision).toFixed(0)} · R ${(100 * r.recall).toFixed(0)}`;
      answers.append(el("tr", {}, who, el("td", { text: r.predicted ? r.answer : "" }),
        el("td", { class: `verdict ${r.predicted && r.correct ? "right" : "wrong"}`, text: verdict })));
    });
    box.append(el("h4", { text: "Answers" }), answers);
    if (q.key) box.append(el("h4", { text: "Answer key (what the exact judge checks)" }), el("pre", { class: "key", text: q.key }));
    box.append(el("h4", { text: "Subgraph touched (hover an edge for its relation and who retrieved it)" }));
    const picture = el("div", { class: "subgraph" });
    picture.append(subgraph(q), typeLegend(q));
    box.append(picture);
    box.append(el("h4", { text: "Ground-truth paths (one mark per run: ✓ retrieved, ✗ not)" }));
    const truth = el("ul", { class: "paths truth" });
    q.truth.forEach((p) => {
      const li = el("li", { class: "path" });
      li.append(el("span", { text: p.map(name).join(" → ") }));
      q.runs.forEach((r, i) => {
        const found = r.predicted && r.paths.some((x) => key(x) === key(p));
        li.append(mark(i, found ? "right" : "wrong", found ? "retrieved" : "not retrieved"));
      });
      truth.append(li);
    });
    box.append(truth);
    if (q.extra) box.append(el("h4", { text: "Auxiliary information" }), el("pre", { text: q.extra }));
    if (q.perception) box.append(el("h4", { text: "Perception (human description of the scene)" }), el("pre", { text: q.perception }));
    if (q.media.length) {
      const media = el("div", { class: "media" });
      q.media.forEach((src, k) => media.append(el("img", { src, alt: `media ${k + 1} of ${q.id}` })));
      box.append(el("h4", { text: "Media" }), media);
    }
    q.runs.forEach((r, i) => {
      const block = el("div", { class: "run-block" });
      block.style.borderLeftColor = runs[i].colour;
      const head = el("h4", {});
      const sw = el("span", { class: "swatch" }); sw.style.background = runs[i].colour;
      head.append(sw, `${runs[i].label} (${runs[i].name})`);
      block.append(head);
      if (!r.predicted) {
        block.append(el("p", { class: "verdict wrong", text: "No prediction for this query (counted as wrong)." }));
      } else {
        const verdict = el("p", { class: `verdict ${r.correct ? "right" : "wrong"}`,
          text: `${r.correct ? "✓ accepted" : "✗ not accepted"}${r.rule ? " (" + r.rule + ")" : ""} · precision ${(100 * r.precision).toFixed(1)} · recall ${(100 * r.recall).toFixed(1)}` });
        block.append(el("pre", { class: "answer", text: r.answer }), verdict);
        if (r.verdict) block.append(el("pre", { class: "judge", text: "Judge: " + r.verdict }));
        const list = el("ul", { class: "paths predicted" });
        r.paths.forEach((p) => list.append(pathItem(p, truthPaths, truthHops)));
        block.append(el("div", { text: `Retrieved paths (${r.paths.length})` }), list);
      }
      if (r.calls.length) {
        const calls = el("details", { class: "calls" }, el("summary", { text: `Agent calls (${r.calls.length})` }));
        r.calls.forEach((c) => {
          const latency = typeof c.latency === "number" ? c.latency.toFixed(3) + " s" : "-";
          const call = el("details", { class: "call" }, el("summary", { text: `${c.agent} · ${latency}${c.cached ? " · cached" : ""}${c.attempts > 1 ? " · " + c.attempts + " attempts" : ""}` }));
          call.append(el("div", { text: "Prompt" }), el("pre", { class: "prompt", text: c.prompt || "(not recorded)" }),
                      el("div", { text: "Reply" }), el("pre", { class: "reply", text: c.reply || "(not recorded)" }));
          calls.append(call);
        });
        block.append(calls);
      }
      box.append(block);
    });
  }

  let opened = null;
  function render(scroll) {
    const s = readState();
    f.subtask.value = s.subtask; f.hops.value = s.hops; f.run.value = s.run; f.rule.value = s.rule; f.monster.value = s.monster;
    f.outcome.value = s.outcome; f.disagree.checked = s.disagree;
    if (document.activeElement !== f.search) f.search.value = s.search;
    const shown = queries.filter((q) => keep(q, s));
    const list = document.getElementById("query-list");
    list.replaceChildren(...shown.map((q) => {
      const li = el("li", { "data-id": q.id, class: q.id === s.q ? "open" : "" },
        el("span", { class: "qid", text: q.id }), " ",
        el("span", { class: "meta", text: `${q.subtask} · ${q.hops} hop${q.hops === 1 ? "" : "s"}` }));
      q.runs.forEach((_, i) => li.append(mark(i, outcome(q, i), { right: "right", wrong: "wrong", none: "no prediction" }[outcome(q, i)])));
      li.append(el("span", { class: "q", text: q.asks }));
      li.addEventListener("click", () => writeState({ ...readState(), q: q.id }, true));
      return li;
    }));
    document.getElementById("count").textContent = `${shown.length} of ${queries.length} queries`;
    if (s.q && byId.has(s.q) && s.q !== opened) detail(byId.get(s.q));
    opened = s.q && byId.has(s.q) ? s.q : null;
    // A link shows what it points to: the opened query, or the filtered list.
    if (scroll) {
      const item = opened && list.querySelector("li.open");
      if (item) list.scrollTop = item.offsetTop - list.clientHeight / 3;
      const target = opened ? document.getElementById("detail") : filtering(s) ? document.getElementById("browser") : null;
      if (target) target.scrollIntoView({ block: "start" });
    }
    document.body.dataset.ready = "true";
  }

  form.addEventListener("change", () => {
    writeState({ ...readState(), subtask: f.subtask.value, hops: f.hops.value, run: f.run.value, rule: f.rule.value,
                 monster: f.monster.value, outcome: f.outcome.value, disagree: f.disagree.checked, search: f.search.value });
  });
  form.addEventListener("input", (e) => { if (e.target.name === "search") writeState({ ...readState(), search: e.target.value }); });
  form.addEventListener("submit", (e) => e.preventDefault());
  window.addEventListener("hashchange", () => render(true));
  window.addEventListener("popstate", () => render(true));
  render(true);
})();
