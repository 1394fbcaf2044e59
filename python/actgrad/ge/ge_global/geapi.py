"""GE's GeApi (ge.ge_global.GeApi): initialise and finalise GE. The twin needs no initialisation: the calls validate
their arguments as GE's do, accept GE's options, and return 0."""
from __future__ import annotations


def check_options(options: dict, what: str) -> None:
    """GE's options are a dict of str to str; TypeError naming the offending entry otherwise."""
    if not isinstance(options, dict):
        raise TypeError(f"{what} must be a dictionary")
    for key, value in options.items():
        if not isinstance(key, str):
            raise TypeError(f"{what}: key {key!r} must be a str")
        if not isinstance(value, str):
            raise TypeError(f"{what}: value of {key!r} must be a str, got {type(value).__name__} {value!r}")


class GeApi:
    @classmethod
    def ge_initialize(cls, config: dict) -> int:
        """Returns 0. config: GE's options, e.g. {"ge.exec.deviceId": "0", "ge.graphRunMode": "0"} (not empty)."""
        check_options(config, "Ge init config")
        if not config:
            raise TypeError("Ge init config must not be empty")
        device = config.get("ge.exec.deviceId", "0")
        if not device.isdigit():
            raise ValueError(f"Ge init config: ge.exec.deviceId must be a device number, got {device!r}")
        return 0

    @classmethod
    def ge_finalize(cls) -> int:
        """Returns 0."""
        return 0
