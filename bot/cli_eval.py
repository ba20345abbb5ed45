"""`kitebase eval`: the agent's judgement on scored cases, each a real run on a scratch copy of the desk."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.config import REPO_ROOT, Settings

CASES = REPO_ROOT / "evals" / "cases.jsonl"
FLOOR = REPO_ROOT / "evals" / "floor.json"
EXIT_OK, EXIT_BAD_INPUT, EXIT_FAILED = 0, 2, 3


def add_eval_command(sub: Any) -> None:
    p = sub.add_parser("eval", help="score the agent's judgement on the eval cases (scratch desks; nothing is sent)",
                       description="Each case is a real run on a scratch copy of the desk: drafts are approved or "
                                   "rejected by the case, nothing reaches a customer or Slack.")
    p.add_argument("--model", help="the model to evaluate (default: KITEBASE_MODEL; the offline model without a key)")
    p.add_argument("--offline", action="store_true", help="the built-in offline model, whatever is configured")
    p.add_argument("--cases", metavar="PATTERN",
                   help="only the cases whose id or category matches (shell style, comma-separated: 'sso-*,escalate')")
    p.add_argument("--repeat", type=int, default=1, help="run each case N times (how often it passes)")
    p.add_argument("--parallel", type=int, default=4, help="cases at once (the model budget still applies)")
    p.add_argument("--rubric", action="store_true", help="also ask the model to grade tone and completeness "
                                                         "(skipped with the offline model)")
    p.add_argument("--json", type=Path, metavar="FILE", help="where to write the result (default: "
                                                             "kitebase-eval-<time>.json here)")
    p.add_argument("--compare", type=Path, nargs="+", metavar="RESULT.json",
                   help="what changed against an earlier result; with two files, compare them without running")
    p.add_argument("--floor", type=Path, nargs="?", const=FLOOR, metavar="FILE",
                   help=f"fail unless the offline pass count reaches the recorded floor (default {FLOOR.name})")
    p.add_argument("--file", type=Path, default=CASES, help=argparse.SUPPRESS)
    p.add_argument("--failed-only", action="store_true", help="list only the failed cases")
    p.set_defaults(handler=cmd_eval)


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from bot.evals import report
    from bot.evals.cases import BadCases, load

    try:
        if args.compare and len(args.compare) == 2:
            print(report.compare(report.load_result(args.compare[0]), report.load_result(args.compare[1])))
            return EXIT_OK
        if args.compare and len(args.compare) > 2:
            print("kitebase eval: --compare takes one earlier result, or two results to compare", file=sys.stderr)
            return EXIT_BAD_INPUT
        earlier = report.load_result(args.compare[0]) if args.compare else None
        cases = load(args.file, args.cases)
    except (BadCases, ValueError) as exc:
        print(f"kitebase eval: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.repeat < 1 or args.parallel < 1:
        print("kitebase eval: --repeat and --parallel are at least 1", file=sys.stderr)
        return EXIT_BAD_INPUT

    if args.model:
        settings = settings.model_copy(update={"model": args.model})
    if args.offline:
        settings = settings.model_copy(update={"offline": True})
    model_factory, rubric_model, name = _models(settings, args.rubric)
    if args.model and name == "kitebase-offline":
        print(f"kitebase eval: --model {args.model} needs ANTHROPIC_API_KEY (and KITEBASE_OFFLINE unset); without "
              "it only the offline model can run (--offline).", file=sys.stderr)
        return EXIT_BAD_INPUT
    from bot.evals.runner import run_cases

    print(f"Running {len(cases)} case{'s' if len(cases) != 1 else ''} with {name}"
          + (f", {args.repeat} times each" if args.repeat > 1 else "") + " (scratch desks; nothing is sent)",
          file=sys.stderr, flush=True)
    attempts = run_cases(cases, settings, model_factory, repeat=args.repeat, parallel=args.parallel,
                         rubric_model=rubric_model)
    data = report.result(cases, attempts, model=name, repeat=args.repeat)
    if args.rubric and rubric_model is None:
        data["rubric"] = "skipped: the offline model cannot grade"
    if name == "kitebase-offline":
        data["estimate"] = report.estimate(data, Settings.model_fields["model"].default)
    print(report.scorecard(data, show_passed=not args.failed_only))
    out = args.json or Path(f"kitebase-eval-{datetime.now(UTC):%Y%m%dT%H%M%S}.json")
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nResult written to {out}" + ("" if args.compare else
                                          f" (compare a later run with: kitebase eval --compare {out})"))
    if earlier is not None:
        print("\n" + report.compare(earlier, data))
    if args.floor is not None:
        return _check_floor(args.floor, data, name)
    return EXIT_OK if data["summary"]["passed"] == data["summary"]["cases"] else EXIT_FAILED


def _models(settings: Settings, rubric: bool) -> tuple[Any, Any, str]:
    from bot.agent.clients import build_model, model_name

    name = model_name(settings)
    if name == "kitebase-offline":
        from bot.agent.offline import OfflineModel

        return OfflineModel, None, name
    from bot.db.open import open_database

    model = build_model(settings, open_database(settings))  # the organization's model budget is the live one
    return (lambda: model), (model if rubric else None), name


def _check_floor(path: Path, data: dict[str, Any], name: str) -> int:
    try:
        floor = json.loads(path.read_text(encoding="utf-8"))["offline"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"kitebase eval: cannot read the floor {path}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if name != "kitebase-offline":
        print(f"kitebase eval: the floor is the offline model's; this run used {name}", file=sys.stderr)
        return EXIT_BAD_INPUT
    passed, cases = data["summary"]["passed"], data["summary"]["cases"]
    if cases != floor["cases"]:
        print(f"\nFloor: {path.name} was recorded for {floor['cases']} cases and this run had {cases}; "
              "record it again (see docs/design.md, Evaluating the agent's judgement) when cases are added.",
              file=sys.stderr)
        return EXIT_FAILED
    if passed < floor["passed"]:
        print(f"\nBelow the floor: {passed} of {cases} cases passed, {floor['passed']} are expected "
              f"({path.name}). A change in the tools, the prompt or the offline model broke the cases above.",
              file=sys.stderr)
        return EXIT_FAILED
    print(f"\nFloor held: {passed} of {cases} cases passed (at least {floor['passed']} expected).")
    return EXIT_OK
