"""TREC: trec_eval 10.0 reproduced, and its relatives.

:mod:`receval.trec.trec_eval` reproduces trec_eval 10.0 (its measures, options
and output, byte for byte; :func:`receval.trec_eval`),
:mod:`receval.trec.options` its command line and exit statuses,
:mod:`receval.trec.jg` its judgment-group (``-J``/``-jg``) forms and
:mod:`receval.trec.prefs` the preference measures (``prefs`` qrels).
"""
