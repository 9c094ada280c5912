"""Data with too few systems for the system-level exact permutation test to reach α = 0.05: the bundled sample cut to
4 systems, and the statement the pages, captions and exports make about it."""

from __future__ import annotations

import pandas as pd

from korean_eval.inputs.sample import sample_files
from korean_eval.inputs.tables import attach_human
from korean_eval.model.evalset import EvalSet, evalset_from_texts

#: The exact test over 4 systems at the system level, as the pages and exports must state it: 2^4 = 16 sign
#: patterns, smallest p 1/16, and 1/32 < 0.05 from 5 systems on.
FOUR_SYSTEMS = ("With 4 systems the exact test has 16 sign patterns: its smallest p-value is 0.0625 > α = 0.05, so no "
                "difference can be significant; ≥ 5 systems needed")


def four_system_sample() -> EvalSet:
    """The bundled sample without its last system (4 systems), with the human scores of those 4."""
    files = sample_files()
    systems = files["systems"][:4]
    keep = {p.name.removesuffix(".txt") for p in systems}
    human = pd.read_csv(files["human"], sep="\t", dtype=str, keep_default_na=False)
    human = human[human["system"].isin(keep)]
    evalset = evalset_from_texts([("ref.txt", files["ref"].read_bytes())], [(p.name, p.read_bytes()) for p in systems])
    return attach_human(evalset, human.to_csv(sep="\t", index=False).encode(), "human.tsv")
