"""Reaching a model: chat backends, the reply cache, prompt sets."""

#: the endpoint and key variable of OpenAI's API, here so that a command can name them in its
#: --help without importing the HTTP client (``mhmmkg.llm.chat`` gives the same objects)
DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_KEY_VARIABLE = "OPENAI_API_KEY"
