// One uPlot chart of several series over steps: zoom (drag), pan and zoom buttons, wheel zoom,
// log scale, a second axis for the learning rate, shaded finding spans, NaN/inf marked.
// uPlot (vendor/uplot, loaded as a classic script) does the drawing; this only feeds it.

const PALETTE = ["#2457c5", "#d1495b", "#00798c", "#edae49", "#66a182", "#8d6cab", "#4f6d7a", "#c05746"];
export const color = (i) => PALETTE[i % PALETTE.length];

// series: [{label, step: [...], value: [... numbers or "nan"/"inf"/"-inf"], axis: "y"|"lr", color, dash}]
export function align(series, log) {
  const steps = new Set();
  for (const s of series) for (const x of s.step) steps.add(x);
  const xs = Float64Array.from(steps).sort();
  const index = new Map();
  xs.forEach((x, i) => index.set(x, i));
  const marks = [];
  const cols = series.map((s) => {
    const col = new Array(xs.length).fill(null);
    s.step.forEach((x, i) => {
      const v = s.value[i];
      if (typeof v === "string") marks.push({ step: x, kind: v, label: s.label, color: s.color });
      else col[index.get(x)] = log && v <= 0 ? null : v;
    });
    return col;
  });
  return { data: [Array.from(xs), ...cols], marks };
}

export class Chart {
  constructor(el, { height = 420, onRange = null } = {}) {
    this.el = el;
    this.height = height;
    this.onRange = onRange;
    this.log = false;
    this.spans = [];
    this.series = [];
    this.plot = null;
    this.full = null;
    this.fetched = null;
  }

  setSpans(spans) { this.spans = spans; this.plot && this.plot.redraw(false); }

  setLog(log) { this.log = log; this.draw(this.series, true); }

  draw(series, keepRange = false) {
    this.series = series;
    const { data, marks } = align(series, this.log);
    this.marks = marks;
    const range = keepRange && this.plot ? [this.plot.scales.x.min, this.plot.scales.x.max] : null;
    const hasLr = series.some((s) => s.axis === "lr");
    const distr = this.log ? 3 : 1;
    const opts = {
      width: Math.max(300, this.el.clientWidth - 16),
      height: this.height,
      scales: { x: { time: false }, y: { distr }, lr: { distr } },
      axes: [
        { label: "step" },
        { scale: "y", label: "value" },
        ...(hasLr ? [{ scale: "lr", side: 1, label: "learning rate", grid: { show: false } }] : []),
      ],
      series: [
        { label: "step" },
        ...series.map((s) => ({ label: s.label, scale: s.axis === "lr" ? "lr" : "y", stroke: s.color,
          dash: s.dash, width: 1.5, spanGaps: true, points: { show: false } })),
      ],
      cursor: { drag: { x: true, y: false } },
      legend: { live: true },
      hooks: {
        draw: [(u) => this.paint(u)],
        setScale: [(u, key) => { if (key === "x") this.rangeChanged(u.scales.x.min, u.scales.x.max); }],
      },
    };
    if (this.plot) this.plot.destroy();
    this.plot = new uPlot(opts, data, this.el);
    if (!this.full && data[0].length) this.full = [data[0][0], data[0][data[0].length - 1]];
    if (range) this.plot.setScale("x", { min: range[0], max: range[1] });
    this.wheel();
  }

  // Replace the data without touching the zoom (after a detail fetch for the zoomed range).
  update(series) {
    this.series = series;
    const { data, marks } = align(series, this.log);
    this.marks = marks;
    this.plot.setData(data, false);
  }

  rangeChanged(min, max) {
    if (!this.onRange || min === null || max === null) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.onRange(Math.floor(min), Math.ceil(max)), 150);
  }

  paint(u) {
    const { ctx } = u;
    const top = u.bbox.top, height = u.bbox.height;
    ctx.save();
    for (const s of this.spans) {
      const x0 = u.valToPos(s.start, "x", true), x1 = u.valToPos(s.end, "x", true);
      ctx.fillStyle = s.color || "rgba(209, 73, 91, 0.12)";
      ctx.fillRect(Math.min(x0, x1), top, Math.max(2, Math.abs(x1 - x0)), height);
      ctx.fillStyle = "#7a1f2b";
      ctx.font = `${12 * devicePixelRatio}px system-ui`;
      ctx.fillText(s.label, Math.min(x0, x1) + 4, top + 14 * devicePixelRatio);
    }
    for (const m of this.marks || []) {
      const x = u.valToPos(m.step, "x", true);
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
      ctx.strokeStyle = m.kind === "nan" ? "#b42318" : "#a15c00";
      ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
      ctx.fillStyle = ctx.strokeStyle;
      ctx.beginPath(); ctx.moveTo(x - 5, top); ctx.lineTo(x + 5, top); ctx.lineTo(x, top + 8); ctx.fill();
    }
    ctx.restore();
  }

  wheel() {
    this.plot.over.addEventListener("wheel", (e) => {
      e.preventDefault();
      const u = this.plot;
      const { min, max } = u.scales.x;
      const at = u.posToVal(e.offsetX, "x");
      const k = e.deltaY < 0 ? 0.8 : 1.25;
      u.setScale("x", { min: at - (at - min) * k, max: at + (max - at) * k });
    }, { passive: false });
  }

  pan(frac) {
    const { min, max } = this.plot.scales.x;
    const d = (max - min) * frac;
    this.plot.setScale("x", { min: min + d, max: max + d });
  }

  zoom(k) {
    const { min, max } = this.plot.scales.x;
    const mid = (min + max) / 2;
    this.plot.setScale("x", { min: mid - (mid - min) * k, max: mid + (max - mid) * k });
  }

  reset() {
    if (this.full) this.plot.setScale("x", { min: this.full[0], max: this.full[1] });
  }
}

export function chartControls(chart, extra = []) {
  const btn = (label, title, fn) => {
    const b = document.createElement("button");
    b.textContent = label; b.title = title; b.type = "button";
    b.addEventListener("click", fn);
    return b;
  };
  const log = document.createElement("label");
  const box = document.createElement("input");
  box.type = "checkbox"; box.id = "log-scale";
  box.addEventListener("change", () => chart.setLog(box.checked));
  log.append(box, " log scale");
  return [btn("◀", "pan left", () => chart.pan(-0.25)), btn("▶", "pan right", () => chart.pan(0.25)),
    btn("+", "zoom in", () => chart.zoom(0.5)), btn("−", "zoom out", () => chart.zoom(2)),
    btn("Reset", "whole run", () => chart.reset()), log, ...extra];
}
