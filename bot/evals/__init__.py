"""`kitebase eval`: scored cases over the desk (evals/cases.jsonl), each a real run on a scratch copy of the desk,
graded by deterministic checks with their evidence, and optionally by the model against a rubric."""
