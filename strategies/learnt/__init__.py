"""The player learnt from the search, ``net`` (:mod:`.net`): its features (:mod:`.net_features`), its compiled
play-time pass (:mod:`.net_play`) and its model files (the format in :mod:`.model`; the shipped models in
``models/``, each described in ``models/README.md``, with the search's fitted opponent models)."""
