"""The scorecard of an eval run, its JSON result, and what changed against an earlier result."""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.evals.cases import Case
from bot.evals.runner import Attempt


def result(cases: list[Case], attempts: dict[str, list[Attempt]], *, model: str, repeat: int) -> dict[str, Any]:
    """The run as JSON-ready data: per case its attempts and checks, and the totals. A case that was not run
    (model only, with the offline model) is listed under "skipped" with why, outside the totals."""
    rows: list[dict[str, Any]] = []
    skipped = [{"id": case.id, "category": case.category, "request": case.request,
                "why": attempts[case.id][0].skipped} for case in cases
               if attempts[case.id] and attempts[case.id][0].skipped]
    for case in cases:
        tries = attempts[case.id]
        if tries and tries[0].skipped:
            continue
        passes = sum(a.passed for a in tries)
        rows.append({"id": case.id, "category": case.category, "request": case.request, "outcome": case.outcome,
                     "passes": passes, "runs": len(tries), "pass_rate": round(passes / len(tries), 3) if tries else 0,
                     "cost_usd": round(sum(a.cost_usd for a in tries) / max(1, len(tries)), 6),
                     "seconds": round(statistics.median(a.seconds for a in tries), 3) if tries else None,
                     "tokens": round(sum(a.tokens for a in tries) / max(1, len(tries))),
                     "attempts": [{"passed": a.passed, "status": a.status, "seconds": round(a.seconds, 3),
                                   "cost_usd": round(a.cost_usd, 6), "tokens": a.tokens, "model_calls": a.model_calls,
                                   "checks": [asdict(c) for c in a.checks],
                                   "drafts": [d[:4000] for d in a.drafts], "report": a.report[:4000],
                                   "calls": [c["name"] for c in a.seen.get("calls", [])]} for a in tries]})
    total_runs = sum(r["runs"] for r in rows)
    total_passes = sum(r["passes"] for r in rows)
    seconds = [a.seconds for tries in attempts.values() for a in tries if not a.skipped]
    return {"when": datetime.now(UTC).isoformat(timespec="seconds"), "model": model, "repeat": repeat,
            "summary": {"cases": len(rows), "skipped": len(skipped),
                        "passed": sum(1 for r in rows if r["passes"] == r["runs"]),
                        "pass_rate": round(total_passes / total_runs, 4) if total_runs else 0.0,
                        "cost_usd": round(sum(a.cost_usd for t in attempts.values() for a in t), 6),
                        "tokens": sum(a.tokens for t in attempts.values() for a in t),
                        "input_tokens": sum(a.seen.get("input_tokens", 0) for t in attempts.values() for a in t),
                        "output_tokens": sum(a.seen.get("output_tokens", 0) for t in attempts.values() for a in t),
                        "seconds_p50": round(statistics.median(seconds), 3) if seconds else None,
                        "seconds_max": round(max(seconds), 3) if seconds else None},
            "categories": _categories(rows), "cases": rows, "skipped": skipped}


def estimate(data: dict[str, Any], model: str) -> str:
    """What the suite would cost on `model`, from the token counts of this run (the offline model counts what it
    is sent and writes about as a real model would), every input token at the full price: prompt caching, which
    a real run uses, makes it less (bench item 6: about a third)."""
    from bot.agent.pricing import cost_usd

    summary = data["summary"]
    full = cost_usd(model, input_tokens=summary["input_tokens"], output_tokens=summary["output_tokens"])
    return (f"On {model} this suite would cost about ${full:.2f} a run ({summary['input_tokens']:,} input and "
            f"{summary['output_tokens']:,} output tokens at its prices, no input cached; prompt caching makes it "
            "less)")


