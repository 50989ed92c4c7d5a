"""MkDocs hook: the reference tables that the code owns are written into the pages at build time.

A page holds a marker such as `<!-- generated: labels -->`; `on_page_markdown` replaces it with
Markdown rendered from the package itself, so these tables cannot drift from the code:

    labels    every label, in severity order: what it looks like, the roles it needs, its likely
              causes (the playbook's order before any evidence) with first checks and probes,
              and its known false positives (lossforensics.classifiers: labels, registry,
              playbook, and each label module's docstring)
    errors    every error code, its HTTP status and its exception class
              (lossforensics.classifiers.errors, lossforensics.api.errors)
    settings  every service setting with its environment variable and default
              (lossforensics.settings.Settings)

tests/test_docs.py renders each one and checks it covers what the code declares.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

MARKER = re.compile(r"<!--\s*generated:\s*([a-z_]+)\s*-->")
# A docstring section heading: 'Symptom:', 'Known false positives:' at the start of a line.
_SECTION = re.compile(r"^([A-Z][A-Za-z-]*(?: [a-z-]+){0,3}):\s*", re.M)
_ROLE_WORDS = {
    "train_loss": "training loss",
    "val_loss": "validation loss",
    "lr": "learning rate",
    "grad_norm": "gradient norm",
    "train_score": "training metric",
    "val_score": "validation metric",
    "throughput": "throughput",
}
_TIER_WORDS = {
    "data": "data",
    "model": "model",
    "procedure": "training procedure",
    "hyperparameters": "hyper-parameters",
}


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def docstring_sections(doc: str) -> tuple[str, dict[str, str]]:
    """A label module's docstring -> (its first paragraph, {section heading: text})."""
    doc = doc.strip()
    first, _, _ = doc.partition("\n\n")
    sections: dict[str, str] = {}
    matches = list(_SECTION.finditer(doc))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(doc)
        sections.setdefault(match.group(1), " ".join(doc[match.end() : end].split()))
    return " ".join(first.split()), sections


def render_labels() -> str:
    from lossforensics.classifiers.labels import PROBES, SEVERITY
    from lossforensics.classifiers.playbook import PLAYBOOK, TIERS
    from lossforensics.classifiers.registry import registry

    classifiers = registry()
    out = [
        "| severity | label | in one line |",
        "|---:|---|---|",
    ]
    summaries = {}
    for rank, label in enumerate(SEVERITY, start=1):
        doc = sys.modules[classifiers[label].__module__].__doc__ or ""
        first, sections = docstring_sections(doc)
        summaries[label] = (first.split(":", 1)[1].strip() if ":" in first else first, sections)
        out.append(f"| {rank} | [`{label}`](#{label}) | {_cell(summaries[label][0])} |")
    for label in SEVERITY:
        cls = classifiers[label]
        summary, sections = summaries[label]
        roles = [f"the {_ROLE_WORDS.get(r, r)}" for r in sorted(cls.needs)]
        each = " each" if len(roles) > 1 else ""
        needs = f"{' and '.join(roles)}, at least {cls.min_points} point(s){each}"
        out += ["", f"## `{label}` {{#{label}}}", "", _sentence(summary), ""]
        if "Symptom" in sections:
            out += [f"**What it looks like.** {_sentence(sections['Symptom'])}", ""]
        if roles:
            out += [
                f"**Needs** {needs}; without them the label is listed under `skipped` with "
                "the reason.",
                "",
            ]
        out += [
            "**Likely causes**, in the order the playbook tries them before this run's evidence "
            "re-ranks them:",
            "",
            "| cause | where to look | first checks | probe |",
            "|---|---|---|---|",
        ]
        rules = sorted(PLAYBOOK[label], key=lambda r: (-r.prior, TIERS.index(r.tier)))
        for rule in rules:
            checks = "<br>".join(_cell(c) for c in rule.checks)
            probe = f"[`{rule.probe}`](probes.md#{rule.probe})" if rule.probe in PROBES else "—"
            tier = _TIER_WORDS.get(rule.tier, rule.tier)
            out.append(f"| {_cell(rule.cause)} | {tier} | {checks} | {probe} |")
        if "Known false positives" in sections:
            known = _sentence(sections["Known false positives"])
            out += ["", f"**Known false positives.** {known}"]
        if "Evidence" in sections:
            out += ["", f"**Evidence keys in the diagnosis:** {sections['Evidence']}"]
    return "\n".join(out) + "\n"


def render_errors() -> str:
    from lossforensics.api.errors import STATUS_BY_CODE
    from lossforensics.classifiers import errors

    meaning = dict(re.findall(r'(\w+Error)[ \t]+code="\w+"[ \t]*(.*)', errors.__doc__ or ""))
    classes = {
        cls.code: cls
        for cls in vars(errors).values()
        if isinstance(cls, type) and issubclass(cls, errors.LossForensicsError)
    }
    out = ["| code | status | error class | meaning |", "|---|---:|---|---|"]
    for code, status in STATUS_BY_CODE.items():
        cls = classes.get(code)
        name = f"`{cls.__name__}`" if cls else "—"
        what = _cell(meaning.get(cls.__name__) or cls.__doc__ or "") if cls else ""
        out.append(f"| `{code}` | {status} | {name} | {what} |")
    return "\n".join(out) + "\n"


def render_settings() -> str:
    from lossforensics.settings import Settings

    prefix = Settings.model_config.get("env_prefix", "")
    out = ["| environment variable | default | meaning |", "|---|---|---|"]
    for name, field in Settings.model_fields.items():
        default = field.get_default(call_default_factory=True)
        shown = "unset" if default is None else ("empty" if default == "" else f"`{default}`")
        if name.endswith("_bytes") and isinstance(default, int) and default % 2**20 == 0:
            shown += f" ({default // 2**20:,} MiB)"
        env = f"{prefix}{name}".upper()
        out.append(f"| `{env}` | {shown} | {_cell(field.description or '')} |")
    return "\n".join(out) + "\n"


RENDERERS: dict[str, Callable[[], str]] = {
    "labels": render_labels,
    "errors": render_errors,
    "settings": render_settings,
}


def expand(markdown: str) -> str:
    """The page with every marker replaced; an unknown marker is an error, not a silent gap."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in RENDERERS:
            raise KeyError(f"unknown generated block {name!r}; known: {', '.join(RENDERERS)}")
        return RENDERERS[name]()

    return MARKER.sub(one, markdown)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return expand(markdown)
