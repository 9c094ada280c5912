"""The SentencePiece subword level: a unigram model trained on the evaluation's references, or a user's ``.model``
(docs/design.md §3)."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from typing import Any

from korean_eval.levels.base import TokenLevel, package_version


class SpmLevel(TokenLevel):
    """SentencePiece unigram pieces, ``▁`` stripped, empty pieces dropped.

    The model is trained on the evaluation's references (:meth:`fit`) with ``vocab_size`` as an upper bound
    (``hard_vocab_limit=False``, so small data gets a smaller vocabulary instead of an error) and one thread,
    so the same references always give the same model; or a user-supplied ``.model`` file is loaded.
    """

    name, family, label, library = "spm", "subword", "SentencePiece (unigram)", "sentencepiece"
    description = "SentencePiece unigram pieces (model trained on the references, or supplied), ▁ stripped"
    DEFAULT_VOCAB = 4000
    in_workers = False  # its model is trained on the evaluation's references in the calling process
    trained_on_references = True
    tokenize_cost = (0.0, 1.29)
    train_cost_per_ref_char = 10.6

    @classmethod
    def for_evaluation(cls, references: Sequence[str], config: Any, store: Any = None) -> SpmLevel:
        """Trained on the evaluation's ``references`` with ``config.spm_vocab`` pieces at most, or the user's
        ``config.spm_model``. With a ``store`` (the token cache), a model trained here is kept (keyed by the library
        version, the vocabulary size and the distinct references, which determine the model: training is
        single-threaded) and loaded next time."""
        if config.spm_model is not None or store is None or not store.enabled:
            return cls(config.spm_vocab, config.spm_model).fit(references)
        payload = [package_version("sentencepiece"), config.spm_vocab, list(dict.fromkeys(references))]
        key = "spm-model:" + hashlib.sha256(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()).hexdigest()
        model = store.get_blob(key)
        if model is not None:
            try:
                return cls(config.spm_vocab, model, trained=True)
            except ValueError:
                pass  # a damaged entry: train again
        level = cls(config.spm_vocab).fit(references)
        store.put_blob(key, level.model_bytes(), "spm")
        return level

    @classmethod
    def evaluation_key(cls, config: Any) -> str:
        """The library version, the vocabulary size and the user's model (its id) or ``trained-on-references``."""
        model = config.spm_model_id or "trained-on-references"
        return f"spm-{package_version('sentencepiece')}-v{config.spm_vocab}-{model}"

    def model_bytes(self) -> bytes | None:
        """The model's serialized protobuf (None before :meth:`fit`)."""
        return self._model_bytes

    def __init__(self, vocab_size: int = DEFAULT_VOCAB, model: bytes | None = None, *, trained: bool = False):
        """``model``: a user-supplied ``.model`` (or, with ``trained=True``, one this level trained on the same
        references with ``vocab_size`` earlier, e.g. from the cache: it keeps the trained model's version)."""
        if vocab_size < 10:
            raise ValueError("SentencePiece vocabulary size must be at least 10")
        self.vocab_size = vocab_size
        self._model_bytes = model
        self._supplied = model is not None and not trained
        self._processor = None
        if model is not None:
            self._load(model)

    def _load(self, model: bytes) -> None:
        import sentencepiece as spm

        proc = spm.SentencePieceProcessor()
        try:
            proc.LoadFromSerializedProto(model)
        except Exception:  # noqa: BLE001 - sentencepiece raises RuntimeError("Internal: … ParseFromArray …")
            raise ValueError("not a SentencePiece model (the file does not parse as a .model protobuf)") from None
        self._model_bytes = model
        self._processor = proc

    def piece_count(self) -> int:
        """Pieces in the model's vocabulary (0 before :meth:`fit`)."""
        return int(self._processor.get_piece_size()) if self._processor is not None else 0

    @property
    def fitted(self) -> bool:
        return self._processor is not None

    def fit(self, references: Sequence[str]) -> SpmLevel:
        """Train the unigram model on the references (no-op when a model was supplied)."""
        if self._processor is not None:
            return self
        import sentencepiece as spm

        sentences = [r for r in dict.fromkeys(references) if r.strip()]
        if not sentences:
            raise ValueError("SentencePiece needs at least one non-empty reference to train on")
        buf = io.BytesIO()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(sentences),
            model_writer=buf,
            model_type="unigram",
            vocab_size=self.vocab_size,
            hard_vocab_limit=False,
            character_coverage=1.0,
            num_threads=1,
            minloglevel=2,
        )
        self._load(buf.getvalue())
        return self

    def version(self) -> str:
        """``spm-<version>-unigram-v<vocab>-<model hash>`` for a model trained on the references;
        ``spm-<version>-model-<pieces>p-<model hash>`` for a supplied one (its own type and size, not ours)."""
        digest = hashlib.sha256(self._model_bytes).hexdigest()[:8] if self._model_bytes else "untrained"
        if self._supplied:
            return f"spm-{package_version('sentencepiece')}-model-{self.piece_count()}p-{digest}"
        return f"spm-{package_version('sentencepiece')}-unigram-v{self.vocab_size}-{digest}"

    def _tokenize_batch(self, texts: Sequence[str]) -> list[list[str]]:
        if self._processor is None:
            raise RuntimeError("the SentencePiece level has no model: call fit(references) or supply a model")
        pieces = self._processor.encode(list(texts), out_type=str)
        return [[p.replace("\u2581", "") for p in ps if p.replace("\u2581", "")] for ps in pieces]
