"""Quality control of human Direct Assessment (DA) judgments, producing per-item human scores (docs/design.md §6).

Input: one row per judgment, with user-chosen columns for the rater, the item key (one or more columns, e.g.
``DocID`` + ``SentID``), the system, and one or more numeric score columns (e.g. ``Adequacy``, ``Fluency``).
A judgments file is read by the one table reader, :func:`korean_eval.inputs.table_reader.read_table` (every cell a string;
docs/design.md §4), and handed over as ``table.frame()`` with ``lines=table.lines``.

Modules: :mod:`~korean_eval.inputs.human_qc.options` (``detect_columns`` suggests the column roles from obvious names;
``QCOptions`` holds the choices and the parameters), :mod:`~korean_eval.inputs.human_qc.steps` (one function per step
below), :mod:`~korean_eval.inputs.human_qc.run` (``run_qc``: the steps in order), :mod:`~korean_eval.inputs.human_qc.report`
(``QCReport``, ``QCResult``).

``run_qc`` applies, in this order (every step can be switched off or parameterised through ``QCOptions``):

0. **Unusable rows.** A row whose rater, system or any item value is missing (NaN / empty / whitespace only), or
   whose value in any score column is missing, ambiguous, non-numeric or non-finite (±inf, NaN) is excluded. A text
   score cell is converted by :func:`korean_eval.inputs.table_reader.read_number` (an ASCII decimal, or one with a single decimal
   comma not followed by exactly three digits; nothing is guessed: ``NA`` or ``null`` is non-numeric, the
   locale-ambiguous ``1,000`` is an "ambiguous number"). Each such row is listed in
   ``QCReport.invalid_rows`` with its primary reason (the first failing check in the order rater, system, item
   columns, score columns) and its *line*: the file line where the row starts when ``run_qc`` is given the
   reader's ``lines``, else ``row position + 2`` (the line in a CSV file with one header line and no multi-line
   cells). Rows are never dropped silently.
1. **Warm-up** (``drop_first = N``): the first ``N`` judgments of each rater, in file (row) order, are dropped.
   A row's position counts every row of that rater in the input (valid or not), so the warm-up is a property of
   the file's order; a row that is both unusable and in the warm-up is counted as unusable only.
2. **Per-rater z-scores** (``zscore``): for each rater and score column ``c``,
   ``c_z = (c − mean_r(c)) / sd_r(c)`` with the population standard deviation (ddof = 0) over that rater's
   remaining judgments. A rater whose remaining values in any score column are all equal (zero variance; this
   includes a rater with a single remaining judgment) has an undefined z-score: all that rater's remaining
   judgments are excluded and the rater is reported in ``QCReport.zero_variance_raters``.
3. **Tukey fences** (``iqr_k = k``): for each score column, over all remaining judgments, ``Q1`` and ``Q3`` are
   ``numpy.percentile(values, [25, 75])`` (numpy's default, linear interpolation) and ``IQR = Q3 − Q1``; a judgment
   is kept only if ``Q1 − k·IQR ≤ value ≤ Q3 + k·IQR`` (inclusive) for *every* score column. The values fenced
   are the z-scores, or the raw scores when z-scoring is off.
4. **Repeats** (``average_repeats``): all kept judgments of one (system, item) are averaged into one item score
   (``n_judgments`` says how many). When off, every kept judgment is its own row of ``item_scores``
   (``n_judgments`` = 1, and a (system, seg_id) pair may then occur more than once).
5. **Outlier systems** (``flag_outlier_systems``): each system's mean human score ``x`` (the mean over its kept
   judgments of the first score column's z-score, or of the raw score when z-scoring is off) gets the robust z
   ``(x − median) / (1.4826 · MAD)``, median and MAD (median absolute deviation from the median) taken over the
   systems; a system is an outlier when ``|robust z| > outlier_threshold`` (2.5; Mathur et al., 2020). When
   MAD = 0 the robust z is undefined (NaN) and no system is flagged.

The study's procedure (the kor_sacrebleu data's README, §4.1.3 of the paper) is the default: ``drop_first=10``,
z-scores with ddof 0, fences with ``k=1.5`` on every score column; on ``judgments_raw.csv`` it keeps 7,727 of
8,058 judgments.

The *item key* of a row, ``seg_id``, is the item columns' values, each as text, joined by ``"-"`` (DocID 1,
SentID 3 → ``"1-3"``). Text (every cell the table reader gives) is stripped of surrounding whitespace and otherwise
used as it is, so the key equals the one :func:`korean_eval.inputs.columns.seg_key` builds for a human-score table; in a
frame built in Python, an integral float (``3.0``) is written as an int (``"3"``) and another float by ``repr``.
Rater and system values are normalised the same way (``system`` in the outputs is that text).
"""
