// Vyre Memory web page: plain JavaScript over the HTTP API (/v1). No build step.
// The thinking state is shown synchronously on submit, before any request is sent.
"use strict";

const $ = (sel) => document.querySelector(sel);
const token = (() => {
  const fromUrl = new URLSearchParams(location.search).get("token");
  if (fromUrl) {
    localStorage.setItem("vyre-token", fromUrl);
    history.replaceState(null, "", location.pathname);
  }
  return localStorage.getItem("vyre-token");
})();

function headers(extra) {
  const h = Object.assign({ "Content-Type": "application/json" }, extra || {});
  if (token) h.Authorization = "Bearer " + token;
  return h;
}

async function api(method, path, body) {
  const res = await fetch(path, { method, headers: headers(), body: body ? JSON.stringify(body) : undefined });
  const data = await res.json().catch(() => ({ error: { message: res.statusText } }));
  if (res.status === 401) throw new Error(`This server needs a token: open ${location.origin}/?token=YOUR_TOKEN`);
  if (!res.ok) throw new Error((data.error && data.error.message) || res.statusText);
  return data;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function when(ts) {
  if (!ts) return "";
  const d = new Date(ts);
  if (isNaN(d)) return ts;
  return d.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

function toast(text) {
  const t = $("#toast");
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), 2600);
}

// -- theme and tabs ------------------------------------------------------------------------------
$("#theme").addEventListener("click", () => {
  const next = document.documentElement.dataset.theme === "dark" ? "light" : "dark";
  document.documentElement.dataset.theme = next;
  localStorage.setItem("vyre-theme", next);
});

function show(view) {
  for (const tab of document.querySelectorAll(".tab")) tab.setAttribute("aria-selected", String(tab.dataset.view === view));
  $("#view-ask").hidden = view !== "ask";
  $("#view-graph").hidden = view !== "graph";
  if (view === "graph") loadGraph();
  else $("#question").focus();
}
for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => show(tab.dataset.view));

// -- asking ----------------------------------------------------------------------------------------
const STAGES = { understanding: "Understanding the question…", searching: "Searching your sessions…",
                 reading: "Reading what was said…", checking: "Checking the answer…" };

function thinking(stage) {
  const status = $("#status");
  status.hidden = false;
  status.dataset.stage = stage || "understanding";
  $("#stage").textContent = STAGES[stage] || "Thinking…";
  let reached = true;
  for (const li of status.querySelectorAll("li")) {
    li.classList.toggle("done", reached && li.dataset.stage !== stage);
    li.classList.toggle("now", li.dataset.stage === stage);
    if (li.dataset.stage === stage) reached = false;
  }
}

async function ask(question) {
  if (!question.trim()) return;
  // Shown at once, before the request leaves: the person sees memory working within a frame.
  performance.clearMarks();
  performance.mark("vyre-submit");
  thinking("understanding");
  performance.mark("vyre-thinking-shown");
  document.body.dataset.asking = "1";
  $("#answer").hidden = true;
  $("#error").hidden = true;
  $("#ask-btn").disabled = true;
  try {
    const res = await fetch("/v1/ask", {
      method: "POST",
      headers: headers({ Accept: "text/event-stream" }),
      body: JSON.stringify({ question, stream: true }),
    });
    if (!res.ok) {
      const data = await res.json().catch(() => ({}));
      throw new Error((data.error && data.error.message) || res.statusText);
    }
    const result = await readEvents(res);
    if (result) render(result);
    performance.mark("vyre-answer-shown");
  } catch (err) {
    $("#error").textContent = err.message;
    $("#error").hidden = false;
  } finally {
    $("#status").hidden = true;
    $("#ask-btn").disabled = false;
    delete document.body.dataset.asking;
  }
}

async function readEvents(res) {
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let result = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5)).join("\n");
      if (!data) continue;
      const ev = JSON.parse(data);
      if (!performance.getEntriesByName("vyre-first-event").length) performance.mark("vyre-first-event");
      if (ev.event === "memory.thinking") thinking(ev.stage);
      else if (ev.event === "result") result = ev.result;
      else if (ev.error) throw new Error(ev.error.message);
    }
  }
  return result;
}

