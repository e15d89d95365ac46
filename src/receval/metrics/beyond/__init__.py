"""Beyond-accuracy metrics: what the lists are, not only whether they hit.

Coverage, concentration and personalization (:mod:`.catalog`), overlap of two
runs (:mod:`.overlap`), diversity and novelty (:mod:`.diversity`), serendipity
(:mod:`.serendipity`), miscalibration (:mod:`.miscalibration`), expected exposure
(:mod:`.exposure`, :mod:`.group_exposure`) and popularity bias
(:mod:`.popularity`, :mod:`.popularity_users`, over :mod:`.popularity_table` and
the mergeable :mod:`.popularity_states`). :mod:`.lists` reads a run as ranked
lists and :mod:`.history` the users' interaction logs.
"""