def _categories(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        found[row["category"]].append(row)
    return {name: {"cases": len(group), "passed": sum(1 for r in group if r["passes"] == r["runs"]),
                   "pass_rate": round(sum(r["passes"] for r in group) / max(1, sum(r["runs"] for r in group)), 3)}
            for name, group in sorted(found.items())}


def scorecard(data: dict[str, Any], *, show_passed: bool = True) -> str:
    """The scorecard a lead reads: the worst cases first, each failed check with its evidence."""
    summary = data["summary"]
    lines = [f"Eval of {summary['cases']} cases with {data['model']}"
             + (f", each run {data['repeat']} times" if data["repeat"] > 1 else "") + ":",
             f"  passed {summary['passed']} of {summary['cases']} cases (pass rate {summary['pass_rate']:.0%}) · "
             f"${summary['cost_usd']:.4f} · {summary['tokens']:,} tokens · a case takes {summary['seconds_p50']} s "
             f"(slowest {summary['seconds_max']} s)"]
    if data.get("skipped"):
        lines.append(f"  skipped {len(data['skipped'])} (not run with this model; neither passed nor failed):")
        lines += [f"    SKIP {row['id']} [{row['category']}]: {row['why']}" for row in data["skipped"]]
    lines += ["", "By category:"]
    for name, group in data["categories"].items():
        lines.append(f"  {name:<14} {group['passed']}/{group['cases']} cases · pass rate {group['pass_rate']:.0%}")
    if data.get("estimate"):
        lines += ["", data["estimate"]]
    lines += ["", "Cases, the worst first:"]
    ordered = sorted(data["cases"], key=lambda r: (r["pass_rate"], -_failed_checks(r), r["id"]))
    for row in ordered:
        mark = "PASS" if row["passes"] == row["runs"] else "FAIL"
        rate = f" {row['passes']}/{row['runs']}" if row["runs"] > 1 else ""
        if mark == "PASS" and not show_passed:
            continue
        lines.append(f"  {mark}{rate} {row['id']} [{row['category']}] · {row['seconds']} s · ${row['cost_usd']:.4f}")
        if mark == "FAIL":
            failed = [c for a in row["attempts"] for c in a["checks"] if not c["ok"]]
            for check in _unique(failed):
                lines.append(f"       ✗ {check['name']}: {check['evidence']}")
    return "\n".join(lines)


def _failed_checks(row: dict[str, Any]) -> int:
    return sum(1 for a in row["attempts"] for c in a["checks"] if not c["ok"])


def _unique(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, out = set(), []
    for check in checks:
        key = (check["name"], check["evidence"])
        if key not in seen:
            seen.add(key)
            out.append(check)
    return out


def compare(old: dict[str, Any], new: dict[str, Any]) -> str:
    """What changed from `old` to `new`: the cases that flipped, then cost and latency."""
    before = {r["id"]: r for r in old["cases"]}
    after = {r["id"]: r for r in new["cases"]}
    broke = [i for i in after if i in before and before[i]["pass_rate"] == 1 and after[i]["pass_rate"] < 1]
    fixed = [i for i in after if i in before and before[i]["pass_rate"] < 1 and after[i]["pass_rate"] == 1]
    moved = [i for i in after if i in before and i not in broke + fixed
             and before[i]["pass_rate"] != after[i]["pass_rate"]]
    lines = [f"Compared with {old['model']} at {old['when']} → {new['model']} at {new['when']}:"]
    lines.append(f"  pass rate {old['summary']['pass_rate']:.0%} → {new['summary']['pass_rate']:.0%}; "
                 f"passed {old['summary']['passed']} → {new['summary']['passed']} cases")
    lines.append(f"  now failing ({len(broke)}): {', '.join(broke) or 'none'}")
    for case_id in broke:
        failed = [c for a in after[case_id]["attempts"] for c in a["checks"] if not c["ok"]]
        lines += [f"       ✗ {case_id}: {c['name']}: {c['evidence']}" for c in _unique(failed)[:3]]
    lines.append(f"  now passing ({len(fixed)}): {', '.join(fixed) or 'none'}")
    if moved:
        lines.append("  pass rate moved: " + ", ".join(f"{i} {before[i]['pass_rate']:.0%} → {after[i]['pass_rate']:.0%}"
                                                       for i in moved))
    only_old, only_new = sorted(set(before) - set(after)), sorted(set(after) - set(before))
    if only_old or only_new:
        lines.append(f"  cases only in the earlier result: {', '.join(only_old) or 'none'}; only in this one: "
                     f"{', '.join(only_new) or 'none'}")
    for label, data in (("the earlier result", old), ("this one", new)):
        if data.get("skipped"):
            lines.append(f"  skipped in {label}: {', '.join(row['id'] for row in data['skipped'])}")
    cost = (old["summary"]["cost_usd"], new["summary"]["cost_usd"])
    latency = (old["summary"]["seconds_p50"], new["summary"]["seconds_p50"])
    lines.append(f"  cost ${cost[0]:.4f} → ${cost[1]:.4f} ({_delta(*cost)}); a case's median time {latency[0]} s → "
                 f"{latency[1]} s ({_delta(*latency)})")
    return "\n".join(lines)


def _delta(before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return "n/a"
    if not before:
        return f"{after - before:+.4g}"
    return f"{(after - before) / before:+.0%}"


def load_result(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the eval result {path}: {exc}") from None
    if not isinstance(data, dict) or "cases" not in data or "summary" not in data:
        raise ValueError(f"{path} is not a `kitebase eval --json` result")
    return data