function render(r) {
  const box = $("#answer");
  box.hidden = false;
  box.classList.toggle("abstained", r.abstained);
  $("#answer-text").textContent = r.abstained ? "Not sure." : r.answer;
  const meta = $("#answer-meta");
  meta.replaceChildren(...[
    r.abstained ? null : el("span", { class: "pill conf" }, `${Math.round(r.confidence * 100)}% sure`),
    r.via ? el("span", { class: "pill" }, r.via === "fact" ? "from your facts" : "from your sessions") : null,
    el("span", { class: "pill subtle" }, r.latency_ms < 1 ? "under 1 ms" : `${Math.round(r.latency_ms)} ms`),
  ].filter(Boolean));
  const known = r.abstained ? r.known || [] : [];
  $("#known").hidden = known.length === 0;
  $("#known-list").replaceChildren(...known.map((k) => el("li", {}, k)));
  const sources = r.sources || [];
  $("#sources").hidden = sources.length === 0;
  $("#source-list").replaceChildren(...sources.map(sourceItem));
}

function sourceItem(s) {
  return el("li", { class: "source" },
    el("button", { class: "source-btn", type: "button", title: "Show the conversation around this",
                   onclick: () => openTurns(s) },
      el("blockquote", {}, s.quote),
      el("div", { class: "source-meta" },
        el("span", { class: "who-said" }, s.name || ""),
        s.project ? el("span", { class: "project" }, s.project) : null,
        el("span", { class: "time" }, when(s.ts)),
        el("span", { class: "session", title: s.session }, `${s.session.slice(0, 8)} #${s.seq}`),
      )));
}

// A tool call is stored as its name, then "field: value" lines (a value may run over several lines).
const TOOL_TARGET = ["file_path", "notebook_path", "path", "command", "pattern", "url", "query", "description"];

function toolFields(text) {
  const fields = [];
  for (const line of text.split("\n").slice(1)) {
    const m = /^([a-z_]{2,30}): ?(.*)$/.exec(line);
    if (m) fields.push([m[1], m[2]]);
    else if (fields.length) fields[fields.length - 1][1] += "\n" + line;
  }
  return fields;
}

function clip(text, n) {
  return text.length > n ? text.slice(0, n) + "…" : text;
}

function toolCall(t) {
  const name = t.tool_name || t.text.split("\n", 1)[0];
  const fields = toolFields(t.text);
  const get = (k) => (fields.find(([key]) => key === k) || [])[1];
  const targetKey = TOOL_TARGET.find((k) => get(k) !== undefined);
  const before = get("old_string"), after = get("new_string");
  const shown = new Set([targetKey, "old_string", "new_string"]);
  const rest = fields.filter(([k]) => !shown.has(k));
  const diff = (text, mark, cls) => (text === undefined ? [] : clip(text, 1200).split("\n").map((l) =>
    el("span", { class: cls }, `${mark} ${l}\n`)));
  return el("div", { class: "turn-text tool-call" },
    el("div", { class: "tool-head" },
      el("span", { class: "tool-name" }, name),
      targetKey ? el("code", { class: "tool-target" }, clip(get(targetKey), 300)) : null),
    before !== undefined || after !== undefined
      ? el("pre", { class: "tool-diff" }, diff(before, "−", "del"), diff(after, "+", "ins")) : null,
    rest.length ? el("details", { class: "tool-input" }, el("summary", {}, "input"),
      el("pre", {}, clip(rest.map(([k, v]) => `${k}: ${v}`).join("\n"), 2000))) : null);
}

function turnBody(t) {
  if (t.kind === "tool_call") return toolCall(t);
  if (t.kind === "tool_output") {
    return el("details", { class: "turn-text tool-output" },
      el("summary", {}, `output${t.tool_name ? " of " + t.tool_name : ""}: ${clip(t.text.split("\n", 1)[0], 120)}`),
      el("pre", {}, clip(t.text, 2000)));
  }
  return el("div", { class: "turn-text" }, clip(t.text, 1200));
}

