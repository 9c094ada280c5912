"""Paragraph- and document-length segments in bounded memory (``docs/design.md §3``).

One segment of Korean text (the sample set's hand-written sentences drawn at random until the size is reached) and
a hypothesis that is that text with a few local edits (substituted, dropped and swapped words) are scored at the
jamo level through the public API, the path the pipeline takes (``get_level("jamo").tokenize``, tokens joined by
spaces, ``make_metric(name).segment_statistics`` and ``segment_scores``). Each run is a child process that reports
its own peak resident memory (``VmHWM`` of ``/proc/self/status``: ``ru_maxrss`` would include the parent's peak,
which Linux carries over through fork and execve); these are memory tests, not timed tests.

* TER on a 1 MB segment (≈ 740,000 jamo tokens per side): the banded kernel keeps the back-pointers of its
  ``O(n · beam)`` band cells (one byte each, ≈ 37 MB here) and the forward and backward costs only at checkpoint
  rows (:data:`~korean_eval.metrics.kernels.ter_band.CHECKPOINT_CELLS` cells each; :mod:`korean_eval.metrics.kernels.ter_band`).
  Measured peak: 496 MB (most of it the Python token lists and strings). Keeping the int64 costs of every band row
  instead (no checkpoints) needs ≈ 600 MB more (measured peak 1,035 MB with ``CHECKPOINT_CELLS`` raised to
  ``1 << 40``), so the 768 MB bound excludes it; full ``(n+1) × (m+1)`` matrices would need ~4·10^12 bytes. The
  size is what that contrast needs: at 5 MB the run cost five times the CPU (11 s) and showed nothing more.
* CharacTER (its length guard off, ``max_tokens=0``: by default it would not score this pair, see
  ``tests/unit/metrics/test_character_length_guard.py``) on a 10 kB segment (≈ 7,400 jamo tokens per side) with
  substituted and swapped words only: its word-shift search costs ``Θ(n · m)`` time per round (every word match is a
  candidate,
  :mod:`korean_eval.metrics.kernels.character`) and its final character distance ``n · m / 64`` word operations,
  so 5 MB (≈ 10^11 operations per round) cannot finish. A dropped or inserted word is worse: behind it every
  position matches the reference one word off, with a phrase running to the next edit, and each such candidate
  carries its whole phrase (thousands of tokens) through the bit-parallel columns — minutes at 20,000 tokens.
  Full int32 forward/backward matrices would need 440 MB here, on top of the child's 164 MB peak for a 300-byte
  segment, so the 512 MB bound excludes them; the bounded search's checkpoint columns and decoded rows took about
  90 MB (measured peak: 255 MB). Its score is far from 0 although the texts are nearly identical: the reference's
  search picks shifts by their gain in edit distance alone, and at the jamo level a gain of one edit may move a
  token across thousands of positions, each costing about one character of shift cost (the reference definition,
  reproduced exactly: 12.6 here). Its run time depends on where the edits fall (6 s of CPU for this segment, 48 s
  for the 14 kB one and 43 s for the 28 kB one of the same seed rule, over two minutes for a 22 kB one of another
  seed), which is why the size is fixed with its seed.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.helpers import ROOT

CHILD = """
import json, random, resource, sys
from sample_data.sentences_ko import SENTENCES
from korean_eval.metrics import make_metric
from korean_eval.levels.registry import get_level

def peak_mb() -> float:
    # This process's own peak resident memory: VmHWM of /proc/self/status, which belongs to the memory map execve
    # made (getrusage's ru_maxrss does not: Linux carries it over from the parent through fork and execve, so a
    # child of a large pytest worker would report the worker's peak).
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


name, size, edits = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rng = random.Random(f"long-segment:{size}")
sentences = [korean for _, _, korean in SENTENCES]
parts, total = [], 0
while total < size:
    parts.append(rng.choice(sentences))
    total += len(parts[-1].encode("utf-8")) + 1
ref_words = " ".join(parts).split()
hyp_words = list(ref_words)
for kind in edits * 2:  # local edits: s a substituted word, d a dropped word, w two neighbours swapped
    i = rng.randrange(len(hyp_words) - 1)
    if kind == "s":
        hyp_words[i] = rng.choice(ref_words)
    elif kind == "d":
        del hyp_words[i]
    else:
        hyp_words[i], hyp_words[i + 1] = hyp_words[i + 1], hyp_words[i]
hyp, ref = " ".join(hyp_words), " ".join(ref_words)
tokens = get_level("jamo").tokenize([hyp, ref]).tokens
metric = make_metric(name, {"max_tokens": 0} if name == "character" else {}, n_jobs=1)  # CharacTER: guard off
stats = metric.segment_statistics([" ".join(tokens[0])], [[" ".join(tokens[1])]])
score = float(metric.segment_scores(stats)[0])
print(json.dumps({"bytes": len(ref.encode("utf-8")), "hyp_tokens": len(tokens[0]), "ref_tokens": len(tokens[1]),
                  "score": score, "peak_mb": peak_mb()}))
"""


def _run_child(metric: str, size: int, edits: str) -> dict:
    """Score the generated segment of ``size`` bytes with ``metric`` in a child process (``edits``: the kinds of
    local edits, see :data:`CHILD`); its JSON report."""
    result = subprocess.run([sys.executable, "-c", CHILD, metric, str(size), edits], cwd=ROOT, capture_output=True,
                            text=True, timeout=3600)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("metric", "size", "edits", "min_tokens", "max_score", "max_peak_mb"), [
    ("ter", 1_000_000, "sdw", 700_000, 0.01, 768),
    ("character", 10_000, "sw", 7_000, 100.0, 512),
])
def test_long_segment_in_bounded_memory(metric: str, size: int, edits: str, min_tokens: int, max_score: float,
                                        max_peak_mb: float) -> None:
    """The segment is scored (no MemoryError), the score is above 0 (the texts differ) and at most ``max_score``
    on the 0-100 scale (TER: a few edits in millions of tokens), and the child's peak memory stays under a generous
    bound far below what ``O(n · m)`` matrices would take."""
    got = _run_child(metric, size, edits)
    assert got["bytes"] >= size and got["ref_tokens"] >= min_tokens
    assert abs(got["hyp_tokens"] - got["ref_tokens"]) < 100
    assert 0.0 < got["score"] < max_score
    assert got["peak_mb"] < max_peak_mb, got
