// The runs page: the table (sort, filter, pagination), upload with progress, compare selection.
import { api, badge, fmtNum, fmtTime, h, session, showError } from "./common.js";

const PAGE = 25;
const COLUMNS = [
  ["name", "Name"], ["project", "Project"], ["format", "Format"], ["verdict", "Verdict"],
  ["findings", "Findings", "num"], ["points", "Points", "num"], ["last_step", "Last step", "num"],
  ["created_at", "Uploaded"],
];
const state = { runs: [], sort: "created_at", desc: true, page: 0, selected: new Set() };

async function loadAll() {
  const label = document.getElementById("filter-label").value;
  const out = [];
  for (let offset = 0; offset < 5000; offset += 500) {
    const q = new URLSearchParams({ limit: 500, offset });
    if (label) q.set("label", label);
    const page = await api("/v1/runs?" + q);
    out.push(...page.items);
    if (out.length >= page.total || page.items.length === 0) break;
  }
  return out;
}

function fillSelect(id, values) {
  const sel = document.getElementById(id);
  const current = sel.value;
  const first = sel.options[0];
  sel.replaceChildren(first, ...[...values].sort().map((v) => h("option", { value: v }, v)));
  sel.value = values.has(current) ? current : "";
}

function visible() {
  const name = document.getElementById("filter-name").value.trim().toLowerCase();
  const verdict = document.getElementById("filter-verdict").value;
  const rows = state.runs.filter(
    (r) => (!name || r.name.toLowerCase().includes(name)) && (!verdict || r.verdict === verdict));
  const k = state.sort;
  rows.sort((a, b) => {
    const x = a[k] ?? "", y = b[k] ?? "";
    const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
    return state.desc ? -c : c;
  });
  return rows;
}

function render() {
  const rows = visible();
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  state.page = Math.min(state.page, pages - 1);
  const shown = rows.slice(state.page * PAGE, (state.page + 1) * PAGE);
  const head = h("tr", {}, h("th", {}, ""), COLUMNS.map(([key, title, cls]) =>
    h("th", { class: cls, "aria-sort": state.sort === key ? (state.desc ? "descending" : "ascending") : null },
      h("button", { onclick: () => { state.desc = state.sort === key ? !state.desc : key !== "name"; state.sort = key; render(); } },
        title + (state.sort === key ? (state.desc ? " ▾" : " ▴") : "")))));
  const body = shown.map((r) => h("tr", { "data-run": r.id },
    h("td", {}, h("input", { type: "checkbox", "aria-label": "select " + r.name, checked: state.selected.has(r.id),
      onchange: (e) => { e.target.checked ? state.selected.add(r.id) : state.selected.delete(r.id); updateCompare(); } })),
    h("td", {}, h("a", { href: "/runs/" + r.id }, r.name)),
    h("td", {}, r.project), h("td", {}, r.format || "–"), h("td", {}, badge(r.verdict)),
    h("td", { class: "num", title: (r.labels || []).join(", ") }, fmtNum(r.findings ?? 0)),
    h("td", { class: "num" }, fmtNum(r.points)), h("td", { class: "num" }, fmtNum(r.last_step)),
    h("td", {}, fmtTime(r.created_at))));
  const table = shown.length ? h("table", { id: "runs" }, h("thead", {}, head), h("tbody", {}, body))
    : h("p", { class: "muted" }, state.runs.length ? "No run matches the filters." : "No runs yet: upload one above.");
  document.getElementById("table").replaceChildren(table);
  document.getElementById("count").textContent = `${rows.length} of ${state.runs.length} runs`;
  document.getElementById("page").textContent = `page ${state.page + 1} of ${pages}`;
  document.getElementById("prev").disabled = state.page === 0;
  document.getElementById("next").disabled = state.page >= pages - 1;
}

function updateCompare() {
  document.getElementById("compare").disabled = state.selected.size < 2;
}

async function refresh() {
  try {
    state.runs = await loadAll();
    fillSelect("filter-verdict", new Set(state.runs.map((r) => r.verdict)));
    if (!document.getElementById("filter-label").value)
      fillSelect("filter-label", new Set(state.runs.flatMap((r) => r.labels || [])));
    render();
  } catch (err) {
    showError(document.getElementById("table"), err);
  }
}

// -- upload ------------------------------------------------------------------------------------

async function entriesOf(entry, prefix) {
  if (entry.isFile) return [await new Promise((ok, ko) => entry.file((f) => ok({ file: f, path: prefix + f.name }), ko))];
  const reader = entry.createReader();
  const out = [];
  for (;;) {
    const batch = await new Promise((ok, ko) => reader.readEntries(ok, ko));
    if (!batch.length) break;
    for (const e of batch) out.push(...await entriesOf(e, prefix + entry.name + "/"));
  }
  return out;
}

function upload(items) {
  if (!items.length) return;
  const form = new FormData();
  for (const { file, path } of items) form.append("file", file, path || file.name);
  const status = document.getElementById("upload-status");
  const bar = document.getElementById("progress");
  const q = document.getElementById("duplicate").checked ? "?duplicate=true" : "";
  const xhr = new XMLHttpRequest();
  xhr.open("POST", "/v1/runs" + q);
  xhr.responseType = "json";
  bar.hidden = false;
  bar.value = 0;
  status.className = "muted";
  status.textContent = `Uploading ${items.length} file(s)…`;
  xhr.upload.onprogress = (e) => {
    if (e.lengthComputable) bar.value = e.loaded / e.total;
  };
  xhr.upload.onload = () => { status.textContent = "Reading and diagnosing…"; };
  xhr.onload = () => {
    bar.hidden = true;
    const body = xhr.response || {};
    if (xhr.status === 401) return location.assign("/signin?next=/");
    if (xhr.status === 200 || xhr.status === 201) {
      status.textContent = xhr.status === 200 ? "Already uploaded: opening it." : "Done.";
      location.assign("/runs/" + body.runs[0].id);
    } else {
      status.className = "error";
      status.textContent = `Upload refused (${xhr.status}): ${body.detail || body.title || "error"}`;
    }
  };
  xhr.onerror = () => { bar.hidden = true; status.className = "error"; status.textContent = "Upload failed: network error."; };
  xhr.send(form);
}

function wireUpload() {
  const drop = document.getElementById("drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", async (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const entries = [...e.dataTransfer.items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
    const items = entries.length ? (await Promise.all(entries.map((en) => entriesOf(en, "")))).flat()
      : [...e.dataTransfer.files].map((f) => ({ file: f, path: f.name }));
    upload(items);
  });
  document.getElementById("pick-files").addEventListener("change", (e) =>
    upload([...e.target.files].map((f) => ({ file: f, path: f.name }))));
  document.getElementById("pick-folder").addEventListener("change", (e) =>
    upload([...e.target.files].map((f) => ({ file: f, path: f.webkitRelativePath || f.name }))));
}

async function main() {
  if (!(await session())) return;
  wireUpload();
  document.getElementById("filter-name").addEventListener("input", () => { state.page = 0; render(); });
  document.getElementById("filter-verdict").addEventListener("change", () => { state.page = 0; render(); });
  document.getElementById("filter-label").addEventListener("change", () => { state.page = 0; refresh(); });
  document.getElementById("prev").addEventListener("click", () => { state.page--; render(); });
  document.getElementById("next").addEventListener("click", () => { state.page++; render(); });
  document.getElementById("compare").addEventListener("click", () =>
    location.assign("/compare?ids=" + [...state.selected].join(",")));
  await refresh();
}

main();