async function openTurns(s) {
  const drawer = $("#drawer");
  drawer.hidden = false;
  $("#drawer-turns").replaceChildren(el("li", { class: "hint" }, "Loading…"));
  try {
    const data = await api("GET", `/v1/sessions/${encodeURIComponent(s.session)}/turns?start=${Math.max(0, s.seq - 3)}&end=${s.seq + 4}`);
    const info = data.session;
    $("#drawer-title").textContent = info.title || "Conversation";
    $("#drawer-meta").replaceChildren(
      el("span", { class: "pill" }, info.project || info.cwd || "no project"),
      el("span", { class: "pill subtle" }, when(info.first_ts)),
    );
    $("#drawer-turns").replaceChildren(...data.turns.map((t) =>
      el("li", { class: `turn ${t.role} ${t.seq === s.seq ? "cited" : ""}` },
        el("div", { class: "turn-head" }, el("strong", {}, t.name || t.role), el("span", { class: "time" }, when(t.ts))),
        turnBody(t))));
    const cited = $("#drawer-turns .cited");
    if (cited) {
      cited.querySelectorAll("details").forEach((d) => (d.open = true));  // the cited words, unfolded
      cited.scrollIntoView({ block: "center" });
    }
  } catch (err) {
    $("#drawer-turns").replaceChildren(el("li", { class: "error" }, err.message));
  }
}

$("#drawer-close").addEventListener("click", () => ($("#drawer").hidden = true));
$("#drawer").addEventListener("click", (e) => { if (e.target.id === "drawer") $("#drawer").hidden = true; });
document.addEventListener("keydown", (e) => { if (e.key === "Escape") $("#drawer").hidden = true; });

$("#ask-form").addEventListener("submit", (e) => {
  e.preventDefault();
  ask($("#question").value);
});
for (const chip of document.querySelectorAll("#examples .chip")) {
  chip.addEventListener("click", () => { $("#question").value = chip.textContent; ask(chip.textContent); });
}

// -- the graph -------------------------------------------------------------------------------------
const KINDS = [["person", "People"], ["project", "Projects"], ["decision", "Decisions"], ["organisation", "Organisations"]];
const KIN = new Set(["wife", "husband", "partner", "son", "daughter", "child", "mother", "father", "sister", "brother",
  "friend", "boss", "manager", "colleague", "dog", "cat", "pet"]);
let graph = { entities: [], edges: [] };

async function loadGraph() {
  try {
    graph = await api("GET", "/v1/graph");
    drawGraph();
    loadFacts();
  } catch (err) {
    $("#graph").replaceChildren(el("p", { class: "error" }, err.message));
  }
}

function drawGraph() {
  const filter = $("#graph-filter").value.trim().toLowerCase();
  const byId = Object.fromEntries(graph.entities.map((e) => [e.id, e]));
  const columns = KINDS.map(([kind, label]) => {
    const items = graph.entities.filter((e) => e.kind === kind &&
      (!filter || [e.name, ...e.aliases].some((n) => n.toLowerCase().includes(filter))));
    if (!items.length) return null;
    return el("div", { class: `column ${kind}` },
      el("h3", {}, label, el("span", { class: "count" }, items.length)),
      ...items.map((e) => entityCard(e, byId)));
  });
  $("#graph").replaceChildren(...columns.filter(Boolean));
  drawMap(byId);
  if (!graph.entities.length) $("#graph").append(el("p", { class: "hint" }, "Nothing yet: run vyre ingest."));
}

