"""Players that search on the forward model (:mod:`simcli.players.forward`): ``mc`` (:mod:`.mc`), ``oracle``
(:mod:`.oracle`, the same search seeing every card) and ``ismcts`` (:mod:`.ismcts`), with what they share: the
candidate decisions (:mod:`.candidates`, which ``net`` rates too), inference in the sampler (:mod:`.inference`,
:mod:`.opponent_model`) and the learnt leaf value at a rollout's horizon (:mod:`.mc_leaf`)."""
