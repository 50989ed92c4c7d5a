// The run page: chart of the downsampled series, findings, evidence, signs set aside, skipped,
// warnings, downloads.
// A live run (format "live", grown by POST /v1/runs/{id}/points) is polled every POLL_MS while
// the page is visible; when its points or diagnosis change the page is drawn again.
import { Chart, chartControls, color } from "./chart.js";
import { api, badge, fmtNum, fmtTime, h, session, showError } from "./common.js";

const POINTS = 2000;
const POLL_MS = 3000;
const runId = decodeURIComponent(location.pathname.split("/").pop());
const base = "/v1/runs/" + encodeURIComponent(runId);
let metrics = []; // [{metric, role, on}]
let chart;

const DEFAULT_ON = new Set(["train_loss", "val_loss", "lr"]);

function toSeries(view) {
  const on = new Set(metrics.filter((m) => m.on).map((m) => m.metric));
  return view.series.filter((s) => on.has(s.metric)).map((s) => {
    const i = metrics.findIndex((m) => m.metric === s.metric);
    return { label: s.metric, step: s.step, value: s.value, axis: s.role === "lr" ? "lr" : "y",
      color: color(i), dash: s.role.startsWith("val") ? [6, 3] : undefined };
  });
}

async function fetchView(start, end) {
  const q = new URLSearchParams({ points: POINTS });
  for (const m of metrics) if (m.on) q.append("metric", m.metric);
  if (start !== undefined) { q.set("start", start); q.set("end", end); }
  return api(`${base}/series?${q}`);
}

async function redraw() {
  if (!metrics.some((m) => m.on)) { chart.draw([]); return; }
  chart.full = null;
  const view = await fetchView();
  chart.draw(toSeries(view));
  const marks = view.series.flatMap((s) => s.value.map((v, i) => typeof v === "string" ? `${s.metric} ${v} at step ${s.step[i]}` : null)).filter(Boolean);
  document.getElementById("marks").textContent = marks.length ? "Non-finite values: " + marks.slice(0, 12).join("; ") + (marks.length > 12 ? ` (+${marks.length - 12} more)` : "") : "";
}

function picker() {
  const el = document.getElementById("picker");
  el.replaceChildren(...metrics.map((m, i) => h("label", {},
    h("input", { type: "checkbox", checked: m.on, "data-metric": m.metric,
      onchange: (e) => { m.on = e.target.checked; redraw(); } }),
    " ", h("span", { style: `color:${color(i)}` }, "■"), ` ${m.metric} `, h("span", { class: "muted" }, `(${m.role})`))));
}

function evidence(ev) {
  return h("dl", { class: "evidence" }, Object.entries(ev || {}).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, fmtNum(v))]));
}

function findings(d) {
  const el = document.getElementById("findings");
  if (!d.findings.length) { el.replaceChildren(h("p", {}, `No problem found: the run looks ${d.verdict}.`)); return; }
  el.replaceChildren(...d.findings.map((f) => h("div", { class: "card finding", "data-label": f.label },
    h("h3", {}, badge(f.label), ` confidence ${fmtNum(f.confidence)}`,
      f.span ? h("span", { class: "muted" }, ` · steps ${fmtNum(f.span.start_step)}–${fmtNum(f.span.end_step)}`) : ""),
    h("p", {}, f.summary),
    h("details", {}, h("summary", {}, "Evidence"), evidence(f.evidence)),
    f.causes && f.causes.length ? h("ol", {}, f.causes.map((c) => h("li", {},
      h("strong", {}, c.cause), h("span", { class: "muted" }, ` (score ${fmtNum(c.score)}${c.probe ? ", probe " + c.probe : ""})`),
      h("ul", {}, (c.checks || []).map((k) => h("li", {}, k)))))) : "")));
}

function listOrNone(id, items, fmt) {
  document.getElementById(id).replaceChildren(items.length ? h("ul", {}, items.map((x) => h("li", {}, fmt(x)))) : h("p", { class: "muted" }, "None."));
}

function downloads(run) {
  const link = (href, text, dl) => h("a", { class: "button", href, download: dl || null }, text);
  document.getElementById("downloads").replaceChildren(
    link(base, "Diagnosis JSON", `${run.name}.json`),
    link(`${base}/report.html`, "Report HTML"),
    link(`${base}/series?format=csv`, "Series CSV", `${run.name}.csv`),
    link(`${base}/series?format=parquet`, "Series Parquet", `${run.name}.parquet`),
    h("button", { class: "danger", id: "delete", onclick: async () => {
      if (!confirm(`Delete run ${run.name}?`)) return;
      await api(base, { method: "DELETE" });
      location.assign("/");
    } }, "Delete run"));
}

function render(run) {
  const d = run.diagnosis;
  document.title = `${run.name} · lossforensics`;
  document.getElementById("title").replaceChildren(run.name, " ", badge(run.verdict));
  document.getElementById("meta").textContent =
    `${run.format || "?"} · ${fmtNum(run.points)} points · project ${run.project} · uploaded ${fmtTime(run.created_at)} · ${run.files.join(", ")}`;
  const known = new Map(metrics.map((m) => [m.metric, m.on]));
  metrics = d.metrics.map((m) => ({ metric: m.metric, role: m.role,
    on: known.has(m.metric) ? known.get(m.metric) : DEFAULT_ON.has(m.role) }));
  if (!metrics.some((m) => m.on) && metrics.length && !known.size) metrics[0].on = true;
  chart.setSpans(d.findings.filter((f) => f.span).map((f) => ({ start: f.span.start_step, end: f.span.end_step, label: f.label })));
  picker();
  findings(d);
  listOrNone("set_aside", d.set_aside || [], (s) => `${s.label}: ${s.reason}`);
  listOrNone("skipped", d.skipped || [], (s) => `${s.label}: ${s.reason}`);
  listOrNone("warnings", d.warnings || [], (w) => typeof w === "string" ? w : [w.file, w.message].filter(Boolean).join(": "));
  downloads(run);
}

function follow(run) {
  let seen = `${run.points}:${run.diagnosed_at}`;
  const poll = async () => {
    if (!document.hidden) {
      const now = await api(base);
      const stamp = `${now.points}:${now.diagnosed_at}`;
      if (stamp !== seen) {
        seen = stamp;
        render(now);
        await redraw();
        document.getElementById("chart").dataset.points = String(now.points);
      }
    }
    setTimeout(() => poll().catch((err) => showError(document.getElementById("findings"), err)), POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}

async function main() {
  if (!(await session())) return;
  const run = await api(base);
  chart = new Chart(document.getElementById("chart"), {
    onRange: async (start, end) => {
      const key = `${start}:${end}`;
      if (chart.fetched === key) return;
      chart.fetched = key;
      chart.update(toSeries(await fetchView(start, end)));
    },
  });
  document.getElementById("chart-tools").replaceChildren(...chartControls(chart));
  render(run);
  await redraw();
  const el = document.getElementById("chart");
  el.dataset.points = String(run.points);
  el.dataset.ready = "1";
  if (run.format === "live") follow(run);
}

main().catch((err) => showError(document.getElementById("findings"), err));
