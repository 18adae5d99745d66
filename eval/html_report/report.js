"use strict";
(async function () {
  const el = (tag, props = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c);
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

  const data = await unpack("report-data");
  const { runs, queries, names } = data;
  const byId = new Map(queries.map((q) => [q.id, q]));
  const form = document.getElementById("filters");
  const hopsSelect = form.elements.hops, runSelect = form.elements.run;
  [...new Set(queries.map((q) => q.hops))].sort((a, b) => a - b).forEach((h) => hopsSelect.append(el("option", { value: String(h), text: String(h) })));
  runs.forEach((r, i) => runSelect.append(el("option", { value: String(i), text: r.label })));

  // State lives in the URL fragment: #subtask=IV&hops=2&run=0&wrong&disagree&search=text&q=query-id
  // A malformed escape in a hand-edited link ("%E0%A4") is taken as it is, not as a reason to stop.
  function decoded(text) {
    try { return decodeURIComponent(text); } catch (error) { return text; }
  }
  function readState() {
    const state = { subtask: "", hops: "", run: "", outcome: "", disagree: false, search: "", q: "" };
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      if (!part) continue;
      const [k, ...rest] = part.split("=");
      const key = decoded(k), value = decoded(rest.join("=").replace(/\+/g, " "));
      if (key === "wrong" || key === "right") state.outcome = key;
      else if (key === "disagree") state.disagree = true;
      else if (key in state) state[key] = value;
    }
    return state;
  }
  function writeState(state) {
    const parts = [];
    for (const k of ["subtask", "hops", "run", "search", "q"]) if (state[k]) parts.push(`${k}=${encodeURIComponent(state[k])}`);
    if (state.outcome) parts.push(state.outcome);
    if (state.disagree) parts.push("disagree");
    const hash = parts.length ? "#" + parts.join("&") : "";
    if (hash !== location.hash) history.pushState(null, "", hash || location.pathname + location.search);
    render();
  }

  const correctIn = (q, i) => q.runs[i].predicted && q.runs[i].correct;
  function keep(q, s) {
    if (s.subtask && q.subtask !== s.subtask) return false;
    if (s.hops && String(q.hops) !== s.hops) return false;
    const chosen = s.run === "" ? runs.map((_, i) => i) : [Number(s.run)];
    if (s.outcome === "wrong" && !chosen.some((i) => !correctIn(q, i))) return false;
    if (s.outcome === "right" && !chosen.every((i) => correctIn(q, i))) return false;
    if (s.disagree && new Set(q.runs.map((_, i) => correctIn(q, i))).size < 2) return false;
    if (s.search) {
      const text = [q.id, q.question, q.answer, q.perception || "", q.extra || ""].join(" ").toLowerCase();
      if (!text.includes(s.search.toLowerCase())) return false;
    }
    return true;
  }

  function mark(q, i) {
    const r = q.runs[i];
    const kind = !r.predicted ? "none" : r.correct ? "right" : "wrong";
    const m = el("span", { class: `mark ${kind}`, text: kind === "right" ? "✓" : kind === "wrong" ? "✗" : "–" });
    m.title = `${runs[i].label}: ${kind === "none" ? "no prediction" : kind}`;
    return m;
  }

  const name = (id) => names[id] || id;
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

  function detail(q) {
    const box = document.getElementById("detail");
    box.replaceChildren();
    const truthPaths = new Set(q.truth.map(key));
    const truthHops = new Set(q.truth.flatMap((p) => p.slice(1).map((id, k) => p[k] + ">" + id)));
    box.append(el("h3", { text: `${q.id} · sub-task ${q.subtask} · ${q.hops} hop${q.hops === 1 ? "" : "s"} · ${q.monster}` }));
    box.append(el("h4", { text: "Question as the model saw it" }), el("pre", { class: "question", text: q.question }));
    if (q.extra) box.append(el("h4", { text: "Auxiliary information" }), el("pre", { text: q.extra }));
    if (q.perception) box.append(el("h4", { text: "Perception (human description of the scene)" }), el("pre", { text: q.perception }));
    if (q.media.length) {
      const media = el("div", { class: "media" });
      q.media.forEach((src, k) => media.append(el("img", { src, alt: `media ${k + 1} of ${q.id}` })));
      box.append(el("h4", { text: "Media" }), media);
    }
    box.append(el("h4", { text: "Reference answer" }), el("pre", { class: "reference", text: q.answer }));
    box.append(el("h4", { text: "Ground-truth paths" }));
    const truth = el("ul", { class: "paths truth" });
    q.truth.forEach((p) => {
      const li = el("li", { class: "path" });
      li.append(el("span", { text: p.map(name).join(" → ") }));
      q.runs.forEach((r, i) => {
        const found = r.predicted && r.paths.some((x) => key(x) === key(p));
        const m = el("span", { class: `mark ${found ? "right" : "wrong"}`, text: found ? "✓" : "✗" });
        m.title = `${runs[i].label}: ${found ? "retrieved" : "not retrieved"}`;
        li.append(m);
      });
      truth.append(li);
    });
    box.append(truth);
    q.runs.forEach((r, i) => {
      const block = el("div", { class: "run-block" });
      block.style.borderLeftColor = runs[i].colour;
      block.append(el("h4", { text: `${runs[i].label} (${runs[i].setting}, ${runs[i].model})` }));
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
    box.append(el("h4", { text: "Subgraph touched (hover an edge for its relation and condition)" }));
    const picture = el("div", { class: "subgraph" });
    picture.innerHTML = q.svg; // built and escaped by the report generator, never from run output
    box.append(picture);
  }

  function render() {
    const s = readState();
    form.elements.subtask.value = s.subtask; hopsSelect.value = s.hops; runSelect.value = s.run;
    form.elements.outcome.value = s.outcome; form.elements.disagree.checked = s.disagree;
    if (document.activeElement !== form.elements.search) form.elements.search.value = s.search;
    const shown = queries.filter((q) => keep(q, s));
    const list = document.getElementById("query-list");
    list.replaceChildren(...shown.map((q) => {
      const li = el("li", { "data-id": q.id, class: q.id === s.q ? "open" : "" },
        el("span", { class: "qid", text: q.id }), " ",
        el("span", { class: "meta", text: `${q.subtask} · ${q.hops} hop${q.hops === 1 ? "" : "s"}` }));
      q.runs.forEach((_, i) => li.append(mark(q, i)));
      li.append(el("span", { class: "q", text: q.asks }));
      li.addEventListener("click", () => writeState({ ...readState(), q: q.id }));
      return li;
    }));
    document.getElementById("count").textContent = `${shown.length} of ${queries.length} queries`;
    if (s.q && byId.has(s.q)) detail(byId.get(s.q));
    document.body.dataset.ready = "true";
  }

  form.addEventListener("change", () => {
    const f = form.elements;
    writeState({ ...readState(), subtask: f.subtask.value, hops: f.hops.value, run: f.run.value,
                 outcome: f.outcome.value, disagree: f.disagree.checked, search: f.search.value });
  });
  form.addEventListener("input", (e) => { if (e.target.name === "search") writeState({ ...readState(), search: e.target.value }); });
  form.addEventListener("submit", (e) => e.preventDefault());
  window.addEventListener("hashchange", render);
  window.addEventListener("popstate", render);
  render();
})();