// A map that reads left to right: people, then projects and organisations, then decisions.
const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function drawMap(byId) {
  const map = $("#map");
  const cols = [["person"], ["project", "organisation"], ["decision"]];
  const width = 900, rowH = 34, pad = 26;
  const placed = {};
  const rows = Math.max(1, ...cols.map((kinds) => graph.entities.filter((e) => kinds.includes(e.kind)).length));
  const height = pad * 2 + (rows - 1) * rowH;
  cols.forEach((kinds, c) => {
    const items = graph.entities.filter((e) => kinds.includes(e.kind));
    const top = pad + ((rows - items.length) * rowH) / 2;
    items.forEach((e, i) => (placed[e.id] = { x: [90, 360, 610][c], y: top + i * rowH, e }));
  });
  map.setAttribute("viewBox", `0 0 ${width} ${height}`);
  map.replaceChildren();
  for (const x of graph.edges) {
    const a = placed[x.src], b = placed[x.dst];
    if (!a || !b) continue;
    const d = a.x === b.x
      ? `M${a.x},${a.y} C${a.x - 70},${a.y} ${b.x - 70},${b.y} ${b.x},${b.y}`
      : `M${a.x},${a.y} C${(a.x + b.x) / 2},${a.y} ${(a.x + b.x) / 2},${b.y} ${b.x},${b.y}`;
    const path = svg("path", { d, class: `map-edge ${x.status !== "current" ? "old" : ""}` });
    path.append(svg("title", {}, `${byId[x.src].name} — ${x.relation.replace(/_/g, " ")} → ${byId[x.dst].name}`));
    map.append(path);
  }
  for (const { x, y, e } of Object.values(placed)) {
    const label = e.name.length > 34 ? e.name.slice(0, 33) + "…" : e.name;
    const g = svg("g", { class: `map-node ${e.kind}`, transform: `translate(${x},${y})`, tabindex: "0" });
    g.append(svg("circle", { r: e.pinned ? 7 : 5.5, class: `dot-${e.kind}` }),
             svg("text", { x: 12, y: 4 }, label), svg("title", {}, `${e.kind}: ${e.name}`));
    g.addEventListener("click", () => {
      const card = document.querySelector(`.entity[data-id="${e.id}"]`);
      if (!card) return;
      card.classList.add("editing", "flash");
      card.scrollIntoView({ behavior: "smooth", block: "center" });
      setTimeout(() => card.classList.remove("flash"), 1200);
    });
    map.append(g);
  }
}

function relationText(x, e, byId) {
  const rel = x.relation.replace(/_/g, " ");
  if (x.src === e.id) return [rel, byId[x.dst] ? byId[x.dst].name : "?"];
  const src = byId[x.src];
  if (!src) return [rel, "?"];
  if (src.kind !== "person") return [src.kind, src.name];
  return KIN.has(x.relation) ? [`${src.name}'s ${rel}`, ""] : [`${src.name} ${rel}`, ""];
}

function entityCard(e, byId) {
  const edges = graph.edges.filter((x) => x.src === e.id || x.dst === e.id);
  const card = el("article", { class: `entity ${e.pinned ? "pinned" : ""} ${e.status !== "current" ? "old" : ""}`,
                               "data-entity": e.name, "data-id": e.id },
    el("div", { class: "entity-head" },
      el("span", { class: `dot ${e.kind}` }),
      el("strong", { class: "entity-name", title: e.name }, e.name),
      e.pinned ? el("span", { class: "pin", title: "Pinned" }, "★") : null,
      el("button", { class: "icon-btn edit-btn", type: "button", "aria-label": `Edit ${e.name}`,
                     onclick: () => card.classList.toggle("editing") }, "✎")),
    e.aliases.length ? el("div", { class: "aliases" }, ...e.aliases.map((a) =>
      el("span", { class: "chip alias" }, a,
        el("button", { class: "x", type: "button", title: `Remove alias ${a}`, "aria-label": `Remove alias ${a}`,
                       onclick: () => edit(e, "DELETE", "aliases", { alias: a }, `Removed alias ${a}`) }, "×")))) : null,
    edges.length ? el("ul", { class: "edges" }, ...edges.map((x) => {
      const [a, b] = relationText(x, e, byId);
      return el("li", { class: x.status !== "current" ? "old" : "" }, el("span", { class: "rel" }, a), b ? " " + b : "");
    })) : null,
    editor(e));
  return card;
}

