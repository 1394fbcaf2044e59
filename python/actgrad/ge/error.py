"""GE's error type (ge.error.GeError): what a failing Session or GeApi call raises where GE returns a failure code."""


class GeError(RuntimeError):
    """A graph could not be added or run; the message names the call, the graph and what was wrong."""

    def __init__(self, message: str, api_name: str | None = None, context: dict | None = None) -> None:
        super().__init__(message)
        self.error_message = message
        self.api_name = api_name
        self.context = context or {}


def raise_ge_error(api_name: str, detail: str, **context) -> None:
    where = ", ".join(f"{k}={v}" for k, v in context.items())
    raise GeError("; ".join(p for p in (f"{api_name} failed", where, detail) if p), api_name, context)
