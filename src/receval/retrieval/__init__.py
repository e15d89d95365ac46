"""Retrieval evaluation from embeddings: exact top-k search, its metrics without the
whole run, and the recall of an approximate index against it."""

from .ann import AnnRecallReport, ann_recall
from .embeddings import evaluate_embeddings
from .exact import retrieve

__all__ = ["AnnRecallReport", "ann_recall", "evaluate_embeddings", "retrieve"]
