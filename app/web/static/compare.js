// Compare: two or more runs' train and val losses overlaid, their verdicts side by side.
import { Chart, chartControls, color } from "./chart.js";
import { api, badge, h, session, showError } from "./common.js";

const POINTS = 1500;
const ROLES = ["train_loss", "val_loss"];

// The first metric of a role in the diagnosis (its primary loss), like the classifiers read.
function primary(run, role) {
  const m = run.diagnosis.metrics.find((x) => x.role === role);
  return m ? m.metric : null;
}

async function picker() {
  const page = await api("/v1/runs?limit=100");
  const chosen = new Set();
  const go = h("button", { class: "primary", disabled: true, onclick: () => location.assign("/compare?ids=" + [...chosen].join(",")) }, "Compare");
  document.getElementById("pick").replaceChildren(
    h("p", {}, "Pick two or more runs:"),
    h("div", { class: "picker" }, page.items.map((r) => h("label", {},
      h("input", { type: "checkbox", onchange: (e) => { e.target.checked ? chosen.add(r.id) : chosen.delete(r.id); go.disabled = chosen.size < 2; } }),
      ` ${r.name} `, badge(r.verdict)))),
    go);
}

async function main() {
  if (!(await session())) return;
  const ids = (new URLSearchParams(location.search).get("ids") || "").split(",").filter(Boolean);
  if (ids.length < 2) return picker();
  const runs = await Promise.all(ids.map((id) => api("/v1/runs/" + encodeURIComponent(id))));
  const series = [];
  await Promise.all(runs.map(async (run, i) => {
    const q = new URLSearchParams({ points: POINTS });
    const names = ROLES.map((r) => primary(run, r)).filter(Boolean);
    if (!names.length) return;
    names.forEach((n) => q.append("metric", n));
    const view = await api(`/v1/runs/${encodeURIComponent(run.id)}/series?${q}`);
    for (const s of view.series)
      series.push({ order: i, label: `${run.name}: ${s.metric}`, step: s.step, value: s.value, axis: "y",
        color: color(i), dash: s.role === "val_loss" ? [6, 3] : undefined });
  }));
  series.sort((a, b) => a.order - b.order || a.label.localeCompare(b.label));
  const chart = new Chart(document.getElementById("chart"));
  document.getElementById("chart-tools").replaceChildren(...chartControls(chart));
  chart.draw(series);
  document.getElementById("chart").dataset.ready = "1";
  document.getElementById("verdicts").replaceChildren(...runs.map((run, i) => h("div", { class: "card", "data-run": run.id },
    h("h3", {}, h("span", { style: `color:${color(i)}` }, "■ "), h("a", { href: "/runs/" + run.id }, run.name), " ", badge(run.verdict)),
    run.diagnosis.findings.length ? h("ul", {}, run.diagnosis.findings.map((f) => h("li", {}, h("strong", {}, f.label), ": ", f.summary)))
      : h("p", { class: "muted" }, "No problem found."))));
}

main().catch((err) => showError(document.getElementById("verdicts"), err));
