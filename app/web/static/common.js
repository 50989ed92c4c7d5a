// Shared helpers of the pages: API calls, DOM building, number formatting, the header.

export class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.title)) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export async function api(path, opts = {}) {
  const resp = await fetch(path, { credentials: "same-origin", ...opts });
  if (resp.status === 401) {
    toSignIn();
    throw new ApiError(401, { detail: "sign in first" });
  }
  if (!resp.ok) {
    let body = null;
    try { body = await resp.json(); } catch { body = { detail: resp.statusText }; }
    throw new ApiError(resp.status, body);
  }
  return resp.status === 204 ? null : resp.json();
}

export function toSignIn() {
  const next = location.pathname + location.search;
  location.href = "/signin?next=" + encodeURIComponent(next);
}

// h("a", {href: "/x", class: "y"}, "text", child): builds elements without innerHTML.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function fmtNum(x) {
  if (typeof x === "string") return x;
  if (typeof x === "boolean") return String(x);
  // evidence holds lists (spike steps) and small maps (other series): each value formatted
  if (Array.isArray(x)) return x.map(fmtNum).join(", ");
  if (x !== null && typeof x === "object") {
    return Object.entries(x).map(([k, v]) => `${k}: ${fmtNum(v)}`).join(", ");
  }
  if (x === null || x === undefined || Number.isNaN(x)) return "–";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Number.isInteger(x)) return x.toLocaleString("en-US");
  const a = Math.abs(x);
  if (a !== 0 && (a < 1e-3 || a >= 1e6)) return x.toExponential(3);
  return String(Number(x.toPrecision(4)));
}

export function fmtTime(ts) {
  if (!ts) return "–";
  return new Date(ts * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function badge(verdict) {
  return h("span", { class: "badge " + (verdict === "healthy" ? "healthy" : ""), "data-verdict": verdict }, verdict);
}

// The header's sign-out button and the session check every page makes first.
export async function session() {
  const resp = await fetch("/session", { credentials: "same-origin" });
  const s = await resp.json();
  if (s.auth && !s.signed_in) {
    toSignIn();
    return null;
  }
  if (s.auth) {
    const form = h("form", { method: "post", action: "/session/end" },
      h("span", { class: "muted" }, `project ${s.project} `), h("button", { type: "submit" }, "Sign out"));
    document.querySelector("header").append(form);
  }
  return s;
}

export function showError(where, err) {
  where.replaceChildren(h("p", { class: "error", role: "alert" }, err.message || String(err)));
}