function editor(e) {
  const others = graph.entities.filter((o) => o.id !== e.id && o.kind === e.kind);
  const field = (label, placeholder, action, name) => {
    const input = el("input", { type: "text", placeholder, "aria-label": `${label} ${e.name}`, name });
    return el("form", { class: "edit-row", onsubmit: (ev) => { ev.preventDefault(); if (input.value.trim()) action(input.value.trim()); } },
      input, el("button", { type: "submit" }, label));
  };
  const select = el("select", { "aria-label": `Merge into ${e.name}` },
    el("option", { value: "" }, "Merge another into this…"), ...others.map((o) => el("option", { value: o.id }, o.name)));
  let armed = false;
  return el("div", { class: "editor" },
    field("Add alias", "another name, e.g. the ops lead", (v) => edit(e, "POST", "aliases", { alias: v }, `${e.name} is also “${v}”`), "alias"),
    field("Rename", e.name, (v) => edit(e, "POST", "rename", { new_name: v }, `Renamed to ${v}`), "rename"),
    others.length ? el("form", { class: "edit-row", onsubmit: (ev) => { ev.preventDefault();
      if (select.value) edit(e, "POST", "merge", { other: select.value }, "Merged"); } },
      select, el("button", { type: "submit" }, "Merge")) : null,
    el("div", { class: "edit-row actions" },
      el("button", { type: "button", onclick: () => edit(e, "POST", "pin", { pinned: !e.pinned }, e.pinned ? "Unpinned" : "Pinned") },
        e.pinned ? "Unpin" : "Pin"),
      el("button", { type: "button", class: "danger", onclick: (ev) => {
        if (!armed) { armed = true; ev.target.textContent = "Really delete?"; return; }
        api("DELETE", `/v1/graph/entities/${encodeURIComponent(e.id)}`).then(() => { toast(`Deleted ${e.name}`); loadGraph(); })
          .catch((err) => toast(err.message));
      } }, "Delete")));
}

async function edit(e, method, op, body, done) {
  try {
    await api(method, `/v1/graph/entities/${encodeURIComponent(e.id)}/${op}`, body);
    toast(done);
    await loadGraph();
  } catch (err) {
    toast(err.message);
  }
}

async function loadFacts() {
  try {
    const data = await api("GET", "/v1/facts");
    $("#facts").replaceChildren(...data.facts.map((f) =>
      el("li", { class: `fact ${f.status}`, "data-fact": f.id },
        el("span", { class: "fact-text" }, el("strong", {}, f.subject === "user" ? "You" : f.subject), " ",
          f.relation.replace(/_/g, " "), " ", el("strong", {}, f.object)),
        el("span", { class: "pill subtle" }, `${Math.round(f.confidence * 100)}%`),
        f.status !== "current" ? el("span", { class: "pill subtle" }, f.status) : null,
        el("button", { class: "icon-btn", type: "button", title: "Delete this fact", "aria-label": `Delete fact ${f.relation} ${f.object}`,
                       onclick: () => api("DELETE", `/v1/facts/${f.id}`).then(() => { toast("Fact deleted"); loadFacts(); })
                         .catch((err) => toast(err.message)) }, "✕"))));
    if (!data.facts.length) $("#facts").append(el("li", { class: "hint" }, "No personal facts yet."));
  } catch (err) {
    $("#facts").replaceChildren(el("li", { class: "hint" }, err.message));
  }
}
$("#graph-filter").addEventListener("input", drawGraph);

// -- who am I ----------------------------------------------------------------------------------------
api("GET", "/v1/health").then((h) => {
  const c = h.caller;
  $("#who").textContent = c.kind === "owner" ? `${h.turns.toLocaleString()} turns remembered`
    : c.kind === "agent" ? `agent · ${c.projects.join(", ")}` : `project · ${c.projects.join(", ")}`;
  if (c.kind === "agent") $("#tab-graph").hidden = true;
}).catch((err) => { $("#who").textContent = err.message; });
