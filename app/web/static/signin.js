// Sign-in: POST the token to /session (which sets the cookie), then go where the user was going.
const form = document.getElementById("signin");
const next = new URLSearchParams(location.search).get("next") || "/";
document.getElementById("next").value = next.startsWith("/") && !next.startsWith("//") ? next : "/";

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const resp = await fetch("/session", { method: "POST", body: new FormData(form), credentials: "same-origin", redirect: "manual" });
  if (resp.type === "opaqueredirect" || resp.ok) {
    location.assign(document.getElementById("next").value);
  } else {
    document.getElementById("error").textContent = resp.status === 401 ? "Unknown token." : `Sign-in failed (${resp.status}).`;
  }
});
