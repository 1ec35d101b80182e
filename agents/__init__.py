"""Agents for solitaire_env games, and the evaluation harness (SPEC section 7).

``agents.base`` holds the interface (:class:`~agents.base.Agent`, :class:`~agents.base.PublicState`,
:func:`~agents.base.public_state`, :func:`~agents.base.decide`).
"""
