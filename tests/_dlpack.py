"""A stand-in for a JAX or CuPy array: only the DLPack protocol (and a length, as theirs
have), on the host or on a device, whose producer copies to the host when asked or not."""

from __future__ import annotations

from typing import Any

import numpy as np

#: NumPy asks a DLPack producer on a device for a copy to the host from 2.1 on
NUMPY_ASKS_A_COPY = np.lib.NumpyVersion(np.__version__) >= "2.1.0"


class DLPackArray:
    """``array`` behind ``__dlpack__`` alone; ``device`` is DLPack's (1, 0): the host,
    (2, 0): a CUDA device; ``copies``: whether it copies to the host when asked (DLPack 1.0)."""

    def __init__(
        self, array: np.ndarray, device: tuple[int, int] = (1, 0), copies: bool = False
    ) -> None:
        self._array = array
        self._device = device
        self._copies = copies

    def __dlpack__(self, **kwargs: Any) -> Any:
        if self._device[0] != 1 and not (self._copies and kwargs.get("dl_device") == (1, 0)):
            raise BufferError("on a device")
        return self._array.__dlpack__()

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._device

    def __len__(self) -> int:
        return len(self._array)
