"""The Markdown page of an identification report (see :mod:`.report` for its content)."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional

from .addition_selection import markdown as additions_markdown
from .cross_validation import markdown as cv_markdown
from .provenance import describe


def _fmt(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.4f}"


def markdown(content: Mapping[str, Any]) -> str:
    """The report as Markdown."""
    models: Mapping[str, Mapping[str, Any]] = content["models"]
    defaults: Mapping[str, Mapping[str, Any]] = content["defaults"]
    lines = [
        f"# Identification report: {content['actuator']} ({content['integrator']} step)",
        "",
        f"{content['logs']} logs: {len(content['train_logs'])} to fit, {len(content['validation_logs'])} to validate"
        f" ({', '.join(content['validation_logs']) or 'none'}): {content['split']['rule']}.",
        *(f"**Warning:** {w}." for w in content["split"]["warnings"]),
        "",
        "| model | train MAE [rad] | validation MAE [rad] | unfitted defaults: train MAE | unfitted defaults: "
        "validation MAE | additions | trials | time [s] |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, m in models.items():
        d = defaults[name]
        carried = (m.get("additions") or {}).get("carried") or {}
        lines.append(
            f"| {name.upper()} | {_fmt(m['train_mae'])} | {_fmt(m['validation_mae'])} "
            f"| {_fmt(d['train_mae'])} | {_fmt(d['validation_mae'])} | {', '.join(carried) or 'none'} "
            f"| {m['trials']} | {m['seconds']:.1f} |"
        )
    factor = content["improvement_over_m1"]
    lines += [
        "",
        f"Chosen by {content['chosen_by']}: **{str(content['best_model']).upper()}**"
        + (f", {factor:.2f}x lower MAE than M1." if factor and content["best_model"] != "m1" else "."),
        *(f"\n**Warning:** {w}." for w in content["warnings"]),
        "",
        *cv_markdown(content.get("cross_validation") or {}),
        *simulators_section(models),
        *additions_markdown(models),
        *starts_section(models),
        "## Validation MAE per trajectory and per gain",
        "",
    ]
    groups = sorted({g for m in models.values() for g in m["validation_by_trajectory"]})
    gains = sorted({g for m in models.values() for g in m["validation_by_gain"]}, key=float)
    if groups or gains:
        lines.append("| model | " + " | ".join([*groups, *(f"kp {g}" for g in gains)]) + " |")
        lines.append("|---" * (1 + len(groups) + len(gains)) + "|")
        for name, m in models.items():
            cells = [_fmt(m["validation_by_trajectory"].get(g)) for g in groups]
            cells += [_fmt(m["validation_by_gain"].get(g)) for g in gains]
            lines.append(f"| {name.upper()} | " + " | ".join(cells) + " |")
    else:
        lines.append("No validation logs.")
    lines += [
        "",
        "## Parameters and their uncertainty",
        "",
        "Interval: where the training cost stays within 1 % of its fitted value, the other parameters",
        "held at their fitted values (a loss slice). *undetermined*: the cost moves by less than 1 %",
        "across the whole search range, so the logs do not pin this parameter down. *at bound*: the",
        "value ended within 1 % of its range from a search bound, so the bound may have set it",
        "rather than the data (widen it with --bounds and fit again).",
        "",
    ]
    for name, m in models.items():
        lines += [f"### {name.upper()}", "", "| parameter | value | interval | ± | unit | cost sensitivity | |", "|---|---|---|---|---|---|---|"]
        for p in m["parameters"]:
            flag = ", ".join(f for f, on in (("undetermined", not p["determined"]), ("at bound", p["at_bound"])) if on)
            lines.append(
                f"| {p['name']} | {p['value']:.4g} | [{p['lower']:.4g}, {p['upper']:.4g}] | {p['half_width']:.2g} | {p['unit']} "
                f"| {100 * p['sensitivity']:.1f} % | {flag} |"
            )
        for fixed, value in m["fixed"].items():
            lines.append(f"| {fixed} | {value:.4g} | fixed | | | | |")
        lines.append("")
    lines.append("![MAE per model](mae.png)")
    if "ran_on" in content:  # reports written before it have none
        lines += ["", "## What the fit ran on", "", describe(content["ran_on"])]
    return "\n".join(lines) + "\n"


def starts_section(models: Mapping[str, Mapping[str, Any]]) -> List[str]:
    """Each model's independent CMA-ES starts: where each one's search ended. Starts that end
    apart (in training or validation MAE) mean the cost has several basins on these logs."""
    rows = [(name, s) for name, m in models.items() for s in m.get("starts", [])]
    if not rows:
        return []
    lines = ["## Independent starts of the search", "",
             "The search ran these CMA-ES starts side by side, then its IPOP restarts (`--restarts`, twice the "
             "population: a worker's runs numbered from its count of starts on); the best point by cost was polished.",
             "",
             "| model | worker | start | trials | train MAE [rad] | validation MAE of its best point [rad] |",
             "|---|---|---|---|---|---|"]
    for name, s in rows:
        lines.append(f"| {name.upper()} | {s['worker']} | {s['run']} | {s['trials']} | {_fmt(s['train_mae'])} "
                     f"| {_fmt(s['validation_mae'])} |")
    return lines + [""]


def simulators_section(models: Mapping[str, Mapping[str, Any]]) -> List[str]:
    """Each model's MAE in the other simulators a user may run it in (the report's
    ``other_simulators``): what the fit is worth there."""
    rows = [(name, simulator, figures) for name, m in models.items()
            for simulator, figures in (m.get("other_simulators") or {}).items()]
    if not rows:
        return []
    what = {simulator: figures["what"] for _, simulator, figures in rows}
    lines = ["## In other simulators", "",
             "The same fitted models, each log replayed where a user may run them: "
             + "; ".join(f"`{simulator}` {text}" for simulator, text in what.items()) + ".", "",
             "| model | simulator | train MAE [rad] | validation MAE [rad] |", "|---|---|---|---|"]
    for name, simulator, figures in rows:
        if "refused" in figures:
            lines.append(f"| {name.upper()} | {simulator} | cannot run it: {figures['refused']} | |")
        else:
            lines.append(f"| {name.upper()} | {simulator} | {_fmt(figures['train_mae'])} | {_fmt(figures['validation_mae'])} |")
    return lines + [""]
