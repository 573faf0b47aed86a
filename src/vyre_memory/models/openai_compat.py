"""Any OpenAI-compatible chat server (Ollama, llama.cpp server, vLLM) through the `openai` SDK.

Guarantees:
- Requests go to the configured `base_url` only (e.g. http://127.0.0.1:11434/v1); there is no
  default remote URL, so nothing leaves the machine unless the user configured it.
- Cost is 0 unless the config gives a price for the model (a local server costs nothing).
- A call takes at most about `timeout_s`; SDK retries are off by default; errors are translated
  here, once, into ModelTimeout / ModelError.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from vyre_memory.errors import ConfigError, ModelError, ModelTimeout
from vyre_memory.models.base import ModelRequest, ModelResponse, check_model_requests_allowed, render_user_prompt
from vyre_memory.models.pricing import cost_usd


def translate_openai_error(exc: Exception, base_url: str, timeout_s: float) -> ModelError:
    """Map an `openai` SDK exception into the errors.py tree."""
    import openai

    where = f"OpenAI-compatible server at {base_url}"
    if isinstance(exc, openai.APITimeoutError):
        return ModelTimeout(f"{where}: no answer within {timeout_s}s; raise timeout_s or use a smaller model")
    if isinstance(exc, openai.AuthenticationError):
        return ModelError(f"{where} rejected the key (401); set [models.openai] api_key_env to the right variable")
    if isinstance(exc, openai.NotFoundError):
        return ModelError(f"{where}: not found (404); check base_url ends in /v1 and the model is pulled/loaded")
    if isinstance(exc, openai.APIStatusError):
        return ModelError(f"{where}: HTTP {exc.status_code}: {exc.message}; check the server log")
    if isinstance(exc, openai.APIConnectionError):
        return ModelError(f"{where}: cannot connect; start the server (e.g. `ollama serve`) or fix base_url")
    return ModelError(f"{where}: {type(exc).__name__}: {exc}")


class OpenAICompatBackend:
    name = "openai"

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "not-needed",
        max_retries: int = 0,
        prices: Mapping[str, Any] | None = None,
    ) -> None:
        if not base_url:
            raise ConfigError(
                "the openai backend needs base_url, e.g. [models.openai] base_url = 'http://127.0.0.1:11434/v1'"
            )
        if not model:
            raise ConfigError("the openai backend needs a model name, e.g. [models.openai] model = 'llama3.1:8b'")
        self.base_url = base_url
        self.default_model = model
        self.prices = prices
        self._api_key = api_key or "not-needed"
        self._max_retries = max_retries
        self._client: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            try:
                import openai
            except ImportError as exc:
                raise ModelError("the openai backend needs its SDK: pip install 'vyre-memory[openai]'") from exc

            self._client = openai.OpenAI(base_url=self.base_url, api_key=self._api_key, max_retries=self._max_retries)
        return self._client

    def complete(self, req: ModelRequest) -> ModelResponse:
        check_model_requests_allowed(self.name)
        model = req.model or self.default_model
        messages: list[dict[str, str]] = []
        if req.system:
            messages.append({"role": "system", "content": req.system})
        messages.append({"role": "user", "content": render_user_prompt(req)})
        start = time.perf_counter()
        try:
            completion = self._get_client().chat.completions.create(
                model=model,
                messages=messages,
                max_tokens=req.max_tokens,
                temperature=req.temperature,
                timeout=req.timeout_s,
            )
        except Exception as exc:
            if isinstance(exc, ModelError):
                raise
            raise translate_openai_error(exc, self.base_url, req.timeout_s) from exc
        latency_ms = (time.perf_counter() - start) * 1000
        if not completion.choices:
            raise ModelError(f"OpenAI-compatible server at {self.base_url} returned no choices; check the server log")
        text = completion.choices[0].message.content or ""
        usage = completion.usage
        in_tok = int(getattr(usage, "prompt_tokens", 0) or 0) if usage else 0
        out_tok = int(getattr(usage, "completion_tokens", 0) or 0) if usage else 0
        return ModelResponse(
            text=text,
            model=str(completion.model or model),
            input_tokens=in_tok,
            output_tokens=out_tok,
            cost_usd=cost_usd(model, in_tok, out_tok, self.prices, local=True),
            latency_ms=latency_ms,
            backend=self.name,
        )

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
