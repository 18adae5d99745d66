"""Reaching a model: chat backends, the reply cache, prompt sets."""
