"""The Anthropic Messages API through the official `anthropic` SDK.

Guarantees:
- Thinking is off; the default model is claude-haiku-4-5; max_tokens is sent. temperature is not:
  the current SDK's Messages.create no longer takes it. It stays in the request key regardless.
- A call takes at most about `timeout_s` (the SDK's own retries are off by default, so a retry
  cannot double the budget); a timeout raises ModelTimeout.
- SDK errors are translated here, once, into ModelTimeout / ModelError with what to do next.
- The SDK is imported on first use, not at import; nothing is sent while calls are switched off.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from vyre_memory.errors import ConfigError, ModelError, ModelTimeout
from vyre_memory.models.base import (
    DEFAULT_ANTHROPIC_MODEL,
    ModelRequest,
    ModelResponse,
    check_model_requests_allowed,
    render_user_prompt,
)
from vyre_memory.models.pricing import cost_usd


def translate_anthropic_error(exc: Exception, timeout_s: float) -> ModelError:
    """Map an `anthropic` SDK exception into the errors.py tree."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return ModelTimeout(f"Anthropic API: no answer within {timeout_s}s; raise timeout_s or try again")
    if isinstance(exc, anthropic.AuthenticationError):
        return ModelError("Anthropic API rejected the key (401); check ANTHROPIC_API_KEY")
    if isinstance(exc, anthropic.PermissionDeniedError):
        return ModelError("Anthropic API: permission denied (403); check the key's workspace and model access")
    if isinstance(exc, anthropic.NotFoundError):
        return ModelError(f"Anthropic API: not found (404): {_message(exc)}; check the model name in [models]")
    if isinstance(exc, anthropic.RateLimitError):
        return ModelError("Anthropic API: rate limited (429); wait and retry, or lower concurrency")
    if isinstance(exc, anthropic.APIStatusError):
        return ModelError(f"Anthropic API: HTTP {exc.status_code}: {_message(exc)}; retry later or check [models]")
    if isinstance(exc, anthropic.APIConnectionError):
        return ModelError(f"Anthropic API: cannot connect ({exc}); check the network or [models.anthropic] base_url")
    return ModelError(f"Anthropic API: {type(exc).__name__}: {exc}")


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and "message" in err:
            return str(err["message"])
    return str(getattr(exc, "message", exc))


class AnthropicBackend:
    name = "anthropic"

    def __init__(
        self,
        api_key: str,
        *,
        model: str = DEFAULT_ANTHROPIC_MODEL,
        base_url: str | None = None,
        max_retries: int = 0,
        prices: Mapping[str, Any] | None = None,
    ) -> None:
        if not api_key:
            raise ConfigError("the Anthropic backend needs an API key; set ANTHROPIC_API_KEY")
        self.default_model = model
        self.base_url = base_url
        self.prices = prices
        self._api_key = api_key
        self._max_retries = max_retries
        self._client: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            try:
                import anthropic
            except ImportError as exc:
                raise ModelError("the anthropic backend needs its SDK: pip install 'vyre-memory[anthropic]'") from exc

            kwargs: dict[str, Any] = {"api_key": self._api_key, "max_retries": self._max_retries}
            if self.base_url:
                kwargs["base_url"] = self.base_url
            self._client = anthropic.Anthropic(**kwargs)
        return self._client

    def complete(self, req: ModelRequest) -> ModelResponse:
        check_model_requests_allowed(self.name)
        model = req.model or self.default_model
        kwargs: dict[str, Any] = {
            "model": model,
            "max_tokens": req.max_tokens,
            "messages": [{"role": "user", "content": render_user_prompt(req)}],
            "thinking": {"type": "disabled"},
            "timeout": req.timeout_s,
        }
        if req.system:
            kwargs["system"] = req.system
        start = time.perf_counter()
        try:
            message = self._get_client().messages.create(**kwargs)
        except Exception as exc:
            if isinstance(exc, ModelError):
                raise
            raise translate_anthropic_error(exc, req.timeout_s) from exc
        latency_ms = (time.perf_counter() - start) * 1000
        text = "".join(getattr(block, "text", "") for block in message.content if block.type == "text")
        usage = message.usage
        in_tok = int(getattr(usage, "input_tokens", 0) or 0)
        out_tok = int(getattr(usage, "output_tokens", 0) or 0)
        return ModelResponse(
            text=text,
            model=str(message.model or model),
            input_tokens=in_tok,
            output_tokens=out_tok,
            cost_usd=cost_usd(model, in_tok, out_tok, self.prices),
            latency_ms=latency_ms,
            backend=self.name,
        )

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
